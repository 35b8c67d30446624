"""Conversions of files the user says they trust, once, into the project's data formats.

Nothing the project loads may run code, so two kinds of file are never read on the way:

- a stable-baselines3 ``.zip`` (its ``data`` may carry pickled objects, which
  ``MaskablePPO.load`` unpickles): ``gin-rummy import-sb3 --trust FILE`` loads it through
  sb3-contrib and writes its actor as an actor zip (``meta.json`` + ``weights.npz``) that
  :func:`agents.trained.load` reads as data. A zip whose ``policy.pth`` holds tensors only
  (what ``MaskablePPO.save`` writes) needs no conversion: :func:`agents.trained.load_sb3`
  reads it without unpickling anything; this is for one it refuses;
- a checkpoint folder in the old pickled format (``state.pkl``; DMC's ``model.pt`` read
  with ``weights_only=False``; tune's ``checkpoint.pkl``; PPO's sb3 ``model.zip``):
  ``gin-rummy migrate-checkpoint --trust FOLDER`` re-saves it in place as ``state.json`` and
  weights-only torch files, keeping the pickled originals under ``<name>.trusted-old``.

Without ``--trust`` both refuse: the flag is the user's statement that the file came from
someone whose code they would run.
"""

from __future__ import annotations

import argparse
import pickle
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np

from agents.trained import actor_from_state, save_actor
from gin_env.optional import require
from training.checkpoints import (
    CHECKPOINT_FORMAT,
    check_export_name,
    check_writable,
    new_run_id,
    rng_states,
    save_torch,
    write_json_atomic,
)

__all__ = ["import_sb3", "migrate_checkpoint", "import_main", "migrate_main"]


def _need_trust(trust: bool, path: Path, what: str) -> None:
    if not trust:
        raise ValueError(
            f"{path}: {what} can run code when loaded; pass --trust if you trust its source"
        )


def import_sb3(path: str | Path, out: str | Path, trust: bool = False, name: str = "") -> Path:
    """Load a (Maskable)PPO ``.zip`` through sb3-contrib (trusted: it unpickles) and write
    its actor to ``out`` as an actor zip."""
    path = Path(path)
    _need_trust(trust, path, "a stable-baselines3 checkpoint")
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    out = check_writable(out)
    sb3 = require("sb3_contrib", needed_for=f"importing the SB3 checkpoint {str(path)!r}")
    try:
        model = sb3.MaskablePPO.load(path, device="cpu")
    except Exception as err:  # whatever a foreign file raises: one line naming it
        line = str(err).splitlines()[0][:160] if str(err) else ""
        raise ValueError(f"{path}: not a loadable MaskablePPO checkpoint ({line})") from None
    policy = model.policy
    act_fn = getattr(policy, "activation_fn", None)
    activation = "relu" if getattr(act_fn, "__name__", "") == "ReLU" else "tanh"
    actor = actor_from_state(
        policy.state_dict(), activation, name or out.stem, imported_from=path.name
    )
    return save_actor(actor, out)


def _old_pickle(path: Path) -> Any:
    with open(path, "rb") as fh:
        return pickle.load(fh)  # trusted: the user passed --trust for this file


def migrate_checkpoint(folder: str | Path, trust: bool = False) -> list[str]:
    """Re-save a checkpoint folder of the old pickled format in the data format (in place;
    the originals kept as ``*.trusted-old``). Returns what it wrote."""
    folder = Path(folder)
    _need_trust(trust, folder, "a pickled checkpoint")
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such folder")
    import torch  # train extra: torch

    written: list[str] = []
    if (folder / "checkpoint.pkl").is_file():  # tune
        raise ValueError(
            f"{folder}: tune's pickled checkpoint.pkl cannot be migrated (its CMA-ES object is "
            "code); start the search again, or finish it with the version that wrote it"
        )
    if not (folder / "state.pkl").is_file():
        raise ValueError(f"{folder}: no state.pkl to migrate (already migrated?)")
    state = dict(_old_pickle(folder / "state.pkl"))
    # RNG states: the pickled tuples and tensors, as JSON data (through the live RNGs).
    if "rng" in state:
        saved = (random.getstate(), np.random.get_state(), torch.get_rng_state())
        random.setstate(state["rng"]["python"])
        np.random.set_state(state["rng"]["numpy"])
        torch.set_rng_state(state["rng"]["torch"])
        state["rng"] = rng_states()
        random.setstate(saved[0])
        np.random.set_state(saved[1])
        torch.set_rng_state(saved[2])
    state.setdefault("run_id", new_run_id())
    if (folder / "model.pt").is_file():  # DMC: networks and Adam state
        blob = torch.load(folder / "model.pt", weights_only=False)  # trusted (--trust)
        (folder / "model.pt").rename(folder / "model.pt.trusted-old")
        save_torch(
            {"models": list(blob["models"]), "optimizer": blob["optimizer"]}, folder / "model.pt"
        )
        written.append("model.pt")
    if (folder / "model.zip").is_file():  # PPO: sb3's save
        sb3 = require("sb3_contrib", needed_for=f"migrating {str(folder)!r}")
        model = sb3.MaskablePPO.load(folder / "model.zip", device="cpu")  # trusted (--trust)
        save_torch(model.policy.state_dict(), folder / "policy.pt")
        save_torch(model.policy.optimizer.state_dict(), folder / "optimizer.pt")
        act_fn = getattr(model.policy, "activation_fn", None)
        state["activation"] = "relu" if getattr(act_fn, "__name__", "") == "ReLU" else "tanh"
        state["n_updates"] = int(getattr(model, "_n_updates", 0))
        (folder / "model.zip").rename(folder / "model.zip.trusted-old")
        written += ["policy.pt", "optimizer.pt"]
    write_json_atomic(folder / "state.json", state)
    (folder / "state.pkl").rename(folder / "state.pkl.trusted-old")
    written.append("state.json")
    if not (folder / "checkpoint.json").is_file():  # whose it is, for pruning and copies
        step = int(state.get("steps") or state.get("num_timesteps") or 0)
        marker = {"format": CHECKPOINT_FORMAT, "run_id": state["run_id"], "name": folder.name,
                  "step": step}  # fmt: skip
        write_json_atomic(folder / "checkpoint.json", marker)
        written.append("checkpoint.json")
    return written


def import_main(argv: list[str] | None = None) -> int:
    """``gin-rummy import-sb3 --trust FILE [--out PATH]``."""
    parser = argparse.ArgumentParser(
        prog="gin-rummy import-sb3",
        description="Convert a stable-baselines3 MaskablePPO .zip you trust (loading it runs "
        "the pickled objects inside) into an actor zip that agents.make loads as data.",
    )
    parser.add_argument("file", help="the SB3 .zip")
    parser.add_argument("--trust", action="store_true", help="you trust the file's source")
    parser.add_argument("--out", default="", help="the actor zip (default: FILE-actor.zip)")
    ns = parser.parse_args(argv)
    src = Path(ns.file)
    out = Path(ns.out) if ns.out else src.with_name(src.stem + "-actor.zip")
    if not ns.out:
        check_export_name(out.name)
    try:
        path = import_sb3(src, out, trust=ns.trust)
    except (ValueError, FileNotFoundError) as err:
        parser.error(str(err))
    print(f"wrote {path}: play it with --agents {path}")
    return 0


def migrate_main(argv: list[str] | None = None) -> int:
    """``gin-rummy migrate-checkpoint --trust FOLDER...``."""
    parser = argparse.ArgumentParser(
        prog="gin-rummy migrate-checkpoint",
        description="Re-save checkpoint folders of the old pickled format (state.pkl, "
        "model.pt, model.zip) as JSON and weights-only torch files, once; loading the old "
        "files runs the pickled objects inside, so only do it for folders you trust.",
    )
    parser.add_argument("folders", nargs="+", help="checkpoint folders (with state.pkl)")
    parser.add_argument("--trust", action="store_true", help="you trust the folders' source")
    ns = parser.parse_args(argv)
    for folder in ns.folders:
        try:
            wrote = migrate_checkpoint(folder, trust=ns.trust)
        except (ValueError, FileNotFoundError) as err:
            parser.error(str(err))
        print(f"{folder}: wrote {', '.join(wrote)}", file=sys.stdout)
    return 0


def main(argv: list[str] | None = None, migrate: bool = False) -> int:
    """``import-sb3`` (default) or, with ``migrate``, ``migrate-checkpoint``."""
    return migrate_main(argv) if migrate else import_main(argv)
