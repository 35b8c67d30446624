"""Resumable checkpoints shared by the trainers (PPO and DMC).

A run keeps ``<run-dir>/checkpoints/step_<n>/`` folders and a ``latest`` pointer file.
A checkpoint is written into ``<name>.tmp`` first and renamed when complete, then the
pointer moves (``os.replace``), so a run killed at any moment leaves the previous
checkpoint whole. What goes in the folder is the trainer's business (a ``write(folder)``
callback); :func:`rng_states` / :func:`set_rng_states` cover Python, numpy and torch.

The run's settings are saved with its first checkpoint; :func:`resume_settings` merges
them with the flags of a ``--resume`` command: a flag given on resume that differs from the
saved value is an error naming it, unless the trainer lists it as changeable.
"""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "latest_checkpoint",
    "write_checkpoint",
    "rng_states",
    "set_rng_states",
    "resume_settings",
]


def latest_checkpoint(run_dir: str | Path) -> Path | None:
    """The folder the run's ``latest`` pointer names, or ``None``."""
    pointer = Path(run_dir) / "checkpoints" / "latest"
    if not pointer.is_file():
        return None
    path = Path(run_dir) / "checkpoints" / pointer.read_text().strip()
    return path if path.is_dir() else None


def write_checkpoint(
    run_dir: str | Path,
    name: str,
    write: Callable[[Path], None],
    keep: int = 2,
    pointer: bool = True,
) -> Path:
    """Write ``checkpoints/<name>/`` through ``write(tmp_folder)``, then (with ``pointer``)
    point ``latest`` at it and delete all but the ``keep`` newest ``step_*`` folders."""
    root = Path(run_dir) / "checkpoints"
    tmp = root / (name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    write(tmp)
    final = root / name
    shutil.rmtree(final, ignore_errors=True)
    tmp.rename(final)
    if not pointer:
        return final
    pointer_tmp = root / "latest.tmp"
    pointer_tmp.write_text(name)
    os.replace(pointer_tmp, root / "latest")
    old = sorted(p for p in root.glob("step_*") if p.is_dir() and not p.name.endswith(".tmp"))
    for p in old[: -max(1, keep)]:
        shutil.rmtree(p, ignore_errors=True)
    return final


def rng_states() -> dict[str, Any]:
    """The global Python, numpy and torch RNG states."""
    import torch  # train extra: torch

    return {
        "python": random.getstate(),
        "numpy": np.random.get_state(),
        "torch": torch.get_rng_state(),
    }


def set_rng_states(states: Mapping[str, Any]) -> None:
    import torch  # train extra: torch

    random.setstate(states["python"])
    np.random.set_state(states["numpy"])
    torch.set_rng_state(states["torch"])


def resume_settings(
    saved: Mapping[str, Any],
    given: Mapping[str, Any],
    explicit: Collection[str],
    changeable: Collection[str],
) -> dict[str, Any]:
    """A resumed run's settings: the ``saved`` ones, with the ``changeable`` flags the
    resume command gave explicitly (``explicit``) taking their new values.

    A flag in ``explicit`` that is not changeable and differs from the saved value is a
    ``ValueError`` naming the flag, the saved value and the given one.
    """
    out = dict(saved)
    for key in explicit:
        if key not in given:
            continue
        if key in changeable:
            out[key] = given[key]
        elif key in saved and given[key] != saved[key]:
            flag = "--" + key.replace("_", "-")
            raise ValueError(
                f"{flag} {given[key]!r} conflicts with the run being resumed, which was started "
                f"with {flag} {saved[key]!r}; drop the flag (resume keeps the run's settings) "
                "or start a new run in another --run-dir"
            )
    return out
