"""``examples/``: each script runs as a user runs it, at its ``--smoke`` budget, in a
subprocess (as CleanRL tests its scripts), and prints what it promises: its training
lines, and the untrained and the trained player's points on the same deals with 95%
intervals and their difference. Its progress bar is off when its output is not a terminal
(here: captured) and under ``--quiet``, and drawn on a terminal (a pseudo-terminal here).

Each needs its library. ``make test-examples`` runs the TorchRL, SB3 and Tianshou ones in
``.venv`` (the ``torchrl``, ``train`` and ``tianshou`` extras); ``make test-benchmarl`` and
``make test-rllib`` run the BenchMARL and RLlib ones in their own venvs (BenchMARL needs a
torchrl older than the ``torchrl`` extra's; ray pins its own gymnasium). A test whose
library is not installed is skipped; those targets select the ones their venv holds.
"""

from __future__ import annotations

import dataclasses
import fcntl
import importlib.util
import json
import math
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytestmark = pytest.mark.examples

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
#: "points per hand against simple, trained: +0.12 +/- 3.40 (95% CI, 10 deals)"
CI_LINE = re.compile(
    r"points per hand against (\w+), (untrained|trained|trained minus untrained): "
    r"([-+]\d+\.\d+) \+/- (\d+\.\d+) \(95% CI, (\d+) deals\)"
)
#: What a tqdm bar writes: "12%|#5    | 64/512 [00:01<00:07, 60.1step/s, eval=random +1.2]"
BAR = re.compile(r"\d+%\|.*\|.*/s")


def _run(script: str, *args: str, bar_checked: bool = True) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script), "--smoke", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"{script} failed:\n{done.stderr[-4000:]}"
    # Not a terminal: no bar, however long the run.
    if bar_checked:
        assert not BAR.search(done.stderr), (
            f"{script} drew a bar into a pipe:\n{done.stderr[-2000:]}"
        )
    return done.stdout


def _points(out: str) -> float:
    """The before/after lines against every opponent: untrained, trained and the difference,
    each finite, on the same number of deals; the difference is the trained minus the
    untrained mean (paired by deal, the mean of the differences is the difference of the
    means). Returns the trained player's points against the first opponent."""
    found = CI_LINE.findall(out)
    assert found, f"no before/after lines with a 95% CI in:\n{out}"
    by = {(opp, what): (float(m), float(h), int(n)) for opp, what, m, h, n in found}
    opponents = sorted({opp for opp, _ in by})
    for opp in opponents:
        before, after = by[(opp, "untrained")], by[(opp, "trained")]
        diff = by[(opp, "trained minus untrained")]
        assert before[2] == after[2] == diff[2]
        assert all(math.isfinite(x) for x in (*before[:2], *after[:2], *diff[:2]))
        assert abs(diff[0] - (after[0] - before[0])) <= 0.011
    return by[(found[0][0], "trained")][0]


def _on_a_terminal(script: str, *args: str) -> str:
    """What ``script --smoke`` writes to standard error when that is a terminal."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "120"}
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))  # 40 x 120
    proc = subprocess.Popen(
        [sys.executable, str(EXAMPLES / script), "--smoke", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=slave,
    )
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 600)
        if not ready:
            proc.kill()
            break
        try:
            data = os.read(master, 4096)
        except OSError:  # the other end closed
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.wait(timeout=60) == 0, b"".join(chunks)[-3000:].decode(errors="replace")
    return b"".join(chunks).decode(errors="replace")


def test_every_example_is_tested_here() -> None:
    scripts = sorted(p.name for p in EXAMPLES.glob("*.py"))
    source = Path(__file__).read_text()
    assert scripts, "no examples found"
    assert [s for s in scripts if f'"{s}"' not in source] == []


def test_torchrl_mappo_trains_and_plays(tmp_path: Path) -> None:
    pytest.importorskip("torchrl")
    saved = tmp_path / "mappo.zip"
    out = _run("torchrl_mappo.py", "--save", str(saved))
    assert re.search(r"iteration 2: \d+ hands ended, policy loss [-+]\d", out), out
    _points(out)
    _seated(saved, "three_handed", out)


def _seated(saved: Path, game: str, out: str) -> None:
    """The player an example wrote with ``--save``: said where, seated by path at its game's
    table (numpy alone), refused at the other game's."""
    import agents
    from gin_env import games

    assert f"saved the trained player to {saved}: play it with --agents {saved}" in out, out
    player = agents.seat(str(saved), games.get(game).table())
    assert player.meta["env"] == game
    other = "gin" if game == "three_handed" else "three_handed"
    with pytest.raises(ValueError, match="was trained on"):
        agents.seat(str(saved), games.get(other).table())


def _example(name: str) -> Any:
    """The example script ``name`` as a module, registered under its name (BenchMARL
    pickles its task by the task's module)."""
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _waiting_seats_play_only_zero(rollout: Any, legal: tuple[str, str]) -> None:
    """In a rollout of TorchRL's wrapper, the mask sampled from (``legal``) leaves a seat
    not to act action 0 alone, which it plays, and a seat to act its legal moves."""
    to_act = rollout["agents", "mask"]
    mask = rollout[legal]
    assert to_act.any() and (~to_act).any()
    assert mask[~to_act].sum(-1).eq(1).all() and mask[~to_act][:, 0].all()
    assert mask[to_act].any(-1).all() and (mask[to_act].sum(-1) < 109).all()
    assert rollout["agents", "action"][~to_act].eq(0).all()


def test_torchrl_mappo_waiting_seats_play_only_action_zero() -> None:
    """A seat not to act samples action 0 alone (log-probability 0): its rows add nothing
    to the policy's gradient or its entropy."""
    pytest.importorskip("torchrl")
    example = _example("torchrl_mappo")
    env = example.make_env(0, 0.01)
    policy = example.make_policy(env)
    rollout = env.rollout(300, policy=policy)
    _waiting_seats_play_only_zero(rollout, ("agents", "legal"))
    to_act, env_mask = rollout["agents", "mask"], rollout["agents", "action_mask"]
    assert env_mask[~to_act].all(), "the wrapper no longer marks a waiting seat all-legal"
    assert (rollout["agents", "legal"][to_act] == env_mask[to_act]).all()
    assert rollout["agents", "action_log_prob"][~to_act].eq(0).all()


def test_sb3_maskable_ppo_on_the_vector_env(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    saved = tmp_path / "sb3.zip"
    out = _run("sb3_maskable_ppo.py", "--save", str(saved))
    assert re.search(r"trained \d+ steps", out), out
    _points(out)
    _seated(saved, "gin", out)


def test_sb3_maskable_ppo_through_the_gymnasium_wrapper() -> None:
    pytest.importorskip("sb3_contrib")
    out = _run("sb3_maskable_ppo.py", "--game", "three_handed", "--env", "gymnasium")
    assert re.search(r"trained \d+ steps", out), out
    _points(out)


def test_the_bar_shows_on_a_terminal_and_quiet_turns_it_off() -> None:
    pytest.importorskip("sb3_contrib")
    shown = _on_a_terminal("sb3_maskable_ppo.py")
    assert BAR.search(shown), shown[-2000:]
    assert "eval=random" in shown, shown[-2000:]  # the last point of the curve on the bar
    assert not BAR.search(_on_a_terminal("sb3_maskable_ppo.py", "--quiet"))


def _refused(script: str, *args: str) -> str:
    """What ``script args`` writes to standard error when it refuses its options (exit 2)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    return done.stderr


def test_a_bad_choice_is_named_with_the_allowed_values() -> None:
    pytest.importorskip("sb3_contrib")
    stderr = _refused("sb3_maskable_ppo.py", "--env", "gym")
    assert "--env must be one of vector, gymnasium; got 'gym'" in stderr


@pytest.mark.parametrize(
    ("script", "needs"),
    [("sb3_maskable_ppo.py", "sb3_contrib"), ("tianshou_dqn.py", "tianshou"),
     ("torchrl_mappo.py", "torchrl"), ("benchmarl_task.py", "benchmarl"),
     ("rllib_ppo.py", "ray.rllib")],
)  # fmt: skip
def test_a_bad_evaluation_opponent_is_refused_before_training(script: str, needs: str) -> None:
    pytest.importorskip(needs)
    stderr = _refused(script, "--smoke", "--eval-opponents", "random,nosuch")
    assert "error: unknown agent 'nosuch': registered" in stderr, stderr
    assert "Traceback" not in stderr, stderr


@pytest.mark.parametrize("loop", ["single", "marl"])
def test_tianshou_dqn_against_a_random_player(loop: str) -> None:
    pytest.importorskip("tianshou")
    out = _run("tianshou_dqn.py", "--loop", loop)
    assert re.search(rf"trained \d+ env steps .* \({loop} loop\); best test return", out), out
    _points(out)


def test_tianshou_dqn_multi_agent_loop_has_only_a_random_opponent() -> None:
    pytest.importorskip("tianshou")
    stderr = _refused("tianshou_dqn.py", "--loop", "marl", "--opponent", "simple")
    assert "--opponent must be random with --loop marl" in stderr, stderr


def test_benchmarl_task_trains_mappo(tmp_path: Path) -> None:
    pytest.importorskip("benchmarl")
    out = _run("benchmarl_task.py", "--out", str(tmp_path / "pipe"))
    assert re.search(r"trained \d+ frames in 2 iterations", out), out
    [run] = list((tmp_path / "pipe").iterdir())
    # BenchMARL's TensorBoard logs in the run's folder, the example's curve in curve/.
    assert list(run.rglob("events.out.tfevents.*")), "no TensorBoard logs"
    assert list((run / "curve").glob("events.out.tfevents.*")), "no curve in TensorBoard"
    _points(out)
    # The examples' bar in place of BenchMARL's, on a terminal only and not under --quiet.
    shown = _on_a_terminal("benchmarl_task.py", "--out", str(tmp_path / "tty"))
    assert BAR.search(shown), shown[-2000:]
    assert "eval=random" in shown, shown[-2000:]
    quiet = _on_a_terminal("benchmarl_task.py", "--out", str(tmp_path / "quiet"), "--quiet")
    assert not BAR.search(quiet), quiet[-2000:]


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--lmbda", "1.5", "--lmbda must be a number in (0, 1]; got 1.5"),
        ("--reward-scale", "0", "--reward-scale must be a positive number; got 0.0"),
        ("--entropy-coef", "-1", "--entropy-coef must be a number >= 0; got -1.0"),
        ("--checkpoint-every", "300", "--checkpoint-every must be 0 (none) or a multiple of "
         "--frames-per-batch (6000); got 300"),
        ("--resume", "no/such.pt", "--resume no/such.pt: no such file"),
        ("--algorithm", "qmix", "--algorithm must be one of ippo, mappo; got 'qmix'"),
        ("--epochs", "0", "--epochs must be a positive number; got 0"),
    ],
)  # fmt: skip
def test_benchmarl_task_names_a_bad_option(option: str, value: str, message: str) -> None:
    pytest.importorskip("benchmarl")
    stderr = _refused("benchmarl_task.py", option, value)
    assert message in stderr, stderr


def test_benchmarl_task_goes_on_from_its_checkpoint(tmp_path: Path) -> None:
    """A run that checkpoints every batch, resumed from its first checkpoint: it goes on
    from there with the checkpoint's curve and untrained policy; a checkpoint of a run with
    other settings, or a file that is no checkpoint, is refused and changes nothing."""
    pytest.importorskip("benchmarl")
    first = _run("benchmarl_task.py", "--out", str(tmp_path), "--checkpoint-every", "200",
                 "--result", str(tmp_path / "first.json"))  # fmt: skip
    [folder] = [p for p in tmp_path.iterdir() if p.is_dir()]
    checkpoints = sorted(p.name for p in (folder / "checkpoints").iterdir())
    assert checkpoints == ["checkpoint_200.pt", "checkpoint_400.pt"], checkpoints
    saved = str(folder / "checkpoints" / "checkpoint_200.pt")
    stderr = _refused("benchmarl_task.py", "--smoke", "--resume", saved, "--lr", "0.001")
    assert "the checkpoint's run had other settings: --lr 5e-05 (here 0.001)" in stderr
    stderr = _refused("benchmarl_task.py", "--smoke", "--resume", saved, "--algorithm", "ippo")
    assert "other settings: --algorithm mappo (here ippo)" in stderr, stderr
    stderr = _refused("benchmarl_task.py", "--resume", saved, "--frames-per-batch", "200",
                      "--minibatch", "200", "--frames", "800")  # fmt: skip
    assert "other settings: --epochs 1 (here 45)" in stderr, stderr
    stderr = _refused("benchmarl_task.py", "--smoke", "--resume", str(tmp_path / "first.json"))
    assert "not a checkpoint of tensors and plain values" in stderr, stderr
    before = sorted(p.name for p in tmp_path.rglob("*"))
    stderr = _refused("benchmarl_task.py", "--resume", saved, "--frames-per-batch", "200",
                      "--epochs", "1", "--minibatch", "200", "--frames", "100")  # fmt: skip
    assert "the checkpoint has 200 frames already" in stderr, stderr
    assert sorted(p.name for p in tmp_path.rglob("*")) == before
    out = _run("benchmarl_task.py", "--out", str(tmp_path), "--resume", saved,
               "--result", str(tmp_path / "resumed.json"))  # fmt: skip
    assert f"resumed at 200 frames from {saved}" in out, out
    assert re.search(r"trained 400 frames in 2 iterations", out), out
    runs = [json.loads((tmp_path / f"{name}.json").read_text()) for name in ("first", "resumed")]
    # The curve's first point comes from the checkpoint; the untrained player is the first
    # run's, so it scores what it scored there on the same deals.
    assert runs[1]["curve"][0] == runs[0]["curve"][0]
    assert [row["step"] for row in runs[1]["curve"]] == [200.0, 400.0]
    for a, b in zip(runs[0]["before_after"], runs[1]["before_after"], strict=True):
        assert a["untrained"] == b["untrained"]
    _points(first)
    _points(out)


@pytest.mark.parametrize(
    ("game", "algorithm", "normalize"),
    [
        ("gin_v0", "mappo", "--no-normalize-advantage"),
        ("three_handed_gin_v0", "ippo", "--normalize-advantage"),
    ],
)
def test_benchmarl_player_plays_the_policys_own_move(
    game: str, algorithm: str, normalize: str, tmp_path: Path
) -> None:
    """The example's player runs the policy's network alone for speed; on positions of
    random play, after a little training, its move is the whole policy's deterministic one
    (each game, each algorithm). The options reach BenchMARL's loss: MAPPO's critic is
    centralised, IPPO's is not; the advantages are standardised when asked."""
    pytest.importorskip("benchmarl")
    example: Any = _example("benchmarl_task")
    args, smoke, _, _ = example.parse_args(
        ["--smoke", "--game", game, "--algorithm", algorithm, normalize, "--out", str(tmp_path)]
    )
    args = dataclasses.replace(args, epochs=2, minibatch=100)
    experiment = example.experiment_for(args, smoke, [])
    assert experiment.config.on_policy_n_minibatch_iters == 2
    assert experiment.config.on_policy_minibatch_size == 100
    loss = experiment.losses["agents"]
    assert loss.normalize_advantage is (normalize == "--normalize-advantage")
    [critic] = [m for m in loss.critic_network.modules() if isinstance(m, example.Model)]
    assert critic.centralised is (algorithm == "mappo")
    experiment.run()
    env = example.games.get(game).make_env()
    player = example.PolicyPlayer(experiment.policy, len(env.possible_agents), algorithm)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    for step in range(1, 400):
        observation = env.observe(env.agent_selection)
        assert player.act(observation) == player.policy_move(observation)
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        if any(env.terminations.values()) or any(env.truncations.values()):
            env.reset(seed=step)


def test_benchmarl_task_evaluates_on_one_thread(tmp_path: Path, monkeypatch: Any) -> None:
    """The evaluation after training runs on one thread, as training does: TorchRL sets
    torch's threads back to one a core when BenchMARL closes its envs."""
    pytest.importorskip("benchmarl")
    import torch

    example: Any = _example("benchmarl_task")
    threads: list[int] = []
    evaluate = example.report_learned

    def report(*args: Any) -> Any:
        threads.append(torch.get_num_threads())
        return evaluate(*args)

    monkeypatch.setattr(example, "report_learned", report)
    before = torch.get_num_threads()
    try:
        example.main(["--smoke", "--quiet", "--out", str(tmp_path)])
    finally:
        torch.set_num_threads(before)
    assert threads == [1]


@pytest.mark.parametrize("game", ["gin_v0", "three_handed_gin_v0"])
def test_benchmarl_waiting_seats_play_only_action_zero(game: str) -> None:
    """In the task's env a seat not to act has action 0 as its only legal move."""
    pytest.importorskip("benchmarl")
    import torch

    example = _example("benchmarl_task")
    task = example.GinTask(game.upper(), {"game": game})
    env = task.get_env_fun(1, False, 0, "cpu")()

    def play_a_legal_move(td: Any) -> Any:
        td["agents", "action"] = torch.multinomial(td["agents", "action_mask"].float(), 1)[..., 0]
        return td

    rollout = env.rollout(300, policy=play_a_legal_move)
    _waiting_seats_play_only_zero(rollout, ("agents", "action_mask"))


def test_rllib_ppo_trains_and_plays() -> None:
    pytest.importorskip("ray.rllib")
    out = _run("rllib_ppo.py")
    assert re.search(r"iteration 1: ", out), out
    assert re.search(r"trained \d+ env steps in ", out), out
    _points(out)
