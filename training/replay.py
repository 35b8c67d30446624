"""Deprecated: the match record is :mod:`gin_env.record` (moved in 0.2.0; this alias goes in
0.3.0)."""

import warnings

from gin_env.record import *  # noqa: F403
from gin_env.record import load, match_record, replay_env, save_match  # noqa: F401

warnings.warn(
    "training.replay is deprecated; import gin_env.record instead (removed in 0.3.0)",
    DeprecationWarning,
    stacklevel=2,
)
