"""Trained agents: MLP policies learned with MaskablePPO, played with numpy alone.

A shipped checkpoint is ``agents/checkpoints/<name>.zip`` with its model card
``<name>.md``. The zip holds the actor only (``meta.json`` + ``weights.npz``: the policy
MLP and the action head), so playing a trained agent needs neither torch nor
stable-baselines3, and the file stays small. :func:`load` also accepts a full
sb3-contrib ``MaskablePPO`` checkpoint (as written by ``training/train_ppo.py``); that
path imports sb3-contrib lazily and converts the actor.

A network whose input is the observation followed by the action mask (``--inputs
obs+mask`` in training), and possibly the deadwood after each discard
(``obs+mask+features``, :func:`deadwood_features`), gets them appended here; the size of
its first layer says which.

The agent picks the legal action with the highest logit (deterministic); with
``deterministic=False`` it samples from the masked softmax with the ``rng`` it is given.

>>> "gin-ppo" in available()  # doctest: +SKIP
True
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from agents import dmc
from gin_env.actions import NUM_ACTIONS
from gin_env.cards import NUM_CARDS
from gin_env.encoding import OBS_SIZE, OBS_SLICES
from gin_env.extras import require
from gin_env.melds import discard_deadwoods

__all__ = [
    "CHECKPOINT_DIR",
    "MLPAgent",
    "available",
    "load",
    "save_actor",
    "actor_from_sb3",
    "deadwood_features",
    "policy_input",
]

CHECKPOINT_DIR = Path(__file__).resolve().parent / "checkpoints"
ACTIVATIONS = ("tanh", "relu")
FORMAT = "gin-env-actor-v1"


#: Deadwood features: one per card (the deadwood after discarding it), and one for the
#: take (the least deadwood after taking the top discard).
NUM_FEATURES = NUM_CARDS + 1
INPUT_KINDS = {OBS_SIZE: "obs", OBS_SIZE + NUM_ACTIONS: "obs+mask",
               OBS_SIZE + NUM_ACTIONS + NUM_FEATURES: "obs+mask+features"}  # fmt: skip


def deadwood_features(obs: np.ndarray) -> np.ndarray:
    """:data:`NUM_FEATURES` numbers a player works out at the table, from the observed hand
    alone.

    With 11 cards (a discard to make): entry ``c`` is the deadwood left after discarding
    card ``c`` (1 for cards not held). With 10 cards and an upcard / top discard: the last
    entry is the least deadwood after taking it and discarding another card. All / 100.
    """

    out = np.ones(NUM_FEATURES, np.float32)
    held = np.flatnonzero(obs[OBS_SLICES["hand"]] > 0.5)
    hand = sum(1 << int(c) for c in held)
    if len(held) == 11:
        for card, value in discard_deadwoods(hand).items():
            out[card] = value / 100
    elif len(held) == 10:
        top = np.flatnonzero(obs[OBS_SLICES["top_discard"]] > 0.5)
        if len(top):
            dws = discard_deadwoods(hand | (1 << int(top[0])))
            out[NUM_CARDS] = min(v for c, v in dws.items() if c != int(top[0])) / 100
    return out


def policy_input(obs: np.ndarray, mask: np.ndarray, kind: str) -> np.ndarray:
    """The network's input: the observation, then (by ``kind``) the legal-action mask and
    the :func:`deadwood_features`."""
    x = np.asarray(obs, np.float32)
    if kind == "obs":
        return x
    parts = [x, np.asarray(mask, np.float32)]
    if kind == "obs+mask+features":
        parts.append(deadwood_features(x))
    return np.concatenate(parts)


def _activate(x: np.ndarray, name: str) -> np.ndarray:
    return np.tanh(x) if name == "tanh" else np.maximum(x, 0.0)


def mlp_forward(
    x: np.ndarray, layers: list[tuple[np.ndarray, np.ndarray]], activation: str
) -> np.ndarray:
    """``layers`` (torch-shaped ``(weight, bias)``) applied to ``x``, ``activation`` after
    every layer but the last: the numpy forward pass of every exported actor."""
    last = len(layers) - 1
    for i, (w, b) in enumerate(layers):
        x = x @ w.T + b
        if i < last:
            x = _activate(x, activation)
    return x


def masked_choice(
    logits: np.ndarray, mask: np.ndarray, deterministic: bool, rng: np.random.Generator | None
) -> int:
    """The legal action of highest logit, or (``deterministic=False``) one sampled from the
    softmax over the legal actions."""
    masked = np.where(mask, logits, -np.inf)
    if deterministic:
        return int(np.argmax(masked))
    rng = rng if rng is not None else np.random.default_rng()
    p = np.exp(masked - masked.max())
    return int(rng.choice(len(p), p=p / p.sum()))


class MLPAgent:
    """A masked MLP policy: hidden layers, then one logit per action id.

    ``layers`` is a list of ``(weight, bias)`` with weight shaped ``(out, in)`` as in torch;
    the activation follows every layer but the last.
    """

    def __init__(
        self,
        layers: list[tuple[np.ndarray, np.ndarray]],
        activation: str = "tanh",
        deterministic: bool = True,
        name: str = "trained",
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {ACTIVATIONS}; got {activation!r}")
        if not layers:
            raise ValueError("layers must hold at least the action head")
        self.layers = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]
        self.activation = activation
        self.deterministic = deterministic
        self.name = name
        self.meta = dict(meta or {})

    @property
    def obs_size(self) -> int:
        return int(self.layers[0][0].shape[1])

    @property
    def num_actions(self) -> int:
        return int(self.layers[-1][0].shape[0])

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Unmasked logits for one observation vector or a batch of them."""
        return mlp_forward(np.asarray(obs, np.float32), self.layers, self.activation)

    def act(
        self, observation: dict[str, np.ndarray], rng: np.random.Generator | None = None
    ) -> int:
        mask = np.asarray(observation["action_mask"]).astype(bool)
        if not mask.any():
            raise ValueError("the action mask has no legal action: this agent is not to act")
        kind = INPUT_KINDS.get(self.obs_size, "obs")
        logits = self.logits(policy_input(observation["observation"], mask, kind))
        return masked_choice(logits, mask, self.deterministic, rng)

    def __repr__(self) -> str:
        sizes = [self.obs_size] + [int(w.shape[0]) for w, _ in self.layers]
        return f"MLPAgent({self.name!r}, {'-'.join(map(str, sizes))}, {self.activation})"


def actor_from_sb3(model: Any, name: str = "trained", **meta: Any) -> MLPAgent:
    """The actor of an sb3(-contrib) MLP policy (``model`` or ``model.policy``) as numpy."""
    policy = getattr(model, "policy", model)
    state = {k: v.detach().cpu().numpy() for k, v in policy.state_dict().items()}
    layers = []
    i = 0
    while f"mlp_extractor.policy_net.{i}.weight" in state:
        layers.append(
            (
                state[f"mlp_extractor.policy_net.{i}.weight"],
                state[f"mlp_extractor.policy_net.{i}.bias"],
            )
        )
        i += 2  # Linear, activation, Linear, ...
    layers.append((state["action_net.weight"], state["action_net.bias"]))
    act_fn = getattr(policy, "activation_fn", None)
    activation = "relu" if act_fn is not None and act_fn.__name__ == "ReLU" else "tanh"
    return MLPAgent(layers, activation, name=name, meta=meta)


def save_actor(agent: MLPAgent, path: str | Path, **meta: Any) -> Path:
    """Write ``agent`` as a small actor-only zip (``meta.json`` + ``weights.npz``)."""
    path = Path(path)
    arrays: dict[str, np.ndarray] = {}
    for i, (w, b) in enumerate(agent.layers):
        arrays[f"w{i}"], arrays[f"b{i}"] = w, b
    buf = io.BytesIO()
    np.savez(buf, **arrays)  # type: ignore[arg-type]
    info = {**agent.meta, **meta, "format": FORMAT, "activation": agent.activation}
    info["num_layers"] = len(agent.layers)
    tmp = path.with_suffix(path.suffix + ".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("meta.json", json.dumps(info, indent=2, sort_keys=True))
        zf.writestr("weights.npz", buf.getvalue())
    tmp.replace(path)
    return path


def available() -> list[str]:
    """Names of the shipped checkpoints (``agents/checkpoints/*.zip``, PPO actors, and
    ``*.npz``, Deep Monte-Carlo players of :mod:`agents.dmc`)."""
    if not CHECKPOINT_DIR.is_dir():
        return []
    return sorted(p.stem for ext in ("*.zip", "*.npz") for p in CHECKPOINT_DIR.glob(ext))


def _resolve(name_or_path: str | Path) -> Path:
    path = Path(name_or_path)
    if path.suffix in (".zip", ".npz") and path.is_file():
        return path
    for ext in (".zip", ".npz"):
        shipped = CHECKPOINT_DIR / f"{name_or_path}{ext}"
        if shipped.is_file():
            return shipped
    if path.is_file():
        return path
    names = ", ".join(available()) or "none shipped"
    raise ValueError(
        f"unknown trained agent {str(name_or_path)!r}: give a checkpoint path or one of: {names}"
    )


def load(name_or_path: str | Path, deterministic: bool = True) -> Any:
    """A trained agent by shipped name (``"gin-ppo"``, ``"gin-dmc"``) or by path to a zip
    or an ``.npz``.

    Actor-only zips load with numpy; a full ``MaskablePPO`` checkpoint loads through
    sb3-contrib (imported here, so only that case needs it). An ``.npz`` is a Deep
    Monte-Carlo player (:func:`agents.dmc.load`, numpy only, always greedy on Q).
    """
    path = _resolve(name_or_path)
    if path.suffix == ".npz":
        return dmc.load(path)
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
        if "meta.json" in names and "weights.npz" in names:
            meta = json.loads(zf.read("meta.json"))
            if meta.get("format", FORMAT) != FORMAT:  # e.g. a history actor (training.encoders)
                raise ValueError(
                    f"{str(path)!r} holds a {meta['format']!r} actor, not a flat MLP actor "
                    f"({FORMAT}): load it with training.encoders.load_actor"
                )
            with np.load(io.BytesIO(zf.read("weights.npz"))) as npz:
                layers = [(npz[f"w{i}"], npz[f"b{i}"]) for i in range(int(meta["num_layers"]))]
            agent = MLPAgent(
                layers,
                meta["activation"],
                deterministic,
                name=meta.get("name", path.stem),
                meta=meta,
            )
            return agent
    # A full training checkpoint: SB3's own format.
    sb3 = require("sb3_contrib", needed_for=f"loading the SB3 checkpoint {str(path)!r}")
    model = sb3.MaskablePPO.load(path, device="cpu")
    agent = actor_from_sb3(model, name=path.stem)
    agent.deterministic = deterministic
    return agent
