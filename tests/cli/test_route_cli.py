"""`easel-ls route` and RT findings through the command line, as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "easel_ls", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def skill(name: str, description: str) -> str:
    return f"---\nname: {name}\ndescription: >-\n  {description}\nlayer: produce\n---\n\n# {name}\n"


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


WORKSPACE = {
    "easel-ls.toml": "",
    "skills/openclaw/card-maker/SKILL.md": skill(
        "card-maker", "把卡片脚本渲染成图文卡片，自动配色。用户说“做成图文”“换个配色”时使用。"
    ),
    "skills/openclaw/note-writer/SKILL.md": skill(
        "note-writer", "写小红书笔记的标题、正文和话题标签。用户说“帮我写篇小红书笔记”时使用。"
    ),
    "skills/openclaw/review-desk/SKILL.md": skill(
        "review-desk", "复盘曝光、阅读和涨粉数据，找出流量问题。用户说“帮我复盘一下”时使用。"
    ),
}


def test_route_prints_the_ranking_with_words_and_margin(tmp_path: Path) -> None:
    write(tmp_path, WORKSPACE)
    done = run("route", "帮我写篇小红书笔记", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "Request: 帮我写篇小红书笔记"
    assert "Ranked 3 skills" in lines[1]
    assert lines[2].lstrip().startswith("1. note-writer")
    assert "帮我写篇小红书笔记" in lines[2]
    assert lines[-1].startswith("Margin: ")


def test_route_json_names_paths_scores_and_layers(tmp_path: Path) -> None:
    write(tmp_path, WORKSPACE)
    done = run(
        "route", "把这个做成图文", ".", "--output-format", "json", "--top", "2", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["skills"] == 3
    assert payload["ranking"][0]["name"] == "card-maker"
    assert len(payload["ranking"]) <= 2
    first = payload["ranking"][0]
    assert first["path"] == "skills/openclaw/card-maker/SKILL.md"
    assert first["layer"] == "produce" and first["rank"] == 1 and first["score"] > 0
    assert payload["margin"] >= 0


def test_route_usage_errors_exit_2(tmp_path: Path) -> None:
    write(tmp_path, WORKSPACE)
    assert run("route", "", cwd=tmp_path).returncode == 2
    missing = run("route", "做成图文", "no/such/dir", cwd=tmp_path)
    assert missing.returncode == 2 and "does not exist" in missing.stderr
    assert "Traceback" not in missing.stderr


def test_route_on_an_empty_workspace_says_so(tmp_path: Path) -> None:
    write(tmp_path, {"easel-ls.toml": ""})
    done = run("route", "做成图文", cwd=tmp_path)
    assert done.returncode == 0 and "No skills" in done.stdout


def test_a_cached_routing_finding_follows_another_skills_description(tmp_path: Path) -> None:
    # The finding sits on card-maker's test, but depends on review-desk's description: the
    # on-disk cache must not replay it once review-desk changes.
    files = {
        **WORKSPACE,
        "skills/openclaw/card-maker/tests/1.prompt": "帮我复盘一下这篇笔记的数据\n",
        "skills/openclaw/card-maker/tests/1.expected": "数据\n",
    }
    write(tmp_path, files)
    args = ("check", ".", "--select", "RT001", "--output-format", "concise")
    first = run(*args, cwd=tmp_path)
    assert "RT001" in first.stdout and "`review-desk` first" in first.stdout
    assert run(*args, cwd=tmp_path).stdout == first.stdout  # from the cache
    write(
        tmp_path,
        {
            "skills/openclaw/review-desk/SKILL.md": skill(
                "review-desk", "读取发布后的曝光、阅读和涨粉，用户说“看看账号”时使用。"
            )
        },
    )
    after = run(*args, cwd=tmp_path)
    assert "`review-desk` first" not in after.stdout, after.stdout
