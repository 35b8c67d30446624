"""Where the team-versus-solo results are: the stems the studies write, and finding a
result in a folder or under it (``results/<study>/``)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["DUPLICATE_STEMS", "find_result"]

#: The stems ``python -m studies.team_vs_solo duplicate`` writes (by ``--unit``, with and
#: without ``--adjust``).
DUPLICATE_STEMS = (
    "team_duplicate",
    "team_duplicate_hands",
    "team_duplicate_deal",
    "team_duplicate_hands_deal",
    "team_duplicate_draws",
    "team_duplicate_hands_draws",
    "team_duplicate_value",
    "team_duplicate_hands_value",
)


def find_result(out: Path, stem: str) -> Path | None:
    """``<stem>.json`` in ``out`` or in a folder under it (``results/<study>/``)."""
    direct = out / f"{stem}.json"
    if direct.exists():
        return direct
    return next(iter(sorted(out.rglob(f"{stem}.json"))), None)
