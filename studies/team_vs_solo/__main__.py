"""``python -m studies.team_vs_solo``: the command line (:mod:`studies.team_vs_solo.cli`)."""

from studies.team_vs_solo.cli import main

main()
