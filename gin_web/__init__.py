"""The table in a browser: ``gin-rummy serve`` (extra ``web``).

A local web app where people play the project's games (three-handed gin, two-player gin,
basic rummy) against agents or each other, team up with an agent adviser, watch agents
play, and step through saved matches. :mod:`gin_web.tables` holds a table (an env of the
project and its seats) and what each seat may see; :mod:`gin_web.store` records finished
matches and people's decisions in SQLite; :mod:`gin_web.app` is the ASGI app (Starlette)
with its WebSocket protocol; ``gin_web/static`` is the page (plain JavaScript, SVG cards).
"""
