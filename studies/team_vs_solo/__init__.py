"""Team versus solo, measured: the value of advice, its ablations, the blind adviser, the
balance between the box and the captain's team, teams that learned to use advice, and the
duplicate designs that make those comparisons tight.

Run from a clone: ``python -m studies.team_vs_solo {duplicate,advice,ablations,hidden,
balance,learned,fit-value,plot,report} ...``. Each study is a function that returns a
JSON-ready dict; the command line writes ``<out>/team_*.json/csv/png`` (``--out``, default
``runs/team_vs_solo``; the committed figures are in ``results/team_*/``).

- ``duplicate``: :func:`~gin_eval.duplicate.duplicate_vs_plain` (the
  duplicate design against plain deals at one size, with ``--adjust deal|draws|value``
  the luck corrections of :mod:`gin_eval.luck`; writes ``team_duplicate*``,
  the stem ending in the ``--adjust`` value).
- :func:`advice_matrix` (``advice``, ``ablations``, ``hidden``): single hands
  (``episode="hand"``) where the roles are filled by policy: a fixed box, a captain and an
  adviser. Every cell plays the same deals (the deal and the role draw depend on the seed
  and the deal's index alone), so differences between cells are paired by deal. Per cell:
  the team's points per hand against the box, how often the captain plays the suggestion
  (for a captain that never reads it, this is only agreement), and the team's points in
  hands where the captain followed every suggestion versus hands where it overrode at
  least one. Advisers are agent specs or one of the ablations of the advice channel
  (:data:`agents.ablations.ADVICE_ABLATIONS`); ``hidden``: advisers that do not see the
  captain's hand.
- :func:`balance`: L2 in every seat, matches under rule options; the share of hands and of
  matches the box wins.
- :func:`learned_advice` (``learned``): trained captains with and without advice, and the
  cross-play of jointly trained teams.
- ``fit-value``: the learned value of ``--adjust value``
  (:func:`~studies.team_vs_solo.value_fit.fit_value_on_pilot`).

Agents are registered names / specs (``agents.make``) or agent objects, so trained
captains and advisers plug in. Modules: :mod:`~studies.team_vs_solo.advice`,
:mod:`~studies.team_vs_solo.balance`, :mod:`~studies.team_vs_solo.figures`,
:mod:`~studies.team_vs_solo.report`, :mod:`~studies.team_vs_solo.value_fit`,
:mod:`~studies.team_vs_solo.cli`.
"""

from studies.team_vs_solo.advice import advice_matrix, learned_advice, suggestion_agreement
from studies.team_vs_solo.balance import BALANCE_OPTIONS, balance
from studies.team_vs_solo.cli import ABLATIONS, ADVISERS, CAPTAINS, DEFAULT_OUT, main
from studies.team_vs_solo.figures import (
    plot_advice,
    plot_balance,
    plot_follow,
    plot_learned,
    replot,
)
from studies.team_vs_solo.report import report

__all__ = [
    "advice_matrix",
    "suggestion_agreement",
    "learned_advice",
    "balance",
    "BALANCE_OPTIONS",
    "plot_advice",
    "plot_follow",
    "plot_balance",
    "plot_learned",
    "replot",
    "report",
    "main",
    "DEFAULT_OUT",
    "CAPTAINS",
    "ADVISERS",
    "ABLATIONS",
]
