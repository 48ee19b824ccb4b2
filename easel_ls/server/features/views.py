"""Custom requests for editor views: ``easel/skills``, ``easel/projects``, and the
``easel/workspaceChanged`` notification that tells a client to ask again.

The shapes are documented in ``docs/editors.md``; the services (``services/skills_view.py``,
``services/projects.py``) do the work, this adapter turns paths into URIs and ranges into the
negotiated position encoding. Finding counts reuse what diagnostics already hold per URI.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from easel_ls.findings import Finding
from easel_ls.server.app import path_of
from easel_ls.server.convert import uri_of
from easel_ls.services.projects import FileRef, Project, list_projects
from easel_ls.services.skills_view import LAYER_ORDER, SkillView, engine_findings, list_skills
from easel_ls.workspace import Workspace

if TYPE_CHECKING:
    from easel_ls.server.app import EaselServer

log = logging.getLogger(__name__)

SKILLS_REQUEST = "easel/skills"
PROJECTS_REQUEST = "easel/projects"
WORKSPACE_CHANGED = "easel/workspaceChanged"
# The pending-check key of the coalesced notification (ls.pending holds timer handles).
CHANGED_KEY = "views:workspaceChanged"
# A client refreshes its trees at most once per this window, even when the debounce is 0.
MIN_WINDOW_MS = 100
# Files whose edits change what the views show even when their findings stay the same.
VIEW_FILES = frozenset({"SKILL.md", ".easel.json"})


# -- the notification ----------------------------------------------------------------------
def announce_change(ls: EaselServer) -> None:
    """Send ``easel/workspaceChanged`` once the current burst of changes is over: a change
    while one is pending joins it, so a client gets at most one per debounce window."""
    if CHANGED_KEY in ls.pending:
        return
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return  # not serving (a unit test calling a feature function directly)
    delay = max(ls.debounce_ms, MIN_WINDOW_MS) / 1000

    def send() -> None:
        ls.pending.pop(CHANGED_KEY, None)
        with contextlib.suppress(Exception):  # the client may be gone
            ls.protocol.notify(WORKSPACE_CHANGED, {})

    ls.pending[CHANGED_KEY] = loop.call_later(delay, send)


# -- requests ------------------------------------------------------------------------------
def workspaces_of(ls: EaselServer, params: Any) -> list[Workspace]:
    """The root named by ``params.uri`` (a folder URI), else every root; open documents are
    seen as their editor buffers, even before their debounced check ran."""
    for opened in list(ls.workspace.text_documents.values()):
        ls.document(opened.uri)
    uri = _param(params, "uri")
    if isinstance(uri, str) and uri:
        path = path_of(uri)
        if path is not None:
            ws = ls.workspace_for(path.resolve())
            ls.settings_layers.configure(ws)
            return [ws]
    for ws in ls.roots.values():
        ls.settings_layers.configure(ws)
    return list(ls.roots.values())


def _param(params: Any, name: str) -> Any:
    if isinstance(params, dict):
        return params.get(name)
    return getattr(params, name, None)


def findings_lookup(ls: EaselServer, ws: Workspace) -> Any:
    """What diagnostics hold for a file, else a fresh check by the engine."""
    check = engine_findings(ws)

    def findings_of(path: Path) -> list[Finding]:
        known = ls.findings.get(uri_of(path))
        if known is not None:
            return known
        try:
            return check(path)
        except Exception:
            log.exception("checking %s for the skills view failed", path)
            return []

    return findings_of


def skills_result(ls: EaselServer, params: Any) -> dict[str, Any]:
    views: list[SkillView] = []
    for ws in workspaces_of(ls, params):
        views.extend(list_skills(ws, findings_lookup(ls, ws)))
    ranks = {name: i for i, name in enumerate(LAYER_ORDER)}
    views.sort(key=lambda v: (ranks.get(v.layer or "", len(ranks)), v.name))
    return {"layers": list(LAYER_ORDER), "skills": [skill_json(v) for v in views]}


def skill_json(view: SkillView) -> dict[str, Any]:
    return {
        "name": view.name,
        "layer": view.layer,
        "layerText": view.layer_text,
        "description": view.description,
        "uri": uri_of(view.folder),
        "skillMd": uri_of(view.skill_md),
        "findings": dict(view.findings),
        "scripts": [uri_of(p) for p in view.scripts],
        "references": [uri_of(p) for p in view.references],
        "tests": [uri_of(p) for p in view.tests],
    }


def projects_result(ls: EaselServer, params: Any) -> dict[str, Any]:
    projects: list[Project] = []
    for ws in workspaces_of(ls, params):
        projects.extend(list_projects(ws))
    projects.sort(key=lambda p: p.topic)
    projects.sort(key=lambda p: p.updated or "", reverse=True)
    return {"projects": [project_json(ls, p) for p in projects]}


def file_json(ref: FileRef) -> dict[str, Any]:
    return {"path": ref.path, "uri": uri_of(ref.file), "exists": ref.exists, "image": ref.image}


def project_json(ls: EaselServer, project: Project) -> dict[str, Any]:
    conv = ls.converter()
    doc = ls.workspace_for(project.manifest).read(project.manifest).doc
    lines = doc.lines if doc is not None else []
    cover = None
    if project.cover is not None:
        cover = {**file_json(project.cover), "implicit": project.cover_implicit}
    return {
        "topic": project.topic,
        "uri": uri_of(project.folder),
        "manifest": uri_of(project.manifest),
        "title": project.title,
        "kind": project.kind,
        "status": project.status,
        "platform": project.platform,
        "summary": project.summary,
        "updated": project.updated,
        "cover": cover,
        "deliverables": [file_json(d) for d in project.deliverables],
        "steps": [
            {
                "index": step.index,
                "layer": step.layer,
                "skill": step.skill,
                "status": step.status,
                "at": step.at,
                "summary": step.summary,
                "outputs": [file_json(o) for o in step.outputs],
                "range": _range_json(conv.range(project.manifest, step.range, lines)),
            }
            for step in project.steps
        ],
        "failedSteps": project.failed_steps,
        "error": project.error,
    }


def _range_json(rng: Any) -> dict[str, Any]:
    return {
        "start": {"line": rng.start.line, "character": rng.start.character},
        "end": {"line": rng.end.line, "character": rng.end.character},
    }


def register(server: EaselServer) -> None:
    @server.feature(SKILLS_REQUEST)
    def skills(ls: EaselServer, params: Any = None) -> dict[str, Any]:
        return skills_result(ls, params)

    @server.feature(PROJECTS_REQUEST)
    def projects(ls: EaselServer, params: Any = None) -> dict[str, Any]:
        return projects_result(ls, params)
