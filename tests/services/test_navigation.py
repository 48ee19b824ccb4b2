"""Navigation: document links and go to definition, resolved as the rules resolve paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from easel_ls.config import ConfigResolver
from easel_ls.findings import Position, Range
from easel_ls.model.text import TextDocument
from easel_ls.services.navigation import definition, document_links
from easel_ls.workspace import Workspace

SCRIPT = """\
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--verbose", action="store_true")
sub = parser.add_subparsers(dest="cmd", required=True)
render = sub.add_parser("render", aliases=["r"])
render.add_argument("--topic", required=True)
render.add_argument("--style", choices=["plain", "bold"])
sub.add_parser("list")
args = parser.parse_args()
"""

SKILL = """\
---
name: card-maker
description: 做卡片。
---
# 卡片制作

See [the style guide](references/style.md) and [a missing one](references/nope.md).
Also `references/layout.md` and [outside](../../../../etc/passwd).

## 执行步骤

```bash
python {baseDir}/scripts/cards.py --verbose render --topic 主题名 --style bold
python {baseDir}/scripts/cards.py r --top x
```

Run `python scripts/missing.py --x` too.
"""


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    skill = "skills/openclaw/card-maker"
    write(
        tmp_path,
        {
            f"{skill}/SKILL.md": SKILL,
            f"{skill}/scripts/cards.py": SCRIPT,
            f"{skill}/references/style.md": "# Style\n",
            f"{skill}/references/layout.md": "# Layout\n",
        },
    )
    root = tmp_path.resolve()
    return Workspace(root=root, config=ConfigResolver(stop_at=root))


def skill_doc(ws: Workspace) -> TextDocument:
    doc = ws.read(ws.root / "skills/openclaw/card-maker/SKILL.md").doc
    assert doc is not None
    return doc


def position_of(doc: TextDocument, needle: str, occurrence: int = 0, offset: int = 1) -> Position:
    start = -1
    for _ in range(occurrence + 1):
        start = doc.text.index(needle, start + 1)
    return doc.position_at(start + offset)


def test_links_cover_link_targets_mentions_and_script_words(ws: Workspace) -> None:
    doc = skill_doc(ws)
    skill = ws.root / "skills/openclaw/card-maker"
    links = [(doc.slice(link.range), link.target) for link in document_links(ws, doc)]
    assert links == [
        ("references/style.md", skill / "references/style.md"),
        ("references/layout.md", skill / "references/layout.md"),
        ("{baseDir}/scripts/cards.py", skill / "scripts/cards.py"),
        ("{baseDir}/scripts/cards.py", skill / "scripts/cards.py"),
    ]


def test_missing_files_and_paths_outside_the_workspace_are_not_links(ws: Workspace) -> None:
    targets = {link.target.name for link in document_links(ws, skill_doc(ws))}
    assert "nope.md" not in targets
    assert "passwd" not in targets
    assert "missing.py" not in targets


def test_script_word_goes_to_the_script_file(ws: Workspace) -> None:
    doc = skill_doc(ws)
    (found,) = definition(ws, doc, position_of(doc, "{baseDir}/scripts/cards.py", offset=12))
    assert found.path == ws.root / "skills/openclaw/card-maker/scripts/cards.py"
    assert found.range == Range.line_start(0)
    assert found.what == "file"
    assert doc.slice(found.origin) == "{baseDir}/scripts/cards.py"


def test_option_word_goes_to_its_add_argument_line(ws: Workspace) -> None:
    doc = skill_doc(ws)
    (found,) = definition(ws, doc, position_of(doc, "--style"))
    assert found.what == "option"
    # From the flag's string literal to the end of the `add_argument` line.
    line = 'render.add_argument("--style", choices=["plain", "bold"])'
    assert found.range == Range.of(7, line.index('"--style"'), 7, len(line))
    assert doc.slice(found.origin) == "--style"


def test_option_of_the_main_parser_and_an_abbreviated_option(ws: Workspace) -> None:
    doc = skill_doc(ws)
    (verbose,) = definition(ws, doc, position_of(doc, "--verbose"))
    assert verbose.range.start == Position(3, len("parser.add_argument("))
    (abbreviated,) = definition(ws, doc, position_of(doc, "--top x"))
    assert abbreviated.range.start == Position(6, len("render.add_argument("))


def test_subcommand_and_alias_go_to_the_add_parser_line(ws: Workspace) -> None:
    doc = skill_doc(ws)
    (render,) = definition(ws, doc, position_of(doc, "render --topic"))
    assert render.what == "subcommand"
    assert render.range.start == Position(5, 9)  # `sub.add_parser(...)` after `render = `
    (alias,) = definition(ws, doc, position_of(doc, " r --top", offset=1))
    assert alias.range.start == Position(5, 9)


def test_placeholder_values_and_unknown_words_have_no_definition(ws: Workspace) -> None:
    doc = skill_doc(ws)
    assert definition(ws, doc, position_of(doc, "主题名")) == []
    assert definition(ws, doc, position_of(doc, "bold\n")) == []
    assert definition(ws, doc, position_of(doc, "卡片制作")) == []


def test_link_target_and_mention_go_to_the_file(ws: Workspace) -> None:
    doc = skill_doc(ws)
    skill = ws.root / "skills/openclaw/card-maker"
    (link,) = definition(ws, doc, position_of(doc, "references/style.md"))
    assert link.path == skill / "references/style.md"
    (mention,) = definition(ws, doc, position_of(doc, "references/layout.md"))
    assert mention.path == skill / "references/layout.md"


def test_a_command_whose_script_is_missing_has_no_definition(ws: Workspace) -> None:
    doc = skill_doc(ws)
    assert definition(ws, doc, position_of(doc, "scripts/missing.py")) == []
    assert definition(ws, doc, position_of(doc, "--x")) == []


def test_unsaved_editor_text_is_what_navigation_reads(ws: Workspace) -> None:
    path = ws.root / "skills/openclaw/card-maker/SKILL.md"
    edited = TextDocument(path, SKILL.replace("references/style.md", "references/layout.md"), 2)
    ws.set_overlay(edited)
    names = [link.target.name for link in document_links(ws, edited)]
    assert names.count("layout.md") == 2 and "style.md" not in names


def test_files_that_are_not_skill_markdown_have_no_links(ws: Workspace) -> None:
    script = ws.read(ws.root / "skills/openclaw/card-maker/scripts/cards.py").doc
    assert script is not None
    assert document_links(ws, script) == []
    assert definition(ws, script, Position(3, 5)) == []


EXPORT_SCRIPT = """\
import argparse
parser = argparse.ArgumentParser()
parser.add_argument("topic")
parser.add_argument("--fmt", choices=["png", "jpg"])
parser.add_argument("files", nargs="+")
args = parser.parse_args()
"""


def test_positional_words_go_to_the_positional_argparse_assigns_them(ws: Workspace) -> None:
    skill = ws.root / "skills/openclaw/card-maker"
    write(skill, {"scripts/export.py": EXPORT_SCRIPT})
    text = "# 导出\n\n```bash\npython scripts/export.py 春日野餐 --fmt png a.png b.png\n```\n"
    doc = TextDocument(skill / "references/export.md", text)
    ws.set_overlay(doc)
    (topic,) = definition(ws, doc, position_of(doc, "春日野餐"))
    assert (topic.what, topic.range.start) == ("positional", Position(2, len("parser.add_argument(")))
    assert doc.slice(topic.origin) == "春日野餐"
    (files,) = definition(ws, doc, position_of(doc, "b.png"))
    assert (files.what, files.range.start.line) == ("positional", 4)
    assert definition(ws, doc, position_of(doc, "png a.png")) == []  # an option's value
