"""A seat's observation read as its view for the words (:mod:`gin_env.text.words`).

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

from gin_env import actions as A
from gin_env import games, rummy_encoding
from gin_env.cards import cards_of_mask as _card_tuple
from gin_env.config import HandRules
from gin_env.config import Table as GameTable
from gin_env.encoding import FULL_STOCK, OBS_SIZE, OBS_SIZE_V1, OBS_SLICES
from gin_env.seat_view import GIN_PHASES, SeatView, arranged, discard_table
from gin_env.text.words import GAMES, ROLE_WORDS, Rulebook, describe

__all__ = ["table_of", "game_of", "facts", "seat_text"]

_S = OBS_SLICES
_RUMMY_SLICES = {n: rummy_encoding.obs_slices(n) for n in range(2, 7)}
_CARDS_FROM = _S["hand"].start
_ALL = (1 << 52) - 1
_PARTS = ("hand", "top_discard", "discard_pile", "opponent_took", "opponent_discarded",
          "partner_discarded")  # fmt: skip
assert all(_S[p].start == _CARDS_FROM + 52 * i for i, p in enumerate(_PARTS))
_GIN_PHASE_WORDS = tuple(GIN_PHASES.values())  # by the observation's phase id
_GIN_PHASE_IDS = tuple(GIN_PHASES)
_DISCARD, _BIG_GIN = A.DISCARD, A.BIG_GIN
#: The env name of each game the words know (its observation layout v0).
_ENV_NAMES = {g: games.get(g).name for g in GAMES}
_RULE_NAMES = (
    "knock_limit", "gin_bonus", "undercut_bonus", "big_gin_bonus",
    "allow_discard_of_taken_card", "max_turns_per_hand", "oklahoma", "target_score",
    "dealer_rule", "hollywood", "num_players", "ace_high_or_low", "max_turns",
)  # fmt: skip


def _short(game: str) -> str:
    """The words' game (``three_handed``, ``gin``, ``rummy``) of any name of a game."""
    try:
        return games.get(game).text_game
    except ValueError:
        raise ValueError(f"game must be one of {', '.join(GAMES)}; got {game!r}") from None


def table_of(
    game: str,
    rules: GameTable | HandRules | Mapping[str, Any] | None = None,
    adviser_sees_hand: bool = True,
) -> Rulebook:
    """The :class:`~gin_env.text.words.Rulebook` of ``game`` (a short or env name) with
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
    return Rulebook(_short(game), kept, bool(found.get("adviser_sees_hand", adviser_sees_hand)))


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


def facts(observation: Mapping[str, Any], table: Rulebook, message: str | None = None) -> SeatView:
    """The :class:`~gin_env.seat_view.SeatView` of one seat's observation dict at
    ``table``, for a player that holds nothing but its observation. It says what the vector
    holds and no more: players are counted from the seat (gin: by role, ``box, captain,
    adviser`` or ``dealer, non-dealer``; rummy: seat 0 is the seat itself); the pile of a gin
    observation is a set, not an order; the score sheet, the showdown and Oklahoma's limit
    of the hand are not in it (the env's :func:`~gin_env.seat_view.seat_view` has them).
    ``message`` is kept for compatibility; the words take it at :func:`describe`."""
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
    three = table.game == "three_handed"
    n = 3 if three else 2
    roles = ROLE_WORDS[table.game][:n]
    mine = 1 if role == 2 else role  # the adviser speaks of the captain's hand
    opp = 1 - mine
    phase_words = _GIN_PHASE_WORDS[phase]
    counts = [0] * n
    counts[mine] = hand.bit_count() if hand else 10
    counts[opp] = 11 if (phase_words == "discard" and not legal) else 10
    okl = bool(table.rule("oklahoma", False))
    leaves: dict[int, int] = {}
    if hand.bit_count() == 11 and legal:
        left = discard_table(hand)
        leaves = {a: left[(a - _DISCARD) % 52] for a in legal if _DISCARD <= a < _BIG_GIN}
    return SeatView(
        game=_ENV_NAMES[table.game],
        family="gin",
        player=role,
        num_players=n,
        roles=roles,
        to_act=role if legal else None,
        phase=phase_words,
        advising=vals[_S["advising"].start] > 0.5,
        hand_index=0,
        hands={mine: arranged(hand)} if hand else {},
        counts=tuple(counts),
        pile=_card_tuple(pile),
        upcard=top.bit_length() - 1 if top else None,
        taken=None,
        took={opp: _card_tuple(took)},
        stock=int(round(vals[_S["stock_size"].start] * FULL_STOCK)),
        knock_limit=None if okl else table.rule("knock_limit", 10),
        multiplier=1,
        scores=tuple(int(round(v * target)) for v in vals[_S["scores"]])[:n],
        target=target,
        over=False,
        winner=None,
        sheet=(),
        suggestion=sugg[0] if sugg else None,
        legal=tuple(legal),
        showdown=None,
        moves=(),
        sitting_out=(2,) if three else (),
        dealer=0,  # the box deals; in two-player gin role 0 is the dealer
        rules=dict(table.rules),
        discarded={opp: _card_tuple(theirs), mine: _card_tuple(own)},
        turn=int(round(vals[_S["turn"].start] * max_turns)),
        pile_in_order=False,
        phase_id=_GIN_PHASE_IDS[phase],
        leaves=leaves,
    )


def _rummy_facts(obs: np.ndarray, legal: list[int], table: Rulebook) -> SeatView:
    n = rummy_encoding.num_players_for_size(obs.shape[-1])
    sl = _RUMMY_SLICES[n]
    # The card planes and the per-seat card rows come first, side by side: one packing.
    planes = 7 + 2 * n
    packed = _mask(obs[: planes * 52])
    rows = [packed >> (52 * i) & _ALL for i in range(planes)]
    hand, taken, _top, _pile, stock_known, _sets, _runs = rows[:7]
    order = obs[sl["pile_order"]]
    pile = sorted(np.flatnonzero(order).tolist(), key=lambda c: float(order[c]))
    tail = obs[sl["phase"].start :].tolist()
    phase = tail[0:3].index(1.0) if 1.0 in tail[0:3] else 2
    at = 3
    sizes, melded, dealer, to_act, scores = (tail[at + k * n : at + (k + 1) * n] for k in range(5))
    stock, turn, ace = tail[at + 5 * n :]
    deal = 10 if n == 2 else 7 if n <= 4 else 6
    target = table.rule("target_score", None)
    melds_by_seat = rows[7 : 7 + n]
    known_held = rows[7 + n : 7 + 2 * n]
    counts = [int(round(x * (deal + 1))) for x in sizes]
    counts[0] = hand.bit_count()
    return SeatView(
        game="rummy_v0",
        family="rummy",
        player=0,
        num_players=n,
        roles=("",) * n,
        to_act=to_act.index(1.0) if 1.0 in to_act else None,
        phase=("draw", "meld, lay off, discard", "hand over")[phase],
        advising=False,
        hand_index=0,
        hands={0: arranged(hand, ace > 0.5)},
        counts=tuple(counts),
        pile=tuple(pile),
        upcard=pile[-1] if pile else None,
        taken=taken.bit_length() - 1 if taken else None,
        took={k: _card_tuple(known_held[k]) for k in range(1, n)},
        stock=int(round(stock * 52)),
        knock_limit=None,
        multiplier=1,
        scores=tuple(int(round(x * target)) for x in scores) if target else (0,) * n,
        target=target,
        over=False,
        winner=None,
        sheet=(),
        suggestion=None,
        legal=tuple(legal),
        showdown=None,
        moves=(),
        dealer=dealer.index(1.0) if 1.0 in dealer else 0,
        # The vector holds each seat's melded cards, not the melds: one group a seat.
        melds=tuple((k, _card_tuple(m)) for k, m in enumerate(melds_by_seat) if m),
        rules=dict(table.rules),
        turn=int(round(turn * table.rule("max_turns", 500))),
        melded_before=tuple(x > 0.5 for x in melded),
        stock_known=_card_tuple(stock_known),
        phase_id=("draw", "play", "over")[phase],
    )


def seat_text(
    observation: Mapping[str, Any],
    table: Rulebook,
    message: str | None = None,
    note: str | None = None,
) -> str:
    """The seat's view in words (:func:`~gin_env.text.words.describe` of :func:`facts`)."""
    return describe(facts(observation, table), table, note, message)
