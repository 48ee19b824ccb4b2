"""Document symbols (frontmatter keys, headings by level, commands) and skills as workspace
symbols."""

from __future__ import annotations

from pathlib import Path

import pytest

from easel_ls.config import ConfigResolver
from easel_ls.findings import Position, Range
from easel_ls.model.text import TextDocument
from easel_ls.services.symbols import (
    Symbol,
    SymbolKind,
    document_symbols,
    workspace_symbols,
)
from easel_ls.workspace import Workspace

SCRIPT = """\
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--verbose", action="store_true", help="say more")
sub = parser.add_subparsers(dest="cmd", required=True)
render = sub.add_parser("render", aliases=["r"], help="draw the cards")
render.add_argument("--topic", required=True)
sub.add_parser("list")
args = parser.parse_args()
"""

SKILL = """\
---
name: card-maker
description: >-
  为小红书笔记生成卡片图。当用户说"做卡片"时使用。
metadata:
  openclaw:
    emoji: "🎴"
tags: [a, b]
---
Intro with `python {baseDir}/scripts/cards.py list`.

# 卡片制作

## 输入
策划稿。

### 细节
```bash
python {baseDir}/scripts/cards.py --verbose render --topic 主题名
```

## 执行步骤
```bash
python {baseDir}/scripts/cards.py r --topic x
python {baseDir}/scripts/other.py go
```
"""


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    write(
        tmp_path,
        {
            "skills/openclaw/card-maker/SKILL.md": SKILL,
            "skills/openclaw/card-maker/scripts/cards.py": SCRIPT,
            "skills/openclaw/topic-discovery/SKILL.md": (
                "---\nname: topic-discovery\ndescription: 找选题，分析热点话题。\n---\n# 选题\n"
            ),
            "skills/openclaw/xhs-publish/SKILL.md": (
                "---\nname: xhs-publish\ndescription: 发布笔记到小红书。\n---\n# 发布\n"
            ),
        },
    )
    root = tmp_path.resolve()
    return Workspace(root=root, config=ConfigResolver(stop_at=root))


def doc_of(ws: Workspace, rel: str) -> TextDocument:
    doc = ws.read(ws.root / rel).doc
    assert doc is not None
    return doc


def outline(symbols: list[Symbol], depth: int = 0) -> list[str]:
    lines = []
    for symbol in symbols:
        lines.append("  " * depth + f"{symbol.kind.value} {symbol.name}")
        lines.extend(outline(symbol.children, depth + 1))
    return lines


def all_symbols(symbols: list[Symbol]) -> list[Symbol]:
    return [s for symbol in symbols for s in [symbol, *all_symbols(symbol.children)]]


def test_skill_outline_is_frontmatter_then_headings_with_their_commands(ws: Workspace) -> None:
    symbols = document_symbols(ws, doc_of(ws, "skills/openclaw/card-maker/SKILL.md"))
    assert outline(symbols) == [
        "namespace frontmatter",
        "  key name",
        "  key description",
        "  object metadata",
        "    object openclaw",
        "      key emoji",
        "  array tags",
        "command cards.py list",
        "section 卡片制作",
        "  section 输入",
        "    section 细节",
        "      command cards.py render",
        "  section 执行步骤",
        "    command cards.py r",
        "    command other.py",
    ]


def test_frontmatter_key_ranges_select_the_key_and_cover_the_value(ws: Workspace) -> None:
    doc = doc_of(ws, "skills/openclaw/card-maker/SKILL.md")
    (frontmatter, *_) = document_symbols(ws, doc)
    assert frontmatter.range == Range.of(0, 0, 8, 3)
    name, description, *_ = frontmatter.children
    assert doc.slice(name.selection_range) == "name"
    assert doc.slice(name.range) == "name: card-maker"
    assert name.detail == "card-maker"
    assert description.range.start == Position(2, 0)
    assert description.range.end.line >= 3


def test_sections_run_to_the_next_heading_of_the_same_level(ws: Workspace) -> None:
    doc = doc_of(ws, "skills/openclaw/card-maker/SKILL.md")
    by_name = {s.name: s for s in all_symbols(document_symbols(ws, doc))}
    top = by_name["卡片制作"]
    assert doc.slice(top.selection_range) == "卡片制作"
    assert top.range.start == Position(11, 0)
    assert top.range.end.line == doc.line_count - 1
    assert by_name["输入"].range.end.line == 20  # the line before `## 执行步骤`
    assert by_name["细节"].range.end.line == 20


def test_command_symbol_selects_the_script_word_and_shows_the_command(ws: Workspace) -> None:
    doc = doc_of(ws, "skills/openclaw/card-maker/SKILL.md")
    by_name = {s.name: s for s in all_symbols(document_symbols(ws, doc))}
    render = by_name["cards.py render"]
    assert doc.slice(render.selection_range) == "{baseDir}/scripts/cards.py"
    assert doc.slice(render.range) == "{baseDir}/scripts/cards.py --verbose render --topic 主题名"
    assert render.detail == "{baseDir}/scripts/cards.py --verbose render --topic 主题名"


def test_every_symbol_range_holds_its_selection_and_its_children(ws: Workspace) -> None:
    for rel in (
        "skills/openclaw/card-maker/SKILL.md",
        "skills/openclaw/card-maker/scripts/cards.py",
    ):
        for symbol in all_symbols(document_symbols(ws, doc_of(ws, rel))):
            assert symbol.range.start <= symbol.selection_range.start
            assert symbol.selection_range.end <= symbol.range.end
            for child in symbol.children:
                assert symbol.range.start <= child.range.start <= child.range.end
                assert child.range.end <= symbol.range.end


def test_script_outline_lists_options_and_subcommands(ws: Workspace) -> None:
    symbols = document_symbols(ws, doc_of(ws, "skills/openclaw/card-maker/scripts/cards.py"))
    assert outline(symbols) == [
        "option --verbose",
        "command render",
        "  option --topic",
        "command list",
    ]
    verbose, render, _ = symbols
    assert verbose.detail == "say more"
    assert render.detail == "draw the cards"
    assert render.selection_range.start == Position(5, len("render = "))


def test_unclosed_frontmatter_and_plain_files_never_raise(ws: Workspace) -> None:
    path = ws.root / "skills/openclaw/card-maker/SKILL.md"
    broken = TextDocument(path, "---\nname: [unclosed\n# 标题\n", 2)
    ws.set_overlay(broken)
    # Unclosed, the frontmatter has no keys; the body is read from the top, as the rules read it.
    assert outline(document_symbols(ws, broken)) == ["namespace frontmatter", "section 标题"]
    other = TextDocument(ws.root / "notes.txt", "hello\n")
    assert document_symbols(ws, other) == []


def test_workspace_symbols_list_every_skill_with_its_description(ws: Workspace) -> None:
    skills = workspace_symbols(ws, "")
    assert [s.name for s in skills] == ["card-maker", "topic-discovery", "xhs-publish"]
    card = skills[0]
    assert card.description == '为小红书笔记生成卡片图。当用户说"做卡片"时使用。'
    assert card.path == ws.root / "skills/openclaw/card-maker/SKILL.md"
    assert card.range == Range.of(1, 6, 1, 16)
    assert card.group == "openclaw"


def test_workspace_symbols_match_name_first_then_description(ws: Workspace) -> None:
    assert [s.name for s in workspace_symbols(ws, "PUB")] == ["xhs-publish"]
    assert [s.name for s in workspace_symbols(ws, "xp")] == ["xhs-publish"]  # letters in order
    assert [s.name for s in workspace_symbols(ws, "小红书")] == ["card-maker", "xhs-publish"]
    assert [s.name for s in workspace_symbols(ws, "热点")] == ["topic-discovery"]
    assert workspace_symbols(ws, "nothing-like-this") == []


def test_symbol_kinds_are_a_closed_set() -> None:
    assert {kind.value for kind in SymbolKind} >= {"namespace", "section", "command", "skill"}
