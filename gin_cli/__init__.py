"""``gin-rummy``: the command line (:mod:`gin_cli.main`), its terminal table
(:mod:`gin_cli.terminal`), ``gin-rummy eval`` (:mod:`gin_cli.evaluate`) and ``gin-rummy bench
env`` (:mod:`gin_cli.speed`). A front end: it renders the core's view of a table and sends
moves; trainers are reached by name."""
