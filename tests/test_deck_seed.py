"""The deck stream of a seed: a seed below ``2**63`` deals exactly as it always has (the
committed figures and the compiled engine depend on those deals), and a larger seed (the
web table's 128-bit secret) seeds the decks from every one of its bits."""

from __future__ import annotations

from typing import Any

import pytest

from gin_env import gin_v0, rummy_v0, three_handed_gin_v0
from gin_env.table_state import WIDE_SEED

#: The first deal of each game, computed on the code before the deck stream was widened
#: (``default_rng(np_random.integers(2**63))`` for every seed): gin's role deck and hand deck
#: (their first cards); rummy's hands (bit sets) and the top of the stock.
GIN_DEALS = {
    0: [[10, 33, 44, 14], [12, 42, 34, 48, 23, 38, 1, 28]],
    2**63 - 1: [[45, 31, 30, 14], [29, 24, 23, 16, 25, 37, 14, 20]],
}
RUMMY_DEALS = {
    0: [[1424968152024098, 146539989192712], [45, 25, 49, 46]],
    2**63 - 1: [[36569297727488, 1688852014186522], [39, 23, 0, 15]],
}


def first_deal(module: Any, seed: int) -> list[list[int]]:
    env = module.raw_env()
    env.reset(seed=seed)
    if module is rummy_v0:
        return [list(env.game.hands), list(env.game.stock[:4])]
    return [env.match.role_deck[:4], env.match.hand.deck[:8]]


def later_deals(module: Any, seed: int, hands: int = 3) -> list[list[int]]:
    """The decks of hands 1.. of a match: drawn from the same stream after the first."""
    env = module.raw_env() if module is rummy_v0 else module.raw_env(target_score=500)
    env.reset(seed=seed)
    if module is rummy_v0:
        return [env.table_state._next_deck() for _ in range(hands)]
    return [env.match._deal(i) for i in range(1, hands + 1)]


@pytest.mark.parametrize("module", [gin_v0, three_handed_gin_v0, rummy_v0])
@pytest.mark.parametrize("seed", [0, 2**63 - 1])
def test_a_seed_below_2_63_deals_as_before(module: Any, seed: int) -> None:
    expected = RUMMY_DEALS if module is rummy_v0 else GIN_DEALS
    assert first_deal(module, seed) == expected[seed]


@pytest.mark.parametrize("module", [gin_v0, three_handed_gin_v0, rummy_v0])
def test_seeds_that_differ_only_above_bit_63_deal_differently(module: Any) -> None:
    low = 0x1234_5678_9ABC_DEF0
    a, b = (1 << 64) | low, (1 << 127) | low  # the same low 64 bits
    assert a >= WIDE_SEED and b >= WIDE_SEED
    assert first_deal(module, a) != first_deal(module, b)
    assert later_deals(module, a) != later_deals(module, b)
    # ... and the same wide seed deals the same, hand after hand.
    assert first_deal(module, a) == first_deal(module, a)
    assert later_deals(module, a) == later_deals(module, a)
    # Before the stream was widened, these two seeds drew one 63-bit seed of the decks
    # each; now neither deals as its low bits would.
    assert first_deal(module, a) != first_deal(module, low)


def test_the_wide_deck_stream_is_not_the_env_s_own_stream() -> None:
    """The decks of a wide seed come from a child of its SeedSequence, not from the stream
    ``np_random`` itself draws from (nor from the 63 bits it would have drawn)."""
    import numpy as np

    from gin_env.table_state import deck_generator

    seed = 2**100 + 12345
    rng = np.random.default_rng(seed)
    deck = deck_generator(np.random.default_rng(seed), seed).permutation(52).tolist()
    assert deck != np.random.default_rng(seed).permutation(52).tolist()
    assert deck != np.random.default_rng(int(rng.integers(2**63))).permutation(52).tolist()
