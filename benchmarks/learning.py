"""The learning benchmark: what standard algorithms reach on these envs at a given budget,
one command per row, like CleanRL's benchmark scripts.

    python benchmarks/learning.py run sb3-gin --budget 100000 --seed 0   # one row, one seed
    python benchmarks/learning.py list                                   # the rows' commands
    python benchmarks/learning.py summary                                # the table, the curves

Each ``run`` trains one row's algorithm for ``--budget`` learner steps on ``--seed`` (the
command of the row is an example script or a trainer, run as a user runs it), then plays the
trained player (and the untrained one) against ``random``, ``simple`` (L1) and
``heuristic`` (L2) on ``--eval-deals`` duplicate deals of a seed training never saw
(:func:`training.periodic_eval.before_after`), and writes
``results/learning/<row>/budget<B>_seed<S>.json`` (under ``--out``): the row's command, the
commit, the seeds, the package versions, points per hand with 95% CIs, the wall-clock
seconds of training and per million steps, and the learning curve. The row's run prints
as it goes (its lines, and its progress bar on a terminal; ``--quiet``: no bar), and
writes nothing outside ``--out``: its TensorBoard logs go to a temporary folder, deleted
with it (the curve is in the JSON). ``summary`` renders every such file
into ``results/learning/README.md``'s table (a cell no run has filled says "not run") and
``results/learning/curves.png``. Every row is in the table at 10^5 and 10^6 learner steps,
and at 10^7 where a run there fits in three hours: where its runs at 10^6 trained at 1,080
seconds per million steps or less (:func:`fits_largest_budget`); ``list`` prints the
commands of those budgets.

A learner step is one decision of the learning seat (SB3 rows, DMC) or one env step
(Tianshou's single loop: the learner's decisions; its multi-agent loop: one seat acts
per step, the learner's or the random player's; TorchRL: one seat
acts per frame, every seat the learner's, as it plays itself).

Rows (``list`` prints their commands), the recipe's first:

- ``dmc-gin-hour`` and ``dmc-three-hour``: the project's DMC with ``--preset hour`` (the
  one-hour recipe: against L1 from the first hand, the per-move facts encoding), gin and
  three-handed, from scratch;
- ``sb3-gin``: sb3-contrib MaskablePPO on ``gin_v0`` (the vector env), opponents random;
- ``sb3-three-gymnasium``: the same on the three-handed env through the Gymnasium wrapper;
- ``sb3-three-vector``: the same on the three-handed env through the vector env;
- ``tianshou-dqn-gin``: Tianshou's DQN on ``gin_v0`` against a random player, the learner's
  seat of the Gymnasium env (the random player inside it);
- ``tianshou-dqn-gin-marl``: the same through Tianshou's multi-agent loop, in points (the
  example's loop until it had ``--loop``): a hand its opponent ends never reaches the
  learner's transitions (``examples/tianshou_dqn.py`` says why);
- ``torchrl-mappo-three``: TorchRL's multi-agent PPO on the three-handed env, self-play;
- ``dmc-gin``: the project's DMC (:mod:`training.train_dmc`) on ``gin_v0``, self-play,
  the plain action encoding (no L2 in it), from scratch.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import os
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gin_eval.writer import write_json  # noqa: E402
from training.checkpoints import latest_checkpoint  # noqa: E402
from training.periodic_eval import before_after, before_after_lines  # noqa: E402

OUT = ROOT / "results" / "learning"
BUDGETS = (100_000, 1_000_000, 10_000_000)
SEEDS = (0, 1, 2)
OPPONENTS = ("random", "simple", "heuristic")
EVAL_SEED = 20_261  # the held-out deals every row is reported on
#: The largest budget is run where a run fits in three hours: a row whose runs at 10^6
#: trained at no more than this many seconds per million learner steps (their mean).
LONG_RUN_LIMIT_S = 3 * 3600
#: Two-sided 95% quantiles of Student's t by degrees of freedom (the CI across seeds).
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571}


@dataclass(frozen=True)
class Row:
    name: str
    what: str
    game: str  # gin or three_handed: the game the player is evaluated at
    script: str  # an example script, or "dmc"
    options: tuple[str, ...] = ()
    library: str = ""  # the package whose version the row records
    budget_flag: str = "--steps"  # the script's flag for the learner steps
    log_flag: str = "--log-dir"  # the script's flag for its TensorBoard folder ("": none)
    against: str = "random"  # who the learner plays while it learns, as the table says it

    @property
    def eval_deals(self) -> int:
        """Deals per opponent: 500 in gin (1,000 hands), 300 three-handed (900 hands)."""
        return 500 if self.game == "gin" else 300


ROWS = {
    r.name: r
    for r in (
        Row(
            "dmc-gin-hour",
            "DMC (the project's), gin_v0, the hour preset (against L1, per-move facts)",
            "gin",
            "dmc",
            ("--preset", "hour"),
            "torch",
            log_flag="",
            against="L1 (simple)",
        ),
        Row(
            "dmc-three-hour",
            "DMC (the project's), three-handed, the hour preset (against two L1, facts)",
            "three_handed",
            "dmc",
            ("--preset", "hour"),
            "torch",
            log_flag="",
            against="L1 (simple)",
        ),
        Row(
            "sb3-gin",
            "MaskablePPO (SB3), gin_v0, vector env",
            "gin",
            "examples/sb3_maskable_ppo.py",
            ("--game", "gin", "--env", "vector"),
            "sb3-contrib",
            "--timesteps",
        ),
        Row(
            "sb3-three-gymnasium",
            "MaskablePPO (SB3), three-handed, Gymnasium wrapper",
            "three_handed",
            "examples/sb3_maskable_ppo.py",
            ("--game", "three_handed", "--env", "gymnasium", "--num-envs", "8", "--n-steps", "256"),
            "sb3-contrib",
            "--timesteps",
        ),
        Row(
            "sb3-three-vector",
            "MaskablePPO (SB3), three-handed, vector env",
            "three_handed",
            "examples/sb3_maskable_ppo.py",
            ("--game", "three_handed", "--env", "vector"),
            "sb3-contrib",
            "--timesteps",
        ),
        Row(
            "tianshou-dqn-gin",
            "DQN (Tianshou), gin_v0, against random",
            "gin",
            "examples/tianshou_dqn.py",
            ("--loop", "single"),
            "tianshou",
        ),
        Row(
            "tianshou-dqn-gin-marl",
            "DQN (Tianshou's multi-agent loop), gin_v0, against random",
            "gin",
            "examples/tianshou_dqn.py",
            ("--loop", "marl", "--reward-scale", "1.0"),
            "tianshou",
        ),
        Row(
            "torchrl-mappo-three",
            "MAPPO (TorchRL), three-handed, self-play",
            "three_handed",
            "examples/torchrl_mappo.py",
            (),
            "torchrl",
            "--frames",
            against="itself",
        ),
        Row(
            "dmc-gin",
            "DMC (the project's), gin_v0, self-play, from scratch",
            "gin",
            "dmc",
            (),
            "torch",
            log_flag="",  # learning.py dmc trains in a temporary run folder
            against="itself",
        ),
    )
}


def row_command(
    row: Row,
    budget: int,
    seed: int,
    eval_deals: int,
    result: Path,
    logs: Path | None = None,
    quiet: bool = False,
) -> list[str]:
    """The command that trains ``row`` and writes its figures to ``result`` (its
    TensorBoard logs, if it writes any, into ``logs``: a temporary folder, so that a run
    writes nothing outside ``--out``); ``quiet``: no progress bar."""
    common = ["--seed", str(seed), "--eval-opponents", ",".join(OPPONENTS),
              "--eval-deals", str(eval_deals), "--eval-seed", str(EVAL_SEED),
              "--result", str(result)]  # fmt: skip
    if quiet:
        common.append("--quiet")
    if row.log_flag and logs is not None:
        common += [row.log_flag, str(logs)]
    if row.script == "dmc":
        return [sys.executable, str(Path(__file__).resolve()), "dmc", "--budget", str(budget),
                "--game", row.game, *row.options, *common]  # fmt: skip
    script = [sys.executable, str(ROOT / row.script), row.budget_flag, str(budget)]
    return [*script, *row.options, *common]


def result_path(row: str, budget: int, seed: int, out: Path = OUT) -> Path:
    return out / row / f"budget{budget}_seed{seed}.json"


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def code_state() -> dict[str, Any]:
    """The commit of this clone and whether tracked files had uncommitted changes (kept
    apart from the writer's provenance, which looks for the clone one folder too high)."""

    def git(*args: str) -> str | None:
        done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": commit, "dirty": None if dirty is None else bool(dirty)}


def run_row(
    name: str, budget: int, seed: int, eval_deals: int, out: Path, quiet: bool = False
) -> dict[str, Any]:
    """Train and evaluate one row on one seed; write and return its result. The child's
    output is this command's, as it comes (its lines, and its progress bar on a terminal
    unless ``quiet``); its TensorBoard logs go to a temporary folder, deleted after it, so
    that nothing is written outside ``out``."""
    row = ROWS[name]
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "run.json"
        cmd = row_command(row, budget, seed, eval_deals, raw, Path(tmp) / "tb", quiet)
        # PYTHONUNBUFFERED: its lines as they come, even into a pipe.
        env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1",
               "PYTHONUNBUFFERED": "1"}  # fmt: skip
        code = code_state()  # the tree the run starts from, not the one it ends on
        load = [os.getloadavg()[0]]
        print(f"row {name}, {budget:,} learner steps, seed {seed}: {shlex.join(cmd)}", flush=True)
        start = time.perf_counter()
        done = subprocess.run(cmd, cwd=ROOT, env=env)  # its output streams through
        wall = time.perf_counter() - start
        load.append(os.getloadavg()[0])
        if done.returncode != 0:
            raise SystemExit(
                f"row {name} failed (exit status {done.returncode}; its output is above): "
                f"{shlex.join(cmd)}"
            )
        run = json.loads(raw.read_text())
    steps = int(run["steps"])
    seconds = float(run["train_seconds"])
    result = {
        "row": name,
        "what": row.what,
        "game": row.game,
        "budget": budget,
        "seed": seed,
        "eval_seed": EVAL_SEED,
        "eval_deals": eval_deals,
        "steps": steps,
        "train_seconds": seconds,
        "seconds_per_million_steps": seconds * 1e6 / max(1, steps),
        "wall_seconds": wall,
        "load_average": load,  # the machine's 1-minute load at the start and the end
        "library": {row.library: _version(row.library)} if row.library else {},
        "trained": {r["opponent"]: r["trained"] for r in run["before_after"]},
        "untrained": {r["opponent"]: r["untrained"] for r in run["before_after"]},
        "difference": {r["opponent"]: r["difference"] for r in run["before_after"]},
        "curve": run.get("curve", []),
        "run_command": run["provenance"]["command"],
        "code": code,
    }
    command = ["python", "benchmarks/learning.py", "run", name, "--budget", str(budget),
               "--seed", str(seed)]  # fmt: skip
    if eval_deals != row.eval_deals:
        command += ["--eval-deals", str(eval_deals)]
    path = write_json(result_path(name, budget, seed, out), result, [seed, EVAL_SEED], command)
    print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return result


# ==========================================================================================
# DMC: the project's trainer, then the same evaluation as the examples'
# ==========================================================================================
def run_dmc(argv: Sequence[str]) -> None:
    """``learning.py dmc``: train :mod:`training.train_dmc` for ``--budget`` decisions from
    scratch (plain action encoding, self-play) and write the example-shaped result."""
    p = argparse.ArgumentParser(prog="learning.py dmc")
    p.add_argument("--budget", type=int, required=True)
    p.add_argument("--game", default="gin", choices=("gin", "three_handed"))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--eval-opponents", default=",".join(OPPONENTS))
    p.add_argument("--eval-deals", type=int, default=500)
    p.add_argument("--eval-seed", type=int, default=EVAL_SEED)
    p.add_argument("--result", required=True)
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--preset", default="", help="a train_dmc --preset (its features too)")
    a = p.parse_args(list(argv))
    import torch  # train extra

    from agents.dmc import torch_model  # train extra (torch)
    from training import train_dmc  # train extra (torch)

    with tempfile.TemporaryDirectory() as tmp:
        run_dir = Path(tmp) / "dmc"
        flags = ["--env", a.game, "--run-dir", str(run_dir), "--total-steps", str(a.budget),
                 "--seed", str(a.seed), "--keep-best", "false",
                 *(["--preset", a.preset] if a.preset else ["--features", "basic"]),
                 "--eval-every", str(10 * a.budget), "--checkpoint-every", str(10 * a.budget),
                 "--torch-threads", "1", "--progress", str(not a.quiet).lower()]  # fmt: skip
        args = train_dmc.parse_args(flags)
        start = time.perf_counter()
        summary = train_dmc.train(args)
        seconds = time.perf_counter() - start
        ckpt = latest_checkpoint(run_dir)
        assert ckpt is not None  # the run writes one at its end
        models, saved, _ = train_dmc.load_models(ckpt)
        trained = train_dmc.to_agent(models, saved, name="dmc")
        # The untrained player: fresh networks of the same shape, seeded by the run's seed.
        torch.manual_seed(a.seed)
        hidden = [int(x) for x in saved.hidden.split(",")]
        fresh = [torch_model(hidden, saved.features, saved.history) for _ in models]
        untrained = copy.deepcopy(train_dmc.to_agent(fresh, saved, name="untrained"))
    rows = before_after(untrained, trained, a.game, a.eval_opponents.split(","), a.eval_deals,
                        a.eval_seed)  # fmt: skip
    for line in before_after_lines(rows):
        print(line)
    result = {"steps": int(summary["steps"]), "train_seconds": seconds, "before_after": rows,
              "curve": [], "seed": a.seed}  # fmt: skip
    write_json(a.result, result, [a.seed, a.eval_seed])


# ==========================================================================================
# The table
# ==========================================================================================
def _cell(results: list[dict[str, Any]], opponent: str) -> str:
    """Mean over seeds with a 95% CI: across the seeds (Student's t) for 2+ seeds, over
    the deals for one; then each seed's mean."""
    means = [r["trained"][opponent]["mean"] for r in results if opponent in r["trained"]]
    if not means:
        return "not run"
    m = sum(means) / len(means)
    if len(means) == 1:
        r = results[0]["trained"][opponent]
        return f"{m:+.1f} [{r['ci_low']:+.1f}, {r['ci_high']:+.1f}] (1 seed)"
    sd = math.sqrt(sum((x - m) ** 2 for x in means) / (len(means) - 1))
    half = T95.get(len(means) - 1, 1.96) * sd / math.sqrt(len(means))
    seeds = ", ".join(f"{x:+.1f}" for x in means)
    return f"{m:+.1f} [{m - half:+.1f}, {m + half:+.1f}] ({len(means)} seeds: {seeds})"


def load_results(out: Path = OUT) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(out.glob("*/budget*_seed*.json"))]


def fits_largest_budget(results: list[dict[str, Any]], name: str) -> bool:
    """Whether a run of ``name`` at the largest budget fits in :data:`LONG_RUN_LIMIT_S`,
    judged by the training seconds per million steps of its runs at the budget below."""
    speeds = [r["seconds_per_million_steps"] for r in results
              if r["row"] == name and r["budget"] == BUDGETS[-2]]  # fmt: skip
    if not speeds:
        return False
    return sum(speeds) / len(speeds) * BUDGETS[-1] / 1e6 <= LONG_RUN_LIMIT_S


def row_budgets(results: list[dict[str, Any]], name: str) -> list[int]:
    """The budgets the table shows for ``name``: 10^5 and 10^6; 10^7 where a run there fits
    in three hours (:func:`fits_largest_budget`); and any budget the row has runs at."""
    budgets = set(BUDGETS[:2]) | {r["budget"] for r in results if r["row"] == name}
    if fits_largest_budget(results, name):
        budgets.add(BUDGETS[-1])
    return sorted(budgets)


def table(results: list[dict[str, Any]]) -> list[str]:
    """The benchmark's table as Markdown lines: every row at each of :func:`row_budgets`
    ("not run" where no result is)."""
    head = ["row", "trained against", "learner steps", "seeds"]
    head += [f"vs {o}, points per hand" for o in OPPONENTS]
    head.append("wall-clock s per M steps")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name in ROWS:
        for budget in row_budgets(results, name):
            got = [r for r in results if r["row"] == name and r["budget"] == budget]
            got.sort(key=lambda r: r["seed"])
            if got:
                speed = sum(r["seconds_per_million_steps"] for r in got) / len(got)
                speed_text = f"{speed:,.0f}"
            else:
                speed_text = "not run"
            cells = [f"`{name}`", ROWS[name].against, f"{budget:,}",
                     ", ".join(str(r["seed"]) for r in got) or "-"]  # fmt: skip
            cells += [_cell(got, o) for o in OPPONENTS] + [speed_text]
            lines.append("| " + " | ".join(cells) + " |")
    return lines


def plot(results: list[dict[str, Any]], path: Path) -> Path | None:
    """The learning curves of the runs that kept one (points per hand against the
    training opponent on a small set of deals, by learner steps)."""
    with_curve = [r for r in results if len(r.get("curve", [])) > 1]
    if not with_curve:
        return None
    import matplotlib  # eval extra

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # eval extra

    rows = [name for name in ROWS if any(r["row"] == name for r in with_curve)]
    ncols = min(3, len(rows))
    nrows = math.ceil(len(rows) / ncols)
    fig, grid = plt.subplots(nrows, ncols, figsize=(4.4 * ncols, 3.4 * nrows), squeeze=False)
    axes = grid.ravel()
    for ax in axes[len(rows) :]:
        ax.set_visible(False)
    for ax, name in zip(axes, rows, strict=False):
        for r in sorted(with_curve, key=lambda r: (r["budget"], r["seed"])):
            if r["row"] != name:
                continue
            xs = [p["step"] for p in r["curve"]]
            label = f"{r['budget']:,} steps, seed {r['seed']}"
            ax.plot(xs, [p["mean"] for p in r["curve"]], marker=".", label=label)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("learner steps")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6)
    for ax in grid[:, 0]:
        ax.set_ylabel("points per hand against random")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


#: The table's place in a page: between these two lines, rewritten by ``summary``.
MARKERS = ("<!-- learning table: benchmarks/learning.py summary -->", "<!-- end of table -->")
PAGES = (OUT / "README.md", ROOT / "docs" / "training" / "learning_benchmark.md")


def put_table(page: Path, text: str) -> bool:
    """Write ``text`` between :data:`MARKERS` in ``page``; False when it has no markers."""
    if not page.is_file():
        return False
    old = page.read_text()
    start, end = old.find(MARKERS[0]), old.find(MARKERS[1])
    if start < 0 or end < start:
        return False
    page.write_text(old[: start + len(MARKERS[0])] + "\n\n" + text + "\n" + old[end:])
    return True


def summary(out: Path = OUT) -> str:
    """The table of every result under ``out`` (also written into the README and the docs
    page when ``out`` is the committed folder) and the curves."""
    results = load_results(out)
    text = "\n".join(table(results)) + "\n"
    (out / "table.md").write_text(text)
    if out.resolve() == OUT.resolve():
        for page in PAGES:
            put_table(page, text)
    plot(results, out / "curves.png")
    return text


def main(argv: Sequence[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["dmc"]:
        return run_dmc(argv[1:])
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="train and evaluate one row on one seed")
    r.add_argument("row", help=f"one of: {', '.join(ROWS)}")
    r.add_argument("--budget", type=int, default=BUDGETS[0], help="learner steps")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--eval-deals", type=int, help="deals per opponent (default: the row's)")
    r.add_argument("--out", default=str(OUT), help="where the result goes (and nothing else)")
    r.add_argument("--quiet", action="store_true", help="no progress bar from the row's run")
    ls = sub.add_parser("list", help="every row's command at each budget it is run at")
    ls.add_argument("--out", default=str(OUT))
    s = sub.add_parser("summary", help="the table and the curves from the results")
    s.add_argument("--out", default=str(OUT))
    a = p.parse_args(argv)
    if a.cmd == "list":
        results = load_results(Path(a.out))
        for name in ROWS:
            for budget in row_budgets(results, name):
                print(f"python benchmarks/learning.py run {name} --budget {budget} --seed 0")
        return None
    if a.cmd == "summary":
        print(summary(Path(a.out)), end="")
        return None
    if a.row not in ROWS:
        p.error(f"row must be one of {', '.join(ROWS)}; got {a.row!r}")
    if a.budget < 1:
        p.error(f"--budget must be a positive number of learner steps; got {a.budget}")
    deals = ROWS[a.row].eval_deals if a.eval_deals is None else a.eval_deals
    if deals < 2:
        p.error(f"--eval-deals must be at least 2 (a CI needs two); got {deals}")
    run_row(a.row, a.budget, a.seed, deals, Path(a.out), a.quiet)
    return None


if __name__ == "__main__":
    main()
