"""MF: the project manifest `outputs/<主题>/.easel.json`.

MF001/MF002 read the JSON (schema: `easel_ls/schemas/easel.schema.json`); MF003–MF011 compare
it with the project folder on disk and stay silent while it does not parse. Paths in the manifest
are relative to the project folder.

MF008 sits on line 1 of the unregistered file and is reported by the manifest's check, so a
single `.easel.json` check and a binary deliverable (which is never read) both get it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any

from easel_ls.findings import Applicability, Fix, Range, Severity, TextEdit
from easel_ls.model.json_doc import JsonDocument, JsonNode, PathStep, json_type_name, parse_json
from easel_ls.rules.base import package_text
from easel_ls.rules.context import Context, FileKind, checker
from easel_ls.rules.outputs import ASSETS_DIR, list_project
from easel_ls.schema_precheck import surely_valid
from easel_ls.suggest import closest, did_you_mean, ranked
from easel_ls.vendor import SharedModules, load_shared

_ISO_8601 = re.compile(
    r"\d{4}-\d{2}-\d{2}"
    r"(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?"
)


def shared_modules(ctx: Context) -> SharedModules:
    """content_guard / manifest / output_paths: the workspace's copy only when trusted."""
    folder = ctx.workspace.shared_scripts_dir()
    trusted = bool(ctx.option("trusted-workspace"))
    return ctx.workspace.remembered(
        ("shared-modules", folder, trusted), lambda: load_shared(folder, trusted=trusted)
    )


@lru_cache(maxsize=1)
def manifest_schema() -> dict[str, Any]:
    text = package_text("easel_ls.schemas", "easel.schema.json")
    schema: dict[str, Any] = json.loads(text)
    return schema


@lru_cache(maxsize=1)
def _validator() -> Any:
    import jsonschema

    return jsonschema.Draft202012Validator(manifest_schema())


def dotted(path: list[PathStep] | tuple[PathStep, ...]) -> str:
    """``['steps', 2, 'status']`` -> ``steps[2].status``."""
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else step)
    return text or "(top level)"


class _Manifest:
    """The parsed manifest and the helpers every MF check needs."""

    def __init__(self, ctx: Context, parsed: JsonDocument) -> None:
        self.ctx = ctx
        self.parsed = parsed
        self.data: dict[str, Any] = parsed.data if isinstance(parsed.data, dict) else {}
        self.folder = ctx.path.parent

    def range_of(self, node: JsonNode | None) -> Range:
        if node is None:
            return Range.line_start(0)
        return self.ctx.doc.range_of(node.start, node.end)

    def node(self, *path: PathStep) -> JsonNode | None:
        return self.parsed.node_at(path)

    def strings(self, *path: PathStep) -> Iterator[tuple[int, str, JsonNode]]:
        """(index, value, node) of the string items of the array at ``path``."""
        array = self.node(*path)
        if array is None or array.kind != "array":
            return
        for index, item in enumerate(array.items):
            if item.kind == "string" and isinstance(item.value, str):
                yield index, item.value, item

    def on_disk(self, relative: str) -> Path:
        return self.folder / relative

    def exists(self, relative: str) -> bool:
        path = self.on_disk(relative)
        self.ctx.workspace.note_dependency(path, self.ctx.path)
        try:
            return self.ctx.workspace.exists(path)
        except (OSError, ValueError):
            return False


def parse_manifest(ctx: Context) -> JsonDocument:
    doc = ctx.doc
    return ctx.workspace.artefact("json", doc, lambda: parse_json(doc.text))


@checker(FileKind.MANIFEST, codes=tuple(f"MF{n:03d}" for n in range(1, 12)))
def check_manifest(ctx: Context) -> None:
    parsed = parse_manifest(ctx)
    if parsed.error is not None:
        _report_syntax_error(ctx, parsed)
        return
    manifest = _Manifest(ctx, parsed)
    _report_schema_errors(manifest)
    if not isinstance(parsed.data, dict) or parsed.root is None:
        return
    _topic(manifest)
    _deliverables(manifest)
    _cover(manifest)
    _step_outputs(manifest)
    _timestamps(manifest)
    _upstream(manifest)
    _ready_without_deliverables(manifest)
    _unregistered_root_files(manifest)


def _report_syntax_error(ctx: Context, parsed: JsonDocument) -> None:
    assert parsed.error is not None
    offset = parsed.error.offset
    text = ctx.doc.text
    end = offset + 1 if offset < len(text) and text[offset] not in "\r\n" else offset
    rng = ctx.doc.range_of(offset, end)
    ctx.report(
        "MF001",
        rng,
        f"not valid JSON: {parsed.error.message} (line {rng.start.line + 1}, column "
        f"{rng.start.character + 1}); the checks against the project folder wait until it parses",
    )


# --- MF002 ---------------------------------------------------------------------------------


def _report_schema_errors(m: _Manifest) -> None:
    if surely_valid(manifest_schema(), m.parsed.data):
        return  # nothing to report, and no jsonschema import (most manifests are valid)
    errors = sorted(_validator().iter_errors(m.parsed.data), key=lambda e: list(map(str, e.path)))
    # A value of the wrong type also fails its enum: say only the type.
    wrong_type = {tuple(e.absolute_path) for e in errors if e.validator == "type"}
    for error in errors:
        if error.validator == "enum" and tuple(error.absolute_path) in wrong_type:
            continue
        path = list(error.absolute_path)
        node = m.parsed.node_at(path)
        where = dotted(path)
        kind = error.validator
        if kind == "additionalProperties" and isinstance(error.instance, dict) and node:
            _unknown_keys(m, node, error)
        elif kind == "enum":
            allowed = [str(v) for v in error.validator_value]
            m.ctx.report(
                "MF002",
                m.range_of(node),
                f"`{where}` is {json.dumps(error.instance, ensure_ascii=False)}; "
                f"must be one of {', '.join(allowed)}",
                fixes=_enum_fixes(m, node, error.instance, allowed),
                help=did_you_mean(closest(str(error.instance), allowed)),
            )
        elif kind == "required":
            missing = [k for k in error.validator_value if k not in (error.instance or {})]
            target = dotted(path) if path else "the manifest"
            brace = m.ctx.doc.range_of(node.start, node.start + 1) if node else Range.line_start()
            m.ctx.report(
                "MF002", brace, f"{target} requires {', '.join(f'`{k}`' for k in missing)}"
            )
        elif kind == "type":
            expected = error.validator_value
            m.ctx.report(
                "MF002",
                m.range_of(node),
                f"`{where}` must be {_a(expected)}, not {json_type_name(error.instance)}",
            )
        elif kind == "minLength":
            m.ctx.report("MF002", m.range_of(node), f"`{where}` must not be empty")
        else:
            m.ctx.report("MF002", m.range_of(node), f"`{where}`: {error.message}")


def _a(expected: Any) -> str:
    names = expected if isinstance(expected, list) else [expected]
    words = {"object": "an object", "array": "an array", "integer": "an integer"}
    return " or ".join(words.get(str(n), f"a {n}") for n in names)


def _unknown_keys(m: _Manifest, node: JsonNode, error: Any) -> None:
    allowed = list(error.schema.get("properties", {}))
    for member in node.members:
        if member.key in allowed:
            continue
        m.ctx.report(
            "MF002",
            m.ctx.doc.range_of(member.key_start, member.key_end),
            f"unknown key `{member.key}` in `.easel.json` (manifest.py keeps it, the content "
            "library ignores it)",
            help=did_you_mean(closest(member.key, allowed)),
            severity=Severity.WARNING,
        )


def _enum_fixes(m: _Manifest, node: JsonNode | None, value: Any, allowed: list[str]) -> list[Fix]:
    if node is None:
        return []
    rng = m.range_of(node)
    return [
        Fix(
            f"Set to `{option}`",
            Applicability.UNSAFE,
            edits=(TextEdit(m.ctx.path, rng, json.dumps(option, ensure_ascii=False)),),
        )
        for option in ranked(str(value), allowed)
    ]


# --- MF007 ---------------------------------------------------------------------------------


def _topic(m: _Manifest) -> None:
    node = m.node("topic")
    if node is None or node.kind != "string" or node.value == m.folder.name:
        return
    new_text = json.dumps(m.folder.name, ensure_ascii=False)
    m.ctx.report(
        "MF007",
        m.range_of(node),
        f"`topic` is {json.dumps(node.value, ensure_ascii=False)} but the project folder is "
        f"`{m.folder.name}`",
        fixes=[
            Fix(
                f"Set topic to {new_text}",
                Applicability.SAFE,
                edits=(TextEdit(m.ctx.path, m.range_of(node), new_text),),
            )
        ],
    )


# --- MF003 / MF004 / MF005 / MF006 ---------------------------------------------------------


def _normalised(relative: str) -> str:
    return PurePosixPath(relative.replace("\\", "/")).as_posix().removeprefix("./")


def _deliverables(m: _Manifest) -> None:
    for index, value, node in m.strings("deliverables"):
        if not value.strip():
            continue
        if not m.exists(value):
            m.ctx.report(
                "MF003",
                m.range_of(node),
                f"deliverable `{value}` (`deliverables[{index}]`) is not in the project folder",
            )
        parts = PurePosixPath(_normalised(value)).parts
        if len(parts) > 1:
            place = "`assets/`" if parts[0] == ASSETS_DIR else f"the subfolder `{parts[0]}/`"
            m.ctx.report(
                "MF004",
                m.range_of(node),
                f"deliverable `{value}` is inside {place}; finished files belong at the "
                "project root (intermediates stay in `assets/` and are not deliverables)",
            )


def _cover(m: _Manifest) -> None:
    node = m.node("cover")
    if node is None or node.kind != "string" or not str(node.value).strip():
        return
    cover = str(node.value)
    media = shared_modules(m.ctx).manifest.MEDIA_SUFFIXES
    if not m.exists(cover):
        m.ctx.report("MF005", m.range_of(node), f"cover `{cover}` is not in the project folder")
    elif PurePosixPath(cover).suffix.lower() not in media:
        m.ctx.report(
            "MF005",
            m.range_of(node),
            f"cover `{cover}` is not an image or a video ({', '.join(sorted(media))})",
        )


def _step_outputs(m: _Manifest) -> None:
    steps = m.node("steps")
    if steps is None or steps.kind != "array":
        return
    for index in range(len(steps.items)):
        for item_index, value, node in m.strings("steps", index, "outputs"):
            if value.strip() and not m.exists(value):
                m.ctx.report(
                    "MF006",
                    m.range_of(node),
                    f"`steps[{index}].outputs[{item_index}]` `{value}` is not in the project "
                    "folder",
                )


# --- MF009 ---------------------------------------------------------------------------------


def parse_timestamp(text: str) -> datetime | None:
    """An ISO 8601 date or date-time, or None."""
    if not _ISO_8601.fullmatch(text):
        return None
    cleaned = text.replace(",", ".")
    if cleaned.endswith("Z"):
        cleaned = cleaned[:-1] + "+00:00"
    zone = re.search(r"([+-])(\d{2})(\d{2})$", cleaned)
    if zone and cleaned[-5] in "+-" and len(cleaned) > 10:
        cleaned = cleaned[:-4] + zone.group(2) + ":" + zone.group(3)
    elif re.search(r"[+-]\d{2}$", cleaned) and len(cleaned) > 10:
        cleaned += ":00"
    fraction = re.search(r"\.(\d+)", cleaned)
    if fraction and len(fraction.group(1)) != 6:  # 3.10 wants exactly 3 or 6 digits
        digits = (fraction.group(1) + "000000")[:6]
        cleaned = cleaned[: fraction.start(1)] + digits + cleaned[fraction.end(1) :]
    try:
        return datetime.fromisoformat(cleaned)
    except ValueError:
        return None


def _timestamps(m: _Manifest) -> None:
    parsed: dict[str, datetime] = {}
    for key in ("created", "updated"):
        node = m.node(key)
        if node is None or node.kind != "string":
            continue
        moment = parse_timestamp(node.value)
        if moment is None:
            _bad_timestamp(m, key, node)
        else:
            parsed[key] = moment
    steps = m.node("steps")
    for index, step in enumerate(steps.items if steps and steps.kind == "array" else []):
        node = step.child("at")
        if node is not None and node.kind == "string" and parse_timestamp(node.value) is None:
            _bad_timestamp(m, f"steps[{index}].at", node)
    created, updated = parsed.get("created"), parsed.get("updated")
    if created is not None and updated is not None and _before(updated, created):
        m.ctx.report(
            "MF009",
            m.range_of(m.node("updated")),
            f"`updated` ({m.data.get('updated')}) is before `created` ({m.data.get('created')})",
        )


def _bad_timestamp(m: _Manifest, where: str, node: JsonNode) -> None:
    m.ctx.report(
        "MF009",
        m.range_of(node),
        f"`{where}` is {json.dumps(node.value, ensure_ascii=False)}, not an ISO 8601 time "
        "(e.g. 2024-05-01T09:30:00+08:00)",
    )


def _before(a: datetime, b: datetime) -> bool:
    if (a.tzinfo is None) != (b.tzinfo is None):
        # Mixed naive/aware: read the naive one as UTC rather than guess a local zone.
        a = a if a.tzinfo else a.replace(tzinfo=UTC)
        b = b if b.tzinfo else b.replace(tzinfo=UTC)
    return a < b


# --- MF010 ---------------------------------------------------------------------------------


def _upstream(m: _Manifest) -> None:
    steps = m.node("steps")
    if steps is None or steps.kind != "array":
        return
    known: set[str] = set()
    for index, step in enumerate(steps.items):
        if step.kind != "object":
            continue
        for item_index, value, node in m.strings("steps", index, "upstream"):
            if value.strip() and _normalised(value) not in known and value not in known:
                m.ctx.report(
                    "MF010",
                    m.range_of(node),
                    f"`steps[{index}].upstream[{item_index}]` `{value}` names no earlier step "
                    "(skill or layer) or output",
                    help=did_you_mean(closest(value, sorted(known))),
                )
        layer = step.child("layer")
        skill = step.child("skill")
        names = [n.value for n in (layer, skill) if n is not None and n.kind == "string"]
        known.update(names)
        if len(names) == 2:
            known.update({f"{names[0]}/{names[1]}", f"{names[0]}:{names[1]}"})
        for _i, output, _node in m.strings("steps", index, "outputs"):
            known.update({output, _normalised(output)})


# --- MF011 ---------------------------------------------------------------------------------


def _ready_without_deliverables(m: _Manifest) -> None:
    node = m.node("status")
    if node is None or node.value not in ("ready", "published"):
        return
    deliverables = m.data.get("deliverables")
    if isinstance(deliverables, list) and any(
        isinstance(d, str) and d.strip() for d in deliverables
    ):
        return
    m.ctx.report(
        "MF011",
        m.range_of(node),
        f"status is `{node.value}` but no deliverables are registered",
    )


# --- MF008 ---------------------------------------------------------------------------------


def unregistered_deliverables(folder: Path, data: Mapping[str, Any]) -> list[Path]:
    """Files at a project's root that `deliverables` does not list (shared by MF008 and the
    editor's "Register deliverables" command, so both always agree)."""
    registered = {_normalised(d) for d in _string_list(data.get("deliverables"))}
    # Step outputs at the root (the spec's brief.md) are hand-over files, not deliverables.
    steps = data.get("steps")
    for step in steps if isinstance(steps, list) else []:
        if isinstance(step, dict):
            registered.update(_normalised(o) for o in _string_list(step.get("outputs")))
    return [
        path
        for path in list_project(folder).root_files
        if not path.name.startswith(".") and path.name not in registered
    ]


def _unregistered_root_files(m: _Manifest) -> None:
    missing = unregistered_deliverables(m.folder, m.data)
    if not missing:
        return
    fixes = _register_fix(m, [p.name for p in missing])
    for path in missing:
        finding = m.ctx.finding(
            "MF008",
            Range.line_start(0),
            f"`{path.name}` is at the project root of `{m.folder.name}` but not in its "
            "`.easel.json` deliverables (register it, or move it into `assets/`)",
            fixes=fixes,
        )
        finding.path = path
        m.ctx.findings.append(finding)


def _string_list(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def register_deliverables_text(
    shared: SharedModules, data: dict[str, Any], topic: str, names: list[str], now: Any = None
) -> str:
    """What `manifest.py meta --topic T --deliverables <current + names>` writes."""
    current = _string_list(data.get("deliverables"))
    fields = {"deliverables": [*current, *names]}
    updated = shared.manifest.apply_meta(data, topic, fields, now=now)
    text: str = shared.manifest.dumps(updated)
    return text


def _register_fix(m: _Manifest, names: list[str]) -> list[Fix]:
    if not isinstance(m.data.get("deliverables", []), list):
        return []  # manifest.py would overwrite a non-list; leave that to the user
    try:
        text = register_deliverables_text(shared_modules(m.ctx), m.data, m.folder.name, names)
    except Exception:  # manifest.py refuses (e.g. an invalid value): offer nothing
        return []
    whole = m.ctx.doc.range_of(0, len(m.ctx.doc.text))
    return [
        Fix(
            "Register deliverables",
            Applicability.UNSAFE,
            edits=(TextEdit(m.ctx.path, whole, text),),
        )
    ]
