"""The one result writer: JSON (with its provenance) and CSV.

Every JSON an evaluation or a study writes records how it was made under
``"provenance"``: the command line, the commit of the code (and whether the work tree had
uncommitted changes), the seeds and the versions of the packages that compute results, so
that a committed figure can be traced to the command that made it.
"""

from __future__ import annotations

import csv
import json
import platform
import shlex
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "PACKAGES",
    "json_default",
    "command_line",
    "provenance",
    "write_json",
    "write_csv",
    "write_result",
    "write_replays",
]

#: The packages whose versions a result records (those installed).
PACKAGES = (
    "gin-env",
    "numpy",
    "numba",
    "gymnasium",
    "pettingzoo",
    "torch",
    "stable-baselines3",
    "sb3-contrib",
    "matplotlib",
    "openskill",
)
_REPO = Path(__file__).resolve().parents[1]


def json_default(o: Any) -> Any:
    """JSON for numpy scalars and arrays, tuples and paths (``json.dumps(default=...)``)."""
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, tuple):
        return list(o)
    if isinstance(o, Path):
        return str(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(_REPO), *args], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


def command_line() -> list[str]:
    """This process's command line as a user would type it: ``gin-rummy eval ...`` (the
    console script), ``python -m studies.take_study ...`` (a module run with ``-m``), or the
    script and its arguments."""
    argv0, rest = sys.argv[0], sys.argv[1:]
    if Path(argv0).name == "gin-rummy" or argv0.startswith("gin-rummy "):
        return ["gin-rummy", *rest]  # the front door renames argv[0] "gin-rummy <cmd>"
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    if spec is not None and spec.name:
        return ["python", "-m", spec.name.removesuffix(".__main__"), *rest]
    return ["python", argv0, *rest]


def provenance(
    seeds: Iterable[int] | None = None, command: str | Sequence[str] | None = None
) -> dict[str, Any]:
    """How a result was made: ``command`` (default: this process's command line), the
    commit of the code (None outside a git clone) and ``dirty`` (uncommitted changes to
    tracked files), the ``seeds`` and the package versions."""
    if command is None:
        command = command_line()
    if not isinstance(command, str):
        command = shlex.join(command)
    commit = _git("rev-parse", "HEAD")
    dirty = None if commit is None else bool(_git("status", "--porcelain", "--untracked-files=no"))
    return {
        "command": command,
        "commit": commit,
        "dirty": dirty,
        "seeds": None if seeds is None else [int(s) for s in seeds],
        "versions": _versions(),
    }


def _seeds_of(result: Mapping[str, Any]) -> list[int] | None:
    seed = result.get("seed")
    return [seed] if isinstance(seed, int) and not isinstance(seed, bool) else None


def write_json(
    path: str | Path,
    result: Mapping[str, Any],
    seeds: Iterable[int] | None = None,
    command: str | Sequence[str] | None = None,
) -> Path:
    """``result`` as JSON at ``path`` with its :func:`provenance` (``seeds`` default: the
    result's ``"seed"``); a ``"provenance"`` already in ``result`` is replaced."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    seeds = _seeds_of(result) if seeds is None else seeds
    data = {**result, "provenance": provenance(seeds, command)}
    path.write_text(json.dumps(data, indent=2, default=json_default) + "\n")
    return path


def write_csv(
    path: str | Path, rows: Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None
) -> Path:
    """``rows`` as CSV at ``path``: ``columns`` (default: the first row's keys; a row that
    lacks one leaves it empty); an empty file for no rows."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as f:
        if rows:
            w = csv.DictWriter(f, fieldnames=list(columns or rows[0]))
            w.writeheader()
            w.writerows(rows)
    return path


def write_result(
    out: str | Path,
    stem: str,
    result: Mapping[str, Any],
    rows: Sequence[Mapping[str, Any]],
    seeds: Iterable[int] | None = None,
    command: str | Sequence[str] | None = None,
) -> list[Path]:
    """``<out>/<stem>.json`` (the result, :func:`write_json`) and ``<out>/<stem>.csv``
    (the rows); returns both paths."""
    out = Path(out)
    return [write_json(out / f"{stem}.json", result, seeds, command),
            write_csv(out / f"{stem}.csv", rows)]  # fmt: skip


def write_replays(
    folder: str | Path | None, named: Iterable[tuple[str, Mapping[str, Any]]]
) -> dict[str, Any] | None:
    """Each ``(name, record)`` as ``<folder>/<name>.json``: a game's replay record
    (:mod:`gin_env.record`: ``gin-rummy replay`` opens the gin games';
    :func:`gin_env.record.replay_moves` plays basic rummy's). Returns what a result says of
    them, ``{"folder", "files"}`` (None, writing nothing, when ``folder`` is None)."""
    if folder is None:
        return None
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    count = 0
    for name, record in named:
        (folder / f"{name}.json").write_text(json.dumps(record, default=json_default) + "\n")
        count += 1
    return {"folder": str(folder), "files": count}
