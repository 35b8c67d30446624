"""L3 ``tuned``: L2's heuristic with its :class:`~agents.heuristic.HeuristicParams` found by
CMA-ES (``gin-rummy train --algo tune``), one parameter set per table.

A parameter set is ``agents/checkpoints/tuned-<table>.json``: the table's rules it was
tuned for (every :class:`~gin_env.config.HandRules` option), the parameters, and how they
were found (command, generations, evaluations, wall time) with the held-out figures. Its
model card is ``tuned.md``.

``make("tuned")`` plays the set tuned for the default rules; seated at a table
(``agents.seat("tuned", env.config)``) it takes the set tuned for that table's rules, and
refuses, naming the tables it knows, a table no set was tuned for. ``params=<table>`` picks
a set by its table's name, and ``any_table=True`` lets it play at another table all the same
(a deliberate choice, never a silent one).

Tables by name (:data:`TABLES`, each a :class:`~gin_env.config.GinConfig`; a set is bound
to the hand rules, the match options say how the table plays its games):

- ``default``: the project's defaults (knock 10, gin 25, undercut 10, the card taken from
  the pile may not be discarded; games to 100, the deal alternating);
- ``eaai``: the EAAI-21 gin challenge's: knock 10, gin 25, undercut 25 (and on ties), the
  card taken from the pile may *not* be discarded, games to 100, and the deal alternates
  after a scored hand only (``dealer_rule="alternate_scored"``: a dead hand is dealt again
  by the same dealer);
- ``openspiel``: OpenSpiel's ``gin_rummy``: as ``eaai`` but the card taken from the pile
  may be discarded (OpenSpiel plays single hands: the match options are the defaults).

The set shipped as ``tuned-openspiel.json`` was tuned (as ``--table eaai``, the name this
table had then) with the taken card discardable: it is OpenSpiel's table's, not the
challenge's. ``tuned-eaai.json`` is the challenge's table's, tuned for games to 100
(``--fitness games``): 66.5% of games against L2 and 56.2% against OpenSpiel's set, held
out (the card has the intervals).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agents.base import table_rules
from agents.heuristic import HeuristicAgent, HeuristicParams
from gin_env.config import GinConfig, HandRules

__all__ = [
    "TABLES",
    "FORMAT",
    "SET_DIR",
    "TunedAgent",
    "table_name",
    "rules_dict",
    "param_set",
    "load_sets",
    "make_tuned",
    "is_tune_run",
    "tuned_from_run",
]

FORMAT = "gin-env-tuned-params-v1"
SET_DIR = Path(__file__).resolve().parent / "checkpoints"

#: The tables known by name (the module docstring says whose each is).
TABLES: dict[str, GinConfig] = {
    "default": GinConfig(),
    "eaai": GinConfig(
        knock_limit=10,
        gin_bonus=25,
        undercut_bonus=25,
        allow_discard_of_taken_card=False,
        target_score=100,
        dealer_rule="alternate_scored",
    ),
    "openspiel": GinConfig(
        knock_limit=10, gin_bonus=25, undercut_bonus=25, allow_discard_of_taken_card=True
    ),
}


def rules_dict(rules: HandRules | None) -> dict[str, Any]:
    """Every hand-rule option of ``rules`` (a gin table, :class:`HandRules` or None for the
    defaults), as a set's JSON holds them."""
    hand = table_rules(rules)
    return {k: getattr(hand, k) for k in HandRules.option_names()}


def table_name(rules: HandRules | None) -> str | None:
    """The name in :data:`TABLES` of ``rules``' table, or None."""
    want = rules_dict(rules)
    return next((n for n, r in TABLES.items() if rules_dict(r) == want), None)


def _describe(rules: Mapping[str, Any]) -> str:
    # ``rules``: a set's JSON rules (rules_dict)
    base = rules_dict(None)
    diff = [f"{k}={v!r}" for k, v in rules.items() if base.get(k) != v]
    return ", ".join(diff) or "the default rules"


class TunedAgent(HeuristicAgent):
    """L2's decisions with a tuned parameter set: ``table`` names the set, ``tuned_for``
    holds the rules it was tuned for, ``rules`` those of the table it plays at."""

    name = "tuned"

    def __init__(
        self,
        params: HeuristicParams,
        rules: HandRules | None,
        table: str,
        tuned_for: Mapping[str, Any],
    ) -> None:
        super().__init__(params, rules=rules)
        self.table = table
        self.tuned_for = dict(tuned_for)


def param_set(
    params: HeuristicParams, rules: HandRules | None, table: str, **extra: Any
) -> dict[str, Any]:
    """The JSON object of a parameter set (``extra``: how it was found, its figures)."""
    return {
        "format": FORMAT,
        "table": table,
        "rules": rules_dict(rules),
        "params": dataclasses.asdict(params),
        **extra,
    }


def _read_set(path: Path) -> dict[str, Any]:
    """A parameter set's JSON (data only); a file that is not one is a one-line ValueError
    naming it."""
    try:
        data = json.loads(path.read_bytes())
    except (ValueError, UnicodeDecodeError) as err:
        line = str(err).splitlines()[0][:120] if str(err) else "empty"
        raise ValueError(f"{path}: not a tuned parameter set (not JSON: {line})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path}: not a tuned parameter set (format {FORMAT!r})")
    for key, kind in (("params", dict), ("rules", dict), ("table", str)):
        if not isinstance(data.get(key), kind):
            raise ValueError(f"{path}: its {key!r} is missing or not a {kind.__name__}")
    known = {f.name for f in dataclasses.fields(HeuristicParams)}
    unknown = sorted(set(data["params"]) - known)
    if unknown:
        raise ValueError(f"{path}: parameters {unknown} are not HeuristicParams fields")
    try:
        data["rules"] = rules_dict(HandRules(**data["rules"]))
    except (TypeError, ValueError) as err:
        raise ValueError(f"{path}: bad rules {data['rules']!r} ({err})") from None
    return data


def load_sets(directory: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """The parameter sets in ``directory`` (default: the shipped ones), by table name."""
    folder = SET_DIR if directory is None else Path(directory)
    return {d["table"]: d for d in map(_read_set, sorted(folder.glob("tuned-*.json")))}


def make_tuned(
    rules: HandRules | None = None,
    params: str | None = None,
    any_table: bool = False,
    directory: str | Path | None = None,
) -> TunedAgent:
    """The tuned agent for a table with ``rules`` (None: the default rules).

    ``params``: the name of the set to play (default: the one tuned for ``rules``);
    ``any_table``: play it even at a table it was not tuned for.
    """
    if not isinstance(any_table, bool):
        raise ValueError(f"any_table must be True or False, got {any_table!r}")
    sets = load_sets(directory)
    if not sets:
        where = SET_DIR if directory is None else directory
        raise ValueError(f"agent 'tuned': no parameter sets (tuned-*.json) in {where}")
    table = rules_dict(rules)
    known = "; ".join(f"{n} ({_describe(d['rules'])})" for n, d in sets.items())
    if params is None:
        chosen = next((d for d in sets.values() if d["rules"] == table), None)
        if chosen is None:
            fallback = "default" if "default" in sets else next(iter(sets))
            if not any_table:
                raise ValueError(
                    f"agent 'tuned' has no parameter set tuned for this table "
                    f"({_describe(table)}); sets: {known}. Pass any_table=True (with "
                    f"params=<set>, default {fallback!r}) to play one there anyway"
                )
            chosen = sets[fallback]
    else:
        if params not in sets:
            raise ValueError(f"agent 'tuned' has no parameter set {params!r}; sets: {known}")
        chosen = sets[params]
        if chosen["rules"] != table and not any_table:
            raise ValueError(
                f"agent 'tuned': set {params!r} was tuned for {_describe(chosen['rules'])}, "
                f"not this table ({_describe(table)}); pass any_table=True to play it anyway"
            )
    params_ = HeuristicParams(**chosen["params"])
    return TunedAgent(params_, rules, chosen["table"], chosen["rules"])


#: The files of a run folder that hold a trained player (``agents.trained.run_player``): a
#: folder with one of them is a trained player's run, not a tune run.
_PLAYER_FILES = ("best.npz", "best.zip", "latest.npz", "latest.zip")


def is_tune_run(folder: str | Path) -> bool:
    """Whether ``folder`` is a run folder of ``gin-rummy train --algo tune``: its
    ``params.json`` (and no trained player's files)."""
    path = Path(folder).expanduser()
    return (
        path.is_dir()
        and (path / "params.json").is_file()
        and not any((path / f).is_file() for f in _PLAYER_FILES)
    )


def tuned_from_run(folder: str | Path, rules: HandRules | None = None) -> TunedAgent:
    """The parameter set a tune run found (``<folder>/params.json``, data only), playing
    at a table with ``rules`` (None: the rules it was tuned for); a table with other hand
    rules than it was tuned for is a one-line ``ValueError`` naming both."""
    path = Path(folder).expanduser()
    data = _read_set(path / "params.json")
    if rules is not None and rules_dict(rules) != data["rules"]:
        raise ValueError(
            f"{folder}: its parameter set was tuned for {_describe(data['rules'])}, not this "
            f"table ({_describe(rules_dict(rules))})"
        )
    params = HeuristicParams(**data["params"])
    return TunedAgent(params, rules or HandRules(**data["rules"]), data["table"], data["rules"])
