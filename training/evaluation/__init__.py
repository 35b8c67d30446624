"""Deprecated: the evaluation package is :mod:`gin_eval` (moved out of ``training`` in 0.2.0;
this alias goes in 0.3.0). ``training.evaluation.<module>`` is ``gin_eval.<module>``."""

import importlib
import pkgutil
import sys
import warnings

import gin_eval
from gin_eval import *  # noqa: F403

warnings.warn(
    "training.evaluation is deprecated; import gin_eval instead (removed in 0.3.0)",
    DeprecationWarning,
    stacklevel=2,
)
# Each submodule answers to its old name too, so `from training.evaluation.gin import x`
# keeps working for one release.
for _info in pkgutil.iter_modules(gin_eval.__path__):
    sys.modules[f"{__name__}.{_info.name}"] = importlib.import_module(f"gin_eval.{_info.name}")
