"""Command-line flags from a trainer's or an example's ``Args`` dataclass.

Every field is a ``--flag`` (underscores become dashes). For the trainers, with its help
text (the field's ``metadata["help"]``) and its default shown in ``--help``; :func:`parse`
also returns which flags the command line gave explicitly, which a ``--resume`` needs to
tell a deliberate change from a default (:func:`training.checkpoints.resume_settings`).
The scripts in ``examples/`` read theirs with :func:`parse_example`.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from training import cli_description

__all__ = [
    "RUN_FLAGS",
    "REPORT_HELP",
    "REPORT_DEFAULTS",
    "EXPORT_HELP",
    "check_report",
    "HELP",
    "build_parser",
    "parse",
    "parse_example",
    "save_path",
    "SAVE_SUFFIX",
    "command_line",
    "parse_bool",
    "names",
]

T = TypeVar("T")


#: Flags of every trainer that a ``--resume`` may change (where the run goes, how long,
#: how often it saves and evaluates, threads); each trainer adds its own to these.
RUN_FLAGS = frozenset(
    {
        "run_dir",
        "total_steps",
        "resume",
        "overwrite",
        "progress",
        "export",
        "max_minutes",
        "checkpoint_every",
        "keep_checkpoints",
        "eval_every",
        "eval_pairs",
        "torch_threads",
        "report_deals",
        "report_opponents",
        "report_seed",
    }
)


#: The help of the flags every trainer ends with (:func:`training.periodic_eval.run_report`).
REPORT_HELP = {
    "report_deals": (
        "at the end of gin-rummy train, the untrained player and the run's player (what "
        "--agents RUN_DIR seats) on this many duplicate deals of --report-seed against each "
        "--report-opponents, with 95%% CIs and their difference paired by deal (0: none)"
    ),
    "report_opponents": "the opponents of that before/after comparison (agent names)",
    "report_seed": "seed of the before/after deals (one no evaluation selected on)",
}
#: Their defaults: a quick look (seconds to a minute), not a measurement to report.
REPORT_DEFAULTS = {"report_deals": 50, "report_opponents": "random,simple", "report_seed": 20_261}
#: The ``--export`` flag's help: maintainers ship a player into the package with it.
EXPORT_HELP = (
    "for maintainers: at the end, also copy the run's player into the installed package, as "
    "agents/checkpoints/<name>{suffix}, a shipped player; the run's own player files "
    "(best{suffix} if kept, latest{suffix}) are in --run-dir either way"
)


def check_report(deals: int, opponents: str, seat: Callable[[str], object]) -> None:
    """Refuse, before a run, a ``--report-deals`` that is neither 0 nor 2 or more (a CI
    needs two) and a ``--report-opponents`` name ``seat`` cannot seat."""
    if deals != 0 and deals < 2:
        raise ValueError(
            f"report_deals must be 0 (none) or at least 2 (a CI needs two); got {deals}"
        )
    if deals:
        if not names(opponents):
            raise ValueError("report_opponents needs at least one agent name")
        for name in names(opponents):
            try:
                seat(name)
            except ValueError as err:
                raise ValueError(f"report_opponents: {err}") from None


def HELP(default: Any, text: str) -> Any:  # noqa: N802 (reads as a field declaration)
    """A dataclass field with a default and help text."""
    return dataclasses.field(default=default, metadata={"help": text})


def parse_bool(text: str) -> bool:
    low = text.lower()
    if low in ("1", "true", "yes", "on"):
        return True
    if low in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected a boolean (true/false); got {text!r}")


def pairs(items: Sequence[str], flag: str = "-o") -> dict[str, Any]:
    """``name=value`` items (``-o``) as keyword options: a value is read as JSON where it
    parses (``10``, ``true``, ``null``), else as text. A ``ValueError`` names a malformed
    item."""
    out: dict[str, Any] = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"{flag} {item!r}: expected name=value")
        try:
            out[name.strip()] = json.loads(text)
        except json.JSONDecodeError:
            out[name.strip()] = text
    return out


def names(text: str) -> list[str]:
    """``"a, b,c"`` -> ``["a", "b", "c"]``. An agent spec's options stay with it: a
    ``key=value`` item (no ``:`` before its ``=``) continues the spec before it, so
    ``"captain:agent=tuned,params=eaai,heuristic"`` is two names."""
    out: list[str] = []
    for item in (t.strip() for t in text.split(",")):
        if not item:
            continue
        key, sep, _ = item.partition("=")
        if sep and ":" not in key and out and ":" in out[-1]:
            out[-1] += "," + item
        else:
            out.append(item)
    return out


def build_parser(
    cls: type, prog: str, description: str, suppress: bool = False
) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description=cli_description(description),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    for f in dataclasses.fields(cls):
        flag = "--" + f.name.replace("_", "-")
        text = f.metadata.get("help", "")
        shown = (
            f" (default: {str(f.default).lower()})"
            if isinstance(f.default, bool)
            else f" (default: {f.default!r})"
        )
        default = argparse.SUPPRESS if suppress else f.default
        if f.type in ("bool", bool):
            parser.add_argument(
                flag,
                type=parse_bool,
                nargs="?",
                const=True,
                default=default,
                metavar="BOOL",
                help=text + shown,
            )
        else:
            kind = {"int": int, "float": float, "str": str}[str(f.type)]
            parser.add_argument(flag, type=kind, default=default, help=text + shown)
    return parser


def parse(
    cls: Callable[..., T],
    argv: list[str] | None,
    prog: str,
    description: str,
) -> tuple[T, set[str], argparse.ArgumentParser]:
    """``(args, explicit flag names, parser)``."""
    parser = build_parser(cls, prog, description)  # type: ignore[arg-type]
    ns = parser.parse_args(argv)
    given = build_parser(cls, prog, description, suppress=True).parse_args(argv)  # type: ignore[arg-type]
    return cls(**vars(ns)), set(vars(given)), parser


def command_line(args: Any, module: str) -> str:
    """The command that reproduces ``args`` (flags that differ from the defaults)."""
    parts = [f"python -m {module}"]
    for f in dataclasses.fields(args):
        value = getattr(args, f.name)
        if value != f.default:
            text = str(value).lower() if isinstance(value, bool) else str(value)
            parts.append(f"--{f.name.replace('_', '-')} {text}")
    return " ".join(parts)


def parse_example(
    cls: Callable[..., T],
    argv: list[str] | None,
    doc: str,
    *,
    choices: Mapping[str, Sequence[str]] | None = None,
    positive: Sequence[str] = (),
    smoke: Mapping[str, Any] | None = None,
    check: Callable[[T], object] | None = None,
) -> tuple[T, bool, bool, argparse.ArgumentParser]:
    """An example script's options: ``(args, smoke, quiet, parser)``.

    Each field of ``cls()`` is a ``--flag`` of its default's type; a bool is ``--flag`` /
    ``--no-flag``. ``--smoke`` (a tiny run, as CI does) puts ``smoke``'s values in place;
    ``--quiet`` turns the progress bar off. ``--save PATH`` (every example) names the
    ``.zip`` the trained player is written to, where ``agents.seat(PATH, table)`` and
    ``--agents PATH`` seat it; its folder is checked now, before training, and the path
    is on ``args`` (read it with :func:`save_path`). Then a field named in ``choices``
    must be one of its values and a field in ``positive`` a finite number above zero, or
    the parser exits with a message that names the flag and what it takes. Last, ``check(args)``: a
    ``ValueError`` it raises (an agent name that is no agent) is a usage error too, before
    any training. The parser is returned for the example's own checks (``parser.error``).
    """
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    for name, default in vars(cls()).items():
        flag, shown = f"--{name.replace('_', '-')}", f"(default: {default!r})"
        if isinstance(default, bool):
            kind = argparse.BooleanOptionalAction
            parser.add_argument(flag, action=kind, default=default, help=shown)
        else:
            parser.add_argument(flag, type=type(default), default=default, help=shown)
    parser.add_argument("--smoke", action="store_true", help="a tiny run, as CI does")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--save",
        default="",
        metavar="PATH",
        help=f"write the trained player to PATH (a {SAVE_SUFFIX}), where agents.seat(PATH, "
        "table) and --agents PATH seat it",
    )
    ns = vars(parser.parse_args(argv))
    is_smoke, quiet, save = ns.pop("smoke"), ns.pop("quiet"), ns.pop("save")
    if save:
        where = _save_problem(save)
        if where:
            parser.error(f"--save {save}: {where}")
    if is_smoke:
        ns.update(smoke or {})
    for name, allowed in (choices or {}).items():
        if ns[name] not in allowed:
            parser.error(
                f"--{name.replace('_', '-')} must be one of {', '.join(allowed)}; got {ns[name]!r}"
            )
    for name in positive:
        value = ns[name]
        if not (value > 0 and math.isfinite(value)):
            parser.error(f"--{name.replace('_', '-')} must be a positive number; got {value}")
    args = cls(**ns)
    setattr(args, SAVE_ATTRIBUTE, save)  # not a field: the examples' JSON keeps its keys
    if check is not None:
        try:
            check(args)
        except ValueError as err:
            parser.error(str(err))
    return args, is_smoke, quiet, parser


#: The ending of an example's ``--save`` file: an actor zip, or SB3's own zip.
SAVE_SUFFIX = ".zip"
SAVE_ATTRIBUTE = "save"


def _save_problem(path: str) -> str:
    """What is wrong with ``--save path`` (empty when nothing): its ending, its folder."""
    target = Path(path).expanduser()
    if target.suffix != SAVE_SUFFIX:
        return f"give a file ending in {SAVE_SUFFIX} (the player's format)"
    if target.is_dir():
        return "is a folder; give a file name"
    folder = target.parent
    if not folder.is_dir():
        return f"the folder {str(folder)!r} does not exist"
    if not os.access(folder, os.W_OK):
        return f"the folder {str(folder)!r} is not writable"
    return ""


def save_path(args: Any) -> str:
    """The ``--save`` path :func:`parse_example` put on an example's ``args`` ("": none)."""
    return str(getattr(args, SAVE_ATTRIBUTE, "") or "")
