"""Search where a gin race is decided: determinised rollouts valued in match equity, in
real games to 100.

:mod:`studies.rollout_search` searched single hands for points and found no gain over
L3. A game is not a sum of hands: near the end a small knock that takes the match is
worth more than a gin that would have come a turn later, and an undercut that hands him
the match costs more than its points. This study plays the same determinised search in
matches to the table's target and values each rollout by the **match equity** of the
scores it ends in (:mod:`agents.match_equity`: the chance of winning the match from those
scores with the next dealer, solved from L2 against L2's hand outcomes at the table), or,
for comparison, by its points (``--value points``).

At each searched decision of its seat (``--decisions``, ``+``-joined from ``knock``: knock
or play on, where a knock is legal; ``discard``: the discard, the card that may feed him;
``draw``: take the upcard or draw, which may take the match now):

1. the candidates are the base player's move (L3 ``tuned``, the set shipped for the
   table: ``tuned-eaai`` at ``eaai``), the least-deadwood discards, the least-deadwood
   knock and the base move's discard without the knock;
2. ``--worlds`` worlds are dealt from what the seat knows (its hand, the pile, the cards he
   took and still holds, the counts; his hidden cards and the stock dealt again from the
   unseen cards: the true hidden cards are overwritten in every world);
3. every candidate is played out in every world to the end of the hand (common random
   numbers), the searcher's side by its base player and the opponent's by his true policy
   (the search is told it: an opponent model; ``--model`` gives it another one instead, to
   measure what a wrong model costs, or ``L2+tuned``, a mixture: his worlds played by each
   in turn);
4. the candidate with the best mean gain over the base move is played when the gain
   exceeds ``--margin`` standard errors (paired over worlds).

The players are the search around the table's ``tuned`` set, and that set alone (the
"base" arm), each against ``--opponent`` (L2, or the table's ``tuned`` set itself) in
mirrored pairs of matches on the same deck sequences (:func:`gin_eval.matches.
play_match_table`; the search reads the engine's arrays through ``act_in_match``), so the
gain of the search is paired by deal sequence. The cost is reported as core-seconds per
game of the search arm (each job runs in one process on one core, the games of a job
batched: one search call covers every game waiting on a decision)::

    python -m studies.match_search --table eaai --opponent L2 --pairs 200 --seed 0 \\
        --worlds 16 --margin 1 --decisions knock+discard --value equity

One JSON line is printed and written under ``--out``; ``python -m studies.match_search
summary DIR`` prints the runs in ``DIR`` as a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import agents
from agents.batched import PerRow, batched_form
from agents.heuristic import HeuristicAgent, HeuristicParams
from agents.opponent_model import style_params
from agents.search_agent import VALUES, EquitySearch
from agents.tuned import TABLES, load_sets, rules_dict
from gin_env.config import ThreeHandedConfig, check_choice
from gin_eval.gin import play_gin_match_pair
from gin_eval.matches import play_match_table
from gin_eval.play import play_seated_match
from gin_eval.pool import pool_map
from gin_eval.stats import mean_ci
from gin_eval.writer import write_json
from studies.rollout_search import add_search_arguments, search_options
from training.tune import STYLES

__all__ = ["MatchSearch", "table_params", "play_block", "main"]

#: His policies: L2, the table's ``tuned`` set, and the pool's styles of L2's family
#: (``gin-only``; ``knock-early``: knocks with deadwood in its first turns only, then plays
#: for gin, as the EAAI-21 champion is described to).
OPPONENTS = ("L2", "tuned", *STYLES)


def table_params(name: str, who: str) -> HeuristicParams:
    """``"L2"``: L2's defaults; ``"tuned"``: the set shipped for table ``name``; a style
    of :data:`training.tune.STYLES`."""
    check_choice("player", who, OPPONENTS)
    if who == "L2":
        return HeuristicParams()
    if who in STYLES:
        return STYLES[who]
    sets = load_sets()
    if name not in sets:
        raise ValueError(f"no tuned set is shipped for table {name!r}; have {sorted(sets)}")
    return HeuristicParams(**sets[name]["params"])


class MatchSearch(EquitySearch):
    """:class:`agents.search_agent.EquitySearch` in the match loop: a rollout's value is
    the match equity of the scores it ends in (``value="equity"``) or its points
    (``"points"``). ``mixture``: his other models beside ``opponent``, his worlds played by
    each in turn (a mixture for an opponent it does not know). The loop hands it the
    engine's arrays (``act_in_match``); ``agents.seat("match-search", table)`` is the same
    search built from the seat's own view."""

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        raise TypeError("MatchSearch plays in a match: play_match_table calls act_in_match")

    def act_in_match(
        self,
        games: Any,
        rows: np.ndarray,
        players: np.ndarray,
        observations: np.ndarray,
        masks: np.ndarray,
        scores: np.ndarray,
        deals: np.ndarray,
    ) -> np.ndarray:
        """The base player's moves in ``rows``, overruled where the search finds better."""
        base = self.base.act(observations, masks)
        self.set_context(rows, scores, deals)
        return self.choose(games, rows, players, masks, base)


def play_block(
    table: str,
    opponent: str,
    arm: str,
    seed: int,
    first: int,
    pairs: int,
    kw: dict[str, Any],
    model: str = "",
) -> dict[str, Any]:
    """Pairs ``first .. first + pairs`` of ``seed``: ``arm`` ("search" or "base") against
    ``opponent`` at ``table``, the search modelling him as ``model`` (default: as he is);
    A's share of each pair and the job's wall time."""
    config = TABLES[table]
    base, opp = table_params(table, "tuned"), table_params(table, opponent)
    opp_agent = batched_form(HeuristicAgent(opp, rules=config))
    player: Any
    if arm == "search":
        names = (model or opponent).split("+")
        his = [table_params(table, n) for n in names]  # "L2+tuned": a mixture
        player = MatchSearch(
            base, his[0], config, mixture=his[1:], seed=seed * 1_000_003 + first, **kw
        )
    else:
        player = batched_form(HeuristicAgent(base, rules=config))
    t0 = time.process_time()
    res = play_match_table([(player, opp_agent)], config, seed, pairs, first=first)[0]
    return {
        "per_pair": res["per_pair"].tolist(),
        "hands": int(res["hands"].sum()),
        "cpu_s": time.process_time() - t0,
        "searched": getattr(player, "searched", 0),
        "overruled": getattr(player, "overruled", 0),
        "filtered": getattr(player, "filtered", 0),
        "consistent": getattr(player, "consistent", 0.0),
    }


def summary(folder: str | Path) -> str:
    """The runs written in ``folder``, by file name (table, opponent, value, decisions,
    ...), as a Markdown table."""

    def share(x: dict[str, Any], sign: str = "") -> str:
        m, (lo, hi) = (100 * x["games_won"], [100 * v for v in x["ci95"]])
        return f"{m:{sign}.1f} [{lo:{sign}.1f}, {hi:{sign}.1f}]"

    lines = [
        "| table | vs | value | decisions | worlds | margin | his hand | pairs | search | base "
        "| gain | overruled | core-s/game |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for path in sorted(Path(folder).glob("*.json")):
        r = json.loads(path.read_text())
        a = r["args"]
        k = a.get("opp_samples", 1)
        hand = f"least deadwood of {k}" if k > 1 else "random"
        if a.get("filter"):
            hand += f", filter {a['filter']}"
        vs = a["opponent"] + (f" (modelled as {a['model']})" if a.get("model") else "")
        cells = [
            a["table"], vs, a["value"], a["decisions"], a["worlds"], a["margin"],
            hand, a["pairs"], share(r["search_vs_opponent"]) + "%",
            share(r["base_vs_opponent"]) + "%", share(r["search_minus_base"], "+"),
            f"{100 * r['overruled_share']:.1f}%", f"{r['core_s_per_game']:.3f}",
        ]  # fmt: skip
        lines.append("| " + " | ".join(map(str, cells)) + " |")
    return "\n".join(lines)


def seated_opponent(table: str, name: str) -> Any:
    """His agent for a seated run: a style of :data:`agents.opponent_model.STYLES` (``L2``,
    ``tuned``: the set for the table, ``tuned-<table>``, ``gin-only``, ``knock-early``)."""
    return HeuristicAgent(style_params(name, TABLES[table]), rules=TABLES[table])


def seated_table_pairs(
    table: str, agent: str, opponent: str, seed: int, first: int, pairs: int
) -> dict[str, Any]:
    """:func:`seated_pairs` on the batched engine's match loop
    (:func:`gin_eval.matches.play_match_table`, the study's own deals): one agent for the
    block, row by row (its batched form), seeded as the study seeds its search
    (``seed * 1_000_003 + first``), so a search whose model is fixed plays the study's
    decisions. A posterior would be shared by the block's games: use :func:`seated_pairs`."""
    config = TABLES[table]
    seeded = agents.parse_spec(agent)[0] in ("best", "match-search")  # a search's worlds
    player = agents.seat(agent, config, **({"seed": seed * 1_000_003 + first} if seeded else {}))
    if getattr(player, "posterior", None) is not None:
        raise ValueError("a posterior learns one opponent's match: play it with --harness env")
    opp = batched_form(seated_opponent(table, opponent))
    res = play_match_table([(PerRow(player), opp)], config, seed, pairs, first=first)[0]
    return {
        "per_pair": res["per_pair"].tolist(),
        "seconds": list(getattr(player, "seconds", [])),
        "posteriors": [],
    }


def seated_pairs(
    table: str, agent: str, opponent: str, seed: int, first: int, pairs: int
) -> dict[str, Any]:
    """Pairs ``first .. first + pairs`` of ``seed`` through the env (real games to the
    table's target, :func:`gin_eval.gin.play_gin_match_pair`: one env seed a pair, ``agent``
    as player_0 then player_1), the agent seated afresh for each pair
    (``agents.seat(agent, table)``) against ``opponent``. Per pair its share of the two
    matches; its decisions' seconds; for a posterior, the final posterior of each match."""
    config = TABLES[table]
    per_pair: list[float] = []
    seconds: list[float] = []
    posteriors: list[dict[str, float]] = []
    for index in range(first, first + pairs):
        player = agents.seat(agent, config)
        post = getattr(player, "posterior", None)
        finals: list[dict[str, float]] = []
        if post is not None:  # the posterior of each match, read before the next resets it
            reset = post.reset

            def keep(reset: Any = reset, post: Any = post, finals: list = finals) -> None:
                if post.moves:
                    finals.append(post.posterior())
                reset()

            post.reset = keep
        res = play_gin_match_pair(player, seated_opponent(table, opponent), seed, index, config)
        if post is not None and post.moves:
            finals.append(post.posterior())
        per_pair.append(float(np.mean([m["a_won"] for m in res["matches"]])))
        seconds += list(getattr(player, "seconds", []))
        posteriors += finals
    return {"per_pair": per_pair, "seconds": seconds, "posteriors": posteriors}


def seated_main(argv: list[str]) -> dict[str, Any]:
    """``python -m studies.match_search seated``: an agent by spec (``best``,
    ``match-search:model=L2+tuned``) against a style in real games through the env."""
    parser = argparse.ArgumentParser(prog="python -m studies.match_search seated")
    parser.add_argument("--table", default="eaai", choices=list(TABLES))
    parser.add_argument("--agent", default="best")
    parser.add_argument("--opponent", default="L2")
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--first", type=int, default=0, help="the first pair's index")
    parser.add_argument("--block", type=int, default=25, help="pairs per job")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", default="runs/best")
    parser.add_argument(
        "--harness",
        default="env",
        choices=("env", "table"),
        help="env: the AEC env, an agent per pair; table: the batched match loop",
    )
    a = parser.parse_args(argv)
    try:
        seated_opponent(a.table, a.opponent)
        agents.seat(a.agent, TABLES[a.table])
    except ValueError as err:
        parser.error(str(err))
    t0 = time.time()
    jobs = [
        (a.table, a.agent, a.opponent, a.seed, a.first + s, min(a.block, a.pairs - s))
        for s in range(0, a.pairs, a.block)
    ]
    parts = pool_map(seated_pairs if a.harness == "env" else seated_table_pairs, jobs, a.workers)
    per = [x for p in parts for x in p["per_pair"]]
    secs = np.asarray([x for p in parts for x in p["seconds"]])
    posts = [x for p in parts for x in p["posteriors"]]
    m, lo, hi = mean_ci(per)
    row: dict[str, Any] = {
        "study": "match_search_seated",
        "args": vars(a),
        "games_won": round(m, 4),
        "ci95": [round(lo, 4), round(hi, 4)],
        "decisions": int(len(secs)),
        "seconds_p50": round(float(np.percentile(secs, 50)), 4) if len(secs) else None,
        "seconds_p99": round(float(np.percentile(secs, 99)), 4) if len(secs) else None,
        "seconds_max": round(float(secs.max()), 4) if len(secs) else None,
        "wall_s": round(time.time() - t0, 1),
    }
    if posts:
        names = list(posts[0])
        row["posterior_mean"] = {n: round(float(np.mean([p[n] for p in posts])), 3) for n in names}
        row["posterior_top"] = {
            n: round(float(np.mean([max(p, key=p.get) == n for p in posts])), 3) for n in names
        }
    print(json.dumps(row), flush=True)
    spec = a.agent.replace(":", "_").replace(",", "_").replace("=", "-").replace("+", "-")
    first = f"_f{a.first}" if a.first else ""
    name = f"seated_{a.harness}_{a.table}_{spec}_vs_{a.opponent}_s{a.seed}{first}_p{a.pairs}.json"
    write_json(Path(a.out) / name, {**row, "per_pair": per}, [a.seed])
    return row


def seated_summary(folder: str | Path) -> str:
    """The seated and three-handed runs written in ``folder`` as a Markdown table (runs of
    one table, agent, opponent, harness and seed at consecutive pairs are joined: one CI over
    all their pairs)."""
    joined: dict[tuple[Any, ...], dict[str, Any]] = {}
    for path in sorted(Path(folder).glob("*.json")):
        r = json.loads(path.read_text())
        a = r["args"]
        if r.get("study") == "match_search_seated":
            key = ("two", a["table"], a["agent"], a["opponent"], a["harness"], a["seed"])
            per = r["per_pair"]
        elif r.get("study") == "match_search_three_handed":
            key = ("three", a["table"], a["agent"], a["opponent"], "env", a["seed"])
            per = r["per_triple"]
        else:
            continue
        row = joined.setdefault(key, {"per": [], "p99": [], "decisions": 0, "first": []})
        row["per"] += per
        row["p99"].append(r.get("seconds_p99"))
        row["decisions"] += r.get("decisions", 0)
        row["first"].append(a.get("first", 0))
    lines = [
        "| game | table | agent | vs | harness | seed | pairs | won | 95% CI | decisions | p99 s |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (game, table, agent, opp, harness, seed), row in joined.items():
        m, lo, hi = mean_ci(row["per"])
        p99 = max((x for x in row["p99"] if x is not None), default=None)
        vs = f"two {opp}" if game == "three" else opp
        cells = [
            "three-handed" if game == "three" else "gin", table, f"`{agent}`", vs, harness,
            seed, len(row["per"]), f"{100 * m:.1f}%", f"[{100 * lo:.1f}, {100 * hi:.1f}]",
            row["decisions"], "" if p99 is None else f"{p99:.3f}",
        ]  # fmt: skip
        lines.append("| " + " | ".join(map(str, cells)) + " |")
    return "\n".join(lines)


def three_handed_main(argv: list[str]) -> dict[str, Any]:
    """``python -m studies.match_search three``: an agent in the three-handed game (every
    role: box, captain, adviser) against two of ``--opponent`` at ``--table``'s hand rules,
    in matches to the target; triples of matches on one deal sequence, the agent in each seat
    once (:func:`gin_eval.play.play_seated_match`). Its share of the matches won (1/3 is
    even), 95% CI over triples."""
    parser = argparse.ArgumentParser(prog="python -m studies.match_search three")
    parser.add_argument("--table", default="eaai", choices=list(TABLES))
    parser.add_argument("--agent", default="best")
    parser.add_argument("--opponent", default="heuristic")
    parser.add_argument("--triples", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/best")
    a = parser.parse_args(argv)
    table = ThreeHandedConfig(**rules_dict(TABLES[a.table]))
    t0 = time.time()
    per: list[float] = []
    seconds: list[float] = []
    for index in range(a.triples):
        won = []
        for k in range(3):
            player = agents.seat(a.agent, table)
            seats: list[Any] = [a.opponent, a.opponent]
            seats.insert(k, player)
            out = play_seated_match(seats, a.seed, index, table)
            won.append(out["winner"] == k)
            seconds += list(getattr(player, "seconds", []))
        per.append(float(np.mean(won)))
    m, lo, hi = mean_ci(per)
    secs = np.asarray(seconds)
    row = {
        "study": "match_search_three_handed",
        "args": vars(a),
        "matches_won": round(m, 4),
        "ci95": [round(lo, 4), round(hi, 4)],
        "decisions": int(len(secs)),
        "seconds_p99": round(float(np.percentile(secs, 99)), 4) if len(secs) else None,
        "wall_s": round(time.time() - t0, 1),
    }
    print(json.dumps(row), flush=True)
    spec = a.agent.replace(":", "_").replace(",", "_").replace("=", "-").replace("+", "-")
    name = f"three_{a.table}_{spec}_vs_{a.opponent}_s{a.seed}_t{a.triples}.json"
    write_json(Path(a.out) / name, {**row, "per_triple": per}, [a.seed])
    return row


def main(argv: list[str] | None = None) -> dict[str, Any]:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["three"]:
        return three_handed_main(argv[1:])
    if argv[:1] == ["seated"]:
        return seated_main(argv[1:])
    if argv[:1] == ["summary-seated"]:
        for folder in argv[1:]:
            print(seated_summary(folder))
        return {}
    if argv[:1] == ["summary"]:
        for folder in argv[1:]:
            print(summary(folder))
        return {}
    parser = argparse.ArgumentParser(
        prog="python -m studies.match_search", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument("--table", default="eaai", choices=list(TABLES))
    parser.add_argument("--opponent", default="L2", choices=OPPONENTS)
    parser.add_argument(
        "--model",
        default="",
        help="his model: one of the opponents, or several joined by '+' (his worlds played "
        "by each in turn); default: --opponent",
    )
    add_search_arguments(parser, pairs=200, worlds=16, decisions="knock+discard")
    parser.add_argument("--value", default="equity", choices=VALUES)
    parser.add_argument("--out", default="runs/match_search")
    a = parser.parse_args(argv)
    for name in a.model.split("+") if a.model else []:
        if name not in OPPONENTS:
            parser.error(
                f"--model {a.model!r}: each of its '+'-joined names must be one of {OPPONENTS}"
            )
    kw = {**search_options(a), "value": a.value}
    MatchSearch(table_params(a.table, "tuned"), HeuristicParams(), TABLES[a.table], **kw)
    t0 = time.time()
    starts = range(0, a.pairs, a.block)
    arms: dict[str, list[dict[str, Any]]] = {}
    for arm in ("search", "base"):
        jobs = [
            (a.table, a.opponent, arm, a.seed, s, min(a.block, a.pairs - s), kw, a.model)
            for s in starts
        ]
        arms[arm] = pool_map(play_block, jobs, a.workers)

    def share(xs: list[float]) -> dict[str, Any]:
        m, lo, hi = mean_ci(xs)
        return {"games_won": round(m, 4), "ci95": [round(lo, 4), round(hi, 4)]}

    per = {arm: [x for p in parts for x in p["per_pair"]] for arm, parts in arms.items()}
    gain = [s - b for s, b in zip(per["search"], per["base"], strict=True)]
    search = arms["search"]
    searched = sum(p["searched"] for p in search)
    overruled = sum(p["overruled"] for p in search)
    games = 2 * a.pairs
    row = {
        "study": "match_search",
        "args": vars(a),
        "search_vs_opponent": share(per["search"]),
        "base_vs_opponent": share(per["base"]),
        "search_minus_base": share(gain),
        "searched_decisions": searched,
        "overruled_share": round(overruled / max(1, searched), 4),
        "consistent_share": round(
            sum(p["consistent"] for p in search) / max(1, sum(p["filtered"] for p in search)), 4
        ),
        "core_s_per_game": round(sum(p["cpu_s"] for p in search) / games, 3),
        "base_core_s_per_game": round(sum(p["cpu_s"] for p in arms["base"]) / games, 4),
        "hands_per_game": round(sum(p["hands"] for p in search) / games, 2),
        "wall_s": round(time.time() - t0, 1),
    }
    print(json.dumps(row))
    model = f"_model-{a.model}" if a.model else ""
    name = (
        f"{a.table}_{a.opponent}{model}_{a.value}_{a.decisions}_w{a.worlds}_m{a.margin}"
        f"_k{a.opp_samples}_f{a.filter}_s{a.seed}_p{a.pairs}.json"
    )
    write_json(Path(a.out) / name, {**row, "per_pair": per}, [a.seed])
    return row


if __name__ == "__main__":
    main()
