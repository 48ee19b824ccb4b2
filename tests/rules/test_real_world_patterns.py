"""Patterns that real Easel repositories write every day, each as a look-alike in our own words.

`tests/fixtures/lookalikes/` is a small workspace whose skills write what real skills write:
placeholder words in output paths, bare neighbour names, section synonyms, `../` paths in code
spans, former skills named on purpose, references linked from AGENTS.md, `--selftest` handled
before argparse, a file-name template (`references/genre-{体裁}.md`), a group of skills kept in
their upstream form (`skills/upstream/`). Each pattern sits beside the defect it resembles, so the test pins both what
easel-ls must flag and what it must leave alone. `tests/fixtures/lookalikes-vi/` does the same for
a team that writes in Vietnamese, with the example config of docs/rules.md.
"""

from __future__ import annotations

import re
import shutil
import tomllib
from pathlib import Path

import pytest

from easel_ls.batch import check_paths
from easel_ls.config import ConfigResolver, settings_from_table
from easel_ls.findings import Finding
from easel_ls.workspace import Workspace

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
DOCS = Path(__file__).resolve().parents[2] / "docs"
LANGUAGE_EXAMPLE = DOCS / "examples" / "vi.easel-ls.toml"


def _check(folder: Path, tmp_path: Path, config: Path | None = None) -> list[Finding]:
    root = tmp_path / folder.name
    shutil.copytree(folder, root)
    root = root.resolve()
    ws = Workspace(root=root, config=ConfigResolver(config, stop_at=root))
    return list(check_paths(ws, [root]))


def _summary(findings: list[Finding], root: Path) -> set[tuple[str, int, str]]:
    return {(f.code, f.range.start.line + 1, f.path.relative_to(root).as_posix()) for f in findings}


@pytest.fixture
def lookalikes(tmp_path: Path) -> tuple[list[Finding], Path]:
    findings = _check(FIXTURES / "lookalikes", tmp_path)
    return findings, (tmp_path / "lookalikes").resolve()


STORY = "skills/openclaw/story-board"


def _codes_in(findings: list[Finding], root: Path, rel: str) -> list[str]:
    return sorted(f.code for f in findings if f.path.relative_to(root).as_posix() == rel)


def test_the_lookalike_workspace_reports_exactly_its_real_defects(lookalikes) -> None:
    findings, root = lookalikes
    assert _summary(findings, root) == {
        # A former skill is spared; a skill that never existed is not.
        ("FM015", 6, "skills/openclaw/merged-writer/SKILL.md"),
        # No trigger wording, no boundary, too short, no `## 输入`.
        ("FM012", 3, "skills/openclaw/quote-card/SKILL.md"),
        ("FM013", 3, "skills/openclaw/quote-card/SKILL.md"),
        ("FM014", 3, "skills/openclaw/quote-card/SKILL.md"),
        ("BD002", 9, "skills/openclaw/quote-card/SKILL.md"),
        # A file at the outputs root; the project folder written twice.
        ("OP006", 13, "skills/openclaw/quote-card/SKILL.md"),
        ("OP006", 14, "skills/openclaw/quote-card/SKILL.md"),
        # A command that climbs out of the workspace on every reading.
        ("RS005", 18, "skills/openclaw/book-writer/SKILL.md"),
        # A reference nothing in its skill folder mentions.
        ("RS003", 1, f"{STORY}/references/unused.md"),
    }


def test_a_template_names_a_family_of_references(lookalikes) -> None:
    # book-writer: `references/genre-{体裁}.md` names every genre file (genre-mystery.md is not
    # an orphan), and the stub before the brace is no missing file.
    findings, root = lookalikes
    book = "skills/openclaw/book-writer"
    assert "RS002" not in _codes_in(findings, root, f"{book}/SKILL.md")
    assert _codes_in(findings, root, f"{book}/references/genre-mystery.md") == []


def test_skills_kept_in_their_upstream_form_are_not_judged_as_easel_skills(lookalikes) -> None:
    # skills/upstream/post-scheduler ships as its own project wrote it: no `layer`, English, a
    # link into docs it does not carry. No Easel group, so nothing is reported there.
    findings, root = lookalikes
    upstream = [f for f in findings if f.path.relative_to(root).parts[:2] == ("skills", "upstream")]
    assert upstream == []


def test_placeholder_words_in_output_paths_are_not_folder_names(lookalikes) -> None:
    # `outputs/主题名/storyboard.md`, `outputs/书名/chapters/` (story-board, book-writer).
    findings, root = lookalikes
    assert _codes_in(findings, root, f"{STORY}/SKILL.md") == []
    assert "OP006" not in _codes_in(findings, root, "skills/openclaw/book-writer/SKILL.md")
    doubled = [f for f in findings if f.code == "OP006" and "twice" in f.message]
    assert [f.range.start.line + 1 for f in doubled] == [14]


def test_a_bare_neighbour_name_draws_a_boundary(lookalikes) -> None:
    # voice-over says `先走 story-board` with no boundary word; book-writer names merged-writer.
    findings, root = lookalikes
    assert _codes_in(findings, root, "skills/openclaw/voice-over/SKILL.md") == []
    assert "FM013" not in _codes_in(findings, root, "skills/openclaw/book-writer/SKILL.md")


def test_former_skills_are_named_on_purpose(lookalikes) -> None:
    findings, _root = lookalikes
    unknown = sorted(f.message for f in findings if f.code == "FM015")
    assert unknown == ["description names skill `layout-helper`, which is not in the workspace"]


def test_section_synonyms_and_joined_headings_count(lookalikes) -> None:
    # `## 产物结构`, `## 执行流程` (story-board); `## 输入与输出`, `## 步骤`, `## 画像感知` (book-writer).
    findings, _root = lookalikes
    missing = [f for f in findings if f.code == "BD002"]
    assert [f.path.parent.name for f in missing] == ["quote-card"]
    assert missing[0].message.startswith("section `## 输入` is missing (accepted headings: `输入`")


def test_dot_dot_paths_in_spans_read_from_their_file(lookalikes) -> None:
    # `../../shared/scripts/word_count.py` in SKILL.md is a module mention (no CM010), and
    # `python ../scripts/make_board.py` in references/shots.md is the skill's own script.
    findings, root = lookalikes
    assert _codes_in(findings, root, f"{STORY}/references/shots.md") == []
    assert not [
        f for f in findings if f.code in ("CM010", "RS005") and "story-board" in str(f.path)
    ]


def test_a_reference_linked_from_agents_md_is_not_an_orphan(lookalikes) -> None:
    findings, root = lookalikes
    assert _codes_in(findings, root, f"{STORY}/references/schedule.md") == []


def test_selftest_handled_before_argparse_needs_no_required_option(lookalikes) -> None:
    findings, _root = lookalikes
    assert not [f for f in findings if f.code.startswith("CM")]


def test_a_missing_required_option_is_still_reported(tmp_path: Path) -> None:
    folder = tmp_path / "src"
    shutil.copytree(FIXTURES / "lookalikes", folder)
    skill = folder / STORY / "SKILL.md"
    text = skill.read_text("utf-8").replace("--topic <主题> --shots 8", "--shots 8")
    skill.write_text(text, "utf-8")
    findings = _check(folder, tmp_path / "run")
    assert [(f.code, f.message) for f in findings if f.code == "CM005"] == [
        ("CM005", "missing required argument: `--topic`")
    ]


def _vietnamese_example() -> str:
    """The TOML block of docs/rules.md's "Skills in another language" section."""
    page = (DOCS / "rules.md").read_text("utf-8")
    section = page.split("## Skills in another language", 1)[1]
    block = re.search(r"```toml\n(.*?)```", section, re.S)
    assert block is not None
    return block.group(1)


def test_the_language_example_in_the_docs_is_the_example_file() -> None:
    assert _vietnamese_example() == LANGUAGE_EXAMPLE.read_text("utf-8")
    settings_from_table(tomllib.loads(_vietnamese_example()), LANGUAGE_EXAMPLE)  # valid config


def test_a_vietnamese_workspace_with_the_example_config(tmp_path: Path) -> None:
    findings = _check(FIXTURES / "lookalikes-vi", tmp_path, LANGUAGE_EXAMPLE)
    root = (tmp_path / "lookalikes-vi").resolve()
    # video-cut says when to trigger (`Dùng khi`), names its neighbour, and its headings
    # (`Đầu vào / đầu ra`, `Các bước thực hiện`, `Nhận biết Profile`) cover every section.
    # sound-clean has no trigger wording, no boundary and no output section: all reported.
    assert _summary(findings, root) == {
        ("FM012", 3, "skills/openclaw/sound-clean/SKILL.md"),
        ("FM013", 3, "skills/openclaw/sound-clean/SKILL.md"),
        ("BD002", 9, "skills/openclaw/sound-clean/SKILL.md"),
    }


def test_without_the_config_vietnamese_descriptions_are_not_chinese(tmp_path: Path) -> None:
    findings = _check(FIXTURES / "lookalikes-vi", tmp_path)
    assert {f.path.parent.name for f in findings if f.code == "FM011"} == {
        "video-cut",
        "sound-clean",
    }
