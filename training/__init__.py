"""Training, evaluation and tournaments over the gin envs: the trainers, the evaluation
package (:mod:`training.evaluation`) and the command line (:mod:`training.cli`)."""

import sys


def prog_name(default: str) -> str:
    """The command name for usage lines: ``gin-rummy eval`` / ``gin-rummy train`` when the
    ``gin-rummy`` front door forwarded the call (it sets ``sys.argv[0]``), else ``default``."""
    return sys.argv[0] if sys.argv[0].startswith("gin-rummy ") else default
