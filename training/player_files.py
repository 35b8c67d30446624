"""The examples' trained networks as the project's player files, checked to play the same.

Every example trains an MLP from the observation to one logit (or Q value) per action, in
its library's classes. :func:`mlp_actor` reads such a torch network's linear layers (its
``state_dict``, in order) and its activation into a numpy
:class:`agents.trained.MLPAgent`; :func:`save_player` writes that actor as an actor zip
(``meta.json`` + ``weights.npz``, :func:`agents.trained.save_actor`), which
``agents.seat(path, table)`` and ``--agents path`` load as data, but only after
:func:`check_same_moves` has seen it play the example's own player's move (the legal
move of highest logit) in positions of random play: a network that is not the plain MLP
this reads (a normalisation layer, a dueling head, per-seat weights) is refused there,
with a message, rather than written as a player that plays something else.

Torch is the ``train`` extra: every example has it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from agents.trained import ACTIVATIONS, MLPAgent, save_actor
from gin_env import games

__all__ = ["mlp_actor", "check_same_moves", "check_savable", "save_player"]

#: Torch's activation modules by the name the actor zip records.
_ACTIVATION_CLASSES = {"Tanh": "tanh", "ReLU": "relu"}


def mlp_actor(module: Any, name: str, **meta: Any) -> MLPAgent:
    """The numpy actor of a torch MLP (``module``: its 2-D ``weight`` and ``bias`` pairs in
    ``state_dict`` order are the layers, one activation between them). A network with
    weights of another kind, or more than one activation, is a ``ValueError`` naming it."""
    state = {k: v.detach().cpu().numpy() for k, v in module.state_dict().items()}
    layers = []
    for key, value in state.items():
        if key.endswith("bias"):
            continue
        if not key.endswith("weight") or value.ndim != 2:
            raise ValueError(
                f"{name}: {key} (shape {tuple(value.shape)}) is not a layer of a plain MLP "
                "(2-D weights shared by every seat)"
            )
        bias = state.get(key[: -len("weight")] + "bias")
        if bias is None:
            raise ValueError(f"{name}: layer {key} has no bias")
        layers.append((value, bias))
    kinds = {type(m).__name__ for m in module.modules()}
    found = sorted({_ACTIVATION_CLASSES[k] for k in kinds if k in _ACTIVATION_CLASSES})
    if len(layers) == 1 and not found:
        found = ["tanh"]  # one linear layer: no activation to apply
    if len(found) != 1 or found[0] not in ACTIVATIONS:
        raise ValueError(
            f"{name}: its activation must be one of Tanh, ReLU throughout; found {found or 'none'}"
        )
    if not layers:
        raise ValueError(f"{name}: no linear layers")
    return MLPAgent(layers, found[0], deterministic=True, name=name, meta=meta)


def check_same_moves(
    actor: Any, reference: Any, game: str, positions: int = 64, seed: int = 0
) -> None:
    """``actor`` plays ``reference``'s move in ``positions`` positions of random play of
    ``game`` (its standard table), else a ``ValueError`` saying where they differ."""
    env = games.get(game).make_env()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for step in range(positions):
        observation = env.observe(env.agent_selection)
        mine, theirs = actor.act(observation), reference.act(observation)
        if mine != theirs:
            raise ValueError(
                f"{getattr(actor, 'name', 'the actor')} plays {mine} where the trained "
                f"network plays {theirs} (position {step} of random play): the network is "
                "not the plain MLP the player file holds"
            )
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        if any(env.terminations.values()) or any(env.truncations.values()):
            env.reset(seed=seed + step + 1)


def save_player(
    path: str | Path,
    actor: MLPAgent,
    reference: Any,
    game: str,
    **meta: Any,
) -> Path:
    """Write ``actor`` to ``path`` as an actor zip (``env``: ``game``, so that a seat at
    another game refuses it; ``meta`` beside it) once :func:`check_same_moves` has seen it
    play ``reference``'s moves."""
    check_same_moves(actor, reference, game)
    info: Mapping[str, Any] = {"env": game, **meta}
    return save_actor(actor, path, **info)


def check_savable(actor: Callable[[], MLPAgent], reference: Any, game: str) -> None:
    """Before an example trains with ``--save``: ``actor()`` (the untrained network read
    as an actor) plays ``reference``'s moves, else the script stops with a one-line
    ``error: --save: ...`` (exit status 2), before any training."""
    try:
        check_same_moves(actor(), reference, game)
    except ValueError as err:
        print(f"error: --save: {err}", file=sys.stderr)
        raise SystemExit(2) from None
