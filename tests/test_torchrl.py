"""TorchRL (the base of BenchMARL) wraps every env: ``PettingZooWrapper(env=..., use_mask=True)``
passes ``check_env_specs`` and a masked random rollout across episode ends on ``raw_env``
(which raises on an illegal move) completes. The gin envs need ``infos="numeric"``: TorchRL
turns every info value into a tensor, under the keys it saw at reset.

``torchrl`` is the ``torchrl`` extra, installed by ``make test``: these tests run there (an
ImportError here is a broken install, not a skip)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from gin_env import games
from gin_env.hand import HAND_KINDS

GIN = [g.name for g in games.GAMES.values() if g.family == "gin"]
#: Options that end an episode within the rollout (a hand, or rummy's turn limit).
SHORT = {"gin": {"episode": "hand", "infos": "numeric"}, "rummy": {"max_turns": 40}}


def _wrapped(name: str, **options: Any) -> Any:
    from torchrl.envs import PettingZooWrapper

    spec = games.get(name)
    return PettingZooWrapper(
        env=spec.make_env(**SHORT[spec.family], **options), use_mask=True, seed=0
    )


@pytest.mark.parametrize("name", [*GIN, "rummy_v0"])
def test_torchrl_checks_the_specs_and_rolls_out_masked_random_play(name: str) -> None:
    import torch
    from torchrl.envs.utils import check_env_specs

    env = _wrapped(name)
    check_env_specs(env)
    torch.manual_seed(0)
    # Random actions within each turn's mask: raw_env raises on any illegal one.
    td = env.rollout(300, break_when_any_done=False)
    assert td.batch_size == (300,)
    assert int(td["next", "done"].sum()) >= 1  # an episode ended and the env was reset
    if games.get(name).family == "gin":
        kinds = td["next", "player_0", "info", "hand_kind"]
        assert ((kinds >= 0) & (kinds < len(HAND_KINDS))).any()  # the hand's result, as a number


def test_torchrl_wraps_the_standard_wrappers_too() -> None:
    from torchrl.envs import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    from gin_env import three_handed_gin_v0

    check_env_specs(PettingZooWrapper(env=three_handed_gin_v0.env(infos="numeric"), use_mask=True))


def test_torchrl_wraps_hollywood_gin() -> None:
    from torchrl.envs.utils import check_env_specs

    check_env_specs(_wrapped("gin_v0", hollywood=True, target_score=30))


# -- infos="numeric" says what the readable infos say ---------------------------------------
def _readable_as_numbers(env: Any, info: dict[str, Any]) -> dict[str, Any]:
    players = env.possible_agents
    out = {
        "role": env.role_names.index(info["role"]),
        "scores": list(info["scores"]),
        "hand_over": info["hand_over"],
    }
    result = info.get("hand_result")
    if result is None:
        out.update(hand_kind=-1, hand_points=0, hand_winner=-1, hand_knocker=-1,
                   hand_roles=[-1] * len(players))  # fmt: skip
    else:
        out.update(
            hand_kind=HAND_KINDS.index(result["kind"]),
            hand_points=result["points"],
            hand_winner=-1 if result["winner"] is None else players.index(result["winner"]),
            hand_knocker=-1 if result["knocker"] is None else players.index(result["knocker"]),
            hand_roles=[env.role_names.index(result["roles"][a]) for a in players],
        )
    return out


@pytest.mark.parametrize("name", GIN)
def test_numeric_infos_carry_the_readable_facts(name: str) -> None:
    spec = games.get(name)
    readable = spec.make_env(target_score=40)
    numeric = spec.make_env(target_score=40, infos="numeric")
    rng = random.Random(4)
    hands_seen = 0
    for seed in range(3):
        readable.reset(seed=seed)
        numeric.reset(seed=seed)
        while True:
            keys = None
            for agent in readable.possible_agents:
                got = {k: np.asarray(v).tolist() for k, v in numeric.infos[agent].items()}
                assert got == _readable_as_numbers(readable, readable.infos[agent])
                keys = keys or set(got)
                assert set(got) == keys  # the same keys for every agent, at every step
            if all(readable.terminations.values()) or all(readable.truncations.values()):
                break
            hands_seen += readable.infos[readable.agent_selection]["hand_over"]
            action = rng.choice(readable.legal_actions())
            readable.step(action)
            numeric.step(action)
    assert hands_seen >= 3


def test_numeric_infos_pass_pettingzoos_api_test_and_keep_the_learner_by_role() -> None:
    from pettingzoo.test import api_test

    from agents import single_agent
    from gin_env import three_handed_gin_v0

    api_test(three_handed_gin_v0.env(infos="numeric"), num_cycles=100)
    env = single_agent.make("three_handed_gin_v0", learner="captain", infos="numeric")
    _, info = env.reset(seed=0)
    assert env.aec.role_names[info["role"]] == "captain"


def test_a_bad_infos_value_names_the_allowed_ones() -> None:
    from gin_env import gin_v0

    with pytest.raises(ValueError, match="infos.*readable.*numeric"):
        gin_v0.raw_env(infos="tensor")
