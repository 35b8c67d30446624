"""Print the examples of docs/language.md: a real prompt, and a whole three-handed hand
played in the text env by the language-model agent against the scripted local server of
``tests/scripted_openai.py`` (its replies come from a script, not a model).

Run ``python docs/make_language_transcript.py [--seed S]`` from the repository root.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from scripted_openai import ScriptedServer  # noqa: E402

import agents  # noqa: E402
from gin_env import text  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seed", type=int, default=4)
    args = p.parse_args(argv)
    env = text.env("three_handed", episode="hand")
    env.reset(seed=args.seed)
    log = Path(tempfile.mkdtemp()) / "transcript.jsonl"
    turns = []
    with ScriptedServer() as server:
        model = agents.make(
            f"llm:model=scripted,base_url={server.base_url}",
            game="three_handed",
            transcript=str(log),
        )
        system = None
        for agent in env.agent_iter():
            seen, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            reply = model.respond(seen)
            if system is None:
                system = server.requests[-1]["messages"][0]["content"]
            role = info["role"]
            env.step(reply)
            turns.append((agent, role, seen, reply))
        result = env.inner.match.history[-1].result
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    lines = [x for x in lines if "system" not in x]  # the exchanges
    print("## system prompt\n")
    print(system)
    captain = next(t for t in turns if t[1] == "captain" and "Phase: discard" in t[2])
    print("\n## a captain's prompt\n")
    print(captain[2])
    print("\n## the hand (scripted replies)\n")
    for (agent, role, _, reply), line in zip(turns, lines, strict=True):
        print(f"{agent} ({role}): {reply!r} ({line['prompt_tokens']} prompt tokens, "
              f"{line['latency_s'] * 1000:.0f} ms)")  # fmt: skip
    names = env.inner.possible_agents
    rec = env.inner.match.history[-1]
    print("\n" + result.describe([names[p] for p in rec.players]))


if __name__ == "__main__":
    main()
