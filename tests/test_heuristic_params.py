"""L2's wider parameter family: at their defaults the new fields leave every move as it was
(the moves recorded before they existed, ``tests/data/l2_moves.npz``, written by
``tests/record_l2_moves.py``), and each of them moves what it says it moves."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from l2_play import OLD_PARAMS, cases, play
from record_l2_moves import NUM_ENVS, STEPS, key

import agents
from agents.base import ObservedSeat
from agents.batched import PerRow
from agents.heuristic import HeuristicAgent, HeuristicParams
from gin_env import actions as A
from gin_env import games
from gin_env.cards import POINTS, parse_cards
from gin_env.config import GinConfig, HandRules

RECORDED = dict(np.load(Path(__file__).parent / "data" / "l2_moves.npz"))
NEW_FIELDS = (
    "knock_bend",
    "knock_undercut",
    "take_margin_late",
    "keep_late",
    "danger_took",
    "danger_late",
    "knock_last_pips",
    "keep_took",
)


def _replay(which: list[str]) -> int:
    """Replays the recorded games whose keys are in ``which``; the decisions compared."""
    done = 0
    for i, (game, label, options) in enumerate(cases()):
        for j, (pname, params) in enumerate(OLD_PARAMS.items()):
            for k, moves in RECORDED.items():
                if k not in which or not k.startswith(key(game, label, pname, "")):
                    continue
                opp = k.rsplit("|", 1)[1]
                # The table's rules reach the agent as agents.seat gives them.
                rules = games.get(game).split_options(options)[0].hand_rules()
                l2 = PerRow(HeuristicAgent(params, rules=rules))
                now = play(game, options, 100 * i + j, NUM_ENVS, STEPS, l2, opp)
                n = min(len(now), len(moves))
                diff = np.flatnonzero(now[:n] != moves[:n])
                assert not len(diff) and len(now) == len(moves), (
                    f"{k}: first different move at decision {diff[0] if len(diff) else n}"
                )
                done += len(moves)
    return done


def test_new_fields_default_to_zero_and_are_numbers() -> None:
    prm = HeuristicParams()
    assert all(getattr(prm, f) == 0.0 for f in NEW_FIELDS)
    assert prm.danger_pips == 1.0  # the weight by pips L2 always had
    with pytest.raises(ValueError, match="knock_undercut must be a finite number, got 'x'"):
        HeuristicParams(knock_undercut="x")  # type: ignore[arg-type]


def test_defaults_replay_the_recorded_moves_fast() -> None:
    which = [k for k in RECORDED if k.split("|")[1] in ("default", "eaai", "eaai/suggest")]
    which = [k for k in which if k.split("|")[2] == "defaults"]
    assert _replay(which) > 3000


@pytest.mark.slow
def test_every_old_parameter_set_replays_the_recorded_moves() -> None:
    assert _replay(list(RECORDED)) == sum(len(m) for m in RECORDED.values()) > 90_000


def _view(hand: str, stock: int, took: str = "") -> ObservedSeat:
    cards = parse_cards(hand)
    mask = sum(1 << c for c in cards)
    took_mask = sum(1 << c for c in parse_cards(took)) if took else 0
    legal = [A.DISCARD + c for c in cards]
    return ObservedSeat(0, 3, False, mask, -1, 0, took_mask, 0, 0, stock, -1, legal)


def test_knock_threshold_bends_with_the_stock_and_follows_the_undercut_bonus() -> None:
    full, mid, empty = (_view("AS", s) for s in (31, 16, 2))
    bent = HeuristicAgent(HeuristicParams(knock_bend=4.0))
    # 4 f (1 - f) is 0 at both ends and about 1 at mid stock.
    assert [bent.knock_limit(v) for v in (full, mid, empty)] == [10, 14, 10]
    prm = HeuristicParams(knock_undercut=-2.0)
    assert HeuristicAgent(prm).knock_limit(full) == 10  # standard rules: undercut 10
    assert HeuristicAgent(prm, rules=HandRules(undercut_bonus=25)).knock_limit(full) == 7
    assert agents.make("heuristic:knock_undercut=-2.0,undercut_bonus=25").knock_limit(full) == 7
    seated = agents.seat("heuristic:knock_undercut=-2.0", GinConfig(undercut_bonus=30))
    assert seated.knock_limit(full) == 6
    with pytest.raises(ValueError, match="rules must be a gin table"):
        HeuristicAgent(prm, rules={"undercut_bonus": 25})  # type: ignore[arg-type]


def test_take_margin_keep_and_danger_weights_move_with_stock_and_pickups() -> None:
    late = HeuristicParams(take_margin_late=3.0)
    assert HeuristicAgent(late).take_margin(_view("AS", 31)) == 0.5
    assert HeuristicAgent(late).take_margin(_view("AS", 2)) == 3.5
    hand = "AS 2S 3S 7H 8H KD QC 9C 5D 4H JS"
    # Kept deadwood weighs more late: every discard's score rises with it, none early.
    base, dws = HeuristicAgent().keep_scores(_view(hand, 5), _view(hand, 5).hand)
    keep = HeuristicAgent(HeuristicParams(keep_late=1.0))
    heavier = keep.keep_scores(_view(hand, 5), _view(hand, 5).hand)[0]
    scored = [c for c in base if base[c] < 100]  # (the others are 12 pips worse than best)
    assert len(scored) > 3
    for c in scored:
        assert heavier[c] - base[c] == pytest.approx(dws[c] * 26 / 29)
    assert (
        keep.keep_scores(_view(hand, 31), _view(hand, 31).hand)[0]
        == HeuristicAgent().keep_scores(_view(hand, 31), _view(hand, 31).hand)[0]
    )
    # Danger counts more once he has picked up cards, in proportion to each risk.
    view = _view(hand, 20, took="6H 9H")
    plain = HeuristicAgent().keep_scores(view, view.hand)[0]
    wary = HeuristicAgent(HeuristicParams(danger_took=2.0)).keep_scores(view, view.hand)[0]
    scored = [c for c in plain if plain[c] < 100]
    risks = HeuristicAgent().dangers(view, view.hand, scored)
    assert len({round(risks[c], 6) for c in scored}) > 2
    for c in scored:  # two pickups: the weight is 5 + 2 x 2
        assert wary[c] - plain[c] == pytest.approx(4 * risks[c] * (1 + POINTS[c] / 10))


def test_knock_reads_his_last_discard_and_kept_deadwood_his_pickups() -> None:
    hand, stock = parse_cards("AS 2S 3S 7H 8H KD QC 9C 5D 4H"), 20
    mask = sum(1 << c for c in hand)
    king, two = parse_cards("KH 2D")

    def view(top: int, his: bool, took: int = 0) -> ObservedSeat:
        legal = [A.DRAW_STOCK, A.TAKE_DISCARD]
        return ObservedSeat(0, 0, False, mask, top, 1 << top, took, (1 << top) * his, 0, stock,
                        -1, legal)  # fmt: skip

    reader = HeuristicAgent(HeuristicParams(knock_last_pips=2.5))
    # (pips - 5) / 5 x 2.5: a king he threw raises the bar 2.5, a deuce lowers it 1.5.
    assert reader.knock_limit(view(king, True)) == 12  # 12.5, half to even
    assert reader.knock_limit(view(two, True)) == 8  # 8.5
    assert reader.knock_limit(view(king, False)) == 10  # our own discard tells nothing
    # After taking from the pile, the card he threw last is the one just taken.
    taken = ObservedSeat(0, 3, False, mask | 1 << king, -1, 0, 0, 1 << king, 0, stock, -1, [])
    assert reader.knock_limit(taken, banned=king) == 12
    assert reader.knock_limit(taken) == 10
    took = sum(1 << c for c in parse_cards("6H 9H"))
    heavy = HeuristicAgent(HeuristicParams(keep_took=0.25))
    assert heavy.keep_weight(view(king, True, took)) == 1.5
    assert heavy.keep_weight(view(king, True)) == 1.0


def test_each_new_field_changes_some_moves() -> None:
    """Wired in: off its default, each field changes L2's moves in some games."""
    base = play("gin", {"undercut_bonus": 25}, 7, 8, 100, PerRow(HeuristicAgent()), "simple")
    values = {
        "knock_bend": -6.0,
        "knock_undercut": -3.0,
        "take_margin_late": 4.0,
        "keep_late": 1.5,
        "danger_took": 4.0,
        "danger_late": 6.0,
        "knock_last_pips": -4.0,
        "keep_took": 0.5,
        "danger_pips": 0.0,
    }
    for f, v in values.items():
        agent = HeuristicAgent(HeuristicParams(**{f: v}), rules=HandRules(undercut_bonus=25))
        now = play("gin", {"undercut_bonus": 25}, 7, 8, 100, PerRow(agent), "simple")
        n = min(len(now), len(base))
        assert (now[:n] != base[:n]).any(), f
