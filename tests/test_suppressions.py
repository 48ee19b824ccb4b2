"""Suppression comments (rules.md, "Suppression and configuration"), EZ001 and EZ002."""

from __future__ import annotations

from pathlib import Path

import pytest

from easel_ls.config import ConfigResolver
from easel_ls.engine import check_path
from easel_ls.findings import Finding
from easel_ls.workspace import Workspace

SKILL = "skills/openclaw/xhs-publish/SKILL.md"
PUBLISH_PY = "skills/openclaw/xhs-publish/scripts/publish.py"
TYPO = "=== EASEL ACCOUNT PROFLE ==="

FRONTMATTER = """\
---
name: xhs-publish
description: >-
  把已完成的小红书图文笔记安全地发布出去，适用场景：用户说“发布”“发到小红书”。
  不负责改文案或出图，发布后的数据复盘交给 `publish-review`，改文案请用 `xhs-note-plan`。
layer: publish
---
"""
SECTIONS = """
# 小红书发布 🚀

## 输入

- 主题

## 输出（写入 outputs/_publish/<主题>/）

- 发布包

## 执行步骤

1. 预检

## Profile 感知

- 有画像时按画像补全标签。
"""
PUBLISH_CLI = """\
import argparse

from content_guard import guard_or_die


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--topic", required=True)
    parser.add_argument("--exec", action="store_true")
    parser.add_argument("--allow-unsafe", action="store_true")
    args = parser.parse_args()
    guard_or_die([args.topic], exec_mode=args.exec, allow_unsafe=args.allow_unsafe)
"""


NEIGHBOURS = {
    f"skills/openclaw/{name}/SKILL.md": f"---\nname: {name}\n---\n"
    for name in ("publish-review", "xhs-note-plan")
}


def lint(tmp_path: Path, text: str, path: str = SKILL) -> list[Finding]:
    """All findings for the file ``path`` written as ``text`` in a small publish workspace."""
    files = {SKILL: body(""), PUBLISH_PY: PUBLISH_CLI, **NEIGHBOURS, path: text}
    for rel, content in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(content, encoding="utf-8")
    root = tmp_path.resolve()
    ws = Workspace(root=root, config=ConfigResolver(stop_at=root))
    return check_path(ws, root / path)


def where(finding: Finding) -> tuple[str, int, int]:
    return (finding.code, finding.range.start.line, finding.range.start.character)


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines()) if needle in line)


def body(extra: str) -> str:
    return FRONTMATTER + SECTIONS + "\n" + extra


def test_unsuppressed_typo_is_reported(tmp_path: Path) -> None:
    text = body(f"画像标记：{TYPO}\n")
    assert [where(f) for f in lint(tmp_path, text)] == [("BD003", line_of(text, TYPO), 5)]


def test_disable_next_line_suppresses_the_next_content_line(tmp_path: Path) -> None:
    text = body(f"<!-- easel-ls-disable-next-line BD003 -->\n\n画像标记：{TYPO}\n{TYPO}\n")
    # Blank lines between the comment and its target are skipped; the line after is not covered.
    assert [where(f) for f in lint(tmp_path, text)] == [("BD003", len(text.splitlines()) - 1, 0)]


def test_disable_next_line_takes_several_codes(tmp_path: Path) -> None:
    text = body(
        f"<!-- easel-ls-disable-next-line BD003, RS001 -->\n{TYPO} [画像](references/无.md)\n"
    )
    assert lint(tmp_path, text) == []


def test_disable_enable_covers_the_lines_between(tmp_path: Path) -> None:
    text = body(
        f"<!-- easel-ls-disable BD003 -->\n{TYPO}\n\n- 🎨 {TYPO}\n"
        f"<!-- easel-ls-enable BD003 -->\n{TYPO}\n"
    )
    assert [where(f) for f in lint(tmp_path, text)] == [("BD003", len(text.splitlines()) - 1, 0)]


def test_disable_without_enable_runs_to_the_end_of_the_file(tmp_path: Path) -> None:
    text = body(f"<!-- easel-ls-disable BD003 -->\n{TYPO}\n\n{TYPO}\n")
    assert lint(tmp_path, text) == []


def test_disable_file_also_covers_frontmatter_findings(tmp_path: Path) -> None:
    frontmatter = FRONTMATTER.replace("layer: publish", "layer: publish\nauthor: 小林")
    text = frontmatter + SECTIONS + "\n<!-- easel-ls-disable-file FM006 -->\n"
    assert lint(tmp_path, text) == []
    assert [f.code for f in lint(tmp_path, frontmatter + SECTIONS)] == ["FM006"]


def test_trailing_ignore_on_a_frontmatter_line(tmp_path: Path) -> None:
    frontmatter = FRONTMATTER.replace(
        "layer: publish", "layer: publish\nauthor: 小林  # easel-ls: ignore[FM006]"
    )
    assert lint(tmp_path, frontmatter + SECTIONS) == []


def test_inline_ignore_in_a_fenced_command(tmp_path: Path) -> None:
    command = (
        "python skills/openclaw/xhs-publish/scripts/publish.py --topic <主题> --exec "
        "--allow-unsafe  # easel-ls: ignore[PB002]"
    )
    text = body(f"```bash\n{command}\n```\n")
    assert lint(tmp_path, text) == []
    assert [f.code for f in lint(tmp_path, text.replace("  # easel-ls: ignore[PB002]", ""))] == [
        "PB002"
    ]


def test_unused_inline_ignore_is_ez001_at_the_comment(tmp_path: Path) -> None:
    command = "python skills/openclaw/xhs-publish/scripts/publish.py --topic <主题>  # easel-ls: ignore[PB002]"
    text = body(f"```bash\n{command}\n```\n")
    [finding] = lint(tmp_path, text)
    assert where(finding) == ("EZ001", line_of(text, command), command.index("# easel-ls"))


def test_trailing_ignore_in_a_python_script(tmp_path: Path) -> None:
    script = (
        "from pathlib import Path\n\n"
        'OUT = Path("outputs/_scratch")  # easel-ls: ignore[PB003]\n'
        "OUT.mkdir(parents=True, exist_ok=True)\n"
    )
    rel = "skills/openclaw/xhs-publish/scripts/scratch.py"
    safety = ("PB", "EZ")  # the script is an orphan here (RS003): not what this test is about
    assert [f.code for f in lint(tmp_path, script, rel) if f.code.startswith(safety)] == []
    unsuppressed = script.replace("  # easel-ls: ignore[PB003]", "")
    found = [f.code for f in lint(tmp_path, unsuppressed, rel) if f.code.startswith(safety)]
    assert found == ["PB003"]


def test_ez001_for_a_comment_that_suppresses_nothing(tmp_path: Path) -> None:
    text = body("<!-- easel-ls-disable-next-line BD003 -->\n画像标记正确。\n")
    [finding] = lint(tmp_path, text)
    assert where(finding) == ("EZ001", line_of(text, "easel-ls-disable-next-line"), 0)
    assert "BD003" in finding.message
    assert finding.severity.word == "warning"


def test_ez001_for_an_unused_code_among_used_ones(tmp_path: Path) -> None:
    text = body(f"<!-- easel-ls-disable-next-line BD003,RS001 -->\n{TYPO}\n")
    [finding] = lint(tmp_path, text)
    assert finding.code == "EZ001"
    assert "RS001" in finding.message


def test_ez002_for_an_unknown_code_with_a_suggestion(tmp_path: Path) -> None:
    text = body(f"🎨 说明 <!-- easel-ls-disable-next-line BD030 -->\n{TYPO}\n")
    findings = lint(tmp_path, text)
    assert [where(f) for f in findings] == [
        ("EZ002", line_of(text, "BD030"), len("🎨 说明 ")),
        ("BD003", line_of(text, TYPO), 0),
    ]
    assert "`BD030`" in findings[0].message and "did you mean" in findings[0].message


@pytest.mark.parametrize(
    "snippet",
    [
        pytest.param(
            "```markdown\n<!-- easel-ls-disable-file BD003 -->\n```\n", id="inside-a-fence"
        ),
        pytest.param("`<!-- easel-ls-disable-file BD003 -->`\n", id="inside-a-code-span"),
    ],
)
def test_directives_shown_as_code_are_not_directives(tmp_path: Path, snippet: str) -> None:
    text = body(f"{snippet}\n{TYPO}\n")
    assert [f.code for f in lint(tmp_path, text)] == ["BD003"]
