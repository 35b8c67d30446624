"""The compiled L2 (:mod:`agents.heuristic_batched`) against its reference
(:class:`agents.heuristic.HeuristicAgent`): the same move in every row, over every rule
option set and both games (three-handed: every role, every adviser option), against
random, L1 and L2 play, for the default parameters, the widened family off its defaults,
the older options (lookahead, exact draw, knock chance) and random draws of the whole
family; the captain weighing advice and the adviser as well."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

import numpy as np
import pytest
from l2_play import OLD_PARAMS, OPPONENTS, cases, play

import agents
from agents.batched import PerRow, seat_batched
from agents.heuristic import HeuristicAgent, HeuristicParams
from agents.heuristic_batched import BatchedCaptain, BatchedHeuristic, params_vector
from gin_env import games
from gin_env.config import GinConfig, ThreeHandedConfig

WIDE = HeuristicParams(
    knock_bend=3.0,
    knock_undercut=-2.5,
    take_margin_late=2.0,
    keep_late=0.8,
    danger_took=1.5,
    danger_late=3.0,
    knock_early=9.5,
    knock_late=4.25,
    knock_last_pips=2.5,
    keep_took=0.15,
    danger_pips=1.6,
)


def random_params(rng: np.random.Generator) -> HeuristicParams:
    """A draw of the whole family over a plausible range (the tuner's kind of candidate)."""
    u = rng.uniform
    return HeuristicParams(
        potential_weight=u(0.2, 2.0),
        potential_draws=u(2, 10),
        potential_floor=u(0, 6),
        potential_div=u(3, 12),
        lookahead=bool(rng.random() < 0.2),
        danger_weight=u(0, 10),
        exact_draw=bool(rng.random() < 0.3),
        passed_factor=u(0, 1),
        high_factor=u(0, 1),
        took_hazard=u(0, 1.5),
        knock_weight=u(0, 4) if rng.random() < 0.3 else 0.0,
        take_margin=u(-1, 3),
        knock_early=u(3, 11),
        knock_late=u(0, 10),
        knock_shown_meld=u(0, 2),
        gin_outs=int(rng.integers(0, 6)) if rng.random() < 0.5 else 99,
        gin_stock=u(0, 20),
        gin_deadwood=int(rng.integers(0, 7)),
        knock_bend=u(-4, 4),
        knock_undercut=u(-4, 2),
        take_margin_late=u(-2, 3),
        keep_late=u(-0.5, 1.5),
        danger_took=u(-2, 3),
        danger_late=u(-3, 5),
        knock_last_pips=u(-4, 4),
        keep_took=u(-0.3, 0.5),
        danger_pips=u(0, 2.5),
    )


def _table(game: str, options: dict[str, Any]) -> Any:
    """The table of ``game`` with the rule options among ``options``."""
    return games.get(game).split_options(options)[0]


def compare(
    game: str, options: dict[str, Any], seed: int, n: int, steps: int, ref: Any, fast: Any,
    opp: str, taken: list[int] | None = None,
) -> int:  # fmt: skip
    """Plays the games with the reference at seat 0, the compiled form answering the same
    rows; the number of decisions compared (every one identical, or the test fails)."""
    count = [0]

    def hook(obs: np.ndarray, mask: np.ndarray, out: dict[str, np.ndarray]) -> np.ndarray:
        want = ref.act(obs, mask)
        got = fast.act(obs, mask)
        bad = np.flatnonzero(want != got)
        assert not len(bad), (
            f"{game} {options} seed {seed}: row {bad[0]} (role {out['role'][bad[0]]}) "
            f"reference {want[bad[0]]}, compiled {got[bad[0]]}"
        )
        count[0] += len(want)
        if taken is not None:  # a captain's moves that are not its own agent's: advice taken
            taken[0] += int((want != fast.policy.act(obs, mask)).sum())
        return want

    play(game, options, seed, n, steps, ref, opp, hook)
    return count[0]


def _sets(rng: np.random.Generator, k: int) -> list[HeuristicParams]:
    return [*OLD_PARAMS.values(), WIDE, *(random_params(rng) for _ in range(k))]


def _run(num_envs: int, steps: int, draws: int, stride: int = 1) -> int:
    total = 0
    rng = np.random.default_rng(2024)
    all_cases = cases()
    for i, (game, _label, options) in enumerate(all_cases[::stride]):
        for j, params in enumerate(_sets(rng, draws)):
            ref = PerRow(HeuristicAgent(params, rules=_table(game, options)))
            fast = BatchedHeuristic(params, rules=_table(game, options))
            opp = OPPONENTS[(i + j) % len(OPPONENTS)]
            total += compare(game, options, 1000 * i + j, num_envs, steps, ref, fast, opp)
    return total


#: L2 with the match levers (the match score moves the knock and the wait for gin).
MATCH = HeuristicParams(
    match_knock=3.0, match_gin=2.5, gin_outs=1, gin_stock=4, gin_deadwood=5, knock_late=6
)


@pytest.mark.parametrize(
    "game,options",
    [
        ("gin", {"target_score": 40, "undercut_bonus": 25, "dealer_rule": "alternate_scored"}),
        ("three_handed", {"target_score": 40}),
    ],
)
def test_compiled_l2_reads_the_match_score_as_the_reference(
    game: str, options: dict[str, Any]
) -> None:
    # The levers see the table's target and dealer rule (the table itself).
    table = _table(game, options)
    ref = PerRow(HeuristicAgent(MATCH, rules=table))
    fast = BatchedHeuristic(MATCH, rules=table)
    assert compare(game, options, 11, 6, 400, ref, fast, "simple") > 500
    # ... and the score moves some decisions (against the same player without the levers).
    plain = BatchedHeuristic(replace(MATCH, match_knock=0.0, match_gin=0.0), rules=table)
    moved = [0]

    def hook(obs: np.ndarray, mask: np.ndarray, out: dict[str, np.ndarray]) -> np.ndarray:
        want = fast.act(obs, mask)
        moved[0] += int((want != plain.act(obs, mask)).sum())
        return want

    play(game, options, 11, 6, 400, fast, "simple", hook)
    assert moved[0] > 0


def test_compiled_l2_plays_the_reference_moves_fast() -> None:
    assert _run(num_envs=4, steps=24, draws=1, stride=6) > 800


@pytest.mark.slow
def test_compiled_l2_plays_the_reference_moves_over_every_option_set() -> None:
    assert _run(num_envs=16, steps=90, draws=4) >= 100_000


def _advice_run(num_envs: int, steps: int) -> int:
    total = 0
    taken = [0]
    specs = ("captain", "captain:mode=follow", "captain:agent=simple", "adviser",
             "captain:margin=0.5,knock_late=5,danger_took=1.0")  # fmt: skip
    for i, (game, _label, options) in enumerate(cases(("three_handed",))):
        spec = specs[i % len(specs)]
        ref = PerRow(agents.seat(spec, _table(game, options)))
        fast = seat_batched(spec, _table(game, options))
        opp = OPPONENTS[i % 3]
        captain = isinstance(fast, BatchedCaptain) and fast.mode == "weigh"
        total += compare(
            game, options, 77 + i, num_envs, steps, ref, fast, opp, taken if captain else None
        )
    assert taken[0] > 0  # the weighing took some advice over the captain's own move
    return total


def test_compiled_captain_and_adviser_play_the_reference_moves_fast() -> None:
    assert _advice_run(num_envs=3, steps=20) > 300


@pytest.mark.slow
def test_compiled_captain_and_adviser_play_the_reference_moves() -> None:
    assert _advice_run(num_envs=16, steps=200) > 15_000


def test_seat_batched_gives_the_compiled_l2_with_the_spec_and_the_table() -> None:
    got = seat_batched(
        "heuristic:knock_undercut=-2.0,danger_weight=3.0", GinConfig(undercut_bonus=25)
    )
    assert isinstance(got, BatchedHeuristic)
    assert got.params == HeuristicParams(knock_undercut=-2.0, danger_weight=3.0)
    assert got.rules.undercut_bonus == 25
    captain = seat_batched("captain:mode=follow", ThreeHandedConfig())
    assert isinstance(captain, BatchedCaptain) and isinstance(captain.policy, BatchedHeuristic)
    with pytest.raises(ValueError, match="agent 'heuristic' has no option 'x'"):
        seat_batched("heuristic:x=1", GinConfig())
    with pytest.raises(ValueError, match="captain mode must be one of follow, weigh, ignore"):
        seat_batched("captain:mode=obey", ThreeHandedConfig())


def test_params_vector_follows_the_fields() -> None:
    prm = replace(HeuristicParams(), lookahead=True, knock_late=4)
    vec = params_vector(prm)
    names = [f.name for f in fields(HeuristicParams)]
    assert vec[names.index("lookahead")] == 1.0 and vec[names.index("knock_late")] == 4.0
    assert len(vec) == len(names)


def test_learner_vector_env_plays_the_compiled_l2_at_the_table() -> None:
    from agents.vector import LearnerVectorEnv

    env = LearnerVectorEnv(2, "three_handed", opponents="heuristic", learner=0, undercut_bonus=25)
    seats = env.opponents
    assert seats[0] is None and seats[1] is seats[2]
    assert isinstance(seats[1], BatchedHeuristic) and seats[1].rules.undercut_bonus == 25
    mixed = LearnerVectorEnv(2, "gin", opponents="captain:agent=heuristic,mode=ignore", learner=1)
    assert isinstance(mixed.opponents[0], BatchedCaptain)


@pytest.mark.slow
def test_dmc_plays_its_l2_opponents_and_l2_moves_compiled(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DMC's fixed opponents and its L2 moves (warm start): the rows go to the kernels."""
    from training.train_dmc import Args, train

    rows = [0]
    act = BatchedHeuristic.act

    def counted(self: BatchedHeuristic, obs: np.ndarray, mask: np.ndarray, rng: Any = None) -> Any:
        rows[0] += len(obs)
        return act(self, obs, mask, rng)

    monkeypatch.setattr(BatchedHeuristic, "act", counted)
    common: dict[str, Any] = dict(
        total_steps=300, num_envs=8, hidden="8", batch_size=16, buffer_size=500,
        eval_every=10**9, checkpoint_every=10**9, progress=False, seed=1, keep_best=False,
    )  # fmt: skip
    warm = Args(run_dir=str(tmp_path / "warm"), warm_steps=100, **common)
    assert train(warm)["steps"] >= 300 and rows[0] >= 100  # L2 plays the warm start
    rows[0] = 0
    versus = Args(run_dir=str(tmp_path / "vs"), opponents="heuristic", opponent_share=1.0, **common)
    assert train(versus)["steps"] >= 300 and rows[0] > 200  # L2 holds the other seat
