# noqa: D212, D415
"""
# Rummy (basic rummy, 2-6 players)

| Import             | `from gin_env import rummy_v0`                         |
|--------------------|--------------------------------------------------------|
| Actions            | Discrete                                               |
| Parallel API       | No (turn-based: `turn_based_aec_to_parallel`, below)   |
| Manual Control     | No                                                     |
| Agents             | `agents= ['player_0', ..., 'player_{n-1}']`            |
| Agents             | 2-6 (`num_players`, default 2)                         |
| Action Shape       | (1)                                                    |
| Action Values      | [0, 526]                                               |
| Observation Shape  | (640 + 109 (n - 2),) : 640, 749, 858, 967, 1076        |
| Observation Values | [0, 1]                                                 |

Basic rummy as in docs/RULES.md section 5: deal 10 cards each with 2 players, 7 with 3-4 and
6 with 5-6; on his turn a player draws from the stock or takes the top discard, lays down
any number of melds (sets of 3-4 cards of a rank, runs of 3+ cards of a suit) and lays off
cards onto any meld on the table (anyone's), then discards. The first to get rid of all
his cards wins the hand and every other player pays him the pips left in his hand, double
if he went out "rummy" (in one turn, having melded and laid off nothing before). The rules
live in :mod:`gin_env.rummy`; this module only translates them to PettingZoo.

A turn is a sequence of decisions by the same agent (draw, then melds and lay-offs, then a
discard), so the same agent may act several times in a row. ``player_0`` plays first in
the first hand (``player_{n-1}`` deals); with 2 players the winner deals the next hand,
with more the deal passes left (to the next player).

### Observation Space

`{"observation": Box(0, 1, (size,), float32), "action_mask": Box(0, 1, (527,), int8)}`.
The mask is all zeros for every agent but the one to act. The observation is from the
observer's seat; per-seat parts are in relative order: row 0 is the observer, row 1 the
player to his left (who plays next), and so on. `gin_env.rummy_encoding.views(obs)`
returns the named parts.

| part              | size   | meaning                                                         |
|-------------------|--------|-----------------------------------------------------------------|
| `hand`            | 52     | own cards (card = suit * 13 + rank, suits S H D C, rank 0 = ace)|
| `taken_card`      | 52     | one-hot: the card taken from the discard pile this turn (1)     |
| `top_discard`     | 52     | one-hot: top of the discard pile                                |
| `discard_pile`    | 52     | every card in the discard pile                                  |
| `stock_known`     | 52     | cards of a turned-over discard pile still in the stock          |
| `table_sets`      | 52     | cards on the table in sets                                      |
| `table_runs`      | 52     | cards on the table in runs                                      |
| `melds_by_owner`  | n x 52 | cards in the melds each seat laid down, lay-offs included       |
| `known_held`      | n x 52 | cards each opponent is known to hold (2); row 0 is all zeros    |
| `pile_order`      | 52     | place of each card in the discard pile from the bottom / 52 (3) |
| `phase`           | 3      | one-hot: draw, play (meld / lay off / discard), over            |
| `hand_sizes`      | n      | cards in each hand / (deal size + 1)                            |
| `melded_before`   | n      | 1 when the seat melded or laid off on an earlier turn (4)       |
| `dealer`          | n      | one-hot: the dealer                                             |
| `to_act`          | n      | one-hot: the seat to act (0 when the hand is over)              |
| `scores`          | n      | match scores / `target_score`, capped at 1 (0 without a target) |
| `stock_size`      | 1      | cards in the stock / 52                                         |
| `turn`            | 1      | turns played this hand / `max_turns`                            |
| `ace_high_or_low` | 1      | 1 when the option is on                                         |

(1) It may not be discarded this turn; zeros for the other seats. (2) Cards they took from
the discard pile, or drew from a turned-over (hence known) stock, and still hold. (3) The
order matters: a turned-over pile becomes the stock in that order. (4) Such a seat can no
longer go out with rummy.

### Action Space

`Discrete(527)`, the same for every agent and every option (see `gin_env.rummy_actions`).

| ids     | action          | meaning                                                          |
|---------|-----------------|------------------------------------------------------------------|
| 0       | `DRAW_STOCK`    | draw the top of the stock (1)                                    |
| 1       | `TAKE_DISCARD`  | take the top of the discard pile (not discardable this turn)     |
| 2-53    | `DISCARD` c     | discard card c; discarding the last card goes out                |
| 54-422  | `MELD` m        | lay down meld `MELDS[m]` (2)                                     |
| 423-474 | `LAY_OFF_SET` c | lay off card c onto the three-card set of its rank               |
| 475-526 | `LAY_OFF_RUN` c | lay off card c onto a run it extends (a chain: one after another) |

(1) With an empty stock, the discard pile is first turned over, unshuffled, as the new
stock (its oldest card on top). (2) `MELDS` is the meld list of `MeldTable(ace_high=True)`:
every run and set of either ace convention; the 40 runs with the ace above the king are
legal only with `ace_high_or_low`, so the action space does not depend on the options.

There is no "go out" action: emptying the hand goes out, with or without a final discard.
A meld or lay-off that would leave only the card just taken from the discard pile, with
nowhere to lay it off, is illegal (the player could not finish his turn).

### Rewards

Per-hand points, zero-sum: when a player goes out, he receives the sum of the pips left
in the other hands (ace 1, 2-10 face value, J Q K 10), and each other player receives minus
his own pips; both doubled for rummy. A hand truncated after `max_turns` turns gives 0 to
everyone. With `target_score` the rewards of every hand of the match arrive as each hand
ends. An illegal action through `env()` ends the game with -1 for the agent who made it
(PettingZoo's `TerminateIllegalWrapper`); `raw_env.step` raises `ValueError` instead
(also for an action that is not an int), changing nothing.

### Options

| option            | default | meaning                                                        |
|-------------------|---------|----------------------------------------------------------------|
| `num_players`     | 2       | 2-6 players                                                    |
| `ace_high_or_low` | False   | the ace may also end a run Q-K-A (never K-A-2)                 |
| `max_turns`       | 500     | a hand with no winner after this many turns is truncated       |
| `target_score`    | None    | None: an episode is one hand; else a match up to this score    |
| `render_mode`     | None    | "ansi" (returns the table as text), "human" (prints it), or    |
|                   |         | "rgb_array" (a picture, needs Pillow)                          |
| `render_hands`    | "none"  | hands the rendering shows face up before the hand ends: "none" |
|                   |         | (an onlooker), "all", or an agent's name (its own hand)        |

`reset(seed=..., options={"deck": [52 card ints]})` plays that deck for the first hand:
`deck[0:n*k]` dealt one at a time starting with `player_0`, then the upcard, then the stock
from the top. The sequence of decks depends on the seed alone, never on the actions (the
first deck is drawn, and dropped, even when a deck is given). A seed below `2**63` deals as
it always has; a larger one (the web table's 128-bit secret) seeds the decks from every one
of its bits (`gin_env.table_state.deck_generator`). `"deck": None` means no deck.
A bad deck (not 52 distinct ints 0..51: a float, a string, a duplicate, a wrong length) is a
`ValueError` naming the bad card, raised before anything changes (the game in progress and
the seed stay as they were). Other option keys are ignored.

`state()` / `state_space` (PettingZoo's global state, for centralized critics; never part
of an observation): a `float32` vector in [0, 1] of layout `rummy_state_{n}p_v0`
(`gin_env.rummy_encoding.state_parts`, named by `state_views`): every hand, the cards
the others saw go into each hand, the melds by owner, the stock as a set and in order, the
pile in order, known stock cards, table sets and runs, the taken card, phase, seat to act,
dealer, scores, who melded before, the turn.

`infos[agent]` is empty except just after a hand ends: then `"hand_result"` holds the
winner's agent (None if truncated), the payments by agent, `"rummy"` and `"truncated"`
(in a match it is cleared by the next step).

Other libraries (as `gin_env.three_handed_gin_v0` describes):
`pettingzoo.utils.conversions.turn_based_aec_to_parallel(rummy_v0.env())` is a Parallel
env (passing `parallel_api_test`) that plays the action of the one agent to act; TorchRL's
`PettingZooWrapper(env=rummy_v0.env(), use_mask=True)` wraps it as is (its infos are empty
at reset, so TorchRL keeps none).

### Version History

* v0: Initial release. Later, without changing observations, masks, rewards or deals: the
  env translates the table in play (`gin_env.table_state.TableState`, held as
  `env.table_state`), offers `legal_actions()` as the gin envs do, and an illegal action
  raises `gin_env.actions.IllegalAction` (a `ValueError`, as before).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv

from gin_env import rummy_encoding
from gin_env.aec_tools import (
    RENDER_MODES,
    ActionSpace,
    AgentSpaces,
    StatePickle,
    TableRender,
    TurnChecks,
    check_options,
    check_render_hands,
    wrap,
)
from gin_env.cards import card_str, cards_str
from gin_env.config import check_option_names
from gin_env.gin_aec import env_option_names
from gin_env.hand import check_deck
from gin_env.optional import require
from gin_env.render_image import rummy_table_image
from gin_env.rummy import Phase, RummyConfig, RummyGame
from gin_env.rummy_actions import NUM_ACTIONS, action_str
from gin_env.rummy_encoding import action_mask, encode_observation, observation_size
from gin_env.table_state import TableState

__all__ = ["env", "raw_env"]


def env(**kwargs: Any) -> AECEnv:
    """``raw_env`` with PettingZoo's standard wrappers, as the classic envs use them."""
    return wrap(raw_env(**kwargs))


class raw_env(TurnChecks, AgentSpaces, TableRender, StatePickle, AECEnv, EzPickle):  # noqa: N801
    """Basic rummy for 2-6 players as a PettingZoo AEC env (see the module docstring)."""

    metadata = {
        "name": "rummy_v0",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
        "render_fps": 2,
    }
    #: The table (:class:`~gin_env.config.RummyConfig`), kept as ``config``.
    config_class = RummyConfig

    def __init__(
        self,
        num_players: int = 2,
        ace_high_or_low: bool = False,
        max_turns: int = 500,
        target_score: int | None = None,
        render_mode: str | None = None,
        render_hands: str = "none",
        **unknown: Any,
    ) -> None:
        check_option_names(unknown, {"the env's": env_option_names(type(self))}, "rummy_v0")
        EzPickle.__init__(
            self,
            num_players=num_players,
            ace_high_or_low=ace_high_or_low,
            max_turns=max_turns,
            target_score=target_score,
            render_mode=render_mode,
            render_hands=render_hands,
        )
        super().__init__()
        self.config = RummyConfig(num_players, ace_high_or_low, max_turns, target_score)
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(
                f"render_mode must be one of None, 'human', 'ansi', 'rgb_array', "
                f"got {render_mode!r}"
            )
        if render_mode == "rgb_array":
            require("PIL", needed_for='render_mode="rgb_array"')
        self.render_mode = render_mode
        self.num_players = num_players
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.render_hands = check_render_hands(render_hands, self.possible_agents)
        self.agents = self.possible_agents[:]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        size = observation_size(num_players)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (size,), np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
            }
        )
        act_space = ActionSpace(NUM_ACTIONS)
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, act_space)
        #: PettingZoo's global state (:meth:`state`), layout ``rummy_state_{n}p_v0``.
        self.state_layout = f"rummy_state_{num_players}p_v0"
        self.state_space = spaces.Box(
            0.0, 1.0, (rummy_encoding.state_size(num_players),), np.float32
        )
        self.np_random, _ = seeding.np_random(None)
        #: The table in play (:class:`~gin_env.table_state.TableState`), from ``reset``.
        self.table_state: TableState | None = None
        self._idle = RummyGame(self.config)  # what ``game`` is before the first reset
        self._hand_info_shown = False
        self.last_action: tuple[str, int] | None = None

    # -- the AEC API ------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        # A bad deck is refused before anything changes (the game, the seed); None is no deck.
        given = None
        options = check_options(options)
        if options.get("deck") is not None:
            given = check_deck(options["deck"])
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        # The decks come from the table in play's own generator, drawn only at deals: they
        # depend on the seed alone, whatever the agents do.
        self.table_state = TableState(
            self.config, seed, deck=given, np_random=self.np_random, name=str(self.metadata["name"])
        )
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.last_action = None
        self._hand_info_shown = False
        self.agent_selection = self.possible_agents[self.game.current]
        if self.render_mode == "human":
            self.render()

    @property
    def game(self) -> RummyGame:
        """The engine of the table in play, for the env module (everyone else holds
        :attr:`table_state`)."""
        if self.table_state is None:
            return self._idle
        assert self.table_state.game is not None
        return self.table_state.game

    def legal_actions(self) -> list[int]:
        """Legal action ids of the agent to act (a fresh list), as the gin envs give them."""
        return [] if self.table_state is None else self.table_state.legal_actions()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        self._check_order("observe")
        seat = self._seat_of(agent, self._seat)
        obs = encode_observation(self.game, seat)
        if self._to_act(agent) and self.game.phase != Phase.OVER:
            mask = action_mask(self.game.legal_actions())
        else:
            mask = np.zeros(NUM_ACTIONS, np.int8)
        return {"observation": obs, "action_mask": mask}

    def state(self) -> np.ndarray:
        """The global state (for centralized critics; never part of an observation): every
        hand, the stock as a set and in order, the pile in order, the table's melds by owner,
        scores, phase, the seat to act. Layout: ``gin_env.rummy_encoding.state_parts``
        (``state_views`` names the parts)."""
        self._check_order("state")
        return rummy_encoding.encode_state(self.game)

    def step(self, action: int | None) -> None:
        checked = self._dead_step(action)
        if checked is None:
            return
        action = checked
        agent = self.agent_selection
        assert self.table_state is not None
        game = self.game
        # The engine raises on an illegal action before it changes anything; a hand that
        # ends a match still going on is followed by the next deal (its result returned).
        result = self.table_state.apply(action)
        if self._hand_info_shown:  # a hand result is news for one step only
            self.infos = {a: {} for a in self.agents}
            self._hand_info_shown = False
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.last_action = (agent, action)
        if result is not None:
            self._end_hand(result)
        else:
            self.agent_selection = self.possible_agents[game.current]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _end_hand(self, result: Any) -> None:
        game = self.game
        agents = self.possible_agents
        for seat, paid in enumerate(result.payments):
            self.rewards[agents[seat]] = float(paid)
        hand_result = {
            "winner": None if result.winner is None else agents[result.winner],
            "payments": {agents[s]: p for s, p in enumerate(result.payments)},
            "rummy": result.rummy,
            "truncated": result.truncated,
        }
        for a in self.agents:
            self.infos[a] = {"hand_result": hand_result}
        self._hand_info_shown = True
        if self.config.target_score is None:
            done = self.truncations if result.truncated else self.terminations
            done.update(dict.fromkeys(self.agents, True))
        elif game.match_over:
            self.terminations = dict.fromkeys(self.agents, True)
        else:  # the table in play dealt the next hand
            self.agent_selection = agents[game.current]

    # -- rendering --------------------------------------------------------------------------
    def _table_image(self) -> np.ndarray:
        return rummy_table_image(self, view=self.render_hands)

    def face_up(self, view: str) -> set[int]:
        """Seats whose hands ``view`` (``"none"``, ``"all"`` or an agent) shows face up."""
        check_render_hands(view, self.possible_agents)
        if view == "none":
            return set()
        return set(range(self.num_players)) if view == "all" else {self._seat[view]}

    def table_text(self, show_all: bool = False, view: str = "none") -> str:
        """The table as an onlooker sees it: ``show_all`` also shows the hidden hands;
        ``view`` (a ``render_hands`` value) shows one seat's own hand."""
        faces = self.face_up(view)
        game = self.game
        over = game.phase == Phase.OVER
        lines = [
            f"Hand {game.hand_number}   turn {game.turns}   stock {len(game.stock)}   "
            f"discard pile: {' '.join(map(card_str, game.discard_pile)) or '-'}"
        ]
        for seat, agent in enumerate(self.possible_agents):
            hand = game.hands[seat]
            face = show_all or over or seat in faces
            shown = cards_str(hand) if face else f"{hand.bit_count()} cards"
            tags = (" (dealer)" if seat == game.dealer else "") + (
                " <- to act" if seat == game.current and not over else ""
            )
            melds = " | ".join(cards_str(m.cards) for m in game.table if m.owner == seat)
            score = f"  score {game.scores[seat]}" if self.config.target_score else ""
            lines.append(f"  {agent:9}{score}  hand: {shown}  melds: {melds or '-'}{tags}")
        if self.last_action is not None:
            who, act = self.last_action
            lines.append(f"  last action: {who} {action_str(act)}")
        result = game.results[-1] if game.results else None
        if result is not None and (over or game.hand_number > 1):
            if result.winner is None:
                lines.append(f"  hand {len(game.results)}: no winner after {result.turns} turns")
            else:
                rummy = " with rummy (double)" if result.rummy else ""
                pays = ", ".join(
                    f"{self.possible_agents[s]} {p:+d}" for s, p in enumerate(result.payments)
                )
                lines.append(
                    f"  hand {len(game.results)}: {self.possible_agents[result.winner]} "
                    f"went out{rummy}: {pays}"
                )
        return "\n".join(lines)
