"""The evaluation package: what the command line, the trainers and the studies use to
measure agents.

- :mod:`~gin_eval.checks`: agents by spec, :class:`OptionError` and the checks
  made before any game is played;
- :mod:`~gin_eval.stats`: confidence intervals, ratings, and the statistics
  clustered (and paired) by deal;
- :mod:`~gin_eval.pool`: the one worker pool;
- :mod:`~gin_eval.writer`: the one result writer (JSON with its provenance, CSV);
- :mod:`~gin_eval.plots`: bars with CIs, the learning curve, duplicate figures;
- :mod:`~gin_eval.reports`: text tables and the formatters of markdown reports;
- :mod:`~gin_eval.play`: three-handed matches and single hands with every agent
  in every seat or role (:func:`~gin_eval.play.play_advice_hands`: a captain,
  an adviser and a box);
- :mod:`~gin_eval.duplicate`: duplicate three-handed evaluation;
- :mod:`~gin_eval.luck`: the luck corrections (``--adjust deal|draws|value``);
- :mod:`~gin_eval.hand_value`: the learned value of a hand state behind
  ``--adjust value``.

- :mod:`~gin_eval.gin`: duplicate two-player gin;
- :mod:`~gin_eval.three_handed`: plain three-handed matches in every rotation;
- :mod:`~gin_eval.ladder`: the round-robin ladder (OpenSkill, Elo).

``gin-rummy eval`` is :mod:`gin_cli.evaluate`; evaluation during training is
:mod:`training.periodic_eval`.
"""

from gin_eval.checks import OptionError

__all__ = ["OptionError"]
