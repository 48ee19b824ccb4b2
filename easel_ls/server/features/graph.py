"""References, rename, file moves and document highlights over the script ↔ docs graph
(``services/graph.py``, ``services/refactor.py``). Edits reach files through the client's
WorkspaceEdit, so an open document is never changed behind the editor's back."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException

from easel_ls.server.app import path_of
from easel_ls.server.convert import uri_of
from easel_ls.services import graph, refactor

if TYPE_CHECKING:
    from easel_ls.server.app import EaselServer
    from easel_ls.workspace import Workspace

log = logging.getLogger(__name__)

# Skill files and folders: what a move can break a link or command path to.
MOVE_FILTERS = [
    lsp.FileOperationFilter(
        pattern=lsp.FileOperationPattern(glob="**/skills/**", matches=kind), scheme="file"
    )
    for kind in (lsp.FileOperationPatternKind.File, lsp.FileOperationPatternKind.Folder)
]


NO_FILE_RENAMES = (
    "renaming a skill moves its folder, and this editor cannot apply file renames "
    "(its workspaceEdit capabilities lack documentChanges with `rename`)"
)


class RequestFailed(JsonRpcException):
    """LSP's RequestFailed: the request was valid, the answer is no (the message says why)."""

    CODE = -32803


def references(ls: EaselServer, params: lsp.ReferenceParams) -> list[lsp.Location]:
    doc = ls.document(params.text_document.uri)
    if doc is None:
        return []
    conv = ls.converter()
    ws = ls.workspace_for(doc.path)
    places = graph.references(
        ws, doc, conv.from_lsp(doc.lines, params.position), params.context.include_declaration
    )
    return [lsp.Location(uri=uri_of(p.path), range=conv.range(p.path, p.range)) for p in places]


def highlights(ls: EaselServer, params: lsp.DocumentHighlightParams) -> list[lsp.DocumentHighlight]:
    doc = ls.document(params.text_document.uri)
    if doc is None:
        return []
    conv = ls.converter()
    found = graph.highlights(
        ls.workspace_for(doc.path), doc, conv.from_lsp(doc.lines, params.position)
    )
    return [
        lsp.DocumentHighlight(
            range=conv.range(doc.path, rng, doc.lines), kind=lsp.DocumentHighlightKind.Text
        )
        for rng in found
    ]


def prepare_rename(
    ls: EaselServer, params: lsp.PrepareRenameParams
) -> lsp.PrepareRenamePlaceholder | None:
    doc = ls.document(params.text_document.uri)
    if doc is None:
        return None
    conv = ls.converter()
    try:
        found = refactor.prepare_rename(
            ls.workspace_for(doc.path), doc, conv.from_lsp(doc.lines, params.position)
        )
    except refactor.RenameRefused as refused:
        raise RequestFailed(str(refused)) from None
    if found is None:
        return None
    if found.symbol.kind == "skill" and not supports_file_renames(ls):
        raise RequestFailed(NO_FILE_RENAMES)
    return lsp.PrepareRenamePlaceholder(
        range=conv.range(doc.path, found.range, doc.lines), placeholder=found.placeholder
    )


def rename(ls: EaselServer, params: lsp.RenameParams) -> lsp.WorkspaceEdit | None:
    doc = ls.document(params.text_document.uri)
    if doc is None:
        return None
    conv = ls.converter()
    ws = ls.workspace_for(doc.path)
    try:
        change = refactor.rename(
            ws, doc, conv.from_lsp(doc.lines, params.position), params.new_name
        )
    except refactor.RenameRefused as refused:
        raise RequestFailed(str(refused)) from None
    if change.renames and not supports_file_renames(ls):
        raise RequestFailed(NO_FILE_RENAMES)
    return workspace_edit(ls, change)


def will_rename_files(ls: EaselServer, params: lsp.RenameFilesParams) -> lsp.WorkspaceEdit | None:
    moves_by_ws: dict[Path, list[tuple[Path, Path]]] = {}
    for item in params.files:
        old, new = path_of(item.old_uri), path_of(item.new_uri)
        if old is None or new is None:
            continue
        moves_by_ws.setdefault(ls.workspace_for(old).root, []).append((old, new))
    total = refactor.WorkspaceChange()
    for root, moves in moves_by_ws.items():
        change = refactor.file_moves(ls.roots[root], moves)
        for path, edits in change.edits.items():
            for edit in edits:
                total.add(path, edit.range, edit.new_text)
    if not total.edits:
        return None
    # The editor performs the moves itself: the edit carries only the text changes.
    return workspace_edit(ls, total)


def did_rename_files(ls: EaselServer, params: lsp.RenameFilesParams) -> None:
    """The moves landed: forget the old and new paths and re-check what read them (the
    watched-file events that usually follow clear what was deleted)."""
    from easel_ls.server.features.diagnostics import recheck

    to_check: set[Path] = set()
    for item in params.files:
        for uri in (item.old_uri, item.new_uri):
            path = path_of(uri)
            if path is None:
                continue
            ws = ls.workspace_for(path)
            ws.forget(path)
            ws.forget(path / "SKILL.md")  # a skill folder moved: the skills index differs
            to_check |= {p for p in ws.dependents.get(path, set()) if p.exists()}
    recheck(ls, to_check)


async def ready_for(ls: EaselServer, uri: str) -> None:
    path = path_of(uri)
    if path is not None:
        await graph_ready(ls, ls.workspace_for(path))


def supports_file_renames(ls: EaselServer) -> bool:
    workspace = ls.client_capabilities.workspace
    edit = workspace.workspace_edit if workspace else None
    operations = edit.resource_operations if edit else None
    return bool(
        edit
        and edit.document_changes
        and operations
        and lsp.ResourceOperationKind.Rename in operations
    )


def workspace_edit(ls: EaselServer, change: refactor.WorkspaceChange) -> lsp.WorkspaceEdit:
    conv = ls.converter()
    workspace = ls.client_capabilities.workspace
    edit_caps = workspace.workspace_edit if workspace else None
    per_file = {
        path: [lsp.TextEdit(range=conv.range(path, e.range), new_text=e.new_text) for e in edits]
        for path, edits in change.sorted_edits().items()
    }
    if not (edit_caps and edit_caps.document_changes):
        return lsp.WorkspaceEdit(changes={uri_of(p): e for p, e in per_file.items()})
    changes: list[lsp.TextDocumentEdit | lsp.RenameFile] = []
    for path, edits in per_file.items():
        uri = uri_of(path)
        opened = ls.opened(uri)
        version = opened.version if opened is not None else None
        changes.append(
            lsp.TextDocumentEdit(
                text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                edits=list(edits),
            )
        )
    for old, new in change.renames:
        changes.append(lsp.RenameFile(old_uri=uri_of(old), new_uri=uri_of(new)))
    return lsp.WorkspaceEdit(document_changes=changes)


def register(server: EaselServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    async def on_references(ls: EaselServer, params: lsp.ReferenceParams) -> list[lsp.Location]:
        await ready_for(ls, params.text_document.uri)
        return references(ls, params)

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT)
    async def on_highlight(
        ls: EaselServer, params: lsp.DocumentHighlightParams
    ) -> list[lsp.DocumentHighlight]:
        await ready_for(ls, params.text_document.uri)
        return highlights(ls, params)

    @server.feature(lsp.TEXT_DOCUMENT_PREPARE_RENAME)
    async def on_prepare_rename(
        ls: EaselServer, params: lsp.PrepareRenameParams
    ) -> lsp.PrepareRenamePlaceholder | None:
        await ready_for(ls, params.text_document.uri)
        return prepare_rename(ls, params)

    @server.feature(lsp.TEXT_DOCUMENT_RENAME, lsp.RenameOptions(prepare_provider=True))
    async def on_rename(ls: EaselServer, params: lsp.RenameParams) -> lsp.WorkspaceEdit | None:
        await ready_for(ls, params.text_document.uri)
        return rename(ls, params)

    @server.feature(
        lsp.WORKSPACE_WILL_RENAME_FILES, lsp.FileOperationRegistrationOptions(filters=MOVE_FILTERS)
    )
    async def on_will_rename(
        ls: EaselServer, params: lsp.RenameFilesParams
    ) -> lsp.WorkspaceEdit | None:
        for item in params.files:
            await ready_for(ls, item.old_uri)
        return will_rename_files(ls, params)

    @server.feature(
        lsp.WORKSPACE_DID_RENAME_FILES, lsp.FileOperationRegistrationOptions(filters=MOVE_FILTERS)
    )
    def on_did_rename(ls: EaselServer, params: lsp.RenameFilesParams) -> None:
        did_rename_files(ls, params)


# The longest stretch the graph's first build runs without letting requests through.
WARM_SLICE_S = 0.012
# Larger workspaces have their graph built in a worker process, like the background index:
# parsing every command of thousands of documents would hold up keystrokes, and memory.
WORKER_GRAPH_MIN_DOCUMENTS = 300


async def build_graph(ls: EaselServer) -> None:
    """After the background index: each root's graph, so the first references, rename or
    code lens does not wait for a whole-workspace build."""
    for ws in list(ls.roots.values()):
        await start_graph_build(ls, ws)


def start_graph_build(ls: EaselServer, ws: Workspace) -> asyncio.Task[None]:
    task = ls.graph_builds.get(id(ws))
    if task is None:
        task = ls.graph_builds[id(ws)] = asyncio.ensure_future(_build_root(ws))
    return task


async def graph_ready(ls: EaselServer, ws: Workspace) -> None:
    """A large workspace's graph comes from a worker: a question waits for it rather than
    parsing the whole workspace on the event loop."""
    task = ls.graph_builds.get(id(ws))
    if task is None and graph.begin_adoption(ws) is not None:
        if len(graph.markdown_documents(ws)) < WORKER_GRAPH_MIN_DOCUMENTS:
            return  # small: the question builds it in a moment
        task = start_graph_build(ls, ws)
    if task is not None and not task.done():
        await asyncio.shield(task)


async def _build_root(ws: Workspace) -> None:
    since = graph.begin_adoption(ws)
    if since is None:
        return
    if len(graph.markdown_documents(ws)) >= WORKER_GRAPH_MIN_DOCUMENTS:
        entries = await _entries_in_worker(ws)
        if entries is not None:
            graph.adopt(ws, since, entries)
            _settle_heap()
            return
    while not graph.warm(ws, WARM_SLICE_S):
        await asyncio.sleep(0)
    _settle_heap()


def _settle_heap() -> None:
    """The graph is tens of thousands of long-lived, acyclic objects: move them (and the rest
    of the heap built so far) out of the collector's reach, or every full collection walks
    them again and the request that triggers one pays for it (~60 ms on the 1000-skill
    workspace, under 1 ms once frozen)."""
    import gc

    gc.freeze()


async def _entries_in_worker(ws: Workspace) -> list[tuple[Path, Any]] | None:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # spawn, not fork: the server runs threads, and a forked child would inherit their locks.
    context = multiprocessing.get_context("spawn")
    try:
        with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
            spec = (ws.root, ws.config.init_args)
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(pool, graph.build_entries, spec)
    except Exception:
        log.warning("graph worker unavailable; building the graph in-process", exc_info=True)
        return None
