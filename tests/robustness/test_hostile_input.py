"""Arbitrary and adversarial input never breaks analysis: no exception escapes, no rule fails,
every range lies inside its document, the same input gives the same findings, and each
document is analysed in bounded time. (Bounded runs; tests/fuzz runs the same targets long.)"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from robustness_inputs import (
    COMMAND_LINE,
    CONFIG_TEXT,
    MANIFEST,
    MANIFEST_TEXT,
    MARKDOWN,
    PYTHON_SOURCE,
    REFERENCE,
    SHARED_TOOL,
    SKILL,
    SKILL_WITH_FRONTMATTER,
    SUPPRESSED_SKILL,
    adversarial_documents,
    assert_config_sound,
    assert_script_sound,
    assert_sound,
    make_workspace,
    skill_calling,
)

from easel_ls.engine import check_document
from easel_ls.model.text import TextDocument
from easel_ls.workspace import Workspace

BOUNDED = settings(
    max_examples=40,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    return make_workspace(tmp_path_factory.mktemp("ws"))


@BOUNDED
@given(text=SKILL_WITH_FRONTMATTER)
def test_any_frontmatter_yaml_is_analysed_soundly(ws: Workspace, text: str) -> None:
    assert_sound(ws, SKILL, text)


@BOUNDED
@given(text=MARKDOWN)
def test_any_markdown_body_is_analysed_soundly(ws: Workspace, text: str) -> None:
    assert_sound(ws, SKILL, text)
    assert_sound(ws, REFERENCE, text)


@BOUNDED
@given(line=COMMAND_LINE)
def test_any_command_line_is_analysed_soundly(ws: Workspace, line: str) -> None:
    assert_sound(ws, SKILL, skill_calling(line))


@BOUNDED
@given(source=PYTHON_SOURCE)
def test_any_generated_argparse_script_is_analysed_soundly(ws: Workspace, source: str) -> None:
    assert_script_sound(ws, source)


@BOUNDED
@given(text=MANIFEST_TEXT)
def test_any_easel_json_text_is_analysed_soundly(ws: Workspace, text: str) -> None:
    assert_sound(ws, MANIFEST, text)


@BOUNDED
@given(text=SUPPRESSED_SKILL)
def test_any_suppression_comments_are_analysed_soundly(ws: Workspace, text: str) -> None:
    assert_sound(ws, SKILL, text)


@BOUNDED
@given(text=CONFIG_TEXT)
def test_any_config_file_loads_or_fails_with_a_config_error(
    tmp_path_factory: pytest.TempPathFactory, text: str
) -> None:
    assert_config_sound(tmp_path_factory.mktemp("cfg"), text)


def test_adversarial_repetitions_stay_sound_and_fast(ws: Workspace) -> None:
    # Every unit repeated 1500 times, in the body, a fence and the frontmatter.
    timings = []
    for label, text in adversarial_documents(1500):
        started = time.perf_counter()
        assert_sound(ws, SKILL, text)
        timings.append((time.perf_counter() - started, label))
    slowest = max(timings)
    assert slowest[0] < 3.0, slowest


def _timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


# Regressions: each of these was quadratic (over 10 s at 8000 repetitions) before the fix (and take well under a second now).
@pytest.mark.parametrize(
    "text",
    [
        pytest.param("<!--" * 20_000 + "\n", id="unclosed html comments in the body"),
        pytest.param(
            f"```bash\npython {SHARED_TOOL} " + "# easel-ls: ignore[" * 10_000 + "\n",
            id="unclosed ignore[ in a fenced command comment",
        ),
        pytest.param(
            "---\ndescription: " + "# easel-ls: ignore[" * 10_000 + "\n---\n",
            id="unclosed ignore[ on a frontmatter line",
        ),
    ],
)
def test_unclosed_comment_runs_are_linear(ws: Workspace, text: str) -> None:
    took = _timed(lambda: check_document(ws, TextDocument(ws.root / SKILL, text)))
    assert took < 5.0, f"{took:.1f}s"


def test_closed_suppressions_still_work_after_the_linear_bound(
    ws: Workspace, tmp_path: Path
) -> None:
    line = f"python {SHARED_TOOL} run --topic t --nope  # easel-ls: ignore[CM002]"
    text = (
        "---\nname: x\n---\n<!-- a --> <!-- b\n" + skill_calling(line)[len("---\nname: x\n---\n") :]
    )
    codes = [f.code for f in check_document(ws, TextDocument(ws.root / SKILL, text))]
    assert "CM002" not in codes
    unsuppressed = text.replace("  # easel-ls: ignore[CM002]", "")
    assert "CM002" in [
        f.code for f in check_document(ws, TextDocument(ws.root / SKILL, unsuppressed))
    ]


# Regression: YAML also breaks lines at NEL, LS and PS, the document does not; frontmatter
# ranges used YAML's line numbers and fell outside the document (found by the long fuzz run).
@pytest.mark.parametrize("separator", ["\x85", "\u2028", "\u2029"], ids=["NEL", "LS", "PS"])
def test_unicode_line_separators_in_frontmatter_keep_ranges_in_the_document(
    ws: Workspace, separator: str
) -> None:
    text = f"---\n{separator}0000\n---\n# x\n"
    [scalar] = [f for f in assert_sound(ws, SKILL, text) if f.code == "FM003"]
    assert scalar.range.start.line == 1
    described = f"---\nname: x{separator}description: 中文描述\n---\n"
    for finding in assert_sound(ws, SKILL, described):
        if finding.code.startswith("FM01"):  # description findings sit on line 1, after `x`
            assert finding.range.start.line == 1
            assert finding.range.start.character > len("name: x")
