"""The team-versus-solo study (studies.team_vs_solo): the value of advice is paired by
deal, learned teams are compared with their own adviser, and the command line writes,
redraws and reports its results."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gin_cli import evaluate
from gin_eval import hand_value, luck, play
from gin_eval.checks import OptionError
from gin_eval.duplicate import duplicate_three
from gin_eval.play import play_advice_hands
from gin_eval.stats import mean_ci
from studies import team_vs_solo as tvs
from studies.team_vs_solo import advice_matrix

AGENTS = ["random", "simple", "heuristic"]


def _played(seed: int = 5, index: int = 0) -> dict:
    return play.play_role_hand(AGENTS, seed, index)


def test_advice_gain_is_paired_by_deal() -> None:
    r = advice_matrix(
        {"L1-follow": "captain:agent=simple,mode=follow"},
        {"none": "none", "L2": "adviser:agent=heuristic", "own": "own"},
        hands=12,
        seed=4,
        chunk=5,
    )
    cells = r["cells"]["L1-follow"]
    base = play_advice_hands("captain:agent=simple,mode=follow", "none", "heuristic", 4, 0, 12)
    l2 = play_advice_hands(
        "captain:agent=simple,mode=follow", "adviser:agent=heuristic", "heuristic", 4, 0, 12
    )
    diff = np.array(l2["team_points"]) - np.array(base["team_points"])
    assert cells["L2"]["gain"] == pytest.approx(diff.mean())
    assert cells["L2"]["gain_ci95"] == pytest.approx(mean_ci(diff)[1:])
    # Following its own policy's advice is playing alone: the same deals give the same points.
    assert cells["own"]["gain"] == 0.0 and cells["own"]["gain_ci95"] == (0.0, 0.0)
    assert cells["own"]["follow_rate"] == 1.0 and cells["L2"]["follow_rate"] == 1.0
    assert cells["none"]["follow_rate"] is None  # no suggestion was ever made


def test_learned_advice_pairs_advised_with_muted_and_cross_play_with_the_own_adviser(
    tmp_path,
) -> None:
    follow, l2 = "captain:agent=simple,mode=follow", "heuristic"
    r = tvs.learned_advice({"F": follow}, {"F": follow, "H": l2}, hands=10, seed=3)
    fixed = r["fixed"]["cells"]["F"]
    assert fixed["L2"]["follow_rate"] == 1.0 and fixed["L2"]["when_overrode"]["hands"] == 0
    assert fixed["muted"]["gain"] == 0.0
    # Captain F with H's adviser (L2's suggestions) against its own (L1's), deal by deal.
    own = play_advice_hands(follow, follow, "heuristic", 3, 0, 10)["team_points"]
    other = play_advice_hands(follow, l2, "heuristic", 3, 0, 10)["team_points"]
    diff = np.array(other, float) - own
    cross = r["cross_play"]
    assert cross["F"]["H"]["vs_own"] == pytest.approx(diff.mean())
    assert cross["F"]["H"]["vs_own_ci95"] == pytest.approx(mean_ci(diff)[1:])
    assert cross["F"]["F"] == {"vs_own": 0.0, "vs_own_ci95": (0.0, 0.0)}
    # L2 as captain ignores advice: any adviser, or none, gives the same hands.
    assert cross["H"]["F"]["vs_own"] == 0.0 and r["joint"]["cells"]["H"]["H"]["gain"] == 0.0
    assert "points" not in r["joint"]
    out = tvs.main(["learned", "--hands", "3", "--out", str(tmp_path), "--captains",
                           "F=" + follow, "--joint", "H=heuristic",
                           "--agreement-hands", "2"])  # fmt: skip
    assert out["agreement"]["H"]["agreement"] == 1.0  # L2 advising agrees with L2
    assert set(out["joint"]["cells"]["H"]) == {"H", "muted"}
    rows = (tmp_path / "team_learned.csv").read_text().splitlines()
    assert rows[0].startswith("group,captain,adviser") and len(rows) == 1 + 4
    assert (tmp_path / "team_learned.png").exists()
    # --keep: a second command adds a group, keeping the one already written.
    tvs.main(["learned", "--hands", "3", "--out", str(tmp_path), "--keep", "--joint",
                     "L1=simple", "--agreement-hands", "3"])  # fmt: skip
    kept = json.loads((tmp_path / "team_learned.json").read_text())
    assert set(kept["fixed"]["cells"]) == {"F"} and set(kept["joint"]["cells"]) == {"L1"}
    assert 0 < kept["agreement"]["L1"]["agreement"] < 1  # L1's suggestions: often not L2's
    with pytest.raises(SystemExit):
        tvs.main(["learned", "--hands", "4", "--out", str(tmp_path), "--keep", "--joint",
                         "L1=simple"])  # fmt: skip
    assert "| joint | L1 | L1 |" in tvs.main(["report", "--out", str(tmp_path)])["report"]
    with pytest.raises(SystemExit):
        tvs.main(["learned", "--out", str(tmp_path)])


def test_team_vs_solo_cli_writes_results_and_redraws(tmp_path) -> None:
    tvs.main(
        ["advice", "--hands", "3", "--out", str(tmp_path), "--captains", "L1=simple",
         "--advisers", "none=none;muted=muted"]
    )  # fmt: skip
    r = json.loads((tmp_path / "team_advice.json").read_text())
    assert set(r["cells"]["L1"]) == {"none", "muted"}
    tvs.main(["balance", "--matches", "2", "--out", str(tmp_path)])
    assert (tmp_path / "team_balance.csv").exists()
    (tmp_path / "team_advice.png").unlink()
    tvs.main(["plot", "--out", str(tmp_path)])
    assert (tmp_path / "team_advice.png").exists() and (tmp_path / "team_balance.png").exists()
    text = tvs.main(["report", "--out", str(tmp_path)])["report"]
    assert "| L1 (alone" in text and "undercut bonus 25" in text
    with pytest.raises(SystemExit):
        tvs.main(["advice", "--hands", "0", "--out", str(tmp_path)])


def test_adjust_flags_on_the_command_lines(tmp_path, capsys) -> None:
    r = tvs.main(
        ["duplicate", "--agents", "random,simple,heuristic", "--unit", "hand", "--deals", "4",
         "--adjust", "--adjust-deals", "200", "--out", str(tmp_path)]
    )  # fmt: skip
    assert r["adjusted"] and all("points_ratio_adjusted" in row for row in r["half_widths"])
    assert "Median ratio plain / adjusted" in capsys.readouterr().out
    for ext in ("json", "csv", "png"):
        assert (tmp_path / f"team_duplicate_hands_deal.{ext}").exists()
    assert "adj_pts_low" in (tmp_path / "team_duplicate_hands_deal_edges.csv").read_text()
    assert "Adjusted for the deal" in tvs.report(tmp_path)
    r = evaluate.main(
        ["three", "--agents", "random,simple,heuristic", "--duplicate", "hand", "--adjust",
         "--matches", "2", "--adviser", "suggest", "--out", str(tmp_path), "--name", "adj",
         "--no-plot", "--no-progress"]
    )  # fmt: skip
    assert "adjusted_ci95" in r["adviser_on"]["per_agent"]["simple"]["roles"]["captain"]
    with pytest.raises(SystemExit):  # --adjust without the duplicate design
        evaluate.main(["three", "--agents", "random,simple,heuristic", "--adjust", "--matches",
                       "1", "--out", str(tmp_path), "--no-plot"])  # fmt: skip
    with pytest.raises(SystemExit):
        tvs.main(["duplicate", "--unit", "hand", "--deals", "1", "--adjust",
                         "--adjust-deals", "1", "--out", str(tmp_path)])  # fmt: skip


def test_luck_flags_and_bad_inputs(tmp_path, capsys) -> None:
    r = tvs.main(
        ["duplicate", "--agents", "random,simple,heuristic", "--unit", "hand", "--deals", "4",
         "--adjust", "draws", "--adjust-deals", "200", "--out", str(tmp_path)]
    )  # fmt: skip
    assert r["adjust"] == "draws" and all(
        "points_ratio_adjusted" in row for row in r["half_widths"]
    )
    assert "Corrected for the luck of the deal and of every stock draw" in capsys.readouterr().out
    for ext in ("json", "csv", "png"):
        assert (tmp_path / f"team_duplicate_hands_draws.{ext}").exists()
    assert "every stock draw" in tvs.report(tmp_path)
    r = evaluate.main(
        ["three", "--agents", "random,simple,heuristic", "--duplicate", "hand", "--adjust",
         "draws", "--matches", "2", "--adviser", "suggest", "--out", str(tmp_path), "--name",
         "luck", "--no-plot", "--no-progress"]
    )  # fmt: skip
    assert r["adviser_on"]["adjust"] == "draws"
    with pytest.raises(SystemExit):
        tvs.main(["duplicate", "--deals", "1", "--adjust", "dice", "--out", str(tmp_path)])
    with pytest.raises(OptionError, match="adjust must be"):
        duplicate_three(AGENTS, deals=1, unit="hand", adjust="dice")
    h = _played()
    bad = [(1 - h["actions"][0][0], h["actions"][0][1])] + list(h["actions"][1:])
    with pytest.raises(ValueError, match="replay diverged at action 0"):
        hand_value.replay_hand(h["deck"], bad)
    with pytest.raises(ValueError, match="replay diverged"):  # past the end of the hand
        hand_value.replay_hand(h["deck"], list(h["actions"]) + [h["actions"][-1]])
    with pytest.raises(ValueError, match="draw decision"):
        luck.draw_features(hand_value.replay_hand(h["deck"], []))
