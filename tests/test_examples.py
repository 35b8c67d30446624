"""``examples/``: each script runs as a user runs it, at its ``--smoke`` budget, in a
subprocess (as CleanRL tests its scripts), and prints what it promises: its training
lines and the learned player's points with a 95% interval.

Each needs its library. ``make test-examples`` runs the TorchRL, SB3 and Tianshou ones in
``.venv`` (the ``torchrl``, ``train`` and ``tianshou`` extras); ``make test-benchmarl`` and
``make test-rllib`` run the BenchMARL and RLlib ones in their own venvs (BenchMARL needs a
torchrl older than the ``torchrl`` extra's; ray pins its own gymnasium). A test whose
library is not installed is skipped; those targets select the ones their venv holds.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.examples

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
#: "... points per hand ...: +0.12 +/- 3.40 (95% CI, 10 hands)"
CI_LINE = re.compile(r"points per (hand|game) .*: ([-+]\d+\.\d+) \+/- (\d+\.\d+|inf|nan) \(95% CI")


def _run(script: str, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script), "--smoke", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"{script} failed:\n{done.stderr[-4000:]}"
    return done.stdout


def _points(out: str) -> float:
    match = CI_LINE.search(out)
    assert match, f"no line with points and a 95% CI in:\n{out}"
    mean = float(match.group(2))
    assert math.isfinite(mean)
    return mean


def test_every_example_is_tested_here() -> None:
    scripts = sorted(p.name for p in EXAMPLES.glob("*.py"))
    source = Path(__file__).read_text()
    assert scripts, "no examples found"
    assert [s for s in scripts if f'"{s}"' not in source] == []


def test_torchrl_mappo_trains_and_plays() -> None:
    pytest.importorskip("torchrl")
    out = _run("torchrl_mappo.py")
    assert re.search(r"iteration 2: \d+ hands ended, policy loss [-+]\d", out), out
    _points(out)


def test_sb3_maskable_ppo_on_the_vector_env() -> None:
    pytest.importorskip("sb3_contrib")
    out = _run("sb3_maskable_ppo.py")
    assert re.search(r"trained \d+ steps", out), out
    _points(out)


def test_tianshou_dqn_against_a_random_player() -> None:
    pytest.importorskip("tianshou")
    out = _run("tianshou_dqn.py")
    assert "best test return" in out, out
    _points(out)


def test_benchmarl_task_trains_mappo(tmp_path: Path) -> None:
    pytest.importorskip("benchmarl")
    out = _run("benchmarl_task.py", "--out", str(tmp_path))
    assert re.search(r"trained \d+ frames in 2 iterations", out), out
    assert list(tmp_path.iterdir()), "BenchMARL wrote no run folder"


def test_rllib_ppo_trains_and_plays() -> None:
    pytest.importorskip("ray.rllib")
    out = _run("rllib_ppo.py")
    assert re.search(r"iteration 1: ", out), out
    _points(out)
