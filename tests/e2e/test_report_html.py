"""The HTML report in a real browser: `easel-ls report --html` on the views fixture, opened in
Debian's headless Chromium with playwright-core (tests/e2e/report/shoot.js). The page loads with
no console errors (a Content-Security-Policy violation would be one), fetches nothing beyond its
own file, its inline style applies, the charts have bars, the routing matrix its shaded cells,
the token chart a bar per skill, the pipelines their lanes, and the embedded cover decodes.

The screenshot goes to $EASEL_E2E_SCREENSHOTS (default: the test's temp dir) as report.png;
`EASEL_E2E_SCREENSHOTS=docs/media pytest tests/e2e/test_report_html.py` refreshes the README's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from e2e_tools import E2E_DIR, REPO, skip_missing, tools_dir

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
FIXTURE = REPO / "tests" / "fixtures" / "views"


def test_report_renders_in_chromium_without_errors(tmp_path: Path) -> None:
    modules = tools_dir() / "driver" / "node_modules"
    for tool, present in (
        ("chromium", CHROMIUM.exists()),
        ("playwright-core", (modules / "playwright-core").is_dir()),
        ("node", shutil.which("node") is not None),
    ):
        if not present:
            skip_missing(tool)
    workspace = Path(shutil.copytree(FIXTURE, tmp_path / "ws"))
    out = tmp_path / "report.html"
    written = subprocess.run(
        [sys.executable, "-m", "easel_ls", "report", str(workspace), "--html", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert written.returncode == 0, written.stderr
    shots = Path(os.environ.get("EASEL_E2E_SCREENSHOTS", tmp_path / "screenshots"))
    shots.mkdir(parents=True, exist_ok=True)
    shot = shots / "report.png"
    env = dict(os.environ, NODE_PATH=str(modules), CHROMIUM=str(CHROMIUM))
    shown = subprocess.run(
        ["node", str(E2E_DIR / "report" / "shoot.js"), str(out), str(shot)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert shown.returncode == 0, shown.stderr[-2000:]
    seen = json.loads(shown.stdout.strip().splitlines()[-1])
    assert seen["errors"] == []
    assert seen["requests"] == [out.resolve().as_uri()]  # the page itself, nothing else
    assert seen["title"] == "Easel report · ws"
    assert seen["styled"] == "12px"
    assert seen["charts"] == 3 and seen["bars"] >= 6  # family, skill, layer columns
    assert all(width > 1 for width in seen["barWidths"])
    assert seen["layerColumns"] == 7  # six layers and the broken skill's unknown one
    assert seen["pipelines"] == 2 and seen["failedSteps"] == 1
    assert seen["laneLabels"][:5] == ["discover", "plan", "produce", "publish", "attribute"]
    assert seen["coverLoaded"] is True
    assert seen["rules"] >= 5
    # Six look-alike skills: all in the matrix, 46 % of each other (the shade class sim5).
    assert seen["matrixRows"] == 6 and seen["matrixShaded"] == 30
    assert seen["costRows"] == 7 and all(width > 1 for width in seen["costWidths"])
    assert shot.stat().st_size > 10_000
