"""The project's imports tell the truth: walked with ``ast`` over gin_env, agents, gin_eval,
training, the front ends (gin_cli, gin_web), studies and benchmarks, they hold no circle, no
import of another module's ``_private`` name, no upward import (layers: gin_env -> agents ->
gin_eval -> training -> gin_cli / gin_web -> studies / benchmarks), nothing of training in
the web app,
no import of a trainer or a study from the library, and no function-local import but of
an optional extra, named in a comment (``# train extra: torch``)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = (
    "gin_env", "agents", "gin_eval", "training", "gin_cli", "gin_web", "studies", "benchmarks"
)  # fmt: skip
#: Import direction: a module may import its own layer and the layers below.
LAYER = {
    "gin_env": 0,
    "agents": 1,
    "gin_eval": 2,
    "training": 3,
    "gin_cli": 4,
    "gin_web": 4,
    "studies": 5,
    "benchmarks": 5,
}
LIBRARY = ("gin_env", "agents", "gin_eval", "training")
#: The trainers: leaves of the import graph (the command line runs them by name).
TRAINERS = ("training.train_ppo", "training.train_dmc", "training.rllib_train", "training.tune")
#: Documented upward imports: none (the web app adds `gin-rummy serve` through an entry
#: point, and the Gymnasium envs that seat agents live in agents).
UPWARD_EXCEPTIONS: set[tuple[str, str]] = set()
_PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
EXTRAS = tuple(_PYPROJECT["project"]["optional-dependencies"])
EXTRA_COMMENT = re.compile(r"#.*\b(" + "|".join(map(re.escape, EXTRAS)) + r") extra\b")
#: Violations that work on other branches removes, by (file, rule), each with the reason;
#: an entry that no longer matches a violation fails the test, so the list only shrinks.
PENDING: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Import:
    module: str  # the importing module
    path: str  # its file, relative to the repo
    line: int
    target: str  # the module imported (a project module)
    names: tuple[str, ...]  # the names taken from it (``from x import a, b``)
    local: bool  # inside a function
    documented: bool  # a comment names an extra (an import by name counts as documented:
    # it is lazy by design, and still held to the other rules)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _project_files() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


MODULES = {_module_name(p): p for p in _project_files()}


def _resolve(base: str, name: str) -> str:
    """``base.name`` if that is a project module (``from base import name``), else base."""
    full = f"{base}.{name}" if base else name
    return full if full in MODULES else base


def _imports(path: Path) -> list[Import]:
    source = path.read_text()
    lines = source.splitlines()
    tree = ast.parse(source)
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: list[Import] = []

    def documented(node: ast.stmt) -> bool:
        near = lines[node.lineno - 1 : (node.end_lineno or node.lineno)]
        if node.lineno >= 2:
            near.append(lines[node.lineno - 2])
        return any(EXTRA_COMMENT.search(x) for x in near)

    def visit(node: ast.AST, local: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = local or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.Import):
                for alias in child.names:
                    top = alias.name.split(".")[0]
                    if top in PACKAGES:
                        target = alias.name if alias.name in MODULES else top
                        out.append(Import(module, str(path.relative_to(ROOT)), child.lineno,
                                          target, (), local, documented(child)))  # fmt: skip
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - child.level + 1])
                    base = f"{base}.{child.module}" if child.module else base
                else:
                    base = child.module or ""
                if base.split(".")[0] not in PACKAGES:
                    if local and not documented(child) and not _stdlib_typing(child):
                        out.append(Import(module, str(path.relative_to(ROOT)), child.lineno,
                                          "", (), True, False))  # fmt: skip
                    continue
                names = tuple(a.name for a in child.names)
                targets = {_resolve(base, n) for n in names}
                for target in sorted(targets):
                    taken = tuple(n for n in names if _resolve(base, n) == target)
                    out.append(Import(module, str(path.relative_to(ROOT)), child.lineno,
                                      target, taken, local, documented(child)))  # fmt: skip
            if (
                isinstance(child, ast.Call)
                and isinstance(child.func, ast.Attribute)
                and child.func.attr == "import_module"
                and child.args
                and isinstance(child.args[0], ast.Constant)
                and isinstance(child.args[0].value, str)
                and child.args[0].value.split(".")[0] in PACKAGES
            ):  # importlib.import_module("agents"): an import by name is an import too
                name = child.args[0].value
                target = name if name in MODULES else name.split(".")[0]
                out.append(Import(module, str(path.relative_to(ROOT)), child.lineno, target,
                                  (), local, True))  # fmt: skip
            visit(child, inner)
            if isinstance(child, ast.Import) and local and not documented(child):
                if not any(a.name.split(".")[0] in PACKAGES for a in child.names):
                    out.append(Import(module, str(path.relative_to(ROOT)), child.lineno,
                                      "", (), True, False))  # fmt: skip

    visit(tree, False)
    return out


def _stdlib_typing(node: ast.ImportFrom) -> bool:
    return node.module == "__future__"


IMPORTS = [imp for p in MODULES.values() for imp in _imports(p)]


def _where(imp: Import) -> str:
    return f"{imp.path}:{imp.line}"


def _check(found: list[tuple[str, str]], kind: str) -> None:
    """Fail with every violation (``(file:line, what)``) of the rule ``kind`` not in
    :data:`PENDING`, or with every PENDING entry of that rule that matches none."""
    files = {where.split(":")[0] for where, _ in found}
    new = [f"{where}: {what}" for where, what in found
           if (where.split(":")[0], kind) not in PENDING]  # fmt: skip
    stale = [f"{f}: {reason}" for (f, k), reason in PENDING.items() if k == kind and f not in files]
    assert not new, f"import rule broken ({kind}):\n" + "\n".join(new)
    assert not stale, "PENDING entries that match nothing any more (remove them):\n" + "\n".join(
        stale
    )


def test_the_walk_sees_the_project() -> None:
    # The walk finds the layers and their imports (a walk that saw nothing passes nothing).
    expected = {"gin_env.games", "agents.heuristic", "gin_cli.main", "studies.team_vs_solo"}
    assert expected <= set(MODULES)
    assert any(i.module == "gin_cli.evaluate" and i.target.startswith("gin_eval")
               for i in IMPORTS)  # fmt: skip
    assert any(i.local and i.documented for i in IMPORTS)
    # Imports by name count: the registry's lazy import of basic rummy's agent.
    assert any(i.module == "agents" and i.target == "agents.rummy_simple" for i in IMPORTS)


def test_no_import_circle() -> None:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for imp in IMPORTS:
        if imp.target and imp.target != imp.module:
            graph[imp.module].add(imp.target)
    # Tarjan's strongly connected components: a component of two or more is a circle.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    circles: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    found = []
    for comp in circles:
        for imp in IMPORTS:
            if imp.module in comp and imp.target in comp and imp.target != imp.module:
                found.append((_where(imp), f"import circle {' <-> '.join(comp)}"))
    _check(found, "circle")


def test_no_private_name_from_another_module() -> None:
    found = [
        (_where(imp), f"imports private {n} from {imp.target}")
        for imp in IMPORTS
        for n in imp.names
        if n.startswith("_") and not n.startswith("__") and imp.target != imp.module
    ]
    _check(found, "private name")


def test_imports_point_down_and_nothing_imports_a_trainer_or_a_study() -> None:
    found = []
    for imp in IMPORTS:
        if not imp.target:
            continue
        src, dst = imp.module.split(".")[0], imp.target.split(".")[0]
        if LAYER[dst] > LAYER[src] and (imp.module, dst) not in UPWARD_EXCEPTIONS:
            found.append((_where(imp), f"upward import of {imp.target} from {src}"))
        if src in LIBRARY and imp.target in TRAINERS and imp.target != imp.module:
            found.append((_where(imp), f"library imports the trainer {imp.target}"))
        if src in LIBRARY and dst == "studies":
            found.append((_where(imp), f"library imports the study {imp.target}"))
    _check(found, "direction")


def test_the_web_app_imports_nothing_of_training() -> None:
    # The web app renders the core's view and seats agents; trainers and their parts are not
    # its business (the match record lives in gin_env, evaluation in gin_eval).
    found = [
        (_where(imp), f"the web app imports {imp.target}")
        for imp in IMPORTS
        if imp.module.split(".")[0] == "gin_web" and imp.target.split(".")[0] == "training"
    ]
    _check(found, "web imports training")


def test_function_local_imports_are_optional_extras_named_in_a_comment() -> None:
    allowed = ", ".join(EXTRAS)
    found = [
        (_where(imp), f"function-local import without a comment naming its extra ({allowed})")
        for imp in IMPORTS
        if imp.local and not imp.documented
    ]
    _check(found, "function-local import")


@pytest.mark.parametrize("text", ["import torch  # train extra: torch", "# eval extra"])
def test_an_extra_comment_names_a_real_extra(text: str) -> None:
    assert EXTRA_COMMENT.search(text)
    assert not EXTRA_COMMENT.search(text.replace("train", "trian").replace("eval", "evil"))
