"""`easel-ls rename-option` and `easel-ls references`, run as a user runs them (a subprocess),
on the graph fixture: the same edits and locations the language server gives."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_tools import run

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "graph"
SCRIPT = "skills/openclaw/deck-builder/scripts/deck.py"
SKILL = "skills/openclaw/deck-builder/SKILL.md"
OUTLINE = "skills/openclaw/deck-builder/references/outline.md"
REVIEW = "skills/openclaw/slide-review/SKILL.md"


@pytest.fixture()
def root(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "ws")
    return tmp_path / "ws"


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_rename_option_rewrites_the_script_and_every_documented_use(root: Path) -> None:
    before = snapshot(root)
    done = run("rename-option", SCRIPT, "--topic", "--subject", cwd=root)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Renamed `--topic` to `--subject`: 7 edits in 4 files.\n"
    after = snapshot(root)
    assert 'add_argument("--subject", dest="topic"' in after[SCRIPT].decode()
    assert "build --subject <主题> --theme=paper" in after[SKILL].decode()
    # Bytes outside the renamed spans are untouched: CRLF in the reference, the BOM.
    assert after[OUTLINE] == before[OUTLINE].replace(b"--topic", b"--subject")
    assert after[REVIEW] == before[REVIEW].replace(b"--topic", b"--subject")
    checked = run("check", ".", "--select", "CM", cwd=root)
    assert checked.returncode == 0, checked.stdout


def test_rename_option_dry_run_prints_the_diff_and_writes_nothing(root: Path) -> None:
    before = snapshot(root)
    done = run("rename-option", "--dry-run", SCRIPT, "export", "publish", cwd=root)
    assert done.returncode == 0, done.stderr
    assert f"+++ b/{OUTLINE}" in done.stdout
    assert '-    export = sub.add_parser("export", aliases=["ex"], help="导出 PDF")' in done.stdout
    assert done.stdout.endswith("Would rename `export` to `publish`: 3 edits in 2 files.\n")
    assert snapshot(root) == before


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("--topic", "--theme", "`--theme` already exists in `build`"),
        ("--nope", "--yes", "defines no option or subcommand `--nope`"),
        ("--topic", "topic", "not a valid option string"),
    ],
)
def test_rename_option_refuses_with_a_clear_message(
    root: Path, old: str, new: str, message: str
) -> None:
    before = snapshot(root)
    done = run("rename-option", SCRIPT, old, new, cwd=root)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr
    assert snapshot(root) == before


def test_references_of_a_script_line_list_the_definition_then_the_uses(root: Path) -> None:
    done = run("references", f"{SCRIPT}:8", cwd=root)
    assert done.returncode == 0, done.stderr
    assert [line.split(": ", 1)[0] for line in done.stdout.splitlines()] == [
        f"{SCRIPT}:8:26",
        f"{SKILL}:22:59",
        f"{SKILL}:23:59",
        f"{SKILL}:25:64",
        f"{OUTLINE}:6:60",
        f"{REVIEW}:21:63",
    ]


def test_references_json_and_a_markdown_position(root: Path) -> None:
    done = run("references", f"{SKILL}:22:90", "--output-format", "json", cwd=root)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert [(r["path"], r["line"]) for r in rows] == [(SCRIPT, 13), (SKILL, 22)]
    assert rows[1]["column"] == 86 and rows[1]["end_column"] == 95


def test_references_of_a_line_that_defines_nothing(root: Path) -> None:
    done = run("references", f"{SCRIPT}:1", cwd=root)
    assert done.returncode == 2
    assert "nothing the graph knows is there" in done.stderr
    bad = run("references", SCRIPT, cwd=root)
    assert bad.returncode == 2 and "is not FILE:LINE" in bad.stderr


def test_the_cli_says_what_it_needs_for_files_that_are_not_scripts(root: Path) -> None:
    renamed = run("rename-option", SKILL, "--topic", "--subject", cwd=root)
    assert renamed.returncode == 2 and "is not a Python script" in renamed.stderr
    listed = run("references", f"{SKILL}:22", cwd=root)
    assert listed.returncode == 2 and f"give a column, {SKILL}:22:COLUMN" in listed.stderr


def test_rename_option_picks_one_of_several_definitions_by_line(root: Path) -> None:
    script = root / SCRIPT
    text = script.read_text(encoding="utf-8")
    # Each subcommand with its own --format: a name defined twice.
    text = text.replace(
        'run.add_argument("--retries", type=int, default=0)',
        'run.add_argument("--retries", type=int, default=0)\n'
        '    run.add_argument("--format", choices=["txt"], default="txt")',
    )
    script.write_text(text, encoding="utf-8")
    ambiguous = run("rename-option", SCRIPT, "--format", "--kind", cwd=root)
    assert ambiguous.returncode == 2
    assert f"say which, as {SCRIPT}:LINE" in ambiguous.stderr
    line = (
        text.splitlines().index(
            '    export.add_argument("--format", choices=["pdf", "png"], default="pdf")'
        )
        + 1
    )
    done = run("rename-option", f"{SCRIPT}:{line}", "--format", "--kind", cwd=root)
    assert done.returncode == 0, done.stderr
    after = script.read_text(encoding="utf-8")
    assert 'export.add_argument("--kind", dest="format"' in after
    assert 'run.add_argument("--format", choices=["txt"]' in after
    assert "--kind pdf" in (root / SKILL).read_text(encoding="utf-8")
