"""textDocument/codeLens: the lenses of ``services/lenses.py`` (script definitions, skill
commands, the `.easel.json` pipeline), arguments turned into LSP values."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp

from easel_ls.findings import Position
from easel_ls.server.convert import Converter, uri_of
from easel_ls.services.lenses import LocationArg, code_lenses

if TYPE_CHECKING:
    from easel_ls.server.app import EaselServer


def lenses(ls: EaselServer, uri: str) -> list[lsp.CodeLens]:
    doc = ls.document(uri)
    if doc is None:
        return []
    conv = ls.converter()
    found = code_lenses(ls.workspace_for(doc.path), doc)
    return [
        lsp.CodeLens(
            range=conv.range(doc.path, lens.range, doc.lines),
            command=lsp.Command(
                title=lens.title,
                command=lens.command,
                arguments=[_argument(conv, doc.path, a) for a in lens.arguments] or None,
            ),
        )
        for lens in found
    ]


def _argument(conv: Converter, path: Path, value: Any) -> Any:
    """Paths become URIs, positions the client's units (they are positions in ``path``),
    locations LSP Locations; lists are converted item by item."""
    if isinstance(value, Path):
        return uri_of(value)
    if isinstance(value, LocationArg):
        rng = conv.range(value.path, value.range)
        return {"uri": uri_of(value.path), "range": _range_json(rng)}
    if isinstance(value, Position):
        pos = conv.position(path, value)
        return {"line": pos.line, "character": pos.character}
    if isinstance(value, (list, tuple)):
        return [_argument(conv, path, v) for v in value]
    return value


def _range_json(rng: lsp.Range) -> dict[str, Any]:
    return {
        "start": {"line": rng.start.line, "character": rng.start.character},
        "end": {"line": rng.end.line, "character": rng.end.character},
    }


def register(server: EaselServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_CODE_LENS, lsp.CodeLensOptions(resolve_provider=False))
    async def on_code_lens(ls: EaselServer, params: lsp.CodeLensParams) -> list[lsp.CodeLens]:
        from easel_ls.server.features.graph import ready_for

        await ready_for(ls, params.text_document.uri)  # script lenses count the graph's uses
        return lenses(ls, params.text_document.uri)
