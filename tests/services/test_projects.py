"""The projects service: every `outputs/<topic>/.easel.json`, broken ones listed with their
error, and the manifest code lens (`discover → plan → produce · 3 steps · ready`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from easel_ls.config import ConfigResolver
from easel_ls.findings import Range
from easel_ls.model.text import TextDocument
from easel_ls.services.lenses import code_lenses
from easel_ls.services.projects import (
    SHOW_PIPELINE,
    list_projects,
    manifest_lenses,
    pipeline_title,
    read_project,
)
from easel_ls.workspace import Workspace

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "views"


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    root = Path(shutil.copytree(FIXTURE, tmp_path / "ws")).resolve()
    return Workspace(root=root, config=ConfigResolver(stop_at=root))


def manifest(ws: Workspace, topic: str, data: object) -> Path:
    path = ws.root / "outputs" / topic / ".easel.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    path.write_text(text, encoding="utf-8")
    return path


def lens_title(ws: Workspace, data: object) -> str:
    path = manifest(ws, "lens", data)
    doc = TextDocument(path, path.read_text(encoding="utf-8"))
    (lens,) = manifest_lenses(ws, doc)
    return lens.title


def test_projects_sorted_by_updated_newest_first_then_topic(ws: Workspace) -> None:
    manifest(ws, "b-same-day", {"topic": "b-same-day", "updated": "2026-11-25T10:00:00+08:00"})
    topics = [p.topic for p in list_projects(ws)]
    assert topics == ["春日野餐", "b-same-day", "winter-menu", "autumn-trip"]


def test_system_and_manifest_less_folders_are_not_projects(ws: Workspace) -> None:
    manifest(ws, "_publish", {"topic": "_publish"})
    (ws.root / "outputs" / "no-manifest").mkdir()
    topics = {p.topic for p in list_projects(ws)}
    assert "_publish" not in topics and "no-manifest" not in topics and "_scratch" not in topics


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("[1, 2]", ".easel.json must hold a JSON object, not an array"),
        ('"just text"', ".easel.json must hold a JSON object, not a string"),
        ('{"topic": "x",}', "invalid JSON at line 1, column 15: Expecting property name"),
        ('{"steps": {"layer": "plan"}}', "`steps` should be an array, not an object"),
        ('{"steps": [{"outputs": [1]}]}', "`steps[0].outputs` should hold only strings"),
        ('{"cover": false}', "`cover` should be a string, not a boolean"),
    ],
)
def test_a_broken_manifest_is_listed_with_its_error(ws: Workspace, text: str, error: str) -> None:
    path = manifest(ws, "broken", text)
    project = read_project(ws, path)
    assert project.topic == "broken"
    assert project.error is not None and project.error.startswith(error)
    assert project in list_projects(ws)


def test_an_unreadable_manifest_is_listed_with_the_reason(ws: Workspace) -> None:
    path = manifest(ws, "huge", "{}")
    path.write_bytes(b"{" + b" " * (6 * 1024 * 1024) + b"}")  # over max-file-size
    (project,) = [p for p in list_projects(ws) if p.topic == "huge"]
    assert project.error is not None and "byte limit" in project.error


def test_step_status_defaults_to_done_and_paths_are_relative_to_the_project(
    ws: Workspace,
) -> None:
    (picnic,) = [p for p in list_projects(ws) if p.topic == "春日野餐"]
    assert [s.status for s in picnic.steps] == ["done", "done", "failed", "done"]
    assert picnic.failed_steps == 1
    brief = picnic.steps[1].outputs[0]
    assert brief.file == ws.root / "outputs/春日野餐/brief.md" and brief.exists
    assert not brief.image


def test_without_a_cover_key_the_first_media_deliverable_is_the_cover(ws: Workspace) -> None:
    path = manifest(ws, "implicit", {"topic": "implicit", "deliverables": ["a.md", "b.webp"]})
    project = read_project(ws, path)
    assert project.cover is not None and project.cover.path == "b.webp"
    assert project.cover_implicit and project.cover.image and not project.cover.exists
    assert read_project(ws, manifest(ws, "none", {"deliverables": ["a.md"]})).cover is None


def test_a_path_outside_the_workspace_never_exists(ws: Workspace, tmp_path: Path) -> None:
    (tmp_path / "secret.png").write_bytes(b"\x89PNG")
    path = manifest(ws, "escape", {"deliverables": ["../../../secret.png"]})
    (ref,) = read_project(ws, path).deliverables
    assert ref.file == tmp_path / "secret.png" and not ref.exists


def test_lens_title_shows_layers_steps_failures_and_status(ws: Workspace) -> None:
    steps = [
        {"layer": "discover", "skill": "a"},
        {"layer": "plan", "skill": "b"},
        {"layer": "produce", "skill": "c"},
    ]
    assert lens_title(ws, {"status": "ready", "steps": steps}) == (
        "discover → plan → produce · 3 steps · ready"
    )
    repeated = [*steps, {"layer": "produce", "skill": "c", "status": "failed"}]
    assert lens_title(ws, {"status": "draft", "steps": repeated}) == (
        "discover → plan → produce · 4 steps · 1 failed · draft"
    )
    assert lens_title(ws, {"steps": [{"skill": "x"}]}) == "? · 1 step"
    assert lens_title(ws, {}) == "0 steps"
    assert lens_title(ws, "{") == "0 steps · broken manifest"


def test_the_lens_sits_on_the_first_line_and_shows_the_pipeline(ws: Workspace) -> None:
    path = ws.root / "outputs/春日野餐/.easel.json"
    doc = TextDocument(path, path.read_text(encoding="utf-8"))
    lenses = code_lenses(ws, doc)  # the dispatcher picks the projects service
    assert len(lenses) == 1
    assert lenses[0].range == Range.line_start(0)
    assert lenses[0].command == SHOW_PIPELINE and lenses[0].arguments == (path,)
    assert lenses[0].title == "discover → plan → produce · 4 steps · 1 failed · ready"


def test_the_lens_follows_the_buffer(ws: Workspace) -> None:
    path = ws.root / "outputs/春日野餐/.easel.json"
    doc = TextDocument(path, '{"status": "published", "steps": [{"layer": "publish"}]}')
    assert manifest_lenses(ws, doc)[0].title == "publish · 1 step · published"


def test_pipeline_title_of_a_project_without_steps_or_status() -> None:
    from easel_ls.services.projects import Project

    project = Project(topic="t", folder=Path("/x"), manifest=Path("/x/.easel.json"))
    assert pipeline_title(project) == "0 steps"
