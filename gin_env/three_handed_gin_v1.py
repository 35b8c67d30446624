"""Three-handed gin, observation layout v1: ``three_handed_gin_v0`` with the rules in view.

Everything is as in :mod:`gin_env.three_handed_gin_v0` (the game, the adviser and its blind
rule, actions, rewards, options, seeds, ``state()``, ``observation="history"``), except
the observation vector, layout ``gin_obs_v1`` (499 entries): the 436 entries of
``gin_obs_v0`` first, unchanged, then the parts listed in :mod:`gin_env.gin_v1`:
``partner_took`` (for the adviser, the cards it saw the captain take from the pile and
still holding: exactly the cards it may suggest discarding when it does not see the hand),
this hand's ``knock_limit`` and ``doubled`` (Oklahoma changes them every hand), the
bonuses, ``target_score``, ``max_turns_per_hand``, ``oklahoma``,
``allow_discard_of_taken_card`` and ``adviser_sees_hand``.

Version history
---------------
- v1: the rules in view appended to the v0 observation (``gin_obs_v1``).
- v0: :mod:`gin_env.three_handed_gin_v0`, still available and unchanged (436 entries).
"""

from __future__ import annotations

from typing import Any

from gin_env import three_handed_gin_v0
from gin_env.aec_tools import wrap

__all__ = ["env", "raw_env", "ADVISER_MODES"]

ADVISER_MODES = three_handed_gin_v0.ADVISER_MODES


def env(**kwargs: Any) -> Any:
    return wrap(raw_env(**kwargs))


class raw_env(three_handed_gin_v0.raw_env):  # noqa: N801 - PettingZoo's naming
    metadata = {**three_handed_gin_v0.raw_env.metadata, "name": "three_handed_gin_v1"}
    obs_version = 1
