"""TS — skill tests: `tests/N.prompt` pairs with `tests/N.expected`; `.expected` holds keywords
(one per line) or `re:` patterns; blank lines and `#` lines are ignored."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from easel_ls.findings import Applicability, Finding

SKILL_DIR = "skills/openclaw/card-maker"
SKILL_MD = """\
---
name: card-maker
description: >-
  把小红书笔记文案做成一组图文卡片 🎨：按画像配色排版封面和内页，导出 PNG 到项目根目录。
  适用场景：用户说“做卡片”“出图”。不负责写文案，文案请用 `xhs-note-plan`。
layer: produce
---

# 卡片制作
"""

Lint = Callable[..., list[Finding]]


@pytest.fixture
def lint(make_workspace, check) -> Lint:
    """TS findings for ``target`` in a skill whose tests/ folder holds ``tests``."""

    def run(tests: dict[str, str], target: str) -> list[Finding]:
        files = {f"{SKILL_DIR}/SKILL.md": SKILL_MD}
        files.update({f"{SKILL_DIR}/tests/{name}": text for name, text in tests.items()})
        ws = make_workspace(files)
        return [f for f in check(ws, f"{SKILL_DIR}/tests/{target}") if f.code.startswith("TS")]

    return run


def where(finding: Finding) -> tuple[int, int, int, int]:
    r = finding.range
    return (r.start.line, r.start.character, r.end.line, r.end.character)


# -- TS001 unpaired-test ---------------------------------------------------------------------


def test_ts001_prompt_without_expected_offers_to_create_it(lint: Lint) -> None:
    [finding] = lint({"test1.prompt": "帮我把这篇笔记做成卡片 🎨\n"}, "test1.prompt")
    assert finding.code == "TS001"
    assert where(finding) == (0, 0, 0, 0)
    assert "`test1.expected`" in finding.message
    [fix] = finding.fixes
    assert (fix.title, fix.applicability) == ("Create test1.expected", Applicability.UNSAFE)
    [created] = fix.creates
    assert created.path.name == "test1.expected"
    assert created.path.parent.name == "tests"
    assert created.content.startswith("#")  # a comment only: TS002 until someone fills it


def test_ts001_expected_without_prompt(lint: Lint) -> None:
    [finding] = lint({"test2.expected": "卡片\n"}, "test2.expected")
    assert finding.code == "TS001"
    [fix] = finding.fixes
    assert fix.title == "Create test2.prompt"
    assert fix.creates[0].path.name == "test2.prompt"


def test_ts001_spares_a_complete_pair(lint: Lint) -> None:
    tests = {"test1.prompt": "做卡片\n", "test1.expected": "卡片\nre:PNG|png\n"}
    assert lint(tests, "test1.prompt") == []
    assert lint(tests, "test1.expected") == []


def test_ts001_a_pair_is_matched_by_stem_not_by_order(lint: Lint) -> None:
    tests = {"a.prompt": "做卡片\n", "b.expected": "卡片\n"}
    assert [f.code for f in lint(tests, "a.prompt")] == ["TS001"]


def test_ts_ignores_files_that_are_not_tests(make_workspace, check) -> None:
    ws = make_workspace(
        {
            f"{SKILL_DIR}/SKILL.md": SKILL_MD,
            f"{SKILL_DIR}/tests/README.md": "# 测试说明\n",
            f"{SKILL_DIR}/tests/fixtures/case.prompt": "嵌套目录里的样例\n",
        }
    )
    assert check(ws, f"{SKILL_DIR}/tests/README.md") == []
    assert check(ws, f"{SKILL_DIR}/tests/fixtures/case.prompt") == []


# -- TS002 empty-expected --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("", id="empty"),
        pytest.param("\n\n   \n", id="blank-lines"),
        pytest.param("# 期望输出关键字，每行一个\n#话题\n", id="comments-only"),
    ],
)
def test_ts002_expected_without_keyword_or_pattern(lint: Lint, text: str) -> None:
    findings = lint({"t.prompt": "做卡片\n", "t.expected": text}, "t.expected")
    assert [(f.code, where(f)) for f in findings] == [("TS002", (0, 0, 0, 0))]
    assert findings[0].severity.word == "warning"


@pytest.mark.parametrize("text", ["卡片\n", "# 注释\n\nre:^封面\n", "  PNG  \n"])
def test_ts002_spares_one_keyword_or_pattern(lint: Lint, text: str) -> None:
    assert lint({"t.prompt": "做卡片\n", "t.expected": text}, "t.expected") == []


# -- TS003 invalid-pattern -------------------------------------------------------------------


def test_ts003_pattern_that_does_not_compile_is_flagged_at_the_pattern(lint: Lint) -> None:
    text = "卡片\nre: 🎨封面(第一张\n"
    [finding] = lint({"t.prompt": "做卡片\n", "t.expected": text}, "t.expected")
    assert finding.code == "TS003"
    pattern = "🎨封面(第一张"
    assert where(finding) == (1, len("re: "), 1, len("re: ") + len(pattern))
    assert "does not compile" in finding.message


def test_ts003_each_bad_pattern_line_is_reported(lint: Lint) -> None:
    text = "re:[未闭合\nre:*开头\nre:(?P<x>a)(?P<x>b)\n"
    findings = lint({"t.prompt": "做卡片\n", "t.expected": text}, "t.expected")
    assert [(f.code, f.range.start.line) for f in findings] == [
        ("TS003", 0),
        ("TS003", 1),
        ("TS003", 2),
    ]


@pytest.mark.parametrize(
    "line",
    [
        pytest.param("标题(第一行", id="parenthesis-in-a-keyword"),
        pytest.param("re:封面|首图", id="valid-cjk-pattern"),
        pytest.param("re:\\d+ 张卡片", id="escapes"),
        pytest.param("# re:(注释里的坏模式", id="commented-out"),
    ],
)
def test_ts003_spares_keywords_valid_patterns_and_comments(lint: Lint, line: str) -> None:
    assert lint({"t.prompt": "做卡片\n", "t.expected": f"卡片\n{line}\n"}, "t.expected") == []
