"""`easel-ls check`: exit codes, fixes, formats and the no-pygls start-up path, as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_tools import make_workspace, run

from easel_ls import __version__


def test_version_and_help(tmp_path: Path) -> None:
    assert run("--version", cwd=tmp_path).stdout.strip() == f"easel-ls {__version__}"
    help_text = run("--help", cwd=tmp_path).stdout
    for command in ("check", "server", "rule", "sync"):
        assert f"  {command} " in help_text
    check_help = run("check", "--help", cwd=tmp_path).stdout
    assert "--output-format" in check_help and "--watch" in check_help
    assert "--add-suppressions" in check_help and "--show-fixes" in check_help


def test_clean_workspace_exits_zero_and_says_all_checks_passed(tmp_path: Path) -> None:
    make_workspace(tmp_path)
    result = run("check", "skills", "--output-format", "concise", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == "All checks passed!\n"
    assert result.stderr == ""


def test_findings_exit_one_and_exit_zero_flag(tmp_path: Path) -> None:
    make_workspace(tmp_path, name="card-makr", folder="card-maker")
    result = run("check", "--output-format", "concise", cwd=tmp_path)
    assert result.returncode == 1
    assert "skills/openclaw/card-maker/SKILL.md:2:7: FM009" in result.stdout
    assert run("check", "--exit-zero", cwd=tmp_path).returncode == 0


def test_usage_errors_exit_two(tmp_path: Path) -> None:
    assert run("check", "does-not-exist", cwd=tmp_path).returncode == 2
    make_workspace(tmp_path)
    (tmp_path / "easel-ls.toml").write_text("select = [\n", encoding="utf-8")
    result = run("check", cwd=tmp_path)
    assert result.returncode == 2
    assert "invalid TOML" in result.stderr
    assert "Traceback" not in result.stderr


def test_fix_applies_safe_fix_and_diff_writes_nothing(tmp_path: Path) -> None:
    make_workspace(tmp_path, name="card-makr", folder="card-maker")
    skill_md = tmp_path / "skills/openclaw/card-maker/SKILL.md"
    before = skill_md.read_text(encoding="utf-8")
    diff = run("check", "--diff", cwd=tmp_path)
    assert "-name: card-makr" in diff.stdout and "+name: card-maker" in diff.stdout
    assert skill_md.read_text(encoding="utf-8") == before
    fixed = run("check", "--fix", "--output-format", "concise", cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stdout
    assert "name: card-maker\n" in skill_md.read_text(encoding="utf-8")


def test_json_output_is_ruff_shaped(tmp_path: Path) -> None:
    make_workspace(tmp_path, name="card-makr", folder="card-maker")
    result = run("check", "--output-format", "json", cwd=tmp_path)
    payload = json.loads(result.stdout)
    (item,) = [p for p in payload if p["code"] == "FM009"]
    assert item["location"] == {"row": 2, "column": 7}
    assert item["fix"]["applicability"] == "safe"
    assert item["url"].endswith("#fm009-name-mismatch")


def test_select_ignore_and_statistics(tmp_path: Path) -> None:
    make_workspace(tmp_path, name="card-makr", folder="card-maker")
    assert run("check", "--ignore", "FM009", cwd=tmp_path).returncode == 0
    assert run("check", "--select", "BD", cwd=tmp_path).returncode == 0
    stats = run("check", "--statistics", cwd=tmp_path).stdout
    assert "FM009" in stats


def test_show_settings_reports_config(tmp_path: Path) -> None:
    make_workspace(tmp_path)
    (tmp_path / "easel-ls.toml").write_text("max-body-lines = 150\n", encoding="utf-8")
    settings = json.loads(run("check", "--show-settings", cwd=tmp_path).stdout)
    assert settings["options"]["max-body-lines"] == 150
    assert settings["config_path"].endswith("easel-ls.toml")


def test_rule_docs(tmp_path: Path) -> None:
    one = run("rule", "CM002", cwd=tmp_path)
    assert one.returncode == 0 and "unknown-option (CM002)" in one.stdout
    assert "**What it does**" in one.stdout
    everything = run("rule", "--all", cwd=tmp_path).stdout
    assert everything.count("**What it does**") == 69
    assert run("rule", "CM999", cwd=tmp_path).returncode == 2


def test_unreadable_files_give_ez004_not_a_traceback(tmp_path: Path) -> None:
    make_workspace(tmp_path)
    refs = tmp_path / "skills/openclaw/card-maker/references"
    refs.mkdir()
    (refs / "binary.md").write_bytes(b"\x00\x01\x02binary")
    (refs / "latin1.md").write_bytes("caf\xe9".encode("latin-1"))
    (refs / "dangling.md").symlink_to(tmp_path / "nowhere.md")
    result = run("check", "--output-format", "concise", cwd=tmp_path)
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stdout.splitlines() if "EZ004" in line]
    assert len(lines) == 3, result.stdout


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "skills", "--output-format", "concise"],
        ["--check", "--output-format", "concise", "skills"],  # the deprecated spelling
        ["check", "--add-suppressions", "skills"],
        ["sync", "--dry-run", "--target", "target"],
    ],
    ids=["check", "--check", "add-suppressions", "sync"],
)
def test_checking_never_imports_pygls(tmp_path: Path, argv: list[str]) -> None:
    make_workspace(tmp_path)
    probe = (
        "import sys\n"
        "from easel_ls.cli import main\n"
        f"code = main({argv!r})\n"
        "assert 'pygls' not in sys.modules and 'lsprotocol' not in sys.modules, 'pygls imported'\n"
        "import easel_ls.watch\n"
        "assert 'pygls' not in sys.modules, 'the watch mode imports pygls'\n"
        "sys.exit(code)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    "fmt", ["concise", "full", "json", "json-lines", "github", "sarif", "junit"]
)
def test_every_output_format_runs(tmp_path: Path, fmt: str) -> None:
    make_workspace(tmp_path, name="card-makr", folder="card-maker")
    result = run("check", "--output-format", fmt, cwd=tmp_path)
    assert result.returncode == 1
    assert "FM009" in result.stdout


def test_output_file(tmp_path: Path) -> None:
    make_workspace(tmp_path, name="card-makr", folder="card-maker")
    out = tmp_path / "report.json"
    run("check", "--output-format", "json", "--output-file", str(out), cwd=tmp_path)
    assert json.loads(out.read_text(encoding="utf-8"))[0]["code"] == "FM009"


@pytest.mark.parametrize("skills", [1, 400])
def test_exit_skips_teardown_but_not_output(tmp_path: Path, skills: int) -> None:
    """`easel-ls` ends a check with os._exit: every byte written must still arrive, whether it
    still sits in the stream's buffer (a small report) or far exceeds a pipe (a large one)."""
    for i in range(skills):
        make_workspace(tmp_path, name=f"card-makr-{i}", folder=f"card-maker-{i}")
    buffered = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}

    def check(*extra: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "easel_ls", "check", "--output-format", "json"]
        return subprocess.run(
            [*command, *extra], cwd=tmp_path, env=buffered, capture_output=True, text=True
        )

    result = check()
    assert result.returncode == 1
    findings = json.loads(result.stdout)
    assert {f["filename"] for f in findings} >= {
        f"skills/openclaw/card-maker-{i}/SKILL.md" for i in range(skills)
    }
    exit_zero = check("--exit-zero")
    assert exit_zero.returncode == 0 and json.loads(exit_zero.stdout) == findings
