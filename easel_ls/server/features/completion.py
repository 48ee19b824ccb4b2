"""textDocument/completion: the completion service's items as lsprotocol types.

The cursor arrives in the client's position units and is converted to code points before the
service runs; each item's edit range goes back through the same codec.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from easel_ls.server.app import path_of
from easel_ls.services.completion import CompletionItem, complete

if TYPE_CHECKING:
    from easel_ls.server.app import EaselServer

# Characters after which a useful list exists: options, paths, keys, link targets, codes.
TRIGGER_CHARACTERS = ["-", "/", " ", ":", '"', "(", "=", "[", ","]

ITEM_KINDS = {
    "key": lsp.CompletionItemKind.Property,
    "value": lsp.CompletionItemKind.EnumMember,
    "file": lsp.CompletionItemKind.File,
    "script": lsp.CompletionItemKind.File,
    "subcommand": lsp.CompletionItemKind.Module,
    "option": lsp.CompletionItemKind.Field,
    "rule": lsp.CompletionItemKind.Reference,
}


def markup_kind(ls: EaselServer) -> lsp.MarkupKind:
    """Markdown unless the client says it only renders plain text in completion docs."""
    text_document = ls.client_capabilities.text_document
    completion = text_document.completion if text_document else None
    item = completion.completion_item if completion else None
    formats = item.documentation_format if item else None
    if formats and lsp.MarkupKind.Markdown not in formats:
        return lsp.MarkupKind.PlainText
    return lsp.MarkupKind.Markdown


def completion_list(ls: EaselServer, params: lsp.CompletionParams) -> lsp.CompletionList:
    empty = lsp.CompletionList(is_incomplete=False, items=[])
    uri = params.text_document.uri
    path = path_of(uri)
    doc = ls.document(uri)
    if path is None or doc is None:
        return empty
    conv = ls.converter()
    lines = doc.lines
    cursor = conv.from_lsp(lines, params.position)
    items = complete(ls.workspace_for(path), doc, cursor)
    kind = markup_kind(ls)

    def convert(item: CompletionItem) -> lsp.CompletionItem:
        documentation = (
            lsp.MarkupContent(kind=kind, value=item.documentation) if item.documentation else None
        )
        return lsp.CompletionItem(
            label=item.label,
            kind=ITEM_KINDS[item.kind],
            detail=item.detail,
            documentation=documentation,
            sort_text=item.sort_text,
            filter_text=item.filter_text,
            text_edit=lsp.TextEdit(
                range=conv.range(path, item.range, lines), new_text=item.new_text
            ),
        )

    return lsp.CompletionList(is_incomplete=False, items=[convert(i) for i in items])


def register(server: EaselServer) -> None:
    @server.feature(
        lsp.TEXT_DOCUMENT_COMPLETION,
        lsp.CompletionOptions(trigger_characters=TRIGGER_CHARACTERS, resolve_provider=False),
    )
    def completion(ls: EaselServer, params: lsp.CompletionParams) -> lsp.CompletionList:
        return completion_list(ls, params)
