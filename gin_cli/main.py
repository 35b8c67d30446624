"""``gin-rummy``: the command line of the project.

Subcommands::

    gin-rummy play     a person plays in the terminal against agents, in any seat
    gin-rummy match    agents play a match, printed hand by hand (or saved as a replay)
    gin-rummy replay   play a saved match back, as text or as a GIF
    gin-rummy eval     front door to gin_cli.evaluate (all options passed through)
    gin-rummy train    the trainers: --algo ppo (training.train_ppo, the default) or dmc
                       (training.train_dmc); the other options go to the trainer
    gin-rummy serve    the table in a browser: a local web app to play, watch and replay
                       (extra "web"; gin_web.cli, found by its entry point)
    gin-rummy bench    env: how fast the envs run here (gin_cli.speed, installed); rules,
                       rummy: benchmarks/bench_<rules|rummy>.py of a source checkout

Games (``--game``): ``three`` (three-handed gin, the default), ``gin`` (two-player gin),
``rummy`` (basic rummy, 2-6 players), and ``three-v1`` / ``gin-v1`` (the observation with
the table's rules in view). Rules options go through ``-o name=value``
(e.g. ``-o knock_limit=0 -o target_score=50``) and are checked by the env, which names
the allowed values of a bad one; ``-o table=eaai`` (or ``default``, ``openspiel``:
``agents.tuned.TABLES``) sets a named table's rules, the other options overriding them.

In ``play`` moves are typed as words: ``draw`` (from the stock), ``take`` (the upcard or
the top discard), ``pass``, a card to discard (``7h``, ``10s``, ``qd``), ``knock 3c``; the
adviser may also type ``none``. ``?`` lists the legal moves, ``hint`` asks the heuristic
agent, ``quit`` leaves. A malformed or illegal move is explained and asked again.

This module holds the commands: their arguments, the env and agents they build, and the
dispatch to the front doors. The loops that play a reset table out in the terminal are
:mod:`gin_cli.play_loops`; what a seat sees, in rich markup, is :mod:`gin_cli.terminal`.
Both hold the table in play (``env.table_state``), never the engine.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import zipfile
from collections.abc import Sequence
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import click
import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

import agents
from agents import families
from agents.tuned import TABLES
from gin_cli import play_loops
from gin_cli.terminal import explain_illegal, human_view
from gin_env import games
from gin_env import record as replay_files
from gin_env.config import HandRules, Table
from gin_env.match import ADVISER, CAPTAIN, ROLE_NAMES
from gin_env.optional import MissingExtraError, require
from gin_env.record import match_outcome, save_match
from gin_eval.rummy import RULES as RUMMY_RULES
from training import flags

__all__ = [
    "main",
    "cli",
    "make_agent",
    "eval_table",
    "GAME_ENVS",
    "GAME_NAMES",
    "game_spec",
    "TRAINERS",
    "split_algo",
    "explain_illegal",
    "human_view",
]

#: The games by their ``--game`` name: each game's :attr:`~gin_env.games.GameSpec.cli`.
GAME_ENVS = games.cli_names()
#: Every name ``--game`` takes: a game's ``cli`` name, its aliases, its env and short names
#: (all read from :mod:`gin_env.games`).
GAME_NAMES = {key: games.get(key).name for key in games.names()}
_CLI_NAME = {env: name for name, env in GAME_ENVS.items()}


def game_spec(name: str) -> games.GameSpec:
    """The game ``--game name`` means (any of :data:`GAME_NAMES`); a ``ValueError`` lists
    the ``--game`` names otherwise."""
    env = GAME_NAMES.get(name) if isinstance(name, str) else None
    if env is None:
        raise ValueError(f"unknown game {name!r}; allowed: {', '.join(GAME_ENVS)}")
    return games.get(env)


CAPTAIN_NAME, ADVISER_NAME = ROLE_NAMES[CAPTAIN], ROLE_NAMES[ADVISER]
REPO_ROOT = Path(__file__).resolve().parents[1]
#: A seed: an int the env's seeding takes (numpy's and gymnasium's refuse negatives).
SEED = click.IntRange(0, 2**63 - 1)
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
PASSTHROUGH = {"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": []}


# ==========================================================================================
# Shared helpers: games, options, agents, console
# ==========================================================================================
def _game(value: str) -> str:
    """The ``--game`` name (``three``, ``gin``, ``rummy``) of any name the game answers to."""
    try:
        return _CLI_NAME[game_spec(value).name]
    except ValueError:
        raise click.BadParameter(
            f"{value!r}; allowed: {', '.join(GAME_ENVS)}", param_hint="'--game'"
        ) from None


def _options(pairs: Sequence[str], game: str | None = None) -> dict[str, Any]:
    """``-o name=value`` pairs as env keyword options (:func:`training.flags.pairs`: values
    read as JSON when they parse, ``10``, ``true``, ``null``, and as text otherwise).
    ``-o table=NAME`` sets the named table's rules (:data:`agents.tuned.TABLES`:
    ``default``, ``eaai``, ``openspiel``) that ``game`` takes (a match option only where it
    is not the default); the other ``-o`` options override them."""
    tables = [p for p in pairs if p.partition("=")[0].strip() == "table"]
    out: dict[str, Any] = {}
    for pair in tables:
        out.update(_table_options(pair.partition("=")[2].strip(), game))
    try:
        out.update(flags.pairs([p for p in pairs if p not in tables]))
    except ValueError as err:
        raise click.BadParameter(str(err).removeprefix("-o "), param_hint="'-o'") from None
    return out


def _table_options(name: str, game: str | None) -> dict[str, Any]:
    """The env options of the named table that ``game``'s env takes."""
    if name not in TABLES:
        raise click.BadParameter(
            f"table {name!r}; allowed: {', '.join(TABLES)}", param_hint="'-o table='"
        )
    if game is None or game_spec(game).family != "gin":
        raise click.BadParameter(
            "-o table= names a gin table: for the gin games", param_hint="'-o table='"
        )
    table = TABLES[name]
    taken = set(game_spec(game).module.raw_env.config_class.option_names())
    hand = set(HandRules.option_names())
    default = type(table)()
    return {
        k: getattr(table, k)
        for k in type(table).option_names()
        if k in taken and (k in hand or getattr(table, k) != getattr(default, k))
    }


def make_env(game: str, options: dict[str, Any]) -> Any:
    """The ``raw_env`` of ``game`` with ``options``; a bad option is a ``click`` usage error
    carrying the env's own message (which names the allowed values)."""
    try:
        return game_spec(game).make_env(**options)
    except (TypeError, ValueError) as err:
        raise click.UsageError(f"bad option for {game}: {err}") from None


def whole_matches(options: dict[str, Any]) -> None:
    """``play`` and ``match`` deal whole matches: ``-o episode=hand`` (an env option for
    training loops) is refused by name, not played as a match that never finishes."""
    episode = options.get("episode", "match")
    if episode != "match":
        raise click.BadParameter(
            f"episode={episode!r}: play and match play whole matches (episode='match'); "
            "to stop a match after N hands, give -o max_hands=N",
            param_hint="'-o'",
        )


def _save_replay(path: str, seed: int, options: dict[str, Any], env: Any, names: Any) -> str:
    """Save the match (over or not) as a replay; a line saying what was saved. A file that
    cannot be written is one line naming it."""
    try:
        save_match(path, seed, options, env, names)
    except OSError as err:
        raise UserError(f"cannot write the replay to {path!r}: {err.strerror or err}") from None
    state = env.table_state
    if state.is_over:
        return f"replay saved to {path}"
    done = sum(rec.result is not None for rec in state.history)
    return f"replay saved to {path} (the match so far: {done} hands finished, not over)"


def _writable_path(ctx: Any, param: Any, value: str | None) -> str | None:
    """A ``--save``/``--gif`` path checked before anything is played: its folder must exist
    and be writable, and the path must not be a folder (or a read-only file)."""
    if value is None:
        return None
    path = Path(value)
    folder = path.parent if str(path.parent) else Path(".")
    hint = f"'--{param.name.replace('_path', '')}'" if param is not None else None
    if path.is_dir():
        raise click.BadParameter(f"{value!r} is a folder; give a file name", param_hint=hint)
    if not folder.is_dir():
        raise click.BadParameter(
            f"{value!r}: folder {str(folder)!r} does not exist", param_hint=hint
        )
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise click.BadParameter(f"{value!r} is not writable", param_hint=hint)
    return value


def make_agent(name: str, table: Table) -> Any:
    """The agent ``name`` (a registry name or spec: ``random``, ``simple``, ``heuristic``,
    ``search:budget=0.05``, trained names such as ``gin-ppo``, a run folder of ``gin-rummy
    train`` or a player file by path) seated at ``table``
    (:func:`agents.seat`: for rummy ``simple`` is ``rummy-simple``; agents that read the
    table play its rules). A bad name, or an agent that cannot play the table, is an error
    of one line, before any game."""
    try:
        return agents.seat(name, table)
    except (ValueError, OSError) as err:
        raise UserError(one_line(err)) from None
    except (zipfile.BadZipFile, EOFError, KeyError) as err:  # a checkpoint's loaders
        raise UserError(
            f"{name!r} is not a readable checkpoint ({type(err).__name__}: {one_line(err)})"
        ) from None


def _agent_names(text: str, n: int, what: str = "--agents") -> list[str]:
    names = flags.names(text)
    if len(names) == 1:
        names = names * n
    if len(names) != n:
        raise click.BadParameter(
            f"{text!r}: give one agent name or {n} comma-separated names", param_hint=what
        )
    return names


def _console(color: bool) -> Any:

    # highlight=False: rich would otherwise colour numbers and words on its own.
    return Console(highlight=False, no_color=not color, soft_wrap=True)


def _progress(console: Any) -> Any:

    return Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )


# ==========================================================================================
# The command group
# ==========================================================================================
class UserError(click.ClickException):
    """An error the user caused (a bad value, a file that cannot be read or written): printed
    as one line, ``Error: ...``, with exit status 2 as click's usage errors."""

    exit_code = 2


def one_line(err: BaseException) -> str:
    """An exception's message on one line (its lines joined by "; "), or its type's name."""
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    return "; ".join(lines) or type(err).__name__


class _Commands(click.Group):
    """The command group, with one handler for the errors a user can cause anywhere below
    it: a ``ValueError`` (a bad value, a malformed file; the message names it and what is
    allowed), an ``OSError`` (a file that cannot be read or written) or a missing extra
    becomes one line and exit status 2, never a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (ValueError, OSError, MissingExtraError) as err:
            raise UserError(one_line(err)) from None


@click.group("gin-rummy", cls=_Commands, context_settings=CONTEXT)
@click.version_option(package_name="gin-env", message="%(prog)s %(version)s")
def cli() -> None:
    """Three-handed gin rummy, two-player gin and basic rummy: play, watch, replay,
    evaluate, train and benchmark."""


_game_option = click.option(
    "--game",
    "-g",
    default="three",
    show_default=True,
    callback=lambda ctx, p, v: _game(v),
    help="three (three-handed gin), gin (two-player), rummy (basic rummy), or the v1 layouts"
    " three-v1 and gin-v1 (the rules in view).",
)
_rule_options = click.option(
    "--option",
    "-o",
    "rule_options",
    multiple=True,
    metavar="NAME=VALUE",
    help="An env option, e.g. -o target_score=50 -o knock_limit=0 (repeatable).",
)


# -- play ----------------------------------------------------------------------------------
@cli.command(context_settings=CONTEXT)
@_game_option
@click.option("--seat", default=0, show_default=True, type=int, help="Your seat: player_N.")
@click.option(
    "--opponents",
    default=None,
    help="Agent name for the other seats, or one name per other seat, comma-separated "
    "[default: heuristic; rummy: rummy-simple]. The strongest: best (at the default, eaai "
    "and openspiel tables; best:budget=SECONDS a decision).",
)
@click.option(
    "--seed", default=None, type=SEED, help="Seed of the deals, an int >= 0 (default: random)."
)
@click.option("--target-score", type=int, default=None, help="Points that win the match.")
@_rule_options
@click.option("--color/--no-color", default=True, help="Coloured output (when a terminal).")
@click.option(
    "--save",
    "save_path",
    type=click.Path(dir_okay=False),
    callback=_writable_path,
    help="Save a replay (the path is checked before the match).",
)
def play(
    game: str,
    seat: int,
    opponents: str | None,
    seed: int | None,
    target_score: int | None,
    rule_options: tuple[str, ...],
    color: bool,
    save_path: str | None,
) -> None:
    """Play a match in the terminal against agents.

    Moves: draw, take, pass, a card to discard (7h, 10s, qd), knock 3c; the adviser may
    type none. Type ? for the legal moves, hint for a suggestion, quit to leave.
    """
    console = _console(color)
    options = _options(rule_options, game)
    if target_score is not None:
        options["target_score"] = target_score
    whole_matches(options)
    spec = game_spec(game)
    if save_path and spec.family != "gin":
        raise click.BadParameter("replays are for the gin games", param_hint="'--save'")
    if spec.players is None:  # the player count is an option (rummy): two unless given
        options.setdefault("num_players", 2)
    env = make_env(game, options)
    n = len(env.possible_agents)
    if not 0 <= seat < n:
        raise click.BadParameter(f"{seat}; allowed: 0..{n - 1}", param_hint="'--seat'")
    names = _agent_names(opponents or families.default_agent(spec), n - 1, "--opponents")
    others = [p for p in range(n) if p != seat]
    policies = {
        env.possible_agents[p]: make_agent(nm, env.config)
        for p, nm in zip(others, names, strict=True)
    }
    if seed is None:
        seed = int(np.random.default_rng().integers(2**31))
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    me = env.possible_agents[seat]
    console.print(
        f"[bold]{GAME_ENVS[game]}[/], seed {seed}: you are {me}; "
        + ", ".join(f"{a} is {nm}" for a, nm in zip(policies, names, strict=True))
    )
    reader = sys.stdin  # click's test runner swaps it for the input it is given
    if spec.family != "gin":
        play_loops.play_rummy(env, seat, policies, rng, console, reader)
        return
    play_loops.play_gin(env, seat, policies, rng, console, reader, ask=_ask_human)
    if save_path:  # also when the person leaves: the match so far
        agents = {a: nm for a, nm in zip(policies, names, strict=True)} | {me: "human"}
        console.print(_save_replay(save_path, seed, options, env, agents))


#: How ``play`` reads the person's moves (:func:`gin_cli.play_loops.ask_human`), looked up
#: when a match starts: a test may seat an agent in the person's place.
_ask_human: play_loops.Ask = play_loops.ask_human


# -- match ---------------------------------------------------------------------------------
@cli.command(context_settings=CONTEXT)
@_game_option
@click.option(
    "--agents",
    "agent_spec",
    default=None,
    help="One agent name for every seat, or one per seat (player_0,player_1,...) "
    "[default: heuristic; rummy: rummy-simple].",
)
@click.option(
    "--seed",
    default=0,
    show_default=True,
    type=SEED,
    help="Seed of the first match's deals (match i plays seed + i), an int >= 0.",
)
@click.option(
    "--matches", default=1, show_default=True, type=click.IntRange(1), help="Matches to play."
)
@click.option("--target-score", type=int, default=None, help="Points that win the match.")
@_rule_options
@click.option("--verbose", "-v", is_flag=True, help="Print every action.")
@click.option(
    "--save",
    "save_path",
    type=click.Path(dir_okay=False),
    callback=_writable_path,
    help="Save the match as a replay (the path is checked before playing).",
)
@click.option("--color/--no-color", default=True)
def match(
    game: str,
    agent_spec: str | None,
    seed: int,
    matches: int,
    target_score: int | None,
    rule_options: tuple[str, ...],
    verbose: bool,
    save_path: str | None,
    color: bool,
) -> None:
    """Agents play a match, printed hand by hand (or several, summed up)."""
    console = _console(color)
    options = _options(rule_options, game)
    if target_score is not None:
        options["target_score"] = target_score
    whole_matches(options)
    if save_path and matches > 1:
        raise click.BadParameter("--save keeps one match; use --matches 1", param_hint="--save")
    spec = game_spec(game)
    if save_path and spec.family != "gin":
        raise click.BadParameter("replays are for the gin games", param_hint="--save")
    env = make_env(game, options)
    names = _agent_names(agent_spec or families.default_agent(spec), len(env.possible_agents))
    policies = {
        a: make_agent(nm, env.config) for a, nm in zip(env.possible_agents, names, strict=True)
    }
    console.print(
        f"[bold]{GAME_ENVS[game]}[/]: "
        + ", ".join(f"{a} {nm}" for a, nm in zip(env.possible_agents, names, strict=True))
    )
    wins = dict.fromkeys(env.possible_agents, 0)
    totals = dict.fromkeys(env.possible_agents, 0)
    hands = 0
    one = matches == 1
    with _progress(console) as progress:
        task = progress.add_task("matches", total=matches, visible=not one)
        for m in range(matches):
            rng = np.random.default_rng(seed + m)
            env.reset(seed=seed + m)
            roles = env.table_state.describe_roles()  # three-handed: the draw for roles
            if one and roles is not None:
                console.print(roles)
            scores, winner, n_hands = play_loops.play_out(env, policies, rng, one, verbose, console)
            hands += n_hands
            for a, s in zip(env.possible_agents, scores, strict=True):
                totals[a] += s
            if winner is not None:
                wins[env.possible_agents[winner]] += 1
            progress.advance(task)
    if one:
        if spec.family == "gin":
            console.print(f"[bold green]{match_outcome(env)}[/]")
        if save_path:
            seats = dict(zip(env.possible_agents, names, strict=True))
            console.print(_save_replay(save_path, seed, options, env, seats))
    else:
        console.print(f"{matches} matches, {hands} hands, seeds {seed}..{seed + matches - 1}")
        for a, nm in zip(env.possible_agents, names, strict=True):
            console.print(
                f"  {a} {nm:10} wins {wins[a]:4} ({wins[a] / matches:.1%})   "
                f"mean score {totals[a] / matches:.1f}"
            )


# -- replay --------------------------------------------------------------------------------
@cli.command(context_settings=CONTEXT)
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--gif",
    "gif_path",
    type=click.Path(dir_okay=False),
    callback=_writable_path,
    help="Write a GIF here.",
)
@click.option("--hands", default="", help="Hands to draw in the GIF, e.g. 1,2 (default: all).")
@click.option("--max-frames", default=400, show_default=True, type=click.IntRange(1))
@click.option("--actions/--no-actions", default=True, help="Print every action in the text.")
def replay(file: str, gif_path: str | None, hands: str, max_frames: int, actions: bool) -> None:
    """Play a saved match back (checked against its record): text, or a GIF."""
    try:
        if gif_path is not None:  # before the file is read and played back
            require("PIL", needed_for="gin-rummy replay --gif")
        try:
            chosen = [int(h) for h in hands.split(",") if h.strip()] or None
        except ValueError:
            raise click.BadParameter(
                f"{hands!r}: expected hand numbers, e.g. 1,2", param_hint="'--hands'"
            ) from None
        data = replay_files.load(file)
        if gif_path is None:
            click.echo(replay_files.replay_text(data, actions=actions))
            click.echo(f"{file}: {checked_out(data)}")
            return
        replay_files.replay_env(data)  # the whole record checked (the GIF may stop early)
        console = _console(True)
        with _progress(console) as progress:
            task = progress.add_task("frames", total=max_frames)
            count = replay_files.replay_gif(
                data, gif_path, chosen, max_frames=max_frames,
                progress=lambda k: progress.advance(task, k),
            )  # fmt: skip
        click.echo(f"{count} frames written to {gif_path}")
        click.echo(f"{file}: {checked_out(data)}")
    except (ValueError, OSError, MissingExtraError) as err:  # a bad or unreadable file, an
        raise UserError(one_line(err)) from None  # unwritable GIF path, no Pillow


def checked_out(data: dict[str, Any]) -> str:
    """The line ``replay`` ends with once a record has played back as recorded."""
    hands = len(data["hands"])
    return (
        f"the record checked out: {hands} hand{'s' if hands != 1 else ''} played back to the "
        f"recorded decks, seats, roles, results and scores {data['scores']}"
    )


# -- front doors to evaluation, training and benchmarks -------------------------------------
def _forward(module: str, args: Sequence[str], prog: str, **kwargs: Any) -> int:
    """Call ``module.main(argv, **kwargs)`` with the arguments as given (its own --help
    included)."""
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name and module.startswith(err.name):
            raise click.ClickException(f"{prog}: {module} is not available yet") from None
        raise
    sys.argv[0] = prog
    code = mod.main(list(args), **kwargs)
    # Some mains return a summary rather than an exit status: that is success.
    return code if isinstance(code, int) and not isinstance(code, bool) else 0


#: The ``gin-rummy eval`` designs that take the table's rules (``-o``): the gin games of
#: observation layout v0 by their ``--game`` name (``gin``, ``three``), from
#: :func:`gin_env.games.gin_games`.
EVAL_GAMES = tuple(games.get(short).cli for short in games.gin_games())


def eval_table(design: str | None, pairs: Sequence[str]) -> Table | None:
    """The table of ``gin-rummy eval <design>`` with its ``-o name=value`` rule options,
    checked before any game is played (``eval gin``'s match target is its ``--target``;
    ``eval rummy`` plays single hands, its players counted from ``--agents``); None when no
    option is given (the design's standard table). A usage error names what is allowed."""
    options = _options(pairs, design if design in EVAL_GAMES else None)
    if not options:
        return None
    if design == "rummy":  # one hand per deal: only the hand's rules
        unknown = sorted(set(options) - set(RUMMY_RULES))
        if unknown:
            raise click.BadParameter(
                f"{', '.join(unknown)} is not a rule option of eval rummy; allowed: "
                + ", ".join(RUMMY_RULES),
                param_hint="'-o'",
            )
        try:
            return game_spec("rummy").table(**options)
        except ValueError as err:
            raise click.UsageError(f"bad option for rummy: {err}") from None
    game = design if design in EVAL_GAMES else None
    if game is None:
        raise click.UsageError(
            f"-o rule options are taken by eval {' and eval '.join(EVAL_GAMES)}, not by eval "
            f"{design or '(no design given)'}"
        )
    spec = game_spec(game)
    allowed = list(spec.module.raw_env.config_class.option_names())
    if game == "gin":
        allowed.remove("target_score")  # --target sets it
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise click.BadParameter(
            f"{', '.join(unknown)} is not a rule option of eval {design}; allowed: "
            + ", ".join(allowed)
            + (" (the match target is --target)" if "target_score" in unknown else ""),
            param_hint="'-o'",
        )
    try:
        return spec.table(**options)  # the table checks every value, naming the allowed ones
    except ValueError as err:
        raise click.UsageError(f"bad option for {game}: {err}") from None


@cli.command("eval", context_settings=PASSTHROUGH, add_help_option=False)
@_rule_options
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def eval_(rule_options: tuple[str, ...], args: tuple[str, ...]) -> None:
    """Evaluate agents (gin_cli.evaluate): gin-rummy eval --help for its options; eval gin
    and eval three also take the table's rules as -o name=value, as play and match do."""
    design = next((a for a in args if not a.startswith("-")), None)
    table = eval_table(design, rule_options)
    raise SystemExit(_forward("gin_cli.evaluate", args, "gin-rummy eval", table=table))


#: The trainers by ``gin-rummy train --algo`` name: each a leaf module with ``main(argv)``,
#: imported only when chosen (they need the ``train`` extra).
TRAINERS = {"ppo": "training.train_ppo", "dmc": "training.train_dmc", "tune": "training.tune"}


def split_algo(args: Sequence[str]) -> tuple[str, list[str]]:
    """``(algo, the other arguments)``: the ``--algo NAME`` / ``--algo=NAME`` of a ``train``
    command line (default ``ppo``) taken out; a name not in :data:`TRAINERS` is a usage
    error naming the allowed ones."""
    algo, rest, it = "ppo", [], iter(args)
    for a in it:
        if a == "--algo":
            algo = next(it, "")
        elif a.startswith("--algo="):
            algo = a.split("=", 1)[1]
        else:
            rest.append(a)
    if algo not in TRAINERS:
        raise click.BadParameter(f"{algo!r}; allowed: {', '.join(TRAINERS)}", param_hint="'--algo'")
    return algo, rest


@cli.command(context_settings=PASSTHROUGH, add_help_option=False)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def train(args: tuple[str, ...]) -> None:
    """Train a player: gin-rummy train --algo ppo|dmc|tune, then the trainer's options
    (MaskablePPO by default; gin-rummy train --algo dmc --help lists a trainer's options).
    Everything goes into --run-dir, the player files too (best/latest .npz or .zip; play
    them with --agents RUN_DIR); the run ends with the untrained and the trained player on
    the same deals (--report-deals)."""
    algo, rest = split_algo(args)
    raise SystemExit(_forward(TRAINERS[algo], rest, "gin-rummy train"))


@cli.command("import-sb3", context_settings=PASSTHROUGH, add_help_option=False)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def import_sb3(args: tuple[str, ...]) -> None:
    """Convert a stable-baselines3 .zip you trust into an actor zip (gin-rummy import-sb3
    --trust FILE [--out PATH]): agents load only data, never pickles. A zip whose
    policy.pth holds tensors only needs none: --agents FILE.zip reads it as data."""
    raise SystemExit(_forward("training.trusted", args, "gin-rummy import-sb3"))


@cli.command("migrate-checkpoint", context_settings=PASSTHROUGH, add_help_option=False)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def migrate_checkpoint(args: tuple[str, ...]) -> None:
    """Re-save checkpoint folders of the old pickled format as data, once (gin-rummy
    migrate-checkpoint --trust FOLDER...)."""
    raise SystemExit(
        _forward("training.trusted", args, "gin-rummy migrate-checkpoint", migrate=True)
    )


BENCHES = ("rules", "env", "rummy")


@cli.command(context_settings=PASSTHROUGH, add_help_option=False)
@click.argument("which", required=False)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def bench(which: str | None, args: tuple[str, ...]) -> None:
    """Benchmarks: gin-rummy bench env|rules|rummy [options]. env (installed): the envs'
    speed against OpenSpiel and RLCard; rules, rummy: a source checkout's benchmarks."""
    if which in (None, "-h", "--help"):
        click.echo(
            "Usage: gin-rummy bench rules|env|rummy [OPTIONS]\n\n"
            "  env: how fast the envs run on this machine (gin_cli.speed, installed with the\n"
            "  package); rules, rummy: benchmarks/bench_<which>.py of a source checkout.\n"
            "  Options go to the benchmark (gin-rummy bench env --help)."
        )
        return
    if which not in BENCHES:
        raise click.BadParameter(f"{which!r}; allowed: {', '.join(BENCHES)}", param_hint="WHICH")
    if which == "env":
        raise SystemExit(_forward("gin_cli.speed", args, "gin-rummy bench env"))
    path = REPO_ROOT / "benchmarks" / f"bench_{which}.py"
    if not path.exists():  # an installed package: say so without a path into site-packages
        raise click.ClickException(
            f"gin-rummy bench {which} runs benchmarks/bench_{which}.py of a source checkout "
            "(a clone of the project), which an installed package does not carry; installed, "
            "gin-rummy bench env measures the envs' speed"
        )
    spec = importlib.util.spec_from_file_location(f"bench_{which}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses in the script look their module up here
    spec.loader.exec_module(module)
    sys.argv[0] = f"gin-rummy bench {which}"
    code = module.main(list(args))
    raise SystemExit(code if isinstance(code, int) and not isinstance(code, bool) else 0)


#: Packages above the CLI (the web app) add their subcommands through this entry-point
#: group, so the CLI never imports them: ``gin-rummy serve`` is ``gin_web.cli:serve``.
COMMANDS_GROUP = "gin_rummy.commands"


def _add_plugin_commands() -> None:
    for point in entry_points(group=COMMANDS_GROUP):
        if point.name not in cli.commands:
            cli.add_command(point.load(), point.name)


_add_plugin_commands()


def main(argv: Sequence[str] | None = None) -> Any:
    """Entry point of the ``gin-rummy`` console script."""
    return cli.main(args=None if argv is None else list(argv), prog_name="gin-rummy")


if __name__ == "__main__":
    main()
