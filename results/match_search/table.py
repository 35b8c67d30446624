"""Prints the runs of ``studies.match_search`` in a folder as a Markdown table.

    python results/match_search/table.py runs/match_search/sel
"""

import json
import sys
from pathlib import Path


def fmt(x: dict) -> str:
    m, (lo, hi) = x["games_won"], x["ci95"]
    return f"{100 * m:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"


def gain(x: dict) -> str:
    m, (lo, hi) = x["games_won"], x["ci95"]
    return f"{100 * m:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]"


print("| table | vs | value | decisions | worlds | margin | his hand | pairs | search | base | gain (points of share) | overruled | core-s/game |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for path in sorted(Path(sys.argv[1]).glob("*.json"), key=lambda p: p.stat().st_mtime):
    r = json.loads(path.read_text())
    a = r["args"]
    hand = f"least dw of {a.get('opp_samples', 1)}" if a.get("opp_samples", 1) > 1 else "random"
    if a.get("filter"):
        hand += f", filter {a['filter']}"
    print(
        f"| {a['table']} | {a['opponent']} | {a['value']} | {a['decisions']} | {a['worlds']} | {a['margin']} "
        f"| {hand} | {a['pairs']} | {fmt(r['search_vs_opponent'])} | {fmt(r['base_vs_opponent'])} "
        f"| {gain(r['search_minus_base'])} | {100 * r['overruled_share']:.1f}% | {r['core_s_per_game']:.3f} |"
    )
