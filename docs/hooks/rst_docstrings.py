"""Griffe extension: the project's reStructuredText docstrings as the Markdown mkdocstrings renders.

The docstrings are written for ``help()`` and the doctests: RST section underlines, simple
tables (``====  ====`` borders), ``literal`` text, ``::`` literal blocks, ``>>>`` examples
and Sphinx roles (``:func:`views```). The API pages render Markdown, so each docstring is
rewritten once, after its package is loaded:

- a title over a line of ``-``, ``~`` or ``=`` becomes a Markdown heading (one level per
  underline character, in the order the docstring uses them);
- a simple table becomes a pipe table (rows continued on lines whose first column is blank
  are joined); a table without a header row (an info table) becomes an HTML table, as
  Markdown would give it an empty header row;
- ``x`` becomes `x`; a role becomes the object's name in code, linked to its API entry when
  the site has one (an optional cross-reference: an object that is not documented stays
  plain code, with no warning);
- ``::`` blocks and ``>>>`` examples become fenced code;
- "docs/RULES.md" (and "docs/RULES.md section 3") links the rules page (and its section);
- in a heading, roles and citations stay plain text (the table of contents shows a
  heading's text, where a link's HTML showed as a placeholder).

Only the text is changed, never the source. The converter needs only the standard library
(``tests/test_docs_hooks.py`` runs it without the docs extra); griffe is imported when
mkdocstrings asks for the extension, :class:`RstDocstrings`.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

UNDERLINE = re.compile(r"([-=~^\"'`#*+])\1{2,}\s*")
TABLE_BORDER = re.compile(r"\s*=+(?: +=+)+\s*")
ROLE = re.compile(r":(?:mod|func|class|meth|data|attr|exc|obj|const):`(~?)([^`]+)`")
LITERAL = re.compile(r"``(.+?)``", re.S)
HTML_CELL_TOKEN = re.compile(r"(<autoref [^>]*>.*?</autoref>)|`([^`]+)`", re.S)
LIST_ITEM = re.compile(r"\s*(?:[-*+]|\d+\.)\s")
TOP_PACKAGES = ("gin_env", "agents", "training", "benchmarks")
RULES_PAGE = Path(__file__).resolve().parents[1] / "RULES.md"
RULES_CITED = re.compile(r"(?<![`/\w>])docs/RULES\.md(?: sections? (\d+)\b)?(?!`)")


def convert(text: str, resolve: Any = None) -> str:
    """The docstring ``text`` in Markdown; ``resolve(name)`` gives a role's full path."""
    lines = text.splitlines()
    out: list[str] = []
    underlines: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if TABLE_BORDER.fullmatch(line):
            i = _table(lines, i, out, resolve)
            continue
        if line.strip() and not line.startswith(" ") and UNDERLINE.fullmatch(nxt):
            char = nxt.strip()[0]
            if char not in underlines:
                underlines.append(char)
            level = underlines.index(char) + 1
            out += ["", "#" * level + " " + line.strip(), ""]
            i += 2
            continue
        if line.lstrip().startswith(">>>"):
            indent = len(line) - len(line.lstrip())
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i][indent:])
                i += 1
            out += ["", "```pycon", *block, "```", ""]
            continue
        if line.rstrip().endswith("::") and not line.strip().startswith(".."):
            stripped = line.rstrip()[:-2]
            out.append(stripped if stripped.endswith(" ") else stripped + ":")
            i += 1
            while i < len(lines) and not lines[i].strip():
                i += 1
            block = []
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith(" ")):
                block.append(lines[i])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            indent = min(len(b) - len(b.lstrip()) for b in block if b.strip()) if block else 0
            out += ["", "```text", *(b[indent:] for b in block), "```", ""]
            continue
        if LIST_ITEM.match(line) and out and out[-1].strip() and not LIST_ITEM.match(out[-1]):
            if not out[-1].startswith(" "):  # Markdown needs a blank line before a list
                out.append("")
        out.append(line)
        i += 1
    # inline markup last, over whole paragraphs (a ``literal`` may run over a line break)
    parts = re.split(r"(^```[a-z]*\n.*?^```$)", "\n".join(out), flags=re.M | re.S)
    text = "".join(p if p.startswith("```") else _inline(p, resolve) for p in parts)
    return text.strip("\n")


def _inline(text: str, resolve: Any) -> str:
    def role(match: re.Match[str]) -> str:
        name = " ".join(match.group(2).split())
        shown = name.rsplit(".", 1)[-1] if match.group(1) else name
        target = resolve(name) if resolve else name
        code = f"<code>{html.escape(shown)}</code>"
        return f'<autoref identifier="{html.escape(target)}" optional>{code}</autoref>'

    def rules(match: re.Match[str]) -> str:
        anchors = _rules_anchors()
        section = match.group(1)
        anchor = anchors.get(section or "", anchors[""])
        return f'<autoref identifier="{anchor}">{match.group(0)}</autoref>'

    # A heading stays plain Markdown: the table of contents repeats a heading's text, and
    # an HTML tag in it (a link) showed there as a placeholder ("wzxhzdk:3").
    def in_heading(match: re.Match[str]) -> bool:
        return match.string.startswith("#", match.string.rfind("\n", 0, match.start()) + 1)

    def role_or_code(match: re.Match[str]) -> str:
        if not in_heading(match):
            return role(match)
        name = " ".join(match.group(2).split())
        return "`" + (name.rsplit(".", 1)[-1] if match.group(1) else name) + "`"

    text = ROLE.sub(role_or_code, text)
    text = LITERAL.sub(lambda m: "`" + m.group(1) + "`", text)
    return RULES_CITED.sub(lambda m: m.group(0) if in_heading(m) else rules(m), text)


def _rules_anchors() -> dict[str, str]:
    """The rules page's heading anchors: "" for its title, "3" for section 3."""
    anchors: dict[str, str] = {}
    for line in RULES_PAGE.read_text().splitlines():
        if match := re.match(r"(#{1,2}) (.*)", line):
            slug = re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", match.group(2)).strip().lower())
            number = re.match(r"(\d+)\.", match.group(2))
            anchors.setdefault(number.group(1) if number else "", slug)
    return anchors


def _table(lines: list[str], i: int, out: list[str], resolve: Any) -> int:
    """Convert the simple table whose top border is ``lines[i]``; return the next index."""
    border = lines[i]
    starts = [m.start() for m in re.finditer(r"=+", border)]
    rows: list[list[str]] = []
    header: list[str] | None = None
    i += 1
    while i < len(lines):
        line = lines[i]
        if TABLE_BORDER.fullmatch(line):
            if header is None and rows and not _ends_table(lines, i):
                # a border under the first rows closes the header, unless it ends the table
                header = [" ".join(c) for c in zip(*rows, strict=True)]
                rows = []
                i += 1
                continue
            i += 1
            break
        if not line.strip():
            i += 1
            continue
        cells = _cells(line, starts)
        if rows and not cells[0].strip():
            rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells, strict=True)]
        else:
            rows.append(cells)
        i += 1
    width = len(starts)
    out.append("")
    if header is None:
        # A Markdown table needs a header row; one without (a page's info table) would show
        # an empty bar on top, so it is written in HTML.
        out.append("<table>")
        for row in rows:
            out.append(
                "<tr>" + "".join(f"<td>{_html_cell(c, resolve)}</td>" for c in row) + "</tr>"
            )
        out.append("</table>")
        out.append("")
        return i
    out.append("| " + " | ".join(_cell(c, resolve) for c in header) + " |")
    out.append("|" + "---|" * width)
    for row in rows:
        out.append("| " + " | ".join(_cell(c, resolve) for c in row) + " |")
    out.append("")
    return i


def _ends_table(lines: list[str], i: int) -> bool:
    """Whether the border at ``lines[i]`` is the table's last (no border follows it)."""
    for line in lines[i + 1 :]:
        if not line.strip():
            return True
        if TABLE_BORDER.fullmatch(line):
            return False
    return True


def _cells(line: str, starts: list[int]) -> list[str]:
    bounds = []
    for b in starts[1:]:
        # a cell that runs past its column's border pushes the boundary to the next space
        while 0 < b < len(line) and line[b - 1] != " ":
            b += 1
        bounds.append(b)
    cells, prev = [], starts[0]
    for b in bounds:
        cells.append(line[prev:b].strip())
        prev = b
    cells.append(line[prev:].strip())
    return cells


def _cell(text: str, resolve: Any) -> str:
    return _inline(text, resolve).replace("|", "\\|")


def _html_cell(text: str, resolve: Any) -> str:
    """A cell as HTML: code spans as ``<code>``, references kept, the rest escaped."""
    md = _inline(text, resolve)
    out, pos = [], 0
    for m in HTML_CELL_TOKEN.finditer(md):
        out.append(html.escape(md[pos : m.start()], quote=False))
        code = m.group(2)
        out.append(m.group(1) or f"<code>{html.escape(code, quote=False)}</code>")
        pos = m.end()
    out.append(html.escape(md[pos:], quote=False))
    return "".join(out)


def __getattr__(name: str) -> Any:
    # The extension class is built on first use, so that the converter imports without griffe.
    if name != "RstDocstrings":
        raise AttributeError(name)
    import griffe  # the docs extra

    class RstDocstrings(griffe.Extension):  # type: ignore[misc]
        """Rewrite every docstring of a loaded package as Markdown (see the module docstring)."""

        def on_package(self, *, pkg: Any, **kwargs: Any) -> None:
            for obj in _walk(pkg):
                if obj.docstring is not None:
                    obj.docstring.value = convert(obj.docstring.value, _resolver(obj))

    globals()["RstDocstrings"] = RstDocstrings
    return RstDocstrings


def _walk(obj: Any) -> Any:
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _walk(member)


def _resolver(obj: Any) -> Any:
    """``resolve(name)``: the full path of a name a role in ``obj``'s docstring gives."""

    def resolve(name: str) -> str:
        name = name.lstrip(".")
        if name.split(".")[0] in TOP_PACKAGES:
            return name
        scope: Any = obj if obj.is_module or obj.is_class else obj.parent
        first = name.split(".")[0]
        while scope is not None:
            if first in scope.members:
                member = scope.members[first]
                if member.is_alias:
                    return member.target_path + name[len(first) :]
                return f"{scope.path}.{name}"
            scope = scope.parent
        return name

    return resolve
