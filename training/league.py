"""The self-play league: a pool of opponents the learner trains against.

The pool holds fixed opponents (by registry name: ``"simple"`` = L1, ``"heuristic"`` = L2,
``"random"`` = L0) and frozen snapshots of the learner (numpy actors, see
:mod:`agents.trained`). A snapshot joins when the learner beats the pool by a set margin
(:meth:`League.gate`); the oldest snapshot leaves when there are more than
``max_snapshots``. :class:`LeagueEnv` is the Gymnasium single-agent env the learner plays
in: each episode (one hand) it draws the learner's seat at random and an opponent from the
pool for every other seat.

The learner's reward is its own side's points (the wrapper's contract), never an opponent's:
``tests/test_training.py`` checks it against the hand's result.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import agents
from agents.single_agent import Observation, Policy, RandomPolicy, SingleAgentEnv
from agents.trained import INPUT_KINDS, MLPAgent, policy_input
from gin_env import games
from gin_env.config import Table
from gin_eval.rollout import play

__all__ = [
    "ENVS",
    "FIXED_OPPONENTS",
    "League",
    "LeagueEnv",
    "Member",
    "make_env",
    "make_opponent",
    "play_hands",
]

#: The games the league trains on: the gin family, by short name (``gin``, ``three_handed``).
ENVS = tuple(g.short for g in games.GAMES.values() if g.family == "gin")
FIXED_OPPONENTS = ("random", "simple", "heuristic")


def make_opponent(name: str, table: Table) -> Policy:
    """A fixed opponent by registry name, seated at ``table`` (:func:`agents.seat`)."""
    if name not in FIXED_OPPONENTS:
        raise ValueError(f"opponent must be one of {', '.join(FIXED_OPPONENTS)}; got {name!r}")
    return agents.seat(name, table)  # type: ignore[no-any-return]


def make_env(env: str, **options: Any) -> Any:
    """The raw AEC env of ``env`` (one of :data:`ENVS`) for one-hand episodes."""
    if env not in ENVS:
        raise ValueError(f"env must be one of {', '.join(ENVS)}; got {env!r}")
    options.setdefault("episode", "hand")
    return games.get(env).make_env(**options)


@dataclass
class Member:
    """One opponent of the pool: a fixed agent (``policy`` built from ``name``) or a snapshot."""

    name: str
    policy: Policy
    step: int = 0  # the learner's step count when a snapshot was taken; 0 for fixed ones

    @property
    def is_snapshot(self) -> bool:
        return isinstance(self.policy, MLPAgent)


class LeagueEnv(SingleAgentEnv):
    """A one-hand episode against opponents drawn from a pool, seats at random.

    ``set_pool`` replaces the members (the trainer calls it through ``env_method`` when a
    snapshot joins); ``weights`` are the draw probabilities, one per member.
    """

    def __init__(
        self,
        aec_env: Any,
        members: Sequence[Member],
        weights: Sequence[float] | None = None,
        learner: str = "random",
        inputs: str = "obs",
        extras: Sequence[str] = (),
    ) -> None:
        super().__init__(aec_env, learner=learner, opponents=RandomPolicy(), extras=extras)
        if inputs not in INPUT_KINDS.values():
            raise ValueError(f"inputs must be one of {list(INPUT_KINDS.values())}; got {inputs!r}")
        if inputs != "obs" and self.extras:
            raise ValueError(f"inputs {inputs!r} extends the flat vector: not with extras")
        self.inputs = inputs
        self._base_size = int(self.flat_observation_space.shape[0])  # type: ignore[index]
        if inputs != "obs":
            # The legal actions (and deadwood features) as input: the policy sees what it may do.
            n = {v: k for k, v in INPUT_KINDS.items()}[inputs]
            self.observation_space = gym.spaces.Box(0.0, 1.0, (n,), np.float32)
        self.members: list[Member] = []
        self.weights = np.ones(0)
        self.set_pool(members, weights)
        self.current: dict[str, str] = {}

    def set_pool(self, members: Sequence[Member], weights: Sequence[float] | None = None) -> None:
        if not members:
            raise ValueError("the pool needs at least one member")
        w = np.ones(len(members)) if weights is None else np.asarray(weights, float)
        if len(w) != len(members) or (w < 0).any() or w.sum() <= 0:
            raise ValueError(f"weights must be one non-negative number per member; got {weights}")
        self.members = list(members)
        self.weights = w / w.sum()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        if seed is not None:
            self._pool_rng = np.random.default_rng([seed, 7])
        rng = getattr(self, "_pool_rng", None)
        if rng is None:
            rng = self._pool_rng = np.random.default_rng()
        picks = rng.choice(len(self.members), size=len(self.aec.possible_agents), p=self.weights)
        self.opponents = {
            a: self.members[int(i)].policy
            for a, i in zip(self.aec.possible_agents, picks, strict=True)
        }
        self.current = {
            a: self.members[int(i)].name
            for a, i in zip(self.aec.possible_agents, picks, strict=True)
        }
        obs, info = super().reset(seed=seed, options=options)
        return self._extend(obs), info

    def _extend(self, obs: Observation) -> Observation:
        # SingleAgentEnv.reset may call reset again (a hand over before the learner acted):
        # the inner call has extended the vector already.
        if self.inputs == "obs" or isinstance(obs, dict) or len(obs) != self._base_size:
            return obs
        return policy_input(obs, self._mask, self.inputs)

    def step(self, action: int) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = super().step(action)
        return self._extend(obs), reward, terminated, truncated, info


@dataclass
class HandsResult:
    """The learner's hands against one opponent: wins, losses, draws and points."""

    hands: int = 0
    wins: int = 0
    losses: int = 0
    points: float = 0.0
    by_role: dict[str, list[float]] = field(default_factory=dict)

    @property
    def score(self) -> float:
        """Wins plus half the draws, per hand."""
        draws = self.hands - self.wins - self.losses
        return (self.wins + 0.5 * draws) / max(self.hands, 1)

    @property
    def win_rate(self) -> float:
        return self.wins / max(self.hands, 1)

    @property
    def points_per_hand(self) -> float:
        return self.points / max(self.hands, 1)


def play_hands(
    agent: Policy,
    opponent: Policy,
    env: str,
    hands: int,
    seed: int = 0,
    **env_options: Any,
) -> HandsResult:
    """``hands`` one-hand episodes of ``agent`` in a random seat against ``opponent`` in
    every other seat (played by :func:`gin_eval.rollout.play`).

    Points are the learner's own side's, unscaled (``reward_scale=1``). Every hand counts,
    including the rare one that ends before the learner acts (the captain knocking on his
    first discard).
    """
    aec = make_env(env, reward_scale=1.0, **env_options)
    rng = np.random.default_rng(seed)
    opponent_rng = np.random.default_rng(seed + 1)
    seat_rng = np.random.default_rng([seed, 2])
    names = aec.possible_agents
    out = HandsResult()
    for hand in range(hands):
        aec.reset(seed=seed if hand == 0 else None)  # then the env's own deal stream
        learner = names[int(seat_rng.integers(len(names)))]
        role = aec.infos[learner].get("role", "?")
        policies = {a: agent if a == learner else opponent for a in names}
        rngs = {a: rng if a == learner else opponent_rng for a in names}
        total = play(aec, policies, rngs).rewards[learner]
        out.hands += 1
        out.points += total
        out.wins += total > 0
        out.losses += total < 0
        out.by_role.setdefault(role, []).append(total)
    return out


class League:
    """Fixed opponents plus up to ``max_snapshots`` frozen learners; saved and restored whole.

    ``snapshot_share`` is the probability of drawing some snapshot once there is one (spread
    evenly over the snapshots); the fixed opponents share the rest, evenly or by
    :meth:`set_fixed_weights`.
    """

    def __init__(
        self,
        fixed: Sequence[str] = ("simple", "heuristic"),
        max_snapshots: int = 5,
        margin: float = 0.05,
        snapshot_share: float = 0.5,
        seed: int = 0,
        *,
        table: Table,
    ) -> None:
        if not fixed:
            raise ValueError("fixed must name at least one opponent")
        if not 0 <= snapshot_share < 1:
            raise ValueError(f"snapshot_share must be in [0, 1); got {snapshot_share!r}")
        self.fixed = list(fixed)
        #: The table the learner trains at: the fixed opponents are seated at it.
        self.table = table
        self.max_snapshots = int(max_snapshots)
        self.margin = float(margin)
        self.snapshot_share = float(snapshot_share)
        self.fixed_weights: dict[str, float] = {}
        self.members: list[Member] = [Member(n, make_opponent(n, table)) for n in self.fixed]
        self.history: list[dict[str, Any]] = []
        self.rng = np.random.default_rng(seed)

    # -- the pool -------------------------------------------------------------------------
    @property
    def snapshots(self) -> list[Member]:
        return [m for m in self.members if m.is_snapshot]

    def names(self) -> list[str]:
        return [m.name for m in self.members]

    def weights(self) -> list[float]:
        snaps = len(self.snapshots)
        s = self.snapshot_share if snaps else 0.0
        fw = self.fixed_weights or {n: 1.0 for n in self.fixed}
        total = sum(fw.get(n, 1.0) for n in self.fixed)
        return [
            s / snaps if m.is_snapshot else (1 - s) * fw.get(m.name, 1.0) / total
            for m in self.members
        ]

    def set_fixed_weights(self, weights: Sequence[float]) -> None:
        """Relative draw weights of the fixed opponents, in the order of ``fixed``."""
        if len(weights) != len(self.fixed) or any(w < 0 for w in weights) or sum(weights) <= 0:
            raise ValueError(
                f"fixed weights must be {len(self.fixed)} non-negative numbers (one per "
                f"opponent of {self.fixed}); got {list(weights)}"
            )
        self.fixed_weights = {n: float(w) for n, w in zip(self.fixed, weights, strict=True)}

    def add_fixed(self, name: str) -> Member:
        member = Member(name, make_opponent(name, self.table))
        self.fixed.append(name)
        self.members.insert(len(self.fixed) - 1, member)
        return member

    def add_snapshot(self, actor: MLPAgent, step: int) -> Member:
        member = Member(f"snapshot-{step}", actor, step)
        self.members.append(member)
        while len(self.snapshots) > self.max_snapshots:
            self.members.remove(self.snapshots[0])
        return member

    # -- the gate -------------------------------------------------------------------------
    def gate(
        self,
        actor: MLPAgent,
        step: int,
        env: str,
        hands: int,
        evaluate: Callable[..., HandsResult] = play_hands,
    ) -> dict[str, Any]:
        """Play ``hands`` hands against every member; add a snapshot if the mean score
        (wins + draws/2 per hand) is at least 0.5 + ``margin``."""
        seed = int(self.rng.integers(2**31))
        scores = {m.name: evaluate(actor, m.policy, env, hands, seed).score for m in self.members}
        mean = float(np.mean(list(scores.values())))
        joined = mean >= 0.5 + self.margin
        if joined:
            self.add_snapshot(actor, step)
        record = {"step": step, "scores": scores, "mean": mean, "joined": joined}
        self.history.append(record)
        return record

    # -- saving ---------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """Everything but the snapshot weights, as JSON-able data."""
        return {
            "fixed": self.fixed,
            "max_snapshots": self.max_snapshots,
            "margin": self.margin,
            "snapshot_share": self.snapshot_share,
            "fixed_weights": self.fixed_weights,
            "members": [
                {"name": m.name, "step": m.step, "snapshot": m.is_snapshot} for m in self.members
            ],
            "history": self.history,
            "rng": self.rng.bit_generator.state,
        }

    def save(self, directory: str | Path) -> None:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "league.json").write_text(json.dumps(self.state(), indent=1, default=float))
        arrays: dict[str, np.ndarray] = {}
        meta: dict[str, str] = {}
        for m in self.snapshots:
            assert isinstance(m.policy, MLPAgent)
            meta[m.name] = m.policy.activation
            for i, (w, b) in enumerate(m.policy.layers):
                arrays[f"{m.name}/w{i}"], arrays[f"{m.name}/b{i}"] = w, b
        buf = io.BytesIO()
        np.savez(buf, **arrays)  # type: ignore[arg-type]
        (directory / "snapshots.npz").write_bytes(buf.getvalue())
        (directory / "snapshots.json").write_text(json.dumps(meta))

    @classmethod
    def load(cls, directory: str | Path, table: Table) -> League:
        """The league saved in ``directory`` (JSON and arrays only), its fixed opponents
        seated at ``table``; a missing or malformed file is a one-line ValueError naming it."""
        directory = Path(directory)
        try:
            return cls._load(directory, table)
        except (OSError, ValueError, KeyError, TypeError, EOFError) as err:
            line = str(err).splitlines()[0][:160] if str(err) else ""
            raise ValueError(
                f"{directory}: not a readable league ({type(err).__name__}: {line})"
            ) from None

    @classmethod
    def _load(cls, directory: Path, table: Table) -> League:
        state = json.loads((directory / "league.json").read_text())
        league = cls(
            state["fixed"], state["max_snapshots"], state["margin"], state["snapshot_share"],
            table=table,
        )  # fmt: skip
        league.history = state["history"]
        league.fixed_weights = state.get("fixed_weights", {})
        league.rng.bit_generator.state = state["rng"]
        activations = json.loads((directory / "snapshots.json").read_text())
        members = []
        with np.load(directory / "snapshots.npz", allow_pickle=False) as npz:
            for entry in state["members"]:
                name = entry["name"]
                if not entry["snapshot"]:
                    members.append(Member(name, make_opponent(name, table)))
                    continue
                layers = []
                i = 0
                while f"{name}/w{i}" in npz:
                    layers.append((npz[f"{name}/w{i}"], npz[f"{name}/b{i}"]))
                    i += 1
                members.append(
                    Member(name, MLPAgent(layers, activations[name], name=name), entry["step"])
                )
        league.members = members
        return league
