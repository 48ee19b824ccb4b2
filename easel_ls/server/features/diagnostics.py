"""Push diagnostics: checked on open and save, debounced on change."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from easel_ls.engine import check_document
from easel_ls.server.app import path_of

if TYPE_CHECKING:
    from easel_ls.server.app import EaselServer

log = logging.getLogger(__name__)


def check_and_publish(ls: EaselServer, uri: str) -> None:
    ls.pending.pop(uri, None)
    doc = ls.document(uri)
    if doc is None:
        return
    ws = ls.workspace_for(doc.path)
    try:
        findings = check_document(ws, doc)
    except Exception:
        log.exception("checking %s failed", uri)
        findings = []
    ls.findings[uri] = findings
    conv = ls.converter()
    lines = doc.lines
    diagnostics = [conv.diagnostic(f, lines) for f in findings if f.path == doc.path]
    ls.text_document_publish_diagnostics(
        lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=doc.version)
    )


def schedule(ls: EaselServer, uri: str) -> None:
    handle = ls.pending.pop(uri, None)
    if handle is not None:
        handle.cancel()
    if ls.debounce_ms <= 0:
        check_and_publish(ls, uri)
        return
    loop = asyncio.get_running_loop()
    ls.pending[uri] = loop.call_later(ls.debounce_ms / 1000, check_and_publish, ls, uri)


def register(server: EaselServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: EaselServer, params: lsp.DidOpenTextDocumentParams) -> None:
        check_and_publish(ls, params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: EaselServer, params: lsp.DidChangeTextDocumentParams) -> None:
        schedule(ls, params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: EaselServer, params: lsp.DidSaveTextDocumentParams) -> None:
        check_and_publish(ls, params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: EaselServer, params: lsp.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        handle = ls.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        path = path_of(uri)
        if path is not None:
            ls.workspace_for(path).drop_overlay(path)
