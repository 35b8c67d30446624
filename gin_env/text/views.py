"""A seat's observation read as facts for the words (:mod:`gin_env.text.words`).

Everything comes from the seat's own observation dict (vector and action mask, the
layouts of :mod:`gin_env.encoding` and :mod:`gin_env.rummy_encoding`) and the table's
rules, so the words can never say more than the seat may see; the adviser's message is
the one thing added, and only to the captain.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, is_dataclass
from typing import Any

import numpy as np

from gin_env import rummy_encoding
from gin_env.config import HandRules
from gin_env.config import Table as GameTable
from gin_env.encoding import FULL_STOCK, OBS_SIZE, OBS_SIZE_V1, OBS_SLICES
from gin_env.text.words import GAMES, GinFacts, RummyFacts, Table, describe

__all__ = ["table_of", "game_of", "facts", "seat_text"]

_S = OBS_SLICES
_RUMMY_SLICES = {n: rummy_encoding.obs_slices(n) for n in range(2, 7)}
_CARDS_FROM = _S["hand"].start
_ALL = (1 << 52) - 1
_PARTS = ("hand", "top_discard", "discard_pile", "opponent_took", "opponent_discarded",
          "partner_discarded")  # fmt: skip
assert all(_S[p].start == _CARDS_FROM + 52 * i for i, p in enumerate(_PARTS))
_RULE_NAMES = (
    "knock_limit", "gin_bonus", "undercut_bonus", "big_gin_bonus",
    "allow_discard_of_taken_card", "max_turns_per_hand", "oklahoma", "target_score",
    "dealer_rule", "hollywood", "num_players", "ace_high_or_low", "max_turns",
)  # fmt: skip


def _short(game: str) -> str:
    if game in GAMES:
        return game
    names = {"three_handed_gin_v0": "three_handed", "three_handed_gin_v1": "three_handed",
             "three_handed_v1": "three_handed", "gin_v0": "gin", "gin_v1": "gin",
             "rummy_v0": "rummy", "three": "three_handed"}  # fmt: skip
    if game not in names:
        raise ValueError(f"game must be one of {', '.join(GAMES)}; got {game!r}")
    return names[game]


def table_of(
    game: str,
    rules: GameTable | HandRules | Mapping[str, Any] | None = None,
    adviser_sees_hand: bool = True,
) -> Table:
    """The :class:`~gin_env.text.words.Table` of ``game`` (a short or env name) with
    ``rules``: the game's table (:data:`gin_env.config.Table`, an env's ``config``), the
    rules of a hand, a dict of option names, or None (the standard rules)."""
    if rules is None:
        found: dict[str, Any] = {}
    elif isinstance(rules, Mapping):
        found = dict(rules)
    elif is_dataclass(rules) and not isinstance(rules, type):
        found = asdict(rules)
    else:
        raise ValueError(
            f"rules must be a rules dataclass, a dict of option names or None; got {rules!r}"
        )
    kept = {k: v for k, v in found.items() if k in _RULE_NAMES}
    return Table(_short(game), kept, bool(found.get("adviser_sees_hand", adviser_sees_hand)))


def game_of(observation: Mapping[str, Any]) -> str:
    """``"gin"`` (either gin game: the layout is shared) or ``"rummy"``, by the vector's
    length."""
    size = np.shape(observation["observation"])[-1]
    return "gin" if size in (OBS_SIZE, OBS_SIZE_V1) else "rummy"


def _mask(part: np.ndarray) -> int:
    return int.from_bytes(np.packbits(part > 0.5, bitorder="little").tobytes(), "little")


def _legal(observation: Mapping[str, Any]) -> list[int]:
    legal: list[int] = np.flatnonzero(observation["action_mask"]).tolist()
    return legal


def facts(
    observation: Mapping[str, Any], table: Table, message: str | None = None
) -> GinFacts | RummyFacts:
    """The facts of one seat's observation dict at ``table``; ``message`` is the adviser's
    words, kept only for the captain."""
    if not isinstance(observation, Mapping) or "observation" not in observation:
        raise ValueError("facts need the env's observation dict {'observation', 'action_mask'}")
    obs = np.asarray(observation["observation"])
    legal = _legal(observation)
    if table.game == "rummy":
        return _rummy_facts(obs, legal, table)
    if obs.shape[-1] not in (OBS_SIZE, OBS_SIZE_V1):
        raise ValueError(
            f"a gin observation has {OBS_SIZE} or {OBS_SIZE_V1} entries, got {obs.shape}"
        )
    vals = obs[: _S["suggestion"].start].tolist()
    role = vals.index(1.0, _S["role"].start, _S["role"].stop) - _S["role"].start
    phase = vals.index(1.0, _S["phase"].start, _S["phase"].stop) - _S["phase"].start
    # The six card parts sit side by side: one packing reads them all.
    packed = _mask(obs[_CARDS_FROM : _CARDS_FROM + 6 * 52])
    hand, top, pile, took, theirs, own = (packed >> (52 * i) & _ALL for i in range(6))
    sugg: list[int] = np.flatnonzero(obs[_S["suggestion"]]).tolist() if role == 1 else []
    target = table.rule("target_score", 100)
    max_turns = table.rule("max_turns_per_hand", 200)
    scores = tuple(int(round(v * target)) for v in vals[_S["scores"]])
    captain = role == 1 and table.game == "three_handed"
    return GinFacts(
        game=table.game,
        role=role,
        phase=phase,
        advising=vals[_S["advising"].start] > 0.5,
        hand=hand,
        top=top.bit_length() - 1 if top else -1,
        pile=pile,
        opponent_took=took,
        opponent_discarded=theirs,
        own_discarded=own,
        stock=int(round(vals[_S["stock_size"].start] * FULL_STOCK)),
        turn=int(round(vals[_S["turn"].start] * max_turns)),
        scores=scores,
        suggestion=sugg[0] if sugg else -1,
        legal=legal,
        message=message if captain else None,
    )


def _rummy_facts(obs: np.ndarray, legal: list[int], table: Table) -> RummyFacts:
    n = rummy_encoding.num_players_for_size(obs.shape[-1])
    sl = _RUMMY_SLICES[n]
    # The card planes and the per-seat card rows come first, side by side: one packing.
    planes = 7 + 2 * n
    packed = _mask(obs[: planes * 52])
    rows = [packed >> (52 * i) & _ALL for i in range(planes)]
    hand, taken, _top, _pile, stock_known, sets, runs = rows[:7]
    order = obs[sl["pile_order"]]
    pile = sorted(np.flatnonzero(order).tolist(), key=lambda c: float(order[c]))
    tail = obs[sl["phase"].start :].tolist()
    phase = tail[0:3].index(1.0) if 1.0 in tail[0:3] else 2
    at = 3
    sizes, melded, dealer, to_act, scores = (tail[at + k * n : at + (k + 1) * n] for k in range(5))
    stock, turn, ace = tail[at + 5 * n :]
    deal = 10 if n == 2 else 7 if n <= 4 else 6
    target = table.rule("target_score", None)
    return RummyFacts(
        num_players=n,
        phase=phase,
        hand=hand,
        taken=taken.bit_length() - 1 if taken else -1,
        pile=pile,
        stock=int(round(stock * 52)),
        stock_known=stock_known,
        sets=sets,
        runs=runs,
        melds_by_seat=rows[7 : 7 + n],
        known_held=rows[7 + n : 7 + 2 * n],
        hand_sizes=[int(round(x * (deal + 1))) for x in sizes],
        melded_before=[x > 0.5 for x in melded],
        dealer=dealer.index(1.0) if 1.0 in dealer else 0,
        to_act=to_act.index(1.0) if 1.0 in to_act else -1,
        scores=[int(round(x * target)) for x in scores] if target else None,
        turn=int(round(turn * table.rule("max_turns", 500))),
        legal=legal,
        ace_high=ace > 0.5,
    )


def seat_text(
    observation: Mapping[str, Any],
    table: Table,
    message: str | None = None,
    note: str | None = None,
) -> str:
    """The seat's view in words (:func:`~gin_env.text.words.describe` of :func:`facts`)."""
    return describe(facts(observation, table, message), table, note)
