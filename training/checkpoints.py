"""Resumable checkpoints and run folders shared by the trainers (PPO, DMC, tune).

A run keeps ``<run-dir>/checkpoints/step_<n>/`` folders and a ``latest`` pointer file.
A checkpoint is written into ``<name>.tmp`` first and renamed when complete, then the
pointer moves (``os.replace``), so a run killed at any moment leaves the previous
checkpoint whole and ``latest`` naming a folder that exists. What goes in the folder is
the trainer's business (a ``write(folder)`` callback); every checkpoint also holds
``checkpoint.json`` (the run's id and the step), and pruning deletes only older step
folders of the same run, never another run's.

Everything here is data, never code: settings, counters and RNG states as JSON
(:func:`rng_states` gives Python's, numpy's and torch's as JSON-able lists), torch state
written by :func:`save_torch` and read back by :func:`load_torch` with
``weights_only=True``. A file that is empty, cut short or not what it should be is a
one-line ``ValueError`` naming it (:func:`read_json`, :func:`load_torch`).

Run folders (:func:`claim_run_dir`): a new run in a folder that already holds something
is refused unless told ``overwrite``; ``resume`` with no checkpoint is refused, not a fresh
start; the folder is checked writable before any work. A resumed run's settings come from
its checkpoint: :func:`resume_settings` refuses a flag that contradicts them, by name.
"""

from __future__ import annotations

import base64
import json
import os
import random
import re
import shutil
import uuid
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "CHECKPOINT_FORMAT",
    "latest_checkpoint",
    "checkpoint_run_id",
    "write_checkpoint",
    "copy_folder",
    "rng_states",
    "set_rng_states",
    "resume_settings",
    "read_json",
    "read_jsonl",
    "write_json_atomic",
    "save_torch",
    "load_torch",
    "claim_run_dir",
    "check_writable",
    "check_export_name",
    "new_run_id",
]

CHECKPOINT_FORMAT = "gin-env-checkpoint-v1"
#: What an exported player may be called: a file name, never a path.
EXPORT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def _short(err: BaseException) -> str:
    """An exception as one short line (for messages that name a file)."""
    text = str(err).strip().splitlines()
    line = text[0] if text else ""
    return f"{type(err).__name__}: {line[:160]}" if line else type(err).__name__


# -- JSON and torch files ------------------------------------------------------------------
def read_json(path: str | Path, what: str = "JSON file") -> Any:
    """The JSON data in ``path``; a missing, empty or malformed file is one line naming it."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such {what}")
    text = path.read_bytes()
    if not text.strip():
        raise ValueError(f"{path}: empty {what}")
    try:
        return json.loads(text)
    except (ValueError, UnicodeDecodeError) as err:
        raise ValueError(f"{path}: not a valid {what} ({_short(err)})") from None


def read_jsonl(path: str | Path) -> list[Any]:
    """The records of an append-only JSON-lines log. A torn last line (a kill mid-append)
    is dropped: the log is read up to its last whole record; a bad line before the last is
    a ValueError naming the file and the line."""
    path = Path(path)
    lines = path.read_bytes().split(b"\n")
    rows = []
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except (ValueError, UnicodeDecodeError) as err:
            if all(not rest.strip() for rest in lines[i + 1 :]):
                break  # the torn last record
            raise ValueError(f"{path}: line {i + 1} is not a JSON record ({_short(err)})") from None
    return rows


def write_json_atomic(path: str | Path, data: Any) -> Path:
    """Write ``data`` as JSON through a temporary file and a rename (a kill mid-write
    leaves the previous file whole)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, default=_jsonable))  # key order kept
    os.replace(tmp, path)
    return path


def _jsonable(x: Any) -> Any:
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(f"{type(x).__name__} is not JSON data")


def save_torch(obj: Any, path: str | Path) -> Path:
    """``torch.save`` of tensors and plain containers (state dicts), read by
    :func:`load_torch`."""
    import torch  # train extra: torch

    path = Path(path)
    torch.save(obj, path)
    return path


def load_torch(path: str | Path, what: str = "torch state file") -> Any:
    """A torch file of tensors and plain containers, read with ``weights_only=True`` (no
    code runs); anything else is one line naming the file."""
    import torch  # train extra: torch

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such {what}")
    if path.stat().st_size == 0:
        raise ValueError(f"{path}: empty {what}")
    try:
        return torch.load(path, weights_only=True, map_location="cpu")
    except Exception as err:  # torch raises many kinds for a bad file; name the file
        raise ValueError(f"{path}: not a readable {what} ({_short(err)})") from None


# -- RNG states as JSON --------------------------------------------------------------------
def rng_states() -> dict[str, Any]:
    """The global Python, numpy and torch RNG states, as JSON-able data."""
    import torch  # train extra: torch

    version, internal, gauss = random.getstate()
    kind, keys, pos, has_gauss, cached = np.random.get_state(legacy=True)  # type: ignore[misc]
    return {
        "python": [version, list(internal), gauss],
        "numpy": [kind, np.asarray(keys).tolist(), int(pos), int(has_gauss), float(cached)],
        "torch": base64.b64encode(torch.get_rng_state().numpy().tobytes()).decode("ascii"),
    }


def set_rng_states(states: Mapping[str, Any]) -> None:
    """Restore what :func:`rng_states` gave; a malformed state is a ValueError."""
    import torch  # train extra: torch

    try:
        version, internal, gauss = states["python"]
        random.setstate((int(version), tuple(int(x) for x in internal), gauss))
        kind, keys, pos, has_gauss, cached = states["numpy"]
        np.random.set_state(
            (str(kind), np.asarray(keys, np.uint32), int(pos), int(has_gauss), float(cached))
        )
        raw = np.frombuffer(base64.b64decode(states["torch"]), np.uint8).copy()
        torch.set_rng_state(torch.from_numpy(raw))
    except (KeyError, TypeError, ValueError, RuntimeError) as err:
        raise ValueError(f"malformed RNG states ({_short(err)})") from None


# -- checkpoint folders --------------------------------------------------------------------
def new_run_id() -> str:
    return uuid.uuid4().hex


def latest_checkpoint(run_dir: str | Path) -> Path | None:
    """The folder the run's ``latest`` pointer names, or ``None`` when the run has no
    pointer; a pointer naming a missing folder is a ValueError (never a silent fresh
    start)."""
    root = Path(run_dir) / "checkpoints"
    pointer = root / "latest"
    if not pointer.is_file():
        return None
    name = pointer.read_text().strip()
    if not name or "/" in name or "\\" in name or name in (".", ".."):
        raise ValueError(f"{pointer}: names no checkpoint folder ({name!r})")
    path = root / name
    if not path.is_dir():
        raise ValueError(f"{pointer} names {name!r}, which is not a folder under {root}")
    return path


def checkpoint_run_id(folder: str | Path) -> str | None:
    """The id of the run that wrote a checkpoint folder (``None`` for one without
    ``checkpoint.json``)."""
    path = Path(folder) / "checkpoint.json"
    if not path.is_file():
        return None
    info = read_json(path, "checkpoint marker")
    return str(info.get("run_id")) if isinstance(info, dict) and info.get("run_id") else None


def _step(name: str) -> int | None:
    m = re.fullmatch(r"step_(\d+)", name)
    return int(m.group(1)) if m else None


def write_checkpoint(
    run_dir: str | Path,
    name: str,
    write: Callable[[Path], None],
    keep: int = 2,
    pointer: bool = True,
    run_id: str | None = None,
) -> Path:
    """Write ``checkpoints/<name>/`` through ``write(tmp_folder)`` (plus
    ``checkpoint.json``), then (with ``pointer``) point ``latest`` at it and delete all but
    the ``keep`` newest ``step_*`` folders of the same run (``run_id``)."""
    root = Path(run_dir) / "checkpoints"
    tmp = root / (name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    write(tmp)
    marker = {"format": CHECKPOINT_FORMAT, "run_id": run_id, "name": name, "step": _step(name)}
    (tmp / "checkpoint.json").write_text(json.dumps(marker, indent=1))
    final = root / name
    if final.exists():  # the same step written again by this run (e.g. a stop at a checkpoint)
        if run_id is None or checkpoint_run_id(final) not in (run_id, None):
            shutil.rmtree(tmp, ignore_errors=True)
            raise ValueError(f"{final} belongs to another run; not replacing it")
        old = root / (name + ".old")
        shutil.rmtree(old, ignore_errors=True)
        final.rename(old)
        tmp.rename(final)
        shutil.rmtree(old, ignore_errors=True)
    else:
        tmp.rename(final)
    if not pointer:
        return final
    pointer_tmp = root / "latest.tmp"
    pointer_tmp.write_text(name)
    os.replace(pointer_tmp, root / "latest")
    if run_id is None:
        return final
    ours = []
    for p in root.iterdir():
        step = _step(p.name)
        if step is not None and p.is_dir() and p.name != name:
            try:
                if checkpoint_run_id(p) == run_id:
                    ours.append((step, p))
            except ValueError:  # a damaged marker: not provably ours, so not ours to delete
                continue
    ours.sort()
    mine = _step(name)
    older = [p for s, p in ours if mine is None or s < mine]
    for p in older[: max(0, len(older) - max(1, keep) + 1)]:
        shutil.rmtree(p, ignore_errors=True)
    return final


def copy_folder(src: Path, target: Path, names: Collection[str], run_id: str | None) -> Path:
    """Copy ``names`` of a checkpoint folder to ``target`` (through a temporary folder, so a
    copy is whole), replacing an earlier copy of the same run; a ``target`` that holds
    anything else is refused (never deletes another run's files)."""
    if target.exists():
        mine = (target / "checkpoint.json").is_file() and checkpoint_run_id(target) == run_id
        if not mine or run_id is None:
            raise ValueError(
                f"{target} exists and is not a copy of this run's checkpoints; not replacing "
                "it (give a new folder)"
            )
    tmp = target.with_name(target.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for name in (*names, "checkpoint.json"):
        if (src / name).is_file():
            shutil.copyfile(src / name, tmp / name)
    old = target.with_name(target.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        target.rename(old)
    tmp.rename(target)
    shutil.rmtree(old, ignore_errors=True)
    return target


# -- run folders and outputs ---------------------------------------------------------------
def check_writable(path: str | Path, folder: bool = False, create: bool = True) -> Path:
    """Refuse, before any work, an output place that cannot be written: a file whose folder
    is missing or read-only, or that is a folder; with ``folder``, a folder that cannot be
    created (it is created, unless ``create`` is false) or written. Returns the path."""
    path = Path(path)
    if folder and not create and not path.exists():
        above = path.parent
        while not above.exists() and above != above.parent:
            above = above.parent
        if not above.is_dir():
            raise ValueError(f"{path}: cannot create the folder ({above} is a file)")
        if not os.access(above, os.W_OK):
            raise ValueError(f"{path}: cannot create the folder ({above} is not writable)")
        return path
    if folder:
        if path.exists() and not path.is_dir():
            raise ValueError(f"{path} is a file, not a folder")
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise ValueError(f"{path}: cannot create the folder ({_short(err)})") from None
        probe = path / f".write-test-{os.getpid()}"
        try:
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as err:
            raise ValueError(f"{path}: folder is not writable ({_short(err)})") from None
        return path
    if path.is_dir():
        raise ValueError(f"{path} is a folder; give a file name")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise ValueError(f"{path}: folder {str(parent)!r} does not exist")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise ValueError(f"{path} is not writable")
    return path


def check_export_name(name: str) -> str:
    """An exported player's name: a plain file name (letters, digits, ``.``, ``_``, ``-``),
    so that the file stays inside its folder."""
    if not EXPORT_NAME.fullmatch(name) or ".." in name:
        raise ValueError(
            f"export name {name!r} must be a plain file name (letters, digits, '.', '_', '-'; "
            "no folders): the file is written inside the checkpoints folder"
        )
    return name


#: What the trainers write in a run folder (all that ``--overwrite`` may delete).
RUN_FILES = frozenset(
    {"args.json", "checkpoints", "tb", "summary.json", "eval.csv", "checkpoint.json",
     "checkpoint.json.tmp", "checkpoint.pkl", "generations.jsonl", "generations.csv",
     "params.json", "report.json"}
)  # fmt: skip


#: The player files a run writes into its folder (``best``, ``latest``, ``untrained``;
#: ``.npz`` or ``.zip``), and what a write cut short leaves of one.
RUN_PLAYER_FILE = re.compile(r"(best|latest|untrained)\.(npz|zip)(\.tmp(\.npz)?)?")


def _run_file(name: str) -> bool:
    return (
        name in RUN_FILES
        or (name.startswith("learning_curve") and name.endswith(".png"))
        or RUN_PLAYER_FILE.fullmatch(name) is not None
    )


def claim_run_dir(run_dir: str | Path, resume: bool, overwrite: bool = False) -> Path | None:
    """Check a run folder before any work; returns the checkpoint to resume from.

    - ``resume``: the folder must hold a checkpoint (``latest``), else a ValueError.
    - a new run: the folder must be missing or empty, else a ValueError naming what is
      there, unless ``overwrite`` (then its contents are deleted first, as asked).
    Either way the folder must be writable.
    """
    run_dir = Path(run_dir)
    if resume and overwrite:
        raise ValueError("--resume and --overwrite contradict each other: give one")
    if resume:
        ckpt = latest_checkpoint(run_dir)
        if ckpt is None:
            raise ValueError(
                f"--resume: {run_dir} holds no checkpoint to resume (a run stopped before its "
                "first checkpoint starts again with --overwrite)"
            )
        check_writable(run_dir, folder=True)
        return ckpt
    if run_dir.is_dir() and any(run_dir.iterdir()):
        if not overwrite:
            held = ", ".join(sorted(p.name for p in run_dir.iterdir())[:5])
            raise ValueError(
                f"{run_dir} already holds a run ({held}); continue it with --resume, or "
                "give another --run-dir (--overwrite deletes what is there)"
            )
        # --overwrite deletes a run's files only: never a folder of other things (--run-dir .)
        foreign = sorted(p.name for p in run_dir.iterdir() if not _run_file(p.name))
        if foreign:
            raise ValueError(
                f"--overwrite: {run_dir} holds files that are not a run's "
                f"({', '.join(foreign[:5])}); not deleting them (give another --run-dir)"
            )
        for p in run_dir.iterdir():
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p)
            else:
                p.unlink()
    check_writable(run_dir, folder=True)
    return None


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
