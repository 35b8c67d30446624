"""The table in a browser: ``gin-rummy serve`` (extra ``web``).

A local web app where people play the project's games (three-handed gin, two-player gin,
basic rummy) against agents or each other, team up with an agent adviser, watch agents
play, and step through saved matches. :mod:`gin_web.tables` holds a table (an env of the
project, its table in play and its seats) and what each seat may see; :mod:`gin_web.store`
records finished matches and people's decisions in SQLite; :mod:`gin_web.app` is the ASGI
app (Starlette), put together from :mod:`gin_web.routes` (HTTP), :mod:`gin_web.server` (the
tables at play), :mod:`gin_web.sockets` (the WebSocket protocol), :mod:`gin_web.scheduler`
(the agents' moves), :mod:`gin_web.limits` and :mod:`gin_web.replay_pool`;
``gin_web/static`` is the page (plain JavaScript, SVG cards).
"""
