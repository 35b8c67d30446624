"""Speed of the gin envs against their peers (OpenSpiel, RLCard), side by side in one run.

The benchmark itself is installed with the package, :mod:`gin_cli.speed` (what
``gin-rummy bench env`` runs); this script runs it from a clone:
``python benchmarks/bench_env.py --seconds 5``. What each contender does and how the rates
are measured: :mod:`gin_cli.speed`.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gin_cli.speed import (  # noqa: E402
    Result,
    aec_loop,
    contenders,
    main,
    openspiel_loop,
    rlcard_loop,
    run,
)

__all__ = ["Result", "aec_loop", "openspiel_loop", "rlcard_loop", "contenders", "run", "main"]

if __name__ == "__main__":
    raise SystemExit(main())
