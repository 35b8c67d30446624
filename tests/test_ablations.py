"""The ablation advisers (agents.ablations): what the captain sees under each ablation of
the advice channel, and that they speak only when advising."""

from __future__ import annotations

import numpy as np

import agents
from agents.ablations import MutedAdviser, OwnPolicyAdviser, ShuffledAdviser
from gin_env import actions as A
from gin_env import three_handed_gin_v0
from gin_env.encoding import OBS_SLICES
from gin_eval.play import play_advice_hands

AGENTS = ["random", "simple", "heuristic"]


# -- what the captain sees under each ablation --------------------------------------------------
def _captain_decisions(adviser: str, captain: str = "simple", hands: int = 4) -> list[tuple]:
    r = play_advice_hands(captain, adviser, "heuristic", 7, 0, hands, trace=True)
    return [d for hand in r["trace"] for d in hand]


def test_no_adviser_shows_no_suggestion_and_muted_shows_no_advice() -> None:
    for suggestion, seen, _, _ in _captain_decisions("none"):
        assert suggestion is None and seen == []
    decisions = _captain_decisions("muted")
    assert decisions
    for suggestion, seen, _, _ in decisions:
        assert suggestion == A.NO_ADVICE and seen == [A.NO_ADVICE]


def test_random_legal_suggestion_is_a_legal_move_and_varies() -> None:
    decisions = _captain_decisions("adviser:agent=random", hands=6)
    discards = 0
    for suggestion, seen, legal, _ in decisions:
        assert seen == [suggestion] and suggestion in legal and suggestion != A.NO_ADVICE
        discards += A.DISCARD <= suggestion < A.KNOCK
    assert discards > 0


def test_own_policy_advice_is_what_the_captain_plays() -> None:
    decisions = _captain_decisions("own", captain="heuristic")
    assert decisions
    for suggestion, seen, _, action in decisions:
        assert seen == [suggestion] and action == suggestion


def test_shuffled_advice_is_legal_and_names_other_cards_than_l2() -> None:
    shuffled = _captain_decisions("shuffled", hands=8)
    real = _captain_decisions("adviser:agent=heuristic", hands=8)
    for suggestion, seen, legal, _ in shuffled:
        assert seen == [suggestion] and suggestion in legal and suggestion != A.NO_ADVICE

    def discard_share(ds: list[tuple]) -> float:
        return np.mean([A.DISCARD <= d[0] < A.KNOCK for d in ds])

    # The same form as real advice (mostly discards), different content: L2's captain would
    # agree with real L2 advice always, with shuffled advice far less often.
    assert discard_share(shuffled) > 0.3 and discard_share(real) > 0.3
    agree = [d[0] == d[3] for d in _captain_decisions("shuffled", captain="heuristic", hands=8)]
    assert np.mean(agree) < 0.8
    assert all(d[0] == d[3] for d in _captain_decisions("adviser:agent=heuristic", "heuristic"))


def test_shuffled_relabelling_moves_every_card_part_and_the_mask() -> None:
    env = three_handed_gin_v0.raw_env(episode="hand")
    env.reset(seed=3)
    while not env.table_state.advising:
        env.step(int(agents.make("heuristic").act(env.observe(env.agent_selection))))
    obs = env.observe(env.agent_selection)
    perm = np.random.default_rng(1).permutation(52)
    out = ShuffledAdviser.relabel(obs, perm)
    hand = OBS_SLICES["hand"]
    held = np.flatnonzero(obs["observation"][hand])
    assert sorted(np.flatnonzero(out["observation"][hand])) == sorted(perm[held])
    assert out["action_mask"][A.NO_ADVICE] == 0
    identity = ShuffledAdviser.relabel(obs, np.arange(52))
    assert np.array_equal(identity["observation"], obs["observation"])
    # Relabelled by the identity, shuffled advice is L2's advice.
    l2 = agents.make("adviser:agent=heuristic").act(obs)

    class Identity:
        """A generator whose permutations are the identity."""

        def __init__(self) -> None:
            self.rng = np.random.default_rng(0)

        def permutation(self, n: int) -> np.ndarray:
            return np.arange(n)

        def __getattr__(self, name: str) -> object:
            return getattr(self.rng, name)

    assert ShuffledAdviser().act(obs, Identity()) == l2  # type: ignore[arg-type]


def test_ablation_advisers_only_speak_when_advising() -> None:
    obs = {"observation": np.zeros(436, np.float32), "action_mask": np.zeros(109, np.int8)}
    obs["action_mask"][[A.NO_ADVICE, A.DISCARD + 3]] = 1
    assert MutedAdviser().act(obs) == A.NO_ADVICE
    own = OwnPolicyAdviser(agents.make("random"))
    assert own.act(obs, np.random.default_rng(0)) == A.DISCARD + 3  # NO_ADVICE masked out


def test_adviser_sees_hand_false_silences_the_shipped_advisers() -> None:
    r = play_advice_hands(
        "captain:agent=simple,mode=follow", "adviser:agent=heuristic", "heuristic", 2, 0, 3,
        sees_hand=False, trace=True,
    )  # fmt: skip
    decisions = [d for hand in r["trace"] for d in hand]
    assert decisions and all(d[0] == A.NO_ADVICE for d in decisions)
