"""A client that can pull diagnostics gets open documents by pull only, never by push as well
(VS Code would otherwise show every finding twice)."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

SKILL_PATH = "skills/openclaw/card-maker/SKILL.md"

pytestmark = pytest.mark.pull_client


async def test_open_document_is_pulled_not_pushed(client: LanguageClient) -> None:
    caps = client_caps(client)
    if caps is None:
        pytest.skip("this recorded client cannot pull diagnostics")
    root = client.workspace_root  # type: ignore[attr-defined]
    path = root / SKILL_PATH
    uri = path.as_uri()
    text = path.read_text(encoding="utf-8").replace("--theme", "--thme", 1)
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(
                uri=uri, language_id="markdown", version=1, text=text
            )
        )
    )
    report = await client.text_document_diagnostic_async(
        lsp.DocumentDiagnosticParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
    )
    assert isinstance(report, lsp.RelatedFullDocumentDiagnosticReport)
    assert "CM002" in [d.code for d in report.items]
    await asyncio.sleep(0.5)  # let any push that would arrive, arrive
    pushed = [p for p in client.published if p.uri == uri]  # type: ignore[attr-defined]
    assert all(not p.diagnostics for p in pushed)


def client_caps(client: LanguageClient) -> object | None:
    capabilities = client.capabilities
    text_document = capabilities.text_document if capabilities else None
    return text_document.diagnostic if text_document else None
