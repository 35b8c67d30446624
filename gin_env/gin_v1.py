"""Two-player gin, observation layout v1: ``gin_v0`` with the rules in view.

Everything is as in :mod:`gin_env.gin_v0` (the game, actions, rewards, options, seeds,
``state()``), except the observation vector, layout ``gin_obs_v1``
(:data:`gin_env.encoding.OBS_SIZE_V1` = 499 entries): the 436 entries of ``gin_obs_v0``
first, unchanged, then

==========================  =====  ======================================================
part                        size   meaning
==========================  =====  ======================================================
partner_took                52     cards the observed hand took from the pile, still held
knock_limit                 1      this hand's knock limit / 10 (Oklahoma: the upcard's)
doubled                     1      1 when this hand's points are doubled (spade upcard)
gin_bonus                   1      log(1 + bonus) / log(1001)
undercut_bonus              1      log(1 + bonus) / log(1001)
big_gin_bonus               1      log(1 + bonus) / log(1001); 0 when big gin is off
big_gin_on                  1      1 when big gin is played
target_score                1      log(1 + target) / log(100001)
max_turns_per_hand          1      log(1 + turns) / log(100001)
oklahoma                    1      1 when Oklahoma gin is played
allow_discard_of_taken_card 1      1 when the option is on
adviser_sees_hand           1      always 0 here (three-handed only)
==========================  =====  ======================================================

so one network can play correctly under any rules. ``gin_env.encoding.views(obs)`` names
the parts of either layout; ``gin_env.encoding.LAYOUTS`` gives every layout's size and
parts by id, and the env's ``observation_layout`` attribute its id.

Options are those of ``gin_v0``, including ``observation="history"`` (the move history as
extra keys, see ``three_handed_gin_v0``).

Version history
---------------
- v1: the rules in view (the parts above) appended to the v0 observation.
- v0: :mod:`gin_env.gin_v0`, still available and unchanged (436 entries).
"""

from __future__ import annotations

from typing import Any

from gin_env import gin_v0
from gin_env.aec_tools import wrap

__all__ = ["env", "raw_env"]


def env(**kwargs: Any) -> Any:
    return wrap(raw_env(**kwargs))


class raw_env(gin_v0.raw_env):  # noqa: N801 - PettingZoo's naming
    metadata = {**gin_v0.raw_env.metadata, "name": "gin_v1"}
    obs_version = 1
