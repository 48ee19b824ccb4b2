"""Hover previews over stdio: the cursor and the hovered range travel in the client's position
units, with an emoji and CJK before the cover on the same line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "views"
MANIFEST = "outputs/winter-menu/.easel.json"
LINE = '  "title": "🧺春日野餐", "cover": "cover.png",'
TEXT = '{\n  "topic": "winter-menu",\n' + LINE + '\n  "steps": []\n}\n'


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    root = Path(shutil.copytree(FIXTURE, tmp_path / "ws"))
    # An ASCII folder name: pygls keys open documents by the decoded URI, so a percent-encoded
    # non-ASCII URI finds the disk text instead of the buffer (reported to the lead).
    shutil.copy(root / "outputs/春日野餐/cover.png", root / "outputs/winter-menu/cover.png")
    return root


def units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le")) // 2


async def test_hover_on_a_cover_after_an_emoji(client: LanguageClient) -> None:
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    uri = (root / MANIFEST).as_uri()
    # The buffer differs from the disk: the hover must read the buffer.
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=uri, language_id="json", version=1, text=TEXT)
        )
    )
    encoding: str = client.encoding  # type: ignore[attr-defined]
    column = LINE.index("cover.png") + 2  # inside the file name
    result = await client.text_document_hover_async(
        lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri),
            position=lsp.Position(line=2, character=units(LINE[:column], encoding)),
        )
    )
    assert result is not None and isinstance(result.contents, lsp.MarkupContent)
    assert result.contents.kind == lsp.MarkupKind.Markdown
    cover = client.workspace_root / "outputs/winter-menu/cover.png"  # type: ignore[attr-defined]
    assert result.contents.value.startswith(f"![cover.png]({cover.resolve().as_uri()})")
    assert "160 × 120 px" in result.contents.value
    start = LINE.index('"cover.png"')
    assert result.range == lsp.Range(
        start=lsp.Position(line=2, character=units(LINE[:start], encoding)),
        end=lsp.Position(line=2, character=units(LINE[: start + len('"cover.png"')], encoding)),
    )
