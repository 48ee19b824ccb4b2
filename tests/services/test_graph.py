"""The script ↔ docs graph (tests/fixtures/graph): references, highlights, code lenses, rename
and file moves, as the services compute them. A rename leaves `easel-ls check` with no new CM
finding, on a script with nested subcommands, a parent parser, a helper-added option and
abbreviated options."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from easel_ls.batch import check_paths
from easel_ls.config import ConfigResolver
from easel_ls.findings import Position
from easel_ls.fixes import apply_edits
from easel_ls.model.text import TextDocument
from easel_ls.services import graph, refactor
from easel_ls.workspace import Workspace

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "graph"
DECK = "skills/openclaw/deck-builder"
SCRIPT = f"{DECK}/scripts/deck.py"
SKILL = f"{DECK}/SKILL.md"
OUTLINE = f"{DECK}/references/outline.md"
REVIEW = "skills/openclaw/slide-review/SKILL.md"


@pytest.fixture()
def root(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "ws")
    return tmp_path / "ws"


def workspace(root: Path) -> Workspace:
    return Workspace(root=root, config=ConfigResolver(stop_at=root))


def doc(ws: Workspace, rel: str) -> TextDocument:
    found = ws.read(ws.root / rel).doc
    assert found is not None
    return found


def at(ws: Workspace, rel: str, needle: str, nth: int = 0, offset: int = 1) -> Position:
    """The position ``offset`` characters into the ``nth`` occurrence of ``needle``."""
    text = doc(ws, rel).text
    index = -1
    for _ in range(nth + 1):
        index = text.index(needle, index + 1)
    return doc(ws, rel).position_at(index + offset)


def texts(ws: Workspace, places: list[graph.Place]) -> list[tuple[str, int, str]]:
    return [
        (ws.rel(p.path), p.range.start.line + 1, doc(ws, ws.rel(p.path)).slice(p.range))
        for p in places
    ]


def apply(ws: Workspace, change: refactor.WorkspaceChange) -> None:
    """Write a change set to disk the way an editor applies a WorkspaceEdit."""
    for path, edits in change.sorted_edits().items():
        raw = path.read_bytes()
        bom = raw.startswith(b"\xef\xbb\xbf")
        before = ws.read(path).doc
        assert before is not None
        after = apply_edits(before, edits)
        path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + after.encode())
        ws.forget(path)
    for old, new in change.renames:
        old.rename(new)
        ws.forget(old)
        ws.forget(old / "SKILL.md")


def command_findings(root: Path) -> list[tuple[str, str]]:
    ws = workspace(root)
    return sorted(
        (f.code, f.message) for f in check_paths(ws, [root]) if f.code.startswith(("CM", "RS00"))
    )


# -- references -----------------------------------------------------------------------------


def test_references_of_a_helper_added_option_cover_both_subcommands_abbreviations_and_docs(
    root: Path,
) -> None:
    ws = workspace(root)
    found = graph.references(ws, doc(ws, SCRIPT), at(ws, SCRIPT, '"--topic"', offset=3))
    assert texts(ws, found) == [
        (SCRIPT, 8, "--topic"),
        (SKILL, 22, "--topic"),
        (SKILL, 23, "--top"),
        (SKILL, 25, "--topic"),
        (OUTLINE, 6, "--topic"),
        (REVIEW, 21, "--topic"),
    ]
    without = graph.references(
        ws, doc(ws, SCRIPT), at(ws, SCRIPT, '"--topic"', offset=3), include_declaration=False
    )
    assert len(without) == len(found) - 1


def test_references_from_a_command_word_resolve_to_the_definition_first(root: Path) -> None:
    ws = workspace(root)
    found = graph.references(ws, doc(ws, SKILL), at(ws, SKILL, "--top <", offset=2))
    assert texts(ws, found)[0] == (SCRIPT, 8, "--topic")
    assert (SKILL, 22, "--topic") in texts(ws, found)


def test_an_option_value_form_names_only_the_flag(root: Path) -> None:
    ws = workspace(root)
    found = graph.references(ws, doc(ws, SKILL), at(ws, SKILL, "--theme=paper"))
    assert (SKILL, 23, "--theme") in texts(ws, found)
    assert (SKILL, 22, "--theme") in texts(ws, found)


def test_a_subcommand_and_its_alias_are_referenced_by_the_name_used(root: Path) -> None:
    ws = workspace(root)
    export = graph.references(ws, doc(ws, SCRIPT), at(ws, SCRIPT, '"export"', offset=2))
    assert texts(ws, export) == [(SCRIPT, 24, "export"), (OUTLINE, 6, "export")]
    alias = graph.references(ws, doc(ws, SCRIPT), at(ws, SCRIPT, '"ex"]', offset=1))
    assert texts(ws, alias) == [(SCRIPT, 24, "ex"), (SKILL, 25, "ex")]


def test_a_positional_is_referenced_by_the_word_that_fills_it(root: Path) -> None:
    ws = workspace(root)
    found = graph.references(ws, doc(ws, SCRIPT), at(ws, SCRIPT, '"manifest"', offset=2))
    assert texts(ws, found) == [(SCRIPT, 31, "manifest"), (SKILL, 28, "outputs/<主题>/list.txt")]


def test_a_parent_parser_option_is_found_through_parents(root: Path) -> None:
    ws = workspace(root)
    found = graph.references(ws, doc(ws, SCRIPT), at(ws, SCRIPT, '"--verbose"', offset=2))
    assert texts(ws, found) == [(SCRIPT, 13, "--verbose"), (SKILL, 22, "--verbose")]


def test_references_of_a_reference_file_are_its_links_across_skills(root: Path) -> None:
    ws = workspace(root)
    from_file = graph.references(ws, doc(ws, OUTLINE), Position(0, 0), include_declaration=False)
    assert texts(ws, from_file) == [
        (SKILL, 11, "references/outline.md"),
        (REVIEW, 11, "../deck-builder/references/outline.md"),
    ]
    from_link = graph.references(
        ws, doc(ws, SKILL), at(ws, SKILL, "references/outline.md"), include_declaration=False
    )
    assert from_link == from_file


def test_references_of_a_skill_name_are_its_mentions_in_other_skills(root: Path) -> None:
    ws = workspace(root)
    found = graph.references(ws, doc(ws, SKILL), at(ws, SKILL, "name: deck-builder", offset=7))
    places = texts(ws, found)
    assert places[0] == (SKILL, 2, "deck-builder")
    assert (REVIEW, 5, "deck-builder") in places  # the description
    assert (REVIEW, 11, "deck-builder") in places  # link text, not the path after it
    assert (REVIEW, 20, "deck-builder") in places
    # Paths into the folder are not mentions (a move rewrites them).
    assert all(not text.startswith("skills/") for _, _, text in places)


def test_a_word_that_names_nothing_has_no_references(root: Path) -> None:
    ws = workspace(root)
    assert graph.references(ws, doc(ws, SKILL), at(ws, SKILL, "幻灯片制作")) == []


# -- highlights and lenses ------------------------------------------------------------------


def test_highlights_are_the_other_uses_of_the_option_in_the_same_file(root: Path) -> None:
    ws = workspace(root)
    found = graph.highlights(ws, doc(ws, SKILL), at(ws, SKILL, "--topic"))
    skill = doc(ws, SKILL)
    assert [(r.start.line + 1, skill.slice(r)) for r in found] == [
        (22, "--topic"),
        (23, "--top"),
        (25, "--topic"),
    ]


def test_a_script_lens_counts_commands_and_skills_and_carries_the_locations(root: Path) -> None:
    ws = workspace(root)
    lenses = {lens.range.start.line + 1: lens for lens in graph.code_lenses(ws, doc(ws, SCRIPT))}
    topic = lenses[8]
    assert topic.title == "5 commands in 2 skills"
    assert topic.command == graph.SHOW_REFERENCES
    path, position, locations = topic.arguments
    assert path == root / SCRIPT and position == Position(7, 25) and len(locations) == 5
    assert lenses[22].title == "1 command in 1 skill"  # --total, abbreviated
    assert lenses[33].title == "no documented command"  # --retries
    assert lenses[33].command == ""
    assert lenses[24].title == "2 commands in 1 skill"  # export and its alias ex


def test_a_command_lens_shows_the_subcommand_help(root: Path) -> None:
    ws = workspace(root)
    titles = [lens.title for lens in graph.code_lenses(ws, doc(ws, SKILL))]
    assert titles == [
        "deck.py build: 把大纲渲染成幻灯片",
        "deck.py build: 把大纲渲染成幻灯片",
        "deck.py ex: 导出 PDF",
        "deck.py batch run: 按清单逐个构建",
    ]


def test_the_graph_follows_an_edited_document(root: Path) -> None:
    ws = workspace(root)
    position = at(ws, SCRIPT, '"--jobs"', offset=2)
    assert len(graph.references(ws, doc(ws, SCRIPT), position)) == 2
    skill = doc(ws, SKILL)
    ws.set_overlay(TextDocument(skill.path, skill.text.replace("--jobs 2", "--jobs 2 --jobs 3")))
    assert len(graph.references(ws, doc(ws, SCRIPT), position)) == 3


# -- rename ---------------------------------------------------------------------------------


def test_renaming_an_option_writes_every_use_in_full_and_pins_the_old_dest(root: Path) -> None:
    ws = workspace(root)
    before = command_findings(root)
    change = refactor.rename(
        ws, doc(ws, SCRIPT), at(ws, SCRIPT, '"--topic"', offset=3), "--subject"
    )
    apply(ws, change)
    script = (root / SCRIPT).read_text()
    assert 'parser.add_argument("--subject", dest="topic", required=True' in script
    skill = (root / SKILL).read_text()
    assert "build --subject <主题> --theme night" in skill
    assert "build --subject <主题> --theme=paper" in skill  # the abbreviation, in full
    assert "--top " not in skill
    assert "export --subject <主题>" in (root / OUTLINE).read_bytes().decode()
    assert command_findings(root) == before


def test_a_rename_keeps_bytes_outside_the_changed_spans(root: Path) -> None:
    ws = workspace(root)
    outline_before = (root / OUTLINE).read_bytes()
    review_before = (root / REVIEW).read_bytes()
    change = refactor.rename(
        ws, doc(ws, SCRIPT), at(ws, SCRIPT, '"--topic"', offset=3), "--subject"
    )
    apply(ws, change)
    assert (root / OUTLINE).read_bytes() == outline_before.replace(b"--topic", b"--subject")
    assert b"\r\n" in (root / OUTLINE).read_bytes()
    assert (root / REVIEW).read_bytes() == review_before.replace(b"--topic", b"--subject")
    assert (root / REVIEW).read_bytes().startswith(b"\xef\xbb\xbf")


def test_a_new_flag_that_would_make_an_abbreviation_ambiguous_expands_it(root: Path) -> None:
    ws = workspace(root)
    before = command_findings(root)
    change = refactor.rename(ws, doc(ws, SCRIPT), at(ws, SCRIPT, '"--topic"', offset=3), "--totem")
    apply(ws, change)
    skill = (root / SKILL).read_text()
    assert "--total 3" in skill and "--tot " not in skill
    assert command_findings(root) == before


def test_renaming_a_boolean_optional_flag_renames_its_negative_form(root: Path) -> None:
    ws = workspace(root)
    change = refactor.rename(
        ws, doc(ws, SCRIPT), at(ws, SCRIPT, '"--dry-run"', offset=3), "--preview"
    )
    apply(ws, change)
    assert "--no-preview" in (root / SKILL).read_text()
    assert 'add_argument("--preview", dest="dry_run", action=' in (root / SCRIPT).read_text()


def test_renaming_from_a_command_word_renames_the_definition(root: Path) -> None:
    ws = workspace(root)
    before = command_findings(root)
    target = refactor.prepare_rename(ws, doc(ws, SKILL), at(ws, SKILL, "--jobs"))
    assert target is not None and target.placeholder == "--jobs"
    change = refactor.rename(ws, doc(ws, SKILL), at(ws, SKILL, "--jobs"), "--workers")
    apply(ws, change)
    assert 'run.add_argument("--workers", dest="jobs"' in (root / SCRIPT).read_text()
    assert "--workers 2" in (root / SKILL).read_text()
    assert command_findings(root) == before


def test_renaming_a_subcommand_renames_its_dispatch_and_docs_not_its_alias(root: Path) -> None:
    ws = workspace(root)
    before = command_findings(root)
    change = refactor.rename(ws, doc(ws, SCRIPT), at(ws, SCRIPT, '"export"', offset=2), "publish")
    apply(ws, change)
    script = (root / SCRIPT).read_text()
    assert 'sub.add_parser("publish", aliases=["ex"]' in script
    assert '{"publish": 0, "ex": 0, "batch": 0}' in script
    assert "deck.py publish --topic" in (root / OUTLINE).read_bytes().decode()
    assert "deck.py ex --topic" in (root / SKILL).read_text()
    assert command_findings(root) == before


def test_renaming_a_nested_subcommand(root: Path) -> None:
    ws = workspace(root)
    before = command_findings(root)
    change = refactor.rename(ws, doc(ws, SKILL), at(ws, SKILL, "batch run", offset=7), "go")
    apply(ws, change)
    assert "deck.py batch go outputs" in (root / SKILL).read_text()
    assert 'batch_sub.add_parser("go"' in (root / SCRIPT).read_text()
    assert command_findings(root) == before


@pytest.mark.parametrize(
    ("new", "message"),
    [
        ("--theme", "`--theme` already exists in `build`"),
        ("-h", "is a long option"),
        ("--help", "`--help` already exists"),
        ("--bad name", "not a valid option string"),
        ("topic", "not a valid option string"),
        ("--", "not a valid option string"),
        ("--topic", "already has that name"),
    ],
)
def test_an_option_rename_that_would_break_the_parser_is_refused(
    root: Path, new: str, message: str
) -> None:
    ws = workspace(root)
    with pytest.raises(refactor.RenameRefused, match=message):
        refactor.rename(ws, doc(ws, SCRIPT), at(ws, SCRIPT, '"--topic"', offset=3), new)


def test_a_subcommand_rename_onto_a_sibling_or_an_option_shape_is_refused(root: Path) -> None:
    ws = workspace(root)
    position = at(ws, SCRIPT, '"export"', offset=2)
    with pytest.raises(refactor.RenameRefused, match="`build` already exists"):
        refactor.rename(ws, doc(ws, SCRIPT), position, "build")
    with pytest.raises(refactor.RenameRefused, match="`ex` already exists"):
        refactor.rename(ws, doc(ws, SCRIPT), position, "ex")
    with pytest.raises(refactor.RenameRefused, match="not a valid subcommand"):
        refactor.rename(ws, doc(ws, SCRIPT), position, "--export")


def test_a_rename_in_an_open_parser_is_refused_with_cm010(root: Path) -> None:
    script = root / SCRIPT
    script.write_text(
        script.read_text().replace(
            'build.add_argument("--total", type=int, default=10)',
            'build.add_argument("--total", type=int, default=10)\n'
            "    build.add_argument(*EXTRA_FLAGS)",
        )
    )
    ws = workspace(root)
    with pytest.raises(refactor.RenameRefused, match=r"CM010"):
        refactor.prepare_rename(ws, doc(ws, SCRIPT), at(ws, SCRIPT, '"--theme"', offset=3))


def test_a_derived_negative_flag_points_at_the_flag_it_comes_from(root: Path) -> None:
    ws = workspace(root)
    with pytest.raises(refactor.RenameRefused, match="rename `--dry-run`"):
        refactor.prepare_rename(ws, doc(ws, SKILL), at(ws, SKILL, "--no-dry-run", offset=3))


def test_a_positional_is_not_renamed(root: Path) -> None:
    ws = workspace(root)
    with pytest.raises(refactor.RenameRefused, match="positional"):
        refactor.prepare_rename(ws, doc(ws, SCRIPT), at(ws, SCRIPT, '"manifest"', offset=2))


def test_nothing_to_rename_in_prose(root: Path) -> None:
    ws = workspace(root)
    assert refactor.prepare_rename(ws, doc(ws, SKILL), at(ws, SKILL, "幻灯片制作")) is None


def test_renaming_a_skill_moves_its_folder_and_follows_every_mention_and_path(
    root: Path,
) -> None:
    ws = workspace(root)
    position = at(ws, SKILL, "name: deck-builder", offset=8)
    target = refactor.prepare_rename(ws, doc(ws, SKILL), position)
    assert target is not None and target.placeholder == "deck-builder"
    change = refactor.rename(ws, doc(ws, SKILL), position, "slide-deck")
    assert change.renames == [(root / DECK, root / "skills/openclaw/slide-deck")]
    apply(ws, change)
    new_skill = (root / "skills/openclaw/slide-deck/SKILL.md").read_text()
    assert "name: slide-deck" in new_skill
    assert "python skills/openclaw/slide-deck/scripts/deck.py build" in new_skill
    assert "[大纲格式](references/outline.md)" in new_skill  # relative inside the folder
    review = (root / REVIEW).read_bytes().decode("utf-8-sig")
    assert "出图交给 slide-deck。" in review
    assert "[slide-deck 的大纲格式](../slide-deck/references/outline.md)" in review
    assert "skills/openclaw/slide-deck/scripts/deck.py build --topic" in review
    assert "deck-builder" not in review
    assert not (root / DECK).exists()


@pytest.mark.parametrize("new", ["Deck", "slide_deck", "slide-review", "a" * 65])
def test_an_invalid_or_taken_skill_name_is_refused(root: Path, new: str) -> None:
    ws = workspace(root)
    with pytest.raises(refactor.RenameRefused):
        refactor.rename(ws, doc(ws, SKILL), at(ws, SKILL, "name: deck-builder", offset=8), new)


# -- file moves -----------------------------------------------------------------------------


def test_moving_a_reference_rewrites_links_in_its_own_and_other_skills(root: Path) -> None:
    ws = workspace(root)
    old = root / OUTLINE
    new = root / DECK / "references/guides/outline.md"
    change = refactor.file_moves(ws, [(old, new)])
    skill = doc(ws, SKILL)
    review = doc(ws, REVIEW)
    assert {(ws.rel(p), e.new_text) for p, edits in change.edits.items() for e in edits} == {
        (SKILL, "references/guides/outline.md"),
        (REVIEW, "../deck-builder/references/guides/outline.md"),
    }
    assert skill.slice(change.edits[skill.path][0].range) == "references/outline.md"
    assert review.slice(change.edits[review.path][0].range).endswith("references/outline.md")


def test_moving_a_script_rewrites_command_paths(root: Path) -> None:
    ws = workspace(root)
    old = root / SCRIPT
    new = root / DECK / "scripts/slides.py"
    change = refactor.file_moves(ws, [(old, new)])
    new_texts = {e.new_text for edits in change.edits.values() for e in edits}
    assert new_texts == {"skills/openclaw/deck-builder/scripts/slides.py"}
    assert sum(len(e) for e in change.edits.values()) == 6  # every command of every skill


def test_moving_an_unrelated_file_changes_nothing(root: Path) -> None:
    ws = workspace(root)
    change = refactor.file_moves(ws, [(root / "notes.txt", root / "notes-old.txt")])
    assert change.edits == {}


def test_a_flag_the_script_also_reads_from_sys_argv_is_renamed_there_too(tmp_path: Path) -> None:
    # Seen in real skills: `--selftest` answered from sys.argv before argparse runs.
    folder = tmp_path / "skills" / "openclaw" / "quick-check"
    (folder / "scripts").mkdir(parents=True)
    (folder / "scripts" / "probe.py").write_text(
        "import argparse\nimport sys\n\n"
        'if "--self-check" in sys.argv[1:]:\n    sys.exit(0)\n'
        "parser = argparse.ArgumentParser()\n"
        'parser.add_argument("--self-check", action="store_true")\n'
        'parser.add_argument("--topic", required=True)\n'
        "parser.parse_args()\n",
        encoding="utf-8",
    )
    (folder / "SKILL.md").write_text(
        "---\nname: quick-check\ndescription: 自检。\nlayer: general\n---\n# 自检\n\n"
        "`python skills/openclaw/quick-check/scripts/probe.py --self-check`\n",
        encoding="utf-8",
    )
    ws = workspace(tmp_path)
    script = "skills/openclaw/quick-check/scripts/probe.py"
    change = refactor.rename(
        ws, doc(ws, script), at(ws, script, '("--self-check"', offset=4), "--probe"
    )
    apply(ws, change)
    text = (tmp_path / script).read_text(encoding="utf-8")
    assert 'if "--probe" in sys.argv[1:]:' in text
    assert 'parser.add_argument("--probe", dest="self_check"' in text
    assert "probe.py --probe`" in (folder / "SKILL.md").read_text(encoding="utf-8")


def test_a_move_rewrites_a_path_held_in_a_shell_variable(tmp_path: Path) -> None:
    # Seen in real skills: `S=$ROOT/skills/shared/scripts/x.py` in a fence, then `python $S …`.
    shared = tmp_path / "skills" / "shared" / "scripts"
    shared.mkdir(parents=True)
    (shared / "poster.py").write_text(
        "import argparse\np = argparse.ArgumentParser()\np.add_argument('--go')\np.parse_args()\n",
        encoding="utf-8",
    )
    folder = tmp_path / "skills" / "openclaw" / "send-post"
    folder.mkdir(parents=True)
    skill_text = (
        "---\nname: send-post\ndescription: 发帖。\nlayer: publish\n---\n# 发帖\n\n```bash\n"
        "ROOT=<项目根>; S=$ROOT/skills/shared/scripts/poster.py\npython $S --go now\n```\n"
        "备注：脚本是 skills/shared/scripts/poster.py。不是 skills/shared/scripts/poster.pyc。\n"
    )
    (folder / "SKILL.md").write_text(skill_text, encoding="utf-8")
    ws = workspace(tmp_path)
    change = refactor.file_moves(ws, [(shared / "poster.py", shared / "tools" / "poster.py")])
    after = apply_edits(
        doc(ws, "skills/openclaw/send-post/SKILL.md"), change.edits[folder / "SKILL.md"]
    )
    assert "S=$ROOT/skills/shared/scripts/tools/poster.py\n" in after
    assert "脚本是 skills/shared/scripts/tools/poster.py。" in after
    assert "不是 skills/shared/scripts/poster.pyc" in after


def test_entries_built_elsewhere_answer_like_a_graph_built_here(root: Path) -> None:
    # The server builds a large workspace's graph in a worker process and adopts its entries.
    ws = workspace(root)
    since = graph.begin_adoption(ws)
    assert since is not None
    entries = graph.build_entries((ws.root, ws.config.init_args))
    assert graph.adopt(ws, since, entries)
    here = workspace(root)
    position = at(ws, SCRIPT, '"--topic"', offset=3)
    assert texts(ws, graph.references(ws, doc(ws, SCRIPT), position)) == texts(
        here, graph.references(here, doc(here, SCRIPT), position)
    )
    assert graph.begin_adoption(ws) is None  # built: nothing more to adopt
    # A script changed after adoption: its users are read again.
    script = root / SCRIPT
    script.write_text(script.read_text().replace('"--topic"', '"--subject"'), encoding="utf-8")
    ws.forget(script)
    assert graph.references(ws, doc(ws, SKILL), at(ws, SKILL, "--topic")) == []
