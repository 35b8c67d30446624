"""One loop that plays agents at a table: every tool that plays whole episodes uses it.

:func:`play` runs an AEC env (``raw_env`` or ``env()`` of any game, already reset) until
the agent to act is done: each agent to act gets its own observation and its policy
chooses. What the callers need besides comes back in a :class:`Rollout` (steps, each
agent's total reward, decisions and the seconds they took) or through two hooks, called
around every action: ``before(env, agent)`` and ``after(env, agent, action)`` (the command
line narrates moves and prints finished hands there).

A policy is anything with ``act(observation, rng) -> int``; one that returns ``None``
stops the loop (a person leaving the table), with ``Rollout.stopped`` set. A policy that
says ``reads_view = True`` (the players in words) is also handed its seat's
:class:`~gin_env.seat_view.SeatView`, ``act(observation, rng, view=...)``: what its seat
knows of the table, which the observation vector holds only in part (the pile's order, the
score sheet, this hand's knock limit); never more than its seat may see.

>>> import numpy as np
>>> from gin_env import gin_v0
>>> from agents.single_agent import RandomPolicy
>>> env = gin_v0.raw_env(episode="hand")
>>> env.reset(seed=1)
>>> out = play(env, {a: RandomPolicy() for a in env.possible_agents}, np.random.default_rng(1))
>>> out.rewards["player_0"] + out.rewards["player_1"]  # team rewards are zero-sum
0.0
>>> out.steps == sum(out.decisions.values()) and env.table_state.history[0].result is not None
True
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gin_env.actions import check_action
from gin_env.seat_view import seat_view

__all__ = ["Rollout", "play"]

Hook = Callable[[Any, str], None]
AfterHook = Callable[[Any, str, int], None]


@dataclass
class Rollout:
    """What a :func:`play` call did: actions taken, and per agent its total reward, its
    decisions and the seconds spent choosing them."""

    steps: int = 0
    rewards: dict[str, float] = field(default_factory=dict)
    decisions: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    stopped: bool = False  # a policy returned None


def play(
    env: Any,
    policies: Mapping[str, Any],
    rng: np.random.Generator | Mapping[str, np.random.Generator] | None = None,
    *,
    before: Hook | None = None,
    after: AfterHook | None = None,
    max_steps: int | None = None,
) -> Rollout:
    """Play ``env`` (already reset) until the agent to act is terminated or truncated (the
    episode's end), a policy returns ``None``, or ``max_steps`` actions have been taken.

    ``policies`` maps every agent that will act to its policy; ``rng`` is passed to every
    policy (or one generator per agent, by name). Rewards are summed from ``env.rewards``
    after every action, so they are each agent's whole-episode total (whatever
    ``_cumulative_rewards`` holds at the end).
    """
    names = list(env.possible_agents)
    out = Rollout(
        rewards=dict.fromkeys(names, 0.0),
        decisions=dict.fromkeys(names, 0),
        seconds=dict.fromkeys(names, 0.0),
    )
    missing = [a for a in names if a not in policies]
    while max_steps is None or out.steps < max_steps:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        if agent in missing:
            raise ValueError(f"no policy for {agent}: policies are given for {list(policies)}")
        if before is not None:
            before(env, agent)
        observation = env.observe(agent)
        agent_rng = rng.get(agent) if isinstance(rng, Mapping) else rng
        policy = policies[agent]
        start = time.perf_counter()
        if getattr(policy, "reads_view", False):
            view = seat_view(env.table_state, names.index(agent))
            action = policy.act(observation, agent_rng, view=view)
        else:
            action = policy.act(observation, agent_rng)
        out.seconds[agent] += time.perf_counter() - start
        if action is None:
            out.stopped = True
            break
        # Checked, not cast: a policy that answers 2.7 is refused by name, not played as 2.
        try:
            action = check_action(action, env.action_space(agent).n)
        except ValueError as err:
            raise ValueError(f"{agent}'s policy answered: {err}") from None
        out.decisions[agent] += 1
        env.step(action)
        out.steps += 1
        for name, reward in env.rewards.items():
            out.rewards[name] += float(reward)
        if after is not None:
            after(env, agent, action)
    return out
