"""The trainers of the gin envs, each a leaf (:mod:`training.train_ppo`,
:mod:`training.train_dmc`, :mod:`training.tune`, :mod:`training.rllib_train`), and the parts
they share (checkpoints, flags, progress, model cards). Evaluation is :mod:`gin_eval`, the
command line :mod:`gin_cli`."""

import re
import sys
import textwrap

__all__ = ["prog_name", "cli_description"]

# Sphinx roles (:mod:`x`, :func:`~a.b.c`): the name, or with ~ its last part.
_ROLE = re.compile(r":[a-z]+:`(~?)([^`]+)`")


def prog_name(default: str) -> str:
    """The command name for usage lines: ``gin-rummy eval`` / ``gin-rummy train`` when the
    ``gin-rummy`` front door forwarded the call (it sets ``sys.argv[0]``), else ``default``."""
    return sys.argv[0] if sys.argv[0].startswith("gin-rummy ") else default


def cli_description(doc: str | None) -> str:
    """A module docstring's first paragraph for ``--help``: whole sentences (never its first
    line cut mid-sentence) and plain words (no ``code`` marks or Sphinx roles)."""
    first = (doc or "").strip().split("\n\n")[0]
    text = _ROLE.sub(lambda m: m[2].rsplit(".", 1)[-1] if m[1] else m[2], " ".join(first.split()))
    return textwrap.fill(text.replace("``", ""), 79)
