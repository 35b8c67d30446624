"""From ``gin-rummy train`` to a table: a run writes its player into its run folder (never
into the installed package's ``agents/checkpoints/``), ends with the untrained and the
trained player on the same deals, prints its evaluations as readable lines, and
``--agents RUN_DIR`` / ``agents.seat(PATH, table)`` seat what it wrote, as they seat a
stable-baselines3 zip, read without unpickling anything (a crafted one that would run
code is refused unrun). ``benchmarks/learning.py run --out DIR`` writes nothing outside
DIR."""

from __future__ import annotations

import base64
import io
import json
import os
import pickle
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import agents  # noqa: E402
from agents.trained import CHECKPOINT_DIR, MLPAgent, load_sb3  # noqa: E402
from gin_cli.main import main as cli_main  # noqa: E402
from gin_env import games  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
#: "points per hand against simple, trained: +0.12 +/- 3.40 (95% CI, 10 deals)"
CI_LINE = re.compile(
    r"points per hand against (\w+), (untrained|trained|trained minus untrained): "
    r"[-+]\d+\.\d+ \+/- \d+\.\d+ \(95% CI, (\d+) deals\)"
)
#: A DMC or PPO evaluation line: "[1,000] eval (train) vs random -2.52 [-3.60, -1.44] a
#: hand, hands won 45.7% [41.3, 50.1]" (PPO's has no phase).
EVAL_LINE = re.compile(
    r"^\[[\d,]+\] eval (\([a-z -]+\) )?vs (random|simple) .*(a hand|matches won \d+\.\d% \[)",
    re.M,
)


def listing(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``folder`` with its modification time and size."""
    return {
        str(p.relative_to(folder)): (p.stat().st_mtime_ns, p.stat().st_size)
        for p in sorted(folder.rglob("*"))
    }


def cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``gin-rummy ARGS`` in this process: exit status, standard output and error."""
    try:
        code = cli_main(args)
    except SystemExit as stop:
        code = stop.code
    out = capsys.readouterr()
    return int(code or 0), out.out, out.err


def before_after(out: str, deals: int) -> set[str]:
    """The opponents of the before/after lines in ``out``, each with all three lines."""
    found = CI_LINE.findall(out)
    assert found, out
    assert {int(n) for _, _, n in found} == {deals}, found
    by: dict[str, set[str]] = {}
    for opponent, what, _ in found:
        by.setdefault(opponent, set()).add(what)
    assert all(w == {"untrained", "trained", "trained minus untrained"} for w in by.values())
    return set(by)


def seated_by_eval(
    run: Path | str, game: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> dict[str, Any]:
    """``gin-rummy eval gin|three --agents RUN,...`` seats ``run`` by path; its result."""
    out_dir = tmp_path / "eval"
    if game == "gin":
        args = ["eval", "gin", "--agents", f"{run},simple", "--pairs", "2"]
    else:
        args = ["eval", "three", "--agents", f"{run},simple,random", "--matches", "1",
                "-o", "target_score=10"]  # fmt: skip
    args += ["--workers", "1", "--no-progress", "--no-plot", "--out", str(out_dir)]
    code, out, err = cli(args, capsys)
    assert code == 0, err + out
    [result] = out_dir.glob("*.json")
    return json.loads(result.read_text())  # type: ignore[no-any-return]


# -- 1. gin-rummy train: the player in the run folder, the package untouched -------------------
@pytest.mark.parametrize("game", ["gin", "three_handed"])
def test_dmc_train_writes_its_player_into_the_run_dir_and_eval_seats_it(
    game: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shipped = listing(CHECKPOINT_DIR)
    run = tmp_path / "dmc run"  # a space in the path: seated by path all the same
    code, out, err = cli(
        ["train", "--algo", "dmc", "--env", game, "--run-dir", str(run),
         "--total-steps", "2000" if game == "gin" else "1200", "--num-envs", "8",
         "--hidden", "16", "--batch-size", "64", "--buffer-size", "2000",
         "--eval-every", "1000", "--eval-pairs", "2",
         # three-handed evaluations play matches: opponents who finish them
         "--eval-opponents", "random" if game == "gin" else "simple",
         "--checkpoint-every", "1000", "--progress", "false",
         "--report-deals", "2", "--report-opponents", "random"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    assert {"untrained.npz", "latest.npz", "best.npz"} <= {p.name for p in run.iterdir()}
    assert listing(CHECKPOINT_DIR) == shipped  # nothing written into the package
    # Readable figures: the evaluations as lines with CIs, no raw JSON anywhere.
    assert EVAL_LINE.search(out), out
    assert "{" not in out, out
    assert f"the run's player: {run / 'best.npz'} (play it with --agents {run})" in out
    assert before_after(out, 2) == {"random"}
    # The CSV keeps its columns.
    header = (run / "eval.csv").read_text().splitlines()[0].split(",")
    assert "step" in header and any(h.endswith("_rate") for h in header), header
    # Seated by path: the run folder (its best), at its game's table only.
    player = agents.seat(str(run), games.get(game).table())
    assert player.meta["env"] == game and player.name.endswith("-best")
    other = "three_handed" if game == "gin" else "gin"
    with pytest.raises(ValueError, match="was trained on"):
        agents.seat(str(run), games.get(other).table())
    result = seated_by_eval(run, game, tmp_path, capsys)
    assert (result["agent_a"] if game == "gin" else result["agents"][0]) == str(run)


@pytest.mark.parametrize("game", ["gin", "three_handed"])
def test_ppo_train_writes_its_player_into_the_run_dir_and_eval_seats_it(
    game: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shipped = listing(CHECKPOINT_DIR)
    run = tmp_path / "ppo"
    code, out, err = cli(
        ["train", "--algo", "ppo", "--env", game, "--run-dir", str(run), "--total-steps", "256",
         "--n-envs", "2", "--n-steps", "64", "--batch-size", "64", "--n-epochs", "1",
         "--net-arch", "16", "--opponents", "random", "--eval-opponents", "random",
         "--eval-every", "128", "--eval-pairs", "2", "--gate-every", "1000000",
         "--checkpoint-every", "128", "--progress", "false",
         "--report-deals", "2", "--report-opponents", "random"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    assert {"untrained.zip", "latest.zip"} <= {p.name for p in run.iterdir()}
    assert not (run / "best.zip").exists()  # no --keep-best: the latest is the player
    assert listing(CHECKPOINT_DIR) == shipped
    assert EVAL_LINE.search(out), out
    assert "{" not in out, out
    assert before_after(out, 2) == {"random"}
    player = agents.seat(str(run), games.get(game).table())
    assert isinstance(player, MLPAgent) and player.name.endswith("-latest")
    assert player.meta["env"] == game and player.meta["steps"] >= 256
    seated_by_eval(run, game, tmp_path, capsys)


def test_export_is_for_maintainers_and_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    for algo in ("dmc", "ppo"):
        code, out, _ = cli(["train", "--algo", algo, "--help"], capsys)
        assert code == 0
        text = " ".join(out.split())
        assert "--export EXPORT for maintainers" in text, text
        assert "agents/checkpoints/<name>" in text and "--run-dir either way" in text
        assert "--report-deals" in text


def test_a_bad_report_setting_is_refused_before_any_training(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for algo in ("dmc", "ppo"):
        for flags, message in (
            (["--report-deals", "1"], "report_deals must be 0 (none) or at least 2"),
            (["--report-opponents", "nosuch"], "report_opponents: unknown agent 'nosuch'"),
        ):
            run = tmp_path / f"{algo}-{flags[0]}"
            code, _, err = cli(["train", "--algo", algo, "--run-dir", str(run), *flags], capsys)
            assert code == 2 and message in err, err
            assert not run.exists()


def test_a_folder_that_is_no_run_is_named_with_what_is_accepted(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    table = games.get("gin").table()
    for spec, message in (
        (str(tmp_path / "empty"), "is a folder without a player file (best.npz"),
        (str(tmp_path / "missing"), "no such file or folder"),
        (str(tmp_path / "missing.zip"), "no such file or folder"),
    ):
        with pytest.raises(ValueError, match=re.escape(message)) as err:
            agents.seat(spec, table)
        assert "accepted: a run folder of gin-rummy train" in str(err.value)
        assert "\n" not in str(err.value)
    # A bare word stays an agent's name, even where a folder of that name is.
    assert type(agents.seat("simple", table)).__name__ == "SimpleAgent"


def test_a_tune_run_folder_seats_the_set_it_found(tmp_path: Path) -> None:
    """``--algo tune`` writes its player, ``params.json``, into its run folder; the folder
    seats that set, at a table of the rules it was tuned for only."""
    from agents.tuned import TABLES

    run = tmp_path / "tune"
    run.mkdir()
    (run / "params.json").write_bytes((CHECKPOINT_DIR / "tuned-openspiel.json").read_bytes())
    player = agents.seat(str(run), TABLES["openspiel"])
    assert type(player).__name__ == "TunedAgent" and player.table == "openspiel"
    with pytest.raises(ValueError, match="tuned for undercut_bonus=25"):
        agents.seat(str(run), games.get("gin").table())


# -- 2. a stable-baselines3 zip, seated without unpickling ------------------------------------
def tiny_sb3(tmp_path: Path, game: str = "gin") -> tuple[Any, Path]:
    """A MaskablePPO of a few updates, saved by SB3 (ReLU: the activation is read too)."""
    from sb3_contrib import MaskablePPO

    from training.vec_env import make_sb3_vec_env

    env = make_sb3_vec_env(2, game, opponents="random", seed=0, episode="hand")
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0,
                        policy_kwargs={"activation_fn": torch.nn.ReLU, "net_arch": [16]},
                        verbose=0)  # fmt: skip
    model.learn(64)
    path = tmp_path / "sb3 model.zip"
    model.save(path)
    env.close()
    return model, path


def test_an_sb3_zip_is_seated_by_path_and_plays_its_policy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agents.trained import actor_from_sb3

    model, path = tiny_sb3(tmp_path)
    actor = agents.seat(str(path), games.get("gin").table())
    reference = actor_from_sb3(model)
    assert actor.activation == "relu" == reference.activation
    for (w, b), (rw, rb) in zip(actor.layers, reference.layers, strict=True):
        assert np.array_equal(w, rw) and np.array_equal(b, rb)
    seated_by_eval(path, "gin", tmp_path, capsys)


class Payload:
    """Unpickling this creates ``marker`` (``open(marker, "w")``): code that ran."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (open, (str(self.marker), "w"))


def crafted_sb3(marker: Path, path: Path, policy: bytes) -> Path:
    """An SB3-shaped zip: ``data`` with a cloudpickle entry and ``policy.pth`` as given."""
    blob = base64.b64encode(pickle.dumps(Payload(marker))).decode()
    data = {"policy_class": {":type:": "<class 'abc.ABCMeta'>", ":serialized:": blob},
            "policy_kwargs": {":type:": "<class 'dict'>", ":serialized:": blob}}  # fmt: skip
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("data", json.dumps(data))
        zf.writestr("policy.pth", policy)
        zf.writestr("_stable_baselines3_version", "2.9.2")
    return path


def test_a_crafted_sb3_zip_is_refused_without_running_its_pickle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "ran"
    buf = io.BytesIO()
    torch.save({"mlp_extractor.policy_net.0.weight": Payload(marker)}, buf)
    crafted = {
        "raw pickle": crafted_sb3(marker, tmp_path / "raw.zip", pickle.dumps(Payload(marker))),
        "torch file": crafted_sb3(marker, tmp_path / "torch.zip", buf.getvalue()),
    }
    assert not marker.exists()  # making them ran nothing
    for path in crafted.values():
        for load in (lambda p: agents.seat(str(p), games.get("gin").table()), load_sb3):
            with pytest.raises(ValueError) as err:
                load(path)
            text = str(err.value)
            assert text.startswith(f"{path} is a stable-baselines3 zip whose policy.pth is not "
                                   "weights only"), text  # fmt: skip
            assert "nothing in it was run" in text and "accepted:" in text, text
            assert f"gin-rummy import-sb3 --trust {path}" in text and "\n" not in text
    # The command line: one line, exit status 2, no traceback, nothing run.
    args = ["eval", "gin", "--agents", f"{crafted['raw pickle']},simple", "--pairs", "2",
            "--no-progress", "--out", str(tmp_path)]  # fmt: skip
    code, out, err = cli(args, capsys)
    assert code == 2 and "policy.pth is not weights only" in err and "Traceback" not in err
    assert not marker.exists()


# -- 3. an example's --save ---------------------------------------------------------------------
@pytest.mark.examples
def test_the_sb3_example_saves_a_zip_that_eval_seats(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "player.zip"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "sb3_maskable_ppo.py"), "--smoke", "--quiet",
         "--save", str(saved), "--log-dir", "", "--eval-opponents", "random"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"saved the trained player to {saved}: play it with --agents {saved}" in done.stdout
    assert not (tmp_path / "runs").exists()  # --log-dir "": no TensorBoard logs
    player = agents.seat(str(saved), games.get("gin").table())
    assert player.meta["env"] == "gin" and player.meta["source"] == "stable-baselines3"
    with pytest.raises(ValueError, match="was trained on gin_v0"):
        agents.seat(str(saved), games.get("three_handed").table())
    seated_by_eval(saved, "gin", tmp_path, capsys)
    # A --save the example cannot write is refused before any training.
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "sb3_maskable_ppo.py"), "--smoke",
         "--save", str(tmp_path / "no" / "such.zip")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 2 and "does not exist" in done.stderr, done.stderr


class _Net(torch.nn.Module):
    """A Q network as Tianshou's ``Net`` holds one (an MLP in a wrapper, ``(logits, state)``
    out), with ``scale`` on its output: 1 plays as its layers say, -1 does not."""

    def __init__(self, scale: float = 1.0) -> None:
        super().__init__()
        self.model = torch.nn.Sequential(
            torch.nn.Linear(436, 16), torch.nn.ReLU(), torch.nn.Linear(16, 109)
        )
        self.scale = scale

    def forward(self, x: Any) -> tuple[Any, None]:
        return self.scale * self.model(x), None


class _Greedy:
    def __init__(self, net: torch.nn.Module) -> None:
        self.net = net

    def act(self, observation: dict[str, Any], rng: Any = None) -> int:
        with torch.no_grad():
            q = self.net(torch.as_tensor(observation["observation"])[None])[0][0].numpy()
        return int(np.argmax(np.where(observation["action_mask"], q, -np.inf)))


def test_an_examples_network_is_saved_only_if_it_plays_the_same(tmp_path: Path) -> None:
    from training.player_files import mlp_actor, save_player

    net = _Net()
    path = save_player(tmp_path / "dqn.zip", mlp_actor(net, "dqn"), _Greedy(net), "gin")
    player = agents.seat(str(path), games.get("gin").table())
    assert player.activation == "relu" and player.meta["env"] == "gin"
    odd = _Net(scale=-1.0)  # not what its layers say: refused, nothing written
    with pytest.raises(ValueError, match="not the plain MLP the player file holds"):
        save_player(tmp_path / "odd.zip", mlp_actor(odd, "odd"), _Greedy(odd), "gin")
    assert not (tmp_path / "odd.zip").exists()
    normed = torch.nn.Sequential(torch.nn.Linear(436, 109), torch.nn.LayerNorm(109))
    with pytest.raises(ValueError, match="not a layer of a plain MLP"):
        mlp_actor(normed, "normed")


# -- 5. the learning benchmark writes nothing outside --out -------------------------------------
def untracked(paths: tuple[str, ...] = ("runs", "results")) -> set[str]:
    """The clone's untracked and ignored files under ``paths``, one by one."""
    done = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "--ignored", "--untracked-files=all",
         "--", *paths],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return {line for line in done.stdout.splitlines() if line[:2] in ("??", "!!")}


@pytest.mark.slow
def test_a_learning_benchmark_run_writes_only_into_its_out(tmp_path: Path) -> None:
    before = untracked()
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "learning.py"), "run", "sb3-gin",
         "--budget", "256", "--seed", "1", "--eval-deals", "2", "--out", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert untracked() == before
    assert [p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()] == [
        "sb3-gin/budget256_seed1.json"
    ]
    # The child's output came through as it ran: its command, its lines, its closing lines.
    assert "row sb3-gin, 256 learner steps, seed 1:" in done.stdout
    assert re.search(r"trained \d+ steps in", done.stdout), done.stdout
    assert before_after(done.stdout, 2) == {"random", "simple", "heuristic"}


def test_the_hour_preset_sets_its_flags_and_a_given_flag_wins(tmp_path: Path) -> None:
    from training.train_dmc import parse_args

    run = str(tmp_path / "run")
    args = parse_args(["--preset", "hour", "--run-dir", run])
    assert (args.opponents, args.opponent_share, args.features) == ("simple", 1.0, "facts")
    mine = parse_args(["--preset", "hour", "--opponent-share", "0.25", "--run-dir", run])
    assert (mine.opponents, mine.opponent_share) == ("simple", 0.25)
    plain = parse_args(["--run-dir", run])
    assert (plain.opponents, plain.opponent_share) == ("heuristic", 0.0)
    with pytest.raises(SystemExit):
        parse_args(["--preset", "fastest", "--run-dir", run])
