"""workspace/executeCommand: `easel.checkWorkspace` and `easel.registerDeliverables`
(`easel.showSettings` lives with the settings, in ``workspace_sync``).

Register deliverables calls the shared manifest module's own `apply_meta` + `dumps`, so the
`.easel.json` it writes is exactly what `manifest.py meta --deliverables …` writes. The module is
the copy packaged with easel-ls; the workspace's `skills/shared/scripts/manifest.py` is imported
only when the workspace is trusted (option `trusted-workspace`), since importing runs its code.
The new text goes through `workspace/applyEdit` as one edit, so the editor's undo restores it.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from lsprotocol import types as lsp

from easel_ls.engine import check_document, check_path, wants
from easel_ls.findings import Finding, Position, Range
from easel_ls.server.app import EaselServer, path_of
from easel_ls.server.convert import uri_of
from easel_ls.workspace import Workspace

log = logging.getLogger(__name__)

CHECK_WORKSPACE = "easel.checkWorkspace"
REGISTER_DELIVERABLES = "easel.registerDeliverables"
MANIFEST_NAME = ".easel.json"
_BATCH = 20  # files checked between two yields to the event loop


# -- the manifest module --------------------------------------------------------------------

_loaded: dict[Path, tuple[int, ModuleType]] = {}


@dataclass(frozen=True)
class ManifestModule:
    module: ModuleType | None
    origin: str  # which copy, or why none could be used


def manifest_module(ws: Workspace, *, trusted: bool) -> ManifestModule:
    """The shared manifest module, chosen exactly as the rules choose it: the packaged copy,
    or the workspace's own only when it is identical to it or the workspace is trusted."""
    from easel_ls.vendor import load_shared

    shared = load_shared(ws.shared_scripts_dir(), trusted=trusted)
    return ManifestModule(shared.manifest, shared.note or f"{shared.source} copy")


# -- register deliverables ------------------------------------------------------------------


@dataclass(frozen=True)
class DeliverablesPlan:
    manifest: Path
    registered: tuple[str, ...] = ()  # files newly listed in `deliverables`
    new_text: str | None = None  # the whole new `.easel.json`; None: nothing to write
    error: str | None = None


def manifest_of(path: Path) -> Path:
    """The `.easel.json` a command argument means: the file itself, a project folder's, or the
    one beside a file of the project."""
    if path.name == MANIFEST_NAME:
        return path
    return path / MANIFEST_NAME if path.is_dir() else path.parent / MANIFEST_NAME


def unregistered_files(project: Path, deliverables: list[str]) -> list[str]:
    """Files at the project root (not hidden, not in a folder such as `assets/`) that
    `deliverables` does not list."""
    from easel_ls.rules.manifest import unregistered_deliverables

    return [p.name for p in unregistered_deliverables(project, {"deliverables": deliverables})]


def plan_register_deliverables(
    manifest: Path, current_text: str | None, module: ModuleType, now: Any = None
) -> DeliverablesPlan:
    """The `.easel.json` after registering every unregistered root file; a manifest that is
    not a JSON object is never rewritten."""
    data: dict[str, Any] = {}
    if current_text is not None and current_text.strip():
        try:
            parsed = json.loads(current_text)
        except json.JSONDecodeError as exc:
            return DeliverablesPlan(
                manifest,
                error=f"{MANIFEST_NAME} is not valid JSON (line {exc.lineno}, column {exc.colno}); "
                "it is not rewritten",
            )
        if not isinstance(parsed, dict):
            return DeliverablesPlan(
                manifest, error=f"{MANIFEST_NAME} is not a JSON object; it is not rewritten"
            )
        data = parsed
    from easel_ls.rules.manifest import unregistered_deliverables

    existing = data.get("deliverables")
    listed = [d for d in existing if isinstance(d, str)] if isinstance(existing, list) else []
    new = [p.name for p in unregistered_deliverables(manifest.parent, data)]
    if not new:
        return DeliverablesPlan(manifest)
    try:
        updated = module.apply_meta(
            data, manifest.parent.name, {"deliverables": [*listed, *new]}, now=now
        )
        text = module.dumps(updated)
    except Exception as exc:
        return DeliverablesPlan(manifest, error=f"the manifest module refused: {exc}")
    return DeliverablesPlan(manifest, tuple(new), text)


def _supports_create(ls: EaselServer) -> bool:
    workspace = ls.client_capabilities.workspace
    edit = workspace.workspace_edit if workspace else None
    # Resource operations only exist inside documentChanges, so they imply it (Neovim declares
    # the operations without the flag).
    operations = (edit.resource_operations if edit else None) or []
    return lsp.ResourceOperationKind.Create in operations


async def register_deliverables(ls: EaselServer, target: str) -> dict[str, Any]:
    path = path_of(target) if "://" in target else Path(target)
    if path is None:
        return {"applied": False, "error": f"not a file URI: {target}"}
    manifest = manifest_of(path)
    uri = uri_of(manifest)
    ws = ls.workspace_for(manifest)
    trusted = bool(ws.settings_for(manifest).option("trusted-workspace"))
    loaded = manifest_module(ws, trusted=trusted)
    if loaded.module is None:
        return _refuse(ls, uri, f"cannot register deliverables: {loaded.origin}")
    exists = manifest.exists() or ls.opened(uri) is not None
    doc = ls.document(uri) if exists else None
    if exists and doc is None:
        return _refuse(ls, uri, f"{ws.rel(manifest)} cannot be read; it is not rewritten")
    if not exists and not _is_project_folder(ws, manifest.parent):
        return _refuse(ls, uri, f"{ws.rel(manifest.parent)} is not a project folder of outputs/")
    plan = plan_register_deliverables(manifest, doc.text if doc else None, loaded.module)
    if plan.error is not None:
        return _refuse(ls, uri, plan.error)
    if plan.new_text is None:
        return {
            "applied": False,
            "manifest": uri,
            "registered": [],
            "reason": "nothing to register",
        }
    if doc is not None:
        whole = ls.converter().range(doc.path, Range(Position(0, 0), doc.end_position), doc.lines)
        edit = lsp.WorkspaceEdit(changes={uri: [lsp.TextEdit(range=whole, new_text=plan.new_text)]})
    elif _supports_create(ls):
        edit = lsp.WorkspaceEdit(
            document_changes=[
                lsp.CreateFile(uri=uri, options=lsp.CreateFileOptions(ignore_if_exists=True)),
                lsp.TextDocumentEdit(
                    text_document=lsp.OptionalVersionedTextDocumentIdentifier(
                        uri=uri, version=None
                    ),
                    edits=[lsp.TextEdit(range=_start(), new_text=plan.new_text)],
                ),
            ]
        )
    else:
        return _refuse(
            ls, uri, f"{MANIFEST_NAME} does not exist and the editor cannot create files"
        )
    result = await ls.workspace_apply_edit_async(
        lsp.ApplyWorkspaceEditParams(edit=edit, label="Register deliverables")
    )
    applied = bool(result and result.applied)
    return {
        "applied": applied,
        "manifest": uri,
        "registered": list(plan.registered) if applied else [],
        "module": loaded.origin,
    }


def _is_project_folder(ws: Workspace, folder: Path) -> bool:
    """`outputs/<topic>/`: a folder right under the outputs folder, not a `_system` one."""
    try:
        return (
            folder.resolve().parent == ws.outputs_dir().resolve()
            and not folder.name.startswith(("_", "."))
            and folder.is_dir()
        )
    except (OSError, RuntimeError):
        return False


def _start() -> lsp.Range:
    return lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0))


def _refuse(ls: EaselServer, uri: str, reason: str) -> dict[str, Any]:
    ls.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=reason))
    return {"applied": False, "manifest": uri, "registered": [], "error": reason}


# -- check workspace ------------------------------------------------------------------------


async def check_workspace(ls: EaselServer, folder: Path | None = None) -> dict[str, int]:
    """Re-check every file of every root (or only those under ``folder``, e.g. one skill) and
    publish; returns how many files and findings."""
    files = total = 0
    roots = list(ls.roots.values()) if folder is None else [ls.workspace_for(folder)]
    for ws in roots:
        ws.forget(ws.root)  # a fresh skills index: skills may have come or gone
        # A check may report on another file (MF008 sits on the deliverable, not the manifest).
        by_path: dict[Path, list[Finding]] = {}
        for path in ws.iter_files([folder if folder is not None else ws.root]):
            if not wants(ws, path):
                continue
            by_path.setdefault(path, [])
            for finding in _check(ls, ws, path):
                by_path.setdefault(finding.path, []).append(finding)
                total += 1
            files += 1
            if files % _BATCH == 0:
                await asyncio.sleep(0)  # let edits and requests in between batches
        for path, findings in by_path.items():
            _publish(ls, ws, path, sorted(findings, key=lambda f: f.sort_key))
    return {"files": files, "findings": total}


def _check(ls: EaselServer, ws: Workspace, path: Path) -> list[Finding]:
    uri = uri_of(path)
    try:
        if ls.opened(uri) is not None:
            doc = ls.document(uri)  # the editor's text, not the disk's
            if doc is not None:
                return check_document(ws, doc)
        return check_path(ws, path)
    except Exception:
        log.exception("checking %s failed", path)
        return []


def _publish(ls: EaselServer, ws: Workspace, path: Path, findings: list[Finding]) -> None:
    # Published even when empty: that clears what an earlier check (or the index) showed.
    uri = uri_of(path)
    ls.findings[uri] = findings
    doc = ws.read(path).doc
    lines = doc.lines if doc is not None else []
    conv = ls.converter()
    ls.text_document_publish_diagnostics(
        lsp.PublishDiagnosticsParams(
            uri=uri,
            diagnostics=[conv.diagnostic(f, lines) for f in findings],
            version=doc.version if doc is not None else None,
        )
    )


def _first_text(arguments: tuple[Any, ...]) -> str | None:
    """The first argument as a URI or path: a string, or an object with a `uri`."""
    if not arguments:
        return None
    first = arguments[0]
    if isinstance(first, dict):
        first = first.get("uri") or first.get("path")
    return first if isinstance(first, str) and first else None


def register(server: EaselServer) -> None:
    @server.command(CHECK_WORKSPACE)
    async def check_workspace_command(ls: EaselServer, *arguments: Any) -> dict[str, int]:
        """Optional argument: a folder (URI or path), e.g. a skill: check only what it holds."""
        target = _first_text(arguments)
        folder = None
        if target is not None:
            folder = path_of(target) if "://" in target else Path(target)
        return await check_workspace(ls, folder.resolve() if folder is not None else None)

    @server.command(REGISTER_DELIVERABLES)
    async def register_deliverables_command(ls: EaselServer, *arguments: Any) -> dict[str, Any]:
        target = _first_text(arguments)
        if target is None:
            return {"applied": False, "error": "expected the URI of a .easel.json or a folder"}
        return await register_deliverables(ls, target)
