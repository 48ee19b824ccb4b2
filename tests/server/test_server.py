"""The language server over stdio, driven by pytest-lsp with recorded VS Code and Neovim
capabilities: diagnostics carry codes, rule links and their fixes; code actions unpack them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

SKILL = """---
name: card-makr
description: >-
  为小红书笔记生成卡片图😀。当用户说"做卡片"或需要把策划稿变成图片时使用；只负责出图，
  不负责发布。适用场景：图文笔记、知识卡片、清单类内容，以及各种需要配图的小红书图文。
layer: produce
---
# 卡片制作

## 输入
策划稿。

## 输出
卡片。

## 执行步骤
1. 出图。

## Profile 感知
无画像时用默认配色。
"""


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    skill = tmp_path / "skills" / "openclaw" / "card-maker"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL, encoding="utf-8")
    return tmp_path


@pytest_lsp.fixture(
    params=["visual-studio-code", "neovim"],
    config=ClientServerConfig(server_command=[sys.executable, "-m", "easel_ls"]),
)
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest, workspace: Path):
    @lsp_client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: lsp.RegistrationParams) -> None:
        return None  # accept the server's dynamic registrations (file watchers)

    capabilities = client_capabilities(request.param)
    if capabilities.text_document:
        capabilities.text_document.diagnostic = None  # push mode (pull mode: test_pull_mode_lsp)
    result = await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=capabilities,
            root_uri=workspace.as_uri(),
            workspace_folders=[lsp.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
            initialization_options={"debounceMs": 0},
        )
    )
    lsp_client.workspace_root = workspace  # type: ignore[attr-defined]
    lsp_client.encoding = result.capabilities.position_encoding or "utf-16"  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


async def open_skill(client: LanguageClient, text: str = SKILL) -> str:
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    uri = (root / "skills/openclaw/card-maker/SKILL.md").as_uri()
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(
                uri=uri, language_id="markdown", version=1, text=text
            )
        )
    )
    await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return uri


async def test_diagnostic_has_code_link_source_and_exact_range(client: LanguageClient) -> None:
    uri = await open_skill(client)
    (diag,) = [d for d in client.diagnostics[uri] if d.code == "FM009"]
    assert diag.source == "easel-ls"
    assert diag.range == lsp.Range(lsp.Position(1, 6), lsp.Position(1, 15))
    assert diag.severity == lsp.DiagnosticSeverity.Error
    assert diag.code_description is not None
    assert diag.code_description.href.endswith("#fm009-name-mismatch")
    assert diag.data["fixes"][0]["applicability"] == "safe"


async def test_quick_fix_comes_from_the_diagnostic_data(client: LanguageClient) -> None:
    uri = await open_skill(client)
    diags = [d for d in client.diagnostics[uri] if d.code == "FM009"]
    actions = await client.text_document_code_action_async(
        lsp.CodeActionParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri),
            range=diags[0].range,
            context=lsp.CodeActionContext(diagnostics=diags),
        )
    )
    assert actions is not None
    titles = [a.title for a in actions if isinstance(a, lsp.CodeAction)]
    assert titles == ["Set name to `card-maker`", "Disable FM009 for this line"]
    action = next(a for a in actions if isinstance(a, lsp.CodeAction))
    assert action.kind == lsp.CodeActionKind.QuickFix
    assert action.is_preferred
    assert action.edit is not None and action.edit.document_changes


async def test_change_republishes_for_the_new_text(client: LanguageClient) -> None:
    uri = await open_skill(client)
    fixed = SKILL.replace("name: card-makr", "name: card-maker")
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=fixed)],
        )
    )
    await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert not [d for d in client.diagnostics[uri] if d.code == "FM009"]


async def test_utf16_columns_after_emoji(client: LanguageClient) -> None:
    text = SKILL.replace("layer: produce", "layer: 😀produce", 1)
    uri = await open_skill(client, text)
    (diag,) = [d for d in client.diagnostics[uri] if d.code == "FM008"]
    # `layer: ` is 7 code units; the emoji is 2 UTF-16 units, 4 UTF-8 units, 1 UTF-32 unit.
    emoji_units = {"utf-8": 4, "utf-16": 2, "utf-32": 1}[client.encoding]  # type: ignore[attr-defined]
    assert diag.range.start == lsp.Position(5, 7)
    assert diag.range.end == lsp.Position(5, 7 + emoji_units + len("produce"))


async def test_fix_all_applies_safe_fixes_only(client: LanguageClient) -> None:
    uri = await open_skill(client)
    actions = await client.text_document_code_action_async(
        lsp.CodeActionParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri),
            range=lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)),
            context=lsp.CodeActionContext(diagnostics=[], only=["source.fixAll.easel-ls"]),
        )
    )
    assert actions is not None
    (action,) = actions
    assert isinstance(action, lsp.CodeAction)
    assert action.edit is not None and action.edit.changes is not None
    (edit,) = action.edit.changes[uri]
    assert edit.new_text == "card-maker"
