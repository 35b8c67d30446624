"""Language-model players over real HTTP: a local OpenAI-compatible server started here
(tests/scripted_openai.py: real sockets on 127.0.0.1, the real ``openai`` client; every
reply comes from a script, not a model) answers valid moves, malformed text, an illegal
move, a slow reply past the time limit, a 429 and a 500. The agent re-asks the model after
an unusable reply, sends the same request again after the endpoint's faults (never a
re-ask), applies its unusable-reply policy, and the transcript records each exchange.
Also: the words agent (any agent's moves said in words) and an LLM in the text env."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scripted_openai import ScriptedServer

import agents
from agents.llm import PROTOCOLS
from agents.llm_transport import EndpointError
from gin_env import games, text
from gin_env.config import ThreeHandedConfig
from gin_eval.rollout import play

pytest.importorskip("openai")


def _decision(game: str = "gin", seed: int = 2) -> tuple[Any, dict[str, Any]]:
    """An env at its first decision with more than one legal move, and that observation."""
    env = games.get(game).make_env(**({} if game == "rummy" else {"episode": "hand"}))
    env.reset(seed=seed)
    obs = env.observe(env.agent_selection)
    return env, obs


def _agent(server: ScriptedServer, tmp_path: Path, table: Any = None, **options: Any) -> Any:
    spec = f"llm:model=test-model,base_url={server.base_url},timeout=0.5,backoff=0.01"
    transcript = str(tmp_path / "t.jsonl")
    if table is not None:  # seated at a table: the table's rules reach it
        return agents.seat(spec, table, transcript=transcript, **options)
    return agents.make(spec, transcript=transcript, **options)


def _lines(tmp_path: Path) -> list[dict[str, Any]]:
    """The transcript's exchanges (the system prompt's line checked and left out)."""
    lines = [json.loads(x) for x in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert "You are a player at a card table." in lines[0]["system"]
    assert all("system" not in x for x in lines[1:])
    return lines[1:]


def test_valid_reply(tmp_path: Path) -> None:
    _, obs = _decision()
    with ScriptedServer([("reply", "pass")]) as server:
        agent = _agent(server, tmp_path)
        assert agent.act(obs) == 2  # PASS
        sent = server.requests[0]
    assert sent["model"] == "test-model" and sent["messages"][0]["role"] == "system"
    assert "Legal moves: take, pass." in sent["messages"][-1]["content"]
    (line,) = _lines(tmp_path)
    assert line["reply"] == "pass" and line["move"] == "pass" and line["error"] is None
    assert line["prompt_tokens"] > 50 and line["completion_tokens"] == 1
    assert line["latency_s"] > 0
    s = agent.stats()
    assert s["decisions"] == 1 and s["invalid"] == 0 and s["replies"] == 1


@pytest.mark.parametrize(
    "first,why",
    [
        (("reply", "I am thinking about the meaning of cards."), "no move found"),
        (("reply", "discard KS"), "is not a legal move now"),
    ],
)
def test_malformed_and_illegal_then_reask(tmp_path: Path, first: Any, why: str) -> None:
    _, obs = _decision()
    with ScriptedServer([first, ("reply", "take")]) as server:
        agent = _agent(server, tmp_path)
        assert agent.act(obs) == 1  # TAKE
        retry = server.requests[1]["messages"]
    assert retry[-2]["role"] == "assistant" and retry[-2]["content"] == first[1]
    assert why in retry[-1]["content"] and "Legal moves: pass, take" in retry[-1]["content"]
    lines = _lines(tmp_path)
    assert [x["move"] for x in lines] == [None, "take"] and why in lines[0]["error"]
    s = agent.stats()
    assert s["invalid"] == 1 and s["reasks"] == 1 and s["invalid_rate"] == 0.5


def test_slow_reply_times_out_and_is_asked_again(tmp_path: Path) -> None:
    """A timeout is the endpoint's: the same question is sent again, the model is not
    re-asked and no reply is counted as unusable."""
    _, obs = _decision()
    with ScriptedServer([("slow", 2.0, "take"), ("reply", "pass")]) as server:
        agent = _agent(server, tmp_path)
        assert agent.act(obs) == 2
        assert server.requests[1]["messages"] == server.requests[0]["messages"]
    (line,) = _lines(tmp_path)
    assert line["reply"] == "pass" and line["faults"] == ["timeout: no reply within 0.5 s"]
    assert 0.4 < line["latency_s"] < 1.9
    s = agent.stats()
    assert s["timeouts"] == 1 and s["requests"] == 2 and s["replies"] == 1 and s["invalid"] == 0


@pytest.mark.parametrize("status", [429, 500])
def test_rate_limit_and_server_error_back_off(tmp_path: Path, status: int) -> None:
    _, obs = _decision()
    with ScriptedServer([("status", status), ("reply", "take")]) as server:
        agent = _agent(server, tmp_path)
        assert agent.act(obs) == 1
        assert len(server.requests) == 2
    (line,) = _lines(tmp_path)
    assert line["faults"] == [f"http: HTTP {status}"] and line["move"] == "take"
    s = agent.stats()
    assert s["transport_faults"] == 1 and s["transport_fault_rate"] == 0.5 and s["invalid"] == 0


def test_server_errors_are_retried_never_asked_of_the_model(tmp_path: Path) -> None:
    _, obs = _decision()
    with ScriptedServer([("status", 500)] * 3 + [("reply", "pass")]) as server:
        agent = _agent(server, tmp_path, retries=1)
        assert agent.act(obs) == 2
        assert all(len(r["messages"]) == 2 for r in server.requests)  # no re-ask
    s = agent.stats()
    assert s["transport_faults"] == 3 and s["invalid"] == 0 and s["reasks"] == 0


def test_policy_after_every_try_fails(tmp_path: Path) -> None:
    _, obs = _decision()
    legal = set(np.flatnonzero(obs["action_mask"]).tolist())
    with ScriptedServer([("reply", "banana")] * 3) as server:
        agent = _agent(server, tmp_path, retries=2)
        assert agent.act(obs, np.random.default_rng(0)) in legal
    s = agent.stats()
    assert s["fallback_moves"] == 1 and s["invalid"] == 3 and s["reasks"] == 2
    assert s["fallback_rate"] == 1.0 and s["invalid_rate"] == 1.0
    with ScriptedServer([("reply", "banana")] * 2) as server:
        agent = _agent(server, tmp_path, retries=1, on_invalid="raise")
        with pytest.raises(ValueError, match="no usable reply after 2 tries"):
            agent.act(obs)


def test_refused_key_raises(tmp_path: Path) -> None:
    _, obs = _decision()
    with ScriptedServer([("status", 401)]) as server:
        agent = _agent(server, tmp_path)
        with pytest.raises(EndpointError, match="HTTP 401"):
            agent.act(obs)


def test_bad_options_are_named() -> None:
    with pytest.raises(ValueError, match="timeout"):
        agents.make("llm:model=m,timeout=-1")
    with pytest.raises(ValueError, match="on_invalid"):
        agents.make("llm:model=m,on_invalid=forfeit")
    with pytest.raises(ValueError, match="has no option 'colour'"):
        agents.make("llm:model=m,colour=red")


@pytest.mark.parametrize("game", ["three_handed", "gin", "rummy"])
def test_plays_every_seat_through_the_numeric_env(tmp_path: Path, game: str) -> None:
    """A whole hand, every seat the scripted model; the adviser's reply is its suggestion."""
    options = {"max_turns": 40} if game == "rummy" else {"episode": "hand"}
    env = games.get(game).make_env(**options)
    env.reset(seed=5)
    with ScriptedServer() as server:
        agent = _agent(server, tmp_path, game=game)
        out = play(env, {a: agent for a in env.possible_agents}, np.random.default_rng(0))
    s = agent.stats()
    assert s["decisions"] == out.steps and s["invalid"] == 0 and s["fallback_moves"] == 0
    lines = _lines(tmp_path)
    assert len(lines) == out.steps and all(x["move"] for x in lines)
    if game == "three_handed":
        assert any("You are the adviser" in x["prompt"] for x in lines)
        assert any("Your adviser suggests" in x["prompt"] for x in lines)


def test_words_agent_plays_as_its_agent() -> None:
    env = games.get("gin").make_env(episode="hand")
    plain = games.get("gin").make_env(episode="hand")
    for e in (env, plain):
        e.reset(seed=8)
    said = agents.make("words:agent=heuristic")
    out = play(env, {a: said for a in env.possible_agents}, np.random.default_rng(0))
    ref = play(plain, {a: agents.make("heuristic") for a in plain.possible_agents}, None)
    assert out.rewards == ref.rewards and said.stats()["invalid"] == 0


def test_llm_in_the_text_env(tmp_path: Path) -> None:
    env = text.env("three_handed", episode="hand")
    env.reset(seed=1)
    with ScriptedServer() as server:
        agent = _agent(server, tmp_path, game="three_handed")
        for _name in env.agent_iter():
            seen, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else agent.respond(seen))
    assert not env.agents and all(v == 0 for v in env.invalid.values())


def test_a_typed_table_tells_the_game_and_its_rules(tmp_path: Path) -> None:
    """Seated with a table's rules object, the box's first prompt already says three-handed
    and the table's target (the gin layout alone could not tell a box from a dealer)."""

    env = games.get("three_handed").make_env(episode="hand", target_score=50)
    env.reset(seed=0)
    while env.infos[env.agent_selection]["role"] != "box":
        env.step(int(agents.make("heuristic").act(env.observe(env.agent_selection))))
    with ScriptedServer() as server:
        agent = _agent(server, tmp_path, table=ThreeHandedConfig(target_score=50))
        agent.act(env.observe(env.agent_selection))
        prompt = server.requests[0]["messages"][-1]["content"]
    assert prompt.startswith("Three-handed gin rummy. You are the box.")
    assert "match to 50." in prompt


def test_the_arenas_forfeit_is_refused_in_the_numeric_envs_naming_the_choices() -> None:
    # The arena forfeits after its rethinks; no move of the numeric envs ends a hand, so a
    # player there refuses the choice, naming what it can do and where a forfeit is played.
    for protocol in PROTOCOLS:
        with pytest.raises(ValueError) as err:
            agents.make(f"llm:model=m,protocol={protocol},on_invalid=forfeit-hand")
        said = str(err.value)
        assert "allowed for a player: random-legal, raise" in said
        assert "gin_env.text.env(..., on_invalid='forfeit-hand')" in said
        assert "fallback_rate" in said
    env = text.env("gin", on_invalid="forfeit-hand", episode="hand")
    assert env.policy.on_invalid == "forfeit-hand"
