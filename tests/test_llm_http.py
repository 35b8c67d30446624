"""Models and endpoints as they are, over real HTTP: a local server that is scripted (not a
model; tests/scripted_openai.py, 127.0.0.1 only, the real ``openai`` client) thinks in
``<think>`` blocks and in ``reasoning_content``, answers in mid-line, returns 500 always,
returns HTML, returns ``null``, cuts replies at the token limit and refuses ``max_tokens``
as a reasoning model does. Each is counted where it belongs: the endpoint's faults are
retried by the transport and never counted as the model's replies; a request is failed
when its retries failed too, and five failed requests in a row stop the run (exit status
2, one line, nothing scored) within a minute, as a refused key, a spent quota or a model
that does not exist do at once; a 30%-faulty endpoint finishes, five runs of five, the
model's invalid rate exactly what the server scripted as invalid."""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scripted_openai import ScriptedServer, scripted_move

import agents
from agents.llm_transport import EndpointError
from gin_cli.evaluate import main as evaluate
from gin_env import games
from gin_eval.gin import gin_duplicate

pytest.importorskip("openai")


def _decision(seed: int = 2) -> dict[str, Any]:
    """The observation of a gin decision with two legal moves (take, pass)."""
    env = games.get("gin").make_env(episode="hand")
    env.reset(seed=seed)
    return env.observe(env.agent_selection)


def _agent(server: ScriptedServer, tmp_path: Path, extra: str = "", **options: Any) -> Any:
    spec = f"llm:model=m,base_url={server.base_url},timeout=2,backoff=0.01{extra}"
    return agents.make(spec, transcript=str(tmp_path / "t.jsonl"), **options)


def _lines(tmp_path: Path) -> list[dict[str, Any]]:
    lines = [json.loads(x) for x in (tmp_path / "t.jsonl").read_text().splitlines()]
    return [x for x in lines if "system" not in x]


def test_thinking_in_think_blocks_and_mid_line_answers(tmp_path: Path) -> None:
    obs = _decision()
    script = [
        ("reply", "<think>\nThe upcard fits nothing. Should I take? No: pass.\n</think>\n\npass"),
        ("reply", "Taking it gives a run draw... no. Final answer: take"),
        ("reasoning", "I weigh take against pass; take.", "take"),
    ]
    with ScriptedServer(script) as server:
        agent = _agent(server, tmp_path)
        assert [agent.act(obs) for _ in range(3)] == [2, 1, 1]
    lines = _lines(tmp_path)
    assert lines[0]["move"] == "pass" and lines[1]["move"] == "take"
    assert lines[2]["reasoning"] == "I weigh take against pass; take."
    s = agent.stats()
    assert s["invalid"] == 0 and s["replies"] == 3 and s["fallback_moves"] == 0


@pytest.mark.parametrize("fault", [("html",), ("null",), ("status", 500), ("status", 429)])
def test_endpoint_faults_are_the_endpoints(tmp_path: Path, fault: tuple[Any, ...]) -> None:
    obs = _decision()
    with ScriptedServer([fault, fault, ("reply", "take")]) as server:
        agent = _agent(server, tmp_path)
        assert agent.act(obs) == 1
        sent = [r["messages"] for r in server.requests]
    assert sent[0] == sent[1] == sent[2]  # the same question again, never a re-ask
    s = agent.stats()
    assert s["transport_faults"] == 2 and s["requests"] == 3 and s["replies"] == 1
    assert s["invalid"] == 0 and s["reasks"] == 0 and s["invalid_rate"] == 0.0
    (line,) = _lines(tmp_path)
    assert len(line["faults"]) == 2 and line["move"] == "take"


def test_a_dead_endpoint_stops_after_five_failed_requests(tmp_path: Path) -> None:
    # A request is failed when its two retries failed too (three tries); the fifth failed
    # request in a row stops the run.
    obs = _decision()
    with ScriptedServer(default=lambda body: ("status", 500)) as server:
        agent = _agent(server, tmp_path)
        with pytest.raises(
            EndpointError, match=r"5 failed requests in a row \(each tried 3 times\), the last "
            "HTTP 500",
        ):  # fmt: skip
            agent.act(obs)
        with pytest.raises(EndpointError):  # and stays given up: no more requests
            agent.act(obs)
        assert len(server.requests) == 15
    s = agent.stats()
    assert s["replies"] == 0 and s["fallback_moves"] == 0 and s["invalid"] == 0


def test_a_failed_request_is_sent_again_and_a_success_resets_the_count(tmp_path: Path) -> None:
    obs = _decision()
    script = [("status", 500)] * 12 + [("reply", "take")] + [("status", 503)] * 12
    script += [("reply", "pass")]
    with ScriptedServer(script) as server:
        agent = _agent(server, tmp_path)
        assert agent.act(obs) == 1  # four failed requests, then the answer
        assert agent.act(obs) == 2  # four more: the count started again
        assert len(server.requests) == 26
    s = agent.stats()
    assert s["failed_requests"] == 8 and s["transport_faults"] == 24 and s["requests"] == 26
    assert s["replies"] == 2 and s["invalid"] == 0 and s["reasks"] == 0
    assert s["failed_request_rate"] == pytest.approx(8 / 26)
    with ScriptedServer([("status", 500)] * 2 + [("reply", "take")]) as server:
        agent = _agent(server, tmp_path, ",transport_retries=0,max_failures=2")
        with pytest.raises(EndpointError, match="2 failed requests in a row"):
            agent.act(obs)
        assert len(server.requests) == 2


def test_eval_against_a_dead_endpoint_exits_2_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's target: against an always-failing endpoint ``gin-rummy eval`` stops in
    under 60 s with one line and exit status 2, scoring nothing (default back-off)."""
    with ScriptedServer(default=lambda body: ("status", 500)) as server:
        llm = f"llm:model=dead,base_url={server.base_url},timeout=5"
        start = time.perf_counter()
        with pytest.raises(SystemExit) as stop:
            evaluate(
                ["gin", "--agents", f"{llm};heuristic", "--pairs", "20", "--concurrency", "4",
                 "--no-plot", "--no-progress", "--out", str(tmp_path / "out")]
            )  # fmt: skip
        seconds = time.perf_counter() - start
        requests = len(server.requests)
    err = capsys.readouterr().err.strip()
    print(f"\ndead endpoint: exit {stop.value.code} after {seconds:.1f} s, {requests} requests:"
          f"\n{err}")  # fmt: skip
    assert stop.value.code == 2 and seconds < 60
    assert len(err.splitlines()) == 1 and "stopped:" in err and "none scored" in err
    assert err.endswith("nothing written")  # no exchange finished: no transcript line either
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_a_stop_says_what_it_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The endpoint dies after some games: the line names the transcript lines and replays
    the run kept (the finished games' exchanges), and no result."""
    lock = threading.Lock()
    served = [0]

    def dies(body: dict[str, Any]) -> tuple[Any, ...] | None:
        with lock:
            served[0] += 1
            return None if served[0] <= 40 else ("status", 401)

    with ScriptedServer(default=dies) as server:
        llm = f"llm:model=dying,base_url={server.base_url},timeout=5"
        with pytest.raises(SystemExit) as stop:
            evaluate(
                ["gin", "--agents", f"{llm};heuristic", "--pairs", "20", "--no-plot",
                 "--no-progress", "--out", str(tmp_path), "--name", "d"]
            )  # fmt: skip
    err = capsys.readouterr().err.strip()
    print(f"\n{err}")
    path = tmp_path / "d_transcript.jsonl"
    lines = path.read_text().splitlines()
    assert stop.value.code == 2 and "the key was refused (HTTP 401" in err
    assert f"kept {len(lines)} transcript lines in {path}; no result written" in err
    assert not (tmp_path / "d.json").exists() and len(lines) > 40


def test_a_reply_cut_at_the_token_limit_is_truncated(tmp_path: Path) -> None:
    obs = _decision()
    cut = "<think>Let me weigh the upcard carefully against my"
    with ScriptedServer([("length", cut), ("reply", "take")]) as server:
        agent = _agent(server, tmp_path, ",max_tokens=64")
        assert agent.act(obs) == 1
        limits = [r["max_tokens"] for r in server.requests]
    assert limits == [64, 128]  # asked again with more room, not re-asked
    s = agent.stats()
    assert s["truncated"] == 1 and s["invalid"] == 0 and s["replies"] == 2
    with ScriptedServer([("length", cut)] * 3) as server:
        agent = _agent(server, tmp_path, ",max_tokens=64,grow=false", retries=0)
        agent.act(obs, np.random.default_rng(0))
    s = agent.stats()
    assert s["truncated"] == 1 and s["invalid"] == 1 and s["fallback_moves"] == 1
    assert _lines(tmp_path)[-2]["error"] == "the reply was cut at the token limit"


def test_reasoning_models_are_called_as_they_require(tmp_path: Path) -> None:
    obs = _decision()
    with ScriptedServer(reasoning_model=True) as server:
        agent = _agent(server, tmp_path, ",max_tokens=256")
        with pytest.raises(EndpointError, match=r"HTTP 400: Unsupported parameter: 'max_tokens'"):
            agent.act(obs)
        assert len(server.requests) == 1  # a refused request is not retried
    with ScriptedServer(reasoning_model=True) as server:
        agent = _agent(
            server, tmp_path, ",max_completion_tokens=2000,reasoning_effort=low",
            extra_body={"seed": 1}, extra_headers={"X-Run": "t"},
        )  # fmt: skip
        assert agent.act(obs) in (1, 2)
        sent = server.requests[0]
    assert "max_tokens" not in sent and "temperature" not in sent
    assert sent["max_completion_tokens"] == 2000 and sent["reasoning_effort"] == "low"
    assert sent["seed"] == 1
    with pytest.raises(ValueError, match="reasoning_effort must be one of minimal, low"):
        agents.make("llm:model=m,reasoning_effort=huge")


def test_refused_key_and_spent_quota_stop_at_once(tmp_path: Path) -> None:
    obs = _decision()
    quota = {"message": "You exceeded your current quota, please check your plan.",
             "type": "insufficient_quota", "code": "insufficient_quota"}  # fmt: skip
    spent = {"message": "Rate limit reached", "code": "insufficient_quota"}
    missing = {"message": "The model `m` does not exist", "code": "model_not_found"}
    for step, why in (
        (("status", 401), "the key was refused"),
        (("status", 403), "the key was refused"),
        (("status", 404), "the model or the address is unknown"),
        (("status", 404, missing), "the model does not exist"),
        (("status", 429, quota), "the quota is spent"),
        (("status", 429, spent), "the quota is spent"),
    ):
        with ScriptedServer([step]) as server:
            with pytest.raises(EndpointError, match=f"{why} \\(HTTP {step[1]}"):
                _agent(server, tmp_path).act(obs)
            assert len(server.requests) == 1
    with ScriptedServer([("status", 429)] * 2 + [("reply", "take")]) as server:
        assert _agent(server, tmp_path).act(obs) == 1  # a rate limit alone is retried


# -- a 30%-faulty endpoint -------------------------------------------------------------------
_LEGAL_LINE = re.compile(r"^Legal moves: ", re.M)
#: How long the faulty endpoint's "timeout" answer takes, and the client's timeout.
_SLOW, _TIMEOUT = 2.5, 2


class Faulty:
    """The server's default: of each request, with a seeded generator, 30% the endpoint's
    faults (12% HTTP 500, 4% HTTP 502/503, 3% no answer within the client's timeout, 6% an
    HTML body, 5% ``null`` content) and 15% an unusable reply (scripted as invalid: it
    names no move), else the scripted player's move, said as a reasoning model says it. It
    counts what it scripted."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.lock = threading.Lock()
        self.counts = {"requests": 0, "faults": 0, "timeouts": 0, "invalid": 0, "valid": 0}

    def __call__(self, body: dict[str, Any]) -> tuple[Any, ...]:
        with self.lock:
            u = float(self.rng.random())
            self.counts["requests"] += 1
            if u < 0.30:
                self.counts["faults"] += 1
                self.counts["timeouts"] += 0.16 <= u < 0.19
                return (
                    ("status", 500) if u < 0.12
                    else ("status", 502 if u < 0.14 else 503) if u < 0.16
                    else ("slow", _SLOW, "discard KS") if u < 0.19
                    else ("html",) if u < 0.25
                    else ("null",)
                )  # fmt: skip
            if u < 0.45:
                self.counts["invalid"] += 1
                return ("reply", "<think>Hmm, hard to say.</think>\nI am not sure what to do.")
            self.counts["valid"] += 1
        # The legal moves are in the last message that lists them (a re-ask quotes them).
        prompt = next(
            (m["content"] for m in reversed(body["messages"]) if _LEGAL_LINE.search(m["content"])),
            body["messages"][-1]["content"],
        )
        move = scripted_move(prompt)
        return ("reply", f"<think>Weighing my moves.</think>\nFinal answer: {move}")


def _wilson(k: int, n: int) -> tuple[float, float]:
    z = 1.959963984540054
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / den
    return mid - half, mid + half


@pytest.mark.parametrize("run", range(5))
def test_a_30_percent_faulty_endpoint_finishes_and_is_counted_where_it_belongs(run: int) -> None:
    """Five runs at the default transport settings (two retries a request, five failed
    requests in a row to stop; only the back-off is shortened, and the timeout, for a fast
    test) all finish, and the model's counts are the server's: its invalid replies, its
    replies, the requests and the transport faults."""
    faulty = Faulty(seed=100 + run)
    with ScriptedServer(default=faulty) as server:
        llm = f"llm:model=faulty,base_url={server.base_url},timeout={_TIMEOUT},backoff=0"
        r = gin_duplicate(llm, "heuristic", 3, seed=run, progress=False, concurrency=3)
    t = r["text"]["faulty"]
    c = faulty.counts
    answered = c["valid"] + c["invalid"]
    scripted = c["invalid"] / answered
    lo, hi = _wilson(c["invalid"], answered)
    print(
        f"\n30%-faulty endpoint, run {run}: the server scripted {c['requests']} requests, "
        f"{c['faults']} faults ({c['faults'] / c['requests']:.1%}, {c['timeouts']} timeouts), "
        f"{c['invalid']} invalid of {answered} answers = {scripted:.1%} [{lo:.1%}, {hi:.1%}]; "
        f"the model's invalid rate {t['invalid_rate']:.1%} "
        f"{[round(x, 3) for x in t['invalid_rate_ci95']]} ({t['invalid']:.0f} of "
        f"{t['replies']:.0f} replies), transport faults {t['transport_fault_rate']:.1%} of "
        f"{t['requests']:.0f} requests, {t['failed_requests']:.0f} failed requests, fallback "
        f"moves {t['fallback_rate']:.1%} of {t['decisions']:.0f} decisions"
    )
    assert r["n_hands"] == 6  # finished: every game played
    assert t["requests"] == c["requests"] and t["transport_faults"] == c["faults"]
    assert t["timeouts"] == c["timeouts"]
    assert t["replies"] == answered and t["invalid"] == c["invalid"]
    assert t["invalid_rate"] == pytest.approx(scripted)
    assert lo <= t["invalid_rate"] <= hi


def test_transcript_lines_join_to_their_games_under_concurrency(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    with ScriptedServer() as server:
        llm = (
            f"llm:model=s,base_url={server.base_url},timeout=5,transcript={path},"
            "price_in=2.5,price_out=10"
        )
        r = gin_duplicate(
            llm, "simple", 3, seed=4, workers=1, progress=False, concurrency=3,
            replays=tmp_path / "replays",
        )  # fmt: skip
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    moves = [x for x in lines if x.get("kind") == "move"]
    assert len(moves) == r["text"]["s"]["decisions"]
    keys = {(x["game_index"], x["replay"]) for x in moves}
    assert keys == {(i, f"deal{i:05d}_{h}") for i in range(3) for h in "ab"}
    heads = [x for x in lines if "system" in x]
    assert sorted(x["replay"] for x in heads) == sorted(x[1] for x in keys)  # once a game
    for x in moves:
        replay = json.loads((tmp_path / "replays" / f"{x['replay']}.json").read_text())
        assert x["seed"] == replay["seed"] and x["eval_seed"] == 4 and x["hand"] == 0
        assert replay["agents"][x["seat"]] == x["seats"][x["seat"]] == "s"
        assert x["run"] and x["design"] == "gin" and x["role"]
        assert x["decision"] >= 1 and x["cost"] > 0
    t = r["text"]["s"]
    assert t["games"] == 6 and t["cost_per_game"] == pytest.approx(t["cost"] / 6)
    assert t["cost"] == pytest.approx(sum(x["cost"] for x in moves))
    assert r["specs"]["s"] == llm


class Styles:
    """The scripted player's move said in the styles today's models use, in turn."""

    def __init__(self) -> None:
        self.turn = 0
        self.lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> tuple[Any, ...]:
        with self.lock:
            self.turn += 1
            way = self.turn % 5
        move = scripted_move(body["messages"][-1]["content"])
        verb, _, card = move.partition(" ")
        return ("reply", [
            f"<think>\nMaybe not {move}? Yes, {move}.\n</think>\n\n{move}",
            f"Weighing it all, **Final answer:** {move}",
            json.dumps({"action": verb, "card": card} if card else {"move": move}),
            f"So the best play is $\\boxed{{\\text{{{move}}}}}$.",
            f"<think>the stock or the pile?</think>Final Answer: {move}",
        ][way])  # fmt: skip


def test_a_model_that_varies_its_phrasing_loses_no_move() -> None:
    styles = Styles()
    with ScriptedServer(default=styles) as server:
        llm = f"llm:model=styles,base_url={server.base_url},timeout=5"
        r = gin_duplicate(llm, "simple", 3, seed=2, workers=1, progress=False, concurrency=3)
    t = r["text"]["styles"]
    assert t["decisions"] > 50 and t["invalid"] == 0 and t["fallback_moves"] == 0


def test_the_arena_protocol(tmp_path: Path) -> None:
    """As Kaggle's Game Arena harness plays: no legal moves in the prompt, a JSON move, a
    rethink that does not list the legal moves, then the fallback, counted as such."""
    obs = _decision()
    script = [("reply", "take"), ("reply", '{"move": "discard KS"}'), ("reply", '{"move": "pass"}')]
    with ScriptedServer(script) as server:
        agent = _agent(server, tmp_path, ",protocol=arena", retries=2)
        assert agent.act(obs) == 2
        sent = [r["messages"] for r in server.requests]
    assert "Legal moves" not in sent[0][0]["content"] + sent[0][-1]["content"]
    assert 'final answer as JSON: {"move"' in sent[0][-1]["content"]
    assert 'no JSON {"move": ...}' in sent[1][-1]["content"]
    assert (
        "Legal moves" not in sent[2][-1]["content"] and "not a legal move" in sent[2][-1]["content"]
    )
    s = agent.stats()
    assert s["invalid"] == 2 and s["reasks"] == 2 and s["fallback_moves"] == 0
    with ScriptedServer([("reply", "take")] * 2) as server:
        agent = _agent(server, tmp_path, ",protocol=arena", retries=1)
        assert agent.act(obs, np.random.default_rng(0)) in (1, 2)
    assert agent.stats()["fallback_moves"] == 1


def test_a_hand_kept_in_one_conversation(tmp_path: Path) -> None:
    """``conversation=hand``: each request of a hand starts with the one before it and its
    reply (a constant prefix providers cache); a new hand starts a new conversation."""
    from agents.llm import decision_context
    from gin_eval.rollout import play

    with ScriptedServer() as server:
        agent = _agent(server, tmp_path, ",conversation=hand")
        for hand in range(2):
            env = games.get("gin").make_env(episode="hand")
            env.reset(seed=hand)
            with decision_context(game_index=hand, seat="player_0"):
                play(env, {"player_0": agent, "player_1": agents.make("heuristic")})
        sent = [r["messages"] for r in server.requests]
    starts = [k for k, m in enumerate(sent) if len(m) == 2]
    assert len(starts) == 2  # one conversation per hand
    for k in range(1, len(sent)):
        if k not in starts:
            assert sent[k][: len(sent[k - 1])] == sent[k - 1]
            assert sent[k][len(sent[k - 1])]["role"] == "assistant"
