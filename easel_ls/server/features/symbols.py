"""Document symbols (the outline) and workspace symbols (skills), from
``easel_ls.services.symbols``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from easel_ls.server.convert import Converter, uri_of
from easel_ls.services.symbols import Symbol, SymbolKind, document_symbols, workspace_symbols

if TYPE_CHECKING:
    from easel_ls.server.app import EaselServer

LSP_KINDS = {
    SymbolKind.NAMESPACE: lsp.SymbolKind.Namespace,
    SymbolKind.OBJECT: lsp.SymbolKind.Object,
    SymbolKind.ARRAY: lsp.SymbolKind.Array,
    SymbolKind.KEY: lsp.SymbolKind.Key,
    SymbolKind.SECTION: lsp.SymbolKind.String,  # what Markdown outlines use for headings
    SymbolKind.COMMAND: lsp.SymbolKind.Function,
    SymbolKind.OPTION: lsp.SymbolKind.Field,
    SymbolKind.SKILL: lsp.SymbolKind.Module,
}
DESCRIPTION_LIMIT = 60


def outline(ls: EaselServer, uri: str) -> list[lsp.DocumentSymbol] | list[lsp.SymbolInformation]:
    doc = ls.document(uri)
    if doc is None:
        return []
    symbols = document_symbols(ls.workspace_for(doc.path), doc)
    conv = ls.converter()
    capability = ls.client_capabilities.text_document
    hierarchical = bool(
        capability
        and capability.document_symbol
        and capability.document_symbol.hierarchical_document_symbol_support
    )
    if hierarchical:
        return [_document_symbol(conv, doc.path, doc.lines, s) for s in symbols]
    flat: list[lsp.SymbolInformation] = []
    _flatten(conv, doc.path, doc.lines, uri, symbols, None, flat)
    return flat


def _document_symbol(
    conv: Converter, path: Path, lines: list[str], symbol: Symbol
) -> lsp.DocumentSymbol:
    return lsp.DocumentSymbol(
        name=symbol.name or " ",  # an empty name is invalid in LSP
        kind=LSP_KINDS[symbol.kind],
        range=conv.range(path, symbol.range, lines),
        selection_range=conv.range(path, symbol.selection_range, lines),
        detail=symbol.detail,
        children=[_document_symbol(conv, path, lines, c) for c in symbol.children] or None,
    )


def _flatten(
    conv: Converter,
    path: Path,
    lines: list[str],
    uri: str,
    symbols: list[Symbol],
    container: str | None,
    out: list[lsp.SymbolInformation],
) -> None:
    for symbol in symbols:
        out.append(
            lsp.SymbolInformation(
                name=symbol.name or " ",
                kind=LSP_KINDS[symbol.kind],
                location=lsp.Location(uri=uri, range=conv.range(path, symbol.range, lines)),
                container_name=container,
            )
        )
        _flatten(conv, path, lines, uri, symbol.children, symbol.name, out)


def skills(ls: EaselServer, query: str) -> list[lsp.WorkspaceSymbol]:
    conv = ls.converter()
    found: list[lsp.WorkspaceSymbol] = []
    for ws in list(ls.roots.values()):
        for skill in workspace_symbols(ws, query):
            description = skill.description
            if len(description) > DESCRIPTION_LIMIT:
                description = description[: DESCRIPTION_LIMIT - 1] + "…"
            found.append(
                lsp.WorkspaceSymbol(
                    name=skill.name,
                    kind=LSP_KINDS[SymbolKind.SKILL],
                    # Editors show the container beside the name: the description says what
                    # the skill is for.
                    container_name=description or skill.group,
                    location=lsp.Location(
                        uri=uri_of(skill.path), range=conv.range(skill.path, skill.range)
                    ),
                )
            )
    return found


def register(server: EaselServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def document_symbol(
        ls: EaselServer, params: lsp.DocumentSymbolParams
    ) -> list[lsp.DocumentSymbol] | list[lsp.SymbolInformation]:
        return outline(ls, params.text_document.uri)

    @server.feature(lsp.WORKSPACE_SYMBOL)
    def workspace_symbol(
        ls: EaselServer, params: lsp.WorkspaceSymbolParams
    ) -> list[lsp.WorkspaceSymbol]:
        return skills(ls, params.query)
