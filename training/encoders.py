"""Policy pieces for MaskablePPO beyond the flat MLP: a centralized critic and a move-history
encoder, and the numpy player a history-reading actor exports to.

The env gives a ``Dict`` observation (:class:`agents.single_agent.SingleAgentEnv` with
``extras``): ``"observation"`` (the flat vector), optionally ``"history"`` /
``"history_mask"`` (the hand's moves as the learner saw them) and ``"state"`` (the global
state, every hand included). :class:`EncodedPolicy` turns it into features laid out as::

    [ observation | pooled history (if given) | state (if given) ]
      <------------ the actor's part ------->  <- critic only ->

The actor's network reads the first part only; the value network reads all of it. The leak
rule: the state holds the other players' cards, so it must never reach the actor. Here it
cannot: :class:`SplitMlpExtractor` slices it off before the actor's layers, and nothing
else of the actor reads the features (``tests/test_encoders.py`` checks that changing only
the state changes the value and leaves the action probabilities alone).

The history encoder (:class:`HistoryEncoder`) embeds every move (a linear layer, ReLU,
plus a learned embedding of its place in the sequence), pools the real moves by attention
to one learned query (padding masked out; no move yet gives zeros) and hands the pooled
vector to both heads, after the flat observation.

Exported players live in the agents layer (:mod:`agents.trained`, which loads every kind):
an actor without the history is the plain MLP of :class:`agents.trained.MLPAgent` (same
weight names, so a centralized-critic run ships like a plain one); one with it is a
:class:`agents.trained.HistoryActor` (numpy only, format ``gin-env-history-actor-v1``),
which plays from the observation dict of an env made with ``observation="history"`` and
refuses any other with a ValueError that says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from agents import trained
from agents.trained import (
    HISTORY_FORMAT,
    HistoryActor,
    MLPAgent,
    actor_from_state,
)

__all__ = [
    "CRITICS",
    "OBSERVATIONS",
    "HISTORY_FORMAT",
    "HistoryEncoder",
    "InputsExtractor",
    "SplitMlpExtractor",
    "EncodedPolicy",
    "HistoryActor",
    "actor_from_model",
    "load_actor",
    "extras_for",
    "input_layout",
]

#: ``--critic``: the value network reads the observation (plain) or also the state.
CRITICS = ("plain", "state")
#: ``--observation``: the networks read the flat vector, or also the move history.
OBSERVATIONS = ("flat", "history")
#: Width of the pooled history (the encoder's embedding size).
HISTORY_DIM = 64


def extras_for(critic: str, observation: str) -> tuple[str, ...]:
    """The ``extras`` of :class:`agents.single_agent.SingleAgentEnv` a run needs."""
    if critic not in CRITICS:
        raise ValueError(f"critic must be one of {', '.join(CRITICS)}; got {critic!r}")
    if observation not in OBSERVATIONS:
        raise ValueError(
            f"observation must be one of {', '.join(OBSERVATIONS)}; got {observation!r}"
        )
    return (("history",) if observation == "history" else ()) + (
        ("state",) if critic == "state" else ()
    )


def input_layout(observation_space: spaces.Space[Any], critic: str, observation: str) -> dict:
    """What a checkpoint records about its networks' input: the options and each part's
    shape (and who reads it)."""
    if isinstance(observation_space, spaces.Dict):
        shapes = {k: list(s.shape or ()) for k, s in observation_space.spaces.items()}
    else:
        shapes = {"observation": list(observation_space.shape or ())}
    return {
        "critic": critic,
        "observation": observation,
        "parts": shapes,
        "actor_reads": [k for k in shapes if k != "state"],
        "critic_reads": list(shapes),
    }


# -- the networks ----------------------------------------------------------------------------
class HistoryEncoder(nn.Module):
    """Moves ``[batch, length, features]`` with a padding mask ``[batch, length]`` (1 for a
    real move) -> ``[batch, dim]``: embedded moves pooled by attention to a learned query."""

    def __init__(self, length: int, features: int, dim: int = HISTORY_DIM) -> None:
        super().__init__()
        self.embed = nn.Linear(features, dim)
        self.position = nn.Parameter(torch.zeros(length, dim))
        self.query = nn.Parameter(torch.zeros(dim))
        self.dim = dim

    def forward(self, history: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        moves = torch.relu(self.embed(history) + self.position)  # [B, L, D]
        real = mask > 0.5
        scores = (moves @ self.query) / self.dim**0.5  # [B, L]
        scores = scores.masked_fill(~real, -1e9)
        weights = torch.softmax(scores, dim=-1) * real  # all padding: all zero
        return (weights.unsqueeze(-1) * moves).sum(dim=1)


class InputsExtractor(BaseFeaturesExtractor):
    """A ``Dict`` observation -> ``[observation | pooled history | state]`` (see the module
    docstring); a flat ``Box`` passes through. ``actor_dim`` is where the state begins."""

    def __init__(self, observation_space: spaces.Space[Any]) -> None:
        if isinstance(observation_space, spaces.Dict):
            parts = observation_space.spaces
            unknown = set(parts) - {"observation", "history", "history_mask", "state"}
            if "observation" not in parts or unknown:
                raise ValueError(
                    "the observation must hold 'observation' and may hold 'history', "
                    f"'history_mask', 'state'; got {sorted(parts)}"
                )
            obs_dim = int(parts["observation"].shape[0])  # type: ignore[index]
            hist = parts.get("history")
            state_dim = int(parts["state"].shape[0]) if "state" in parts else 0  # type: ignore[index]
        else:
            obs_dim, hist, state_dim = int(observation_space.shape[0]), None, 0  # type: ignore[index]
        hist_dim = HISTORY_DIM if hist is not None else 0
        super().__init__(observation_space, obs_dim + hist_dim + state_dim)
        self.history = (
            HistoryEncoder(int(hist.shape[0]), int(hist.shape[1])) if hist is not None else None  # type: ignore[index]
        )
        self.obs_dim = obs_dim
        self.actor_dim = obs_dim + hist_dim
        self.state_dim = state_dim

    def forward(self, obs: Any) -> torch.Tensor:
        if not isinstance(obs, dict):
            return obs  # type: ignore[no-any-return]
        parts = [obs["observation"]]
        if self.history is not None:
            parts.append(self.history(obs["history"], obs["history_mask"]))
        if self.state_dim:
            parts.append(obs["state"])  # last: the actor's slice ends before it
        return torch.cat(parts, dim=-1)


def _mlp(size: int, layers: list[int], activation: type[nn.Module]) -> tuple[nn.Sequential, int]:
    modules: list[nn.Module] = []
    for width in layers:
        modules += [nn.Linear(size, width), activation()]
        size = width
    return nn.Sequential(*modules), size


class SplitMlpExtractor(nn.Module):
    """Separate actor and critic MLPs over one feature vector: the actor reads its first
    ``actor_dim`` entries, the critic all of them (the names of sb3's ``MlpExtractor``)."""

    def __init__(
        self,
        features_dim: int,
        actor_dim: int,
        pi: list[int],
        vf: list[int],
        activation: type[nn.Module],
    ) -> None:
        super().__init__()
        self.actor_dim = actor_dim
        self.policy_net, self.latent_dim_pi = _mlp(actor_dim, pi, activation)
        self.value_net, self.latent_dim_vf = _mlp(features_dim, vf, activation)

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.policy_net(features[..., : self.actor_dim])  # type: ignore[no-any-return]

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value_net(features)  # type: ignore[no-any-return]


class EncodedPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy over :class:`InputsExtractor` features: a centralized critic
    when the observation holds ``"state"``, a history encoder when it holds ``"history"``.

    ``net_arch`` is ``{"pi": [...], "vf": [...]}`` (or one list for both).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("features_extractor_class", InputsExtractor)
        if kwargs["features_extractor_class"] is not InputsExtractor:
            raise ValueError("EncodedPolicy builds its own features extractor (InputsExtractor)")
        kwargs.setdefault("share_features_extractor", True)
        if not kwargs["share_features_extractor"]:
            raise ValueError("EncodedPolicy shares its features extractor between the heads")
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        arch: Any = self.net_arch
        pi, vf = (arch["pi"], arch["vf"]) if isinstance(arch, dict) else (arch, arch)
        extractor = self.features_extractor
        assert isinstance(extractor, InputsExtractor)
        self.mlp_extractor = SplitMlpExtractor(  # type: ignore[assignment]
            self.features_dim, extractor.actor_dim, list(pi), list(vf), self.activation_fn
        )


def actor_from_model(model: Any, name: str = "trained", **meta: Any) -> MLPAgent | HistoryActor:
    """The acting network of a MaskablePPO model in numpy: an :class:`MLPAgent` when it
    reads the flat observation alone (plain or centralized critic), else a
    :class:`HistoryActor` (:func:`agents.trained.actor_from_state`)."""
    policy = getattr(model, "policy", model)
    act_fn = getattr(policy, "activation_fn", None)
    activation = "relu" if act_fn is not None and act_fn.__name__ == "ReLU" else "tanh"
    return actor_from_state(policy.state_dict(), activation, name, **meta)


def load_actor(path: str | Path, deterministic: bool = True) -> MLPAgent | HistoryActor:
    """An exported actor, flat or history-reading (:func:`agents.trained.load`)."""
    return trained.load(path, deterministic)  # type: ignore[no-any-return]
