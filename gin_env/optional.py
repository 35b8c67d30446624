"""Optional dependencies: import one, or fail up front with the extra that installs it
(``extras`` alone means the observation extras of the single-agent wrapper).

The core install (numpy, gymnasium, pettingzoo, click, rich, tqdm) plays every game; the
rest comes with pip extras (``pip install "gin-env[eval]"``, or ``pip install -e ".[eval]"``
from a source checkout):

=============  ===========================================  ==================================
extra          brings                                       for
=============  ===========================================  ==================================
``render``     Pillow                                       ``render_mode="rgb_array"``, GIFs
``eval``       matplotlib, openskill                        ``gin-rummy eval`` plots, ladders
``train``      torch, stable-baselines3, sb3-contrib,       ``gin-rummy train``, trained
               tensorboard, and everything in render/eval   checkpoints saved by SB3
``rllib``      ray[rllib], torch                            ``training.rllib_train``
``web``        starlette, uvicorn[standard]                 ``gin-rummy serve``
``dev``        pytest, ruff, mypy, notebook runners         the tests and ``make lint``
=============  ===========================================  ==================================

:func:`require` is the one way the package imports an optional module: called where the
feature is chosen (an env made with ``render_mode="rgb_array"``, ``eval`` before any game
is played), so a missing package is reported before any work, as a
:class:`MissingExtraError` (a :class:`ModuleNotFoundError`) that names the extra.

This module is stdlib-only, so every layer may use it.

>>> require("json").__name__
'json'
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["PACKAGES", "MissingExtraError", "require", "install_hint"]

#: Top-level module -> (the pip distribution that provides it, the gin-env extra that brings it).
PACKAGES: dict[str, tuple[str, str]] = {
    "PIL": ("pillow", "render"),
    "matplotlib": ("matplotlib", "eval"),
    "openskill": ("openskill", "eval"),
    "torch": ("torch", "train"),
    "stable_baselines3": ("stable-baselines3", "train"),
    "sb3_contrib": ("sb3-contrib", "train"),
    "tensorboard": ("tensorboard", "train"),
    "cma": ("cma", "train"),
    "ray": ("ray[rllib]", "rllib"),
    "starlette": ("starlette", "web"),
    "uvicorn": ("uvicorn[standard]", "web"),
    "openai": ("openai", "llm"),
}


class MissingExtraError(ModuleNotFoundError):
    """An optional package is not installed; the message names the extra to install."""


def install_hint(module: str, extra: str | None = None) -> str:
    """``pip install "gin-env[extra]"`` (and the package alone) for ``module``."""
    top = module.split(".")[0]
    dist, default_extra = PACKAGES.get(top, (top, None))
    extra = extra or default_extra
    if extra is None:
        return f"pip install {dist}"
    return (
        f'pip install "gin-env[{extra}]" (from a source checkout: pip install -e ".[{extra}]"; '
        f"or just pip install {dist})"
    )


def require(module: str, extra: str | None = None, needed_for: str | None = None) -> ModuleType:
    """Import and return ``module``; if it (or its top-level package) is missing, raise
    :class:`MissingExtraError` saying what needs it (``needed_for``) and which extra
    installs it (``extra``, by default looked up in :data:`PACKAGES`).

    A module that is installed but fails for another reason (one of *its* dependencies is
    missing, a broken build) raises its own error unchanged.
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as err:
        missing = err.name or ""
        parts = module.split(".")
        if missing not in {".".join(parts[: i + 1]) for i in range(len(parts))}:
            raise  # something inside the package is missing: not ours to rename
        top = parts[0]
        dist = PACKAGES.get(top, (top, None))[0]
        what = f"{needed_for} needs" if needed_for else f"{module} is needed, from"
        raise MissingExtraError(
            f"{what} {dist}, which is not installed: {install_hint(module, extra)}",
            name=missing,
        ) from None
