"""The opponent model (``agents.opponent_model``): the pool's styles, the posterior over them
and each style's particles of his hand; on synthetic opponents of known style the style's
posterior mass rises with the moves seen."""

from __future__ import annotations

import numpy as np
import pytest

from agents.heuristic import HeuristicAgent
from agents.opponent_model import STYLES, StylePosterior, pool_params, style_params
from agents.search_agent import SeatSearch
from agents.tuned import TABLES
from gin_env import actions as A
from gin_eval.gin import play_gin_match_pair

POOL = "L2+tuned-eaai+knock-early+gin-only"


def test_the_styles_are_the_tune_pools_and_the_shipped_sets() -> None:
    from training.tune import STYLES as TUNE_STYLES

    for name, params in TUNE_STYLES.items():  # one definition: the tuner's pool is these
        assert STYLES[name] == params
    assert style_params("tuned", TABLES["eaai"]) == STYLES["tuned-eaai"]
    assert list(pool_params("L2+gin-only")) == ["L2", "gin-only"]
    with pytest.raises(ValueError, match="unknown style 'bluff'; styles: tuned, L2"):
        style_params("bluff")
    with pytest.raises(ValueError, match="no tuned set is shipped"):
        style_params("tuned", TABLES["eaai"].__class__(knock_limit=3))


def test_bad_options_name_themselves() -> None:
    pool = pool_params("L2+gin-only")
    with pytest.raises(ValueError, match="particles"):
        StylePosterior(pool, TABLES["eaai"], particles=0)
    with pytest.raises(ValueError, match="epsilon"):
        StylePosterior(pool, TABLES["eaai"], epsilon=0)
    with pytest.raises(ValueError, match="prior names"):
        StylePosterior(pool, TABLES["eaai"], prior={"L3": 1.0})
    with pytest.raises(ValueError, match="empty"):
        StylePosterior({}, TABLES["eaai"])


def test_particles_keep_to_what_the_seat_knows() -> None:
    post = StylePosterior(pool_params(POOL), TABLES["eaai"], particles=16, seed=0)
    known, free = 0b111, ((1 << 52) - 1) & ~(0b1111 << 20)
    post.new_hand(known, free)
    for hands in post.particles:
        assert all(h & known == known and h & ~free == 0 and h.bit_count() == 10
                   for h in hands.tolist())  # fmt: skip
    post.took(40)
    post.threw(40)
    hands, styles = post.hands(10, known, free)
    assert len(hands) == 10 and set(styles.tolist()) <= set(range(4))
    assert all(h & known == known and h & ~free == 0 for h in hands.tolist())
    w = post.weights()
    assert np.isclose(w.sum(), 1.0) and np.allclose(w, 0.25)  # no move seen: the prior


def _trajectories(style: str, matches: int) -> list[list[float]]:
    """The posterior mass of ``style`` after each of his moves, per match."""
    table = TABLES["eaai"]
    out: list[list[float]] = []
    for index in range(matches):
        player = SeatSearch(table, model="posterior", pool=POOL, seed=index, particles=32)
        post = player.posterior
        assert post is not None
        k = post.names.index(style)
        seen: list[list[float]] = [[]]
        observe, reset = post.observe, post.reset

        def watch(*args, post=post, observe=observe, seen=seen, k=k):  # type: ignore[no-untyped-def]
            lik = observe(*args)
            seen[-1].append(float(post.weights()[k]))
            return lik

        def new(reset=reset, seen=seen):  # type: ignore[no-untyped-def]
            seen.append([])
            reset()

        post.observe, post.reset = watch, new  # type: ignore[method-assign]
        play_gin_match_pair(player, HeuristicAgent(STYLES[style], rules=table), 7, index, table)
        out += [s for s in seen if len(s) >= 40]
    return out


@pytest.mark.parametrize("style", ["L2", "tuned-eaai", "gin-only"])
def test_the_true_styles_mass_rises_with_the_moves_seen(style: str) -> None:
    runs = _trajectories(style, 3)
    assert len(runs) >= 4
    early = np.mean([r[4] for r in runs])  # after his first five moves
    late = np.mean([r[-1] for r in runs])  # at the match's end
    print(f"{style}: mass after 5 of his moves {early:.3f}, at the match's end {late:.3f}")
    # from the prior (1/4) up, over every move of the match
    assert late > 0.25, (early, late)


def test_a_move_no_hand_allows_leaves_every_style_possible() -> None:
    post = StylePosterior(pool_params("L2+gin-only"), TABLES["eaai"], particles=8, seed=1)
    assert post.epsilon > 0 and 1.0 / A.NUM_ACTIONS > 0  # the floor of every likelihood
