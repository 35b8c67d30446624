"""The tables: validated, immutable rules of each game (docs/RULES.md sections 3 and 4).

A :data:`Table` is one game's rules object (:class:`GinConfig`, :class:`ThreeHandedConfig`,
:class:`RummyConfig`): the one thing that says what a table is. Every engine is built from
it (the AEC envs keep theirs as ``env.config``; the compiled engine reads it, not an env),
and every agent is seated with it (``agents.seat(spec, table)``). Env options that are not
rules (reward, episode, observation layout, infos, render) travel apart from it.

>>> GinConfig(knock_limit=7).knock_limit
7
>>> ThreeHandedConfig(undercut_bonus=25).num_players, ThreeHandedConfig().adviser
(3, 'suggest')
>>> ThreeHandedConfig(target_score=0)
Traceback (most recent call last):
...
ValueError: target_score must be an int in 1..100000, got 0
"""

from __future__ import annotations

import math
import numbers
import reprlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, ClassVar

__all__ = [
    "IllegalAction",
    "HandRules",
    "GinConfig",
    "ThreeHandedConfig",
    "RummyConfig",
    "Table",
    "GinTable",
    "ADVISER_MODES",
    "table_options",
    "table_changes",
    "DEALER_RULES",
    "check_int",
    "check_choice",
    "check_real",
    "check_option_names",
]

DEALER_RULES = ("alternate", "winner", "loser", "alternate_scored")
#: The three-handed adviser: ``"suggest"`` (a turn before each captain decision) or ``"none"``.
ADVISER_MODES = ("suggest", "none")


class IllegalAction(ValueError):
    """A well-formed action id that the rules do not allow the player to act now: its kind
    as a type (catch this, never match the words). ``action`` is the id, ``legal`` the ids
    that were legal; the message names both in words. A ``ValueError``, so code that
    catches those goes on working."""

    def __init__(self, message: str, action: int, legal: Sequence[int]) -> None:
        super().__init__(message)
        self.action = action
        self.legal = tuple(int(a) for a in legal)


def check_int(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be an int in {low}..{high}, got {value!r}")


def check_real(name: str, value: object, low: float, high: float, above: bool = False) -> float:
    """``value`` as a float if it is a finite real number (an int, a float, a numpy number;
    not a bool) in ``low..high`` (greater than ``low`` when ``above``); else a ``ValueError``
    naming the range. ``inf`` (``1e400`` reads as it) and ``nan`` are never in range.

    >>> check_real("reward_scale", float("inf"), 0, 1e6, above=True)
    Traceback (most recent call last):
    ...
    ValueError: reward_scale must be a finite number > 0 and <= 1000000, got inf
    """
    number = None
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        try:
            number = float(value)
        except OverflowError:  # an int beyond any float
            number = None
    ok = number is not None and math.isfinite(number) and number <= high
    ok = ok and (number > low if above else number >= low)  # type: ignore[operator]
    if not ok:
        lo, hi = (int(x) if float(x).is_integer() else x for x in (low, high))
        span = f"> {lo} and <= {hi}" if above else f"in {lo}..{hi}"
        raise ValueError(f"{name} must be a finite number {span}, got {reprlib.repr(value)}")
    return number  # type: ignore[return-value]


def check_option_names(
    given: Iterable[str], allowed: Mapping[str, Sequence[str]], where: str
) -> None:
    """The one check of option names, wherever options come in (an env, a table, the
    Gymnasium wrapper, the batched engine): a ``ValueError`` naming the unknown ones and every
    allowed one by whose it is (``{"the env's": (...), "the rules'": (...)}``).

    >>> check_option_names(["knock_limt"], {"the rules'": ("knock_limit",)}, "gin_v0")
    Traceback (most recent call last):
    ...
    ValueError: unknown option(s) knock_limt for gin_v0; allowed: the rules' knock_limit
    """
    known = {n for names in allowed.values() for n in names}
    unknown = sorted(set(given) - known)
    if unknown:
        groups = "; ".join(f"{whose} {', '.join(names)}" for whose, names in allowed.items())
        raise ValueError(f"unknown option(s) {', '.join(unknown)} for {where}; allowed: {groups}")


def check_choice(name: str, value: object, allowed: tuple[Any, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}; got {value!r}")


def check_bool(name: str, value: object) -> None:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be True or False, got {value!r}")


@dataclass(frozen=True)
class HandRules:
    """Options of one gin hand.

    - ``knock_limit``: most deadwood a knocker may keep (0..10; 0 means gin only).
    - ``gin_bonus``: points for gin (default 25; some tables play 20).
    - ``undercut_bonus``: points to a defender who undercuts (default 10).
    - ``big_gin_bonus``: None (off) or the bonus for laying down 11 melded cards.
    - ``allow_discard_of_taken_card``: may the card just taken from the pile be discarded.
    - ``max_turns_per_hand``: a hand reaching this many turns ends as a draw.
    - ``oklahoma``: knock limit is the upcard's value (ace: gin only), a spade upcard
      doubles the hand's points.
    """

    knock_limit: int = 10
    gin_bonus: int = 25
    undercut_bonus: int = 10
    big_gin_bonus: int | None = None
    allow_discard_of_taken_card: bool = False
    max_turns_per_hand: int = 200
    oklahoma: bool = False

    def __post_init__(self) -> None:
        check_int("knock_limit", self.knock_limit, 0, 10)
        check_int("gin_bonus", self.gin_bonus, 0, 1000)
        check_int("undercut_bonus", self.undercut_bonus, 0, 1000)
        if self.big_gin_bonus is not None:
            check_int("big_gin_bonus", self.big_gin_bonus, 0, 1000)
        check_bool("allow_discard_of_taken_card", self.allow_discard_of_taken_card)
        check_int("max_turns_per_hand", self.max_turns_per_hand, 1, 100000)
        check_bool("oklahoma", self.oklahoma)

    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    def hand_rules(self) -> HandRules:
        """Just the options of a single hand."""
        return HandRules(**{name: getattr(self, name) for name in HandRules.option_names()})


@dataclass(frozen=True)
class GinConfig(HandRules):
    """Two-player gin: hand options plus ``target_score``, ``dealer_rule`` (``alternate``,
    ``winner`` deals next, ``loser`` deals next, or ``alternate_scored``: the deal
    alternates after a scored hand only, as at the EAAI-21 challenge; a draw keeps the
    dealer under all but ``alternate``) and ``hollywood``.

    ``hollywood=True`` scores three games at once (docs/RULES.md section 4). Decided here:
    a player's n-th winning hand is entered in the first n games still open (all of them
    from his third win on); a game closes when a player reaches ``target_score`` in it,
    and he wins that game; the match ends when all three are closed and goes to the
    player who won two or more. There are no game or box bonuses, as in the plain match.
    """

    #: Seats at the table (not an option).
    num_players: ClassVar[int] = 2
    #: The family of games (``"gin"``: one observation and action layout; ``"rummy"``).
    family: ClassVar[str] = "gin"

    target_score: int = 100
    dealer_rule: str = "alternate"
    hollywood: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        check_int("target_score", self.target_score, 1, 100000)
        check_choice("dealer_rule", self.dealer_rule, DEALER_RULES)
        check_bool("hollywood", self.hollywood)


@dataclass(frozen=True)
class ThreeHandedConfig(HandRules):
    """Three-handed gin: hand options plus ``target_score``, ``adviser`` (``"suggest"``: the
    adviser suggests one of the captain's legal actions before each of his decisions;
    ``"none"``: no adviser turns) and ``adviser_sees_hand`` (the adviser sees the captain's
    hand; else he advises blind)."""

    num_players: ClassVar[int] = 3
    family: ClassVar[str] = "gin"

    target_score: int = 100
    adviser: str = "suggest"
    adviser_sees_hand: bool = True

    def __post_init__(self) -> None:
        super().__post_init__()
        check_int("target_score", self.target_score, 1, 100000)
        check_choice("adviser", self.adviser, ADVISER_MODES)
        check_bool("adviser_sees_hand", self.adviser_sees_hand)


MIN_RUMMY_PLAYERS = 2
MAX_RUMMY_PLAYERS = 6


@dataclass(frozen=True)
class RummyConfig:
    """Options of basic rummy; a bad value is a ``ValueError`` naming the allowed values."""

    family: ClassVar[str] = "rummy"

    num_players: int = 2
    ace_high_or_low: bool = False  # the ace may also end a run Q-K-A (never K-A-2)
    max_turns: int = 500  # a hand with no winner after this many turns is truncated
    target_score: int | None = None  # None: one hand; else a match to this score

    def __post_init__(self) -> None:
        n = self.num_players
        low, high = MIN_RUMMY_PLAYERS, MAX_RUMMY_PLAYERS
        if isinstance(n, bool) or not isinstance(n, int) or not low <= n <= high:
            allowed = ", ".join(map(str, range(low, high + 1)))
            raise ValueError(f"num_players must be one of {allowed}, got {n!r}")
        if not isinstance(self.ace_high_or_low, bool):
            raise ValueError(f"ace_high_or_low must be True or False, got {self.ace_high_or_low!r}")
        t = self.max_turns  # capped as the gin hands' max_turns_per_hand
        if isinstance(t, bool) or not isinstance(t, int) or not 1 <= t <= 10**5:
            raise ValueError(f"max_turns must be an int in 1..100000, got {t!r}")
        s = self.target_score
        if s is not None and (isinstance(s, bool) or not isinstance(s, int) or not 1 <= s <= 10**5):
            raise ValueError(
                f"target_score must be None (one hand) or an int in 1..100000, got {s!r}"
            )

    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))


#: A gin table: two-player or three-handed.
GinTable = GinConfig | ThreeHandedConfig
#: A table: the validated rules of one game.
Table = GinConfig | ThreeHandedConfig | RummyConfig


def table_options(table: Table) -> dict[str, Any]:
    """The table's rules as the env options that make it (``raw_env(**table_options(t))``).

    >>> table_options(GinConfig(knock_limit=0))["knock_limit"]
    0
    """
    return {name: getattr(table, name) for name in table.option_names()}


def table_changes(table: Table) -> dict[str, Any]:
    """The options of ``table`` that differ from the standard table of its game: what a
    result records as its rules (``{}`` at the standard table).

    >>> table_changes(ThreeHandedConfig(undercut_bonus=25, adviser="none"))
    {'undercut_bonus': 25, 'adviser': 'none'}
    """
    standard = table_options(type(table)())
    return {k: v for k, v in table_options(table).items() if standard[k] != v}
