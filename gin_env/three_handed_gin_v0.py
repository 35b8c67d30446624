"""Three-handed gin rummy: the box player alone against a captain and his adviser.

This module is the environment's documentation page.

=====================  =============================================================
Import                 ``from gin_env import three_handed_gin_v0``
Actions                Discrete(109)
Parallel API           No (turn-based: ``turn_based_aec_to_parallel``, below)
Agents                 ``agents = ['player_0', 'player_1', 'player_2']``
Action shape           (1,)
Action values          Discrete(109)
Observation shape      ``{"observation": (436,) float32, "action_mask": (109,) int8}``
Observation values     [0, 1]
=====================  =============================================================

The game (docs/RULES.md section 3)
-----------------------------
Before the first hand each player draws a card: the highest rank is **in the box**,
the middle one is the **captain**, the lowest sits out as the captain's **adviser**
(ties draw again). Every hand is a two-player gin hand, box (dealer) against captain
(non-dealer, who has the upcard option). After a box win the box stays and the captain
and adviser swap; after a box loss the box player becomes adviser, the captain goes into
the box and the adviser becomes captain; after a draw the roles stay. Scores are
individual; the adviser never scores; the first player to ``target_score`` wins.

With ``adviser="suggest"`` the adviser acts just before every captain decision: it
chooses one of the captain's legal actions as a suggestion (under the blind rule below,
one of the moves it can know of), or ``NO_ADVICE`` (id 3). The captain then sees the
suggestion in its observation and decides.

**Adviser blind rule** (``adviser_sees_hand=False``): the adviser cannot see the captain's
hand, so no channel may reveal it (observation, action mask, ``infos``, render). Its legal
suggestions are then only what it can know: ``NO_ADVICE``; in the upcard offer
``TAKE_DISCARD`` and ``PASS``; in the draw phase the captain's legal draws, which are
public (``DRAW_STOCK`` alone after both passed the upcard); in the discard phase
``DISCARD c`` only for the cards it saw the captain take from the discard pile and still
holding (not the card taken this turn unless ``allow_discard_of_taken_card``); never
``KNOCK`` or ``BIG_GIN``, whose legality depends on the hidden hand. So every blind
suggestion is legal for the captain. A suggestion is advice: the captain may do anything
legal. With ``adviser_sees_hand=True`` (default) the suggestions are the captain's legal
ids plus ``NO_ADVICE``. (docs/RULES.md section 3.)

Actions
-------
One ``Discrete(109)`` space for every agent (:mod:`gin_env.actions`):

======  ================================================================
id      meaning
======  ================================================================
0       ``DRAW_STOCK``: draw the top card of the stock
1       ``TAKE_DISCARD``: take the upcard / the top of the discard pile
2       ``PASS``: decline the upcard during the upcard offer
3       ``NO_ADVICE``: the adviser suggests nothing
4+c     ``DISCARD`` card ``c``
56+c    ``KNOCK``, discarding card ``c`` (gin when no deadwood is left)
108     ``BIG_GIN``: lay down 11 melded cards (only with ``big_gin_bonus``)
======  ================================================================

Cards are ``suit * 13 + rank`` (rank 0 = ace .. 12 = king; suits S, H, D, C). The
``action_mask`` marks the legal ids of the agent to act and is all zeros for the others.
The showdown after a knock is resolved automatically and optimally (the defender
minimises his deadwood with melds and lay-offs, the knocker picks the arrangement that
maximises his result), so there are no lay-off actions.

Observation
-----------
A flat ``float32`` vector from the observer's own seat, filled through named parts
(``gin_env.encoding.views(obs)`` returns them):

==================  =====  ===========================================================
part                size   meaning
==================  =====  ===========================================================
role                3      one-hot: box, captain, adviser
phase               5      one-hot: upcard (non-dealer), upcard (dealer), draw, discard, over
advising            1      1 when the adviser is to suggest the captain's next action
hand                52     own cards (the adviser: the captain's, if ``adviser_sees_hand``)
top_discard         52     one-hot: the upcard / top of the discard pile
discard_pile        52     every card in the discard pile
opponent_took       52     cards the opponent took from the discard pile and still holds
opponent_discarded  52     cards the opponent discarded
partner_discarded   52     cards the observed hand discarded
stock_size          1      cards left in the stock / 31
deadwood            1      deadwood of ``hand`` / 128
turn                1      turns played this hand / ``max_turns_per_hand``
scores              3      scores by role (box, captain, adviser) / target, capped at 1
suggestion          109    one-hot: the adviser's suggestion (captain only)
==================  =====  ===========================================================

The opponent is the other playing seat: the captain for the box, the box for the
captain and the adviser. No card of the opponent's hidden hand ever appears, except
cards it took from the discard pile.

The layout's id is ``gin_obs_v0`` (the env's ``observation_layout``;
``gin_env.encoding.LAYOUTS`` lists every layout's size and parts by id). Version v1 of
the env (:mod:`gin_env.three_handed_gin_v1`) appends the rules in view.

Move history (``observation="history"``)
----------------------------------------
``observation="flat"`` (default) gives the dict above. ``observation="history"`` adds two
keys: ``history``, ``float32 (64, 63)``, the last 64 moves of the hand on the table,
oldest first, and ``history_mask``, ``int8 (64,)``, 1 for a real move and 0 for padding.
Each move's row (``gin_env.encoding.HISTORY_PARTS``):

=======  =====  ==============================================================
part     size   meaning
=======  =====  ==============================================================
who      3      one-hot: the mover relative to the observer (0 self, 1 the next
                player, 2 the one after; player order ``player_0, player_1, ...``)
advice   1      1 for the adviser's suggestion (not a move of the hand)
kind     7      one-hot: draw_stock, take_discard, pass, no_advice, discard,
                knock, big_gin
card     52     one-hot: the card moved, when the observer may see it
=======  =====  ==============================================================

What stays hidden: a card drawn from the stock is seen only by the drawer (and by an
adviser who sees the captain's hand, for the captain's draws); the box player sees that
the adviser advised, but not what (``kind`` and ``card`` zero). Takes and discards are
public. The history restarts with each hand.

Global state (``state()``, ``state_space``)
-------------------------------------------
PettingZoo's ``state()`` returns the whole position for centralized training (a critic
that sees every hand): a ``float32`` vector in [0, 1] of layout ``gin_state_3p_v0``
(``gin_state_2p_v0`` for ``gin_v0``; the env's ``state_layout``), by player index:
``hands``, ``took``, ``discarded`` (one 52-card row per player), ``stock`` (set) and
``stock_order`` ((place from the top + 1) / 31), ``discard_pile`` and ``pile_order``
((place from the bottom + 1) / 52), ``upcard``, ``taken`` (this turn), ``roles`` (one-hot
per player), ``scores`` / target, ``phase``, ``to_act``, ``advising``, ``suggestion``,
``must_draw_stock``, ``passed_upcard`` (non-dealer, dealer), ``turn``, ``knock_limit``,
``doubled``. ``gin_env.encoding.state_views(state, num_players)`` names the parts. It is
never part of any agent's observation. (Hollywood's three game scores are in ``infos``.)

Rewards (``reward=``)
---------------------
Given at the step where a hand (or, for ``"match"``, the match) ends, to every agent,
whoever acted last. ``p`` is the hand's points times ``reward_scale``.

==============  =================================================================
``"team"``      (default) box ``+p`` / captain ``-p`` when the box scores, the reverse
                when the captain scores; the adviser gets what the captain gets.
                Zero-sum between the box and the captain's team.
``"zero_sum"``  as ``"team"`` but the captain and adviser each get half: the three
                rewards sum to zero.
``"individual"`` the scorer gets ``+p``, everyone else 0 (the scores as the rules count).
``"match"``     at the match's end, ``+1`` to the winner and ``-1/2`` to each other.
==============  =================================================================

A draw gives 0. ``infos[agent]`` holds ``role``, ``scores``, ``hand_over`` and, once a
hand has ended, ``hand_result`` (kind, points, winner, knocker, roles during the hand).

``infos="numeric"`` gives the same facts as numbers under the same keys at every step, for
libraries that turn every info value into a tensor (TorchRL, below): ``role`` (the role id,
an index into ``role_names``: box 0, captain 1, adviser 2), ``scores`` (int array),
``hand_over``, and the last hand's ``hand_kind`` (index into
``gin_env.hand.HAND_KINDS``: knock, undercut, gin, big_gin, draw), ``hand_points``,
``hand_winner`` and ``hand_knocker`` (player ids), ``hand_roles`` (each player's role id
in that hand), all ``-1`` (points 0) before a hand has ended. The default,
``infos="readable"``, keeps names and the ``hand_result`` dict for people reading them.

Options
-------
``env(**options)`` / ``raw_env(**options)``:

- rules: ``knock_limit`` (10; 0..10), ``gin_bonus`` (25), ``undercut_bonus`` (10),
  ``big_gin_bonus`` (None), ``allow_discard_of_taken_card`` (False),
  ``max_turns_per_hand`` (200), ``oklahoma`` (False), ``target_score`` (100);
- ``adviser``: ``"suggest"`` (default) or ``"none"`` (no adviser turns);
- ``adviser_sees_hand``: True (default): the adviser sees the captain's hand;
- ``reward``: ``"team"``, ``"zero_sum"``, ``"individual"``, ``"match"``; ``reward_scale`` (1.0);
- ``episode``: ``"match"`` (default) or ``"hand"`` (one hand per episode);
- ``max_hands``: None, or truncate the episode after this many hands;

When an episode ends (``episode="hand"``, the match's end, or the ``max_hands`` cut), the
hand that ended stays on the table: ``observe()`` after the last step shows it (phase
over, the final cards), and no further hand is dealt until ``reset()``. Within a match,
the next hand is dealt at the step that ends the previous one.
- ``render_mode``: None, ``"ansi"`` (returns text), ``"human"`` (prints),
  ``"rgb_array"`` (a picture of the table);
- ``observation``: ``"flat"`` (default) or ``"history"`` (adds the move history, above);
- ``infos``: ``"readable"`` (default) or ``"numeric"`` (above; for TorchRL);
- ``render_hands``: which hands the rendering (text and picture) shows face up before the
  hand ends: ``"none"`` (default: an onlooker's view, card counts and backs), ``"all"``
  (every hand, for watching or debugging), or an agent's name such as ``"player_0"`` (what
  that seat knows: its own hand; the adviser, the captain's hand only with
  ``adviser_sees_hand``; the box never sees the adviser's suggestion). Every hand is
  shown once it is over.

A bad value raises ``ValueError`` naming the option and its allowed values.

Seeds and deals
---------------
``reset(seed=...)`` seeds the env; the sequence of decks depends on the seed alone,
never on the actions, so two runs with one seed see the same deals. A seed below ``2**63``
deals as it always has (the decks' generator is seeded from 63 bits drawn from
``np_random``); a larger seed (the web table's 128-bit secret) seeds the decks from every
one of its bits (``gin_env.gin_aec.deck_generator``), so seeds that differ only above bit
63 deal differently.
``reset(options={"deck": [52 card ints]})`` plays that deck for the first hand;
``"deck": None`` means no deck. A bad deck (not 52 distinct ints 0..51: a float, a string,
a duplicate, a wrong length) is a ``ValueError`` naming the bad card, raised before
anything changes (the seed and the game in progress stay as they were). Other keys of
``options`` are ignored.

``step``, ``last`` or ``observe`` before ``reset()``, and ``step`` or ``last`` once every
agent is done, raise a ``RuntimeError`` that says to call ``reset()`` (raw and wrapped
alike; ``observe`` after the end still returns the final observation).
``raw_env.step`` raises ``ValueError`` on an illegal action (naming it and what is legal),
or on one that is not an int (``3.5`` is not ``3``), and changes nothing; ``env()`` adds
PettingZoo's standard wrappers, under which an illegal action ends the game with reward -1
for the agent who made it. (They are subclassed only to read the env's attributes through
properties instead of a chain of ``__getattr__`` calls, which halves the cost of a step;
see ``gin_env.gin_aec.wrap``.)

Other libraries
---------------
The env follows the AEC API; every env of the package (``gin_v0``, ``gin_v1``,
``three_handed_gin_v1``, ``rummy_v0``) takes the same routes, tested in
``tests/test_torchrl.py`` and ``tests/test_parallel_and_history_routes.py``.

- **Parallel API**: the game is turn-based (one agent acts at a time), so there is no
  native ``parallel_env``; PettingZoo's conversion gives one, which passes
  ``parallel_api_test``::

      from pettingzoo.utils.conversions import turn_based_aec_to_parallel
      penv = turn_based_aec_to_parallel(three_handed_gin_v0.env())

  Each ``step`` takes a dict of actions for every agent and plays only the one of the agent
  to act (the agent whose ``action_mask`` has a legal id; the others' masks are all zeros
  and their actions are ignored).
- **TorchRL** (and BenchMARL on it; ``pip install "gin-env[torchrl]"``)::

      from torchrl.envs import PettingZooWrapper
      env = PettingZooWrapper(env=three_handed_gin_v0.env(infos="numeric"), use_mask=True)

  ``infos="numeric"`` is needed: TorchRL makes a tensor of every info value under the keys
  it saw at reset (``role="box"`` and the ``hand_result`` dict would fail). Basic rummy's
  infos are empty at reset and it wraps as is.
- **Tianshou** (``tianshou.env.PettingZooEnv``) keeps only ``obs["observation"]`` and the
  mask, so ``observation="history"`` alone loses the history there. Move the history into
  the flat vector first: ``PettingZooEnv(HistoryInObservation(three_handed_gin_v0.env(
  observation="history")))`` (:class:`gin_env.aec_tools.HistoryInObservation`: the 436
  entries, then the 64 x 63 history row by row, then the 64-entry history mask).
- **Gymnasium / stable-baselines3**: :mod:`agents.single_agent` (one learner against
  policies; ``gymnasium.make("gin_env/ThreeHandedGin-v0")``); RLlib:
  ``training.rllib_env``.

Version history
---------------
- v1 (:mod:`gin_env.three_handed_gin_v1`): observation layout ``gin_obs_v1``, the rules
  in view appended; v0 stays as it was.
- v0: initial release. Later, without changing the observation layout: the adviser blind
  rule, the final observation of an episode showing the hand that ended,
  ``render_hands``, ``observation="history"`` and ``state()``; the blind adviser no longer
  offered ``TAKE_DISCARD`` when the captain must draw from the stock (after both passes);
  ``infos="numeric"`` (an option: the default infos are unchanged).
- The table in play: the env translates a :class:`gin_env.table_state.TableState`, held as
  ``env.table_state`` (the deal stream, the moves, every seat's view); observations, masks,
  rewards and deals are unchanged. An illegal action raises
  :class:`gin_env.actions.IllegalAction` (a ``ValueError``, as before).
"""

from __future__ import annotations

from typing import Any

from gin_env.aec_tools import wrap
from gin_env.config import ADVISER_MODES, ThreeHandedConfig
from gin_env.gin_aec import GinFamilyEnv, make_config, role_names_for
from gin_env.match import BOX, HandRecord, side_points

__all__ = ["env", "raw_env", "ADVISER_MODES"]


def env(**kwargs: Any) -> Any:
    return wrap(raw_env(**kwargs))


class raw_env(GinFamilyEnv):  # noqa: N801 - PettingZoo's naming
    metadata = {**GinFamilyEnv.metadata, "name": "three_handed_gin_v0"}
    num_players = 3
    role_names = role_names_for(3)
    config_class = ThreeHandedConfig

    def __init__(
        self,
        adviser: str = "suggest",
        adviser_sees_hand: bool = True,
        reward: str = "team",
        episode: str = "match",
        reward_scale: float = 1.0,
        max_hands: int | None = None,
        render_mode: str | None = None,
        render_hands: str = "none",
        observation: str = "flat",
        infos: str = "readable",
        **rules: Any,
    ) -> None:
        # The adviser's options are the table's (rules of the three-handed game).
        self.config = make_config(
            self.config_class,
            {**rules, "adviser": adviser, "adviser_sees_hand": adviser_sees_hand},
            type(self),
        )
        super().__init__(
            reward, episode, reward_scale, max_hands, render_mode, render_hands,
            observation=observation, infos=infos, adviser=adviser,
            adviser_sees_hand=adviser_sees_hand,
            **rules,
        )  # fmt: skip

    def _side_rewards(self, record: HandRecord, scorer: int, points: float) -> dict[str, float]:
        sides = side_points(record.roles, scorer, points)
        # zero_sum: the team's two members share its side, so the three rewards add to 0.
        share = 0.5 if self.options.reward == "zero_sum" else 1.0
        return {
            self._agent(p): side if role == BOX else side * share
            for p, (role, side) in enumerate(zip(record.roles, sides, strict=True))
        }
