"""The research studies behind the committed figures in ``results/``: not installed, run from
a clone as ``python -m studies.<name>``. Each writes to ``runs/<name>/`` unless told
``--out``; the committed figures of a study are in ``results/<study>/`` with the command
that made them.

- :mod:`studies.team_vs_solo`: the value of advice, its ablations, the blind adviser, the
  box/team balance, learned teams and the duplicate designs;
- :mod:`studies.take_study`: where L2's points are (the take decision, the danger of a
  discard);
- :mod:`studies.encodings`: observation encodings and critics for PPO;
- :mod:`studies.dmc_rollouts`: a DMC player fitted on rolled-out targets of L2's moves.

The library (``gin_env``, ``agents``, ``training``) never imports a study.
"""
