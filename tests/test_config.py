"""Every rule option validates: a bad value is a ValueError that names the option."""

from __future__ import annotations

import dataclasses

import pytest

from gin_env.config import GinConfig, HandRules, ThreeHandedConfig

HAND_OPTIONS_BAD = [
    ("knock_limit", -1),
    ("knock_limit", 11),
    ("knock_limit", "3"),
    ("knock_limit", True),
    ("knock_limit", 3.0),
    ("knock_limit", None),
    ("gin_bonus", -1),
    ("gin_bonus", "25"),
    ("gin_bonus", 25.0),
    ("gin_bonus", False),
    ("undercut_bonus", -5),
    ("undercut_bonus", "10"),
    ("undercut_bonus", None),
    ("big_gin_bonus", -1),
    ("big_gin_bonus", "31"),
    ("big_gin_bonus", True),
    ("allow_discard_of_taken_card", 1),
    ("allow_discard_of_taken_card", "yes"),
    ("allow_discard_of_taken_card", None),
    ("max_turns_per_hand", 0),
    ("max_turns_per_hand", -3),
    ("max_turns_per_hand", 10.5),
    ("oklahoma", 1),
    ("oklahoma", "True"),
]


@pytest.mark.parametrize("cls", [HandRules, GinConfig, ThreeHandedConfig])
@pytest.mark.parametrize(("option", "value"), HAND_OPTIONS_BAD)
def test_bad_hand_option_raises_naming_it(cls, option, value):
    with pytest.raises(ValueError) as err:
        cls(**{option: value})
    assert option in str(err.value)
    assert repr(value) in str(err.value)


@pytest.mark.parametrize("cls", [GinConfig, ThreeHandedConfig])
@pytest.mark.parametrize("value", [0, -100, "100", True, 100.0])
def test_bad_target_score(cls, value):
    with pytest.raises(ValueError, match="target_score"):
        cls(target_score=value)


@pytest.mark.parametrize("value", ["x", "", None, 0, "Alternate"])
def test_bad_dealer_rule(value):
    with pytest.raises(ValueError) as err:
        GinConfig(dealer_rule=value)
    message = str(err.value)
    assert "dealer_rule" in message
    for allowed in ("alternate", "winner", "loser"):
        assert allowed in message


def test_three_handed_has_no_dealer_rule():
    with pytest.raises(TypeError):
        ThreeHandedConfig(dealer_rule="winner")  # type: ignore[call-arg]


def test_unknown_option_is_rejected():
    with pytest.raises(TypeError):
        HandRules(knocklimit=5)  # type: ignore[call-arg]


@pytest.mark.parametrize(
    "options",
    [
        {"knock_limit": 0},
        {"knock_limit": 10},
        {"gin_bonus": 20},
        {"gin_bonus": 0},
        {"undercut_bonus": 0},
        {"big_gin_bonus": 31},
        {"big_gin_bonus": None},
        {"allow_discard_of_taken_card": True},
        {"max_turns_per_hand": 1},
        {"oklahoma": True},
    ],
)
def test_good_values_accepted(options):
    for cls in (HandRules, GinConfig, ThreeHandedConfig):
        cfg = cls(**options)
        for name, value in options.items():
            assert getattr(cfg, name) == value


@pytest.mark.parametrize("value", [1, "True", None])
def test_hollywood_must_be_a_bool(value):
    with pytest.raises(ValueError, match="hollywood must be True or False"):
        GinConfig(hollywood=value)


def test_defaults_match_rules():
    cfg = ThreeHandedConfig()
    assert cfg.knock_limit == 10
    assert cfg.gin_bonus == 25
    assert cfg.undercut_bonus == 10
    assert cfg.big_gin_bonus is None
    assert cfg.allow_discard_of_taken_card is False
    assert cfg.max_turns_per_hand == 200
    assert cfg.oklahoma is False
    assert cfg.target_score == 100
    assert GinConfig().dealer_rule == "alternate"
    assert GinConfig().hollywood is False


def test_configs_are_frozen_and_hand_rules_projects():
    cfg = GinConfig(knock_limit=7, target_score=50, dealer_rule="winner")
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.knock_limit = 3  # type: ignore[misc]
    rules = cfg.hand_rules()
    assert type(rules) is HandRules
    assert rules.knock_limit == 7
    assert rules == HandRules(knock_limit=7)
