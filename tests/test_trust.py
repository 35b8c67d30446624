"""Files that cannot run code, runs that cannot lose work (issue 31, items 1 and 2).

Every loader of the project (agents.make of each player kind, a DMC ``--resume-from`` and
``--init-from``, a PPO ``--resume``, tune's resume, a replay file, a league) is handed a
crafted file whose pickled payload would create a marker file if it ran: the marker must
never appear. Empty, truncated and garbage files are one-line errors naming the file. A
second run into a run folder is refused and leaves the first run's files byte for byte.
"""

from __future__ import annotations

import base64
import dataclasses
import io
import json
import os
import pickle
import random
import signal
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import agents  # noqa: E402
from agents.trained import CHECKPOINT_DIR  # noqa: E402
from gin_env.config import GinConfig  # noqa: E402
from gin_env.record import load as load_replay  # noqa: E402
from training import checkpoints, train_dmc, train_ppo, tune  # noqa: E402
from training.checkpoints import latest_checkpoint, read_jsonl, write_checkpoint  # noqa: E402
from training.league import League  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


# -- crafted files ------------------------------------------------------------------------------
class Payload:
    """Unpickling this creates ``marker`` (``open(marker, "w")``): code that ran."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (open, (str(self.marker), "w"))


def evil_pickle(marker: Path) -> bytes:
    return pickle.dumps({"args": {}, "steps": 1, "x": Payload(marker)})


def evil_torch(marker: Path, path: Path) -> Path:
    torch.save({"models": [Payload(marker)], "optimizer": {}}, path)
    return path


def evil_npz(marker: Path, path: Path, **arrays: np.ndarray) -> Path:
    """An ``.npz`` whose object array holds the payload (np.load with allow_pickle would
    run it)."""
    np.savez(path, payload=np.array([Payload(marker)], dtype=object), **arrays)  # type: ignore[arg-type]
    return path


def evil_sb3_zip(marker: Path, path: Path) -> Path:
    """What stable-baselines3 writes, with a pickled object in ``data`` (its loader would
    unpickle it through cloudpickle)."""
    blob = base64.b64encode(pickle.dumps(Payload(marker))).decode()
    data = {"policy_class": {":type:": "<class 'abc.ABCMeta'>", ":serialized:": blob}}
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("data", json.dumps(data))
        zf.writestr("policy.pth", b"")
    return path


def evil_actor_zip(marker: Path, path: Path) -> Path:
    buf = io.BytesIO()
    np.savez(buf, w0=np.array([Payload(marker)], dtype=object), b0=np.zeros(1))  # type: ignore[arg-type]
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("meta.json", json.dumps({"num_layers": 1, "activation": "tanh"}))
        zf.writestr("weights.npz", buf.getvalue())
    return path


def one_line_naming(err: BaseException, path: Path) -> None:
    text = str(err)
    assert "\n" not in text.strip(), text
    assert str(path) in text or path.name in text, text


# -- tiny runs ----------------------------------------------------------------------------------
def ppo_args(run_dir: Path, **kw: Any) -> train_ppo.Args:
    base: dict[str, Any] = dict(
        env="gin", run_dir=str(run_dir), total_steps=128, n_envs=2, n_steps=64,
        batch_size=64, n_epochs=1, net_arch="8", opponents="random", eval_opponents="random",
        eval_every=10**9, gate_every=10**9, checkpoint_every=128, progress=False, seed=3,
    )  # fmt: skip
    base.update(kw)
    return train_ppo.Args(**base)


def dmc_args(run_dir: Path, **kw: Any) -> train_dmc.Args:
    base: dict[str, Any] = dict(
        env="gin", run_dir=str(run_dir), total_steps=200, num_envs=8, backend="python",
        hidden="8", batch_size=32, buffer_size=1000, eval_every=10**6, eval_pairs=2,
        eval_opponents="random", checkpoint_every=100, progress=False, seed=5,
    )  # fmt: skip
    base.update(kw)
    return train_dmc.Args(**base)


def tune_args(run_dir: Path, **kw: Any) -> tune.Args:
    base: dict[str, Any] = dict(
        run_dir=str(run_dir), generations=1, popsize=4, pairs=1, pool_bests=1,
        select_candidates=1, select_pairs=0, report_pairs=0, workers=1, progress=False,
        engine="python",
    )  # fmt: skip
    base.update(kw)
    return tune.Args(**base)


@pytest.fixture(scope="module")
def dmc_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run_dir = tmp_path_factory.mktemp("dmc") / "run"
    train_dmc.train(dmc_args(run_dir))
    return run_dir


@pytest.fixture(scope="module")
def ppo_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run_dir = tmp_path_factory.mktemp("ppo") / "run"
    train_ppo.train(ppo_args(run_dir))
    return run_dir


def files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def copy_tree(src: Path, dst: Path) -> Path:
    import shutil

    shutil.copytree(src, dst)
    return dst


# -- 1. loaders never run a payload ----------------------------------------------------------
def test_agents_make_never_unpickles_any_kind_of_player(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    crafted = [
        (evil_sb3_zip(marker, tmp_path / "sb3.zip"), "import-sb3 --trust"),
        (evil_actor_zip(marker, tmp_path / "actor.zip"), "actor.zip"),
        (evil_npz(marker, tmp_path / "dmc.npz", meta=np.array("{}")), "dmc.npz"),
        (tmp_path / "raw.zip", "raw.zip"),
    ]
    (tmp_path / "raw.zip").write_bytes(evil_pickle(marker))
    for path, message in crafted:
        with pytest.raises(ValueError, match=message.replace(".", r"\.")) as err:
            agents.make(str(path))
        one_line_naming(err.value, path)
    assert not marker.exists()


def test_import_sb3_needs_trust_and_converts_a_real_model(tmp_path: Path, ppo_run: Path) -> None:
    marker = tmp_path / "ran"
    evil = evil_sb3_zip(marker, tmp_path / "sb3.zip")
    from training.trusted import import_main, import_sb3

    with pytest.raises(ValueError, match="--trust"):
        import_sb3(evil, tmp_path / "out.zip")
    assert not marker.exists()
    with pytest.raises(SystemExit):
        import_main([str(evil)])  # without --trust: a usage error, nothing loaded
    assert not marker.exists()
    # A genuine SB3 save plays as the same actor: read as weights only (nothing unpickled),
    # or converted once, trusted.
    model = train_ppo.load_model(latest_checkpoint(ppo_run))  # type: ignore[arg-type]
    model.save(tmp_path / "genuine.zip")
    ref = train_ppo.load_actor(latest_checkpoint(ppo_run))  # type: ignore[arg-type]
    assert import_main([str(tmp_path / "genuine.zip"), "--trust"]) == 0
    for path in ("genuine.zip", "genuine-actor.zip"):
        actor = agents.make(str(tmp_path / path))
        assert all(
            np.array_equal(a, b) for (a, _), (b, _) in zip(actor.layers, ref.layers, strict=True)
        )


def test_dmc_resume_from_and_init_from_never_run_a_payload(tmp_path: Path, dmc_run: Path) -> None:
    marker = tmp_path / "ran"
    good = latest_checkpoint(dmc_run)
    assert good is not None
    old = tmp_path / "old"  # the old format: state.pkl
    old.mkdir()
    evil_torch(marker, old / "model.pt")
    (old / "state.pkl").write_bytes(evil_pickle(marker))
    with pytest.raises(ValueError, match="migrate-checkpoint --trust"):
        train_dmc.train(dmc_args(tmp_path / "a", resume=True, resume_from=str(old)))
    torn = tmp_path / "torn"  # a valid state, a model.pt with the payload
    torn.mkdir()
    (torn / "state.json").write_bytes((good / "state.json").read_bytes())
    evil_torch(marker, torn / "model.pt")
    with pytest.raises(ValueError, match="model.pt") as err:
        train_dmc.train(dmc_args(tmp_path / "b", resume=True, resume_from=str(torn)))
    one_line_naming(err.value, torn / "model.pt")
    with pytest.raises(ValueError, match="model.pt"):
        train_dmc.train(dmc_args(tmp_path / "c", init_from=str(torn)))
    with pytest.raises(SystemExit):
        train_dmc.main(["--run-dir", str(tmp_path / "d"), "--resume", "--resume-from", str(old)])
    assert not marker.exists()
    assert not (tmp_path / "b" / "checkpoints").exists()  # nothing adopted from a bad folder


def test_ppo_resume_never_runs_a_payload(tmp_path: Path, ppo_run: Path) -> None:
    marker = tmp_path / "ran"
    run = copy_tree(ppo_run, tmp_path / "old")
    ckpt = latest_checkpoint(run)
    assert ckpt is not None
    (ckpt / "state.pkl").write_bytes(evil_pickle(marker))
    (ckpt / "state.json").unlink()
    with pytest.raises(ValueError, match="migrate-checkpoint --trust"):
        train_ppo.train(ppo_args(run, resume=True, total_steps=256))
    run2 = copy_tree(ppo_run, tmp_path / "evil-policy")
    evil_torch(marker, latest_checkpoint(run2) / "policy.pt")  # type: ignore[operator]
    with pytest.raises(ValueError, match="policy.pt"):
        train_ppo.train(ppo_args(run2, resume=True, total_steps=256))
    with pytest.raises(ValueError, match="policy.pt"):
        train_ppo.export(run2, "x", directory=tmp_path)
    assert not marker.exists()


def test_tune_resume_and_league_and_replay_never_run_a_payload(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    old = tmp_path / "tune"
    old.mkdir()
    (old / "checkpoint.pkl").write_bytes(evil_pickle(marker))
    with pytest.raises(ValueError, match="old pickled format"):
        tune.tune(tune_args(old, resume=True))
    league = tmp_path / "league"
    league.mkdir()
    (league / "league.json").write_text(json.dumps({"fixed": [], "max_snapshots": 1}))
    evil_npz(marker, league / "snapshots.npz")
    with pytest.raises(ValueError, match="league"):
        League.load(league, GinConfig())
    replay = tmp_path / "match.json"
    replay.write_bytes(evil_pickle(marker))
    with pytest.raises(ValueError, match="match.json"):
        load_replay(replay)
    assert not marker.exists()


# -- 1b. empty, truncated and garbage files: one line naming the file ------------------------
def _bad_versions(good: bytes) -> dict[str, bytes]:
    return {"empty": b"", "truncated": good[: len(good) // 2], "garbage": os.urandom(300)}


@pytest.mark.parametrize("kind", ["empty", "truncated", "garbage"])
def test_bad_player_files_are_one_line_errors(tmp_path: Path, kind: str) -> None:
    for name in ("gin-ppo.zip", "gin-dmc.npz"):
        path = tmp_path / name
        path.write_bytes(_bad_versions((CHECKPOINT_DIR / name).read_bytes())[kind])
        with pytest.raises(ValueError) as err:
            agents.make(str(path))
        one_line_naming(err.value, path)


@pytest.mark.parametrize("kind", ["empty", "truncated", "garbage"])
def test_bad_checkpoint_files_are_one_line_errors(
    tmp_path: Path, kind: str, dmc_run: Path, ppo_run: Path
) -> None:
    def check(run: Path, target: Callable[[Path], Path], call: Callable[[Path], Any]) -> None:
        path = target(run)
        path.write_bytes(_bad_versions(path.read_bytes())[kind])
        with pytest.raises(ValueError) as err:
            call(run)
        one_line_naming(err.value, path)

    def dmc_resume(r: Path) -> Any:
        return train_dmc.train(dmc_args(r, resume=True, total_steps=300))

    def ppo_resume(r: Path) -> Any:
        return train_ppo.train(ppo_args(r, resume=True, total_steps=256))

    def latest(name: str) -> Callable[[Path], Path]:
        return lambda r: latest_checkpoint(r) / name  # type: ignore[operator]

    check(copy_tree(dmc_run, tmp_path / "d1"), latest("model.pt"), dmc_resume)
    check(copy_tree(dmc_run, tmp_path / "d2"), latest("state.json"), dmc_resume)
    check(copy_tree(ppo_run, tmp_path / "p1"), latest("policy.pt"), ppo_resume)
    check(copy_tree(ppo_run, tmp_path / "p2"), latest("state.json"), ppo_resume)
    src = copy_tree(dmc_run, tmp_path / "d3")
    check(
        src,
        latest("model.pt"),
        lambda r: train_dmc.train(
            dmc_args(tmp_path / "fresh", init_from=str(latest_checkpoint(r)))
        ),
    )
    tuned = tmp_path / "tune"
    tuned.mkdir()
    (tuned / "checkpoint.json").write_text(json.dumps({"settings": {}, "generation": 1}))
    check(tuned, lambda r: r / "checkpoint.json", lambda r: tune.tune(tune_args(r, resume=True)))


# -- 2. runs that cannot lose work -----------------------------------------------------------
def test_a_second_run_into_a_run_folder_is_refused_and_changes_nothing(
    tmp_path: Path, dmc_run: Path, ppo_run: Path
) -> None:
    for run, again in (
        (dmc_run, lambda: train_dmc.train(dmc_args(dmc_run, seed=9))),
        (ppo_run, lambda: train_ppo.train(ppo_args(ppo_run, seed=9))),
    ):
        before = files_of(run)
        with pytest.raises(ValueError, match="already holds a run"):
            again()
        assert files_of(run) == before
    tuned = tmp_path / "tune"
    tune.tune(tune_args(tuned))
    before = files_of(tuned)
    with pytest.raises(ValueError, match="holds a run"):
        tune.tune(tune_args(tuned, seed=9))
    assert files_of(tuned) == before
    # A folder with anything in it (a run killed before its first checkpoint) too.
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "args.json").write_text("{}")
    with pytest.raises(ValueError, match="already holds a run"):
        train_dmc.train(dmc_args(tmp_path / "used"))
    assert (tmp_path / "used" / "args.json").read_text() == "{}"


def test_resume_without_a_checkpoint_is_refused_and_overwrite_is_asked_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "killed").mkdir()
    (tmp_path / "killed" / "args.json").write_text("{}")
    for call in (
        lambda: train_dmc.train(dmc_args(tmp_path / "killed", resume=True)),
        lambda: train_ppo.train(ppo_args(tmp_path / "killed", resume=True)),
        lambda: tune.tune(tune_args(tmp_path / "killed", resume=True)),
    ):
        with pytest.raises(ValueError, match="no checkpoint"):
            call()
    assert (tmp_path / "killed" / "args.json").read_text() == "{}"  # not overwritten
    with pytest.raises(SystemExit):
        tune.main(["--run-dir", str(tmp_path / "killed"), "--resume"])
    assert "no checkpoint" in capsys.readouterr().err
    summary = train_dmc.train(dmc_args(tmp_path / "killed", overwrite=True))
    assert summary["finished"] and not (tmp_path / "killed" / "args.json").read_text() == "{}"
    # --overwrite deletes a run's files, never a folder of other things (--run-dir .).
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "thesis.tex").write_text("years of work")
    with pytest.raises(ValueError, match="not a run's"):
        train_dmc.train(dmc_args(tmp_path / "home", overwrite=True))
    assert (tmp_path / "home" / "thesis.tex").read_text() == "years of work"


def test_a_resume_takes_the_saved_settings_and_refuses_a_contradicting_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "t"
    tune.tune(tune_args(run, pairs=2))
    rest = ["--select-candidates", "1", "--select-pairs", "0", "--report-pairs", "0",
            "--workers", "1", "--engine", "python", "--progress", "false"]  # fmt: skip
    # The search's settings (pairs 2, popsize 4, ...) come from the run, not the defaults.
    assert tune.main(["--run-dir", str(run), "--resume", "--generations", "2", *rest]) == 0
    resumed = tune.load_state(run)
    assert resumed["settings"]["pairs"] == 2 and resumed["generation"] == 2
    with pytest.raises(SystemExit):
        tune.main(["--run-dir", str(run), "--resume", "--pairs", "100", *rest])
    assert "pairs=2" in capsys.readouterr().err  # by name, even at the default value


def test_pruning_touches_only_the_runs_own_checkpoints(tmp_path: Path) -> None:
    root = tmp_path / "checkpoints"
    foreign = root / "step_000000000001"
    foreign.mkdir(parents=True)
    (foreign / "checkpoint.json").write_text(json.dumps({"run_id": "another"}))
    (root / "step_000000000002").mkdir()  # no marker: not provably ours
    for step in (10, 20, 30, 40):
        write_checkpoint(tmp_path, f"step_{step:012d}", lambda f: None, keep=2, run_id="mine")
    kept = sorted(p.name for p in root.iterdir() if p.is_dir())
    assert kept == [
        "step_000000000001",
        "step_000000000002",
        "step_000000000030",
        "step_000000000040",
    ]
    assert latest_checkpoint(tmp_path) == root / "step_000000000040"
    (root / "latest").write_text("step_000000000010")  # a pointer at a deleted folder
    with pytest.raises(ValueError, match="step_000000000010"):
        latest_checkpoint(tmp_path)


def test_a_copy_never_replaces_another_folder_and_export_stays_in_its_folder(
    tmp_path: Path, dmc_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    with pytest.raises(ValueError, match="not a copy of this run"):
        train_dmc.train(dmc_args(tmp_path / "r", copy_checkpoint=str(mine)))
    assert (mine / "notes.txt").read_text() == "keep me"
    for bad in ("../../x", "/tmp/x", "a/b", ".."):
        with pytest.raises(ValueError, match="plain file name"):
            train_dmc.export(dmc_run, bad, directory=tmp_path)
        with pytest.raises(SystemExit):
            train_ppo.parse_args(["--export", bad])
        assert "plain file name" in capsys.readouterr().err
    assert not (tmp_path.parent / "x.npz").exists()


def test_outputs_are_checked_writable_before_any_work(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(ValueError, match="a-file"):
        train_dmc.train(dmc_args(blocker / "run"))
    with pytest.raises(ValueError, match="a-file"):
        train_ppo.train(ppo_args(blocker / "run"))
    from gin_cli.evaluate import main as eval_main

    with pytest.raises(SystemExit):
        eval_main(["gin", "--agents", "random,simple", "--pairs", "1", "--out", str(blocker)])


def test_an_append_only_log_is_read_up_to_its_last_whole_record(tmp_path: Path) -> None:
    log = tmp_path / "generations.jsonl"
    log.write_text('{"generation": 0}\n{"generation": 1}\n{"generati')
    assert read_jsonl(log) == [{"generation": 0}, {"generation": 1}]
    log.write_text('{"generation": 0}\n{"gen\n{"generation": 2}\n')
    with pytest.raises(ValueError, match="line 2"):
        read_jsonl(log)


def test_migrate_checkpoint_needs_trust_and_resumes_the_same_run(tmp_path: Path) -> None:
    """An old pickled DMC checkpoint, migrated once, resumes with its count and settings."""
    from training.trusted import migrate_checkpoint

    run = tmp_path / "run"
    train_dmc.train(dmc_args(run))
    ckpt = latest_checkpoint(run)
    assert ckpt is not None
    state = json.loads((ckpt / "state.json").read_text())
    old = tmp_path / "old"
    old.mkdir()
    (old / "model.pt").write_bytes((ckpt / "model.pt").read_bytes())
    # The old format: a pickle, the RNG states as Python and numpy objects.
    state["rng"] = {"python": random.getstate(), "numpy": np.random.get_state(),
                    "torch": torch.get_rng_state()}  # fmt: skip
    (old / "state.pkl").write_bytes(pickle.dumps(state))
    with pytest.raises(ValueError, match="--trust"):
        migrate_checkpoint(old)
    assert sorted(migrate_checkpoint(old, trust=True)) == [
        "checkpoint.json",
        "model.pt",
        "state.json",
    ]
    more = train_dmc.train(
        dmc_args(tmp_path / "next", resume=True, resume_from=str(old), total_steps=400)
    )
    assert more["steps"] >= 400 and more["steps"] - state["steps"] < 400


def test_the_committed_resume_state_is_data_outside_the_players_folder() -> None:
    folder = ROOT / "results" / "dmc_from_scratch" / "resume"
    assert sorted(p.name for p in folder.iterdir()) == ["checkpoint.json", "model.pt", "state.json"]
    assert not any(p.is_dir() for p in CHECKPOINT_DIR.iterdir())  # players and cards only
    blob = checkpoints.load_torch(folder / "model.pt")
    assert set(blob) == {"models", "optimizer"}
    state = train_dmc.load_state(folder)
    assert state["steps"] == agents.make("gin-dmc-scratch").meta["run_steps"]


def test_no_loader_of_the_project_unpickles() -> None:
    """The source holds no pickle.load(s), no torch.load without weights_only=True and no
    numpy load with allow_pickle=True, outside the one trusted conversion module."""
    bad = []
    for path in [*ROOT.glob("agents/**/*.py"), *ROOT.glob("training/**/*.py"),
                 *ROOT.glob("gin_env/**/*.py"), *ROOT.glob("studies/**/*.py")]:  # fmt: skip
        if path.name == "trusted.py":
            continue
        for i, line in enumerate(path.read_text().splitlines(), 1):
            if (
                "pickle.load" in line
                or "allow_pickle=True" in line
                or ("torch.load(" in line and "weights_only=True" not in line)
            ):
                bad.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
            if ".load(" in line and "MaskablePPO" in line:
                bad.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert not bad, "\n".join(bad)


# -- kill tests: SIGKILL at a random point, resume, count goes on, no orphan --------------------
def _children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _kill_after_checkpoint(cmd: list[str], run_dir: Path, ready: Callable[[], bool]) -> list[int]:
    """Start ``cmd``, SIGKILL it at a random moment after ``ready()``; its children's pids."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    kids: list[int] = []
    try:
        deadline = time.time() + 240
        while time.time() < deadline and not ready():
            kids = _children(proc.pid) or kids
            time.sleep(0.1)
        time.sleep(random.uniform(0.0, 1.5))
        kids = _children(proc.pid) or kids
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    return kids


def _has_checkpoint(run_dir: Path) -> bool:
    """Whether the run has written a checkpoint that ``latest`` resolves to."""
    try:
        return latest_checkpoint(run_dir) is not None
    except ValueError:
        return False


def _survivors(kids: list[int], timeout: float = 20.0) -> list[int]:
    """The child processes still alive after up to ``timeout`` seconds of waiting."""
    deadline = time.time() + timeout
    while time.time() < deadline and any(_alive(k) for k in kids):
        time.sleep(0.2)
    return [k for k in kids if _alive(k)]


@pytest.mark.slow
def test_a_killed_dmc_learner_leaves_no_actor_and_resumes_the_count(tmp_path: Path) -> None:
    run_dir = tmp_path / "actors"
    flags = ["--run-dir", str(run_dir), "--num-envs", "8", "--backend", "python", "--hidden",
             "8", "--batch-size", "32", "--buffer-size", "2000", "--checkpoint-every", "300",
             "--eval-every", "1000000000", "--progress", "false", "--seed", "2",
             "--actors", "2"]  # fmt: skip
    cmd = [sys.executable, "-m", "training.train_dmc", *flags, "--total-steps", str(10**8)]

    kids = _kill_after_checkpoint(cmd, run_dir, lambda: _has_checkpoint(run_dir))
    assert kids, "the learner started its actor processes"
    assert not _survivors(kids), "an actor outlived its learner"
    ckpt = latest_checkpoint(run_dir)
    assert ckpt is not None
    saved = train_dmc.load_state(ckpt)["steps"]
    run_id = train_dmc.load_state(ckpt)["run_id"]
    assert train_dmc.main([*flags, "--resume", "--total-steps", str(saved + 600)]) == 0
    after = train_dmc.load_state(latest_checkpoint(run_dir))  # type: ignore[arg-type]
    assert after["steps"] >= saved + 600 and after["run_id"] == run_id  # the same run, on


@pytest.mark.slow
def test_a_killed_ppo_run_with_env_processes_leaves_none_and_resumes_the_count(
    tmp_path: Path,
) -> None:
    run_dir = tmp_path / "ppo"
    flags = ["--env", "gin", "--run-dir", str(run_dir), "--n-envs", "2", "--vec", "subproc",
             "--n-steps", "64", "--batch-size", "64", "--n-epochs", "1", "--net-arch", "8",
             "--opponents", "random", "--eval-every", "1000000000", "--gate-every",
             "1000000000", "--checkpoint-every", "128", "--progress", "false",
             "--seed", "3"]  # fmt: skip
    cmd = [sys.executable, "-m", "training.train_ppo", *flags, "--total-steps", str(10**7)]

    kids = _kill_after_checkpoint(cmd, run_dir, lambda: _has_checkpoint(run_dir))
    assert kids, "the learner started its env processes"
    assert not _survivors(kids), "an env process outlived its learner"
    ckpt = latest_checkpoint(run_dir)
    assert ckpt is not None
    saved = train_ppo.load_state(ckpt)
    target = saved["num_timesteps"] + 256
    assert train_ppo.main([*flags, "--resume", "--total-steps", str(target)]) == 0
    after = train_ppo.load_state(latest_checkpoint(run_dir))  # type: ignore[arg-type]
    assert after["num_timesteps"] >= target and after["run_id"] == saved["run_id"]
    assert after["evals"][: len(saved["evals"])] == saved["evals"]  # nothing lost


@pytest.mark.slow
def test_a_killed_tune_run_resumes_with_its_log_whole(tmp_path: Path) -> None:
    run_dir = tmp_path / "tune"
    flags = ["--run-dir", str(run_dir), "--generations", "5", "--popsize", "4", "--pairs", "4",
             "--pool-bests", "1", "--select-candidates", "1", "--select-pairs", "2",
             "--report-pairs", "2", "--workers", "1", "--progress", "false"]  # fmt: skip
    cmd = [sys.executable, "-m", "training.tune", *flags]
    _kill_after_checkpoint(cmd, run_dir, lambda: (run_dir / "checkpoint.json").exists())
    at_kill = json.loads((run_dir / "checkpoint.json").read_text())["generation"]
    log = run_dir / "generations.jsonl"
    with log.open("a") as fh:
        fh.write('{"generation": 99, "torn')  # a kill mid-append
    assert tune.main([*flags, "--resume"]) == 0
    rows = read_jsonl(log)
    assert [r["generation"] for r in rows] == [0, 1, 2, 3, 4] and at_kill >= 1


def test_settings_round_trip_through_json(dmc_run: Path) -> None:
    """What a DMC checkpoint saves is the run's Args, field for field."""
    state = train_dmc.load_state(latest_checkpoint(dmc_run))  # type: ignore[arg-type]
    args = train_dmc.Args(**state["args"])
    assert dataclasses.asdict(args) == state["args"]


def test_the_cli_converts_only_what_it_is_told_to_trust(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from gin_cli.main import cli

    marker = tmp_path / "ran"
    evil = evil_sb3_zip(marker, tmp_path / "sb3.zip")
    for args in (["import-sb3", str(evil)], ["migrate-checkpoint", str(tmp_path)]):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 2 and "--trust" in result.output, result.output
    result = CliRunner().invoke(cli, ["match", "-g", "gin", "--agents", f"{evil},random"])
    assert result.exit_code != 0 and "import-sb3 --trust" in result.output
    assert not marker.exists()


@pytest.mark.parametrize("typed", ["draw\nquit\n", "draw\n"], ids=["quit", "end-of-input"])
def test_play_save_keeps_a_match_left_early(tmp_path: Path, typed: str) -> None:
    """``play --save``: leaving (quit, or the input ending) saves the match so far, and the
    record replays."""
    from click.testing import CliRunner

    from gin_cli.main import cli

    path = tmp_path / "left.json"
    args = ["play", "-g", "gin", "--seed", "3", "--opponents", "simple", "--save", str(path)]
    result = CliRunner().invoke(cli, args, input=typed)
    assert result.exit_code == 0 and "(the match so far" in result.output, result.output
    data = load_replay(path)
    assert data["winner"] is None and len(data["hands"]) == 1
    again = CliRunner().invoke(cli, ["replay", str(path)])
    assert again.exit_code == 0 and "not finished" in again.output, again.output


@pytest.mark.parametrize("kind", ["empty", "truncated", "garbage"])
def test_bad_tuned_sets_are_one_line_errors(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "tuned-default.json"
    path.write_bytes(_bad_versions((CHECKPOINT_DIR / "tuned-default.json").read_bytes())[kind])
    with pytest.raises(ValueError) as err:
        agents.make("tuned", directory=str(tmp_path))
    one_line_naming(err.value, path)


def test_an_old_ppo_checkpoint_migrates_and_resumes(tmp_path: Path, ppo_run: Path) -> None:
    """A PPO checkpoint of the old format (sb3's model.zip, a pickled state.pkl), migrated
    once with --trust, resumes from its step count."""
    from training.trusted import migrate_main

    run = copy_tree(ppo_run, tmp_path / "old")
    ckpt = latest_checkpoint(run)
    assert ckpt is not None
    state = train_ppo.load_state(ckpt)
    train_ppo.load_model(ckpt).save(ckpt / "model.zip")
    state["rng"] = {"python": random.getstate(), "numpy": np.random.get_state(),
                    "torch": torch.get_rng_state()}  # fmt: skip
    (ckpt / "state.pkl").write_bytes(pickle.dumps(state))
    for name in ("state.json", "policy.pt", "optimizer.pt", "checkpoint.json"):
        (ckpt / name).unlink()
    with pytest.raises(ValueError, match="migrate-checkpoint --trust"):
        train_ppo.train(ppo_args(run, resume=True, total_steps=256))
    assert migrate_main([str(ckpt), "--trust"]) == 0
    more = train_ppo.train(ppo_args(run, resume=True, total_steps=256))
    assert more["num_timesteps"] >= 256 and state["num_timesteps"] == 128
