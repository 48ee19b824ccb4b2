"""The content projects of a workspace (``outputs/<topic>/.easel.json``), protocol-free.

Each manifest is read through the workspace (editor buffers first) and its JSON model (values
with ranges, shared with the MF rules through the artefact cache). A broken manifest is still a
project: it is listed with ``error`` saying what is wrong, and keeps whatever parts are usable.
Paths in a manifest are relative to the project folder (the spec's layout).

Also the ``.easel.json`` code lens: the layers the steps went through, the step count, the
status, and how many steps failed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from easel_ls.findings import Range
from easel_ls.model.json_doc import JsonDocument, JsonNode, json_type_name, parse_json
from easel_ls.model.text import TextDocument
from easel_ls.services.lenses import Lens
from easel_ls.workspace import Workspace

MANIFEST_NAME = ".easel.json"
SHOW_PIPELINE = "easel-ls.showPipeline"
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg"})
VIDEO_SUFFIXES = frozenset({".mp4", ".mov", ".webm", ".m4v"})
STEP_DONE = "done"
STEP_FAILED = "failed"
_TEXT_FIELDS = ("title", "kind", "status", "platform", "summary", "updated")


@dataclass(frozen=True)
class FileRef:
    """A file a manifest names: ``path`` as written, ``file`` where it is on disk."""

    path: str
    file: Path
    exists: bool
    image: bool


@dataclass(frozen=True)
class Step:
    index: int
    layer: str | None
    skill: str | None
    status: str  # "done" (the default), "failed", or whatever the manifest says
    at: str | None
    summary: str | None
    outputs: list[FileRef]
    range: Range  # the step object in the manifest


@dataclass
class Project:
    topic: str  # the folder name
    folder: Path
    manifest: Path
    title: str | None = None
    kind: str | None = None
    status: str | None = None
    platform: str | None = None
    summary: str | None = None
    updated: str | None = None
    cover: FileRef | None = None
    cover_implicit: bool = False  # no `cover` key: the first image/video deliverable stands in
    deliverables: list[FileRef] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    error: str | None = None

    @property
    def failed_steps(self) -> int:
        return sum(1 for step in self.steps if step.status == STEP_FAILED)


def manifest_paths(ws: Workspace) -> list[Path]:
    """Every ``outputs/<topic>/.easel.json``; system folders (``_scratch`` …) are not projects."""
    found = []
    for folder in ws.list_dir(ws.outputs_dir()):
        if folder.name.startswith("_") or folder.name.startswith("."):
            continue
        manifest = folder / MANIFEST_NAME
        if ws.exists(manifest):
            found.append(manifest)
    return found


def list_projects(ws: Workspace) -> list[Project]:
    """The workspace's projects, the most recently updated first, then by topic."""
    projects = [read_project(ws, path) for path in manifest_paths(ws)]
    dated = sorted(projects, key=lambda p: p.topic)
    dated.sort(key=lambda p: p.updated or "", reverse=True)
    return dated


def json_model(ws: Workspace, doc: TextDocument) -> JsonDocument:
    # The same artefact key as the manifest rules: one parse per text for both.
    return ws.artefact("json", doc, lambda: parse_json(doc.text))


def read_project(ws: Workspace, manifest: Path, doc: TextDocument | None = None) -> Project:
    folder = manifest.parent
    project = Project(topic=folder.name, folder=folder, manifest=manifest)
    if doc is None:
        text = ws.read(manifest)
        if text.doc is None:
            project.error = f"{MANIFEST_NAME} {text.error or 'cannot be read'}"
            return project
        doc = text.doc
    model = json_model(ws, doc)
    if model.error is not None:
        where = doc.position_at(min(model.error.offset, len(doc.text)))
        project.error = (
            f"invalid JSON at line {where.line + 1}, column {where.character + 1}: "
            f"{model.error.message}"
        )
        return project
    if not isinstance(model.data, dict):
        project.error = f"{MANIFEST_NAME} must hold a JSON object, not {json_type_name(model.data)}"
        return project
    problems: list[str] = []
    data = model.data
    for name in _TEXT_FIELDS:
        setattr(project, name, _text_field(data, name, problems))
    deliverables = _string_list(data, "deliverables", problems)
    project.deliverables = [file_ref(ws, folder, p) for p in deliverables]
    cover = _text_field(data, "cover", problems)
    if cover:
        project.cover = file_ref(ws, folder, cover)
    elif "cover" not in data:
        media = IMAGE_SUFFIXES | VIDEO_SUFFIXES
        first = next(
            (d for d in project.deliverables if Path(d.path).suffix.lower() in media), None
        )
        project.cover, project.cover_implicit = first, first is not None
    project.steps = _steps(ws, doc, model, folder, problems)
    if problems:
        project.error = "; ".join(problems)
    return project


def file_ref(ws: Workspace, folder: Path, rel: str) -> FileRef:
    file = Path(os.path.normpath(folder / rel))
    inside = ws.contains(file)
    return FileRef(
        path=rel,
        file=file,
        exists=inside and ws.exists(file) and file.is_file(),
        image=file.suffix.lower() in IMAGE_SUFFIXES,
    )


def _text_field(
    data: dict[str, Any], name: str, problems: list[str], where: str = ""
) -> str | None:
    value = data.get(name)
    if value is None or isinstance(value, str):
        return value
    problems.append(f"`{where}{name}` should be a string, not {json_type_name(value)}")
    return None


def _string_list(
    data: dict[str, Any], name: str, problems: list[str], where: str = ""
) -> list[str]:
    value = data.get(name)
    if value is None:
        return []
    if not isinstance(value, list):
        problems.append(
            f"`{where}{name}` should be an array of strings, not {json_type_name(value)}"
        )
        return []
    strings = [v for v in value if isinstance(v, str)]
    if len(strings) != len(value):
        problems.append(f"`{where}{name}` should hold only strings")
    return strings


def _steps(
    ws: Workspace, doc: TextDocument, model: JsonDocument, folder: Path, problems: list[str]
) -> list[Step]:
    raw = model.data.get("steps")
    if raw is None:
        return []
    if not isinstance(raw, list):
        problems.append(f"`steps` should be an array, not {json_type_name(raw)}")
        return []
    nodes = model.node_at(("steps",))
    steps = []
    for index, item in enumerate(raw):
        where = f"steps[{index}]."
        node = nodes.items[index] if nodes is not None and index < len(nodes.items) else None
        rng = _range_of(doc, node)
        if not isinstance(item, dict):
            problems.append(f"`steps[{index}]` should be an object, not {json_type_name(item)}")
            continue
        status = _text_field(item, "status", problems, where) or STEP_DONE
        outputs = _string_list(item, "outputs", problems, where)
        steps.append(
            Step(
                index=index,
                layer=_text_field(item, "layer", problems, where),
                skill=_text_field(item, "skill", problems, where),
                status=status,
                at=_text_field(item, "at", problems, where),
                summary=_text_field(item, "summary", problems, where),
                outputs=[file_ref(ws, folder, p) for p in outputs],
                range=rng,
            )
        )
    return steps


def _range_of(doc: TextDocument, node: JsonNode | None) -> Range:
    if node is None:
        return Range.line_start(0)
    return doc.range_of(node.start, node.end)


# -- the code lens -----------------------------------------------------------------------


def pipeline_title(project: Project) -> str:
    """``discover → plan → produce · 3 steps · ready`` (consecutive repeats of a layer once)."""
    layers: list[str] = []
    for step in project.steps:
        name = step.layer or "?"
        if not layers or layers[-1] != name:
            layers.append(name)
    parts = [" → ".join(layers)] if layers else []
    count = len(project.steps)
    parts.append(f"{count} step" + ("" if count == 1 else "s"))
    if project.failed_steps:
        parts.append(f"{project.failed_steps} failed")
    if project.status:
        parts.append(project.status)
    if project.error:
        parts.append("broken manifest")
    return " · ".join(parts)


def manifest_lenses(ws: Workspace, doc: TextDocument) -> list[Lens]:
    """One lens on the first line: the pipeline at a glance; a click shows the pipeline."""
    project = read_project(ws, doc.path, doc)
    return [
        Lens(
            range=Range.line_start(0),
            title=pipeline_title(project),
            command=SHOW_PIPELINE,
            arguments=(doc.path,),
        )
    ]
