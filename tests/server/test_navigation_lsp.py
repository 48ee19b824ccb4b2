"""Navigation over LSP, as VS Code and Neovim ask for it: document links, go to definition,
document symbols and workspace symbols. Ranges are in the negotiated position encoding."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

SKILL_PATH = "skills/openclaw/card-maker/SKILL.md"
SCRIPT_PATH = "skills/openclaw/card-maker/scripts/cards.py"

SCRIPT = """\
import argparse

parser = argparse.ArgumentParser()
sub = parser.add_subparsers(dest="cmd", required=True)
render = sub.add_parser("render")
render.add_argument("--topic", required=True)
render.add_argument("--style", choices=["plain", "bold"])
args = parser.parse_args()
"""

SKILL = f"""\
---
name: card-maker
description: >-
  为小红书笔记生成卡片图😀。当用户说"做卡片"或需要把策划稿变成图片时使用；只负责出图，
  不负责发布。适用场景：图文笔记、知识卡片、清单类内容，以及各种需要配图的小红书图文。
layer: produce
---
# 卡片制作

## 输入
策划稿😀，见 [样式](references/style.md)。

## 执行步骤
```bash
python {SCRIPT_PATH} render --topic 主题名 --style bold
```
"""

OTHER_SKILL = """\
---
name: topic-discovery
description: 找选题，分析热点话题。
---
# 选题
"""


@pytest.fixture()
def workspace_files() -> Mapping[str, str]:
    return {
        SKILL_PATH: SKILL,
        SCRIPT_PATH: SCRIPT,
        "skills/openclaw/card-maker/references/style.md": "# 样式\n",
        "skills/openclaw/topic-discovery/SKILL.md": OTHER_SKILL,
    }


def units(client: LanguageClient, line: str, column: int) -> int:
    """A code-point column of ``line`` in the client's position encoding."""
    encoding = client.encoding  # type: ignore[attr-defined]
    if encoding == "utf-32":
        return column
    codec = "utf-16-le" if encoding == "utf-16" else "utf-8"
    width = 2 if encoding == "utf-16" else 1
    return len(line[:column].encode(codec)) // width


def client_range(client: LanguageClient, text: str, line: int, needle: str) -> lsp.Range:
    row = text.splitlines()[line]
    start = row.index(needle)
    return lsp.Range(
        lsp.Position(line, units(client, row, start)),
        lsp.Position(line, units(client, row, start + len(needle))),
    )


def line_of(text: str, needle: str) -> int:
    return next(i for i, row in enumerate(text.splitlines()) if needle in row)


async def test_document_links_point_at_the_reference_and_the_script(
    client: LanguageClient, open_document
) -> None:
    uri = await open_document(SKILL_PATH)
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    links = await client.text_document_document_link_async(
        lsp.DocumentLinkParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
    )
    assert links is not None
    found = sorted((link.range.start.line, link.target or "") for link in links)
    assert found == [
        (
            line_of(SKILL, "references/style.md"),
            (root / SKILL_PATH).parent.joinpath("references/style.md").as_uri(),
        ),
        (line_of(SKILL, "python "), (root / SCRIPT_PATH).as_uri()),
    ]
    reference = next(link for link in links if link.target and link.target.endswith("style.md"))
    # After an emoji and CJK text: the range is in the client's units.
    row = line_of(SKILL, "references/style.md")
    assert reference.range == client_range(client, SKILL, row, "references/style.md")


async def test_definition_of_an_option_lands_on_its_add_argument_line(
    client: LanguageClient, open_document
) -> None:
    uri = await open_document(SKILL_PATH)
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    row = line_of(SKILL, "--style")
    at = client_range(client, SKILL, row, "--style").start
    result = await client.text_document_definition_async(
        lsp.DefinitionParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri),
            position=lsp.Position(at.line, at.character + 2),
        )
    )
    assert isinstance(result, list) and len(result) == 1
    (target,) = result
    if isinstance(target, lsp.LocationLink):
        target_uri, target_range = target.target_uri, target.target_selection_range
        assert target.origin_selection_range == client_range(client, SKILL, row, "--style")
    else:
        assert isinstance(target, lsp.Location)
        target_uri, target_range = target.uri, target.range
    assert target_uri == (root / SCRIPT_PATH).as_uri()
    assert target_range.start == lsp.Position(6, len("render.add_argument("))


async def test_definition_of_a_subcommand_and_of_the_script(
    client: LanguageClient, open_document
) -> None:
    uri = await open_document(SKILL_PATH)
    row = line_of(SKILL, "python ")
    lines = []
    for word in ("render", "scripts/cards.py"):
        at = client_range(client, SKILL, row, word).start
        result = await client.text_document_definition_async(
            lsp.DefinitionParams(
                text_document=lsp.TextDocumentIdentifier(uri=uri),
                position=lsp.Position(at.line, at.character + 1),
            )
        )
        assert isinstance(result, list) and len(result) == 1
        target = result[0]
        rng = target.target_range if isinstance(target, lsp.LocationLink) else target.range
        lines.append(rng.start.line)
    assert lines == [4, 0]  # `sub.add_parser("render")`, then the top of the script


async def test_no_definition_for_prose(client: LanguageClient, open_document) -> None:
    uri = await open_document(SKILL_PATH)
    result = await client.text_document_definition_async(
        lsp.DefinitionParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri),
            position=lsp.Position(line_of(SKILL, "# 卡片制作"), 3),
        )
    )
    assert not result


def names(symbols: Sequence[lsp.DocumentSymbol], depth: int = 0) -> list[str]:
    found = []
    for symbol in symbols:
        found.append("  " * depth + symbol.name)
        found.extend(names(symbol.children or [], depth + 1))
    return found


async def test_document_symbols_nest_keys_headings_and_commands(
    client: LanguageClient, open_document
) -> None:
    uri = await open_document(SKILL_PATH)
    symbols = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
    )
    assert symbols is not None
    if all(isinstance(s, lsp.DocumentSymbol) for s in symbols):
        assert names(symbols) == [  # type: ignore[arg-type]
            "frontmatter",
            "  name",
            "  description",
            "  layer",
            "卡片制作",
            "  输入",
            "  执行步骤",
            "    cards.py render",
        ]
        command = symbols[1].children[1].children[0]  # type: ignore[union-attr,index]
        assert command.kind == lsp.SymbolKind.Function
        assert command.selection_range == client_range(
            client, SKILL, line_of(SKILL, "python "), SCRIPT_PATH
        )
    else:  # a client without hierarchical support gets the flat list
        assert [s.name for s in symbols][-1] == "cards.py render"


async def test_workspace_symbols_find_skills_by_name_and_description(
    client: LanguageClient,
) -> None:
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    by_name = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="card"))
    assert by_name is not None
    (card,) = by_name
    assert card.name == "card-maker"
    assert card.kind == lsp.SymbolKind.Module
    assert isinstance(card.location, lsp.Location)
    assert card.location.uri == (root / SKILL_PATH).as_uri()
    assert card.location.range == lsp.Range(lsp.Position(1, 6), lsp.Position(1, 16))
    assert card.container_name and card.container_name.startswith("为小红书笔记生成卡片图")
    by_description = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="热点"))
    assert [s.name for s in by_description or []] == ["topic-discovery"]
    everything = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query=""))
    assert [s.name for s in everything or []] == ["card-maker", "topic-discovery"]
