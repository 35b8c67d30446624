"""Optional packages: a missing one is reported up front, naming the extra that installs it.

Missing packages are simulated by putting None in ``sys.modules`` (what Python does for a
module that could not be found), so these tests run whatever is installed.
"""

from __future__ import annotations

import importlib
import json
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from gin_env import gin_v0, optional, rummy_v0, three_handed_gin_v0
from gin_env.optional import MissingExtraError, require


def _hide(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    """Make ``modules`` (and their submodules already imported) look not installed."""
    for name in list(sys.modules):
        if any(name == m or name.startswith(m + ".") for m in modules):
            monkeypatch.delitem(sys.modules, name)
    for m in modules:
        monkeypatch.setitem(sys.modules, m, None)


def test_require_returns_an_installed_module() -> None:
    assert require("json") is json
    assert require("numpy.linalg") is np.linalg


@pytest.mark.parametrize(
    ("module", "extra", "dist"),
    [
        ("PIL", "render", "pillow"),
        ("PIL.Image", "render", "pillow"),
        ("matplotlib.pyplot", "eval", "matplotlib"),
        ("openskill.models", "eval", "openskill"),
        ("torch", "train", "torch"),
        ("sb3_contrib", "train", "sb3-contrib"),
        ("ray.rllib", "rllib", "ray[rllib]"),
    ],
)
def test_a_missing_module_names_its_extra(monkeypatch, module: str, extra: str, dist: str) -> None:
    _hide(monkeypatch, module.split(".")[0])
    with pytest.raises(MissingExtraError) as err:
        require(module, needed_for="this feature")
    text = str(err.value)
    assert text.startswith(f"this feature needs {dist}, which is not installed")
    assert f'pip install "gin-env[{extra}]"' in text and f'pip install -e ".[{extra}]"' in text
    assert isinstance(err.value, ModuleNotFoundError)  # old `except ImportError` still work
    assert err.value.name in (module, module.split(".")[0])


def test_the_extra_can_be_named_by_the_caller(monkeypatch) -> None:
    _hide(monkeypatch, "torch")
    with pytest.raises(MissingExtraError, match=r"gin-env\[rllib\]"):
        require("torch", "rllib")


def test_a_missing_dependency_inside_an_installed_package_is_not_renamed(
    tmp_path, monkeypatch
) -> None:
    pkg = tmp_path / "halfbuilt"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("import no_such_module_anywhere\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError) as err:
        require("halfbuilt")
    assert not isinstance(err.value, MissingExtraError)
    assert err.value.name == "no_such_module_anywhere"


@pytest.mark.parametrize("module", [gin_v0, three_handed_gin_v0, rummy_v0])
def test_rgb_array_checks_pillow_when_the_env_is_made(monkeypatch, module) -> None:
    _hide(monkeypatch, "PIL")
    with pytest.raises(
        MissingExtraError, match=r'render_mode="rgb_array" needs pillow.*\[render\]'
    ):
        module.raw_env(render_mode="rgb_array")
    module.raw_env(render_mode="ansi").reset(seed=0)  # text rendering needs nothing


def test_drawing_and_gifs_name_the_render_extra(tmp_path, monkeypatch) -> None:
    from gin_env import record as replay
    from gin_env.render_image import table_image

    env = gin_v0.raw_env(target_score=10)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    while not env.match.is_over:
        env.step(int(rng.choice(env.legal_actions())))
    data = replay.match_record(1, {"target_score": 10}, env)
    _hide(monkeypatch, "PIL")
    with pytest.raises(MissingExtraError, match=r"drawing the table needs pillow"):
        table_image(env)
    gif = tmp_path / "m.gif"
    with pytest.raises(MissingExtraError, match=r"a GIF replay needs pillow"):
        replay.replay_gif(data, gif)
    assert not gif.exists()


def test_eval_checks_matplotlib_before_any_game(tmp_path, monkeypatch, capsys) -> None:
    from gin_cli import evaluate as ev
    from gin_eval import gin

    played: list[object] = []
    monkeypatch.setattr(gin, "play_gin_pair", lambda *a, **k: played.append(a))
    _hide(monkeypatch, "matplotlib")
    argv = ["gin", "--agents", "random,simple", "--pairs", "2", "--workers", "1",
            "--no-progress", "--out", str(tmp_path / "out")]  # fmt: skip
    with pytest.raises(SystemExit) as stop:
        ev.main(argv)
    assert stop.value.code == 1
    err = capsys.readouterr().err
    assert "eval plots (or pass --no-plot) needs matplotlib" in err
    assert 'pip install "gin-env[eval]"' in err
    assert not played and not (tmp_path / "out").exists()


def test_eval_without_plots_needs_no_matplotlib(tmp_path, monkeypatch) -> None:
    from gin_cli import evaluate as ev

    _hide(monkeypatch, "matplotlib")
    ev.main(["gin", "--agents", "random,simple", "--pairs", "2", "--workers", "1",
             "--no-progress", "--no-plot", "--out", str(tmp_path)])  # fmt: skip
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".csv", ".json"]


def test_the_ladder_checks_openskill_before_any_game(monkeypatch) -> None:
    from gin_eval import ladder, stats

    played: list[object] = []
    monkeypatch.setattr(ladder, "play_gin_pair", lambda *a, **k: played.append(a))
    _hide(monkeypatch, "openskill")
    with pytest.raises(MissingExtraError, match=r"OpenSkill ratings needs openskill.*\[eval\]"):
        ladder.ladder(["simple", "random"], pairs=2, workers=1, progress=False)
    assert not played
    with pytest.raises(MissingExtraError, match=r"\[eval\]"):
        stats.rate_openskill(["a", "b"], [(0, 1, 1.0)])


def test_a_full_sb3_checkpoint_names_the_train_extra(tmp_path, monkeypatch) -> None:
    from agents import trained
    from training.trusted import import_sb3

    path = tmp_path / "model.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("data", "{}")  # an SB3 save, not an actor-only zip
    with pytest.raises(ValueError, match=r"model\.zip is a stable-baselines3 .*import-sb3 --trust"):
        trained.load(path)  # never unpickled on the way to an agent
    _hide(monkeypatch, "sb3_contrib")
    with pytest.raises(MissingExtraError, match=r"SB3 checkpoint .*model\.zip.*\[train\]"):
        import_sb3(path, tmp_path / "actor.zip", trust=True)


def test_rllib_env_names_the_rllib_extra(monkeypatch) -> None:
    _hide(monkeypatch, "ray")
    monkeypatch.delitem(sys.modules, "training.rllib_env", raising=False)
    with pytest.raises(MissingExtraError, match=r"training\.rllib_env needs ray\[rllib\]"):
        importlib.import_module("training.rllib_env")


def test_every_extra_in_the_table_is_a_pyproject_extra() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    data = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    declared = data["project"]["optional-dependencies"]
    for module, (dist, extra) in optional.PACKAGES.items():
        assert extra in declared, f"{module}: extra {extra!r} is not in pyproject.toml"
        names = [d.split(">")[0].split("<")[0].split("=")[0].lower() for d in declared[extra]]
        assert dist.lower() in names, f"{module}: {dist} is not in the {extra!r} extra"


def test_rllib_training_without_ray_is_one_line_naming_the_extra(monkeypatch, capsys) -> None:
    from training import rllib_train

    _hide(monkeypatch, "ray")
    monkeypatch.delitem(sys.modules, "training.rllib_env", raising=False)
    assert rllib_train.main(["--iterations", "1"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and 'pip install "gin-env[rllib]"' in err[0]


def test_cli_gif_without_pillow_is_one_error_line(tmp_path, monkeypatch) -> None:
    from click.testing import CliRunner

    from gin_cli.main import cli

    path = tmp_path / "m.json"
    CliRunner().invoke(cli, ["match", "-g", "gin", "--agents", "random", "-o",
                             "target_score=10", "--save", str(path)])  # fmt: skip
    _hide(monkeypatch, "PIL")
    result = CliRunner().invoke(cli, ["replay", str(path), "--gif", str(tmp_path / "m.gif")])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "gin-rummy replay --gif needs pillow" in lines[0]
    assert "gin-env[render]" in lines[0] and not (tmp_path / "m.gif").exists()
