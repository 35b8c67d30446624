"""The command line of the team-versus-solo studies: ``python -m studies.team_vs_solo
{duplicate,advice,ablations,hidden,balance,learned,fit-value,plot,report} ...``."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gin_eval.checks import OptionError
from gin_eval.duplicate import duplicate_vs_plain, write_duplicate
from gin_eval.hand_value import DEFAULT_VALUE_PATH
from gin_eval.luck import ADJUST_MODES
from gin_eval.plots import plot_duplicate
from gin_eval.reports import text_table
from gin_eval.writer import write_result
from studies.team_vs_solo.advice import advice_matrix, advice_rows, learned_advice, learned_rows
from studies.team_vs_solo.balance import balance, balance_rows
from studies.team_vs_solo.figures import (
    plot_advice,
    plot_balance,
    plot_follow,
    plot_learned,
    replot,
)
from studies.team_vs_solo.report import adjusted_report, learned_report, report
from studies.team_vs_solo.value_fit import fit_value_on_pilot

__all__ = [
    "DEFAULT_OUT",
    "CAPTAINS",
    "ADVISERS",
    "ABLATIONS",
    "ADVICE_READERS",
    "HIDDEN_HAND_ADVISERS",
    "parse_pairs",
    "main",
]


#: Where the command line writes unless told ``--out``: a git-ignored folder.
DEFAULT_OUT = "runs/team_vs_solo"


#: The studies' default line-ups (label -> spec).
CAPTAINS = {
    "L0": "random",
    "L1": "simple",
    "L2": "heuristic",
    "PPO": "three-handed-ppo",
    "L1-weigh": "captain:agent=simple,mode=weigh",
    "L1-follow": "captain:agent=simple,mode=follow",
}


ADVISERS = {
    "none": "none",
    "L0": "adviser:agent=random",
    "L1": "adviser:agent=simple",
    "L2": "adviser:agent=heuristic",
    "PPO": "adviser:agent=three-handed-ppo",
}


#: Ablations of the advice channel, beside the real L2 advice and no adviser at all.
ABLATIONS = {
    "none": "none",
    "muted": "muted",
    "random legal": "adviser:agent=random",
    "shuffled": "shuffled",
    "own policy": "own",
    "L2": "adviser:agent=heuristic",
}


#: Captains that read the suggestion (the others' cells equal their "none" cell).
ADVICE_READERS = ("PPO", "L1-weigh", "L1-follow")


HIDDEN_HAND_ADVISERS = {
    "none": "none",
    "L2": "adviser:agent=heuristic",
    "PPO (raw)": "three-handed-ppo",
    "L0 (raw)": "random",
}


def parse_pairs(text: str | None, default: Mapping[str, str]) -> dict[str, str]:
    """``"a=spec;b=spec"`` (or a bare spec, its own label) -> ``{label: spec}``."""
    if not text:
        return dict(default)
    out = {}
    for item in filter(None, (p.strip() for p in text.split(";"))):
        label, eq, spec = item.partition("=")
        if eq and ":" not in label and "," not in label:
            out[label.strip()] = spec.strip()
        else:
            out[item] = item
    return out


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """``python -m studies.team_vs_solo {duplicate,advice,ablations,hidden,balance,learned,
    fit-value,plot,report}``."""
    p = argparse.ArgumentParser(
        prog="python -m studies.team_vs_solo", description=__doc__.split("\n")[0]
    )
    sub = p.add_subparsers(dest="study", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--seed", type=int, default=0)
    common.add_argument("--workers", type=int, default=1)
    common.add_argument(
        "--out", default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT}, ignored by git)"
    )
    common.add_argument("--progress", action="store_true")
    d = sub.add_parser("duplicate", parents=[common], help="duplicate vs plain three-handed")
    d.add_argument("--agents", default="heuristic,simple,three-handed-ppo")
    d.add_argument("--deals", type=int, default=200, help="deal sequences (x6 matches)")
    d.add_argument(
        "--unit",
        default="match",
        choices=("match", "hand"),
        help="replay whole matches, or single hands in the 6 role assignments",
    )
    d.add_argument(
        "--adjust",
        nargs="?",
        const="deal",
        default=None,
        choices=ADJUST_MODES,
        help="also the points per hand and paired edges adjusted for the deal (regression "
        "on covariates of the deck, beta cross-fitted; writes <stem>_deal.*) or, with "
        "'draws', also corrected for the luck of every stock draw (writes <stem>_draws.*) or, "
        "with 'value', corrected at the deal and every draw by a learned value of the full "
        "state (writes <stem>_value.*)",
    )
    d.add_argument(
        "--value",
        default=None,
        help="with --adjust value: the saved value (.npz from fit-value; default "
        "gin_eval/data/hand_value.npz)",
    )
    d.add_argument(
        "--adjust-deals",
        type=int,
        default=20000,
        help="shuffled decks for the covariates' mean (no hand is played; default 20000)",
    )
    for name, helptext in (
        ("advice", "captain x adviser matrix"),
        ("ablations", "ablations of the advice channel"),
        ("hidden", "advisers that do not see the captain's hand"),
    ):
        a = sub.add_parser(name, parents=[common], help=helptext)
        a.add_argument("--hands", type=int, default=2000)
        a.add_argument("--box", default="heuristic")
        a.add_argument("--captains", default=None, help="label=spec;label=spec")
        a.add_argument("--advisers", default=None, help="label=spec;... (ablations: none, "
                       "muted, shuffled, own)")  # fmt: skip
    learned = sub.add_parser(
        "learned", parents=[common], help="trained captains: advised vs muted, cross-play"
    )
    learned.add_argument("--hands", type=int, default=2000, help="deals per cell")
    learned.add_argument("--box", default="heuristic", help="the box (default: heuristic)")
    learned.add_argument(
        "--adviser", default="heuristic", help="the fixed adviser of --captains (default: L2)"
    )
    learned.add_argument(
        "--captains", default="", help="label=spec;... captains trained beside --adviser"
    )
    learned.add_argument(
        "--joint", default="", help="label=spec;... teams trained jointly (one spec per team)"
    )
    learned.add_argument("--stem", default="team_learned", help="output file stem")
    learned.add_argument(
        "--agreement-hands",
        type=int,
        default=500,
        help="deals on which each --joint team's adviser is compared with --adviser (0: none)",
    )
    learned.add_argument(
        "--keep",
        action="store_true",
        help="keep the group (fixed / joint) of an existing <stem>.json that this command "
        "does not compute (it must have the same hands, seed and box)",
    )
    b = sub.add_parser("balance", parents=[common], help="box vs team at equal skill")
    b.add_argument("--matches", type=int, default=800)
    b.add_argument("--agent", default="heuristic")
    fv = sub.add_parser(
        "fit-value",
        parents=[common],
        help="fit the learned value of --adjust value on pilot hands (use a seed no study reports)",
    )
    fv.add_argument("--agents", default="heuristic,simple,three-handed-ppo")
    fv.add_argument("--deals", type=int, default=4000, help="pilot deals (x6 hands)")
    fv.add_argument("--hidden", default="64,32", help="hidden layer sizes (default 64,32)")
    fv.add_argument("--epochs", type=int, default=12)
    fv.add_argument("--save", default=None, help="where to save (default: the committed path)")
    sub.add_parser("plot", parents=[common], help="redraw the figures from the JSON in --out")
    sub.add_parser("report", parents=[common], help="markdown tables of the JSON in --out")
    args = p.parse_args(argv)
    out = Path(args.out)
    try:
        return _run(args, out)
    except OptionError as err:
        p.error(str(err))


def _run(args: argparse.Namespace, out: Path) -> dict[str, Any]:
    progress = args.progress
    if args.study == "report":
        text = report(out)
        print(text or "no team_*.json results")
        return {"report": text}
    if args.study == "plot":
        drawn = replot(out)
        print("drew", ", ".join(str(x) for x in drawn) or "nothing (no team_*.json)")
        return {"drawn": [str(x) for x in drawn]}
    if args.study == "duplicate":
        specs = [s.strip() for s in args.agents.split(";" if ";" in args.agents else ",")]
        r = duplicate_vs_plain(
            specs,
            args.deals,
            args.seed,
            args.workers,
            progress=progress,
            unit=args.unit,
            adjust=args.adjust or False,
            adjust_deals=args.adjust_deals,
            value=args.value,
        )
        stem = "team_duplicate" if args.unit == "match" else "team_duplicate_hands"
        stem += "" if args.adjust is None else f"_{args.adjust}"  # the stem names the option
        write_result(out, stem, r, r["half_widths"])
        write_duplicate(r["duplicate"], out, f"{stem}_edges")
        plot_duplicate(r, out / f"{stem}.png")
        print(text_table(r["half_widths"]))
        if args.adjust:
            print(adjusted_report(r))
        return r
    if args.study == "fit-value":
        specs = [s.strip() for s in args.agents.split(";" if ";" in args.agents else ",")]
        try:
            hidden = [int(h) for h in args.hidden.split(",")]
        except ValueError:
            raise OptionError(
                f"--hidden must be ints separated by commas, got {args.hidden!r}"
            ) from None
        v = fit_value_on_pilot(specs, args.deals, args.seed, args.workers, progress=progress,
                               hidden=hidden, epochs=args.epochs)  # fmt: skip
        path = v.save(args.save or DEFAULT_VALUE_PATH)
        r2 = v.info["heldout_r2"]
        print(f"saved {path}: held-out R^2 of V {'n/a' if r2 is None else f'{r2:.3f}'} "
              f"({v.info['rows']} states of {v.info['pilot_hands']} hands)")  # fmt: skip
        return {"path": str(path), "info": v.info}
    if args.study == "learned":
        caps, joint = parse_pairs(args.captains, {}), parse_pairs(args.joint, {})
        if not caps and not joint:
            raise OptionError("learned needs --captains and/or --joint")
        r = learned_advice(caps, joint, args.hands, args.adviser, args.box, args.seed,
                           args.workers, progress, args.agreement_hands)  # fmt: skip
        old_path = out / f"{args.stem}.json"
        if args.keep and old_path.exists():
            old = json.loads(old_path.read_text())
            if any(old[k] != r[k] for k in ("hands", "seed", "box")):
                raise OptionError(f"--keep: {old_path} has other hands, seed or box")
            for key in ("fixed", "joint", "cross_play", "agreement"):
                if key in old and key not in r:
                    r[key] = old[key]
        write_result(out, args.stem, r, learned_rows(r))
        plot_learned(r, out / f"{args.stem}.png")
        print(learned_report(r))
        return r
    if args.study == "balance":
        r = balance(args.matches, None, args.agent, args.seed, args.workers, progress)
        write_result(out, "team_balance", r, balance_rows(r))
        plot_balance(r, out / "team_balance.png")
        print(text_table(balance_rows(r)))
        return r
    default_advisers = {"advice": ADVISERS, "ablations": ABLATIONS}.get(
        args.study, HIDDEN_HAND_ADVISERS
    )
    default_captains = (
        CAPTAINS if args.study == "advice" else {k: CAPTAINS[k] for k in ADVICE_READERS}
    )
    captains = parse_pairs(args.captains, default_captains)
    advisers = parse_pairs(args.advisers, default_advisers)
    stem = f"team_{args.study}"
    merged: dict[str, Any] = {}
    for label, spec in captains.items():  # one captain at a time, written as it finishes
        r = advice_matrix(
            {label: spec},
            advisers,
            args.hands,
            args.box,
            args.seed,
            args.workers,
            sees_hand=args.study != "hidden",
            progress=progress,
        )
        if not merged:
            merged = r
        else:
            merged["cells"].update(r["cells"])
            merged["captains"].update(r["captains"])
        write_result(out, stem, merged, advice_rows(merged))
    plot_advice(merged, out / f"{stem}.png")
    if args.study == "advice":
        plot_follow(merged, out / "team_follow.png")
    print(text_table(advice_rows(merged)))
    return merged
