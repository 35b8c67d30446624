"""Multi-agent PPO on Ray RLlib (new API stack) for three-handed gin and two-player gin.

One machine::

    python -m training.rllib_train --env three_handed --policies per_role --iterations 50

A cluster (after ``ray start --head`` / ``ray start --address=HEAD:6379`` on the nodes)::

    python -m training.rllib_train --address auto --num-env-runners 32 ...

What it sets up (see the README, "Scale-out: multi-agent training on Ray RLlib"):

- the env: :class:`training.rllib_env.RLlibGinEnv`, agent ids are roles;
- the modules: RLlib's ``ActionMaskingTorchRLModule`` (PPO), one shared ``main`` or one
  per role (``--policies``), reading ``{"observations", "action_mask"}``;
- self-play (``--self-play N``): ``--snapshots K`` frozen copies of each main module;
  every ``N`` iterations the main weights are copied into the next slot (round robin), and
  each episode one side of the table plays the main modules, the other a snapshot;
- checkpoints: ``Algorithm.save_to_path`` every ``--checkpoint-every`` iterations and at
  the end, into ``--checkpoint-dir/iter_NNNNN`` (``latest`` names the newest);
  ``--resume [PATH]`` restores one with ``Algorithm.restore_from_path`` and goes on.

Each trained module is also loadable alone, as an agent of our interface:
``agents.rllib_agent.RLlibAgent(<checkpoint>)`` (torch, see that module); and each is
exported at the end as a numpy actor zip, ``--checkpoint-dir/export/rllib-<env>-<module>.zip``,
which ``agents.make(path)``, the CLI and the evaluation harness load without ray or torch.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from agents.rllib_agent import RLlibAgent
from agents.trained import save_actor
from gin_env.optional import MissingExtraError, require

__all__ = ["Args", "TrainSummary", "parse_args", "build_config", "train", "main"]

LATEST = "latest"


# ---------------------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------------------
@dataclass
class Args:
    """Command-line options (``--env`` is ``env``, ``--num-env-runners`` ``num_env_runners``)."""

    env: str = "three_handed"
    """``three_handed`` or ``gin``."""
    policies: str = "shared"
    """``shared`` (one module for every role) or ``per_role``."""
    episode: str = "hand"
    """``hand`` (one hand per episode) or ``match``."""
    adviser: str = "suggest"
    """three-handed only: ``suggest`` or ``none``."""
    reward: str = "team"
    reward_scale: float = 0.01
    target_score: int = 100
    iterations: int = 10
    self_play: int = 0
    """Copy the main modules into a snapshot slot every this many iterations (0: no
    snapshots; every agent plays the current main modules)."""
    snapshots: int = 4
    """Number of frozen snapshot slots (used when ``self_play`` > 0)."""
    num_env_runners: int = 0
    """0 samples in the driver process; more start remote EnvRunner actors."""
    num_envs_per_env_runner: int = 1
    num_learners: int = 0
    """0 trains in the driver process; more start remote Learner actors."""
    num_cpus: int | None = None
    """CPUs for a local Ray instance (ignored with ``--address``)."""
    num_gpus: float = 0.0
    """GPUs per learner (0: CPU)."""
    address: str | None = None
    """Ray cluster to join (``auto`` or ``HOST:6379``); None starts Ray on this machine."""
    object_store_mb: int | None = None
    """Object store size of a local Ray instance, in MB (None: Ray's default)."""
    train_batch_size: int = 4000
    minibatch_size: int = 500
    num_epochs: int = 4
    lr: float = 3e-4
    gamma: float = 1.0
    entropy_coeff: float = 0.01
    hidden: list[int] = field(default_factory=lambda: [256, 256])
    seed: int | None = 0
    checkpoint_dir: str = "runs/rllib"
    checkpoint_every: int = 10
    resume: str | None = None
    """A checkpoint to resume from, or ``latest`` for the newest in ``checkpoint_dir``."""
    quiet: bool = False

    def validate(self) -> None:
        from training.rllib_env import (  # rllib extra: rllib_env subclasses ray's MultiAgentEnv
            GAMES,
            POLICY_MODES,
        )

        choices = {
            "env": GAMES,
            "policies": POLICY_MODES,
            "episode": ("hand", "match"),
            "adviser": ("suggest", "none"),
            "reward": ("team", "zero_sum", "individual", "match"),
        }
        for name, allowed in choices.items():
            value = getattr(self, name)
            if value not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
        at_least = {
            "iterations": 0,
            "self_play": 0,
            "snapshots": 1,
            "num_env_runners": 0,
            "num_envs_per_env_runner": 1,
            "num_learners": 0,
            "train_batch_size": 1,
            "minibatch_size": 1,
            "num_epochs": 1,
            "checkpoint_every": 1,
        }
        for name, low in at_least.items():
            value = getattr(self, name)
            if not isinstance(value, int) or value < low:
                raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
        if self.minibatch_size > self.train_batch_size:
            raise ValueError(
                f"minibatch_size ({self.minibatch_size}) must be <= train_batch_size "
                f"({self.train_batch_size})"
            )
        if self.num_gpus < 0:
            raise ValueError(f"num_gpus must be >= 0, got {self.num_gpus!r}")


def parse_args(argv: list[str] | None = None) -> Args:
    """``Args`` from the command line (every field is a ``--dashed-name`` option)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    defaults = Args()
    for f in fields(Args):
        flag = "--" + f.name.replace("_", "-")
        value = getattr(defaults, f.name)
        if f.name == "resume":
            parser.add_argument(flag, nargs="?", const=LATEST, default=None,
                                help="resume from PATH, or the latest checkpoint")  # fmt: skip
        elif f.name == "quiet":
            parser.add_argument(flag, action="store_true")
        elif f.name == "hidden":
            parser.add_argument(flag, type=int, nargs="+", default=value)
        else:
            kind = {"num_cpus": int, "address": str, "object_store_mb": int, "seed": int}
            parser.add_argument(flag, type=kind.get(f.name, type(value)), default=value)
    args = Args(**vars(parser.parse_args(argv)))
    args.validate()
    return args


# ---------------------------------------------------------------------------------------
# Self-play snapshots
# ---------------------------------------------------------------------------------------
class SnapshotKeeper:
    """Copies main modules into frozen snapshot modules, in the learners and EnvRunners.

    Slot ``k`` of main module ``m`` is the module ``m_snapk``. At the start every slot
    holds the initial main weights (so the first opponents are the starting policy);
    after iteration ``i`` with ``i % interval == 0`` slot ``(i // interval - 1) % K`` gets
    the current main weights. The slot follows from the iteration alone, so a resumed run
    continues the same schedule.
    """

    def __init__(self, main_ids: list[str], interval: int, num_snapshots: int) -> None:
        self.main_ids = list(main_ids)
        self.interval = interval
        self.num_snapshots = num_snapshots

    def _copy(self, algorithm: Any, slots: list[int]) -> None:
        from training.rllib_env import snapshot_module_id  # rllib extra: ray

        pairs = [(m, snapshot_module_id(m, k)) for k in slots for m in self.main_ids]

        def copy(learner: Any) -> None:
            for src, dst in pairs:
                learner.module[dst].set_state(learner.module[src].get_state())

        algorithm.learner_group.foreach_learner(copy)
        algorithm.env_runner_group.sync_weights(
            policies=[dst for _, dst in pairs],
            from_worker_or_learner_group=algorithm.learner_group,
            inference_only=True,
        )

    def on_algorithm_init(self, *, algorithm: Any, **kwargs: Any) -> None:
        self._copy(algorithm, list(range(self.num_snapshots)))

    def on_train_result(self, *, algorithm: Any, result: dict, **kwargs: Any) -> None:
        i = algorithm.iteration
        if i > 0 and i % self.interval == 0:
            slot = (i // self.interval - 1) % self.num_snapshots
            self._copy(algorithm, [slot])
            result["snapshot_slot_updated"] = slot


# ---------------------------------------------------------------------------------------
# The algorithm config
# ---------------------------------------------------------------------------------------
def env_config(args: Args) -> dict[str, Any]:
    config: dict[str, Any] = {
        "game": args.env,
        "episode": args.episode,
        "reward": args.reward,
        "reward_scale": args.reward_scale,
        "target_score": args.target_score,
    }
    if args.env == "three_handed":
        config["adviser"] = args.adviser
    return config


def module_ids(args: Args) -> tuple[list[str], list[str]]:
    """(trained main module ids, frozen snapshot module ids)."""
    from training.rllib_env import main_module_ids, snapshot_module_id  # rllib extra: ray

    mains = main_module_ids(args.env, args.policies, args.adviser)
    snaps = [snapshot_module_id(m, k) for k in range(args.snapshots) for m in mains]
    return mains, snaps if args.self_play > 0 else []


def build_config(args: Args) -> Any:
    """The ``PPOConfig`` of a run (new API stack: EnvRunners, Learners, RLModules)."""
    from ray.rllib.algorithms.ppo import PPOConfig  # rllib extra: ray
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec  # rllib extra: ray
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec  # rllib extra: ray
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (  # rllib extra: ray
        ActionMaskingTorchRLModule,
    )

    from training.rllib_env import PolicyMapping, RLlibGinEnv  # rllib extra: ray

    mains, snaps = module_ids(args)
    model_config = {"fcnet_hiddens": list(args.hidden), "vf_share_layers": False}
    specs = {
        m: RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=model_config)
        for m in mains + snaps
    }
    mapping = PolicyMapping(args.env, args.policies, args.snapshots if snaps else 0)
    config = (
        PPOConfig()
        # RLlib's env pre-check steps with unmasked random actions, which our env refuses.
        .environment(RLlibGinEnv, env_config=env_config(args), disable_env_checking=True)
        .framework("torch")
        .env_runners(
            num_env_runners=args.num_env_runners,
            num_envs_per_env_runner=args.num_envs_per_env_runner,
            num_cpus_per_env_runner=1,
        )
        .learners(num_learners=args.num_learners, num_gpus_per_learner=args.num_gpus)
        .training(
            train_batch_size_per_learner=args.train_batch_size,
            minibatch_size=args.minibatch_size,
            num_epochs=args.num_epochs,
            lr=args.lr,
            gamma=args.gamma,
            entropy_coeff=args.entropy_coeff,
        )
        .multi_agent(
            policies=set(mains + snaps),
            policy_mapping_fn=mapping,
            policies_to_train=list(mains),
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .debugging(seed=args.seed)
    )
    if snaps:
        keeper = SnapshotKeeper(mains, args.self_play, args.snapshots)
        config.callbacks(
            on_algorithm_init=keeper.on_algorithm_init,
            on_train_result=keeper.on_train_result,
        )
    return config


# ---------------------------------------------------------------------------------------
# Training loop
# ---------------------------------------------------------------------------------------
@dataclass
class TrainSummary:
    """What a run did: iterations reached, the last checkpoint, per-iteration figures."""

    iterations: int
    checkpoint: str | None
    module_ids: list[str]
    history: list[dict[str, Any]]
    exports: dict[str, str] = field(default_factory=dict)


def export_actors(checkpoint: str, mains: list[str], out_dir: Path, game: str) -> dict[str, str]:
    """Write each trained module's actor as a numpy zip (``agents.trained`` format), so
    the CLI and the evaluation harness play it without ray or torch."""

    out_dir.mkdir(parents=True, exist_ok=True)
    exports = {}
    for m in mains:
        agent = RLlibAgent(checkpoint, m).to_mlp(name=f"rllib-{game}-{m}")
        path = save_actor(agent, out_dir / f"rllib-{game}-{m}.zip", game=game)
        exports[m] = str(path.resolve())
    return exports


def _resolve_resume(args: Args) -> Path | None:
    if args.resume is None:
        return None
    if args.resume == LATEST:
        pointer = Path(args.checkpoint_dir) / LATEST
        if not pointer.is_file():
            raise ValueError(f"resume: no {pointer} (no checkpoint saved in {args.checkpoint_dir})")
        path = Path(args.checkpoint_dir) / pointer.read_text().strip()
    else:
        path = Path(args.resume)
    if not path.is_dir():
        raise ValueError(f"resume: checkpoint directory {path} does not exist")
    return path


def _save(algo: Any, args: Args) -> str:
    root = Path(args.checkpoint_dir).resolve()
    name = f"iter_{algo.iteration:05d}"
    path = algo.save_to_path(str(root / name))
    (root / "args.json").write_text(json.dumps(asdict(args), indent=2))
    (root / LATEST).write_text(name + "\n")
    return str(path)


def _figures(result: dict[str, Any], mains: list[str]) -> dict[str, Any]:
    runners = result.get("env_runners", {})
    module_returns = runners.get("module_episode_returns_mean", {})
    role_returns = runners.get("agent_episode_returns_mean", {})
    learners = result.get("learners", {})
    row: dict[str, Any] = {
        "iteration": result.get("training_iteration"),
        "env_steps": runners.get("num_env_steps_sampled_lifetime"),
        "episodes": runners.get("num_episodes_lifetime"),
        "episode_len_mean": runners.get("episode_len_mean"),
    }
    for role, value in sorted(role_returns.items()):
        row[f"return[{role}]"] = value
    for m in mains:
        if m in module_returns and m not in role_returns:
            row[f"return[{m}]"] = module_returns[m]
        if m in learners and "total_loss" in learners[m]:
            row[f"loss[{m}]"] = learners[m]["total_loss"]
    return row


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:.3f}"
    return str(value)


def train(args: Args) -> TrainSummary:
    """Build (or resume) the algorithm, train ``args.iterations`` more iterations, save."""

    ray = require("ray", needed_for="training.rllib_train")  # before any work: names the extra

    args.validate()
    resume_path = _resolve_resume(args)
    started_ray = False
    if not ray.is_initialized():
        init: dict[str, Any] = {"include_dashboard": False}
        if args.address is not None:
            init["address"] = args.address
        else:
            if args.num_cpus is not None:
                init["num_cpus"] = args.num_cpus
            init["num_gpus"] = int(args.num_gpus * max(1, args.num_learners) + 0.999)
            if args.object_store_mb is not None:
                init["object_store_memory"] = args.object_store_mb * 1024 * 1024
        ray.init(**init)
        started_ray = True
    mains, _ = module_ids(args)
    history: list[dict[str, Any]] = []
    checkpoint = None
    algo = build_config(args).build_algo()
    try:
        if resume_path is not None:
            algo.restore_from_path(str(resume_path))
            if not args.quiet:
                print(f"resumed from {resume_path} at iteration {algo.iteration}")
        for _ in range(args.iterations):
            t0 = time.perf_counter()
            result = algo.train()
            row = _figures(result, mains)
            row["seconds"] = round(time.perf_counter() - t0, 2)
            history.append(row)
            if not args.quiet:
                print("  ".join(f"{k}={_fmt(v)}" for k, v in row.items()), flush=True)
            if algo.iteration % args.checkpoint_every == 0:
                checkpoint = _save(algo, args)
        if checkpoint is None or not checkpoint.endswith(f"iter_{algo.iteration:05d}"):
            checkpoint = _save(algo, args)
        exports = export_actors(checkpoint, mains, Path(args.checkpoint_dir) / "export", args.env)
        if not args.quiet:
            print(f"checkpoint: {checkpoint}")
            for m in mains:
                print(f"  module {m}: agents.rllib_agent.RLlibAgent({checkpoint!r}, {m!r})")
            for m, path in exports.items():
                print(f"  numpy actor {m}: {path}  (agents.make({str(path)!r}))")
        return TrainSummary(algo.iteration, checkpoint, mains, history, exports)
    finally:
        algo.stop()
        if started_ray:
            ray.shutdown()


def main(argv: list[str] | None = None) -> int:

    try:
        train(parse_args(argv))
    except MissingExtraError as err:  # ray or torch not installed: one line naming the extra
        print(f"training.rllib_train: error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
