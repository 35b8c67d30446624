"""The docstrings' reStructuredText as the documentation site renders it (docs/hooks).

``make docs`` (strict) checks links and references; these check what it cannot: that each
construct the docstrings use comes out as the Markdown it means, and that no docstring of
the documented packages uses one the converter leaves as raw RST.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location(
    "rst_docstrings", ROOT / "docs" / "hooks" / "rst_docstrings.py"
)
assert _spec and _spec.loader
rst = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rst)


def test_section_underlines_become_headings_by_order_of_use() -> None:
    text = "Intro.\n\nActions\n-------\nA.\n\nDetail\n~~~~~~\nB.\n\nRewards\n-------\nC."
    md = rst.convert(text)
    assert "# Actions" in md.splitlines() and "## Detail" in md.splitlines()
    assert "# Rewards" in md.splitlines()
    assert "-------" not in md and "~~~~~~" not in md


def test_a_simple_table_with_a_header_and_continued_rows() -> None:
    text = (
        "======  =====  ==============\n"
        "part    size   meaning\n"
        "======  =====  ==============\n"
        "hand    52     own cards\n"
        "pile    52     every card in\n"
        "               the pile | all\n"
        "======  =====  ==============\n"
    )
    lines = rst.convert(text).splitlines()
    assert lines[0] == "| part | size | meaning |"
    assert lines[1] == "|---|---|---|"
    assert lines[2] == "| hand | 52 | own cards |"
    assert lines[3] == "| pile | 52 | every card in the pile \\| all |"
    assert len(lines) == 4


def test_a_table_without_a_header_has_no_empty_header_row() -> None:
    text = "======  ====\nImport  ``x``\nAgents  two\n======  ====\n\nAfter."
    lines = rst.convert(text).splitlines()
    assert lines[:4] == [
        "<table>",
        "<tr><td>Import</td><td><code>x</code></td></tr>",
        "<tr><td>Agents</td><td>two</td></tr>",
        "</table>",
    ]
    assert lines[-1] == "After." and "|---|" not in lines


def test_a_heading_keeps_plain_text_for_the_table_of_contents() -> None:
    text = (
        "The game (docs/RULES.md section 3, :mod:`gin_env.match`)\n----------\n\nSee docs/RULES.md."
    )
    md = rst.convert(text, resolve=lambda name: name)
    heading, body = md.splitlines()[0], md.splitlines()[-1]
    assert heading == "# The game (docs/RULES.md section 3, `gin_env.match`)"
    assert "<autoref" in body  # the citation in the text still links the page


def test_a_cell_that_runs_past_its_column_stays_whole() -> None:
    text = '======  ====\n``"individual"`` the scorer\n``x``   y\n======  ====\n'
    lines = rst.convert(text).splitlines()
    assert lines[1] == '<tr><td><code>"individual"</code></td><td>the scorer</td></tr>'


def test_roles_become_optional_references_resolved_in_scope() -> None:
    md = rst.convert(
        "See :func:`views` and :mod:`gin_env.cards`, :class:`~agents.simple.SimpleAgent`.",
        resolve=lambda name: "gin_env.encoding." + name if "." not in name else name,
    )
    assert '<autoref identifier="gin_env.encoding.views" optional><code>views</code>' in md
    assert '<autoref identifier="gin_env.cards" optional><code>gin_env.cards</code>' in md
    assert "<code>SimpleAgent</code>" in md and ":class:" not in md


def test_the_rules_document_cited_links_its_page_or_section() -> None:
    md = rst.convert("In docs/RULES.md section 3; see docs/RULES.md, not ``docs/RULES.md``.")
    assert '<autoref identifier="3-three-handed-gin-the-main-game">docs/RULES.md section 3<' in md
    assert '<autoref identifier="rules-the-project-implements">docs/RULES.md</autoref>' in md
    assert md.endswith("not `docs/RULES.md`.")  # code stays code


def test_literal_blocks_and_examples_become_fenced_code() -> None:
    text = "Run it::\n\n    gin-rummy play\n    gin-rummy match\n\nThen:\n\n>>> 1 + 1\n2\n\nEnd."
    lines = rst.convert(text).splitlines()
    assert lines[0] == "Run it:"
    i = lines.index("```text")
    assert lines[i + 1 : i + 4] == ["gin-rummy play", "gin-rummy match", "```"]
    j = lines.index("```pycon")
    assert lines[j + 1 : j + 4] == [">>> 1 + 1", "2", "```"]
    assert lines[-1] == "End."


def test_a_list_after_a_paragraph_gets_the_blank_line_markdown_needs() -> None:
    lines = rst.convert("Two backends:\n- python\n- numba").splitlines()
    assert lines == ["Two backends:", "", "- python", "- numba"]


DOCUMENTED = sorted(
    p
    for folder in ("gin_env", "agents", "gin_eval", "gin_cli")
    for p in (ROOT / folder).glob("*.py")
) + [ROOT / "training" / f"{name}.py" for name in ("train_ppo", "train_dmc")]


@pytest.mark.parametrize("path", DOCUMENTED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_documented_docstring_keeps_raw_rst(path: Path) -> None:
    tree = ast.parse(path.read_text())
    nodes = [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.ClassDef))]
    for node in nodes:
        doc = ast.get_docstring(node)
        if not doc:
            continue
        md = re.sub(r"```.*?```", "", rst.convert(doc), flags=re.S)  # code shows as written
        left = [p for p in ("``", ":func:`", ":class:`", ":mod:`", ":data:`", "=====") if p in md]
        assert not left, (getattr(node, "name", path.name), left)
