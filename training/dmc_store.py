"""What a DMC run keeps (:mod:`training.train_dmc`): its replay of recent decisions
(:class:`ExperienceBuffer`) and its checkpoints, data only (``model.pt``: the networks and
Adam state as torch state dicts read with ``weights_only=True``; ``state.json``: settings,
counts, evaluations and RNG states): written, read, copied, adopted into a fresh run
folder, and turned into the numpy player (:func:`to_agent`)."""

from __future__ import annotations

import dataclasses
import shutil
import sys
from pathlib import Path
from typing import Any

import numpy as np

from agents.dmc import ACTION_FEATURES, DMCAgent, qnets, torch_model
from gin_env.encoding import HISTORY_LENGTH, OBS_SIZE
from training.checkpoints import (
    checkpoint_run_id,
    copy_folder,
    latest_checkpoint,
    load_torch,
    new_run_id,
    read_json,
    rng_states,
    save_torch,
    write_checkpoint,
    write_json_atomic,
)
from training.dmc_config import Args
from training.flags import names

__all__ = [
    "CHECKPOINT_FILES",
    "ExperienceBuffer",
    "adopt_checkpoint",
    "copy_checkpoint",
    "load_blob",
    "load_models",
    "load_state",
    "save_networks",
    "to_agent",
]


# ==========================================================================================
# The Q network: agents.dmc.torch_model (torch) and its numpy twin agents.dmc.QNet
# ==========================================================================================
def to_agent(models: list[Any], args: Args, name: str = "dmc", **meta: Any) -> Any:
    """The numpy player (:class:`agents.dmc.DMCAgent`) of the torch networks (reading the
    move history when they do: play it on envs made with its ``env_options()``)."""
    return DMCAgent(
        qnets(models),
        args.role_nets,
        args.features,
        name=name,
        meta={"env": args.env, **meta},
        margin=args.l2_margin,
    )


# ==========================================================================================
# ExperienceBuffer: the latest decisions with their returns
# ==========================================================================================
class ExperienceBuffer:
    """A FIFO of ``capacity`` decisions: observation (float16), the chosen action's
    encoding (``width`` numbers, :func:`agents.dmc.action_size`), the network that acted
    (role), the move history (``history=True``: 64 uint16 move codes,
    :func:`training.dmc_actors.history_codes`) and the Monte-Carlo target.

    Bytes a decision: 872 (observation) + 2 x width (122 for ``basic``) + 1 + 4 = 999, and
    128 more with the history (1,127): a replay of 1,000,000 decisions is about 1.0 GB, or
    1.1 GB with the history (64 x 63 float32 would be 16,128 bytes a decision)."""

    def __init__(self, capacity: int, width: int | None = None, history: bool = False) -> None:
        self.capacity = capacity
        self.obs = np.zeros((capacity, OBS_SIZE), np.float16)
        self.feats = np.zeros((capacity, width or ACTION_FEATURES), np.float16)
        self.net = np.zeros(capacity, np.int8)
        self.history = np.zeros((capacity, HISTORY_LENGTH if history else 0), np.uint16)
        self.target = np.zeros(capacity, np.float32)
        self.size = 0
        self.pos = 0

    def push(
        self,
        obs: np.ndarray,
        feats: np.ndarray,
        net: np.ndarray,
        history: np.ndarray,
        target: np.ndarray,
    ) -> None:
        """Add decisions (a :data:`training.dmc_actors.Chunk`); ``history`` ``[n, 64]``
        codes, or ``[n, 0]`` for a replay without the history."""
        if history.shape != (len(obs), self.history.shape[1]):
            raise ValueError(
                f"this replay keeps {self.history.shape[1]} history codes a decision; got "
                f"{history.shape[1:]}"
            )
        c = self.capacity
        for start in range(0, len(obs), c):
            o, f = obs[start : start + c], feats[start : start + c]
            n, h, t = net[start : start + c], history[start : start + c], target[start : start + c]
            idx = (self.pos + np.arange(len(o))) % c
            self.obs[idx], self.feats[idx], self.net[idx], self.target[idx] = o, f, n, t
            self.history[idx] = h
            self.pos = int((self.pos + len(o)) % c)
            self.size = min(c, self.size + len(o))

    def sample(self, rng: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
        """``obs, feats, net, history codes, target`` of ``n`` decisions drawn uniformly."""
        idx = rng.integers(self.size, size=n)
        return self.obs[idx], self.feats[idx], self.net[idx], self.history[idx], self.target[idx]

    def save(self, path: Path) -> None:
        n = self.size
        np.savez(
            path,
            obs=self.obs[:n],
            feats=self.feats[:n],
            net=self.net[:n],
            history=self.history[:n],
            target=self.target[:n],
            pos=np.int64(self.pos),
        )

    def load(self, path: Path) -> None:
        with np.load(path, allow_pickle=False) as z:
            n = len(z["target"])
            self.obs[:n], self.feats[:n], self.net[:n] = z["obs"], z["feats"], z["net"]
            if "history" in z.files:  # replays written before the history option have none
                self.history[:n] = z["history"]
            self.target[:n] = z["target"]
            self.size, self.pos = n, int(z["pos"])


# ==========================================================================================
# Checkpoints
# ==========================================================================================
def load_state(ckpt: str | Path) -> dict[str, Any]:
    """A checkpoint's ``state.json``; a folder in the old pickled format is named with the
    command that migrates it, a malformed one in one line."""
    ckpt = Path(ckpt)
    if not (ckpt / "state.json").is_file() and (ckpt / "state.pkl").is_file():
        raise ValueError(
            f"{ckpt} is a checkpoint in the old pickled format; if you trust it, convert it "
            f"once with: gin-rummy migrate-checkpoint --trust {ckpt}"
        )
    state = read_json(ckpt / "state.json", "checkpoint state")
    if (
        not isinstance(state, dict)
        or not isinstance(state.get("args"), dict)
        or ("steps" not in state)
    ):
        raise ValueError(f"{ckpt / 'state.json'}: not a DMC checkpoint state (no args, steps)")
    unknown = set(state["args"]) - {f.name for f in dataclasses.fields(Args)}
    if unknown:
        raise ValueError(f"{ckpt / 'state.json'}: unknown settings {sorted(unknown)}")
    # Runs saved before --history existed read no history (so a resume may not add one).
    state["args"] = {"history": "none", **state["args"]}
    state.setdefault("run_id", checkpoint_run_id(ckpt) or new_run_id())
    return state


def load_blob(ckpt: Path) -> dict[str, Any]:
    """``model.pt``: ``{"models": [state dicts], "optimizer": state dict}``, weights only."""
    blob = load_torch(ckpt / "model.pt", "DMC networks file")
    if not isinstance(blob, dict) or not isinstance(blob.get("models"), list):
        raise ValueError(f"{ckpt / 'model.pt'}: not a DMC networks file (no models)")
    return blob


def save_networks(
    run_dir: Path,
    name: str,
    models: list[Any],
    opt: Any,
    replay: ExperienceBuffer | None,
    state: dict[str, Any],
    keep: int,
    pointer: bool = True,
) -> Path:
    def write(folder: Path) -> None:
        save_torch(
            {"models": [m.state_dict() for m in models], "optimizer": opt.state_dict()},
            folder / "model.pt",
        )
        if replay is not None:
            replay.save(folder / "replay.npz")
        write_json_atomic(folder / "state.json", {**state, "rng": rng_states()})

    return write_checkpoint(run_dir, name, write, keep, pointer, run_id=state["run_id"])


def copy_checkpoint(folder: Path, target: Path, run_id: str | None = None) -> Path:
    """Copy a step checkpoint's networks, optimizer and state (never its replay) to
    ``target``, replacing an earlier copy of the same run (through a temporary folder, so a
    copy is whole); a ``target`` holding anything else is refused."""
    return copy_folder(folder, target, CHECKPOINT_FILES, run_id or checkpoint_run_id(folder))


#: What a DMC checkpoint folder holds besides the optional replay (all data).
CHECKPOINT_FILES = ("model.pt", "state.json")


def adopt_checkpoint(run_dir: str | Path, source: str | Path) -> Path | None:
    """A run resumed in a fresh place: when ``run_dir`` has no checkpoint and ``source`` is
    a checkpoint folder (``model.pt`` and ``state.json``), copy it into
    ``run_dir/checkpoints/`` under its step name and point ``latest`` at it. Returns the
    run's checkpoint (``None`` when it has none and no ``source`` is given)."""
    have = latest_checkpoint(run_dir)
    if have is not None or not source:
        return have
    src = Path(source)
    if not (src / "model.pt").is_file() or not (
        (src / "state.json").is_file() or (src / "state.pkl").is_file()
    ):
        raise ValueError(
            f"resume_from {str(source)!r} is not a checkpoint folder (needs model.pt, state.json)"
        )
    state = load_state(src)  # an old or malformed state: one line naming it
    load_torch(src / "model.pt", "DMC networks file")  # read whole before anything is copied
    steps = int(state["steps"])

    def write(folder: Path) -> None:
        for name in CHECKPOINT_FILES:
            shutil.copyfile(src / name, folder / name)

    print(f"adopting {src} (step {steps}) into {run_dir}", file=sys.stderr)
    return write_checkpoint(run_dir, f"step_{steps:012d}", write, run_id=state["run_id"])


def load_models(ckpt: Path) -> tuple[list[Any], Args, dict[str, Any]]:
    """The torch networks, settings and state of a checkpoint folder."""
    state = load_state(ckpt)
    args = Args(**state["args"])
    blob = load_blob(ckpt)
    models = [
        torch_model([int(x) for x in names(args.hidden)], args.features, args.history)
        for _ in blob["models"]
    ]
    for m, sd in zip(models, blob["models"], strict=True):
        m.load_state_dict(sd)
    return models, args, state
