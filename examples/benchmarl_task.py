"""BenchMARL: the gin envs as a BenchMARL task, trained by its MAPPO or IPPO (``--algorithm``;
any of its discrete algorithms fits the task: IQL, QMIX, ...).

    python examples/benchmarl_task.py --game three_handed_gin_v0 --frames 1000000
    python examples/benchmarl_task.py --smoke   # what CI runs: a few seconds

Its options default to BenchMARL's own settings, which have not learned here in any run; the
command that does, with what it learns, is at the end ("What it learns").

BenchMARL 1.5.2 needs torchrl < 0.12, and the project's ``torchrl`` extra pins torchrl
0.14.1 (``examples/torchrl_mappo.py``): the two cannot share a venv. Install the
``benchmarl`` extra into its own venv (``make test-benchmarl`` makes ``.venv-benchmarl``
and runs this script there), torch first, pinned::

    python -m venv .venv-benchmarl
    .venv-benchmarl/bin/pip install torch==2.13.0
    .venv-benchmarl/bin/pip install -e ".[benchmarl]"   # benchmarl 1.5.2, torchrl 0.11.1

A BenchMARL task is a ``TaskClass`` that builds a TorchRL env and names its specs.
:class:`GinTask` builds TorchRL's ``PettingZooWrapper`` around the turn-based (AEC) env
with ``use_mask=True`` (only the seat to act plays) and ``infos="numeric"`` (every info a
number), all seats in one group ``agents`` that shares one policy. BenchMARL samples
every seat's action from a ``MaskedCategorical`` over ``("agents", "action_mask")``, and
the wrapper marks every action legal for a seat that is not to act (the env ignores its
action): :class:`WaitingSeatPlaysZero` gives such a seat action 0 as its one choice, so it
adds nothing to the policy's gradient or its entropy. (Until 5 December 2026 it looked for
an all-zero mask, which the wrapper never gives, so every run before then sampled a
waiting seat's move from all 109 actions and trained on it: two rows in three of each
three-handed batch were noise, and the entropy BenchMARL reported, 3.64 at the start, was
mostly theirs.)

While it trains it shows the examples' progress bar (frames, frames per second, time left
and the last point of its learning curve: points per hand against ``random`` on
``--curve-deals`` duplicate deals every ``--curve-every`` frames) in place of BenchMARL's
own; ``--quiet``, or output that is not a terminal, turns it off. BenchMARL writes its
losses and returns as CSV and to TensorBoard in the run's folder under ``--out``, the curve
beside them in ``curve/`` (``tensorboard --logdir runs/benchmarl``). Before training and after
it, the untrained and the trained policy (its most likely legal move) play the same
``--eval-deals`` duplicate deals of ``--eval-seed`` against each of ``--eval-opponents``
(:func:`training.periodic_eval.report_learned`); the script prints both with 95% CIs and
the difference, paired by deal, and ``--result FILE`` writes it all as JSON.
``--save PATH`` (a ``.zip``) writes the trained policy's network (BenchMARL's ``Mlp``
model: TorchRL's ``MultiAgentMLP``, one set of weights shared by the seats) as the
project's actor zip, after checking that it plays the network's own moves
(:mod:`training.player_files`; a network it cannot read is refused before training):
``agents.seat(PATH, table)`` and ``--agents PATH`` seat it with numpy alone.

``--algorithm`` is BenchMARL's ``mappo`` (each seat's critic sees every seat's observation:
centralised training) or ``ippo`` (each seat's critic sees its own, as in
``examples/torchrl_mappo.py``); the policy sees only the seat's own either way.
``--reward-scale`` multiplies every seat's reward (its points in the hand; 1: in points),
as TorchRL's ``RewardScaling`` in the task's env; every figure printed stays in points.
``--entropy-coef`` is the PPO entropy bonus (BenchMARL's default: 0).
``--normalize-advantage`` standardises each minibatch's advantages, as TorchRL's MAPPO
example does and BenchMARL's PPO does not: without it the policy's loss is on the scale of
the rewards, and with rewards scaled by 0.01 an entropy bonus of 0.01 outweighs it (the
run below).
``--epochs`` is how many times each batch is gone over, in minibatches of ``--minibatch``
frames (BenchMARL's ``on_policy_n_minibatch_iters`` and ``on_policy_minibatch_size``).
BenchMARL's defaults, 45 and 400, make 675 gradient steps on each batch of 6,000 frames,
where TorchRL's example makes 32 on 4,096 (4 epochs of 512); here the policy learns with 4
and 500 and had not with 45 (below).
``--checkpoint-every FRAMES`` has BenchMARL write a checkpoint (the networks, their
optimisers, the collector, and this example's state: the frames, the seconds of training,
the curve so far and the untrained policy) into the run's ``checkpoints/`` folder, the two
latest kept; ``--resume FILE`` goes on from one to ``--frames``, so a run longer than a
sitting can span several. A resumed run must keep the settings its checkpoint was trained
with (algorithm, game, seed, frames per batch, epochs, minibatch, lr, gamma, lmbda, reward
scale, entropy, advantage normalisation), and is refused otherwise; the file is read as
tensors and plain values only, so it runs no code.

The example's ``--game`` is one of the two envs those deals are played in
(``three_handed_gin_v0``, ``gin_v0``); :class:`GinTask` itself takes any game of
``gin_env.games``.

What it learns on two cores, measured. IPPO with TorchRL's example's learning settings and
four passes a batch learns at 10^6 frames:

    python examples/benchmarl_task.py --algorithm ippo --normalize-advantage \\
        --game three_handed_gin_v0 --frames 1002000 --seed 0 --lr 3e-4 --gamma 1.0 \\
        --lmbda 0.95 --entropy-coef 0.01 --reward-scale 0.01 --epochs 4 --minibatch 500 \\
        --curve-every 30000 --eval-opponents random,simple,heuristic --eval-deals 300 \\
        --eval-seed 20261 \\
        --result results/learning/examples/benchmarl_ippo_three_frames1002000_seed0_e4.json

Trained minus untrained on the same 300 deals (each in the three roles), points per hand:
+19.79 [+18.35, +21.24] against random, +10.73 [+9.46, +12.01] against simple, +9.75
[+8.50, +11.00] against heuristic; the trained player makes -18.95 a hand against simple.
That took 3,866 s of training (two sittings, the second resumed from a checkpoint at
300,000 frames, beside two other runs). Its curve against random stays within a point of
zero to 126,000 frames, reaches +4 to +7 by 250,000, falls back to +1 to +2 at 426,000 to
516,000, and climbs to +17 to +21 from 876,000 on. TorchRL's MAPPO
(``examples/torchrl_mappo.py``) with these learning settings makes +12.4 to +22.8 against simple
at 10^6 frames over three seeds.
MAPPO (BenchMARL's centralised critic) with the same settings and command
(``--algorithm mappo``; 5,018 s, resumed at 150,000 frames) learns less by then: +4.06
[+2.73, +5.39] against simple, +3.17 [+2.02, +4.33] against heuristic and +12.13 [+10.79,
+13.47] against random; its curve against random stays below +4 to 666,000 frames.

With BenchMARL's own 45 passes over each batch in minibatches of 400 (the same settings
otherwise) neither algorithm had learned by 870,000 frames (IPPO: +1.96 a hand against
random) and 600,000 (MAPPO: +1.23); those runs were stopped. At 102,000 frames with
BenchMARL's defaults it has not learned either: on ``three_handed_gin_v0`` -2.99 [-4.21,
-1.77] against simple, trained minus untrained (``--frames 102000 --seed 0``, MAPPO); on
``gin_v0`` -0.21 [-1.74, +1.32], and -3.02 [-4.70, -1.34] with ``--lr 3e-4 --gamma 1.0
--lmbda 0.98``. Those runs, and the history of the runs in between, are in
``results/learning/README.md`` (examples outside the table).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import benchmarl.experiment.experiment as benchmarl_experiment
import numpy as np
import torch
from benchmarl.algorithms import IppoConfig, MappoConfig
from benchmarl.environments.common import TaskClass
from benchmarl.experiment import Callback, Experiment, ExperimentConfig
from benchmarl.models.common import Model
from benchmarl.models.mlp import MlpConfig
from tensordict import TensorDict
from torchrl.data import Composite
from torchrl.envs import (
    Compose,
    EnvBase,
    PettingZooWrapper,
    RewardScaling,
    Transform,
    TransformedEnv,
)
from torchrl.envs.libs.pettingzoo import MarlGroupMapType
from torchrl.envs.utils import ExplorationType, set_exploration_type
from tqdm import tqdm

from gin_env import games
from training.flags import parse_example, save_path
from training.periodic_eval import Curve, check_opponents, report_learned
from training.player_files import check_savable, mlp_actor, save_player
from training.progress import Progress
from training.torchrl_masks import legal_or_wait

GROUP = "agents"
#: The example's own entry in a BenchMARL checkpoint (:class:`ShowProgress`).
STATE_KEY = "gin_example"
#: The settings a resumed run must share with the run that wrote its checkpoint.
RUN_SETTINGS = ("algorithm", "game", "seed", "frames_per_batch", "epochs", "minibatch",
                "lr", "gamma", "lmbda", "reward_scale", "entropy_coef",
                "normalize_advantage")  # fmt: skip
#: The example's algorithms: BenchMARL's PPO with a centralised or a decentralised critic.
ALGORITHMS = {"mappo": MappoConfig, "ippo": IppoConfig}
#: The example's games: the envs whose duplicate deals the before/after plays.
DEAL_GAME = {"three_handed_gin_v0": "three_handed", "gin_v0": "gin"}


class WaitingSeatPlaysZero(Transform):
    """A seat that is not to act (the wrapper's ``(group, "mask")`` False) gets action 0 as
    its only legal move; TorchRL's wrapper plays only the acting seat's action, so it is
    never played. The wrapper marks every action legal for a waiting seat, so the action
    mask alone cannot tell who waits."""

    def __init__(self) -> None:
        super().__init__(in_keys=[(GROUP, "action_mask"), (GROUP, "mask")],
                         out_keys=[(GROUP, "action_mask")])  # fmt: skip

    def _call(self, tensordict: Any) -> Any:
        mask, to_act = tensordict.get((GROUP, "action_mask")), tensordict.get((GROUP, "mask"))
        tensordict.set((GROUP, "action_mask"), legal_or_wait(mask, to_act))
        return tensordict

    def _reset(self, tensordict: Any, tensordict_reset: Any) -> Any:
        return self._call(tensordict_reset)


class GinTask(TaskClass):
    """A BenchMARL task of any gin env of the package: ``config`` holds ``game`` (a name of
    ``gin_env.games``: ``three_handed_gin_v0``, ``gin_v0``, their ``_v1``), ``options``
    (the env's options; a hand per episode unless told otherwise) and ``reward_scale``
    (a seat's reward is its points times this; 1 unless told otherwise)."""

    def get_env_fun(
        self, num_envs: int, continuous_actions: bool, seed: int | None, device: Any
    ) -> Any:
        spec = games.get(self.config["game"])
        options = {"episode": "hand", **self.config.get("options", {}), "infos": "numeric"}
        scale = float(self.config.get("reward_scale", 1.0))

        def make() -> EnvBase:
            env = PettingZooWrapper(
                env=spec.make_env(**options),
                use_mask=True,
                seed=seed,
                group_map=MarlGroupMapType.ALL_IN_ONE_GROUP,
                device=device,
            )
            transforms: list[Transform] = [WaitingSeatPlaysZero()]
            if scale != 1.0:
                transforms.append(RewardScaling(0.0, scale, in_keys=[(GROUP, "reward")]))
            return TransformedEnv(env, Compose(*transforms))

        return make

    def supports_continuous_actions(self) -> bool:
        return False

    def supports_discrete_actions(self) -> bool:
        return True

    def has_render(self, env: EnvBase) -> bool:
        return False

    def max_steps(self, env: EnvBase) -> int:
        return int(self.config.get("max_steps", 2000))  # longer than any hand

    def group_map(self, env: EnvBase) -> dict[str, list[str]]:
        return env.group_map

    def _only(self, env: EnvBase, key: str) -> Composite:
        spec = env.observation_spec.clone()
        for group in self.group_map(env):
            for k in list(spec[group].keys()):
                if k != key:
                    del spec[group][k]
        return spec

    def observation_spec(self, env: EnvBase) -> Composite:
        return self._only(env, "observation")

    def action_mask_spec(self, env: EnvBase) -> Composite:
        return self._only(env, "action_mask")

    def info_spec(self, env: EnvBase) -> Composite:
        return self._only(env, "info")

    def state_spec(self, env: EnvBase) -> None:
        return None  # decentralised critics here; the envs' state() could serve a central one

    def action_spec(self, env: EnvBase) -> Composite:
        return env.full_action_spec

    @staticmethod
    def env_name() -> str:
        return "gin_env"


class PolicyPlayer:
    """BenchMARL's policy as a player of the project's agents (``act(observation, rng)``):
    its most likely legal move. The group's policy shares its parameters across seats, so
    the observation is given to every seat's row and the first row's move is played.

    :meth:`act` runs the policy's network alone (BenchMARL's ``Model``: observations to
    logits) and takes the best legal logit, about three times faster than the whole
    probabilistic actor, whose deterministic move (:meth:`policy_move`, the reference) is
    the same: the mode of a ``MaskedCategorical`` is its best legal logit."""

    def __init__(self, policy: Any, seats: int, name: str) -> None:
        self.policy, self.seats, self.name = policy, seats, name
        [self.network] = [m for m in policy.modules() if isinstance(m, Model)]

    def _rows(self, observation: dict[str, Any]) -> tuple[TensorDict, torch.Tensor]:
        obs = torch.as_tensor(np.asarray(observation["observation"]), dtype=torch.float32)
        mask = torch.as_tensor(np.asarray(observation["action_mask"]).astype(bool))
        # The wrapper nests the env's observation dict: ("agents", "observation", "observation").
        rows = TensorDict(
            {
                "observation": {"observation": obs.expand(self.seats, -1)},
                "action_mask": mask.expand(self.seats, -1),
            },
            batch_size=[self.seats],
        )
        return TensorDict({GROUP: rows}, batch_size=[]), mask

    def act(self, observation: dict[str, Any], rng: Any = None) -> int:
        rows, mask = self._rows(observation)
        with torch.no_grad():
            logits = self.network(rows)[GROUP, "logits"][0]
        return int(logits.masked_fill(~mask, -torch.inf).argmax())

    def policy_move(self, observation: dict[str, Any]) -> int:
        """The whole policy's deterministic move: what :meth:`act` must equal."""
        rows, _ = self._rows(observation)
        with torch.no_grad(), set_exploration_type(ExplorationType.DETERMINISTIC):
            return int(self.policy(rows)[GROUP, "action"][0])


class ShowProgress(Callback):
    """The examples' bar and learning curve on BenchMARL's collection loop; in each of
    BenchMARL's checkpoints it keeps what the example needs to go on from there (the frames,
    the seconds of training, the curve, the untrained policy and the run's settings)."""

    def __init__(self, progress: Progress, curve: Curve, seats: int, run: dict[str, Any]) -> None:
        super().__init__()
        self.progress: Progress | None = progress
        self.curve: Curve | None = curve
        self.seats, self.run, self.frames = seats, run, 0
        self.untrained: Any = None  # the policy before training, set once the experiment is
        self.seconds_before, self.started = 0.0, 0.0
        self.saved_untrained: dict[str, Any] = {}  # a resumed run's, from its checkpoint

    def __getstate__(self) -> dict[str, Any]:
        # BenchMARL pickles its callbacks with the experiment's name; the bar (a terminal
        # stream), the curve and the untrained policy stay with this run.
        return {**self.__dict__, "progress": None, "curve": None, "untrained": None}

    def seconds(self) -> float:
        """Seconds of training so far, this run's (since :meth:`start_clock`) and those of
        the runs it resumes."""
        return self.seconds_before + time.perf_counter() - self.started

    def start_clock(self) -> None:
        """Training starts now (not counting the experiment's set-up)."""
        self.started = time.perf_counter()

    def on_batch_collected(self, batch: Any) -> None:
        if self.progress is None or self.curve is None:
            return
        frames = int(batch.numel())
        self.frames += frames
        self.progress.update(frames)
        if self.curve.due(self.frames):
            self.curve.record(self.player(), self.frames)

    def on_state_dict(self, state_dict: dict[str, Any]) -> None:
        if self.curve is None or self.untrained is None:
            return
        state_dict[STATE_KEY] = {
            "frames": self.frames,
            "seconds": self.seconds(),
            "curve": [dict(row) for row in self.curve.rows],
            "curve_next": self.curve.next,
            "untrained": self.untrained.state_dict(),
            "run": dict(self.run),
        }

    def on_load_state_dict(self, state_dict: dict[str, Any]) -> None:
        saved = state_dict[STATE_KEY]
        self.frames, self.seconds_before = int(saved["frames"]), float(saved["seconds"])
        if self.curve is not None:
            self.curve.rows = [dict(row) for row in saved["curve"]]
            self.curve.next = saved["curve_next"]
        self.saved_untrained = saved["untrained"]

    def player(self) -> PolicyPlayer:
        return PolicyPlayer(self.experiment.policy, self.seats, self.run["algorithm"])


def saved_run(checkpoint: str) -> dict[str, Any]:
    """The example's state in ``checkpoint``, a file BenchMARL wrote for a run of this
    script (tensors and plain values only: loading it runs no code). Raises ValueError
    naming the file when it is not one."""
    path = Path(checkpoint)
    if not path.is_file():
        raise ValueError(f"--resume {checkpoint}: no such file (a checkpoint_<frames>.pt "
                         "in a run's checkpoints/ folder)")  # fmt: skip
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # not a file torch reads as tensors and plain values
        raise ValueError(f"--resume {checkpoint}: not a checkpoint of tensors and plain values "
                         f"({type(err).__name__})") from err  # fmt: skip
    if not isinstance(state, dict) or STATE_KEY not in state:
        raise ValueError(f"--resume {checkpoint}: a checkpoint this example did not write "
                         f"(it has no {STATE_KEY!r} entry)")  # fmt: skip
    saved = dict(state[STATE_KEY])
    # Checkpoints written before --algorithm, --normalize-advantage, --epochs and --minibatch
    # existed are MAPPO's, without the normalisation, at BenchMARL's 45 epochs of 400 frames.
    saved["run"] = {"algorithm": "mappo", "normalize_advantage": False, "epochs": 45,
                    "minibatch": 400, **saved["run"]}  # fmt: skip
    return saved


@dataclass
class Args:
    algorithm: str = "mappo"
    game: str = "three_handed_gin_v0"
    frames: int = 1_000_000
    frames_per_batch: int = 6_000
    epochs: int = 45  # passes over each batch (BenchMARL's on_policy_n_minibatch_iters)
    minibatch: int = 400  # frames per gradient step (BenchMARL's on_policy_minibatch_size)
    lr: float = 5e-5  # BenchMARL's own defaults, all three
    gamma: float = 0.99
    lmbda: float = 0.9  # GAE's lambda
    entropy_coef: float = 0.0  # BenchMARL's MAPPO default too
    normalize_advantage: bool = False  # BenchMARL's PPO never does
    reward_scale: float = 1.0  # a seat's reward is its points in the hand times this
    seed: int = 0
    out: str = "runs/benchmarl"
    eval_deals: int = 300
    eval_opponents: str = "random,simple"
    eval_seed: int = 10_000
    curve_every: int = 60_000  # frames between points of the learning curve (0: none)
    curve_deals: int = 100
    result: str = ""  # a JSON file for the run's figures
    checkpoint_every: int = 0  # frames between BenchMARL checkpoints (0: none)
    resume: str = ""  # a checkpoint of an earlier run of this script to go on from


def parse_args(argv: list[str] | None = None) -> tuple[Args, bool, bool, dict[str, Any] | None]:
    """The options, ``--smoke``, ``--quiet``, and the example's state in the ``--resume``
    checkpoint (None without one), read here once to check the options against it."""
    smoke = {"frames": 400, "frames_per_batch": 200, "epochs": 1, "minibatch": 200,
             "eval_deals": 4, "curve_every": 200, "curve_deals": 2}  # fmt: skip
    args, is_smoke, quiet, parser = parse_example(
        Args, argv, __doc__, smoke=smoke,
        choices={"game": sorted(DEAL_GAME), "algorithm": sorted(ALGORITHMS)},
        positive=("frames", "frames_per_batch", "epochs", "minibatch", "reward_scale",
                  "eval_deals"),
        check=lambda a: check_opponents(DEAL_GAME[a.game], a.eval_opponents),
    )  # fmt: skip
    for name in ("lr", "gamma", "lmbda"):
        value = getattr(args, name)
        if not (0 < value <= 1):
            parser.error(f"--{name} must be a number in (0, 1]; got {value}")
    if not (0 <= args.entropy_coef < math.inf):
        parser.error(f"--entropy-coef must be a number >= 0; got {args.entropy_coef}")
    if args.checkpoint_every < 0 or args.checkpoint_every % args.frames_per_batch:
        parser.error(f"--checkpoint-every must be 0 (none) or a multiple of --frames-per-batch "
                     f"({args.frames_per_batch}); got {args.checkpoint_every}")  # fmt: skip
    saved = None
    if args.resume:
        try:
            saved = saved_run(args.resume)
        except ValueError as err:
            parser.error(str(err))
        run = run_settings(args)
        differ = [k for k in RUN_SETTINGS if saved["run"].get(k) != run[k]]
        if differ:
            parser.error(
                "--resume: the checkpoint's run had other settings: "
                + ", ".join(
                    f"--{k.replace('_', '-')} {saved['run'].get(k)} (here {run[k]})" for k in differ
                )
            )
        if args.frames <= saved["frames"]:
            parser.error(f"--frames {args.frames}: the checkpoint has {saved['frames']} "
                         "frames already; ask for more")  # fmt: skip
    return args, is_smoke, quiet, saved


def run_settings(args: Args) -> dict[str, Any]:
    """The settings a resumed run must share with the one it goes on from."""
    return {name: getattr(args, name) for name in RUN_SETTINGS}


def experiment_config(args: Args, smoke: bool) -> ExperimentConfig:
    """BenchMARL's experiment settings for ``args`` (its yaml defaults otherwise)."""
    config = ExperimentConfig.get_from_yaml()
    config.max_n_frames = args.frames
    config.on_policy_collected_frames_per_batch = args.frames_per_batch
    config.lr, config.gamma = args.lr, args.gamma
    config.on_policy_n_envs_per_worker = 1 if smoke else 10
    config.on_policy_minibatch_size = min(args.minibatch, args.frames_per_batch)
    config.on_policy_n_minibatch_iters = args.epochs
    config.evaluation = not smoke
    config.render = False
    config.loggers = ["csv", "tensorboard"]
    config.create_json = False
    # Checkpoints hold the networks, their optimisers and the example's state, not the
    # on-policy batch (collected afresh each iteration); the two latest are kept, and one
    # at the end unless the last interval's is the end's.
    config.checkpoint_interval = args.checkpoint_every
    config.checkpoint_at_end = args.checkpoint_every > 0 and args.frames % args.checkpoint_every > 0
    config.keep_checkpoints_num = 2
    config.exclude_buffer_from_checkpoint = True
    config.restore_file = args.resume or None
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    config.save_folder = str(out)
    return config


def experiment_for(args: Args, smoke: bool, callbacks: list[Callback]) -> Experiment:
    """BenchMARL's ``args.algorithm`` on :class:`GinTask` with ``args``' settings (restored from
    ``args.resume`` when it names a checkpoint)."""
    task = GinTask(args.game.upper(), {"game": args.game, "reward_scale": args.reward_scale})
    algorithm = dataclasses.replace(
        ALGORITHMS[args.algorithm].get_from_yaml(),
        lmbda=args.lmbda,
        entropy_coef=args.entropy_coef,
    )
    experiment = Experiment(
        task=task,
        algorithm_config=algorithm,
        model_config=MlpConfig.get_from_yaml(),
        critic_model_config=MlpConfig.get_from_yaml(),
        seed=args.seed,
        config=experiment_config(args, smoke),
        callbacks=callbacks,
    )
    experiment.losses[GROUP].normalize_advantage = args.normalize_advantage
    return experiment


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args, smoke, quiet, saved = parse_args(argv)
    torch.set_num_threads(1)  # small networks, one step at a time: more threads only wait
    # The examples' bar (frames, rate, time left, the curve's last point) stands in for
    # BenchMARL's, which draws even into a pipe and shows neither rate nor curve.
    benchmarl_experiment.tqdm = functools.partial(tqdm, disable=True)  # type: ignore[attr-defined]
    seats = len(games.get(args.game).make_env().possible_agents)
    start = saved["frames"] if saved else 0
    progress = Progress(args.frames, start, enabled=not quiet, desc=f"benchmarl {args.algorithm}",
                        unit="frame")  # fmt: skip
    curve = Curve(DEAL_GAME[args.game], "random", args.curve_deals, args.eval_seed + 1,
                  args.curve_every, progress)  # fmt: skip
    show = ShowProgress(progress, curve, seats, run_settings(args))
    experiment = experiment_for(args, smoke, [show])
    progress.log_to(experiment.folder_name / "curve")  # beside BenchMARL's own TensorBoard
    # A resumed run's policy is the checkpoint's; its untrained one is the first run's.
    show.untrained = copy.deepcopy(experiment.policy)
    if args.resume:
        show.untrained.load_state_dict(show.saved_untrained)
        print(f"resumed at {experiment.total_frames} frames from {args.resume}")
    untrained = PolicyPlayer(show.untrained, seats, "untrained")
    if save_path(args):  # a network --save cannot write is refused before any training
        check_savable(lambda: mlp_actor(untrained.network, "benchmarl"), untrained,
                      DEAL_GAME[args.game])  # fmt: skip
    show.start_clock()
    experiment.run()
    seconds = show.seconds()
    # Closing its envs, TorchRL gives torch back the threads it had at import (a core each):
    # on a busy machine the evaluation's one-position forward passes then wait on each
    # other, a hundred times slower (an hour for 300 deals, not a minute).
    torch.set_num_threads(1)
    progress.close()
    frames = int(experiment.total_frames)
    curve.close(show.player(), frames)
    print(
        f"trained {frames} frames in {experiment.n_iters_performed} "
        f"iterations ({seconds:.1f} s); logs in {experiment.folder_name}"
    )

    def save(path: Path) -> None:  # the policy's MLP as an actor zip, checked move for move
        player = show.player()
        actor = mlp_actor(player.network, path.stem, example="benchmarl_task",
                          algorithm=args.algorithm, frames=frames, seed=args.seed)  # fmt: skip
        save_player(path, actor, player, DEAL_GAME[args.game])

    return report_learned(
        "benchmarl_task", args, untrained, show.player(), DEAL_GAME[args.game], frames,
        seconds, curve, save,
    )  # fmt: skip


if __name__ == "__main__":
    main()
