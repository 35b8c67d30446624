"""Run the doctests of every module of the library (``gin_env``, ``agents``, ``gin_eval``,
``training``, ``gin_cli``): docstring examples double as specification."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import agents
import gin_cli
import gin_env
import gin_eval
import training

MODULES = sorted(
    info.name
    for package in (gin_env, agents, gin_eval, training, gin_cli)
    for info in pkgutil.iter_modules(package.__path__, prefix=package.__name__ + ".")
)


def test_modules_found():
    assert {"gin_env.cards", "gin_env.melds", "gin_env.hand", "gin_env.match"} <= set(MODULES)
    assert {"agents.match_equity", "gin_eval.stats"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name and not err.name.startswith(
            ("gin_env", "agents", "gin_eval", "training", "gin_cli")
        ):
            pytest.skip(f"{name} needs the optional dependency {err.name!r}")
        raise
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} doctests failed in {name}"
