"""``gin-rummy eval`` (``python -m gin_cli.evaluate``): the evaluation harness of
:mod:`gin_eval` on the command line.

- ``gin``: duplicate two-player gin (:func:`~gin_eval.gin.gin_duplicate`);
- ``three``: three-handed matches of three agents in every rotation of the seats
  (:func:`~gin_eval.three_handed.three_handed`), or with ``--duplicate`` the
  duplicate design (:func:`~gin_eval.duplicate.eval_duplicate`, ``--adjust``:
  the luck corrections of :mod:`gin_eval.luck`);
- ``ladder``: duplicate gin between every pair, rated with OpenSkill and Elo
  (:func:`~gin_eval.ladder.ladder`).

Writes JSON (with its provenance), CSV, a terminal table and a matplotlib plot into
``--out`` (default ``runs/eval``, git-ignored; the committed figures live in
``results/<study>/``); with a language model seated, also every game's replay and the
model's transcript (``<name>_transcript.jsonl``, its run named ``<name>``).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from agents.llm_transport import EndpointError
from agents.spec import parse_spec
from gin_env import games
from gin_env.config import GinConfig, RummyConfig, Table, ThreeHandedConfig, table_options
from gin_env.match import ROLE_NAMES
from gin_env.optional import MissingExtraError, require
from gin_eval.checks import OptionError, seating, unique_labels
from gin_eval.duplicate import eval_duplicate
from gin_eval.gin import gin_duplicate
from gin_eval.ladder import ladder
from gin_eval.luck import ADJUST_MODES
from gin_eval.outcomes import WIN_KINDS, leaderboard_markdown, money
from gin_eval.plots import plot_bars
from gin_eval.reports import text_table, three_table
from gin_eval.rummy import rummy_duplicate
from gin_eval.three_handed import three_handed
from gin_eval.writer import write_result
from training import cli_description, flags, prog_name
from training.checkpoints import check_writable

C = TypeVar("C", GinConfig, ThreeHandedConfig, RummyConfig)

__all__ = ["DEFAULT_OUT", "REPLAYS", "main", "seed_int"]

#: Where the command line writes by default: a git-ignored folder, so that an evaluation
#: never overwrites the committed figures in ``results/`` unless ``--out results`` says so.
DEFAULT_OUT = "runs/eval"
#: When ``--replays`` writes every game's replay: ``auto``, with a language model seated.
REPLAYS = ("auto", "on", "off")


def _gin_rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    row = {
        "agent_a": r["agent_a"],
        "agent_b": r["agent_b"],
        "pairs": r["pairs"],
        "pts_per_hand": r["points_per_hand"],
        "ci_low": r["ci95"][0],
        "ci_high": r["ci95"][1],
        "hand_win": r["hand_win_rate"],
        "decided_win": r["decided_win_rate"],
        "gin": r["gin_rate"],
        "knock": r["knock_rate"],
        "undercut": r["undercut_rate"],
        "draw": r["draw_rate"],
        "ms_a": r["mean_decision_ms"],
        "ms_b": r["mean_decision_ms_b"],
    }
    if "match_win_rate" in r:
        row["match_win"] = r["match_win_rate"]
    return [row]


def _three_rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for mode in ("adviser_on", "adviser_off"):
        if mode not in r:
            continue
        s = r[mode]
        for name, st in s["agents"].items():
            row: dict[str, Any] = {
                "adviser": mode[8:],
                "agent": name,
                "match_win": st["match_win_rate"],
            }
            for role in ROLE_NAMES:
                rs = st["roles"][role]
                row[f"{role}_hands"] = rs["hands"]
                row[f"{role}_win"] = (
                    rs["hand_win_rate"] if rs["hand_win_rate"] is not None else float("nan")
                )
                row[f"{role}_pts"] = (
                    rs["points_per_hand"] if rs["points_per_hand"] is not None else float("nan")
                )
            rows.append(row)
    return rows


def _price(text: str) -> float:
    """An argparse type: a price per million tokens, a number >= 0."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"expected a price, a number >= 0; got {text!r}")
    return value


def seed_int(text: str) -> int:
    """An argparse type: a seed, an int >= 0 (numpy's seeding refuses negatives)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a seed, an int >= 0; got {text!r}")
    return value


def main(argv: Sequence[str] | None = None, table: Table | None = None) -> dict[str, Any]:
    """CLI: ``python -m gin_cli.evaluate {gin,three,ladder} --agents a,b[,c] ...``;
    ``table``: the table of eval gin, three or rummy (``gin-rummy eval -o``; default: the
    standard rules of the design's game; rummy's players are counted from ``--agents``)."""
    p = argparse.ArgumentParser(
        prog=prog_name("python -m gin_cli.evaluate"), description=cli_description(__doc__)
    )
    sub = p.add_subparsers(dest="cmd", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--agents",
        required=True,
        help="the agents, comma-separated names or specs (gin: 2, three: 3, ladder: 2 or "
        "more), e.g. heuristic,search:worlds=8,margin=2 (or ';'-separated)",
    )
    common.add_argument(
        "--seed",
        type=seed_int,
        default=0,
        help="seed of the deals, an int >= 0: the same seed deals the same cards (default: 0)",
    )
    common.add_argument(
        "--workers", type=int, default=2, help="processes playing side by side (default: 2)"
    )
    common.add_argument(
        "--out",
        default=DEFAULT_OUT,
        help=f"folder for JSON/CSV/PNG (default: {DEFAULT_OUT}, ignored by git; the "
        "committed figures in results/ are written only when asked: --out results)",
    )
    common.add_argument("--name", default=None, help="file stem (default: from the agents)")
    common.add_argument("--no-progress", action="store_true", help="no progress bar")
    common.add_argument(
        "--concurrency",
        type=int,
        default=0,
        help="games at once in threads of this process (for language-model players, whose "
        "latency is the cost; --workers is then unused) (default: 0, off: the games are "
        "played in --workers processes, or one at a time in this process when a player in "
        "words is seated, whose figures are counted here)",
    )
    common.add_argument(
        "--no-plot", action="store_true", help="skip the PNG plot (no matplotlib needed)"
    )
    common.add_argument(
        "--replays",
        default="auto",
        choices=REPLAYS,
        help="a replay of every finished game into <out>/<name>_replays/ (gin-rummy replay "
        "opens the gin games'): auto (when a language-model player, llm:, is seated), on, "
        "or off (default: auto)",
    )
    for side in ("in", "out"):
        common.add_argument(
            f"--price-{side}",
            type=_price,
            default=None,
            help=f"price of a million {side}put tokens of the language models (llm: agents), "
            "for the cost per 1,000 decisions and per game in the report (default: none)",
        )
    # The table's rules: gin-rummy eval reads -o itself (as play and match do) and passes
    # them on as the table; listed here so that the usage line and --help show them.
    rule_option = argparse.ArgumentParser(add_help=False)
    rule_option.add_argument(
        "-o",
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rule of the table, as play and match take them (repeatable), e.g. "
        "-o undercut_bonus=25 -o allow_discard_of_taken_card=true (default: the standard "
        "rules)",
    )
    g = sub.add_parser(
        "gin", parents=[common, rule_option], help="duplicate two-player gin, A vs B"
    )
    g.add_argument(
        "--pairs",
        type=int,
        default=500,
        help="deals, each played twice with the seats swapped (default: 500)",
    )
    g.add_argument(
        "--matches",
        type=int,
        default=0,
        help="also this many paired matches to --target (default: 0, none)",
    )
    g.add_argument("--target", type=int, default=100, help="points that win a match (default: 100)")
    t = sub.add_parser(
        "three", parents=[common, rule_option], help="three-handed matches of three agents"
    )
    t.add_argument(
        "--matches",
        type=int,
        default=60,
        help="matches, the seats rotated through the agents in turn (with --duplicate: "
        "deals) (default: 60)",
    )
    t.add_argument(
        "--adviser",
        default="both",
        choices=("suggest", "none", "both"),
        help="the adviser suggests, is off, or both, each measured (default: both)",
    )
    t.add_argument(
        "--duplicate",
        nargs="?",
        const="match",
        default=None,
        choices=("match", "hand"),
        help="duplicate design (gin_eval.duplicate), CIs paired by deal: 'match' "
        "replays each deal sequence in all 6 seatings (match win %%), 'hand' deals each single "
        "hand to all 6 role assignments (tightest role comparisons); --matches counts deals "
        "(default: off; --duplicate alone: match)",
    )
    t.add_argument(
        "--adjust",
        nargs="?",
        const="deal",
        default=None,
        choices=ADJUST_MODES,
        help="with --duplicate: also points per hand and paired edges adjusted for the deal "
        "(regression on covariates of the deck) or, with 'draws', also corrected for the "
        "luck of every stock draw (AIVAT-style; gin_eval.luck) or, with 'value', "
        "corrected at the deal and every draw by the committed learned value of the state "
        "(default: off; --adjust alone: deal)",
    )
    ru = sub.add_parser("rummy", parents=[common], help="duplicate basic rummy, 2-6 agents")
    ru.add_argument(
        "--deals", type=int, default=100, help="deals, each in every rotation (default: 100)"
    )
    lad = sub.add_parser("ladder", parents=[common], help="round-robin ladder with ratings")
    lad.add_argument(
        "--pairs",
        type=int,
        default=200,
        help="duplicate deals between each two agents (default: 200)",
    )
    lb = sub.add_parser(
        "leaderboard", parents=[common], help="the ladder, also as a Markdown table to paste"
    )
    lb.add_argument(
        "--pairs",
        type=int,
        default=200,
        help="duplicate deals between each two agents (default: 200)",
    )
    args = p.parse_args(argv)
    try:  # where the results go, checked before any game is played
        check_writable(args.out, folder=True, create=False)
    except ValueError as err:
        p.error(f"--out: {err}")
    if getattr(args, "option", None):  # -o given to python -m gin_cli.evaluate itself
        table = _with_options(p, args.cmd, table, args.option)
    run = _Run()
    try:
        if not args.no_plot:  # checked before any game is played
            require("matplotlib", needed_for="eval plots (or pass --no-plot)")
        return _run(args, table, run)
    except EndpointError as err:
        # A language model's endpoint given up: no figure of that player would be its own.
        done = getattr(err, "finished_jobs", None)
        total = getattr(err, "total_jobs", None)
        games_done = f"{done} of {total} jobs finished" if done is not None else "no game"
        p.exit(
            2,
            f"{p.prog}: stopped: {err}; {games_done} before the stop, none scored; {run.kept()}\n",
        )
    except OptionError as err:  # pairs 0, an unknown agent, a bad rule: a usage error
        p.error(str(err))
    except MissingExtraError as err:  # an optional package is missing: say which extra
        p.exit(1, f"{p.prog}: error: {err}\n")


#: The game of each design that takes the table's rules: the designs are named as the games
#: (``gin``, ``three``, ``rummy``: :func:`gin_env.games.cli_names`).
_DESIGN_GAMES = games.cli_names(version=0)


def _with_options(
    p: argparse.ArgumentParser, design: str, table: Table | None, items: Sequence[str]
) -> Table:
    """``table`` (default: the design's standard one) with the ``-o name=value`` rule
    options given; a bad one is a usage error naming what is allowed."""
    game = _DESIGN_GAMES.get(design)
    if game is None:
        p.error(f"-o rule options are taken by eval {', '.join(_DESIGN_GAMES)}, not by {design}")
    try:
        base = table_options(table) if table is not None else {}
        return games.get(game).table(**{**base, **flags.pairs(items, "-o")})
    except ValueError as err:
        p.error(f"-o: {err}")


def _table(cls: type[C], table: Table | None) -> C:
    """The design's table: ``table`` when it is one of ``cls`` (a usage error otherwise),
    or the standard rules."""
    if table is None:
        return cls()
    if not isinstance(table, cls):
        raise OptionError(
            f"this design plays at a {cls.__name__} table, not {type(table).__name__}"
        )
    return table


def _outcome_rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    """Per agent: wins by kind, deadwood at showdown, and its play in words if any."""
    kinds = r.get("win_kinds") or {}
    text = r.get("text") or {}
    rows = []
    for name in sorted(set(kinds) | set(text)):
        k, t = kinds.get(name) or {}, text.get(name)
        row: dict[str, Any] = {"agent": name, "wins": k.get("wins", 0)}
        for kind in WIN_KINDS:
            share = k.get(f"{kind}_share")
            row[kind] = float("nan") if share is None else share
        dw = k.get("mean_showdown_deadwood")
        row["showdown_dw"] = float("nan") if dw is None else dw
        row.update(_word_columns(t))
        rows.append(row)
    return rows


#: The columns of a player in words' own figures (:func:`_word_columns`).
WORD_COLUMNS = (
    "decisions", "invalid/reply", "invalid 95% CI", "fallback/dec", "fallback 95% CI", "timeouts",
    "faults/req", "faults 95% CI", "failed req", "tokens/dec", "s/dec", "$/1k dec", "$/game",
)  # fmt: skip


def _or_dash(fmt: Callable[[Any], str]) -> Callable[[Any], str]:
    """``fmt``, with ``-`` for no figure (a player that does not play in words)."""

    def shown(v: Any) -> str:
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return "-"
        return fmt(v)

    return shown


def _decimals(v: Any) -> str:
    return f"{v:.3f}" if isinstance(v, float) else str(v)


#: How the terminal shows the word-play columns: dollars to four significant digits (a
#: small price shows), counts whole, ``-`` for other players.
WORD_FORMATS: dict[str, Callable[[Any], str]] = {
    **{c: _or_dash(_decimals) for c in WORD_COLUMNS},
    "decisions": _or_dash(lambda v: f"{v:.0f}"),
    "timeouts": _or_dash(lambda v: f"{v:.0f}"),
    "failed req": _or_dash(lambda v: f"{v:.0f}"),
    "tokens/dec": _or_dash(lambda v: f"{v:.1f}"),
    "$/1k dec": _or_dash(money),
    "$/game": _or_dash(money),
}


def _word_columns(t: dict[str, Any] | None) -> dict[str, Any]:
    """A player in words' own figures, each over its own denominator: its decisions,
    unusable replies per reply, fallback moves per decision (moves not its own), timeouts,
    transport faults per request and failed requests (each failed after its retries),
    tokens and seconds per decision, dollars per 1,000 decisions and per game (nan for
    other players)."""
    nan = float("nan")
    if not t:
        return dict.fromkeys(WORD_COLUMNS, nan)

    def ci(key: str) -> str:
        low, high = t[f"{key}_ci95"]
        return f"[{low:.3f}, {high:.3f}]"

    per_game = t.get("cost_per_game")
    return {
        "decisions": t["decisions"],
        "invalid/reply": t["invalid_rate"],
        "invalid 95% CI": ci("invalid_rate"),
        "fallback/dec": t["fallback_rate"],
        "fallback 95% CI": ci("fallback_rate"),
        "timeouts": t["timeouts"],
        "faults/req": t["transport_fault_rate"],
        "faults 95% CI": ci("transport_fault_rate"),
        "failed req": t.get("failed_requests", 0.0),
        "tokens/dec": t["tokens_per_decision"],
        "s/dec": t["latency_s_per_decision"],
        "$/1k dec": t.get("cost_per_1k_decisions", 1000 * t["cost_per_decision"]),
        "$/game": 0.0 if per_game is None else per_game,
    }


def _priced(specs: list[str], price_in: float | None, price_out: float | None) -> list[str]:
    """The language-model specs with ``--price-in/--price-out`` (per million tokens) unless
    a spec sets its own."""
    out = []
    for spec in specs:
        if spec.startswith("llm:"):
            for name, price in (("price_in", price_in), ("price_out", price_out)):
                if price is not None and f"{name}=" not in spec:
                    spec += f",{name}={price:g}"
        out.append(spec)
    return out


def _rummy_rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for name, st in r["per_agent"].items():
        t = (r.get("text") or {}).get(name)
        share, pips = st["rummy_share_of_wins"], st["mean_pips_left_when_lost"]
        rows.append({
            "agent": name,
            "pts_per_hand": st["points_per_hand"],
            "ci_low": st["ci95"][0],
            "ci_high": st["ci95"][1],
            "hand_win": st["hand_win_rate"],
            "rummy_wins": float("nan") if share is None else share,
            "pips_left": float("nan") if pips is None else pips,
            **_word_columns(t),
        })  # fmt: skip
    return rows


class _Run:
    """What a run writes besides its result: its name (the file stem, also the run's name
    in the transcripts), the language models' transcripts and the replays; what of them a
    stop left (:meth:`kept`)."""

    def __init__(self) -> None:
        self.start = time.time()
        self.name: str | None = None
        self.transcripts: list[Path] = []
        self.replays: Path | None = None

    def kept(self) -> str:
        """What this run wrote before a stop: its transcript lines, its replays."""
        parts = []
        for path in self.transcripts:
            n = _lines_since(path, self.start)
            if n:
                parts.append(f"{n} transcript line{'s' * (n != 1)} in {path}")
        if self.replays is not None and self.replays.is_dir():
            n = sum(f.stat().st_mtime >= self.start for f in self.replays.rglob("*.json"))
            if n:
                parts.append(f"{n} replay{'s' * (n != 1)} in {self.replays}")
        if not parts:
            return "nothing written"
        return f"kept {', '.join(parts)}; no result written"


def _lines_since(path: Path, start: float) -> int:
    """The transcript lines of ``path`` written at ``start`` or after (0 for no file)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return 0
    n = 0
    for line in text.splitlines():
        try:
            n += float(json.loads(line).get("time", 0)) >= start
        except (ValueError, AttributeError, TypeError):
            continue
    return n


def _is_model(spec: str) -> bool:
    return spec.partition(":")[0].strip() == "llm"


def _spec_transcript(spec: str) -> Path | None:
    """The transcript a language model's spec names, if any."""
    try:
        path = parse_spec(spec)[1].get("transcript")
    except ValueError:
        return None
    return Path(str(path)) if path else None


def _run(args: argparse.Namespace, table: Table | None, run: _Run) -> dict[str, Any]:
    if ";" in args.agents:
        specs = [s.strip() for s in args.agents.split(";") if s.strip()]
    else:
        specs = flags.names(args.agents)
    specs = _priced(specs, args.price_in, args.price_out)
    out = Path(args.out)
    # Files are named by the agents' short names (a language model's: its model or name=);
    # the full specs are in the JSON.
    short = [re.sub(r"#\d+$", "", lab) for lab in unique_labels(specs)]
    stem = args.name or f"{args.cmd}_" + "_vs_".join(
        s.replace(":", "-").replace("=", "") for s in short
    )
    stem = re.sub(r"[^\w.,+-]+", "-", stem)  # a URL in a name is no folder
    models = [s for s in specs if _is_model(s)]
    wanted = args.replays == "on" or (args.replays == "auto" and bool(models))
    run.name = stem
    run.replays = out / f"{stem}_replays" if wanted else None
    # A language model writes its transcript into the run's folder unless its spec names
    # one; the run replaces the last one's, as it replaces its JSON.
    transcript = out / f"{stem}_transcript.jsonl" if models else None
    given = [t for t in (_spec_transcript(s) for s in models) if t is not None]
    run.transcripts = ([transcript] if transcript is not None and
                       len(given) < len(models) else []) + given  # fmt: skip
    if transcript is not None:
        transcript.unlink(missing_ok=True)
    with seating(transcript, stem):
        r, paths, png = _design(args, table, specs, stem, run)
    for kept in _replays_written(r):
        print(f"wrote {kept['files']} replays into {kept['folder']}")
    for path in run.transcripts:
        n = _lines_since(path, run.start)
        if n:
            print(f"wrote {n} transcript lines into {path} (run {stem})")
    return r


def _design(
    args: argparse.Namespace, table: Table | None, specs: list[str], stem: str, run: _Run
) -> tuple[dict[str, Any], list[Path], Path | None]:
    """Plays the design, writes its result and prints its tables."""
    out = Path(args.out)
    progress = not args.no_progress
    png = None if args.no_plot else out / f"{stem}.png"
    shown: list[dict[str, Any]] | None = None  # a terminal table apart from the CSV's rows
    replays = run.replays
    # What the JSON says of the run: its name in the transcripts, and where they are.
    about = (
        {"run": stem, "transcripts": [str(t) for t in run.transcripts]} if run.transcripts else {}
    )
    if args.cmd == "gin":
        if len(specs) != 2:
            raise OptionError(f"gin needs exactly 2 agents, got {specs}")
        r = gin_duplicate(
            specs[0],
            specs[1],
            args.pairs,
            args.seed,
            args.workers,
            args.target,
            args.matches,
            progress,
            _table(GinConfig, table),
            concurrency=args.concurrency,
            replays=replays,
        )
        r.update(about)
        rows = _gin_rows(r)
        paths = write_result(out, stem, r, rows)
        plot_bars(
            png,
            [f"{r['agent_a']}\nv {r['agent_b']}"],
            [r["points_per_hand"]],
            [tuple(r["ci95"])],
            "duplicate gin: points per hand (95% CI)",
            "points / hand",
        )
    elif args.cmd == "three" and getattr(args, "adjust", False) and not args.duplicate:
        raise OptionError("--adjust needs --duplicate (match or hand)")
    elif args.cmd == "three" and args.duplicate:
        r, rows, paths = eval_duplicate(
            specs, args.matches, args.seed, args.workers, args.adviser, progress, out, stem, png,
            unit=args.duplicate, adjust=args.adjust or False,
            table=_table(ThreeHandedConfig, table), concurrency=args.concurrency,
            replays=replays, about=about,
        )  # fmt: skip
    elif args.cmd == "three":
        three = _table(ThreeHandedConfig, table)
        r = three_handed(
            specs, args.matches, args.seed, args.workers, args.adviser, progress, three,
            concurrency=args.concurrency, replays=replays,
        )  # fmt: skip
        r.update(about)
        rows = _three_rows(r)
        paths = write_result(out, stem, r, rows)
        shown = three_table(r)  # the CIs and each role's hands; the CSV keeps its columns
        print(
            f"three-handed: {r['matches']} matches, seats rotated; per agent and role, the hands "
            "it played there, the hands its side won and its points per hand (95% CIs)"
        )
        modes = [m for m in ("adviser_on", "adviser_off") if m in r]
        plot_bars(
            png,
            [m.replace("_", " ") for m in modes],
            [r[m]["box_points_per_hand"] for m in modes],
            [tuple(r[m]["box_points_ci95"]) for m in modes],
            "three-handed: box points per hand (95% CI)",
            "points / hand",
        )
    elif args.cmd == "rummy":
        r = rummy_duplicate(
            specs, args.deals, args.seed, args.workers, progress, _table(RummyConfig, table),
            args.concurrency, replays,
        )  # fmt: skip
        r.update(about)
        rows = _rummy_rows(r)
        paths = write_result(out, stem, r, rows)
        plot_bars(
            png,
            list(r["per_agent"]),
            [st["points_per_hand"] for st in r["per_agent"].values()],
            [tuple(st["ci95"]) for st in r["per_agent"].values()],
            "duplicate rummy: points per hand (95% CI)",
            "points / hand",
        )
    else:
        r = ladder(specs, args.pairs, args.seed, args.workers, progress, args.concurrency, replays)
        r.update(about)
        rows = [
            {
                "agent": n,
                "mu": r["openskill"][n]["mu"],
                "sigma": r["openskill"][n]["sigma"],
                "ordinal": r["openskill"][n]["ordinal"],
                "elo": r["elo"][n]["elo"],
                "elo_low": r["elo"][n]["low"],
                "elo_high": r["elo"][n]["high"],
                **_word_columns((r.get("text") or {}).get(n)),
            }
            for n in r["ranking"]
        ]
        paths = write_result(out, stem, r, rows)
        plot_bars(
            png,
            r["ranking"],
            [r["elo"][n]["elo"] - 1500 for n in r["ranking"]],
            [(r["elo"][n]["low"] - 1500, r["elo"][n]["high"] - 1500) for n in r["ranking"]],
            "ladder: Elo - 1500 (bootstrap 95% CI)",
            "Elo - 1500",
        )
        if args.cmd == "leaderboard":
            md = out / f"{stem}.md"
            md.write_text(leaderboard_markdown(r, r.get("text")))
            paths.append(md)
            print(md.read_text())
    print(text_table(shown if shown is not None else rows, WORD_FORMATS))
    for mode in ("adviser_on", "adviser_off"):
        if isinstance(r.get(mode), dict) and isinstance(r[mode].get("agents"), dict):  # plain
            kinds = {n: st.get("win_kinds") for n, st in r[mode]["agents"].items()}
            extra = _outcome_rows({"win_kinds": kinds, "text": r[mode].get("text")})
        elif isinstance(r.get(mode), dict):  # duplicate three-handed
            extra = _outcome_rows(r[mode])
        else:
            continue
        print(f"\nwins by kind and play in words ({mode.replace('_', ' ')}):")
        print(text_table(extra, WORD_FORMATS))
    if args.cmd == "gin":
        print("\nwins by kind and play in words:")
        print(text_table(_outcome_rows(r), WORD_FORMATS))
    print("wrote", ", ".join(str(x) for x in paths + ([png] if png else [])))
    return r, paths, png


def _replays_written(r: dict[str, Any]) -> list[dict[str, Any]]:
    """What the result says of the replays written (each adviser mode its own folder)."""
    found = [r["replays"]] if isinstance(r.get("replays"), dict) else []
    for mode in ("adviser_on", "adviser_off"):
        if isinstance(r.get(mode), dict) and isinstance(r[mode].get("replays"), dict):
            found.append(r[mode]["replays"])
    return found


if __name__ == "__main__":
    main()
