"""OP — the `outputs/` layout: one project per `outputs/<主题>/` folder, finished files at its root,
intermediates in `assets/`, `.easel.json` its only hidden file, system state in registered `_`
folders; and skills must not teach other output paths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from easel_ls.findings import Applicability, Finding
from easel_ls.workspace import Workspace

MANIFEST = '{"topic": "%s"}\n'


def op(findings: list[Finding]) -> list[tuple[str, str, int, int]]:
    """(code, file name, line, character) of the OP findings."""
    return [
        (f.code, f.path.name, f.range.start.line, f.range.start.character)
        for f in findings
        if f.code.startswith("OP")
    ]


def check_all(ws: Workspace, check) -> list[Finding]:
    """Every finding of every file under outputs/, as `--check outputs` visits them."""
    found: list[Finding] = []
    for path in sorted(p for p in (ws.root / "outputs").rglob("*") if p.is_file()):
        found.extend(check(ws, path.relative_to(ws.root).as_posix()))
    return found


# -- OP001 generic-project-name ----------------------------------------------------------------


@pytest.mark.parametrize("name", ["xhs", "test", "TMP", "demo", "results"])
def test_op001_generic_project_name_sits_on_the_manifest(make_workspace, check, name) -> None:
    ws = make_workspace(
        {f"outputs/{name}/.easel.json": MANIFEST % name, f"outputs/{name}/a.md": "x"}
    )
    assert ("OP001", ".easel.json", 0, 0) in op(check(ws, f"outputs/{name}/.easel.json"))
    assert op(check(ws, f"outputs/{name}/a.md")) == []


@pytest.mark.parametrize("name", ["xhs穿搭", "testing-day", "春日穿搭", "_scratch"])
def test_op001_topic_names_pass(make_workspace, check, name) -> None:
    ws = make_workspace({f"outputs/{name}/.easel.json": MANIFEST % name})
    assert "OP001" not in [f.code for f in check(ws, f"outputs/{name}/.easel.json")]


def test_op001_without_manifest_sits_on_the_first_file(make_workspace, check) -> None:
    ws = make_workspace({"outputs/demo/b.md": "x", "outputs/demo/a.md": "x"})
    assert op(check_all(ws, check)) == [
        ("OP001", "a.md", 0, 0),
        ("OP004", "a.md", 0, 0),
    ]


def test_op001_names_are_configurable(make_workspace, check) -> None:
    ws = make_workspace(
        {
            "easel-ls.toml": 'generic-project-names = ["草稿"]\n',
            "outputs/草稿/.easel.json": MANIFEST % "草稿",
            "outputs/xhs/.easel.json": MANIFEST % "xhs",
        }
    )
    assert [c for c, *_ in op(check_all(ws, check))] == ["OP001"]
    assert "草稿" in check(ws, "outputs/草稿/.easel.json")[0].message


# -- OP002 unregistered-system-dir --------------------------------------------------------------


def test_op002_unregistered_underscore_folder(make_workspace, check) -> None:
    ws = make_workspace({"outputs/_cache/state.json": "{}", "outputs/_scratch/x.md": "x"})
    assert op(check_all(ws, check)) == [("OP002", "state.json", 0, 0)]


def test_op002_system_folders_need_no_manifest(make_workspace, check) -> None:
    files = {f"outputs/{d}/x.md": "x" for d in ("_login", "_publish", "_analytics")}
    files["outputs/_profile_build/a/b.md"] = "x"
    assert op(check_all(make_workspace(files), check)) == []


# -- OP003 stray-root-file ----------------------------------------------------------------------


def test_op003_file_directly_in_outputs(make_workspace, check) -> None:
    ws = make_workspace({"outputs/note.md": "x", "outputs/春日/.easel.json": MANIFEST % "春日"})
    assert op(check_all(ws, check)) == [("OP003", "note.md", 0, 0)]


def test_op003_respects_the_outputs_dir_option(make_workspace, check) -> None:
    ws = make_workspace(
        {"easel-ls.toml": 'outputs-dir = "build/out"\n', "build/out/x.md": "x", "outputs/y.md": "y"}
    )
    assert op(check(ws, "build/out/x.md")) == [("OP003", "x.md", 0, 0)]
    assert op(check(ws, "outputs/y.md")) == []


# -- OP004 project-without-manifest -------------------------------------------------------------


def test_op004_offers_to_create_the_manifest_like_manifest_py(make_workspace, check) -> None:
    ws = make_workspace({"outputs/春日穿搭/note.md": "x"})
    [finding] = [f for f in check(ws, "outputs/春日穿搭/note.md") if f.code == "OP004"]
    [fix] = finding.fixes
    assert (fix.title, fix.applicability) == ("Create .easel.json", Applicability.UNSAFE)
    [created] = fix.creates
    assert created.path == ws.root / "outputs/春日穿搭/.easel.json"
    data = json.loads(created.content)
    assert list(data) == ["topic", "created", "updated", "title", "steps"]
    assert (data["topic"], data["title"], data["steps"]) == ("春日穿搭", "春日穿搭", [])


def test_op004_with_manifest_is_quiet(make_workspace, check) -> None:
    ws = make_workspace({"outputs/春日/.easel.json": MANIFEST % "春日", "outputs/春日/a.md": "x"})
    assert op(check_all(ws, check)) == []


def test_op004_anchor_skips_unreadable_files(make_workspace, check) -> None:
    ws = make_workspace({"outputs/春日/a.png": b"\x89PNG\x00", "outputs/春日/b.md": "x"})
    assert op(check_all(ws, check)) == [("OP004", "b.md", 0, 0)]


# -- OP005 hidden-output-path -------------------------------------------------------------------


def test_op005_hidden_file_reports_itself(make_workspace, check) -> None:
    ws = make_workspace(
        {"outputs/春日/.easel.json": MANIFEST % "春日", "outputs/春日/.draft.md": "x"}
    )
    assert op(check_all(ws, check)) == [("OP005", ".draft.md", 0, 0)]


def test_op005_files_in_a_hidden_folder(make_workspace, check) -> None:
    ws = make_workspace(
        {"outputs/春日/.easel.json": MANIFEST % "春日", "outputs/春日/.frames/001.txt": "x"}
    )
    [finding] = [f for f in check_all(ws, check) if f.code == "OP005"]
    assert "`outputs/春日/.frames`" in finding.message


def test_op005_binary_hidden_file_is_reported_by_the_manifest(make_workspace, check) -> None:
    ws = make_workspace(
        {"outputs/春日/.easel.json": MANIFEST % "春日", "outputs/春日/.cache/f.png": b"\x00"}
    )
    findings = [f for f in check(ws, "outputs/春日/.easel.json") if f.code == "OP005"]
    assert [(f.path.name, f.range.start.line) for f in findings] == [("f.png", 0)]


def test_op005_manifest_lock_and_temp_files_are_not_hidden_paths(make_workspace, check) -> None:
    ws = make_workspace(
        {
            "outputs/春日/.easel.json": MANIFEST % "春日",
            "outputs/春日/.easel.json.lock": "",
            "outputs/春日/.easel.json.k2x9.tmp": "{}",
        }
    )
    assert op(check_all(ws, check)) == []


def test_op005_a_nested_easel_json_is_hidden(make_workspace, check) -> None:
    ws = make_workspace(
        {"outputs/春日/.easel.json": MANIFEST % "春日", "outputs/春日/assets/.easel.json": "{}"}
    )
    assert ("OP005", ".easel.json", 0, 0) in op(check(ws, "outputs/春日/assets/.easel.json"))


# -- OP006 documented-output-path ---------------------------------------------------------------

SKILL = "skills/openclaw/card-maker/SKILL.md"
FRONT = "---\nname: card-maker\ndescription: x\nlayer: produce\n---\n"


def test_op006_system_state_file_at_the_root_names_the_system_folders(
    make_workspace, check
) -> None:
    ws = make_workspace({SKILL: FRONT + "发布记录追加到 `outputs/_publish.log`。\n"})
    [finding] = [f for f in check(ws, SKILL) if f.code == "OP006"]
    assert "registered system folder" in finding.message


@pytest.mark.parametrize(
    ("line", "flagged"),
    [
        ("把卡片写到 `outputs/cards.png`。", "outputs/cards.png"),
        ("保存到 outputs/xhs/note.md", "outputs/xhs/note.md"),
        ("数据写入 `outputs/analytics/daily.json`", "outputs/analytics/daily.json"),
        ("成品放 `outputs/card-maker/`", "outputs/card-maker/"),
        ("写入 `outputs/主题名/<主题>/note.md`", "outputs/主题名/<主题>/note.md"),
        ("排期写入 `outputs/_calendar.json`", "outputs/_calendar.json"),
    ],
)
def test_op006_bad_documented_paths(make_workspace, check, line: str, flagged: str) -> None:
    ws = make_workspace({SKILL: FRONT + line + "\n"})
    [finding] = [f for f in check(ws, SKILL) if f.code == "OP006"]
    column = line.index(flagged)
    r = finding.range
    assert (r.start.line, r.start.character, r.end.character) == (5, column, column + len(flagged))


@pytest.mark.parametrize(
    "line",
    [
        "成品写入 `outputs/<主题>/note.md`，中间件进 `outputs/<主题>/assets/`。",
        "数据写入 `outputs/_analytics/daily.json`；测试写 outputs/_scratch/。",
        "项目目录 outputs/{topic}/card_1.png",
        "见 https://example.com/outputs/xhs/",
        "python skills/shared/scripts/manifest.py --root outputs meta --topic <主题>",
    ],
)
def test_op006_good_documented_paths(make_workspace, check, line: str) -> None:
    ws = make_workspace({SKILL: FRONT + line + "\n"})
    assert [f for f in check(ws, SKILL) if f.code == "OP006"] == []


def test_op006_in_scripts(make_workspace, check) -> None:
    script = "skills/openclaw/card-maker/scripts/make.py"
    ws = make_workspace({SKILL: FRONT, script: 'OUT = "outputs/test/cards.png"\n'})
    [finding] = [f for f in check(ws, script) if f.code == "OP006"]
    assert finding.range.start.character == 7


# -- OP007 intermediate-at-root -----------------------------------------------------------------


def test_op007_folder_at_project_root_moves_into_assets(make_workspace, check) -> None:
    ws = make_workspace(
        {
            "outputs/春日/.easel.json": MANIFEST % "春日",
            "outputs/春日/frames/001.txt": "x",
            "outputs/春日/assets/raw.txt": "x",
        }
    )
    [finding] = [f for f in check(ws, "outputs/春日/.easel.json") if f.code == "OP007"]
    assert (finding.path.name, finding.range.start.line) == (".easel.json", 0)
    [fix] = finding.fixes
    assert fix.applicability is Applicability.UNSAFE
    [rename] = fix.renames
    project = ws.root / "outputs/春日"
    assert (rename.old_path, rename.new_path) == (project / "frames", project / "assets/frames")


def test_op007_not_for_system_folders(make_workspace, check) -> None:
    ws = make_workspace({"outputs/_scratch/run1/a.md": "x"})
    assert op(check_all(ws, check)) == []


def test_outputs_rules_ignore_files_elsewhere(make_workspace, check) -> None:
    ws = make_workspace({"notes/.hidden.md": "x", "notes/xhs/a.md": "x"})
    assert op(check(ws, "notes/.hidden.md")) == []
    assert op(check(ws, "notes/xhs/a.md")) == []


def test_the_fixture_workspace_flags_each_layout_code(tmp_path: Path) -> None:
    import shutil
    import subprocess
    import sys

    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "outputs"
    work = tmp_path / "ws"
    shutil.copytree(fixture, work)
    command = [sys.executable, "-m", "easel_ls", "--check", "outputs", "--output-format", "json"]
    run = subprocess.run(command, cwd=work, capture_output=True, text=True, check=False)
    report = json.loads(run.stdout)
    found = {(item["code"], Path(item["filename"]).name) for item in report}
    for expected in [
        ("OP001", "note.md"),
        ("OP002", "state.txt"),
        ("OP003", "notes.md"),
        ("OP004", "note.md"),
        ("OP005", ".draft.md"),
        ("OP007", ".easel.json"),
        ("MF001", ".easel.json"),
        ("MF007", ".easel.json"),
        ("MF008", "note.md"),
        ("CG002", "note.md"),
    ]:
        assert expected in found, expected
    assert run.returncode == 1


# The path-token pattern starts with its literal (fast to search for): it finds exactly what the
# lookbehind-first form found.

_TOKEN_PIECES = [
    *list("ab_/.\\- \n`'\"()[]，。中"),
    "outputs",
    "outputs/",
    "out",
    "xoutputs/",
    "<主题>",
]


@settings(max_examples=2000, deadline=None)
@given(
    st.lists(st.sampled_from(_TOKEN_PIECES), max_size=30).map("".join),
    st.sampled_from(["outputs", "out.put", "产物", "a/b"]),
)
def test_path_token_matches_the_lookbehind_first_pattern(text: str, outputs_name: str) -> None:
    import re

    from easel_ls.rules.outputs import _path_token

    prefix = re.escape(outputs_name.strip("/"))
    reference = re.compile(
        rf"(?<![\w./\\-]){prefix}/(?P<rest>[^\s`'\"()\[\]，。、；：！？）（】【》《]*)"
    )
    text = text.replace("outputs", outputs_name)
    found = [(m.span(), m.group("rest")) for m in _path_token(outputs_name).finditer(text)]
    assert found == [(m.span(), m.group("rest")) for m in reference.finditer(text)]
