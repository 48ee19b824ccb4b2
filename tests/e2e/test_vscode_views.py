"""VS Code end to end for the Easel views (issue #16), in code-server with the built .vsix
(vscode/drive_views.js) on the fixture workspace: the Easel activity bar container shows Skills by
Layer (six layers in pipeline order with their counts, `xhs-publish` with "2 errors · 1 warning"
and an error icon, a click opening SKILL.md, "Check This Skill" reporting the counts) and Projects
(status and kind, the cover as the project's icon, deliverables, steps with the failed one marked,
the broken manifest with its error); the `.easel.json` code lens opens the pipeline webview, whose
DOM (read through the webview frames) has the five lane labels, the failed step, the loaded cover
and working output links; hovering the cover entry shows the image.

Screenshots go to $EASEL_E2E_SCREENSHOTS (default: the test's temp dir): vscode-views.png,
vscode-pipeline.png, vscode-hover-cover.png, and vscode-failure.png when a step fails. The
extension README uses them:
`EASEL_E2E_SCREENSHOTS=vscode-extension/media pytest tests/e2e/test_vscode_views.py`."""

from __future__ import annotations

import time
from pathlib import Path

from vscode_harness import profile, run_driver, screenshot_dir, vscode_url  # noqa: F401

SHOTS = ("vscode-views.png", "vscode-pipeline.png", "vscode-hover-cover.png")


def test_vscode_easel_views_pipeline_webview_and_cover_hover(
    vscode_url: str,  # noqa: F811
    profile: Path,  # noqa: F811
    workspace: Path,
) -> None:
    started = time.time()
    run_driver("drive_views.js", vscode_url, profile, workspace, timeout=150)
    shots = screenshot_dir(profile)
    for name in SHOTS:
        shot = shots / name
        # Taken in this run, not left over from an earlier one.
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
        assert shot.stat().st_mtime >= started, name
