"""VS Code end to end: the built .vsix installed into a fresh code-server 1.100.3 profile, driven in
headless Chromium (vscode/drive.js). A drifted option gets a CM002 squiggle and Problems entry,
its quick fix edits the text, completion inside a command offers that subcommand's option, the
shipped JSON Schema completes `.easel.json` values, and "Easel: Register Deliverables" writes the
unlisted file into `.easel.json` on disk.

Screenshots go to $EASEL_E2E_SCREENSHOTS (default: the test's temp dir): vscode-diagnostics.png,
and vscode-failure.png when a step fails. The marketplace README uses vscode-diagnostics.png:
`EASEL_E2E_SCREENSHOTS=vscode-extension/media pytest tests/e2e/test_vscode.py` refreshes it."""

from __future__ import annotations

from pathlib import Path

from vscode_harness import profile, run_driver, vscode_url  # noqa: F401 (pytest fixtures)


def test_vscode_diagnostics_quick_fix_completion_and_register_deliverables(
    vscode_url: str,  # noqa: F811
    profile: Path,  # noqa: F811
    workspace: Path,
) -> None:
    run_driver("drive.js", vscode_url, profile, workspace)
