"""Sizes, roles and phases are imported from where they are defined, never retyped: a
literal 436 or "captain" in code is a copy that would drift when the layout changes."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FILES = [
    "agents/base.py",
    "agents/trained.py",
    "agents/rllib_agent.py",
    "gin_env/games.py",
    "agents/single_agent.py",
    "gin_cli/main.py",
    "gin_cli/evaluate.py",
    "training/league.py",
    "gin_env/record.py",
    "training/rllib_env.py",
    "gin_eval/rollout.py",
]
SIZES = {436, 109, 640, 53}  # observation, actions, rummy's 2-player observation, features
NAMES = {"box", "captain", "adviser", "dealer", "non-dealer"}


def _code_constants(tree: ast.AST) -> list[ast.Constant]:
    """Constants in code: docstrings are left out (they may quote the sizes)."""
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    # Field names that happen to be a role's name are not roles: the "adviser" option of
    # three_handed_gin_v0 (getattr) or the "adviser" column of evaluate's CSV (a dict key).
    fields = {id(k) for n in ast.walk(tree) if isinstance(n, ast.Dict) for k in n.keys}
    fields |= {
        id(n.args[1])
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and n.func.id in ("getattr", "hasattr")
        and len(n.args) > 1
    }
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and id(n) not in docs and id(n) not in fields
    ]


@pytest.mark.parametrize("path", FILES)
def test_no_retyped_sizes_roles_or_phases(path: str) -> None:
    tree = ast.parse((ROOT / path).read_text())
    found = [
        f"line {c.lineno}: {c.value!r}"
        for c in _code_constants(tree)
        if (type(c.value) is int and c.value in SIZES) or c.value in NAMES
    ]
    assert not found, f"{path}: {found}"


def test_the_agents_constants_are_the_envs() -> None:
    from agents import base, trained
    from gin_env.actions import NUM_ACTIONS
    from gin_env.encoding import OBS_SIZE
    from gin_env.hand import Phase
    from gin_env.match import ADVISER, BOX, CAPTAIN

    assert (base.ROLE_BOX, base.ROLE_CAPTAIN, base.ROLE_ADVISER) == (BOX, CAPTAIN, ADVISER)
    assert base.PHASE_DISCARD == Phase.DISCARD and base.PHASE_OVER == Phase.OVER
    assert trained.INPUT_KINDS[OBS_SIZE + NUM_ACTIONS] == "obs+mask"
