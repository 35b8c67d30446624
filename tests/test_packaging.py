"""Package hygiene: typed-package markers shipped, an SPDX license, a frame rate for every
env's renderer, the lint target type-checking every package, and the studies kept out of the
wheel (run from a clone)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
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
    data = _pyproject()["tool"]["setuptools"]["package-data"]["agents"]
    for path in (ROOT / "agents" / "checkpoints").glob("*.zip"):
        assert any(Path(path.name).match(Path(p).name) for p in data), path.name


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
    from gin_env.wrappers import SingleAgentEnv

    assert SingleAgentEnv.metadata["render_fps"] > 0


def test_lint_type_checks_every_package() -> None:
    makefile = (ROOT / "Makefile").read_text()
    lint = makefile.split("\nlint:")[1].split("\n\n")[0]
    assert re.search(r"\$\(BIN\)/mypy gin_env agents training\b", lint), lint


@pytest.mark.slow
def test_the_wheel_holds_the_library_and_no_study(tmp_path: Path) -> None:
    # Built from a copy of the work tree (tracked and new files), so that no build/ left
    # in the clone can add stale modules to the wheel.
    src = tmp_path / "src"
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-co", "--exclude-standard"],
                            capture_output=True, text=True)  # fmt: skip
    if listed.returncode != 0:
        pytest.skip("not a git clone")
    for name in listed.stdout.splitlines():
        if (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path), str(src)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    if built.returncode != 0:
        pytest.skip(f"no wheel could be built here: {built.stderr[-300:]}")
    (wheel,) = tmp_path.glob("gin_env-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if "/" in n and ".dist-info" not in n}
    assert tops == set(PACKAGES), tops
    assert "training/evaluation/duplicate.py" in names
    assert "training/data/hand_value.npz" in names  # the value behind --adjust value
    assert not [n for n in names if "studies" in n or "team_study" in n or "take_study" in n]


@pytest.mark.slow
def test_every_study_runs_from_a_clone() -> None:
    # python -m studies.<name> from the repository root, as the docs say (help only: each
    # study's tiny-budget run is in its own test file).
    for name in ("team_vs_solo", "take_study", "encodings", "dmc_rollouts"):
        done = subprocess.run([sys.executable, "-m", f"studies.{name}", "--help"], cwd=ROOT,
                              capture_output=True, text=True, timeout=120)  # fmt: skip
        assert done.returncode == 0, (name, done.stderr[-500:])
        assert f"python -m studies.{name}" in done.stdout, name
