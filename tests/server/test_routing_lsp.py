"""Routing in the editor over stdio (VS Code and Neovim capabilities): the cost lens above the
frontmatter, the hovers on `description:` and on a quoted request, and RT001 as a diagnostic
that follows an edit of another skill's description."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

OpenDocument = Callable[..., Awaitable[str]]

CARD_PATH = "skills/openclaw/card-maker/SKILL.md"
NOTE_PATH = "skills/openclaw/note-writer/SKILL.md"
PROMPT_PATH = "skills/openclaw/card-maker/tests/1.prompt"

# An emoji before the quoted request: hover positions travel in the client's units.
CARD = """---
name: card-maker
description: >-
  😀把卡片脚本渲染成图文卡片，自动分页和配色。适用场景：用户说“把这篇笔记做成图文”“换个配色”。
  不写文案，文案交给 `note-writer`。
layer: produce
---
# 卡片

## 输入
卡片脚本，格式见 [格式](references/format.md)。
"""
NOTE = """---
name: note-writer
description: >-
  写小红书笔记的标题、正文和话题标签。适用场景：用户说“帮我写篇小红书笔记”。出图请用 `card-maker`。
layer: plan
---
# 笔记
"""


@pytest.fixture()
def workspace_files() -> Mapping[str, str]:
    return {
        "easel-ls.toml": 'extend-select = ["RT001"]\n',  # opt-in
        CARD_PATH: CARD,
        NOTE_PATH: NOTE,
        "skills/openclaw/card-maker/references/format.md": "# 格式\n\n每张卡片一个 `##` 标题。\n",
        PROMPT_PATH: "帮我写篇小红书笔记\n",
        "skills/openclaw/card-maker/tests/1.expected": "标题\n",
    }


def units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le")) // 2


async def hover_at(client: LanguageClient, uri: str, text: str, line: int, column: int) -> str:
    encoding: str = client.encoding  # type: ignore[attr-defined]
    position = lsp.Position(line=line, character=units(text.splitlines()[line][:column], encoding))
    result = await client.text_document_hover_async(
        lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=position)
    )
    assert result is not None
    assert isinstance(result.contents, lsp.MarkupContent)
    return result.contents.value


async def test_cost_lens_sits_above_the_frontmatter(
    client: LanguageClient, open_document: OpenDocument
) -> None:
    uri = await open_document(CARD_PATH)
    lenses = await client.text_document_code_lens_async(
        lsp.CodeLensParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
    )
    costs = [
        lens for lens in lenses or [] if lens.command and lens.command.title.startswith("resident")
    ]
    assert len(costs) == 1
    first = costs[0]
    assert first.range.start.line == 0 and first.command is not None
    title = first.command.title
    assert title.startswith("resident ") and " tokens · body " in title
    assert "references " in title


async def test_hover_on_description_shows_cost_and_competitors(
    client: LanguageClient, open_document: OpenDocument
) -> None:
    uri = await open_document(CARD_PATH)
    text = await hover_at(client, uri, CARD, 2, 3)
    assert "Resident cost" in text and "tokens" in text
    assert "Nearest competitors" in text and "`note-writer`" in text


async def test_hover_on_a_quoted_request_shows_where_it_goes(
    client: LanguageClient, open_document: OpenDocument
) -> None:
    uri = await open_document(CARD_PATH)
    line = CARD.splitlines()[3]
    text = await hover_at(client, uri, CARD, 3, line.index("这篇笔记"))
    assert "**Request “把这篇笔记做成图文”**" in text
    assert "1. `card-maker`" in text and "← this skill" in text


async def test_a_misrouted_test_prompt_is_a_diagnostic(
    client: LanguageClient, open_document: OpenDocument, wait_until
) -> None:
    uri = await open_document(PROMPT_PATH, language_id="plaintext")
    diagnostics = client.diagnostics.get(uri, [])
    misrouted = [d for d in diagnostics if d.code == "RT001"]
    assert misrouted and "`note-writer` first" in misrouted[0].message
    assert misrouted[0].related_information  # the winner's description


async def test_editing_another_description_moves_the_routing_finding(
    client: LanguageClient, open_document: OpenDocument, wait_until
) -> None:
    prompt_uri = await open_document(PROMPT_PATH, language_id="plaintext")
    assert "RT001" in [d.code for d in client.diagnostics.get(prompt_uri, [])]
    note_uri = await open_document(NOTE_PATH)
    # note-writer stops claiming the request: card-maker's test no longer goes there.
    edited = NOTE.replace("帮我写篇小红书笔记", "起个标题").replace(
        "写小红书笔记的标题、正文", "起标题"
    )
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=note_uri, version=2),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=edited)],
        )
    )

    def moved() -> bool:
        return "RT001" not in [d.code for d in client.diagnostics.get(prompt_uri, [])]

    await wait_until(moved, timeout=10.0, what="RT001 gone from the prompt")
