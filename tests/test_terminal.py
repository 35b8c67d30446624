"""The terminal's reasons for a refused move (gin_cli.terminal.explain_illegal): read from
the table in play's legal moves and the view of the seat to act, the same for an action id
and for the IllegalAction the table raised, and never naming a hand that seat does not see."""

from __future__ import annotations

import numpy as np
import pytest

from gin_cli.terminal import explain_illegal, human_view
from gin_env import actions as A
from gin_env import rummy_actions as R
from gin_env.cards import card_str
from gin_env.config import GinConfig, RummyConfig, ThreeHandedConfig
from gin_env.table_state import TableState


def _until(state: TableState, wanted, seed: int = 0) -> TableState:
    """Random legal play until ``wanted(state)``."""
    rng = np.random.default_rng(seed)
    for _ in range(2000):
        if wanted(state):
            return state
        state.apply(int(rng.choice(state.legal_actions())))
    raise AssertionError("never reached")


def _refused(state: TableState, action: int) -> A.IllegalAction:
    with pytest.raises(A.IllegalAction) as err:
        state.apply(action)
    return err.value


def _phase(state: TableState) -> str:
    return state.view(state.to_act).phase_id


def test_a_reason_for_each_phase_of_gin() -> None:
    state = TableState(GinConfig(), seed=3)
    top = card_str(state.view(None).upcard)
    assert (
        explain_illegal(state, A.DRAW_STOCK) == f"the upcard {top} is on offer: 'take' it or 'pass'"
    )
    assert explain_illegal(state, A.NO_ADVICE) == "only the adviser can give no advice"
    assert explain_illegal(state, A.BIG_GIN).startswith("big gin is not on")
    _until(state, lambda s: _phase(s) == "draw")
    assert explain_illegal(state, A.PASS).startswith("the upcard offer is over")
    assert explain_illegal(state, A.DISCARD).startswith("draw first")
    _until(state, lambda s: _phase(s) == "discard")
    view = state.view(state.to_act)
    held = view.hands[state.to_act].cards
    assert explain_illegal(state, A.DRAW_STOCK).startswith("you have drawn already")
    gone = next(c for c in range(52) if c not in held)
    assert explain_illegal(state, A.DISCARD + gone) == f"{card_str(gone)} is not in the hand"
    high = next((c for c in held if A.KNOCK + c not in view.legal), None)
    if high is not None:  # a knock above the limit: the deadwood its discard leaves
        said = explain_illegal(state, A.KNOCK + high)
        assert said == (
            f"no knock: discarding {card_str(high)} leaves deadwood "
            f"{view.leaves[A.DISCARD + high]}, above the knock limit {view.knock_limit}"
        )


@pytest.mark.parametrize("seed", range(4))
def test_the_refusal_and_the_action_id_say_the_same(seed: int) -> None:
    state = TableState(ThreeHandedConfig(), seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(60):
        if state.is_over:
            break
        legal = state.legal_actions()
        for action in rng.choice(A.NUM_ACTIONS, 8):
            if int(action) not in legal:
                err = _refused(state, int(action))
                assert err.legal == tuple(legal)
                assert explain_illegal(state, err) == explain_illegal(state, int(action))
        state.apply(int(rng.choice(legal)))


def test_a_blind_adviser_is_never_told_the_captains_cards() -> None:
    state = TableState(ThreeHandedConfig(adviser_sees_hand=False), seed=1)
    _until(state, lambda s: s.advising and _phase(s) == "discard")
    captain = state.view(None).roles.index("captain")
    held = state.view(None, open_hands=True).hands[captain].cards
    gone = [c for c in range(52) if c not in held]
    said = {
        explain_illegal(state, kind + c)
        for c in (*held[:3], *gone[:3])
        for kind in (A.DISCARD, A.KNOCK)
        if kind + c not in state.legal_actions()
    }
    assert len(said) == 1 and "do not see the captain's hand" in said.pop()


def test_an_adviser_who_sees_the_hand_is_told_about_it() -> None:
    state = TableState(ThreeHandedConfig(adviser_sees_hand=True), seed=1)
    _until(state, lambda s: s.advising and _phase(s) == "discard")
    captain = state.view(None).roles.index("captain")
    held = state.view(state.to_act).hands[captain].cards
    gone = next(c for c in range(52) if c not in held)
    assert explain_illegal(state, A.DISCARD + gone) == f"{card_str(gone)} is not in the hand"


def test_rummy_and_the_view_in_the_terminal() -> None:
    state = TableState(RummyConfig(num_players=3), seed=2)
    refused = next(a for a in range(R.NUM_ACTIONS) if a not in state.legal_actions())
    assert explain_illegal(state, refused) == f"{R.action_str(refused)} is not legal now"
    assert explain_illegal(state, _refused(state, refused)) == explain_illegal(state, refused)
    names = ["ann", "bob", "cy"]
    text = human_view(state, 1, names)
    assert "Hand 1" in text and "your hand" in text and "ann" in text
