"""The trainers' progress bar (:mod:`training.progress`): drawn on a terminal only, off under
``--quiet`` (or ``--progress false``) and when output goes to a pipe or a file, where the
lines a run writes come out plain; the last evaluation's figure rides on the bar."""

from __future__ import annotations

import fcntl
import io
import os
import pty
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

from training.progress import Progress, bar_wanted

ROOT = Path(__file__).resolve().parents[1]

#: A short run of the bar: 3 updates, an evaluation's figure, a line above the bar.
SCRIPT = """
import sys
from training.progress import Progress
p = Progress(300, enabled=sys.argv[1] == "on", desc="train", unit="step")
for _ in range(3):
    p.update(100)
    p.evaluation("simple -12.5")
p.write("a line")
p.close()
"""


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_bar_is_wanted_only_on_a_terminal_and_not_when_quiet() -> None:
    assert bar_wanted(True, _Terminal())
    assert not bar_wanted(False, _Terminal())  # --quiet
    assert not bar_wanted(True, io.StringIO())  # a pipe, a file


def _run(mode: str, terminal: bool) -> tuple[str, str]:
    """(stdout, stderr) of :data:`SCRIPT` with standard error on a terminal or a pipe."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-c", SCRIPT, mode]
    if not terminal:
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout, done.stderr
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=slave, text=True)
    os.close(slave)
    err = b""
    while select.select([master], [], [], 120)[0]:
        try:
            data = os.read(master, 4096)
        except OSError:  # the other end closed
            break
        if not data:
            break
        err += data
    os.close(master)
    out = proc.communicate(timeout=120)[0]
    assert proc.returncode == 0
    return out, err.decode(errors="replace")


def test_on_a_terminal_the_bar_shows_steps_rate_and_the_last_evaluation() -> None:
    out, err = _run("on", terminal=True)
    assert "300/300" in err and "step/s" in err, err
    assert "eval=simple -12.5" in err, err
    assert out == "a line\n"  # tqdm clears the bar, writes the line, draws the bar again


def test_quiet_turns_the_bar_off_on_a_terminal() -> None:
    out, err = _run("off", terminal=True)
    assert "step/s" not in err and "300/300" not in err, err
    assert out == "a line\n"  # the run's lines still come out, plain


def test_in_a_pipe_no_bar_only_lines() -> None:
    out, err = _run("on", terminal=False)
    assert err == ""
    assert out == "a line\n"


def test_scalars_and_the_evaluation_go_on_the_bar(tmp_path: Path) -> None:
    p = Progress(10, log_dir=None, enabled=False)
    p.scalars(5, loss__q=0.25)
    p.evaluation("heuristic -3.1")
    assert p.bar.postfix is not None
    assert "q=0.25" in p.bar.postfix and "eval=heuristic -3.1" in p.bar.postfix
    assert not p.drawn
    p.close()


def test_the_trainers_take_quiet_and_a_resume_may_change_it() -> None:
    from training import train_dmc, train_ppo

    assert train_dmc.parse_args(["--quiet"]).quiet is True
    assert train_dmc.parse_args([]).quiet is False
    assert "quiet" in train_dmc.CHANGEABLE
    assert train_ppo.parse_args(["--quiet"]).quiet is True
    assert "quiet" in train_ppo.CHANGEABLE
