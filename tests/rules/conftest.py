"""Small on-disk workspaces for rule tests, and a helper that checks one file of them.

A workspace is built in ``tmp_path`` from a dict of relative path -> text (``bytes`` are written
as they are, for unreadable-file tests). Config discovery stops at the workspace root, so a
config file above ``tmp_path`` can never leak into a test.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from easel_ls.config import ConfigResolver
from easel_ls.engine import check_path
from easel_ls.findings import Finding
from easel_ls.workspace import Workspace

Files = Mapping[str, "str | bytes"]
BuildWorkspace = Callable[[Files], Workspace]
CheckFile = Callable[[Workspace, str], "list[Finding]"]


def write_files(root: Path, files: Files) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", newline="")


def workspace_at(root: Path) -> Workspace:
    resolved = root.resolve()
    return Workspace(root=resolved, config=ConfigResolver(stop_at=resolved))


def check_file(ws: Workspace, relpath: str) -> list[Finding]:
    """Every finding the engine reports for one file of the workspace."""
    return check_path(ws, ws.root / relpath)


@pytest.fixture
def make_workspace(tmp_path: Path) -> BuildWorkspace:
    """Build a workspace in ``tmp_path`` from ``{relative path: text}``; returns it."""

    def build(files: Files) -> Workspace:
        write_files(tmp_path, files)
        return workspace_at(tmp_path)

    return build


@pytest.fixture
def check() -> CheckFile:
    """``check(ws, relpath)``: the findings for one file (a fixture, so tests need no import)."""
    return check_file
