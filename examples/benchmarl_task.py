"""BenchMARL: the gin envs as a BenchMARL task, trained by its MAPPO (any of its discrete
algorithms fits: IPPO, MAPPO, IQL, QMIX, ...).

    python examples/benchmarl_task.py --game three_handed_gin_v0 --frames 1000000
    python examples/benchmarl_task.py --smoke   # what CI runs: a few seconds

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
every seat's action from a ``MaskedCategorical`` over ``("agents", "action_mask")``, and a
seat that is not to act has an all-zero mask, which no distribution can sample:
:class:`WaitingSeatPlaysZero` gives such a seat action 0 as its one choice (the env
ignores its action), so it adds nothing to the policy gradient.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from benchmarl.algorithms import MappoConfig
from benchmarl.environments.common import TaskClass
from benchmarl.experiment import Experiment, ExperimentConfig
from benchmarl.models.mlp import MlpConfig
from torchrl.data import Composite
from torchrl.envs import EnvBase, PettingZooWrapper, Transform, TransformedEnv
from torchrl.envs.libs.pettingzoo import MarlGroupMapType

from gin_env import games

GROUP = "agents"


class WaitingSeatPlaysZero(Transform):
    """A seat that is not to act (an all-zero action mask) gets action 0 as its only legal
    move; TorchRL's wrapper plays only the acting seat's action, so it is never played."""

    def __init__(self) -> None:
        key = (GROUP, "action_mask")
        super().__init__(in_keys=[key], out_keys=[key])

    def _apply_transform(self, mask: torch.Tensor) -> torch.Tensor:
        waiting = ~mask.any(dim=-1, keepdim=True)
        first = torch.zeros_like(mask)
        first[..., 0] = True
        return mask | (waiting & first)

    def _reset(self, tensordict: Any, tensordict_reset: Any) -> Any:
        return self._call(tensordict_reset)


class GinTask(TaskClass):
    """A BenchMARL task of any gin env of the package: ``config`` holds ``game`` (a name of
    ``gin_env.games``: ``three_handed_gin_v0``, ``gin_v0``, their ``_v1``) and ``options``
    (the env's options; a hand per episode unless told otherwise)."""

    def get_env_fun(
        self, num_envs: int, continuous_actions: bool, seed: int | None, device: Any
    ) -> Any:
        spec = games.get(self.config["game"])
        options = {"episode": "hand", **self.config.get("options", {}), "infos": "numeric"}

        def make() -> EnvBase:
            env = PettingZooWrapper(
                env=spec.make_env(**options),
                use_mask=True,
                seed=seed,
                group_map=MarlGroupMapType.ALL_IN_ONE_GROUP,
                device=device,
            )
            return TransformedEnv(env, WaitingSeatPlaysZero())

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


@dataclass
class Args:
    game: str = "three_handed_gin_v0"
    frames: int = 1_000_000
    frames_per_batch: int = 6_000
    seed: int = 0
    out: str = "runs/benchmarl"


def parse_args() -> tuple[Args, bool]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for name, default in vars(Args()).items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=type(default), default=default)
    parser.add_argument("--smoke", action="store_true", help="a tiny run, as CI does")
    ns = parser.parse_args()
    args = Args(**{k: v for k, v in vars(ns).items() if k != "smoke"})
    if ns.smoke:
        args.frames, args.frames_per_batch = 400, 200
    return args, ns.smoke


def main() -> None:
    args, smoke = parse_args()
    torch.set_num_threads(1)  # small networks, one step at a time: more threads only wait
    task = GinTask(args.game.upper(), {"game": args.game})
    config = ExperimentConfig.get_from_yaml()
    config.max_n_frames = args.frames
    config.on_policy_collected_frames_per_batch = args.frames_per_batch
    config.on_policy_n_envs_per_worker = 1 if smoke else 10
    config.on_policy_minibatch_size = min(400, args.frames_per_batch)
    config.on_policy_n_minibatch_iters = 1 if smoke else 45
    config.evaluation = not smoke
    config.render = False
    config.loggers = ["csv"]
    config.create_json = False
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    config.save_folder = str(out)
    experiment = Experiment(
        task=task,
        algorithm_config=MappoConfig.get_from_yaml(),
        model_config=MlpConfig.get_from_yaml(),
        critic_model_config=MlpConfig.get_from_yaml(),
        seed=args.seed,
        config=config,
    )
    experiment.run()
    print(
        f"trained {experiment.total_frames} frames in {experiment.n_iters_performed} "
        f"iterations; logs in {experiment.folder_name}"
    )


if __name__ == "__main__":
    main()
