"""`easel-ls report --html OUT`: one self-contained page with the findings `check` reports (by
family and by skill), skills per layer, projects with status and pipeline, and the top rules
with their docs. Untrusted workspace text is escaped; nothing is fetched from the network."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from easel_ls.cli import main
from easel_ls.rules import RULES

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "views"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return Path(shutil.copytree(FIXTURE, tmp_path / "ws"))


def report(ws: Path, out: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    code = main(["report", str(ws), "--html", str(out), "--no-cache", *extra])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert captured.out == f"wrote {out}\n"
    return out.read_text(encoding="utf-8")


def check_json(ws: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    main(["check", str(ws), "--output-format", "json", "--no-cache"])
    findings: list[dict[str, object]] = json.loads(capsys.readouterr().out)
    return findings


def tile(page: str, what: str) -> int:
    found = re.search(rf'<span class="num">(\d+)</span><span class="what">{what}</span>', page)
    assert found, what
    return int(found.group(1))


def test_the_page_counts_what_check_reports(
    ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    findings = check_json(ws, capsys)
    page = report(ws, tmp_path / "report.html", capsys)
    by_severity = {s: sum(1 for f in findings if f["severity"] == s) for s in ("error", "warning")}
    assert tile(page, "errors") == by_severity["error"] > 0
    assert tile(page, "warnings") == by_severity["warning"] > 0
    assert tile(page, "skills") == 7 and tile(page, "projects") == 3
    codes = {str(f["code"]) for f in findings}
    for code in codes:  # every rule that fired is among the top rules (fewer than ten here)
        assert f'<span class="code">{code}</span>' in page


def test_charts_skills_projects_and_rule_docs_are_on_the_page(
    ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = report(ws, tmp_path / "report.html", capsys)
    for section in ("findings-by-family", "findings-by-skill", "skills-by-layer", "projects"):
        assert f'<section id="{section}"' in page
    assert page.count('<svg class="chart"') == 2 and 'class="chart layers"' in page
    family_chart = page.split('id="findings-by-family"')[1].split("</section>")[0]
    for family in ("MF", "BD", "FM", "RS"):
        assert f">{family}</text>" in family_chart
    skill_chart = page.split('id="findings-by-skill"')[1].split("</section>")[0]
    assert ">broken-skill</text>" in skill_chart and ">outputs/winter-menu</text>" in skill_chart
    lanes = page.split('<div class="lanes">')[1].split("</section>")[0]
    assert lanes.index(">topic-scout<") < lanes.index(">card-maker<") < lanes.index(">unknown<")
    assert '<span class="badge error" title="errors">3</span>' in lanes  # broken-skill
    # Projects, newest first, each with its pipeline; the failed step is marked.
    projects = page.split('id="projects"')[1].split("</section>")[0]
    assert projects.index("春日野餐清单") < projects.index("winter-menu")
    assert projects.index("winter-menu") < projects.index("autumn-trip")
    assert projects.count('<g class="step failed">') == 1
    assert projects.count('<g class="step done">') == 4  # three in 春日野餐, one in winter-menu
    assert "✗ card-maker" in projects
    assert "invalid JSON at line 5, column 1" in projects  # listed with its error
    cover = base64.b64encode((ws / "outputs/春日野餐/cover.png").read_bytes()).decode()
    assert f'src="data:image/png;base64,{cover}"' in projects
    # The top rule's documentation, rendered.
    rules = page.split('id="top-rules"')[1]
    assert "<strong>What it does</strong>" in rules and "<pre><code>" in rules
    assert RULES["BD002"].name in rules


def test_untrusted_text_is_escaped(
    ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile = "<script>alert(1)</script>"
    skill = ws / "skills/openclaw/topic-scout/SKILL.md"
    text = skill.read_text(encoding="utf-8").replace("的示例技能", f"的示例技能{hostile}", 1)
    skill.write_text(text, encoding="utf-8")
    folder = ws / 'outputs/a"<b>x'
    folder.mkdir()
    manifest = {
        "topic": 'a"<b>x',
        "title": '<img src=x onerror="alert(2)">',
        "status": "ready'><svg onload=alert(3)>",
        "steps": [{"layer": "plan", "skill": "</text><script>4</script>", "summary": "&amp;"}],
    }
    (folder / ".easel.json").write_text(json.dumps(manifest), encoding="utf-8")
    page = report(ws, tmp_path / "report.html", capsys)
    assert "<script" not in page and "<img src=x" not in page and "<svg onload" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=&quot;alert(2)&quot;&gt;" in page
    assert "outputs/a&quot;&lt;b&gt;x" in page
    assert "&amp;amp;" in page  # the summary's text, shown as written


def test_no_network_a_strict_policy_and_only_local_links(
    ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = report(ws, tmp_path / "report.html", capsys)
    # Web addresses appear only as text (a rule doc's `https://…` example), never as a resource.
    markup = re.sub(r"<code>.*?</code>", "", page, flags=re.DOTALL)
    assert "http://" not in markup and "https://" not in markup
    assert "<script" not in page and "<link" not in page and "@import" not in page
    assert "url(" not in page
    for attribute, value in re.findall(r'\b(src|href)="([^"]*)"', page):
        assert value.startswith(("data:image/", "file:///")), (attribute, value)
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert policy is not None
    rules = html.unescape(policy.group(1))
    assert "default-src 'none'" in rules and "img-src data:" in rules
    style = re.search(r"<style>(.*?)</style>", page, re.DOTALL)
    assert style is not None
    digest = base64.b64encode(hashlib.sha256(style.group(1).encode()).digest()).decode()
    assert f"style-src 'sha256-{digest}'" in rules  # the one inline style, by its hash
    assert ' style="' not in page  # attributes would need 'unsafe-inline'


def test_an_empty_workspace_still_makes_a_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    page = report(empty, tmp_path / "r.html", capsys)
    assert "No findings. All checks passed." in page and "No projects" in page


def test_errors_are_clear_messages(
    ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", str(tmp_path / "nope"), "--html", str(tmp_path / "r.html")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    folder = tmp_path / "is-a-folder"
    folder.mkdir()
    assert main(["report", str(ws), "--html", str(folder), "--no-cache"]) == 2
    assert f"cannot write {folder}" in capsys.readouterr().err
    bad = tmp_path / "bad.toml"
    bad.write_text("[tool.easel-ls\n", encoding="utf-8")
    assert main(["report", str(ws), "--html", str(tmp_path / "r.html"), "--config", str(bad)]) == 2
    assert capsys.readouterr().err.startswith("easel-ls: ")
    with pytest.raises(SystemExit) as missing_html:
        main(["report", str(ws)])
    assert missing_html.value.code == 2
    assert "--html" in capsys.readouterr().err


def test_open_hands_the_page_to_the_browser(ws: Path, tmp_path: Path) -> None:
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser.sh"
    browser.write_text(f'#!/bin/sh\nprintf "%s" "$1" > "{opened}"\n', encoding="utf-8")
    browser.chmod(0o755)
    out = tmp_path / "r.html"
    env = dict(os.environ, BROWSER=f"{browser} %s")
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    done = subprocess.run(
        [sys.executable, "-m", "easel_ls", "report", str(ws), "--html", str(out), "--open"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"wrote {out}"
    assert opened.read_text(encoding="utf-8") == out.resolve().as_uri()
