"""The shipped trained agents: they load by name, stay small, and play legal moves in every role."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agents import trained
from gin_env import gin_v0, three_handed_gin_v0

SHIPPED = {"gin-ppo": "gin", "three-handed-ppo": "three_handed"}


def test_shipped_checkpoints_are_listed_small_and_carded() -> None:
    assert set(SHIPPED) <= set(trained.available())
    for name in SHIPPED:
        zip_path = trained.CHECKPOINT_DIR / f"{name}.zip"
        assert zip_path.stat().st_size < 5 * 2**20
        card = (trained.CHECKPOINT_DIR / f"{name}.md").read_text()
        for needed in ("python -m training.train_ppo", "Steps", "Wall time", "Evaluation"):
            assert needed in card, f"model card of {name} lacks {needed!r}"


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_load_by_name_and_by_path_agree(name: str) -> None:
    by_name = trained.load(name)
    by_path = trained.load(trained.CHECKPOINT_DIR / f"{name}.zip")
    assert by_name.meta["env"] == SHIPPED[name]
    assert by_name.obs_size in trained.INPUT_KINDS and by_name.num_actions == 109
    rng = np.random.default_rng(0)
    obs = rng.random(436).astype(np.float32)
    mask = np.zeros(109, np.int8)
    mask[[0, 1, 40]] = 1
    ob = {"observation": obs, "action_mask": mask}
    assert by_name.act(ob) == by_path.act(ob) == by_name.act(ob)
    assert by_name.act(ob) in (0, 1, 40)


def test_registry_falls_back_to_trained_agents() -> None:
    agents = pytest.importorskip("agents")
    if not hasattr(agents, "make"):
        pytest.skip("the agents registry has not landed")
    agent = agents.make("gin-ppo")
    assert isinstance(agent, trained.MLPAgent)


def test_unknown_name_raises_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown trained agent 'nobody'.*gin-ppo"):
        trained.load("nobody")


def _play(env: object, agent: trained.MLPAgent, seed: int, hands: int) -> set[str]:
    """Every seat played by ``agent`` on the raw env (which raises on an illegal action)."""
    roles: set[str] = set()
    env.reset(seed=seed)  # type: ignore[attr-defined]
    rng = np.random.default_rng(seed)
    played = 0
    while played < hands:
        for name in env.agent_iter():  # type: ignore[attr-defined]
            obs, _, term, trunc, info = env.last()  # type: ignore[attr-defined]
            if term or trunc:
                env.step(None)  # type: ignore[attr-defined]
                continue
            roles.add(info["role"])
            action = agent.act(obs, rng)
            assert obs["action_mask"][action], f"{name} chose illegal {action}"
            env.step(action)  # type: ignore[attr-defined]
        played += 1
        env.reset()  # type: ignore[attr-defined]
    return roles


def test_gin_ppo_plays_legal_moves_as_dealer_and_non_dealer() -> None:
    roles = _play(gin_v0.raw_env(episode="hand"), trained.load("gin-ppo"), seed=4, hands=30)
    assert roles == {"dealer", "non-dealer"}


def test_three_handed_ppo_plays_legal_moves_in_every_role() -> None:
    env = three_handed_gin_v0.raw_env(episode="hand")
    roles = _play(env, trained.load("three-handed-ppo"), seed=5, hands=30)
    assert roles == {"box", "captain", "adviser"}


def test_sampling_mode_only_picks_legal_actions() -> None:
    agent = trained.load("gin-ppo", deterministic=False)
    rng = np.random.default_rng(1)
    obs = rng.random(436).astype(np.float32)
    mask = np.zeros(109, np.int8)
    mask[[4, 9, 60]] = 1
    picks = {agent.act({"observation": obs, "action_mask": mask}, rng) for _ in range(200)}
    assert picks <= {4, 9, 60}


def test_deadwood_features_match_the_exact_deadwood() -> None:
    from gin_env.cards import parse_cards
    from gin_env.encoding import OBS_SLICES
    from gin_env.melds import deadwood

    hand = parse_cards("AS 2S 3S 7H 7D 7C KH QD 9C 4D 5H")
    obs = np.zeros(436, np.float32)
    obs[OBS_SLICES["hand"].start + np.array(hand)] = 1
    feats = trained.deadwood_features(obs)
    for card in range(52):
        expected = deadwood([c for c in hand if c != card]) / 100 if card in hand else 1.0
        assert feats[card] == pytest.approx(expected)
    assert feats[52] == 1.0  # no upcard question with 11 cards
    ten, top = hand[:10], hand[10]
    obs[:] = 0
    obs[OBS_SLICES["hand"].start + np.array(ten)] = 1
    obs[OBS_SLICES["top_discard"].start + top] = 1
    feats = trained.deadwood_features(obs)
    best = min(deadwood([c for c in hand if c != d]) for d in ten)
    assert feats[52] == pytest.approx(best / 100) and (feats[:52] == 1).all()


@pytest.mark.parametrize("name", ["gin-dmc", "three-handed-dmc", "gin-1h", "three-1h", "gin-net"])
def test_shipped_dmc_players_are_listed_small_and_carded(name: str) -> None:
    path = trained.CHECKPOINT_DIR / f"{name}.npz"
    if not path.is_file():
        pytest.skip(f"{name} is not shipped")
    assert name in trained.available() and path.stat().st_size < 5 * 2**20
    card = (trained.CHECKPOINT_DIR / f"{name}.md").read_text()
    for needed in (
        "python -m training.train_dmc",
        "Decisions",
        "Wall time",
        "Evaluation",
        "held-out seed",
        "Input layout",
    ):
        assert needed in card, f"model card of {name} lacks {needed!r}"
    agent = trained.load(name)
    assert agent.meta["input_layout"]["obs_size"] == 436
    assert trained.load(path).act  # by path too


@pytest.mark.parametrize(
    ("name", "game"), [("gin-1h", "gin"), ("three-1h", "three_handed"), ("gin-net", "gin")]
)
def test_the_one_hour_players_load_and_play_a_hand_through_seat(name: str, game: str) -> None:
    import agents
    from gin_env import games

    spec = games.get(game)
    env = spec.make_env(episode="hand")
    env.reset(seed=5)
    player = agents.seat(name, env.config)
    assert player.features == "facts"  # the hour preset's encoding
    rng = np.random.default_rng(0)
    for _agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = player.act(obs, rng)
        assert obs["action_mask"][action]
        env.step(action)
    assert env.table_state.hand_over


def test_gin_nets_lineage_figure_is_drawn_from_the_committed_checkpoints(tmp_path) -> None:
    from studies import gin_net_lineage

    out = gin_net_lineage.main(tmp_path / "lineage.png")
    assert out.stat().st_size > 10_000
