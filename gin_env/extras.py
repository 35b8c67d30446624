"""Deprecated: the optional-dependency helper is :mod:`gin_env.optional` (renamed in 0.2.0,
so that ``extras`` means one thing, the single-agent wrapper's observation extras; this
alias goes in 0.3.0)."""

import warnings

from gin_env.optional import *  # noqa: F403
from gin_env.optional import PACKAGES as EXTRAS  # noqa: F401
from gin_env.optional import MissingExtraError, install_hint, require  # noqa: F401

warnings.warn(
    "gin_env.extras is deprecated; import gin_env.optional instead (removed in 0.3.0)",
    DeprecationWarning,
    stacklevel=2,
)
