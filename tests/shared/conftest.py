"""Make the shared Easel modules and this folder's helpers importable in any import mode."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SCRIPTS_DIR = HERE.parents[1] / "skills" / "shared" / "scripts"
for folder in (SCRIPTS_DIR, HERE):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))


@pytest.fixture
def outputs_root(tmp_path: Path) -> Path:
    """An empty ``outputs`` folder inside a scratch workspace."""
    root = tmp_path / "outputs"
    root.mkdir()
    return root
