"""Trained players, every kind, played with numpy alone: the one place that loads them.

=====================  ==============================================================
file                   player
=====================  ==============================================================
``<name>.zip``         an actor of MaskablePPO (``meta.json`` + ``weights.npz``): the
                       flat :class:`MLPAgent`, or a :class:`HistoryActor` (format
                       :data:`HISTORY_FORMAT`) that also reads the move history
``<name>.npz``         a Deep Monte-Carlo player (:mod:`agents.dmc`, weights + a
                       ``meta`` JSON string)
=====================  ==============================================================

Shipped players live in ``agents/checkpoints/`` with their model cards ``<name>.md``;
:func:`load` takes a shipped name or a path to any of the kinds above. What it reads is
data only: JSON and arrays loaded with ``allow_pickle=False``; nothing is unpickled, so
loading a player someone sent you runs none of their code. A stable-baselines3 ``.zip``
(whose ``data`` may carry pickled objects) is refused with a message: convert it once,
trusting it explicitly, with ``gin-rummy import-sb3 --trust FILE``
(:mod:`training.import_sb3`). An empty, truncated or malformed file is a one-line
``ValueError`` naming it.

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
from gin_env.melds import discard_deadwoods

__all__ = [
    "CHECKPOINT_DIR",
    "FORMAT",
    "HISTORY_FORMAT",
    "MLPAgent",
    "HistoryActor",
    "available",
    "load",
    "save_actor",
    "actor_from_sb3",
    "actor_from_state",
    "deadwood_features",
    "policy_input",
]

CHECKPOINT_DIR = Path(__file__).resolve().parent / "checkpoints"
ACTIVATIONS = ("tanh", "relu")
FORMAT = "gin-env-actor-v1"
HISTORY_FORMAT = "gin-env-history-actor-v1"


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


class _PolicyHead:
    """What the trained actors share: the MLP head's ``(weight, bias)`` layers and
    activation, the masked choice over its logits, the player's name and its meta."""

    def __init__(
        self,
        layers: list[tuple[np.ndarray, np.ndarray]],
        activation: str,
        deterministic: bool,
        name: str,
        meta: Mapping[str, Any] | None,
    ) -> None:
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {ACTIVATIONS}; got {activation!r}")
        self.layers = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]
        self.activation = activation
        self.deterministic = deterministic
        self.name = name
        self.meta = dict(meta or {})

    def _logits_for(self, observation: Mapping[str, np.ndarray], mask: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def act(
        self, observation: dict[str, np.ndarray], rng: np.random.Generator | None = None
    ) -> int:
        mask = np.asarray(observation["action_mask"]).astype(bool)
        if not mask.any():
            raise ValueError("the action mask has no legal action: this agent is not to act")
        return masked_choice(self._logits_for(observation, mask), mask, self.deterministic, rng)


class MLPAgent(_PolicyHead):
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
        if not layers:
            raise ValueError("layers must hold at least the action head")
        super().__init__(layers, activation, deterministic, name, meta)

    @property
    def obs_size(self) -> int:
        return int(self.layers[0][0].shape[1])

    @property
    def num_actions(self) -> int:
        return int(self.layers[-1][0].shape[0])

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Unmasked logits for one observation vector or a batch of them."""
        return mlp_forward(np.asarray(obs, np.float32), self.layers, self.activation)

    def _logits_for(self, observation: Mapping[str, np.ndarray], mask: np.ndarray) -> np.ndarray:
        kind = INPUT_KINDS.get(self.obs_size, "obs")
        return self.logits(policy_input(observation["observation"], mask, kind))

    def __repr__(self) -> str:
        sizes = [self.obs_size] + [int(w.shape[0]) for w, _ in self.layers]
        return f"MLPAgent({self.name!r}, {'-'.join(map(str, sizes))}, {self.activation})"


class HistoryActor(_PolicyHead):
    """A history-reading actor in numpy: the pooled moves after the flat observation, then
    the actor MLP and one logit per action (greedy over the legal ones by default). The
    torch twin it is exported from is ``training.encoders.HistoryEncoder``: each move
    embedded (linear, ReLU, plus its place's embedding), pooled by attention to one learned
    query (padding masked out; no move yet gives zeros)."""

    def __init__(
        self,
        encoder: Mapping[str, np.ndarray],
        layers: list[tuple[np.ndarray, np.ndarray]],
        activation: str = "tanh",
        deterministic: bool = True,
        name: str = "history-actor",
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(layers, activation, deterministic, name, meta)
        missing = {"embed_w", "embed_b", "position", "query"} - set(encoder)
        if missing:
            raise ValueError(f"encoder lacks {sorted(missing)}")
        self.encoder = {k: np.asarray(v, np.float32) for k, v in encoder.items()}

    def pooled(self, history: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The encoder's output for one ``[length, features]`` history."""
        e = self.encoder
        moves = np.maximum(history @ e["embed_w"].T + e["embed_b"] + e["position"], 0.0)
        real = np.asarray(mask) > 0.5
        if not real.any():
            return np.zeros(moves.shape[-1], np.float32)
        scores = moves[real] @ e["query"] / np.sqrt(moves.shape[-1])
        w = np.exp(scores - scores.max())
        return (w / w.sum()) @ moves[real]  # type: ignore[no-any-return]

    def logits(self, observation: Mapping[str, np.ndarray]) -> np.ndarray:
        for key in ("history", "history_mask"):
            if key not in observation:
                raise ValueError(
                    f"{self.name} reads the move history: the observation has no {key!r} "
                    "(make the env with observation='history')"
                )
        obs = np.asarray(observation["observation"], np.float32)
        hist = np.asarray(observation["history"], np.float32)
        x = np.concatenate([obs, self.pooled(hist, observation["history_mask"])])
        return mlp_forward(x, self.layers, self.activation)

    def _logits_for(self, observation: Mapping[str, np.ndarray], mask: np.ndarray) -> np.ndarray:
        return self.logits(observation)

    def env_options(self) -> dict[str, str]:
        """The env options its observations need (the move history)."""
        return {"observation": "history"}

    def __repr__(self) -> str:
        sizes = [int(self.layers[0][0].shape[1])] + [int(w.shape[0]) for w, _ in self.layers]
        return f"HistoryActor({self.name!r}, {'-'.join(map(str, sizes))}, {self.activation})"


def actor_from_state(
    state: Mapping[str, Any], activation: str = "tanh", name: str = "trained", **meta: Any
) -> MLPAgent | HistoryActor:
    """The actor of a MaskablePPO policy's state dict (sb3's parameter names; arrays or
    tensors): an :class:`MLPAgent`, or a :class:`HistoryActor` when the policy has a
    history encoder (``features_extractor.history.*``)."""
    arrays = {k: np.asarray(v.detach().cpu().numpy() if hasattr(v, "detach") else v)
              for k, v in state.items()}  # fmt: skip
    layers = []
    i = 0
    while f"mlp_extractor.policy_net.{i}.weight" in arrays:
        layers.append(
            (
                arrays[f"mlp_extractor.policy_net.{i}.weight"],
                arrays[f"mlp_extractor.policy_net.{i}.bias"],
            )
        )
        i += 2  # Linear, activation, Linear, ...
    if "action_net.weight" not in arrays:
        raise ValueError("the policy's state has no action_net: not a MaskablePPO policy")
    layers.append((arrays["action_net.weight"], arrays["action_net.bias"]))
    prefix = "features_extractor.history."
    if prefix + "query" not in arrays:
        return MLPAgent(layers, activation, name=name, meta=meta)
    encoder = {
        "embed_w": arrays[prefix + "embed.weight"],
        "embed_b": arrays[prefix + "embed.bias"],
        "position": arrays[prefix + "position"],
        "query": arrays[prefix + "query"],
    }
    return HistoryActor(encoder, layers, activation, name=name, meta=meta)


def actor_from_sb3(model: Any, name: str = "trained", **meta: Any) -> MLPAgent:
    """The flat actor of an sb3(-contrib) MLP policy (``model`` or ``model.policy``) as
    numpy (a history encoder, if any, is left out: see :func:`actor_from_state`)."""
    policy = getattr(model, "policy", model)
    state = {k: v for k, v in policy.state_dict().items() if not k.startswith("features_")}
    act_fn = getattr(policy, "activation_fn", None)
    activation = "relu" if act_fn is not None and act_fn.__name__ == "ReLU" else "tanh"
    return actor_from_state(state, activation, name, **meta)  # type: ignore[return-value]


def save_actor(agent: MLPAgent | HistoryActor, path: str | Path, **meta: Any) -> Path:
    """Write ``agent`` as a small actor-only zip (``meta.json`` + ``weights.npz``, with the
    history encoder's arrays for a :class:`HistoryActor`)."""
    path = Path(path)
    arrays: dict[str, np.ndarray] = {}
    if isinstance(agent, HistoryActor):
        arrays.update({f"encoder/{k}": v for k, v in agent.encoder.items()})
    for i, (w, b) in enumerate(agent.layers):
        arrays[f"w{i}"], arrays[f"b{i}"] = w, b
    buf = io.BytesIO()
    np.savez(buf, **arrays)  # type: ignore[arg-type]
    form = HISTORY_FORMAT if isinstance(agent, HistoryActor) else FORMAT
    info = {**agent.meta, **meta, "format": form, "activation": agent.activation}
    info.update(num_layers=len(agent.layers), name=meta.get("name", agent.name))
    tmp = path.with_suffix(path.suffix + ".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("meta.json", json.dumps(info, indent=2, sort_keys=True, default=str))
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
    if "/" not in str(name_or_path) and "\\" not in str(name_or_path):
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


#: What every stable-baselines3 save holds (its ``data`` may carry pickled objects).
SB3_ENTRIES = frozenset({"data"})


def load(name_or_path: str | Path, deterministic: bool = True) -> Any:
    """A trained player by shipped name (``"gin-ppo"``, ``"gin-dmc"``) or by path: an
    actor zip (flat or history-reading) or a DMC ``.npz``. Never unpickles: a
    stable-baselines3 zip is refused with the command that converts it."""
    path = _resolve(name_or_path)
    if path.stat().st_size == 0:
        raise ValueError(f"{path}: empty file, not a trained player")
    if path.suffix == ".npz" or not zipfile.is_zipfile(path):
        if path.suffix == ".npz":
            return dmc.load(path)
        raise ValueError(f"{path}: not a trained player (neither an actor zip nor a DMC .npz)")
    try:
        with zipfile.ZipFile(path) as zf:
            names = set(zf.namelist())
            if not {"meta.json", "weights.npz"} <= names:
                if SB3_ENTRIES <= names:
                    raise ValueError(
                        f"{path} is a stable-baselines3 checkpoint, which can run code when "
                        "loaded; if you trust it, convert it once with: gin-rummy import-sb3 "
                        f"--trust {path}"
                    )
                raise ValueError(f"{path}: not a trained player (no meta.json and weights.npz)")
            meta = json.loads(zf.read("meta.json"))
            weights = zf.read("weights.npz")
        if not isinstance(meta, dict):
            raise ValueError("meta.json is not a JSON object")
        form = meta.get("format", FORMAT)
        if form not in (FORMAT, HISTORY_FORMAT):
            raise ValueError(f"format {form!r} is not one of {FORMAT}, {HISTORY_FORMAT}")
        with np.load(io.BytesIO(weights), allow_pickle=False) as npz:
            n = int(meta["num_layers"])
            layers = [(npz[f"w{i}"], npz[f"b{i}"]) for i in range(n)]
            encoder = {k.split("/", 1)[1]: npz[k] for k in npz.files if k.startswith("encoder/")}
        name = str(meta.get("name", path.stem))
        if form == HISTORY_FORMAT:
            return HistoryActor(encoder, layers, meta["activation"], deterministic, name, meta)
        return MLPAgent(layers, meta["activation"], deterministic, name=name, meta=meta)
    except ValueError as err:
        text = str(err).splitlines()[0] if str(err) else "malformed"
        raise ValueError(text if text.startswith(str(path)) else f"{path}: {text}") from None
    except (zipfile.BadZipFile, KeyError, OSError, EOFError, TypeError, IndexError) as err:
        why = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
        raise ValueError(f"{path}: not a readable trained player ({why.rstrip(': ')})") from None
