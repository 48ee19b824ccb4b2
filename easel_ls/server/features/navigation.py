"""Document links and go to definition, from ``easel_ls.services.navigation``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from easel_ls.server.convert import uri_of
from easel_ls.services.navigation import definition, document_links

if TYPE_CHECKING:
    from easel_ls.server.app import EaselServer


def links(ls: EaselServer, uri: str) -> list[lsp.DocumentLink]:
    doc = ls.document(uri)
    if doc is None:
        return []
    conv = ls.converter()
    capability = ls.client_capabilities.text_document
    tooltips = bool(
        capability and capability.document_link and capability.document_link.tooltip_support
    )
    return [
        lsp.DocumentLink(
            range=conv.range(doc.path, link.range, doc.lines),
            target=uri_of(link.target),
            tooltip=link.tooltip if tooltips else None,
        )
        for link in document_links(ls.workspace_for(doc.path), doc)
    ]


def definitions(
    ls: EaselServer, uri: str, position: lsp.Position
) -> list[lsp.LocationLink] | list[lsp.Location]:
    doc = ls.document(uri)
    if doc is None:
        return []
    conv = ls.converter()
    found = definition(ls.workspace_for(doc.path), doc, conv.from_lsp(doc.lines, position))
    capability = ls.client_capabilities.text_document
    link_support = bool(capability and capability.definition and capability.definition.link_support)
    if link_support:
        return [
            lsp.LocationLink(
                target_uri=uri_of(d.path),
                target_range=conv.range(d.path, d.range),
                target_selection_range=conv.range(d.path, d.range),
                origin_selection_range=conv.range(doc.path, d.origin, doc.lines),
            )
            for d in found
        ]
    return [lsp.Location(uri=uri_of(d.path), range=conv.range(d.path, d.range)) for d in found]


def register(server: EaselServer) -> None:
    @server.feature(
        lsp.TEXT_DOCUMENT_DOCUMENT_LINK, lsp.DocumentLinkOptions(resolve_provider=False)
    )
    def document_link(ls: EaselServer, params: lsp.DocumentLinkParams) -> list[lsp.DocumentLink]:
        return links(ls, params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    def goto_definition(
        ls: EaselServer, params: lsp.DefinitionParams
    ) -> list[lsp.LocationLink] | list[lsp.Location]:
        return definitions(ls, params.text_document.uri, params.position)
