"""Hover previews, protocol-free: what a file named in ``.easel.json`` or linked from skill
Markdown looks like, and what a manifest step did.

An image shows itself (a Markdown image of its file URI) with its format, pixel size and size
on disk; a text file its first lines in a fenced block; a missing file says so. Files are read
only inside the workspace, images only up to their header.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import unquote

from easel_ls.findings import Position, Range
from easel_ls.model.json_doc import JsonNode
from easel_ls.model.text import TextDocument
from easel_ls.rules.context import Context, FileKind, classify
from easel_ls.services.image_info import human_size, image_info, read_head
from easel_ls.services.projects import (
    IMAGE_SUFFIXES,
    STEP_FAILED,
    FileRef,
    Step,
    file_ref,
    json_model,
    read_project,
)
from easel_ls.workspace import Workspace

PREVIEW_LINES = 12
PREVIEW_CHARS = 1500
_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_{}\[\]()#+!|<>~])")
_FENCE_LANGUAGE = {
    ".md": "markdown",
    ".json": "json",
    ".py": "python",
    ".sh": "bash",
    ".txt": "text",
    ".csv": "csv",
    ".html": "html",
    ".yaml": "yaml",
    ".yml": "yaml",
}

Preview = tuple[str, Range]


# -- Markdown helpers --------------------------------------------------------------------
def escape(text: str) -> str:
    """``text`` shown literally in Markdown (skill and manifest text is untrusted)."""
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", text)


def code_span(text: str) -> str:
    ticks = max((len(run) for run in re.findall(r"`+", text)), default=0) + 1
    fence = "`" * ticks
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def file_uri(path: Path) -> str:
    # Parentheses end a Markdown link destination; the URI keeps them percent-encoded.
    return path.as_uri().replace("(", "%28").replace(")", "%29")


def fenced(text: str, language: str) -> str:
    ticks = max((len(run) for run in re.findall(r"`{3,}", text)), default=2) + 1
    fence = "`" * ticks
    return f"{fence}{language}\n{text}\n{fence}"


# -- one file ----------------------------------------------------------------------------
def file_preview(ws: Workspace, ref: FileRef) -> str:
    """The Markdown preview of a file a manifest or link names."""
    label = code_span(ref.path)
    if not ref.exists:
        where = "in the workspace" if ws.contains(ref.file) else "inside the workspace"
        return f"{label} — **missing**: no such file {where} (`{escape(str(ref.file))}`)."
    size = human_size(os.stat(ref.file).st_size)
    if ref.image:
        return image_preview(ref.file, label, size)
    text = ws.read(ref.file)
    if text.doc is None:
        return f"{label} · {size}"
    lines = text.doc.text.splitlines()
    shown = "\n".join(lines[:PREVIEW_LINES])[:PREVIEW_CHARS]
    more = len(lines) > PREVIEW_LINES or len(shown) < len("\n".join(lines[:PREVIEW_LINES]))
    language = _FENCE_LANGUAGE.get(ref.file.suffix.lower(), "")
    parts = [f"{label} · {len(lines)} lines · {size}", fenced(shown, language)]
    if more:
        parts.append(f"*… first {PREVIEW_LINES} lines*")
    return "\n\n".join(parts)


def image_preview(path: Path, label: str, size: str) -> str:
    try:
        info = image_info(read_head(path))
    except OSError as exc:
        return f"{label} · {size} · cannot be read: {escape(str(exc.strerror or exc))}"
    facts = [label]
    if info is not None:
        facts.append(info.format)
        if info.width is not None and info.height is not None:
            facts.append(f"{info.width} × {info.height} px")
    else:
        facts.append("not a recognised image")
    facts.append(size)
    return f"![{escape(path.name)}]({file_uri(path)})\n\n" + " · ".join(facts)


# -- .easel.json -------------------------------------------------------------------------
def manifest_preview(ws: Workspace, doc: TextDocument, pos: Position) -> Preview | None:
    """A file preview on a ``cover``, ``deliverables`` or step ``outputs`` entry; the step's
    summary anywhere else inside a step. None elsewhere (the schema hover answers)."""
    model = json_model(ws, doc)
    if model.root is None:
        return None
    offset = doc.offset_at(pos)
    trail = _nodes_at(model.root, offset)
    path = tuple(step for step, _ in trail)
    node = trail[-1][1] if trail else None
    folder = doc.path.parent
    if node is not None and node.kind == "string" and isinstance(node.value, str):
        if path == ("cover",) or (len(path) == 2 and path[0] == "deliverables"):
            ref = file_ref(ws, folder, node.value)
            return file_preview(ws, ref), doc.range_of(node.start, node.end)
        if len(path) == 4 and path[0] == "steps" and path[2] == "outputs":
            ref = file_ref(ws, folder, node.value)
            return file_preview(ws, ref), doc.range_of(node.start, node.end)
    if len(path) >= 1 and path[0] == "steps" and len(trail) >= 2:
        index = path[1]
        project = read_project(ws, doc.path, doc)
        step = next((s for s in project.steps if s.index == index), None)
        if step is not None:
            return step_markdown(ws, step, len(project.steps)), step.range
    return None


def _nodes_at(root: JsonNode, offset: int) -> list[tuple[str | int, JsonNode]]:
    """The path from the root to the deepest value holding ``offset`` (keys count as part of
    their member's value)."""
    trail: list[tuple[str | int, JsonNode]] = []
    node = root
    while True:
        found: tuple[str | int, JsonNode] | None = None
        if node.kind == "object":
            for member in node.members:
                if member.key_start <= offset <= member.value.end:
                    found = (member.key, member.value)
        elif node.kind == "array":
            for index, item in enumerate(node.items):
                if item.start <= offset <= item.end:
                    found = (index, item)
        if found is None:
            return trail
        trail.append(found)
        node = found[1]


def step_markdown(ws: Workspace, step: Step, count: int) -> str:
    status = f"**{escape(step.status)}** ✗" if step.status == STEP_FAILED else escape(step.status)
    head = [f"**Step {step.index + 1} of {count}**"]
    head.append(code_span(step.layer) if step.layer else "*no layer*")
    skill = ws.skills.get(step.skill) if step.skill else None
    if skill is not None:
        head.append(f"[{escape(skill.name)}]({file_uri(skill.skill_md)})")
    elif step.skill:
        head.append(f"{code_span(step.skill)} (not a skill of this workspace)")
    head.append(status)
    parts = [" · ".join(head)]
    if step.at:
        parts.append(f"recorded {escape(step.at)}")
    if step.summary:
        parts.append(escape(step.summary))
    if step.outputs:
        rows = []
        for ref in step.outputs:
            if ref.exists:
                rows.append(f"- [{escape(ref.path)}]({file_uri(ref.file)})")
            else:
                rows.append(f"- {code_span(ref.path)} — missing")
        parts.append("Outputs:\n" + "\n".join(rows))
    else:
        parts.append("No outputs recorded.")
    return "\n\n".join(parts)


# -- skill Markdown ----------------------------------------------------------------------
def markdown_link_preview(ws: Workspace, doc: TextDocument, pos: Position) -> Preview | None:
    """An image preview on a Markdown link or image whose target is an image file."""
    kind, skill = classify(ws, doc.path)
    if kind not in (FileKind.SKILL, FileKind.REFERENCE) and doc.path.suffix.lower() != ".md":
        return None
    ctx = Context(ws, doc, kind, skill, ws.settings_for(doc.path))
    for link in ctx.markdown.links:
        rng = _whole_link(doc, link.range)
        if not (rng.start <= pos <= rng.end):
            continue
        target = _local_target(link.target)
        if target is None or Path(target).suffix.lower() not in IMAGE_SUFFIXES:
            return None
        ref = file_ref(ws, doc.path.parent, target)
        return file_preview(ws, ref), rng
    return None


def _local_target(target: str) -> str | None:
    if not target or target.startswith(("#", "/")) or re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", target):
        return None
    return unquote(target.split("#", 1)[0].split("?", 1)[0]) or None


def _whole_link(doc: TextDocument, target: Range) -> Range:
    """From the link's ``[`` (or an image's ``!``) to its ``)``, when it sits on one line; else
    just the target (the model records the target's range only)."""
    line = doc.line_text(target.start.line)
    opening = line.rfind("[", 0, target.start.character)
    if target.start.line != target.end.line or opening < 0:
        return target
    if opening > 0 and line[opening - 1] == "!":
        opening -= 1
    end = target.end.character
    if end < len(line) and line[end] == ">":  # an angle-bracket destination
        end += 1
    if end < len(line) and line[end] == ")":
        end += 1
    return Range(Position(target.start.line, opening), Position(target.end.line, end))
