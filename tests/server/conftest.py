"""Shared fixtures for end-to-end server tests: the real server over stdio, driven by pytest-lsp
with the client capabilities recorded from VS Code and Neovim, on a small workspace on disk.

Override ``workspace_files``, ``initialization_options`` or ``editor_configuration`` in a test
module (or with ``@pytest.mark.parametrize(..., indirect=True)``) to change what a test starts
with. The ``client`` fixture adds three attributes to pytest-lsp's ``LanguageClient``:
``workspace_root`` (Path), ``encoding`` (the negotiated position encoding) and
``registrations`` (every ``client/registerCapability`` the server sent) and ``published``
(every ``publishDiagnostics``, in order).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

CLIENTS = ["visual-studio-code", "neovim"]

SKILL_PATH = "skills/openclaw/card-maker/SKILL.md"
SCRIPT_PATH = "skills/openclaw/card-maker/scripts/render_cards.py"
REFERENCE_PATH = "skills/openclaw/card-maker/references/themes.md"

SCRIPT = '''"""Render cards."""
import argparse


def build_parser():
    parser = argparse.ArgumentParser(prog="render_cards.py")
    parser.add_argument("--topic", required=True)
    parser.add_argument("--theme", choices=["paper", "mint"])
    return parser


if __name__ == "__main__":
    build_parser().parse_args()
'''

SKILL = f"""---
name: card-maker
description: >-
  把策划稿渲染成小红书卡片图😀。当用户说"做卡片"或需要出图时使用；只负责出图，不负责发布，
  发布另行处理。适用场景：图文笔记、知识卡片、清单类内容的成品制作与登记，以及配色选择。
layer: produce
---
# 卡片

## 输入
策划稿，配色见 [配色](references/themes.md)。

## 输出
卡片。

## Profile 感知
无画像时用默认配色。

## 执行步骤
```bash
python {SCRIPT_PATH} --topic <主题> --theme paper
```
"""

REFERENCE = "# 配色\n\npaper 与 mint 两种。\n"

WORKSPACE_FILES: dict[str, str] = {
    SKILL_PATH: SKILL,
    SCRIPT_PATH: SCRIPT,
    REFERENCE_PATH: REFERENCE,
}


def write_files(root: Path, files: Mapping[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")


@pytest.fixture()
def workspace_files(request: pytest.FixtureRequest) -> Mapping[str, str]:
    """Relative path -> text of the workspace the server starts on; parametrize indirectly
    (or override the fixture) for another workspace."""
    return getattr(request, "param", WORKSPACE_FILES)


@pytest.fixture()
def initialization_options(request: pytest.FixtureRequest) -> dict[str, Any]:
    """``initializationOptions``; parametrize indirectly to change them."""
    return getattr(request, "param", {"debounceMs": 0})


@pytest.fixture()
def editor_configuration(request: pytest.FixtureRequest) -> dict[str, Any] | None:
    """What the client answers to ``workspace/configuration`` for section ``easel-ls``;
    parametrize indirectly to set it."""
    return getattr(request, "param", None)


@pytest.fixture()
def workspace_folders(request: pytest.FixtureRequest) -> list[str]:
    """The workspace folders the client opens, relative to the workspace (multi-root when
    more than one); parametrize indirectly to change them."""
    return getattr(request, "param", ["."])


@pytest.fixture()
def workspace(tmp_path: Path, workspace_files: Mapping[str, str]) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    write_files(root, workspace_files)
    return root


@pytest_lsp.fixture(
    params=CLIENTS,
    config=ClientServerConfig(server_command=[sys.executable, "-m", "easel_ls"]),
)
async def client(
    lsp_client: LanguageClient,
    request: pytest.FixtureRequest,
    workspace: Path,
    workspace_folders: list[str],
    initialization_options: dict[str, Any],
    editor_configuration: dict[str, Any] | None,
):
    registrations: list[lsp.Registration] = []
    published: list[lsp.PublishDiagnosticsParams] = []

    @lsp_client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
    def register_capability(client: LanguageClient, params: lsp.RegistrationParams) -> None:
        registrations.extend(params.registrations)

    # Keep every publish (pytest-lsp keeps the latest per URI only), for version checks.
    features = lsp_client.protocol.fm.features
    keep_latest = features[lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def record_publish(params: lsp.PublishDiagnosticsParams) -> None:
        published.append(params)
        keep_latest(params)

    features[lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = record_publish

    if editor_configuration is not None:
        lsp_client.set_configuration(editor_configuration, section="easel-ls")
    capabilities = client_capabilities(request.param)
    if request.node.get_closest_marker("pull_client") is None and capabilities.text_document:
        # Push-mode tests: a client that can pull gets open documents by pull only.
        capabilities.text_document.diagnostic = None
    result = await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=capabilities,
            root_uri=(workspace / workspace_folders[0]).resolve().as_uri(),
            workspace_folders=[
                lsp.WorkspaceFolder(uri=(workspace / f).resolve().as_uri(), name=f)
                for f in workspace_folders
            ],
            initialization_options=initialization_options,
        )
    )
    lsp_client.workspace_root = workspace  # type: ignore[attr-defined]
    lsp_client.encoding = result.capabilities.position_encoding or "utf-16"  # type: ignore[attr-defined]
    lsp_client.registrations = registrations  # type: ignore[attr-defined]
    lsp_client.published = published  # type: ignore[attr-defined]
    lsp_client.server_capabilities = result.capabilities  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


WaitUntil = Callable[..., Awaitable[None]]


@pytest.fixture()
def wait_until() -> WaitUntil:
    """``await wait_until(condition, timeout=5.0, what="...")``: poll until true, else fail."""

    async def wait(condition: Callable[[], bool], timeout: float = 5.0, what: str = "") -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not condition():
            if loop.time() > deadline:
                pytest.fail(f"timed out after {timeout}s waiting for {what or condition}")
            await asyncio.sleep(0.01)

    return wait


OpenDocument = Callable[..., Awaitable[str]]


@pytest.fixture()
def open_document(client: LanguageClient, wait_until: WaitUntil) -> OpenDocument:
    """``await open_document(relpath, text=None)``: didOpen (text from disk by default), then
    wait for the server's diagnostics for that document; returns its URI."""

    async def open_it(relpath: str, text: str | None = None, language_id: str = "markdown") -> str:
        root: Path = client.workspace_root  # type: ignore[attr-defined]
        path = root / relpath
        uri = path.as_uri()
        if text is None:
            text = path.read_text(encoding="utf-8")
        published: list[lsp.PublishDiagnosticsParams] = client.published  # type: ignore[attr-defined]
        seen = len(published)
        client.text_document_did_open(
            lsp.DidOpenTextDocumentParams(
                text_document=lsp.TextDocumentItem(
                    uri=uri, language_id=language_id, version=1, text=text
                )
            )
        )

        def opened_version_published() -> bool:
            # The background index may publish the disk text first; wait for the buffer's.
            return any(p.uri == uri and p.version == 1 for p in published[seen:])

        await wait_until(opened_version_published, what=f"diagnostics for {relpath}")
        return uri

    return open_it


def codes_of(client: LanguageClient, uri: str) -> list[str]:
    return sorted(str(d.code) for d in client.diagnostics.get(uri, []))


@pytest.fixture()
def diagnostic_codes(client: LanguageClient) -> Callable[[str], list[str]]:
    """``diagnostic_codes(uri)``: sorted codes of the latest diagnostics pushed for ``uri``."""
    return lambda uri: codes_of(client, uri)


@pytest.fixture()
def index_finished(client: LanguageClient, wait_until: WaitUntil) -> Callable[[], Awaitable[None]]:
    """``await index_finished()``: the background index has ended (its work-done progress
    ended). Skips the test for a client without work-done progress."""

    async def finished() -> None:
        window = client.capabilities.window if client.capabilities else None
        if not (window and window.work_done_progress):
            pytest.skip("this client shows no work-done progress")
        await wait_until(
            lambda: any(
                isinstance(report, lsp.WorkDoneProgressEnd)
                for reports in client.progress_reports.values()
                for report in reports
            ),
            timeout=30,
            what="the background index to end",
        )

    return finished
