"""The text env: any game of the package with observations and actions in words."""

from __future__ import annotations

import string
from dataclasses import replace
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv

from gin_env import games
from gin_env.aec_tools import StatePickle
from gin_env.config import check_choice, check_int
from gin_env.encoding import OBS_SLICES
from gin_env.text.replies import ReplyContext, ReplyError, parse_advice, parse_reply, sanitize
from gin_env.text.unusable import ON_INVALID, UnusablePolicy
from gin_env.text.views import reply_context, table_of
from gin_env.text.words import describe, move_words

__all__ = ["raw_env", "env", "SeatText", "ON_INVALID", "CHARSET", "OBSERVATION_CHARS"]

_ADVISING = OBS_SLICES["advising"].start
#: The characters of observations and of the action space's samples: printable ASCII.
CHARSET = frozenset(string.printable)
#: The longest observation text (a rummy seat with every meld listed stays far below).
OBSERVATION_CHARS = 20_000


#: The action space's declared reply length (what ``action_space.sample()`` draws up to);
#: a longer reply is still taken and read whole.
REPLY_LENGTH = 4000


class SeatText(str):
    """A seat's observation: a ``str`` whose ``dtype`` is the ``Text`` space's
    (``numpy.dtype(str)``), so that PettingZoo's ``api_test``, which compares the space's
    dtype with the observation's, reads it as text."""

    __slots__ = ()
    dtype = np.dtype(str)


class raw_env(StatePickle, AECEnv, EzPickle):  # noqa: N801 - PettingZoo's naming
    """See :mod:`gin_env.text` (the options, the rewards, the infos)."""

    metadata: dict[str, Any] = {
        "name": "text_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        game: str = "three_handed",
        retries: int = 2,
        on_invalid: str = "forfeit-hand",
        message_length: int = 280,
        reply_length: int = REPLY_LENGTH,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        EzPickle.__init__(
            self, game=game, retries=retries, on_invalid=on_invalid,
            message_length=message_length, reply_length=reply_length,
            render_mode=render_mode, **options,
        )  # fmt: skip
        super().__init__()
        spec = games.get(game)
        if spec.version != 0:
            raise ValueError(
                f"game must be one of three_handed, gin, rummy (the text is the same for "
                f"every observation layout); got {game!r}"
            )
        self.policy = UnusablePolicy(retries, on_invalid)  # checks both, naming the choices
        check_int("message_length", message_length, 0, 10_000)
        check_int("reply_length", reply_length, 1, 1_000_000)
        check_choice("render_mode", render_mode, (None, "ansi", "human"))
        if "render_mode" in options or "infos" in options:
            raise ValueError("render_mode is the text env's own; infos are always readable")
        self.spec = spec
        self.game = spec.short
        self.retries = retries
        self.on_invalid = on_invalid
        self.message_length = message_length
        self.render_mode = render_mode
        self.inner = spec.make_env(**options)
        config = getattr(self.inner, "config", None)
        sees = bool(getattr(config, "adviser_sees_hand", True))
        self.table = table_of(self.game, config, adviser_sees_hand=sees)
        self.possible_agents = list(self.inner.possible_agents)
        self.agents = self.possible_agents[:]
        self.observation_spaces = {
            a: spaces.Text(OBSERVATION_CHARS, min_length=1, charset=CHARSET)
            for a in self.possible_agents
        }
        self.action_spaces = {
            a: spaces.Text(reply_length, min_length=0, charset=CHARSET)
            for a in self.possible_agents
        }
        self.np_random, _ = seeding.np_random(None)
        self._started = False

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # -- the AEC API ------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.inner.reset(seed=seed, options=options)
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self._started = True
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.invalid = dict.fromkeys(self.agents, 0)  # every unusable reply, by agent
        self.policy_moves = dict.fromkeys(self.agents, 0)  # moves the policy made for them
        self.forfeit: str | None = None
        self._tries = 0  # unusable replies to the decision on the table
        self._note: str | None = None  # why the last reply was refused
        self._message: str | None = None  # the adviser's words to the captain
        self.last_reply: tuple[str, str, int | None] | None = None
        self.agent_selection = self.inner.agent_selection
        self._update_infos()

    def observe(self, agent: str) -> SeatText:
        if not self._started:
            raise RuntimeError("call reset() before observe()")
        to_act = agent == self.agent_selection and agent in self.agents
        note = self._note if to_act else None
        return SeatText(self._text(agent, note))

    def _text(self, agent: str, note: str | None) -> str:
        # The words render the seat's view of the table (gin_env.seat_view), the one every
        # front end renders: the sheet, this hand's knock limit, the pile in order.
        view = self.inner.table_state.view(self.possible_agents.index(agent))
        if self.forfeit is not None:
            view = replace(view, legal=())
        text = describe(view, self.table, note, self._message)
        return text if len(text) <= OBSERVATION_CHARS else text[: OBSERVATION_CHARS - 3] + "..."

    def step(self, action: str | None) -> None:
        agent = self.agent_selection
        if not self._started:
            raise RuntimeError("call reset() before step()")
        if self.terminations.get(agent) or self.truncations.get(agent):
            if action is not None:
                raise ValueError(f"{agent} is done: step(None) is its only action")
            self._remove_done(agent)
            return
        if not self.agents:
            raise RuntimeError("the episode is over: call reset()")
        numeric = self.inner.observe(agent)
        legal = np.flatnonzero(numeric["action_mask"]).tolist()
        advising = self.game == "three_handed" and bool(numeric["observation"][_ADVISING] > 0.5)
        reply = action
        index = self.possible_agents.index(agent)

        def context() -> ReplyContext:
            """What the reply may point at ("take the 7H", "discard the king"): made only
            when the reply is not a strict move."""
            return reply_context(self.inner.table_state.view(index))

        try:
            if advising:
                move = parse_advice(reply, legal, context)
            else:
                move = parse_reply(reply, legal, self.game, context)
        except ReplyError as err:
            self._refused(
                agent, str(reply) if isinstance(reply, str) else repr(reply), str(err), legal
            )
            return
        self.last_reply = (agent, reply if isinstance(reply, str) else repr(reply), move)
        kept = sanitize(reply, self.message_length) if advising and isinstance(reply, str) else ""
        self._play(agent, move, kept or None)

    def _refused(self, agent: str, reply: str, why: str, legal: list[int]) -> None:
        self.invalid[agent] += 1
        self._tries += 1
        self.last_reply = (agent, reply, None)
        step = self.policy.after(self._tries)
        if step == "reask":
            # The same seat answers again, told why; nothing else changes.
            self._note = self.policy.note(why, self._tries)
            self._zero_rewards(agent)
            self._update_infos()
            return
        if step == "raise":
            raise ValueError(f"{agent}: unusable reply {reply[:200]!r}: {why}")
        if step == "random-legal":
            self.policy_moves[agent] += 1
            self._play(agent, self.policy.fallback(legal, self.np_random), None)
            return
        # forfeit-hand: the hand ends here; the seat that could not reply loses it.
        self.forfeit = agent
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = -1.0
        self._cumulative_rewards[agent] = 0.0
        self.terminations = dict.fromkeys(self.agents, True)
        self._note = None
        for a in self.agents:
            self._cumulative_rewards[a] += self.rewards[a]
        self._update_infos()

    def _zero_rewards(self, agent: str) -> None:
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards[agent] = 0.0

    def _play(self, agent: str, move: int, message: str | None) -> None:
        inner = self.inner
        inner.step(move)
        self._tries = 0
        self._note = None
        # The adviser's words last for the captain's next decision only.
        self._message = message
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: float(inner.rewards[a]) for a in self.agents}
        for a in self.agents:
            self._cumulative_rewards[a] += self.rewards[a]
        self.terminations = {a: bool(inner.terminations[a]) for a in self.agents}
        self.truncations = {a: bool(inner.truncations[a]) for a in self.agents}
        self.agent_selection = inner.agent_selection
        self._update_infos()
        if self.render_mode == "human":
            print(self.render())

    def _remove_done(self, agent: str) -> None:
        # PettingZoo's dead step: the done agent leaves; the next done one is selected.
        for d in (
            self.rewards,
            self._cumulative_rewards,
            self.terminations,
            self.truncations,
            self.infos,
        ):
            d.pop(agent, None)
        self.agents.remove(agent)
        # PettingZoo clears the rewards on a dead step: they were the last move's, and are
        # in the cumulative rewards already.
        self.rewards = dict.fromkeys(self.agents, 0.0)
        done = [a for a in self.agents if self.terminations[a] or self.truncations[a]]
        if done:
            self.agent_selection = done[0]
        elif self.forfeit is None and self.agents:
            self.agent_selection = self.inner.agent_selection

    def _update_infos(self) -> None:
        inner_infos = self.inner.infos
        self.infos = {}
        for a in self.agents:
            info = dict(inner_infos.get(a, {}))
            info["numeric"] = self.inner.observe(a)
            info["invalid_replies"] = self.invalid[a]
            info["policy_moves"] = self.policy_moves[a]
            if self.forfeit is not None:
                info["forfeit"] = self.forfeit
            self.infos[a] = info

    # -- what else an env has ----------------------------------------------------------------
    def stats(self) -> dict[str, dict[str, int]]:
        """Per agent of this episode: ``invalid_replies`` (every unusable reply),
        ``policy_moves`` (fallback moves the policy made for it) and ``forfeits``: what
        ``infos[agent]`` shows, kept also for agents that have left."""
        return {
            a: {
                "invalid_replies": self.invalid[a],
                "policy_moves": self.policy_moves[a],
                "forfeits": int(self.forfeit == a),
            }
            for a in self.invalid
        }

    def legal_moves(self) -> list[str]:
        """The legal moves of the agent to act, in words."""
        mask = self.inner.observe(self.agent_selection)["action_mask"]
        return [move_words(a, self.game) for a in np.flatnonzero(mask).tolist()]

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = self.inner.table_text()
        if self.last_reply is not None:
            who, reply, move = self.last_reply
            used = "refused" if move is None else move_words(move, self.game)
            text += f"\n  last reply: {who} {sanitize(reply, 120)!r} -> {used}"
        return text

    def close(self) -> None:
        self.inner.close()


def env(game: str = "three_handed", **options: Any) -> raw_env:
    """The text env of ``game`` (``"three_handed"``, ``"gin"`` or ``"rummy"``). It checks
    its own order of calls, so it needs none of PettingZoo's wrappers (an illegal reply is
    answered with its reason, not a penalty)."""
    return raw_env(game, **options)
