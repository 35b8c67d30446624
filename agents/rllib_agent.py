"""Policies trained with Ray RLlib (``training/rllib_train.py``), as agents of our interface.

``RLlibAgent(path)`` loads torch RL modules saved by RLlib and plays with
``act(observation, rng=None) -> int`` like every other agent, so the evaluation harness
and the CLI can set it against the baselines. ``path`` may be:

- an algorithm checkpoint (``runs/rllib/iter_00010``): the trained modules are found
  under ``learner_group/learner/rl_module``;
- the ``rl_module`` folder of a checkpoint (all its modules);
- one module's folder (``.../rl_module/main``): just that module.

Which module plays: ``module_id`` when given; otherwise ``main`` (the shared policy) when
present, else one module per role (``box``/``captain``/``adviser`` or
``dealer``/``non-dealer``) chosen by the role one-hot in each observation, since a
player's role rotates from hand to hand. Self-play snapshots (``*_snapK``) are skipped
unless named.

The module's own masking already drives illegal logits to the float minimum; ``act``
masks again with the observation's ``action_mask`` so the chosen id is always legal.
Greedy (argmax) by default; ``explore=True`` samples from the masked softmax with ``rng``.

Ray and torch are imported only when an agent is built: importing this module needs
neither (``pip install ".[rllib]"`` to use it).

Trust: an RLlib checkpoint is Ray's own format, which unpickles classes and their
arguments when loaded, so ``RLlibAgent`` is never reached through :func:`agents.make` (which
loads data only) and is for checkpoints you trained or trust: loading one from elsewhere can
run its author's code.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.base import legal_actions
from agents.trained import ACTIVATIONS, MLPAgent
from gin_env import games
from gin_env.encoding import OBS_SLICES
from gin_env.optional import require

__all__ = ["RLlibAgent", "find_modules", "module_to_mlp", "ROLE_ORDER"]

# Role one-hot order of the observation (gin_env.encoding): the three-handed roles, and
# gin_v0's (dealer, non-dealer).
ROLE_ORDER: dict[str, tuple[str, ...]] = {
    g.short: g.roles for g in games.GAMES.values() if g.family == "gin"
}
_MODULE_FILE = "class_and_ctor_args.pkl"
_RL_MODULE_DIR = Path("learner_group", "learner", "rl_module")


def find_modules(path: str | Path) -> dict[str, Path]:
    """Module id -> folder of every single-agent module saved under ``path``."""
    root = Path(path)
    if not root.is_dir():
        raise ValueError(f"RLlib checkpoint path {str(root)!r} is not a directory")
    if (root / _RL_MODULE_DIR).is_dir():
        root = root / _RL_MODULE_DIR
    subdirs = {p.name: p for p in sorted(root.iterdir()) if (p / _MODULE_FILE).is_file()}
    if subdirs:  # a multi-module folder
        return subdirs
    if (root / _MODULE_FILE).is_file():  # one module's own folder
        return {root.name: root}
    raise ValueError(
        f"no RLlib module under {str(path)!r}: expected an algorithm checkpoint, its "
        f"{_RL_MODULE_DIR} folder, or one module's folder (with {_MODULE_FILE})"
    )


def _pick(modules: dict[str, Path], module_id: str | None) -> dict[str, Path]:
    if module_id is not None:
        if module_id not in modules:
            raise ValueError(
                f"module_id must be one of {', '.join(sorted(modules))}; got {module_id!r}"
            )
        return {module_id: modules[module_id]}
    if "main" in modules:
        return {"main": modules["main"]}
    for roles in ROLE_ORDER.values():
        if all(r in modules for r in roles[:2]):  # adviser="none" has no adviser module
            return {r: modules[r] for r in roles if r in modules}
    trained = [m for m in modules if "_snap" not in m]
    if len(trained) == 1:
        return {trained[0]: modules[trained[0]]}
    raise ValueError(
        f"cannot tell which module plays among {', '.join(sorted(modules))}: pass module_id"
    )


class RLlibAgent:
    """An RLlib-trained policy (torch RL modules) with ``act(observation, rng) -> int``."""

    name = "rllib"

    def __init__(
        self, path: str | Path, module_id: str | None = None, explore: bool = False
    ) -> None:
        torch = require("torch", "rllib", needed_for="RLlibAgent")
        rl_module = require("ray.rllib.core.rl_module.rl_module", needed_for="RLlibAgent")
        self._torch = torch
        self.path = str(path)
        self.explore = bool(explore)
        chosen = _pick(find_modules(path), module_id)
        self.modules: dict[str, Any] = {}
        for mid, folder in chosen.items():
            module = rl_module.RLModule.from_checkpoint(str(folder))
            module.eval()
            self.modules[mid] = module
        self.module_ids = list(self.modules)
        self._by_role = next(
            (roles for roles in ROLE_ORDER.values() if roles[0] in self.modules), None
        )

    def module_for(self, observation: dict[str, np.ndarray]) -> Any:
        """The module that plays this observation (by the observer's role when per role)."""
        if self._by_role is None:
            return self.modules[self.module_ids[0]]
        role_part = np.asarray(observation["observation"])[OBS_SLICES["role"]]
        role = self._by_role[int(np.argmax(role_part))]
        if role not in self.modules:
            raise ValueError(f"no module for role {role!r} in {self.path}")
        return self.modules[role]

    def logits(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        """The module's action logits (illegal ids masked by the module)."""
        torch = self._torch
        obs = np.asarray(observation["observation"], np.float32)
        mask = np.asarray(observation["action_mask"], np.float32)
        batch = {
            "obs": {
                "observations": torch.from_numpy(obs[None].copy()),
                "action_mask": torch.from_numpy(mask[None].copy()),
            }
        }
        with torch.no_grad():
            out = self.module_for(observation).forward_inference(batch)
        logits: np.ndarray = out["action_dist_inputs"][0].cpu().numpy().astype(np.float64)
        return logits

    def act(
        self, observation: dict[str, np.ndarray], rng: np.random.Generator | None = None
    ) -> int:
        legal = np.asarray(legal_actions(observation))
        scores = self.logits(observation)[legal]
        if not self.explore:
            return int(legal[int(np.argmax(scores))])
        rng = rng if rng is not None else np.random.default_rng()
        p = np.exp(scores - scores.max())
        return int(rng.choice(legal, p=p / p.sum()))

    def to_mlp(self, module_id: str | None = None, name: str | None = None) -> Any:
        """The module's actor as a numpy :class:`agents.trained.MLPAgent`: it plays the same
        greedy moves with neither ray nor torch, and saves with ``agents.trained.save_actor``
        to a zip that ``agents.make(path)`` and the evaluation harness load.

        Needs RLlib's default MLP (``fcnet_hiddens`` + linear action head, tanh or relu).
        """

        mid = module_id if module_id is not None else self.module_ids[0]
        if mid not in self.modules:
            raise ValueError(f"module_id must be one of {', '.join(self.module_ids)}; got {mid!r}")
        meta = {"source": "rllib", "checkpoint": self.path, "module_id": mid}
        return module_to_mlp(
            self.modules[mid], name or f"rllib-{mid}", deterministic=not self.explore, **meta
        )

    def __repr__(self) -> str:
        return f"RLlibAgent({self.path!r}, modules={self.module_ids})"


def module_to_mlp(module: Any, name: str, deterministic: bool = True, **meta: Any) -> MLPAgent:
    """The actor of an RLlib torch module (RLlib's default MLP: ``fcnet_hiddens`` and a
    linear action head, tanh or relu, as ``ActionMaskingTorchRLModule`` builds it) as a
    numpy :class:`agents.trained.MLPAgent`, which ``agents.trained.save_actor`` writes to
    a zip that ``agents.seat(path, table)`` plays; a module of another shape is a
    ``ValueError`` (play it with :class:`RLlibAgent`)."""
    config = module.model_config
    config = config if isinstance(config, dict) else vars(config)
    activation = config.get("fcnet_activation", "tanh")
    if activation not in ACTIVATIONS or config.get("head_fcnet_hiddens"):
        raise ValueError(
            f"module {name!r} is not a plain MLP with activation in {ACTIVATIONS} and a "
            "linear head; play it with RLlibAgent instead"
        )
    state = {k: np.asarray(v) for k, v in module.get_state().items()}
    # vf_share_layers=False names the actor's tower actor_encoder; True names it encoder.
    prefix = next(
        (p for p in ("encoder.actor_encoder.net.mlp.", "encoder.encoder.net.mlp.")
         if any(k.startswith(p) for k in state)),
        None,
    )  # fmt: skip
    if prefix is None or "pi.net.mlp.0.weight" not in state:
        raise ValueError(f"module {name!r} has no MLP encoder and action head RLlib names")
    linear = sorted(
        int(k[len(prefix) :].split(".")[0]) for k in state
        if k.startswith(prefix) and k.endswith(".weight")
    )  # fmt: skip
    layers = [(state[f"{prefix}{i}.weight"], state[f"{prefix}{i}.bias"]) for i in linear]
    layers.append((state["pi.net.mlp.0.weight"], state["pi.net.mlp.0.bias"]))
    return MLPAgent(layers, activation, deterministic=deterministic, name=name, meta=meta)
