"""Package hygiene: typed-package markers shipped, an SPDX license, a frame rate for every
env's renderer, the lint target type-checking every package, and the studies kept out of the
wheel (run from a clone)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import gymnasium
import pytest

from gin_env import games

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("gin_env", "agents", "training")


def _pyproject() -> dict:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


@pytest.mark.parametrize("package", PACKAGES)
def test_every_package_ships_a_py_typed_marker(package: str) -> None:
    assert (ROOT / package / "py.typed").is_file()
    assert "py.typed" in _pyproject()["tool"]["setuptools"]["package-data"][package]


def test_the_license_is_an_spdx_expression() -> None:
    project = _pyproject()["project"]
    assert project["license"] == "MIT"  # not the deprecated {text = ...} table
    requires = _pyproject()["build-system"]["requires"]
    assert any(re.fullmatch(r"setuptools>=(\d+)", r) and int(r[12:]) >= 77 for r in requires)


def test_the_shipped_checkpoints_are_package_data() -> None:
    """Every checkpoint ``agents.make`` can load by name (PPO ``.zip``, DMC ``.npz``) and
    its model card is in the package data (the wheel itself: tests/test_wheel.py)."""
    from agents import trained

    data = _pyproject()["tool"]["setuptools"]["package-data"]["agents"]
    names = trained.available()
    assert {"gin-ppo", "gin-dmc", "three-handed-ppo", "three-handed-dmc"} <= set(names)
    shipped = [p for p in trained.CHECKPOINT_DIR.iterdir() if p.stem in names]
    assert {p.suffix for p in shipped} >= {".zip", ".npz", ".md"}
    for path in shipped:
        assert any(path.match(f"checkpoints/{Path(p).name}") for p in data), path.name


@pytest.mark.parametrize("name", list(games.GAMES))
def test_every_env_has_a_render_frame_rate(name: str) -> None:
    spec = games.get(name)
    for env in (spec.make_env(), spec.make_wrapped_env()):
        fps = env.metadata["render_fps"]
        assert isinstance(fps, int) and fps > 0
        assert set(env.metadata["render_modes"]) == {"ansi", "human", "rgb_array"}
    gym_env = gymnasium.make(spec.gym_id)
    assert gym_env.metadata["render_fps"] == spec.make_env().metadata["render_fps"]
    assert gym_env.unwrapped.metadata["name"] == name


def test_the_wrapper_class_itself_has_a_frame_rate() -> None:
    from agents.single_agent import SingleAgentEnv

    assert SingleAgentEnv.metadata["render_fps"] > 0


def test_lint_type_checks_every_package() -> None:
    makefile = (ROOT / "Makefile").read_text()
    lint = makefile.split("\nlint:")[1].split("\n\n")[0]
    mypy = re.search(r"\$\(BIN\)/mypy (.*)", lint)
    assert mypy, lint
    # Every installed package (pyproject's find) is type-checked.
    installed = {"gin_env", "agents", "gin_eval", "training", "gin_cli", "gin_web"}
    assert installed <= set(mypy[1].split()), lint


@pytest.mark.slow
def test_every_study_runs_from_a_clone() -> None:
    # python -m studies.<name> from the repository root, as the docs say (help only: each
    # study's tiny-budget run is in its own test file).
    for name in ("team_vs_solo", "take_study", "encodings", "dmc_rollouts", "dmc_paired"):
        done = subprocess.run([sys.executable, "-m", f"studies.{name}", "--help"], cwd=ROOT,
                              capture_output=True, text=True, timeout=120)  # fmt: skip
        assert done.returncode == 0, (name, done.stderr[-500:])
        assert f"python -m studies.{name}" in done.stdout, name


def test_the_readme_core_install_names_every_core_dependency() -> None:
    readme = (ROOT / "README.md").read_text()
    listed = re.search(r"The core install \(([^)]*)\)", readme)
    assert listed, "the README says what the core install brings"
    names = {n.strip() for n in listed.group(1).split(",")}
    for dep in _pyproject()["project"]["dependencies"]:
        assert re.split(r"[<>=!~\[ ]", dep)[0] in names, dep


def test_make_test_installs_the_torchrl_extra() -> None:
    """tests/test_torchrl.py runs in ``make test`` (not skipped): its extra is installed."""
    makefile = (ROOT / "Makefile").read_text()
    install = re.search(r'pip install -q -e "\.\[([^\]]*)\]"', makefile)
    assert install and "torchrl" in install.group(1).split(","), install
    extra = _pyproject()["project"]["optional-dependencies"]["torchrl"]
    assert "torchrl==0.14.1" in extra and "tensordict==0.14.3" in extra


def test_ci_runs_every_example_target_and_benchmarl_stays_apart() -> None:
    """examples/ runs in CI: .ci/run calls each examples target, and BenchMARL's extra
    (torchrl < 0.12) is installed into its own venv, never beside the torchrl extra."""
    ci = (ROOT / ".ci" / "run").read_text().split()
    for target in ("test-examples", "test-benchmarl", "test-rllib"):
        assert target in ci, target
    extras = _pyproject()["project"]["optional-dependencies"]
    assert "torchrl==0.11.1" in extras["benchmarl"] and "torchrl==0.14.1" in extras["torchrl"]
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r'\$\(BENCHMARL_VENV\)/bin/pip install -q -e "\.\[benchmarl\]"', makefile)
    main_installs = re.findall(r'\$\(BIN\)/pip install -q -e "\.\[([^\]]*)\]"', makefile)
    assert main_installs and all("benchmarl" not in x for x in main_installs)


def test_the_development_page_names_every_module_of_the_layout() -> None:
    """docs/development.md's layout is the real one: every module of the packages, the
    studies and the examples is named there (a module added or renamed fails this until the
    page says where it sits)."""
    page = (ROOT / "docs" / "development.md").read_text()
    block = page.split("## Layout", 1)[1].split("```", 2)[1]
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", block))
    missing = []
    folders = ("gin_env", "agents", "training", "gin_eval", "studies", "examples",
               "gin_web")  # fmt: skip
    for folder in folders:
        for path in sorted((ROOT / folder).glob("*.py")):
            if path.stem not in ("__init__", "__main__") and path.stem not in words:
                missing.append(f"{folder}/{path.name}")
        for sub in sorted(p for p in (ROOT / folder).iterdir() if (p / "__init__.py").is_file()):
            if sub.name not in words:
                missing.append(f"{folder}/{sub.name}/")
    assert missing == [], f"not in docs/development.md's layout: {missing}"
