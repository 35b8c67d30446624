"""Speed of the rules layer: deadwood, discards, showdown and random-play hands.

Run ``python benchmarks/bench_rules.py [--seconds S]``. Every figure is calls (or hands) per
second over seeded random inputs, each input new to the call (no caching across calls: the
engine has tables, no memo). When OpenSpiel (``pyspiel``) is installed, the same hands go
through its ``GinRummyUtils(13, 4, 10).min_deadwood`` side by side.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gin_env import actions as A  # noqa: E402
from gin_env.config import ThreeHandedConfig  # noqa: E402
from gin_env.hand import GinHand, Phase  # noqa: E402
from gin_env.match import ThreeHandedMatch  # noqa: E402
from gin_env.melds import deadwood_mask, discard_deadwoods, showdown  # noqa: E402

SEED = 12345
# OpenSpiel's suits are s, c, d, h; ours S, H, D, C.
_TO_OPEN_SPIEL_SUIT = (0, 3, 2, 1)


def random_hands(n_cards: int, count: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed * 100 + n_cards)
    return [rng.sample(range(52), n_cards) for _ in range(count)]


def to_mask(cards: Sequence[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def rate(run: Callable[[int], int], seconds: float) -> float:
    """Calls per second: ``run(i)`` does one unit of work on input ``i`` and returns units."""
    done = 0
    i = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        done += run(i)
        i += 1
        if (i & 63) == 0 and time.perf_counter() >= deadline:
            break
    return done / (time.perf_counter() - start)


def knockable_pairs(count: int, seed: int) -> list[tuple[int, int]]:
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        deal = rng.sample(range(52), 21)
        eleven = to_mask(deal[:11])
        dws = discard_deadwoods(eleven)
        card = min(dws, key=dws.__getitem__)
        if dws[card] <= 10:
            out.append((eleven & ~(1 << card), to_mask(deal[11:])))
    return out


def random_hand_play(i: int, rng: random.Random) -> int:
    deck = list(range(52))
    rng.shuffle(deck)
    hand = GinHand(deck)
    while not hand.is_over:
        legal = hand.legal_actions()
        knocks = [a for a in legal if a >= A.KNOCK]
        hand.step(knocks[0] if knocks else rng.choice(legal))
    return 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seconds", type=float, default=1.0, help="time per measurement (default 1)"
    )
    args = parser.parse_args(argv)
    if not args.seconds > 0:
        parser.error(f"--seconds must be > 0, got {args.seconds:g}")
    seconds = args.seconds
    try:
        import pyspiel  # type: ignore[import-not-found]  # bench extra: open_spiel

        utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
    except ImportError:
        utils = None

    # Inputs are generated up front so the timed loops do nothing but the call; the engine
    # keeps no cache across calls, so an input met again later is still computed afresh.
    n_inputs = 100_000
    rows: list[tuple[str, float, float | None]] = []
    hands10 = random_hands(10, n_inputs, SEED)
    hands11 = random_hands(11, n_inputs, SEED + 1)
    masks10 = [to_mask(h) for h in hands10]
    masks11 = [to_mask(h) for h in hands11]
    os10 = [[_TO_OPEN_SPIEL_SUIT[c // 13] * 13 + c % 13 for c in h] for h in hands10]
    os11 = [[_TO_OPEN_SPIEL_SUIT[c // 13] * 13 + c % 13 for c in h] for h in hands11]

    def open_spiel_rate(os_hands: list[list[int]]) -> float | None:
        if utils is None:
            return None
        return rate(lambda i: (utils.min_deadwood(os_hands[i % n_inputs]), 1)[1], seconds)

    rows.append(
        (
            "deadwood, 10 cards",
            rate(lambda i: (deadwood_mask(masks10[i % n_inputs]), 1)[1], seconds),
            open_spiel_rate(os10),
        )
    )
    rows.append(
        (
            "deadwood, 11 cards",
            rate(lambda i: (deadwood_mask(masks11[i % n_inputs]), 1)[1], seconds),
            None,
        )
    )
    # OpenSpiel's 11-card min_deadwood is the deadwood after the best discard: the same
    # question discard_deadwoods answers (for all 11 discards at once).
    rows.append(
        (
            "discard_deadwoods, 11 cards",
            rate(lambda i: (discard_deadwoods(masks11[i % n_inputs]), 1)[1], seconds),
            open_spiel_rate(os11),
        )
    )
    pairs = knockable_pairs(500, SEED + 2)
    rows.append(
        (
            "showdown (knockable deals)",
            rate(lambda i: (showdown(*pairs[i % len(pairs)]), 1)[1], seconds),
            None,
        )
    )

    rng = random.Random(SEED + 3)
    rows.append(
        ("GinHand random-play hands", rate(lambda i: random_hand_play(i, rng), seconds), None)
    )

    def match_hands(i: int) -> int:
        mrng = random.Random(SEED + 4 + i)
        decks = random.Random(SEED + 5 + i)

        def deal(_: int) -> list[int]:
            deck = list(range(52))
            decks.shuffle(deck)
            return deck

        m = ThreeHandedMatch(ThreeHandedConfig(), list(range(52)), deal)
        while not m.is_over:
            legal = m.legal_actions()
            knocks = [a for a in legal if a >= A.KNOCK and a != A.BIG_GIN]
            if knocks:
                m.step(knocks[0])
            elif m.hand.phase is Phase.DISCARD and not m.advising:
                dws = m.hand.discard_deadwoods()
                discards = [a for a in legal if A.DISCARD <= a < A.KNOCK]
                m.step(min(discards, key=lambda a: dws[a - A.DISCARD]))
            else:
                m.step(mrng.choice(legal))
        return len(m.history)

    rows.append(("ThreeHandedMatch hands (greedy play)", rate(match_hands, seconds), None))

    width = max(len(r[0]) for r in rows)
    header = f"{'measure':<{width}}  {'gin_env /s':>12}"
    if utils is not None:
        header += f"  {'OpenSpiel /s':>13}  {'ratio':>6}"
    print(header)
    print("-" * len(header))
    for label, ours, theirs in rows:
        line = f"{label:<{width}}  {ours:>12,.0f}"
        if utils is not None and theirs is not None:
            line += f"  {theirs:>13,.0f}  {ours / theirs:>5.2f}x"
        print(line)
    if utils is None:
        print("(OpenSpiel not installed: pip install open_spiel to compare)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
