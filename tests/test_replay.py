"""Replays: save a finished match, load it, play it back to the same scores, text and GIF."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from records import gin_match_from_deck, rummy_match_from_deck

from gin_env import gin_v0, three_handed_gin_v0
from gin_env import record as replay


def _random_match(module, seed: int, **options):
    env = module.raw_env(**options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while not env.table_state.is_over:
        env.step(int(rng.choice(env.legal_actions())))
    return env


@pytest.mark.parametrize(
    ("module", "options"),
    [(three_handed_gin_v0, {"target_score": 40}), (gin_v0, {"target_score": 30})],
)
def test_saved_match_replays_to_its_scores(tmp_path, module, options) -> None:
    env = _random_match(module, 5, **options)
    path = tmp_path / "match.json"
    saved = replay.save_match(path, 5, options, env, {"player_0": "random"})
    data = replay.load(path)
    assert data == json.loads(json.dumps(saved))
    state = env.table_state
    assert data["scores"] == list(state.scores) and max(data["scores"]) >= options["target_score"]
    assert len(data["hands"]) == len(state.history)
    end = replay.replay_env(data)
    assert end.table_state.scores == state.scores
    assert end.table_state.winner == state.winner
    assert [r.to_dict() for r in end.table_state.history] == data["hands"]


def test_replay_text_has_every_hand_and_the_winner(tmp_path) -> None:
    env = _random_match(three_handed_gin_v0, 8, target_score=40)
    data = replay.match_record(8, {"target_score": 40}, env)
    text = replay.replay_text(data)
    finished = [r for r in env.table_state.history if r.result is not None]
    assert text.count("\nhand ") == len(finished)
    assert f"player_{env.table_state.winner} wins the match" in text
    assert f"scores {list(env.table_state.scores)}" in text
    assert "suggests" in text  # the adviser's suggestions are part of the record


def test_tampered_replay_is_rejected(tmp_path) -> None:
    env = _random_match(gin_v0, 9, target_score=30)
    data = replay.match_record(9, {"target_score": 30}, env)
    data["scores"] = [s + 1 for s in data["scores"]]
    with pytest.raises(ValueError, match="diverged"):
        replay.replay_env(data)
    data = replay.match_record(9, {"target_score": 30}, env)
    data["seed"] = 10  # other deals: the first deck no longer matches
    with pytest.raises(ValueError, match="diverged"):
        replay.replay_env(data)


def test_bad_files_are_clear_errors(tmp_path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        replay.load(bad)
    bad.write_text(json.dumps({"format": 1, "game": "poker", "seed": 0, "options": {},
                               "hands": [], "scores": []}))  # fmt: skip
    with pytest.raises(ValueError, match="game must be one of"):
        replay.load(bad)


def test_replay_gif(tmp_path) -> None:
    pil = pytest.importorskip("PIL.Image")
    env = _random_match(three_handed_gin_v0, 4, target_score=20)
    data = replay.match_record(4, {"target_score": 20}, env)
    path = tmp_path / "hand.gif"
    frames = replay.replay_gif(data, path, hands=[1], max_frames=12)
    assert 2 <= frames <= 12
    with pil.open(path) as gif:
        assert gif.n_frames == frames
        assert gif.size == (1040, 640)


def test_binary_garbage_is_a_clear_error_naming_the_file(tmp_path) -> None:
    bad = tmp_path / "garbage.json"
    bad.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(ValueError, match=r"garbage\.json.*not UTF-8") as err:
        replay.load(bad)
    assert not isinstance(err.value, UnicodeDecodeError)


def _saved(tmp_path, module=gin_v0, seed: int = 9, **options):
    env = _random_match(module, seed, **(options or {"target_score": 30}))
    path = tmp_path / "match.json"
    replay.save_match(path, seed, options or {"target_score": 30}, env)
    return path, json.loads(path.read_text())


def _set(data, path, value):
    """Set (value is not _DROP) or remove the field at ``path`` (a tuple of keys/indices)."""
    target = data
    for key in path[:-1]:
        target = target[key]
    if value is _DROP:
        target.pop(path[-1])
    else:
        target[path[-1]] = value


_DROP = object()


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        (("hands",), 5, "field hands: expected a list"),
        (("hands", 0, "actions", 3), "x", r"field hands\[0\]\.actions\[3\]: expected a list"),
        (("hands", 0, "actions", 3, 1), 500, r"hands\[0\]\.actions\[3\]\[1\] \(action id\)"),
        (("hands", 0, "actions", 2, 0), 7, r"hands\[0\]\.actions\[2\]\[0\] \(player\)"),
        (("hands", 0, "deck"), list(range(40)), r"hands\[0\]\.deck: expected 52 entries"),
        (("hands", 0, "deck", 4), 1.5, r"hands\[0\]\.deck\[4\]: expected an integer"),
        (("hands", 0, "scores_after"), 3, r"hands\[0\]\.scores_after: expected a list"),
        (("hands", 0, "players"), [0], r"hands\[0\]\.players: expected 2 entries"),
        (("hands", 0, "result", "kind"), "poker", r"hands\[0\]\.result\.kind"),
        (("hands", 0, "result", "points"), "ten", r"hands\[0\]\.result\.points"),
        (("hands", 0, "roles"), _DROP, r"field hands\[0\]: missing key\(s\) roles"),
        (("hands", 0, "index"), 4, r"hands\[0\]\.index: expected an integer in 0\.\.0"),
        (("scores",), [1, 2, 3], "field scores: expected 2 entries"),
        (("seed",), "seven", "field seed"),
        (("options",), [1], "field options: expected an object"),
        (("agents",), {"player_0": 3}, r"field agents\.player_0"),
        (("winner",), 2, r"field winner: expected an integer in 0\.\.1"),
        (("seed",), True, "field seed"),
    ],
)
def test_corrupt_structure_names_the_file_and_the_field(tmp_path, path, value, field) -> None:
    file, data = _saved(tmp_path)
    _set(data, path, value)
    file.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=field) as err:
        replay.load(file)
    assert "match.json" in str(err.value)


def test_bad_options_in_a_replay_are_a_value_error_naming_the_field(tmp_path) -> None:
    file, data = _saved(tmp_path)
    data["options"] = {"knock_limit": 99}
    with pytest.raises(ValueError, match="options.*knock_limit"):
        replay.replay_env(data)
    data["options"] = {"no_such_option": 1}
    with pytest.raises(ValueError, match="options"):
        replay.replay_env(data)


def test_any_single_corruption_is_a_value_error(tmp_path) -> None:
    """Every field of saved gin, Hollywood and three-handed replays, replaced by a value of
    another type or range (or removed), is refused with a ValueError: by load's structure
    check or by the playback's check against the record, never a TypeError/IndexError."""
    records = [
        _saved(tmp_path, gin_v0, 9, target_score=30)[1],
        _saved(tmp_path, gin_v0, 2, target_score=30, hollywood=True)[1],
        _saved(tmp_path, three_handed_gin_v0, 5, target_score=40)[1],
    ]

    def paths(x, prefix=()):
        yield prefix
        if isinstance(x, dict):
            items = list(x.items())
        else:
            items = list(enumerate(x[:4])) if isinstance(x, list) else []
        for k, v in items:
            yield from paths(v, (*prefix, k))

    values = [None, -1, 0, 1, 2, 3, 52, 108, 109, 1.5, "x", [], {}, [0, 0], True, [[0, 1]]]
    rng = np.random.default_rng(0)
    refused = 0
    for trial in range(600):
        data = json.loads(json.dumps(records[trial % 3]))
        candidates = [p for p in paths(data) if p]
        path = candidates[rng.integers(len(candidates))]
        _set(data, path, _DROP if rng.random() < 0.15 else values[rng.integers(len(values))])
        try:
            replay.check(data, "f")
            replay.replay_text(data)
        except ValueError:
            refused += 1
    assert refused > 400  # most corruptions are caught; the rest replay (e.g. agents names)


def test_cli_replay_of_a_bad_file_is_one_line_without_traceback(tmp_path) -> None:
    from click.testing import CliRunner

    from gin_cli.main import cli

    garbage = tmp_path / "garbage.json"
    garbage.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe")
    file, data = _saved(tmp_path)
    data["hands"][0]["actions"] = 7
    file.write_text(json.dumps(data))
    for path, field in ((garbage, "not UTF-8"), (file, "hands[0].actions")):
        result = CliRunner().invoke(cli, ["replay", str(path)])
        assert result.exit_code == 2, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error:"), result.output
        assert path.name in lines[0] and field in lines[0]
        assert "Traceback" not in result.output


# -- a record's structure is checked before it is played back -----------------------------
def _swap(items: list, i: int = 0, j: int = 1) -> list:
    items = list(items)
    items[i], items[j] = items[j], items[i]
    return items


def _repeat_card(deck: list) -> None:
    deck[0] = deck[1]


TAMPERS = {
    # name: (game, change to the record, expected message)
    "players repeated": (3, lambda d: d["hands"][0].update(players=[1, 1]), "two different"),
    "players swapped": (3, lambda d: d["hands"][0].update(players=d["hands"][0]["players"][::-1]),
                        "as roles gives them"),
    "player out of range": (2, lambda d: d["hands"][0].update(players=[0, 2]), "players[1]"),
    "roles repeated": (3, lambda d: d["hands"][0].update(roles=[0, 0, 1]), "each role 0..2 once"),
    "roles out of range": (2, lambda d: d["hands"][0].update(roles=[0, 2]), "roles[1]"),
    "roles short": (3, lambda d: d["hands"][0].update(roles=[0, 1]), "expected 3 entries"),
    "roles permuted": (3, lambda d: d["hands"][1].update(
        roles=[d["hands"][1]["roles"][i] for i in (1, 2, 0)],
        players=[[d["hands"][1]["roles"][i] for i in (1, 2, 0)].index(r) for r in (1, 0)]),
        "seats players"),
    "deck card repeated": (2, lambda d: _repeat_card(d["hands"][0]["deck"]), "is there twice"),
    "deck short": (3, lambda d: d["hands"][1]["deck"].pop(), "expected 52 entries"),
    "deck reordered": (2, lambda d: d["hands"][0].update(deck=_swap(d["hands"][0]["deck"])),
                       "deck differs"),
    "role deck repeated": (3, lambda d: d["role_deck"].__setitem__(5, d["role_deck"][6]),
                           "role_deck: expected each card"),
    "role deck reordered": (3, lambda d: d.update(role_deck=_swap(d["role_deck"], 0, 51)),
                            "role draw"),
    "agents seat": (3, lambda d: d["agents"].update(player_3="random"), "player_0, player_1"),
    "result winner not in hand": (3, lambda d: d["hands"][0]["result"].update(
        winner=({0, 1, 2} - set(d["hands"][0]["players"])).pop()), "the hand's players"),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(TAMPERS))
def test_tampered_record_is_refused_by_name(name: str) -> None:
    players, tamper, message = TAMPERS[name]
    module, options = (
        (three_handed_gin_v0, {"target_score": 40})
        if players == 3
        else (gin_v0, {"target_score": 30})
    )
    env = _random_match(module, 11, **options)
    data = json.loads(json.dumps(replay.match_record(11, options, env, {"player_0": "random"})))
    assert len(data["hands"]) >= 2
    replay.check(data)  # the untouched record passes
    tamper(data)
    with pytest.raises(ValueError, match=re.escape(message)):
        replay.check(data)
        replay.replay_env(data)


def test_a_match_dealt_from_a_given_deck_replays_from_it(tmp_path) -> None:
    # Duplicate evaluation deals a deck given at reset: the seed alone does not fix hand 1,
    # so the record holds that deck (first_deck), and a replay deals it again.
    deck = np.random.default_rng(11).permutation(52).tolist()
    for module, options in ((gin_v0, {"target_score": 30}), (three_handed_gin_v0, {})):
        env, made = gin_match_from_deck(module, options, 4, deck)
        path = tmp_path / f"{module.__name__}.json"
        path.write_text(json.dumps(made))
        data = replay.load(path)
        assert data["first_deck"] == deck == data["hands"][0]["deck"]
        assert replay.replay_env(data).table_state.scores == env.table_state.scores
        assert replay.replay_text(data).count("\nhand ") == len(env.table_state.history)
        # Without it the seed deals another hand 1: the replay says where it diverged.
        with pytest.raises(ValueError, match="hand 1's deck differs"):
            replay.replay_env({k: v for k, v in data.items() if k != "first_deck"})
        # A first deck that is not hand 1's is refused by name.
        other = {**data, "first_deck": deck[::-1]}
        with pytest.raises(ValueError, match="first_deck"):
            replay.check(other)
        with pytest.raises(ValueError, match=r"first_deck\[0\]"):
            replay.check({**data, "first_deck": [1.5, *deck[1:]]})


def test_a_rummy_record_replays_its_moves_from_its_deck() -> None:
    deck = np.random.default_rng(3).permutation(52).tolist()
    env, data = rummy_match_from_deck({"num_players": 3, "max_turns": 90}, 8, deck)
    assert data["first_deck"] == deck and data["format"] == replay.RUMMY_FORMAT
    end = replay.replay_moves(data)
    assert end.table_state.scores == env.table_state.scores
    with pytest.raises(ValueError, match="diverged"):
        replay.replay_moves({**data, "first_deck": None})
    with pytest.raises(ValueError, match="diverged at move 1"):
        replay.replay_moves({**data, "moves": [[1, 0], *data["moves"]]})
