"""The closing summary, `--statistics`, and the `[*]` marker of `concise`, as ruff prints them."""

from __future__ import annotations

from pathlib import Path

from easel_ls.findings import Applicability, Finding, Fix, Range, Severity
from easel_ls.report import ReportContext, render, render_statistics, render_summary

CTX = ReportContext(Path("/ws"), lambda path: None)
UNSAFE_CTX = ReportContext(Path("/ws"), lambda path: None, unsafe_fixes=True)
SAFE = Fix("safe fix", Applicability.SAFE)
UNSAFE = Fix("unsafe fix", Applicability.UNSAFE)


def _finding(code: str = "FM009", *fixes: Fix, line: int = 0) -> Finding:
    return Finding(
        code, "some-name", Severity.ERROR, "msg", Path("/ws/a.md"), Range.of(line, 0, line, 1),
        fixes=list(fixes),
    )  # fmt: skip


def test_no_findings_means_all_checks_passed() -> None:
    assert render_summary([], CTX) == "All checks passed!\n"


def test_counts_findings_with_ruffs_plural() -> None:
    assert render_summary([_finding()], CTX) == "Found 1 error.\n"
    assert render_summary([_finding(), _finding()], CTX) == "Found 2 errors.\n"


def test_safe_fixes_are_fixable_unsafe_ones_hidden() -> None:
    findings = [_finding("A", SAFE), _finding("B", UNSAFE), _finding("C", UNSAFE), _finding("D")]
    assert render_summary(findings, CTX) == (
        "Found 4 errors.\n"
        "[*] 1 fixable with the --fix option.\n"
        "(2 hidden fixes can be enabled with the --unsafe-fixes option.)\n"
    )
    assert render_summary([_finding("B", UNSAFE)], CTX) == (
        "Found 1 error.\n(1 hidden fix can be enabled with the --unsafe-fixes option.)\n"
    )


def test_with_unsafe_fixes_every_fix_counts_and_nothing_is_hidden() -> None:
    findings = [_finding("A", SAFE), _finding("B", UNSAFE), _finding("D")]
    assert render_summary(findings, UNSAFE_CTX) == (
        "Found 3 errors.\n[*] 2 fixable with the --fix option.\n"
    )


def test_a_finding_with_a_safe_and_an_unsafe_fix_is_fixable_not_hidden() -> None:
    assert render_summary([_finding("A", UNSAFE, SAFE)], CTX) == (
        "Found 1 error.\n[*] 1 fixable with the --fix option.\n"
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
