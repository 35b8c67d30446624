"""Speed of ``rummy_v0``: random legal play through the full wrapped AEC loop.

Every step does what a training loop does: ``agent_iter``, ``last()`` (observation and
mask built), a uniform choice over the mask, ``step``. Hands restart with ``reset`` when
one ends. Run ``python benchmarks/bench_rummy.py [seconds]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# The loop is the installed benchmark's (gin-rummy bench env prints it too).
from gin_cli.speed import rummy_agent_steps_per_second  # noqa: E402

__all__ = ["rummy_agent_steps_per_second"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog=sys.argv[0], description=__doc__.split("\n")[0])
    parser.add_argument("seconds", nargs="?", type=float, default=3.0, help="seconds per size")
    seconds = parser.parse_args(argv).seconds
    if not seconds > 0:
        parser.error(f"seconds must be > 0, got {seconds:g}")
    print(f"rummy_v0 random play, full env() AEC loop, {seconds:g} s each")
    for n in (2, 4, 6):
        rate = rummy_agent_steps_per_second(n, seconds)
        print(f"  {n} players: {rate:10,.0f} agent-steps/s")


if __name__ == "__main__":
    main()
