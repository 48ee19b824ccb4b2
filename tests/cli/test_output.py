"""Output a person can read at a glance: `All checks passed!` on a clean run (the text formats
only), ruff's summary line with the fixable count, `--quiet`, `--show-fixes`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_tools import make_workspace, run

SKILL = "skills/openclaw/card-maker/SKILL.md"
FINDING = f"{SKILL}:2:7: FM009 [*] name `card-makr` differs from the skill folder `card-maker`\n"


@pytest.fixture()
def drifted(tmp_path: Path) -> Path:
    """card-maker's frontmatter says `name: card-makr`: one FM009, with a safe fix."""
    return make_workspace(tmp_path, name="card-makr", folder="card-maker")


@pytest.mark.parametrize("fmt", ["concise", "full"])
def test_a_clean_run_says_all_checks_passed(tmp_path: Path, fmt: str) -> None:
    make_workspace(tmp_path)
    result = run("check", "--output-format", fmt, cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "All checks passed!\n")


@pytest.mark.parametrize("fmt", ["json", "json-lines", "sarif", "junit", "github"])
def test_machine_formats_never_carry_the_summary(tmp_path: Path, fmt: str) -> None:
    make_workspace(tmp_path)
    clean = run("check", "--output-format", fmt, cwd=tmp_path)
    assert clean.returncode == 0
    assert "All checks passed" not in clean.stdout and "Found" not in clean.stdout
    if fmt == "json":
        assert json.loads(clean.stdout) == []
    make_workspace(tmp_path, name="card-makr", folder="card-maker")
    found = run("check", "--output-format", fmt, cwd=tmp_path)
    assert found.returncode == 1 and "Found 1 error" not in found.stdout


def test_the_summary_counts_errors_and_fixable_ones_as_ruff_does(drifted: Path) -> None:
    result = run("check", "--output-format", "concise", cwd=drifted)
    assert result.returncode == 1
    assert result.stdout == FINDING + "Found 1 error.\n[*] 1 fixable with `--fix`.\n"


def test_the_summary_goes_into_the_output_file_too(drifted: Path) -> None:
    report = drifted / "report.txt"
    result = run("check", "--output-format", "concise", "--output-file", str(report), cwd=drifted)
    assert result.returncode == 1 and result.stdout == ""
    assert report.read_text(encoding="utf-8") == (
        FINDING + "Found 1 error.\n[*] 1 fixable with `--fix`.\n"
    )


def test_quiet_prints_the_findings_only(drifted: Path) -> None:
    result = run("check", "--quiet", "--output-format", "concise", cwd=drifted)
    assert (result.returncode, result.stdout) == (1, FINDING)
    assert run("check", "-q", "--output-format", "concise", "--fix", cwd=drifted).stdout == ""


def test_quiet_on_a_clean_run_prints_nothing(tmp_path: Path) -> None:
    make_workspace(tmp_path)
    result = run("check", "-q", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_statistics_end_with_the_summary(drifted: Path) -> None:
    result = run("check", "--statistics", "--output-format", "concise", cwd=drifted)
    assert result.stdout.splitlines() == [
        "1\tFM009\t[*] name-mismatch",
        "Found 1 error.",
        "[*] 1 fixable with `--fix`.",
    ]


def test_show_fixes_lists_the_fixes_available(drifted: Path) -> None:
    result = run("check", "--show-fixes", "--output-format", "concise", cwd=drifted)
    assert result.returncode == 1
    assert result.stdout == (
        FINDING
        + "\nFixes available for 1 error:\n"
        + f"- {SKILL}:\n"
        + "    2:7 FM009 [*] Set name to `card-maker`\n"
        + "\nFound 1 error.\n[*] 1 fixable with `--fix`.\n"
    )


def test_show_fixes_with_fix_lists_what_was_fixed(drifted: Path) -> None:
    before = (drifted / SKILL).read_text(encoding="utf-8")
    result = run("check", "--fix", "--show-fixes", "--output-format", "concise", cwd=drifted)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == (
        "Fixed 1 error:\n"
        f"- {SKILL}:\n"
        "    1 × FM009 (name-mismatch)\n"
        "\nFound 1 error (1 fixed, 0 remaining).\n"
    )
    assert (drifted / SKILL).read_text(encoding="utf-8") == before.replace(
        "name: card-makr", "name: card-maker"
    )
    # Without --show-fixes only the count says what happened.
    (drifted / SKILL).write_text(before, encoding="utf-8")
    plain = run("check", "--fix", "--output-format", "concise", cwd=drifted)
    assert plain.stdout == "Found 1 error (1 fixed, 0 remaining).\n"
