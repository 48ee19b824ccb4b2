"""BD — SKILL.md body: length, required sections, the profile marker."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from easel_ls.findings import Applicability, Finding
from easel_ls.fixes import apply_edits
from easel_ls.model.text import TextDocument

SKILL = "skills/openclaw/card-maker/SKILL.md"
FRONTMATTER = """\
---
name: card-maker
description: >-
  把小红书笔记文案做成一组图文卡片 🎨：按画像配色排版封面和内页，导出 PNG 到项目根目录。
  适用场景：用户说“做卡片”“出图”。不负责写文案，文案请用 `xhs-note-plan`。
layer: produce
---
"""
BODY_START = FRONTMATTER.count("\n")  # first body line (0-based)

SECTIONS = """\
# 卡片制作 🎨

## 输入

- 主题

## 输出（写入 outputs/<主题>/）

- 卡片

## 执行步骤

1. 排版

## Profile 感知

- 有 `=== EASEL ACCOUNT PROFILE ===` 时按画像配色。
"""

Lint = Callable[..., list[Finding]]


@pytest.fixture
def lint(make_workspace, check) -> Lint:
    def run(text: str, path: str = SKILL, extra: dict[str, str] | None = None) -> list[Finding]:
        files = {SKILL: FRONTMATTER + SECTIONS, **(extra or {}), path: text}
        ws = make_workspace(files)
        return [f for f in check(ws, path) if f.code.startswith("BD")]

    return run


def where(finding: Finding) -> tuple[int, int, int, int]:
    r = finding.range
    return (r.start.line, r.start.character, r.end.line, r.end.character)


def apply(text: str, finding: Finding) -> str:
    [fix] = finding.fixes
    return apply_edits(TextDocument(Path("/ws") / SKILL, text), fix.edits)


def body_of(lines: int) -> str:
    """A body of exactly ``lines`` lines: the required sections, then list items."""
    head = SECTIONS.splitlines()
    filler = [f"- 第 {i} 条说明 ✨" for i in range(lines - len(head))]
    return "\n".join(head + filler) + "\n"


def test_a_complete_short_body_is_clean(lint: Lint) -> None:
    assert lint(FRONTMATTER + SECTIONS) == []


# -- BD001 body-too-long ---------------------------------------------------------------------


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_bd001_spares_a_body_of_exactly_200_lines(lint: Lint, newline: str) -> None:
    text = FRONTMATTER + body_of(200)
    assert text.count("\n") - BODY_START == 200
    assert lint(text.replace("\n", newline)) == []


def test_bd001_flags_line_201_of_the_body(lint: Lint) -> None:
    text = FRONTMATTER + body_of(201)
    [finding] = lint(text)
    assert finding.code == "BD001"
    line = BODY_START + 200
    assert where(finding) == (line, 0, line, len(text.splitlines()[line]))
    assert "201 lines" in finding.message


def test_bd001_without_final_newline_counts_the_last_line(lint: Lint) -> None:
    assert lint(FRONTMATTER + body_of(200).rstrip("\n")) == []
    assert [f.code for f in lint(FRONTMATTER + body_of(201).rstrip("\n"))] == ["BD001"]


# -- BD002 section-missing -------------------------------------------------------------------


def test_bd002_missing_section_anchors_on_the_title_and_appends_a_skeleton(lint: Lint) -> None:
    body = SECTIONS.split("## Profile 感知")[0]
    text = FRONTMATTER + body
    [finding] = lint(text)
    assert finding.code == "BD002"
    assert "`## Profile 感知`" in finding.message
    assert where(finding) == (BODY_START, 0, BODY_START, len("# 卡片制作 🎨"))
    [fix] = finding.fixes
    assert fix.title == "Append `## Profile 感知` section"
    assert fix.applicability is Applicability.UNSAFE
    assert apply(text, finding) == text + "\n## Profile 感知\n\n"


def test_bd002_every_missing_section_is_reported(lint: Lint) -> None:
    findings = lint(FRONTMATTER + "# 卡片制作\n\n正文。\n")
    assert [f.message.split(" (")[0] for f in findings] == [
        f"section `## {s}` is missing" for s in ("输入", "输出", "执行步骤", "Profile 感知")
    ]


@pytest.mark.parametrize(
    "heading",
    [
        "## 输出（写入 outputs/<主题>/）",
        "## 2. 输出",
        "## 二、输出",
        "## 输出 📦",
    ],
)
def test_bd002_headings_with_suffix_or_numbering_count(lint: Lint, heading: str) -> None:
    text = FRONTMATTER + SECTIONS.replace("## 输出（写入 outputs/<主题>/）", heading)
    assert lint(text) == []


@pytest.mark.parametrize(
    "replacement",
    [
        pytest.param("### 输出", id="level-3"),
        pytest.param("```markdown\n## 输出\n```", id="inside-a-fence"),
        pytest.param("<!-- ## 输出 -->", id="inside-a-comment"),
        pytest.param("## 注意事项", id="other-word"),
    ],
)
def test_bd002_look_alikes_do_not_satisfy_the_section(lint: Lint, replacement: str) -> None:
    text = FRONTMATTER + SECTIONS.replace("## 输出（写入 outputs/<主题>/）", replacement)
    findings = lint(text)
    assert [f.message.split(" (")[0] for f in findings] == ["section `## 输出` is missing"]


# -- BD003 profile-marker-typo ---------------------------------------------------------------


@pytest.mark.parametrize(
    "typo",
    [
        "=== EASEL ACCOUNT PROFLE ===",
        "=== easel account profile ===",
        "== EASEL ACCOUNT PROFILE ==",
        "=== EASEL  ACCOUNT PROFILE ===",
        "=== EASEL ACCOUNTS PROFILE ===",
    ],
)
def test_bd003_near_miss_after_cjk_and_emoji_with_a_safe_fix(lint: Lint, typo: str) -> None:
    prefix = "- 有🎨画像标记 "
    line = f"{prefix}{typo} 时按画像配色。"
    text = FRONTMATTER + SECTIONS.replace(
        "- 有 `=== EASEL ACCOUNT PROFILE ===` 时按画像配色。", line
    )
    [finding] = lint(text)
    assert finding.code == "BD003"
    row = text.splitlines().index(line)
    assert where(finding) == (row, len(prefix), row, len(prefix) + len(typo))
    [fix] = finding.fixes
    assert (fix.title, fix.applicability) == ("Use the exact profile marker", Applicability.SAFE)
    assert apply(text, finding) == text.replace(typo, "=== EASEL ACCOUNT PROFILE ===")


def test_bd003_also_checks_references(lint: Lint) -> None:
    ref = "skills/openclaw/card-maker/references/profile.md"
    [finding] = lint("# 画像\n\n上下文中的 === EASEL ACOUNT PROFILE === 块。\n", path=ref)
    assert finding.code == "BD003"
    assert where(finding)[:2] == (2, len("上下文中的 "))


@pytest.mark.parametrize(
    "line",
    [
        "=== EASEL ACCOUNT PROFILE ===",
        "=== 输出格式 ===",
        "=======",
        "标题\n===",
        "| a | b |\n|===|===|",
        "比较 a == b 与 c == d",
    ],
)
def test_bd003_spares_the_exact_marker_and_other_equals_runs(lint: Lint, line: str) -> None:
    assert lint(FRONTMATTER + SECTIONS + "\n" + line + "\n") == []


@pytest.mark.parametrize(
    ("section", "heading"),
    [
        ("## 执行步骤", "## 执行流程"),
        ("## 执行步骤", "## 核心流程"),
        ("## 执行步骤", "## Step 1：收集需求"),
        ("## 执行步骤", "## Phase 0 — 准备"),
        ("## 执行步骤", "## 完整工作流程（分 7 个阶段）"),
        ("## 输入", "## 先读的输入"),
        ("## 输出（写入 outputs/<主题>/）", "## 产物结构"),
        ("## 输出（写入 outputs/<主题>/）", "## 交付物"),
        ("## Profile 感知", "## 发布前检查（有 Profile 时）"),
        ("## 输入", "## Inputs"),
    ],
)
def test_bd002_real_world_synonyms_count(lint: Lint, section: str, heading: str) -> None:
    assert lint(FRONTMATTER + SECTIONS.replace(section, heading)) == []


def test_bd002_one_heading_may_hold_two_sections(lint: Lint) -> None:
    text = SECTIONS.replace("## 输入", "## 输入与输出").replace(
        "## 输出（写入 outputs/<主题>/）", "## 说明"
    )
    assert lint(FRONTMATTER + text) == []


@pytest.mark.parametrize(
    "heading",
    [
        pytest.param("## 不输出什么", id="cjk-word-not-at-the-start"),
        pytest.param("## 无需执行的操作", id="negated-section-word"),
        pytest.param("## 与其他技能的区别：只执行", id="section-word-far-into-the-heading"),
        pytest.param("## Stepper 组件", id="latin-word-that-only-begins-alike"),
    ],
)
def test_bd002_look_alike_headings_do_not_count(lint: Lint, heading: str) -> None:
    findings = lint(FRONTMATTER + SECTIONS.replace("## 执行步骤", heading))
    assert [f.message.split(" (")[0] for f in findings] == ["section `## 执行步骤` is missing"]


def test_bd002_configured_synonyms_replace_a_sections_list(make_workspace, check) -> None:
    config = '[section-synonyms]\n"执行步骤" = ["操作指南"]\n'
    text = FRONTMATTER + SECTIONS.replace("## 执行步骤", "## 操作指南")
    ws = make_workspace({"easel-ls.toml": config, SKILL: text})
    assert [f for f in check(ws, SKILL) if f.code.startswith("BD")] == []
