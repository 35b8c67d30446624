"""What happens to an unusable reply: the one policy of the text env and of the players in
words (:mod:`agents.llm`).

A reply that names no legal move, or two, or only illegal ones, is *unusable*. The seat
is told why and asked again, up to ``retries`` more times for the same decision; after
that ``on_invalid`` decides:

- ``"forfeit-hand"``: the seat loses the hand (the text env ends the episode, reward -1
  to that seat; a player in the numeric envs cannot end a hand, so it does not offer it);
- ``"random-legal"``: a legal move drawn from a seeded generator is played, and counted
  as a *fallback move*, never as the player's own;
- ``"raise"``: a :class:`ValueError` with the reason.

>>> policy = UnusablePolicy(retries=1, on_invalid="random-legal")
>>> policy.after(1), policy.after(2)
('reask', 'random-legal')
>>> policy.note("no move found in the reply", 1)
'no move found in the reply (1 try left)'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["ON_INVALID", "UnusablePolicy"]

#: Every choice of ``on_invalid``.
ON_INVALID = ("forfeit-hand", "random-legal", "raise")


@dataclass(frozen=True)
class UnusablePolicy:
    """``retries`` re-asks per decision (0..100), then ``on_invalid``; ``allowed``: the
    choices the caller can carry out (a player in the numeric envs cannot forfeit)."""

    retries: int = 2
    on_invalid: str = "forfeit-hand"
    allowed: tuple[str, ...] = ON_INVALID

    def __post_init__(self) -> None:
        r = self.retries
        if isinstance(r, bool) or not isinstance(r, int) or not 0 <= r <= 100:
            raise ValueError(f"retries must be an int in 0..100, got {r!r}")
        if self.on_invalid not in self.allowed:
            raise ValueError(
                f"on_invalid must be one of {', '.join(self.allowed)}; got {self.on_invalid!r}"
            )

    def after(self, unusable: int) -> str:
        """What follows the ``unusable``-th unusable reply to one decision: ``"reask"``
        while tries are left, else ``on_invalid``."""
        return "reask" if unusable <= self.retries else self.on_invalid

    def tries_left(self, unusable: int) -> int:
        return max(0, self.retries - unusable + 1)

    def note(self, why: str, unusable: int) -> str:
        """What the seat is told when asked again: why, and how many tries are left."""
        left = self.tries_left(unusable)
        return f"{why} ({left} {'try' if left == 1 else 'tries'} left)"

    def fallback(self, legal: Sequence[int], rng: np.random.Generator) -> int:
        """The fallback move: a legal move drawn with ``rng``."""
        if not legal:
            raise ValueError("no legal move to fall back on")
        return int(rng.choice(np.asarray(legal)))
