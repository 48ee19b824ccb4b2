"""Where `.ci/e2e-setup.sh` put the editors and drivers, and how a test skips when one is missing."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

E2E_DIR = Path(__file__).resolve().parent
REPO = E2E_DIR.parent.parent
FIXTURE_WORKSPACE = E2E_DIR / "fixtures" / "ws"
SETUP_HINT = "run `bash .ci/e2e-setup.sh` to install it"


def tools_dir() -> Path:
    """Same default as .ci/e2e-setup.sh."""
    if "EASEL_E2E_TOOLS" in os.environ:
        return Path(os.environ["EASEL_E2E_TOOLS"])
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "easel-ls-e2e"


def setup_notes() -> str:
    """Why the setup script could not install something (empty when all went well)."""
    status = tools_dir() / "status.txt"
    return status.read_text(encoding="utf-8").strip() if status.is_file() else ""


def skip_missing(tool: str) -> None:
    notes = setup_notes()
    reason = f"{tool} is not installed ({SETUP_HINT})" + (f"; setup said: {notes}" if notes else "")
    # Printed as well, so the reason shows in CI logs even without -rs.
    print(f"SKIP: {reason}", file=sys.stderr)
    pytest.skip(reason)


# The real scripts the fixture workspace calls come from the repo, not from committed copies.
REPO_SCRIPTS = (
    "skills/shared/scripts/content_guard.py",
    "skills/shared/scripts/manifest.py",
    "skills/shared/scripts/output_paths.py",
    "skills/openclaw/card-maker/scripts/render_cards.py",
)


def copy_fixture_workspace(target: Path) -> Path:
    """A private copy of the fixture workspace, with the repo's real scripts in place."""
    shutil.copytree(FIXTURE_WORKSPACE, target)
    for rel in REPO_SCRIPTS:
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, target / rel)
    return target
