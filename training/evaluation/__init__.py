"""The evaluation package: what the command line, the trainers and the studies use to
measure agents.

- :mod:`~training.evaluation.checks`: agents by spec, :class:`OptionError` and the checks
  made before any game is played;
- :mod:`~training.evaluation.stats`: confidence intervals, ratings, and the statistics
  clustered (and paired) by deal;
- :mod:`~training.evaluation.pool`: the one worker pool;
- :mod:`~training.evaluation.writer`: the one result writer (JSON with its provenance, CSV);
- :mod:`~training.evaluation.plots`: bars with CIs, the learning curve, duplicate figures;
- :mod:`~training.evaluation.reports`: text tables and the formatters of markdown reports;
- :mod:`~training.evaluation.play`: three-handed matches and single hands with every agent
  in every seat or role (:func:`~training.evaluation.play.play_advice_hands`: a captain,
  an adviser and a box);
- :mod:`~training.evaluation.duplicate`: duplicate three-handed evaluation;
- :mod:`~training.evaluation.luck`: the luck corrections (``--adjust deal|draws|value``);
- :mod:`~training.evaluation.hand_value`: the learned value of a hand state behind
  ``--adjust value``.

- :mod:`~training.evaluation.gin`: duplicate two-player gin;
- :mod:`~training.evaluation.three_handed`: plain three-handed matches in every rotation;
- :mod:`~training.evaluation.ladder`: the round-robin ladder (OpenSkill, Elo).

``gin-rummy eval`` is :mod:`training.evaluate`; evaluation during training is
:mod:`training.periodic_eval`.
"""

from training.evaluation.checks import OptionError

__all__ = ["OptionError"]
