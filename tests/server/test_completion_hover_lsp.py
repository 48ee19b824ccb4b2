"""Completion and hover over stdio with the VS Code and Neovim capabilities: cursor positions
and edit ranges travel in the client's negotiated units (emoji before the cursor), and the
documentation is Markdown."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from easel_ls.spec import LAYERS

# The server, client and open_document fixtures come from tests/server/conftest.py; this module
# starts the server on its own workspace (a script with choices, a content project).
OpenDocument = Callable[..., Awaitable[str]]

SKILL_PATH = "skills/openclaw/card-maker/SKILL.md"
SCRIPT_PATH = "skills/openclaw/card-maker/scripts/render_cards.py"
MANIFEST_PATH = "outputs/spring-picnic/.easel.json"

SCRIPT = """import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--topic", required=True, help="主题名")
parser.add_argument("--theme", choices=["paper", "mint"], help="配色")
parser.parse_args()
"""
THEME_LINE = 5

SKILL = f"""---
name: card-maker
description: >-
  把策划稿渲染成小红书卡片图😀。当用户说"做卡片"或需要出图时使用；只负责出图，不负责发布，
  发布请用 `xhs-publish`。适用场景：图文笔记、知识卡片、清单类内容的成品制作与登记。
layer: produce
---
# 卡片

## 输入
策划稿。

## 输出
卡片。

## Profile 感知
无画像时用默认配色。

## 执行步骤
```bash
python {SCRIPT_PATH} --topic <主题> --theme paper
```
"""


@pytest.fixture()
def workspace_files() -> Mapping[str, str]:
    return {
        SKILL_PATH: SKILL,
        SCRIPT_PATH: SCRIPT,
        MANIFEST_PATH: '{"topic": "spring-picnic"}\n',
        "outputs/spring-picnic/card-1.png": "",
    }


def units(text: str, encoding: str) -> int:
    """Length of ``text`` in the client's position units."""
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def position(client: LanguageClient, lines: list[str], line: int, character: int) -> lsp.Position:
    encoding: str = client.encoding  # type: ignore[attr-defined]
    return lsp.Position(line=line, character=units(lines[line][:character], encoding))


async def complete(
    client: LanguageClient, uri: str, text: str, line: int, character: int
) -> list[lsp.CompletionItem]:
    result = await client.text_document_completion_async(
        lsp.CompletionParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri),
            position=position(client, text.splitlines(), line, character),
        )
    )
    assert isinstance(result, lsp.CompletionList)
    return list(result.items)


def item(items: list[lsp.CompletionItem], label: str) -> lsp.CompletionItem:
    (found,) = [i for i in items if i.label == label]
    return found


def apply(line: str, edit: lsp.TextEdit, encoding: str) -> str:
    """Apply a one-line edit whose columns are in client units."""

    def index(units_wanted: int) -> int:
        return next(i for i in range(len(line) + 1) if units(line[:i], encoding) >= units_wanted)

    return (
        line[: index(edit.range.start.character)]
        + edit.new_text
        + line[index(edit.range.end.character) :]
    )


async def test_server_offers_completion_and_hover(client: LanguageClient) -> None:
    capabilities: lsp.ServerCapabilities = client.server_capabilities  # type: ignore[attr-defined]
    assert capabilities.completion_provider is not None
    assert "-" in (capabilities.completion_provider.trigger_characters or [])
    assert capabilities.hover_provider


async def test_option_completion_after_emoji_replaces_the_partial_word(
    client: LanguageClient, open_document: OpenDocument
) -> None:
    prose = f"😀 出图：`python {SCRIPT_PATH} --topic x --th"
    text = SKILL + prose + "\n"
    uri = await open_document(SKILL_PATH, text)
    line = text.splitlines().index(prose)
    items = await complete(client, uri, text, line, len(prose))
    theme = item(items, "--theme")
    assert "--topic" not in [i.label for i in items]
    assert isinstance(theme.text_edit, lsp.TextEdit)
    assert apply(prose, theme.text_edit, client.encoding) == prose[:-4] + "--theme"  # type: ignore[attr-defined]
    assert isinstance(theme.documentation, lsp.MarkupContent)
    assert theme.documentation.kind == lsp.MarkupKind.Markdown
    assert "Choices: `paper`, `mint`" in theme.documentation.value


async def test_choices_follow_an_option_with_choices(
    client: LanguageClient, open_document: OpenDocument
) -> None:
    prose = f"🎨 `python {SCRIPT_PATH} --theme "
    text = SKILL + prose + "\n"
    uri = await open_document(SKILL_PATH, text)
    items = await complete(client, uri, text, text.splitlines().index(prose), len(prose))
    assert [i.label for i in items] == ["paper", "mint"]


async def test_layer_values_come_with_their_meaning(
    client: LanguageClient, open_document: OpenDocument
) -> None:
    text = SKILL.replace("layer: produce", "layer: pro")
    uri = await open_document(SKILL_PATH, text)
    line = text.splitlines().index("layer: pro")
    items = await complete(client, uri, text, line, len("layer: pro"))
    produce = item(items, "produce")
    assert isinstance(produce.documentation, lsp.MarkupContent)
    assert LAYERS["produce"] in produce.documentation.value
    assert isinstance(produce.text_edit, lsp.TextEdit)
    assert produce.text_edit.range.start == lsp.Position(line=line, character=7)


async def test_hover_on_an_option_after_emoji_shows_its_argparse_facts(
    client: LanguageClient, open_document: OpenDocument
) -> None:
    command = f"python {SCRIPT_PATH} --topic <主题> --theme paper"
    fenced = f"echo 😀出图 && {command}"
    text = SKILL.replace(command, fenced)
    uri = await open_document(SKILL_PATH, text)
    lines = text.splitlines()
    line = lines.index(fenced)
    start = fenced.index("--theme")
    result = await client.text_document_hover_async(
        lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri),
            position=position(client, lines, line, start + 3),
        )
    )
    assert result is not None
    assert isinstance(result.contents, lsp.MarkupContent)
    assert result.contents.kind == lsp.MarkupKind.Markdown
    assert "Choices: `paper`, `mint`" in result.contents.value
    assert f"Defined at `scripts/render_cards.py:{THEME_LINE}`" in result.contents.value
    assert result.range == lsp.Range(
        start=position(client, lines, line, start),
        end=position(client, lines, line, start + len("--theme")),
    )


async def test_hover_on_a_suppressed_code_shows_the_rule(
    client: LanguageClient, open_document: OpenDocument
) -> None:
    comment = "<!-- easel-ls-disable-next-line BD002 -->"
    text = SKILL + comment + "\n"
    uri = await open_document(SKILL_PATH, text)
    line = text.splitlines().index(comment)
    result = await client.text_document_hover_async(
        lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri),
            position=lsp.Position(line=line, character=comment.index("BD002") + 1),
        )
    )
    assert result is not None and isinstance(result.contents, lsp.MarkupContent)
    assert "section-missing" in result.contents.value


async def test_manifest_completion_offers_enum_values_and_files(
    client: LanguageClient, open_document: OpenDocument
) -> None:
    text = '{\n  "topic": "spring-picnic",\n  "kind": "",\n  "cover": ""\n}\n'
    uri = await open_document(MANIFEST_PATH, text, language_id="json")
    kinds = await complete(client, uri, text, 2, len('  "kind": "'))
    assert "xhs-note" in [i.label for i in kinds]
    xhs = item(kinds, "xhs-note")
    assert isinstance(xhs.text_edit, lsp.TextEdit)
    assert apply('  "kind": "",', xhs.text_edit, client.encoding) == '  "kind": "xhs-note",'  # type: ignore[attr-defined]
    covers = await complete(client, uri, text, 3, len('  "cover": "'))
    assert [i.label for i in covers] == ["card-1.png"]


async def test_nothing_is_offered_in_prose(
    client: LanguageClient, open_document: OpenDocument
) -> None:
    uri = await open_document(SKILL_PATH, SKILL)
    lines = SKILL.splitlines()
    line = lines.index("卡片。")
    assert await complete(client, uri, SKILL, line, 2) == []
