"""Run the doctests of every ``gin_env`` module (docstring examples double as specification)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import gin_env

MODULES = sorted(
    info.name for info in pkgutil.walk_packages(gin_env.__path__, prefix=gin_env.__name__ + ".")
)


def test_modules_found():
    assert {"gin_env.cards", "gin_env.melds", "gin_env.hand", "gin_env.match"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name and not err.name.startswith("gin_env"):
            pytest.skip(f"{name} needs the optional dependency {err.name!r}")
        raise
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} doctests failed in {name}"
