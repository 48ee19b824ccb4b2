"""Fixtures for the real-editor tests: a fresh copy of the fixture workspace per test and the
easel-ls executable the editors should start."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from e2e_tools import copy_fixture_workspace


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    """A private copy of the fixture workspace: the tests edit files in it. The real scripts
    (the shared modules and the card renderer) come from the repo, not a committed copy."""
    return copy_fixture_workspace(tmp_path / "ws")


@pytest.fixture()
def easel_ls_bin() -> Path:
    """The directory holding the `easel-ls` console script of the interpreter running pytest."""
    bin_dir = Path(sys.executable).parent
    if not (bin_dir / "easel-ls").exists():
        pytest.fail(f"no easel-ls next to {sys.executable}: install the project (pip install -e .)")
    return bin_dir
