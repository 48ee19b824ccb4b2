"""A workspace under a CJK folder name with a space: clients send such URIs percent-encoded
(`%E5%B7%A5…`), pygls keeps open buffers by the decoded URI. The server must still see the
buffer, not the disk, for diagnostics, hover and rename."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

# The shared default workspace (tests/server/conftest.py), under another folder name.
SKILL_PATH = "skills/openclaw/card-maker/SKILL.md"
SCRIPT_PATH = "skills/openclaw/card-maker/scripts/render_cards.py"


@pytest.fixture()
def workspace(tmp_path: Path, workspace_files: Mapping[str, str]) -> Path:
    root = tmp_path / "工作区 草稿"
    for rel, text in workspace_files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


async def test_the_buffer_is_checked_not_the_disk(
    client: LanguageClient, open_document, diagnostic_codes
) -> None:
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    disk = (root / SKILL_PATH).read_text(encoding="utf-8")
    buffer = disk.replace("--theme paper", "--thme paper")  # a drifted option, only in the buffer
    uri = await open_document(SKILL_PATH, text=buffer)
    assert "%E5%B7%A5" in uri
    assert "CM002" in diagnostic_codes(uri)


async def test_rename_reads_the_buffer_under_an_encoded_uri(
    client: LanguageClient, open_document
) -> None:
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    disk = (root / SKILL_PATH).read_text(encoding="utf-8")
    buffer = "\n\n" + disk  # the command moved two lines down, only in the buffer
    uri = await open_document(SKILL_PATH, text=buffer)
    row = next(i for i, line in enumerate(buffer.splitlines()) if "--topic" in line)
    column = buffer.splitlines()[row].index("--topic") + 2
    edit = await client.text_document_rename_async(
        lsp.RenameParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri),
            position=lsp.Position(row, column),
            new_name="--subject",
        )
    )
    assert edit is not None
    script_uri = (root / SCRIPT_PATH).as_uri()
    if edit.document_changes is not None:
        changed = {c.text_document.uri: c for c in edit.document_changes}  # type: ignore[union-attr]
        skill_edit = changed[uri]
        assert skill_edit.text_document.version == 1  # type: ignore[union-attr]
        edits = skill_edit.edits  # type: ignore[union-attr]
    else:
        assert edit.changes is not None
        edits = edit.changes[uri]
        assert script_uri in edit.changes
    assert [e.range.start.line for e in edits] == [row]
