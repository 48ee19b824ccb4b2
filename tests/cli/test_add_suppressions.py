"""`easel-ls check --add-suppressions` (ruff's `--add-noqa`): the right comment for every
current finding, bytes outside the comments untouched, twice changes nothing, and afterwards
`check` reports nothing for them (and no EZ001 on the comments written)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_tools import make_workspace, run

from easel_ls.add_suppressions import suppress_file
from easel_ls.workspace import Workspace

SKILL = "skills/openclaw/card-maker/SKILL.md"
SCRIPT = "skills/openclaw/card-maker/scripts/render.py"
CRLF = "skills/openclaw/card-maker/references/crlf.md"
ORPHAN = "skills/openclaw/card-maker/references/orphan.md"
WRITER = "skills/openclaw/card-maker/scripts/export.py"
EXPECTED = "skills/openclaw/card-maker/tests/test1.expected"
MANIFEST = "outputs/坏清单/.easel.json"

EXPORT_SCRIPT = '''\
"""Write the note of a topic."""
import argparse
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--topic", required=True)
    args = parser.parse_args()
    out = Path("outputs") / args.topic
    (out / "note.md").write_text("笔记", "utf-8")


main()
'''


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".easel-ls-cache" not in p.parts
    }


@pytest.fixture()
def backlog(tmp_path: Path) -> Path:
    """A workspace with the findings a team adopting easel-ls would have: each kind of place a
    comment goes, and files that cannot carry one."""
    root = make_workspace(tmp_path, script=True)
    skill = root / SKILL
    _edit(skill, "layer: produce", "layer: prodcue")  # FM008 on a frontmatter line
    _edit(skill, "--size 3x4", "--sise 3x4")  # CM002 in a fenced command
    _edit(
        skill,
        "1. 读取策划稿。",
        "1. 读取策划稿：\n   - 规范见 [设计](references/design.md)，"  # RS001 in a list item
        "导出见 `python skills/openclaw/card-maker/scripts/export.py --topic <主题>`",
    )
    _edit(
        skill,
        "## Profile 感知",
        "| 画幅 | 说明 |\n|---|---|\n| 3x4 | 见 [表](references/sizes.md) |\n\n"  # RS001 in a table
        "> 引用 [旧规范](references/old.md)\n\n"  # RS001 in a blockquote
        "格式见 [crlf](references/crlf.md)。\n\n"
        "## Profile 感知",
    )
    (root / CRLF).parent.mkdir(parents=True)
    # RS001 in a reference with a BOM, CRLF line breaks and CJK text
    (root / CRLF).write_bytes("\ufeff# 标题\r\n\r\n看 [这里](missing.md)。\r\n".encode())
    (root / ORPHAN).write_text("# 孤儿\n\n没有人链接我。\n", encoding="utf-8")  # RS003, line 1
    (root / WRITER).write_text(EXPORT_SCRIPT, encoding="utf-8")  # PB003 on a Python line
    (root / EXPECTED).parent.mkdir()
    (root / EXPECTED).write_text("# TODO\n", encoding="utf-8")  # TS002: no comment syntax
    (root / "skills/openclaw/card-maker/tests/test1.prompt").write_text("做卡片\n", "utf-8")
    (root / MANIFEST).parent.mkdir(parents=True)
    (root / MANIFEST).write_text('{\n  "topic": "坏清单",\n\n}\n', encoding="utf-8")  # MF001
    return root


def test_every_finding_gets_its_comment_and_check_is_quiet_afterwards(backlog: Path) -> None:
    before = run("check", "--output-format", "json", "--no-cache", cwd=backlog)
    codes = sorted(f["code"] for f in json.loads(before.stdout))
    assert codes == sorted(
        ["FM008", "CM002", "RS001", "RS001", "RS001", "RS001", "RS003", "PB003", "TS002", "MF001"]
    ), before.stdout
    files = _files(backlog)

    result = run("check", "--add-suppressions", cwd=backlog)
    assert result.returncode == 1, result.stdout + result.stderr  # two findings remain
    lines = result.stdout.splitlines()
    assert lines[0] == "Added 8 suppression comments to 4 files (8 findings suppressed)."
    assert lines[1] == "2 findings not suppressed:"
    assert lines[2].startswith(f"{MANIFEST}:4:1: MF001 not valid JSON")
    assert lines[2].endswith("(JSON has no comments)")
    assert lines[3].startswith(f"{EXPECTED}:1:1: TS002 ")
    assert lines[3].endswith("(skill tests have no comment syntax)")

    after = _files(backlog)
    changed = {name for name in after if after[name] != files.get(name)}
    assert changed == {SKILL, CRLF, ORPHAN, WRITER}
    skill = after[SKILL].decode()
    assert "layer: prodcue  # easel-ls: ignore[FM008]\n" in skill
    assert "--sise 3x4  # easel-ls: ignore[CM002]\n```" in skill
    assert (
        "   <!-- easel-ls-disable-next-line RS001 -->\n   - 规范见 [设计](references/design.md)"
        in skill
    )
    assert "> <!-- easel-ls-disable-next-line RS001 -->\n> 引用 [旧规范]" in skill
    # A table row cannot have a line above it: the file directive, after the frontmatter.
    assert (
        "layer: prodcue  # easel-ls: ignore[FM008]\n---\n<!-- easel-ls-disable-file RS001 -->\n"
        in skill
    )
    assert skill.count("easel-ls-disable-file") == 1
    inserted = [
        "  # easel-ls: ignore[FM008]",
        "  # easel-ls: ignore[CM002]",
        "   <!-- easel-ls-disable-next-line RS001 -->\n",
        "> <!-- easel-ls-disable-next-line RS001 -->\n",
        "<!-- easel-ls-disable-file RS001 -->\n",
    ]
    for text in inserted:
        assert skill.count(text) == 1
        skill = skill.replace(text, "")
    assert skill.encode() == files[SKILL]  # nothing else changed
    # Everything else byte for byte: the CRLF breaks and the BOM too.
    assert (
        after[CRLF]
        == (
            "\ufeff# 标题\r\n\r\n<!-- easel-ls-disable-next-line RS001 -->\r\n看 [这里](missing.md)。\r\n"
        ).encode()
    )
    assert after[ORPHAN] == files[ORPHAN].replace(
        b"# ", b"<!-- easel-ls-disable-file RS003 -->\n# ", 1
    )
    assert after[WRITER] == files[WRITER].replace(
        b"args.topic\n", b"args.topic  # easel-ls: ignore[PB003]\n"
    )
    for name in changed - {SKILL}:
        assert after[name].count(b"easel-ls") == 1

    # `check` now reports only what could not carry a comment: no EZ001 on the comments.
    check = run("check", "--output-format", "json", "--no-cache", cwd=backlog)
    assert sorted(f["code"] for f in json.loads(check.stdout)) == ["MF001", "TS002"]


def test_running_it_twice_changes_nothing(backlog: Path) -> None:
    run("check", "--add-suppressions", cwd=backlog)
    once = _files(backlog)
    again = run("check", "--add-suppressions", cwd=backlog)
    assert again.stdout.splitlines()[0] == "Added no suppression comments."
    assert again.returncode == 1
    assert _files(backlog) == once


def test_exit_zero_and_a_clean_workspace(tmp_path: Path) -> None:
    make_workspace(tmp_path, script=True)
    files = _files(tmp_path)
    clean = run("check", "--add-suppressions", cwd=tmp_path)
    assert (clean.returncode, clean.stdout) == (0, "Added no suppression comments.\n")
    assert _files(tmp_path) == files
    (tmp_path / "outputs/x").mkdir(parents=True)
    (tmp_path / "outputs/x/.easel.json").write_text("{", encoding="utf-8")
    assert run("check", "--add-suppressions", "--exit-zero", cwd=tmp_path).returncode == 0


def _workspace(root: Path, skill_md: str) -> tuple[Workspace, Path]:
    make_workspace(root, script=True)
    path = root / SKILL
    path.write_text(skill_md, encoding="utf-8")
    return Workspace.at(root), path


def test_a_finding_inside_a_yaml_block_gets_a_file_directive_not_a_changed_value(
    tmp_path: Path,
) -> None:
    make_workspace(tmp_path, script=True)
    skill = (tmp_path / SKILL).read_text(encoding="utf-8")
    # FM015 sits on the description's second line, inside the folded block: a `#` there would
    # become part of the description.
    ws, path = _workspace(tmp_path, skill.replace("`xhs-publish`", "`xhs-pub`"))
    outcome = suppress_file(ws, path)
    assert outcome.text is not None and outcome.suppressed == 1
    assert outcome.text == skill.replace("`xhs-publish`", "`xhs-pub`").replace(
        "layer: produce\n---\n", "layer: produce\n---\n<!-- easel-ls-disable-file FM015 -->\n"
    )


def test_codes_join_an_existing_directive(tmp_path: Path) -> None:
    make_workspace(tmp_path, script=True)
    skill = (tmp_path / SKILL).read_text(encoding="utf-8")
    line = "见 [设计](references/design.md)，`python skills/openclaw/card-maker/scripts/render.py render --sise 1`"
    text = skill.replace("1. 读取策划稿。", f"<!-- easel-ls-disable-next-line RS001 -->\n{line}\n")
    ws, path = _workspace(tmp_path, text)
    outcome = suppress_file(ws, path)
    assert outcome.text == text.replace(
        "easel-ls-disable-next-line RS001 -->", "easel-ls-disable-next-line RS001, CM002 -->"
    )


def test_a_python_line_that_ends_inside_a_string_is_never_changed(tmp_path: Path) -> None:
    make_workspace(tmp_path, script=True)
    script = tmp_path / WRITER
    # PB003 sits on line 4, which ends inside a triple-quoted string: a `#` there would be part
    # of the string. Line 1 (RS003, the script is an orphan) takes its comment.
    text = (
        '"""Write the note."""\n'
        "from pathlib import Path\n\n"
        'NOTE = Path("outputs") / """x\n'
        '""" / "note.md"\n'
        'NOTE.write_text("笔记", "utf-8")\n'
    )
    script.write_text(text, encoding="utf-8")
    ws = Workspace.at(tmp_path)
    outcome = suppress_file(ws, script)
    assert outcome.suppressed == 1
    assert outcome.text == text.replace(
        '"""Write the note."""', '"""Write the note."""  # easel-ls: ignore[RS003]'
    )


def test_the_shebang_line_of_a_script_is_never_changed(tmp_path: Path) -> None:
    make_workspace(tmp_path, script=True)
    script = tmp_path / "skills/openclaw/card-maker/scripts/tool.sh"
    script.write_text("#!/usr/bin/env bash\necho hi\n", encoding="utf-8")
    files = _files(tmp_path)
    result = run("check", "--add-suppressions", cwd=tmp_path)
    assert result.returncode == 1
    assert _files(tmp_path) == files
    assert result.stdout.splitlines()[-1].endswith(
        "(line 1 is the script's #! line; `per-file-ignores` in the config can take it)"
    )


def test_shell_lines_inside_a_here_document_or_a_string_are_never_changed(tmp_path: Path) -> None:
    make_workspace(tmp_path, script=True)
    script = tmp_path / "skills/openclaw/card-maker/scripts/tool.sh"
    text = (
        "echo start\n"
        "cat > /tmp/x <<EOF\n"
        "write to outputs/analytics/report.md\n"  # OP006 in a here-document: data, not a line
        "EOF\n"
        "cp a outputs/analytics/b.md\n"  # OP006 on a command line
        'echo "multi\n'
        'outputs/analytics/c.md"\n'  # OP006 on the line where the string closes
    )
    script.write_text(text, encoding="utf-8")
    outcome = suppress_file(Workspace.at(tmp_path), script)
    assert outcome.suppressed == 3  # RS003 on line 1, and two of the three OP006
    assert outcome.text == (
        "echo start  # easel-ls: ignore[RS003]\n"
        "cat > /tmp/x <<EOF\n"
        "write to outputs/analytics/report.md\n"
        "EOF\n"
        "cp a outputs/analytics/b.md  # easel-ls: ignore[OP006]\n"
        'echo "multi\n'
        'outputs/analytics/c.md"  # easel-ls: ignore[OP006]\n'
    )
