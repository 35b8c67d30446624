"""A seat's observation read as its view for the words (:mod:`gin_env.text.words`).

Everything comes from the seat's own observation dict (vector and action mask: a gin
vector read by :func:`gin_env.encoding.decode_observation`, rummy's by the layout of
:mod:`gin_env.rummy_encoding`) and the table's rules, so the words can never say more than
the seat may see; the adviser's message is the one thing added (at :func:`seat_text`), and
only to the captain.
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
from gin_env.encoding import OBS_SIZE, OBS_SIZE_V1, decode_observation
from gin_env.seat_view import GIN_PHASES, SeatView, arranged, discard_table
from gin_env.text.replies import ReplyContext
from gin_env.text.words import GAMES, ROLE_WORDS, Rulebook, describe

__all__ = ["table_of", "game_of", "facts", "seat_text"]

_RUMMY_SLICES = {n: rummy_encoding.obs_slices(n) for n in range(2, 7)}
_ALL = (1 << 52) - 1
_GIN_PHASE_WORDS = tuple(GIN_PHASES.values())  # by the observation's phase id
_GIN_PHASE_IDS = tuple(GIN_PHASES)
_DISCARD, _BIG_GIN = A.DISCARD, A.BIG_GIN
#: The env name of each game the words know, by its observation layout: v0, and gin's v1.
_ENV_NAMES = {g: games.get(g).name for g in GAMES}
_ENV_NAMES_V1 = {s.text_game: s.name for s in games.GAMES.values() if s.version == 1}
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
    """Rummy's card planes side by side as one int (plane ``k`` at bit ``52 * k``)."""
    return int.from_bytes(np.packbits(part > 0.5, bitorder="little").tobytes(), "little")


def _legal(observation: Mapping[str, Any]) -> list[int]:
    legal: list[int] = np.flatnonzero(observation["action_mask"]).tolist()
    return legal


def facts(observation: Mapping[str, Any], table: Rulebook) -> SeatView:
    """The :class:`~gin_env.seat_view.SeatView` of one seat's observation dict at
    ``table``, for a player that holds nothing but its observation. It says what the vector
    holds and no more: players are counted from the seat (gin: by role, ``box, captain,
    adviser`` or ``dealer, non-dealer``, so role 0 is the dealer; rummy: seat 0 is the seat
    itself); the pile of a gin observation is a set, not an order (``pile_in_order`` is
    False). What the vector does not hold is left empty, not guessed: no view has a hand
    number (``hand_index`` is -1: the words name none), the score sheet, the showdown or
    the moves (the env's :func:`~gin_env.seat_view.seat_view` has them); a gin view has no
    card counts (``counts`` is empty) nor the card taken this turn, and from a v0 vector at
    an Oklahoma table no knock limit (None) nor double (``multiplier`` stays 1, of which
    the words say nothing); a v1 vector holds both, and what the seat's hand took from the
    pile. The adviser's message is the words' (:func:`seat_text`, :func:`describe`)."""
    if not isinstance(observation, Mapping) or "observation" not in observation:
        raise ValueError("facts need the env's observation dict {'observation', 'action_mask'}")
    obs = np.asarray(observation["observation"])
    legal = _legal(observation)
    if table.game == "rummy":
        return _rummy_facts(obs, legal, table)
    v = decode_observation(obs)
    rules = v.rules  # a v1 vector's own (None in v0: the table's)
    target = table.rule("target_score", 100) if rules is None else rules.target_score
    max_turns = table.rule("max_turns_per_hand", 200) if rules is None else rules.max_turns_per_hand
    knock_limit = v.knock_limit
    if knock_limit is None and not table.rule("oklahoma", False):
        knock_limit = table.rule("knock_limit", 10)  # the table's, the same every hand
    three = table.game == "three_handed"
    n = 3 if three else 2
    role = v.role
    mine = 1 if role == 2 else role  # the adviser speaks of the captain's hand
    opp = 1 - mine
    hand = v.hand  # 0: not seen (an adviser who may not see the captain's)
    took = {opp: _card_tuple(v.opponent_took)}
    discarded = {opp: _card_tuple(v.opponent_discarded)}
    if hand:
        discarded[mine] = _card_tuple(v.partner_discarded)
        if v.partner_took is not None:
            took[mine] = _card_tuple(v.partner_took)
    leaves: dict[int, int] = {}
    if hand.bit_count() == 11 and legal:
        left = discard_table(hand)
        leaves = {a: left[(a - _DISCARD) % 52] for a in legal if _DISCARD <= a < _BIG_GIN}
    return SeatView(
        game=(_ENV_NAMES if rules is None else _ENV_NAMES_V1)[table.game],
        family="gin",
        player=role,
        num_players=n,
        roles=ROLE_WORDS[table.game][:n],
        to_act=role if legal else None,
        phase=_GIN_PHASE_WORDS[v.phase],
        advising=v.advising,
        hand_index=-1,  # not in the vector (SeatView asks an int; the words say none)
        hands={mine: arranged(hand)} if hand else {},
        counts=(),
        pile=_card_tuple(v.discard_pile),
        upcard=None if v.top_discard < 0 else v.top_discard,
        taken=None,
        took=took,
        stock=v.stock_size,
        knock_limit=knock_limit,
        multiplier=2 if v.doubled else 1,
        scores=tuple(round(x * target) for x in v.scores[:n]),
        target=target,
        over=False,
        winner=None,
        sheet=(),
        suggestion=None if v.suggestion < 0 else v.suggestion,
        legal=tuple(legal),
        showdown=None,
        moves=(),
        sitting_out=(2,) if three else (),  # the adviser holds no cards
        dealer=0,  # by role: the box deals every hand; in gin role 0 is the dealer
        rules=dict(table.rules),
        discarded=discarded,
        turn=v.turns(max_turns),
        pile_in_order=False,
        phase_id=_GIN_PHASE_IDS[v.phase],
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
        hand_index=-1,  # not in the vector (SeatView asks an int)
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
        dealer=dealer.index(1.0) if 1.0 in dealer else None,
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


def reply_context(view: SeatView) -> ReplyContext:
    """What a seat's reply may point at, from its view: the card a take would take, the
    hand the move is for (the adviser's: the captain's, when he sees it) and the adviser's
    suggestion the captain was shown."""
    player = view.player
    if view.advising:
        player = next((p for p, r in enumerate(view.roles) if r == "captain"), None)
    held = view.hands.get(player) if player is not None else None
    return ReplyContext(
        top=view.upcard,
        hand=None if held is None else tuple(held.cards),
        suggestion=view.suggestion,
    )
