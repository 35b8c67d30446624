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
:func:`load` takes a shipped name, a path to any of the kinds above, a stable-baselines3
``.zip`` or a run folder of ``gin-rummy train`` (its best player, ``best.npz`` /
``best.zip``, if the run kept one, else its latest, ``latest.npz`` / ``latest.zip``:
:func:`run_player`). What it reads is data only: JSON and arrays loaded with
``allow_pickle=False``; nothing is unpickled, so loading a player someone sent you runs
none of their code.

A stable-baselines3 ``.zip`` (``MaskablePPO.save``) is read without its pickles
(:func:`load_sb3`): the weights from ``policy.pth``, a torch state dict loaded with
``torch.load(..., weights_only=True)`` (torch, the ``train`` extra, is needed for it),
the activation from the plain JSON of ``data`` (its base64 cloudpickle entries are never
decoded). A ``policy.pth`` that is anything but tensors is refused, with the command that
converts a file you trust once (``gin-rummy import-sb3 --trust FILE``,
:mod:`training.trusted`). An empty, truncated or malformed file is a one-line
``ValueError`` naming it and what is accepted.

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
from gin_env.optional import MissingExtraError, require

__all__ = [
    "CHECKPOINT_DIR",
    "RUN_PLAYERS",
    "ACCEPTED",
    "FORMAT",
    "HISTORY_FORMAT",
    "MLPAgent",
    "HistoryActor",
    "available",
    "load",
    "load_sb3",
    "add_sb3_meta",
    "run_player",
    "run_player_path",
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


#: The player files ``gin-rummy train`` writes into its ``--run-dir``, in the order a run
#: folder is seated by (:func:`run_player`): the best player (when the run keeps one), then
#: the latest; each ``.npz`` (DMC) or ``.zip`` (an actor of PPO).
RUN_PLAYERS = ("best", "latest")
PLAYER_SUFFIXES = (".npz", ".zip")
#: What a player given by path may be, for messages.
ACCEPTED = (
    "accepted: a run folder of gin-rummy train (its best.npz/.zip or latest.npz/.zip), a DMC "
    "player .npz, an actor .zip (meta.json + weights.npz) or a stable-baselines3 .zip "
    "(MaskablePPO.save) whose policy.pth holds tensors only"
)


def run_player_path(run_dir: str | Path, which: str) -> Path:
    """Where a run writes its player ``which`` (``best``, ``latest`` or ``untrained``) of
    the kind it trains: the ``.npz`` or ``.zip`` already there, else ``<which>.npz``."""
    for ext in PLAYER_SUFFIXES:
        path = Path(run_dir) / f"{which}{ext}"
        if path.is_file():
            return path
    return Path(run_dir) / f"{which}.npz"


def run_player(run_dir: str | Path) -> Path:
    """The player file a run folder is seated by: its best player if the run kept one,
    else its latest (:data:`RUN_PLAYERS`). A folder without one is a one-line
    ``ValueError`` naming it and what is accepted."""
    run_dir = Path(run_dir)
    for stem in RUN_PLAYERS:
        for ext in PLAYER_SUFFIXES:
            if (run_dir / f"{stem}{ext}").is_file():
                return run_dir / f"{stem}{ext}"
    files = " or ".join(f"{s}{e}" for s in RUN_PLAYERS for e in PLAYER_SUFFIXES)
    why = (
        "a run writes them at each checkpoint; a run of an older version has none: resume it "
        "with gin-rummy train --resume --run-dir " + str(run_dir)
        if (run_dir / "checkpoints").is_dir()
        else "it is not a run folder of gin-rummy train"
    )
    raise ValueError(f"{run_dir} is a folder without a player file ({files}): {why}; {ACCEPTED}")


def _resolve(name_or_path: str | Path) -> Path:
    """The file of a player: a path to one, a shipped name, or a run folder's player."""
    text = str(name_or_path)
    path = Path(text).expanduser()
    if path.suffix in PLAYER_SUFFIXES and path.is_file():
        return path
    bare = "/" not in text and "\\" not in text
    if bare:
        for ext in PLAYER_SUFFIXES:
            shipped = CHECKPOINT_DIR / f"{text}{ext}"
            if shipped.is_file():
                return shipped
    if path.is_dir():
        return run_player(path)
    if path.is_file():
        return path
    if not bare or path.suffix in PLAYER_SUFFIXES:
        raise ValueError(f"{text}: no such file or folder; {ACCEPTED}")
    names = ", ".join(available()) or "none shipped"
    raise ValueError(f"unknown trained agent {text!r}: give a checkpoint path or one of: {names}")


#: What every stable-baselines3 save holds (its ``data`` may carry pickled objects).
SB3_ENTRIES = frozenset({"data"})
#: An entry the project adds to an SB3 zip it saves (``add_sb3_meta``): JSON with the game
#: the player learned (``env``), so that a seat at another game refuses it.
SB3_META = "gin_env_meta.json"
#: The activations of an SB3 policy this module plays, by the class name in ``data``.
SB3_ACTIVATIONS = {"Tanh": "tanh", "ReLU": "relu"}


def _sb3_refused(path: Path, why: str) -> ValueError:
    return ValueError(
        f"{path} is a stable-baselines3 zip {why}; {ACCEPTED}; a file you trust can be "
        f"converted once with: gin-rummy import-sb3 --trust {path}"
    )


def _sb3_activation(path: Path, data: Any) -> str:
    """The policy's activation, read off the plain JSON of SB3's ``data``: the
    ``activation_fn`` entry of ``policy_kwargs`` (SB3 writes the class's name beside its
    pickle, which is never decoded), Tanh (SB3's default) when none is given."""
    kwargs = data.get("policy_kwargs") if isinstance(data, dict) else None
    named = kwargs.get("activation_fn") if isinstance(kwargs, dict) else None
    if named is None:
        return "tanh"
    for cls, activation in SB3_ACTIVATIONS.items():
        if isinstance(named, str) and named.rstrip("'>").endswith(f".{cls}"):
            return activation
    raise _sb3_refused(path, f"whose policy's activation is {named!r} (played here: Tanh or ReLU)")


def load_sb3(path: str | Path, deterministic: bool = True) -> MLPAgent | HistoryActor:
    """The actor of a stable-baselines3 (MaskablePPO) ``.zip``, read without unpickling
    anything: ``policy.pth`` by ``torch.load(..., weights_only=True)`` (tensors and plain
    containers only; a pickle that would build any other object is refused unrun), the
    activation from ``data``'s plain JSON. A policy that is not an MLP actor over the
    observation (a features extractor with weights, shared layers, another number of
    actions) is refused by name."""
    path = Path(path)
    try:
        with zipfile.ZipFile(path) as zf:
            entries = set(zf.namelist())
            if "policy.pth" not in entries:
                raise _sb3_refused(path, "without policy.pth (its weights)")
            raw_data = zf.read("data") if "data" in entries else b"{}"
            weights = zf.read("policy.pth")
            ours = zf.read(SB3_META) if SB3_META in entries else b"{}"
    except (zipfile.BadZipFile, OSError, EOFError) as err:
        raise ValueError(f"{path}: not a readable zip ({type(err).__name__}); {ACCEPTED}") from None
    try:
        data = json.loads(raw_data)  # plain JSON: the cloudpickle strings stay strings
    except (ValueError, UnicodeDecodeError):
        raise _sb3_refused(path, "whose data is not JSON") from None
    activation = _sb3_activation(path, data)
    try:
        meta = json.loads(ours)  # what the project's examples add: the game it learned
    except (ValueError, UnicodeDecodeError):
        meta = None
    if not isinstance(meta, dict):
        raise _sb3_refused(path, f"whose {SB3_META} is not a JSON object")
    try:
        torch = require("torch", needed_for=f"reading the SB3 weights of {path}")
    except MissingExtraError as err:
        raise ValueError(str(err)) from None
    try:
        state = torch.load(io.BytesIO(weights), map_location="cpu", weights_only=True)
    except Exception as err:  # noqa: BLE001 (torch's refusals: UnpicklingError, RuntimeError..)
        line = str(err).strip().splitlines()[0][:160] if str(err).strip() else "empty"
        raise _sb3_refused(
            path,
            f"whose policy.pth is not weights only ({type(err).__name__}: {line}); nothing in "
            "it was run",
        ) from None
    if not isinstance(state, Mapping) or not all(
        isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items()
    ):
        raise _sb3_refused(path, "whose policy.pth is not a state dict of tensors")
    keys = list(state)
    extra = [
        k for k in keys
        if k.startswith(("features_extractor.", "pi_features_extractor.", "mlp_extractor.shared"))
        and not k.startswith("features_extractor.history.")
    ]  # fmt: skip
    if extra:
        raise _sb3_refused(
            path, f"whose policy has layers this project does not play ({extra[0]}, ...)"
        )
    try:
        info = {k: v for k, v in meta.items() if k != "name"}
        info.update(source="stable-baselines3", file=path.name)
        actor = actor_from_state(state, activation, str(meta.get("name", path.stem)), **info)
    except (ValueError, KeyError) as err:
        raise _sb3_refused(path, f"whose policy is not a MaskablePPO actor ({err})") from None
    if actor.layers[-1][0].shape[0] != NUM_ACTIONS:
        raise _sb3_refused(
            path, f"for {actor.layers[-1][0].shape[0]} actions, not this game's {NUM_ACTIONS}"
        )
    if isinstance(actor, MLPAgent) and actor.obs_size not in INPUT_KINDS:
        raise _sb3_refused(
            path, f"whose policy reads {actor.obs_size} inputs (played here: "
            f"{', '.join(map(str, INPUT_KINDS))})",
        )  # fmt: skip
    actor.deterministic = deterministic
    return actor


def add_sb3_meta(path: str | Path, **meta: Any) -> Path:
    """Add :data:`SB3_META` (``meta`` as JSON: ``env``, the game the player learned, and
    how) to a stable-baselines3 zip that :func:`load_sb3` reads, replacing an earlier
    one; SB3's own loader ignores the entry."""
    path = Path(path)
    with zipfile.ZipFile(path) as zf:
        entries = {n: zf.read(n) for n in zf.namelist() if n != SB3_META}
    tmp = path.with_name(path.name + ".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, blob in entries.items():
            zf.writestr(name, blob)
        zf.writestr(SB3_META, json.dumps(meta, indent=1, sort_keys=True, default=str))
    tmp.replace(path)
    return path


def load(name_or_path: str | Path, deterministic: bool = True) -> Any:
    """A trained player by shipped name (``"gin-ppo"``, ``"gin-dmc"``) or by path: an
    actor zip (flat or history-reading), a DMC ``.npz``, a stable-baselines3 zip
    (:func:`load_sb3`) or a run folder (:func:`run_player`). Never unpickles."""
    path = _resolve(name_or_path)
    if path.stat().st_size == 0:
        raise ValueError(f"{path}: empty file, not a trained player; {ACCEPTED}")
    if path.suffix == ".npz" or not zipfile.is_zipfile(path):
        if path.suffix == ".npz":
            return dmc.load(path)
        raise ValueError(f"{path}: not a trained player (neither a zip nor a .npz); {ACCEPTED}")
    try:
        with zipfile.ZipFile(path) as zf:
            names = set(zf.namelist())
            if not {"meta.json", "weights.npz"} <= names:
                if SB3_ENTRIES <= names or "policy.pth" in names:
                    sb3 = True
                else:
                    raise ValueError(
                        f"{path}: not a trained player (no meta.json and weights.npz); {ACCEPTED}"
                    )
            else:
                sb3 = False
        if sb3:
            return load_sb3(path, deterministic)
        with zipfile.ZipFile(path) as zf:
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
