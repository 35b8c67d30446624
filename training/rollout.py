"""Deprecated: the one rollout loop is :mod:`gin_eval.rollout` (moved in 0.2.0; this alias
goes in 0.3.0)."""

import warnings

from gin_eval.rollout import *  # noqa: F403
from gin_eval.rollout import play  # noqa: F401

warnings.warn(
    "training.rollout is deprecated; import gin_eval.rollout instead (removed in 0.3.0)",
    DeprecationWarning,
    stacklevel=2,
)
