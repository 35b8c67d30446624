"""The reply reader against replies written by someone who had not read it (fresh eyes):
each corpus answers real prompts (``tests/data/reply_states.json``, made by
``studies/reply_corpus/make_states.py``) with the move its writer meant, or "refuse".
Corpus ``a`` was written before the reader learned negation, deferral and fallbacks; corpus
``b`` after its first round, by a new writer; corpus ``c`` after its second, by a third (a
held-out check, read before the last round). None may be read as another move;
over-refusals are listed and counted. Beside them, the misreads a researcher found (issue
55), one by one."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gin_env import actions as A
from gin_env import rummy_actions as R
from gin_env.cards import parse_card, parse_cards
from gin_env.text.replies import ReplyContext, ReplyError, parse_advice, parse_reply
from gin_env.text.words import move_words

DATA = Path(__file__).parent / "data"
STATES = {s["id"]: s for s in json.loads((DATA / "reply_states.json").read_text())}
CORPORA = sorted(DATA.glob("replies_fresh_*.jsonl"))


def _load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


_TOP = re.compile(r"^(?:Upcard|Top of the discard pile): (\w\w)\.|^Discard pile.*?(\w\w)\.$", re.M)
_HAND_LINE = re.compile(r"^(?:Your|The captain's) hand \(\d+ cards\): ([\w ]+)$", re.M)
_SUGGESTION = re.compile(r"^Your adviser suggests: (.+)\.$", re.M)


def context_of(prompt: str, game: str) -> ReplyContext:
    """What the seat sees that a reply may point at, read off its prompt (the env takes it
    from the seat's view: ``gin_env.text.views.reply_context``)."""
    top, hand, said = _TOP.search(prompt), _HAND_LINE.search(prompt), _SUGGESTION.search(prompt)
    suggestion = None
    if said and said.group(1) != "no advice":
        suggestion = A.parse_action(said.group(1))
    return ReplyContext(
        top=parse_card(top.group(1) or top.group(2)) if top else None,
        hand=tuple(parse_cards(hand.group(1))) if hand else None,
        suggestion=suggestion,
    )


def read(state: dict, reply: str) -> str:
    """The reply's move in words as the game reads it, or "refuse"."""
    game, legal = state["game"], state["legal_ids"]
    context = context_of(state["prompt"], game) if "prompt" in state else None
    try:
        if state["kind"] == "advice":
            move = parse_advice(reply, legal, context)
        else:
            move = parse_reply(reply, legal, game, context)
    except ReplyError:
        return "refuse"
    return move_words(move, game)


def test_the_states_are_the_prompts_legal_moves() -> None:
    assert len(STATES) >= 22
    for s in STATES.values():
        assert [move_words(a, s["game"]) for a in s["legal_ids"]] == s["legal"]
        assert "Legal moves:" in s["prompt"] or "Suggest one of" in s["prompt"]


@pytest.mark.parametrize("path", CORPORA, ids=[p.stem for p in CORPORA])
def test_a_fresh_corpus_is_never_misread(path: Path) -> None:
    rows = _load(path)
    assert len(rows) >= 300
    assert {r["state"] for r in rows} == set(STATES), "every state answered"
    misread, refused, right = [], [], 0
    for r in rows:
        got = read(STATES[r["state"]], r["reply"])
        if got == r["meant"]:
            right += 1
        elif got == "refuse":
            refused.append(r)
        else:
            misread.append((r["state"], r["reply"][:120], r["meant"], got))
    print(f"\n{path.name}: {right}/{len(rows)} read as meant ({right / len(rows):.1%}), "
          f"{len(misread)} read as another move, {len(refused)} refused though clear")  # fmt: skip
    for r in refused:
        print(f"  over-refused [{r['state']}] {r['reply'][:100]!r} (meant {r['meant']})")
    assert not misread, misread
    assert right / len(rows) >= 0.95


_HAND = "3H TH 4C 4D 6S 9D 9S QS KS KC 5C"
GIN = [A.DISCARD + c for c in parse_cards(_HAND)] + [
    A.KNOCK + parse_card(c) for c in ("4C", "4D", "3H")
]
ADVICE = [*GIN, A.NO_ADVICE]
RUMMY = [R.discard(c) for c in parse_cards("AD 5H 6H 7H KC")] + [
    R.meld(sum(1 << c for c in parse_cards("5H 6H 7H")))
]
LONG = "**Move: discard KS**\n\n" + (
    "Let me explain. The QS sits next to nothing; discarding QS keeps the king. " * 70
)

#: The turn's misreads (issue 55): (legal, reply, meant; "refuse" where no one move stands).
CASES: list[tuple[list[int], str, str]] = [
    (GIN, "I won't knock yet; discard 4C.", "discard 4C"),
    (GIN, "Knock 4C? No — too risky. Discard 4C.", "discard 4C"),
    (GIN, "I'll knock next turn; for now, discard 3H.", "discard 3H"),
    (GIN, "Aiming for gin: discard 4C", "discard 4C"),
    (ADVICE, "Don't knock; discard 6S and keep building.", "discard 6S"),
    (GIN, "Best move: discard KS\nRunner-up move: discard KC", "discard KS"),
    (GIN, LONG, "discard KS"),
    (GIN, "Discard KS or KC, both are equivalent", "refuse"),
    (GIN, "Discard 4D, or knock 4D if you feel lucky", "refuse"),
    (GIN, "Discard 9D and 9S", "refuse"),
    (GIN, "Discarding QS would break my set, so I'll discard KC instead.", "discard KC"),
    (
        GIN,
        '{"thought": "Discard QS? No...", "action": {"type": "discard", "card": "KS"}}',
        "discard KS",
    ),
    (GIN, "\\boxed{K\\spadesuit}", "discard KS"),
    (RUMMY, "discard A♦", "discard AD"),
    (RUMMY, "A♦", "discard AD"),
    (GIN, "Discard the A♦? No: I'll throw the 10♥.", "discard TH"),
]


@pytest.mark.parametrize(("legal", "reply", "meant"), CASES)
def test_the_turns_misreads(legal: list[int], reply: str, meant: str) -> None:
    game = "rummy" if legal is RUMMY else "three_handed"
    state = {"game": game, "legal_ids": legal, "kind": "advice" if legal is ADVICE else "move"}
    assert read(state, reply) == meant


def test_a_reply_is_read_whole_however_long() -> None:
    reply = "Move: discard KS\n" + "The QS, QS, QS is a fine card to keep. " * 20_000
    assert len(reply) > 500_000
    assert parse_reply(reply, GIN, "gin") == A.DISCARD + parse_card("KS")
