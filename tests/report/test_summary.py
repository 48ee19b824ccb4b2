"""The closing summary, `--statistics`, and the `[*]` marker of `concise`, as ruff prints them."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from easel_ls.findings import Applicability, Finding, Fix, Range, Severity
from easel_ls.report import (
    ReportContext,
    render,
    render_available_fixes,
    render_fix_summary,
    render_statistics,
    render_summary,
)

CTX = ReportContext(Path("/ws"), lambda path: None)
UNSAFE_CTX = ReportContext(Path("/ws"), lambda path: None, unsafe_fixes=True)
SAFE = Fix("safe fix", Applicability.SAFE)
UNSAFE = Fix("unsafe fix", Applicability.UNSAFE)


def _finding(code: str = "FM009", *fixes: Fix, line: int = 0, path: str = "a.md") -> Finding:
    return Finding(
        code, "some-name", Severity.ERROR, "msg", Path("/ws") / path, Range.of(line, 0, line, 1),
        fixes=list(fixes),
    )  # fmt: skip


def test_no_findings_means_all_checks_passed() -> None:
    assert render_summary([], CTX) == "All checks passed!\n"


def test_counts_findings_with_ruffs_plural() -> None:
    assert render_summary([_finding()], CTX) == "Found 1 error.\n"
    assert render_summary([_finding(), _finding()], CTX) == "Found 2 errors.\n"


def test_safe_fixes_are_fixable_unsafe_ones_hinted_on_the_same_line() -> None:
    findings = [_finding("A", SAFE), _finding("B", UNSAFE), _finding("C", UNSAFE), _finding("D")]
    assert render_summary(findings, CTX) == (
        "Found 4 errors.\n"
        "[*] 1 fixable with `--fix` (2 unsafe fixes available with `--fix --unsafe-fixes`).\n"
    )


def test_only_unsafe_fixes_are_named_alone() -> None:
    assert render_summary([_finding("B", UNSAFE)], CTX) == (
        "Found 1 error.\n1 unsafe fix available with `--fix --unsafe-fixes`.\n"
    )


def test_only_safe_fixes() -> None:
    assert render_summary([_finding("A", SAFE), _finding("D")], CTX) == (
        "Found 2 errors.\n[*] 1 fixable with `--fix`.\n"
    )


def test_no_fix_at_all_no_fix_line() -> None:
    assert render_summary([_finding("D")], CTX) == "Found 1 error.\n"


def test_with_unsafe_fixes_every_fix_counts_and_nothing_is_hidden() -> None:
    findings = [_finding("A", SAFE), _finding("B", UNSAFE), _finding("D")]
    assert render_summary(findings, UNSAFE_CTX) == "Found 3 errors.\n[*] 2 fixable with `--fix`.\n"


def test_a_finding_with_a_safe_and_an_unsafe_fix_is_fixable_not_hidden() -> None:
    assert render_summary([_finding("A", UNSAFE, SAFE)], CTX) == (
        "Found 1 error.\n[*] 1 fixable with `--fix`.\n"
    )


def test_after_fix_the_summary_counts_fixed_and_remaining() -> None:
    assert render_summary([_finding()], CTX, fixed=3) == "Found 4 errors (3 fixed, 1 remaining).\n"
    assert render_summary([], CTX, fixed=2) == "Found 2 errors (2 fixed, 0 remaining).\n"


def test_concise_marks_fixable_findings_only() -> None:
    lines = render([_finding("A", SAFE, line=0), _finding("B", UNSAFE, line=1)], "concise", CTX)
    assert lines.splitlines() == ["a.md:1:1: A [*] msg", "a.md:2:1: B msg"]
    with_unsafe = render([_finding("B", UNSAFE)], "concise", UNSAFE_CTX)
    assert with_unsafe == "a.md:1:1: B [*] msg\n"


def test_statistics_sorted_by_count_then_code_with_fix_markers() -> None:
    findings = [
        _finding("FM006", UNSAFE),
        _finding("FM009", SAFE),
        _finding("FM009", SAFE),
        _finding("RS001", SAFE),
        _finding("RS001"),
        _finding("RS001", SAFE),
    ]
    assert render_statistics(findings, CTX).splitlines() == [
        "3\tRS001\t[-] broken-link",  # some fixable
        "2\tFM009\t[*] name-mismatch",  # all fixable
        "1\tFM006\t[ ] unknown-key",  # unsafe only: not fixable without --unsafe-fixes
    ]
    assert render_statistics(findings, UNSAFE_CTX).splitlines()[2] == "1\tFM006\t[*] unknown-key"


def test_statistics_pads_columns_and_omits_markers_when_nothing_is_fixable() -> None:
    findings = [_finding("FM001")] * 10 + [_finding("BD001")]
    assert render_statistics(findings, CTX).splitlines() == [
        "10\tFM001\tfrontmatter-missing",
        " 1\tBD001\tbody-too-long",
    ]


def test_statistics_uses_the_findings_name_for_codes_outside_the_catalogue() -> None:
    assert render_statistics([_finding("ZZ001")], CTX) == "1\tZZ001\tsome-name\n"


def test_statistics_of_nothing_is_empty() -> None:
    assert render_statistics([], CTX) == ""


def test_fix_summary_lists_files_then_rules_by_count_as_ruff_does() -> None:
    fixed = {
        Path("/ws/skills/b/SKILL.md"): Counter({"FM009": 1}),
        Path("/ws/skills/a/SKILL.md"): Counter({"FM006": 2, "RS001": 12}),
    }
    assert render_fix_summary(fixed, CTX) == (
        "Fixed 15 errors:\n"
        "- skills/a/SKILL.md:\n"
        "    12 × RS001 (broken-link)\n"
        "     2 × FM006 (unknown-key)\n"
        "- skills/b/SKILL.md:\n"
        "     1 × FM009 (name-mismatch)\n"
    )
    assert render_fix_summary({Path("/ws/a.md"): Counter({"FM009": 1})}, CTX).startswith(
        "Fixed 1 error:\n"
    )
    assert render_fix_summary({}, CTX) == ""


def test_available_fixes_name_the_fix_fix_would_apply_and_the_hidden_ones() -> None:
    findings = [
        _finding("FM009", SAFE, line=1, path="b.md"),
        _finding("FM006", UNSAFE, SAFE, line=0, path="b.md"),
        _finding("RS001", UNSAFE, line=4, path="a.md"),
        _finding("BD001", line=2, path="a.md"),  # no fix: not listed
    ]
    assert render_available_fixes(findings, CTX) == (
        "Fixes available for 3 errors:\n"
        "- a.md:\n"
        "    5:1 RS001 (unsafe) unsafe fix\n"
        "- b.md:\n"
        "    1:1 FM006 [*] safe fix\n"
        "    2:1 FM009 [*] safe fix\n"
    )
    with_unsafe = render_available_fixes(findings[2:3], UNSAFE_CTX)
    assert with_unsafe.splitlines()[-1] == "    5:1 RS001 [*] unsafe fix"
    assert render_available_fixes([_finding("BD001")], CTX) == ""
