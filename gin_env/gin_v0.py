"""Two-player gin rummy: the hand underneath the three-handed game, played on its own.

This module is the environment's documentation page. It runs through the same code
as :mod:`gin_env.three_handed_gin_v0`; only the differences are written here.

=====================  =============================================================
Import                 ``from gin_env import gin_v0``
Actions                Discrete(109)
Parallel API           No (turn-based: ``turn_based_aec_to_parallel``, see three_handed_gin_v0)
Agents                 ``agents = ['player_0', 'player_1']``
Observation shape      ``{"observation": (436,) float32, "action_mask": (109,) int8}``
Observation values     [0, 1]
=====================  =============================================================

The game (docs/RULES.md section 4)
-----------------------------
Gin between two players to ``target_score``. The lower card of an initial draw deals
first; then ``dealer_rule`` decides: ``"alternate"`` (default), ``"winner"`` or
``"loser"`` deals next, or ``"alternate_scored"``: the deal alternates after a scored hand
and a dead hand is dealt again by the same dealer (the EAAI-21 challenge's rule); a draw
keeps the dealer under all but ``"alternate"``. The non-dealer has
the first upcard option. ``oklahoma=True`` plays Oklahoma gin: the knock limit is the
upcard's value (ace: gin only) and a spade upcard doubles the hand.

``hollywood=True`` scores three games at once: a player's n-th winning hand counts in
the first n games still open (all of them from his third win on); a game closes when a
player reaches ``target_score`` in it; the match ends when all three are closed and goes
to the player who won two. ``scores`` (in the observation and ``infos``) follow the first
game still open; ``infos`` also carry ``games`` (each game's two scores) and
``game_winners``.

Actions
-------
The ids of :mod:`gin_env.actions` (see ``three_handed_gin_v0``); ``NO_ADVICE`` is never
legal here.

Observation
-----------
The layout of ``three_handed_gin_v0``, with ``role`` one-hot over (dealer, non-dealer,
unused), ``scores`` as (dealer, non-dealer, 0) / target, and ``advising`` and
``suggestion`` always zero.

Rewards (``reward=``)
---------------------
``"team"`` and ``"zero_sum"`` (the same here, default ``"team"``): the scorer ``+p``, the
other ``-p``. ``"individual"``: the scorer ``+p``. ``"match"``: ``+1``/``-1`` at the
match's end. ``p`` is the hand's points times ``reward_scale``.

Options
-------
Rules: ``knock_limit``, ``gin_bonus``, ``undercut_bonus``, ``big_gin_bonus``,
``allow_discard_of_taken_card``, ``max_turns_per_hand``, ``oklahoma``, ``target_score``,
``dealer_rule``, ``hollywood``; and ``reward``, ``reward_scale``, ``episode``
(``"match"`` or ``"hand"``), ``max_hands``, ``render_mode``, ``render_hands``,
``observation`` (``"flat"`` or ``"history"``), ``infos`` (``"readable"`` or
``"numeric"``: role ids dealer 0, non-dealer 1; with ``hollywood`` also ``games`` ``[3, 2]``
and ``game_winners`` ``[3]``, ``-1`` while a game is open) as in ``three_handed_gin_v0``.
Seeds, deals, illegal actions, ``infos`` and the routes into other libraries (the
turn-based Parallel API, TorchRL with ``infos="numeric"``, Tianshou with
``HistoryInObservation``) behave as there.

``state()`` / ``state_space``: the global state as in ``three_handed_gin_v0``, layout
``gin_state_2p_v0`` (``hands``, ``took``, ``discarded`` rows for the two players; roles
one-hot over dealer, non-dealer, unused).

Version history
---------------
- v1 (:mod:`gin_env.gin_v1`): observation layout ``gin_obs_v1``, the rules in view
  appended; v0 stays as it was.
- v0: initial release; ``hollywood`` scoring added later as an option (off by default:
  the default game is unchanged); later still, without changing the observation layout:
  the final observation of an episode shows the hand that ended, ``render_hands``,
  ``observation="history"``, ``state()`` and ``infos="numeric"`` (an option).
- The table in play: the env translates a :class:`gin_env.table_state.TableState`, held as
  ``env.table_state`` (the deal stream, the moves, every seat's view); observations, masks,
  rewards and deals are unchanged. An illegal action raises
  :class:`gin_env.actions.IllegalAction` (a ``ValueError``, as before).
"""

from __future__ import annotations

from typing import Any

from gin_env.aec_tools import wrap
from gin_env.config import GinConfig
from gin_env.gin_aec import GinFamilyEnv, make_config, role_names_for

__all__ = ["env", "raw_env"]


def env(**kwargs: Any) -> Any:
    return wrap(raw_env(**kwargs))


class raw_env(GinFamilyEnv):  # noqa: N801 - PettingZoo's naming
    metadata = {**GinFamilyEnv.metadata, "name": "gin_v0"}
    num_players = 2
    role_names = role_names_for(2)

    config_class = GinConfig

    def __init__(
        self,
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
        self.config = make_config(self.config_class, rules, type(self))
        super().__init__(
            reward, episode, reward_scale, max_hands, render_mode, render_hands,
            observation=observation, infos=infos, **rules,
        )  # fmt: skip
