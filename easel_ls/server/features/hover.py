"""textDocument/hover: the hover service's Markdown, with the hovered token's range."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from easel_ls.server.app import path_of
from easel_ls.services.hover import hover

if TYPE_CHECKING:
    from easel_ls.server.app import EaselServer


def markup_kind(ls: EaselServer) -> lsp.MarkupKind:
    """Markdown unless the client says it only renders plain text in hovers."""
    text_document = ls.client_capabilities.text_document
    formats = text_document.hover.content_format if text_document and text_document.hover else None
    if formats and lsp.MarkupKind.Markdown not in formats:
        return lsp.MarkupKind.PlainText
    return lsp.MarkupKind.Markdown


def hover_of(ls: EaselServer, params: lsp.HoverParams) -> lsp.Hover | None:
    uri = params.text_document.uri
    path = path_of(uri)
    doc = ls.document(uri)
    if path is None or doc is None:
        return None
    conv = ls.converter()
    lines = doc.lines
    found = hover(ls.workspace_for(path), doc, conv.from_lsp(lines, params.position))
    if found is None:
        return None
    return lsp.Hover(
        contents=lsp.MarkupContent(kind=markup_kind(ls), value=found.markdown),
        range=conv.range(path, found.range, lines),
    )


def register(server: EaselServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: EaselServer, params: lsp.HoverParams) -> lsp.Hover | None:
        return hover_of(ls, params)
