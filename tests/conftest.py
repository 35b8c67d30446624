"""Shared pytest setup: ``gin_env`` importable from a plain checkout, and ``tests/helpers.py``
importable as ``helpers``."""

from __future__ import annotations

import sys
from pathlib import Path

TESTS_DIR = Path(__file__).resolve().parent
REPO_ROOT = TESTS_DIR.parent
for path in (str(REPO_ROOT), str(TESTS_DIR)):
    if path not in sys.path:
        sys.path.insert(0, path)
