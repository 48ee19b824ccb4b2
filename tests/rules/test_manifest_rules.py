"""MF — the project manifest `outputs/<主题>/.easel.json`: valid JSON, the schema (only `topic`
required, present keys typed, enums from manifest.py), and agreement with the project folder."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from easel_ls.findings import Applicability, Finding, Severity
from easel_ls.fixes import apply_edits
from easel_ls.model.text import TextDocument
from easel_ls.workspace import Workspace

REPO = Path(__file__).resolve().parents[2]
MANIFEST = "outputs/春日穿搭/.easel.json"

Lint = Callable[..., list[Finding]]


def manifest_text(**fields: object) -> str:
    data = {"topic": "春日穿搭", **fields}
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


@pytest.fixture
def lint(make_workspace, check) -> Lint:
    """MF findings of the project's manifest, written as ``text``, beside ``files``."""

    def run(text: str, files: dict[str, str | bytes] | None = None) -> list[Finding]:
        ws = make_workspace({MANIFEST: text, **(files or {})})
        return [f for f in check(ws, MANIFEST) if f.code.startswith("MF")]

    return run


def where(finding: Finding) -> tuple[int, int, int, int]:
    r = finding.range
    return (r.start.line, r.start.character, r.end.line, r.end.character)


def codes(findings: list[Finding]) -> list[str]:
    return [f.code for f in findings]


# -- MF001 manifest-invalid-json --------------------------------------------------------------


def test_mf001_points_at_the_parser_error_line_and_column(lint: Lint) -> None:
    text = '{\n  "topic": "春日穿搭",\n  "status": "draft",\n}\n'
    [finding] = lint(text)
    assert finding.code == "MF001"
    assert where(finding)[:2] == (3, 0)  # the `}` after a trailing comma
    assert "line 4, column 1" in finding.message


def test_mf001_silences_the_disk_checks(lint: Lint) -> None:
    findings = lint(
        '{"topic": "别的", "deliverables": ["gone.png"]', {"outputs/春日穿搭/x.md": "x"}
    )
    assert codes(findings) == ["MF001"]


def test_mf001_deep_nesting_is_a_diagnostic_not_a_crash(lint: Lint) -> None:
    [finding] = lint('{"topic": ' + "[" * 5000 + "]" * 5000 + "}")
    assert finding.code == "MF001"
    assert "nested deeper" in finding.message


def test_mf001_rejects_nan(lint: Lint) -> None:
    [finding] = lint('{"topic": "NaN", "x": NaN}')
    assert finding.code == "MF001"
    assert where(finding) == (0, 22, 0, 23)


def test_mf001_valid_json_is_quiet(lint: Lint) -> None:
    assert lint(manifest_text()) == []


# -- MF002 manifest-schema --------------------------------------------------------------------


def test_mf002_nested_enum_error_sits_on_the_value(lint: Lint) -> None:
    steps = [
        {"layer": "plan", "skill": "a", "status": "done"},
        {"layer": "produce", "skill": "b", "status": "done"},
        {"layer": "publish", "skill": "c", "status": "finished"},
    ]
    text = manifest_text(steps=steps)
    [finding] = lint(text)
    assert finding.code == "MF002"
    assert "`steps[2].status`" in finding.message
    line = next(i for i, t in enumerate(text.splitlines()) if '"finished"' in t)
    column = text.splitlines()[line].index('"finished"')
    assert where(finding) == (line, column, line, column + len('"finished"'))
    assert [fix.title for fix in finding.fixes] == ["Set to `failed`", "Set to `done`"]
    assert all(fix.applicability is Applicability.UNSAFE for fix in finding.fixes)


def test_mf002_enum_fix_writes_the_value(lint: Lint, tmp_path: Path) -> None:
    text = manifest_text(kind="card")
    [finding] = lint(text)
    first = finding.fixes[0]
    assert first.title == "Set to `cards`"
    fixed = apply_edits(TextDocument(tmp_path / MANIFEST, text), first.edits)
    assert json.loads(fixed)["kind"] == "cards"


def test_mf002_wrong_type_says_only_the_type(lint: Lint) -> None:
    [finding] = lint(manifest_text(steps=[{"layer": "plan", "skill": "a", "status": 3}]))
    assert finding.message == "`steps[0].status` must be a string, not a number"


def test_mf002_missing_topic_sits_on_the_opening_brace(lint: Lint) -> None:
    [finding] = lint('\n  {"title": "x"}')
    assert (finding.code, where(finding)) == ("MF002", (1, 2, 1, 3))
    assert "`topic`" in finding.message


def test_mf002_tags_must_be_a_list(lint: Lint) -> None:
    text = manifest_text(tags="春天,穿搭")
    [finding] = lint(text)
    assert finding.message == "`tags` must be an array, not a string"


def test_mf002_unknown_top_level_key_is_a_warning_on_the_key(lint: Lint) -> None:
    text = manifest_text(titel="春日")
    [finding] = lint(text)
    assert (finding.code, finding.severity) == ("MF002", Severity.WARNING)
    assert where(finding) == (2, 2, 2, 9)
    assert finding.help == "did you mean `title`?"


def test_mf002_steps_may_carry_extra_properties(lint: Lint) -> None:
    step = {"layer": "produce", "skill": "a", "status": "done", "persona_check": {"ok": True}}
    assert lint(manifest_text(steps=[step])) == []


def test_mf002_only_topic_is_required(lint: Lint) -> None:
    assert lint('{"topic": "春日穿搭"}') == []


# -- MF003 / MF004 deliverables ---------------------------------------------------------------


def test_mf003_deliverable_not_on_disk(lint: Lint) -> None:
    text = manifest_text(deliverables=["card_1.png", "card_2.png"])
    [finding] = lint(text, {"outputs/春日穿搭/card_1.png": b"\x89PNG\x00"})
    assert finding.code == "MF003"
    assert "`card_2.png`" in finding.message
    line = text.splitlines()[where(finding)[0]]
    assert line[where(finding)[1] :].startswith('"card_2.png"')


def test_mf004_deliverable_inside_assets(lint: Lint) -> None:
    text = manifest_text(deliverables=["assets/frame_1.png"])
    [finding] = lint(text, {"outputs/春日穿搭/assets/frame_1.png": b"\x89PNG\x00"})
    assert finding.code == "MF004"
    assert "`assets/`" in finding.message


def test_mf004_dot_slash_is_still_the_root(lint: Lint) -> None:
    assert lint(manifest_text(deliverables=["./note.md"]), {"outputs/春日穿搭/note.md": "x"}) == []


# -- MF005 cover -------------------------------------------------------------------------------


def test_mf005_cover_missing(lint: Lint) -> None:
    [finding] = lint(manifest_text(cover="cover.png"))
    assert finding.code == "MF005"
    assert "not in the project folder" in finding.message


def test_mf005_cover_not_media(lint: Lint) -> None:
    [finding] = lint(
        manifest_text(cover="note.md", deliverables=["note.md"]),
        {"outputs/春日穿搭/note.md": "x"},
    )
    assert finding.code == "MF005"
    assert "not an image or a video" in finding.message


def test_mf005_video_cover_is_fine(lint: Lint) -> None:
    files = {"outputs/春日穿搭/final.MP4": b"\x00"}
    assert lint(manifest_text(cover="final.MP4", deliverables=["final.MP4"]), files) == []


# -- MF006 step outputs ------------------------------------------------------------------------


def test_mf006_step_output_missing(lint: Lint) -> None:
    step = {"layer": "plan", "skill": "video-script", "status": "done", "outputs": ["script.md"]}
    [finding] = lint(manifest_text(steps=[step]))
    assert finding.code == "MF006"
    assert "`steps[0].outputs[0]`" in finding.message


def test_mf006_output_in_assets_exists(lint: Lint) -> None:
    step = {"layer": "produce", "skill": "a", "status": "done", "outputs": ["assets/draft.md"]}
    assert lint(manifest_text(steps=[step]), {"outputs/春日穿搭/assets/draft.md": "x"}) == []


# -- MF007 topic -------------------------------------------------------------------------------


def test_mf007_topic_differs_from_folder_and_the_safe_fix_sets_it(lint: Lint, tmp_path) -> None:
    text = '{"topic": "春天穿搭", "title": "春日"}'
    [finding] = lint(text)
    assert (finding.code, where(finding)) == ("MF007", (0, 10, 0, 16))
    [fix] = finding.fixes
    assert fix.applicability is Applicability.SAFE
    fixed = apply_edits(TextDocument(tmp_path / MANIFEST, text), fix.edits)
    assert fixed == '{"topic": "春日穿搭", "title": "春日"}'


def test_mf007_matching_topic_is_quiet(lint: Lint) -> None:
    assert lint('{"topic": "春日穿搭"}') == []


# -- MF008 unregistered-deliverable ------------------------------------------------------------


def test_mf008_root_file_not_registered_sits_on_that_file(lint: Lint, tmp_path: Path) -> None:
    files = {
        "outputs/春日穿搭/card_1.png": b"\x89PNG\x00",
        "outputs/春日穿搭/note.md": "笔记\n",
        "outputs/春日穿搭/assets/raw.png": b"\x00",
        "outputs/春日穿搭/.easel.json.lock": "",
    }
    findings = lint(manifest_text(deliverables=["card_1.png"]), files)
    assert codes(findings) == ["MF008"]
    [finding] = findings
    assert finding.path == tmp_path / "outputs/春日穿搭/note.md"
    assert where(finding) == (0, 0, 0, 0)


def test_mf008_binary_root_file_is_reported_too(lint: Lint, tmp_path: Path) -> None:
    [finding] = lint(manifest_text(), {"outputs/春日穿搭/card_2.png": b"\x89PNG\x00"})
    assert (finding.code, finding.path.name) == ("MF008", "card_2.png")


def test_mf008_step_outputs_at_the_root_are_not_deliverables(lint: Lint) -> None:
    step = {"layer": "plan", "skill": "a", "status": "done", "outputs": ["brief.md"]}
    assert lint(manifest_text(steps=[step]), {"outputs/春日穿搭/brief.md": "x"}) == []


def test_mf008_register_fix_matches_the_manifest_cli(make_workspace, check, tmp_path) -> None:
    original = manifest_text(
        created="2024-05-01T09:30:00+08:00",
        updated="2024-05-01T09:30:00+08:00",
        title="春日穿搭",
        kind="cards",
        deliverables=["card_1.png"],
        steps=[{"layer": "plan", "skill": "a", "status": "done", "persona_check": "ok"}],
        colour="kept",
    )
    files = {
        MANIFEST: original,
        "outputs/春日穿搭/card_1.png": b"\x89PNG\x00",
        "outputs/春日穿搭/card_2.png": b"\x89PNG\x00",
        "outputs/春日穿搭/note.md": "x\n",
    }
    ws: Workspace = make_workspace(files)
    findings = [f for f in check(ws, MANIFEST) if f.code == "MF008"]
    assert sorted(f.path.name for f in findings) == ["card_2.png", "note.md"]
    [fix] = findings[0].fixes
    assert (fix.title, fix.applicability) == ("Register deliverables", Applicability.UNSAFE)
    fixed = apply_edits(TextDocument(ws.root / MANIFEST, original), fix.edits)

    cli_root = tmp_path / "cli" / "outputs"
    (cli_root / "春日穿搭").mkdir(parents=True)
    (cli_root / "春日穿搭" / ".easel.json").write_text(original, encoding="utf-8")
    script = REPO / "skills/shared/scripts/manifest.py"
    deliverables = "card_1.png,card_2.png,note.md"
    command = [sys.executable, str(script), "--root", str(cli_root), "meta"]
    command += ["--topic", "春日穿搭", "--deliverables", deliverables]
    subprocess.run(command, check=True, capture_output=True)
    expected = (cli_root / "春日穿搭" / ".easel.json").read_text(encoding="utf-8")

    def without_updated(text: str) -> dict[str, object]:
        data = json.loads(text)
        assert data.pop("updated") != "2024-05-01T09:30:00+08:00"
        return data

    assert without_updated(fixed) == without_updated(expected)
    assert list(json.loads(fixed)) == list(json.loads(expected))  # same key order too


def test_mf008_hidden_and_assets_files_are_not_deliverables(lint: Lint) -> None:
    files = {"outputs/春日穿搭/assets/a.md": "x", "outputs/春日穿搭/.DS_Store": b"\x00"}
    assert lint(manifest_text(), files) == []


# -- MF009 timestamps --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "good", ["2024-05-01T09:30:00+08:00", "2024-05-01T01:30:00Z", "2024-05-01", "2024-05-01 09:30"]
)
def test_mf009_iso_8601_forms_pass(lint: Lint, good: str) -> None:
    assert lint(manifest_text(created=good)) == []


@pytest.mark.parametrize("bad", ["2024/05/01", "昨天", "2024-13-01T00:00:00", "1714526400"])
def test_mf009_not_iso_8601(lint: Lint, bad: str) -> None:
    [finding] = lint(manifest_text(created=bad))
    assert finding.code == "MF009"


def test_mf009_updated_before_created(lint: Lint) -> None:
    text = manifest_text(created="2024-05-02T00:00:00+08:00", updated="2024-05-01T23:00:00+08:00")
    [finding] = lint(text)
    assert finding.code == "MF009"
    assert where(finding)[0] == 3  # the `updated` value


def test_mf009_same_moment_in_two_zones_is_fine(lint: Lint) -> None:
    text = manifest_text(created="2024-05-01T09:00:00+08:00", updated="2024-05-01T01:00:00Z")
    assert lint(text) == []


def test_mf009_step_at(lint: Lint) -> None:
    [finding] = lint(manifest_text(steps=[{"layer": "plan", "skill": "a", "at": "now"}]))
    assert finding.code == "MF009"
    assert "`steps[0].at`" in finding.message


# -- MF010 upstream ----------------------------------------------------------------------------


def test_mf010_upstream_names_an_earlier_skill_layer_or_output(lint: Lint) -> None:
    steps = [
        {"layer": "plan", "skill": "video-script", "outputs": ["assets/script.md"]},
        {"layer": "produce", "skill": "a", "upstream": ["video-script", "plan"]},
        {"layer": "produce", "skill": "b", "upstream": ["./assets/script.md"]},
    ]
    files = {"outputs/春日穿搭/assets/script.md": "x"}
    assert lint(manifest_text(steps=steps), files) == []


def test_mf010_upstream_naming_a_later_step(lint: Lint) -> None:
    steps = [
        {"layer": "produce", "skill": "a", "upstream": ["video-script"]},
        {"layer": "plan", "skill": "video-script"},
    ]
    [finding] = lint(manifest_text(steps=steps))
    assert finding.code == "MF010"
    assert "`steps[0].upstream[0]`" in finding.message


# -- MF011 ready-without-deliverables ----------------------------------------------------------


@pytest.mark.parametrize("status", ["ready", "published"])
def test_mf011_ready_or_published_needs_deliverables(lint: Lint, status: str) -> None:
    [finding] = lint(manifest_text(status=status, deliverables=[]))
    assert finding.code == "MF011"


def test_mf011_draft_without_deliverables_is_fine(lint: Lint) -> None:
    assert lint(manifest_text(status="draft")) == []


# -- the checker over a workspace ---------------------------------------------------------------


def test_cli_fix_registers_deliverables_and_never_rewrites_a_corrupt_manifest(tmp_path) -> None:
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "outputs"
    work = tmp_path / "ws"
    shutil.copytree(fixture, work)
    corrupt = work / "outputs" / "坏清单" / ".easel.json"
    before = corrupt.read_bytes()
    command = [sys.executable, "-m", "easel_ls", "--check", "outputs"]
    command += ["--fix", "--unsafe-fixes", "--select", "MF008,MF007,MF001"]
    subprocess.run(command, cwd=work, capture_output=True, text=True, check=False)
    data = json.loads((work / "outputs" / "春日穿搭" / ".easel.json").read_text("utf-8"))
    assert data["deliverables"] == ["card_1.svg", "note.md"]
    assert data["topic"] == "春日穿搭"
    assert corrupt.read_bytes() == before


any_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=6) | st.just("\x00/../a.png"),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
manifest_keys = st.sampled_from(
    ["topic", "created", "updated", "kind", "status", "cover", "deliverables", "steps", "tags"]
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.dictionaries(manifest_keys, any_json, max_size=6) | any_json)
def test_any_json_manifest_gives_findings_never_an_internal_error(
    make_workspace, check, data: object
) -> None:
    ws = make_workspace({MANIFEST: json.dumps(data, ensure_ascii=False)})
    assert "EZ003" not in codes(check(ws, MANIFEST))
