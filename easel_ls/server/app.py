"""The LanguageServer and the wiring of every feature, in one place.

A thin adapter: documents go into the engine's workspace as overlays, findings come back as
diagnostics (fixes ride in ``Diagnostic.data``), code actions only unpack those fixes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path

from lsprotocol import converters
from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from easel_ls import __version__
from easel_ls.config import ConfigResolver
from easel_ls.engine import check_document
from easel_ls.findings import Finding
from easel_ls.model.text import TextDocument
from easel_ls.server.convert import SOURCE, Converter
from easel_ls.workspace import Workspace, find_root

log = logging.getLogger(__name__)
FIX_ALL_KIND = "source.fixAll.easel-ls"
_converter = converters.get_converter()


class EaselServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("easel-ls", __version__)
        self.roots: dict[Path, Workspace] = {}
        self.debounce_ms = 150
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.findings: dict[str, list[Finding]] = {}

    def workspace_for(self, path: Path) -> Workspace:
        for root, ws in self.roots.items():
            try:
                path.relative_to(root)
            except ValueError:
                continue
            return ws
        root = find_root(path)
        found = self.roots.get(root)
        if found is None:
            found = Workspace(root=root, config=ConfigResolver())
            self.roots[root] = found
        return found

    def converter(self) -> Converter:
        def lines_of(path: Path) -> list[str]:
            ws = self.workspace_for(path)
            text = ws.text_of(path)
            return text.split("\n") if text is not None else []

        return Converter(self.workspace.position_codec, lines_of)

    def check_uri(self, uri: str) -> None:
        self.pending.pop(uri, None)
        path = _path_of(uri)
        if path is None:
            return
        document = self.workspace.get_text_document(uri)
        ws = self.workspace_for(path)
        doc = TextDocument(path, document.source, document.version)
        ws.set_overlay(doc)
        try:
            findings = check_document(ws, doc)
        except Exception:
            log.exception("checking %s failed", uri)
            findings = []
        self.findings[uri] = findings
        conv = self.converter()
        lines = doc.lines
        diagnostics = [conv.diagnostic(f, lines) for f in findings if f.path == path]
        self.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=document.version)
        )

    def schedule(self, uri: str) -> None:
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        if self.debounce_ms <= 0:
            self.check_uri(uri)
            return
        loop = asyncio.get_running_loop()
        self.pending[uri] = loop.call_later(self.debounce_ms / 1000, self.check_uri, uri)


def _path_of(uri: str) -> Path | None:
    fs = to_fs_path(uri)
    return Path(fs) if fs else None


def create_server() -> EaselServer:
    server = EaselServer()

    @server.feature(lsp.INITIALIZE)
    def initialize(ls: EaselServer, params: lsp.InitializeParams) -> None:
        options = params.initialization_options or {}
        if isinstance(options, dict) and "debounceMs" in options:
            with contextlib.suppress(TypeError, ValueError):
                ls.debounce_ms = int(options["debounceMs"])
        folders = params.workspace_folders or []
        roots = [_path_of(f.uri) for f in folders]
        if not roots and params.root_uri:
            roots = [_path_of(params.root_uri)]
        for root in roots:
            if root is not None:
                ws = Workspace(root=root.resolve(), config=ConfigResolver())
                ls.roots[ws.root] = ws

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: EaselServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.check_uri(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: EaselServer, params: lsp.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: EaselServer, params: lsp.DidSaveTextDocumentParams) -> None:
        ls.check_uri(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: EaselServer, params: lsp.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        handle = ls.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        path = _path_of(uri)
        if path is not None:
            ls.workspace_for(path).drop_overlay(path)

    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION,
        lsp.CodeActionOptions(
            code_action_kinds=[lsp.CodeActionKind.QuickFix, FIX_ALL_KIND],
            resolve_provider=False,
        ),
    )
    def code_action(ls: EaselServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        actions: list[lsp.CodeAction] = []
        only = params.context.only or []
        want_quickfix = not only or any(str(k).startswith("quickfix") for k in only)
        want_fix_all = any(str(k) in ("source", "source.fixAll", FIX_ALL_KIND) for k in only)
        if want_quickfix:
            for diagnostic in params.context.diagnostics:
                if diagnostic.source != SOURCE or not isinstance(diagnostic.data, dict):
                    continue
                for fix in diagnostic.data.get("fixes", []):
                    actions.append(
                        lsp.CodeAction(
                            title=fix["title"],
                            kind=lsp.CodeActionKind.QuickFix,
                            diagnostics=[diagnostic],
                            edit=_converter.structure(fix["edit"], lsp.WorkspaceEdit),
                            is_preferred=fix["applicability"] == "safe",
                        )
                    )
        if want_fix_all:
            action = _fix_all(ls, params.text_document.uri)
            if action is not None:
                actions.append(action)
        return actions

    return server


def _fix_all(ls: EaselServer, uri: str) -> lsp.CodeAction | None:
    """Every safe fix of the document, non-overlapping, as one edit."""
    from easel_ls.fixes import FixPlan

    plan = FixPlan()
    for finding in ls.findings.get(uri, []):
        for fix in finding.fixes:
            if fix.is_safe and not fix.creates and not fix.renames:
                plan.add(fix)
                break
    if plan.applied == 0:
        return None
    conv = ls.converter()
    document = ls.workspace.get_text_document(uri)
    lines = document.source.split("\n")
    edits = [
        lsp.TextEdit(range=conv.range(e.path, e.range, lines), new_text=e.new_text)
        for edits in plan.edits.values()
        for e in edits
    ]
    return lsp.CodeAction(
        title="easel-ls: fix all safe fixes",
        kind=FIX_ALL_KIND,
        edit=lsp.WorkspaceEdit(changes={uri: edits}),
    )
