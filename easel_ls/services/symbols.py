"""Document symbols (the outline) and workspace symbols (skills).

Skill Markdown: the frontmatter with its keys, headings nested by level, and every command as a
function under its heading, named `script sub`. Scripts: the argparse options and subcommands the
static model found. Workspace: every indexed skill, found by name or description.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from easel_ls.findings import Position, Range
from easel_ls.model.text import TextDocument
from easel_ls.rules.context import Context, FileKind, classify, script_model
from easel_ls.services.navigation import _script_path, _subcommand, markdown_context
from easel_ls.workspace import Workspace

if TYPE_CHECKING:
    from easel_ls.model.argparse_model import OptionSpec, ParserModel
    from easel_ls.model.commands import Invocation
    from easel_ls.model.frontmatter import Frontmatter
    from easel_ls.model.markdown import Heading

DETAIL_LIMIT = 80


class SymbolKind(enum.Enum):
    NAMESPACE = "namespace"  # the frontmatter block
    OBJECT = "object"  # a mapping value
    ARRAY = "array"  # a sequence value
    KEY = "key"  # a scalar value
    SECTION = "section"  # a heading
    COMMAND = "command"  # a documented command, or a script's subcommand
    OPTION = "option"  # an argparse option
    SKILL = "skill"


@dataclass
class Symbol:
    name: str
    kind: SymbolKind
    range: Range  # everything the symbol covers (its children lie inside)
    selection_range: Range  # the part to highlight: a key, a heading's text, a script word
    detail: str | None = None
    children: list[Symbol] = field(default_factory=list)


@dataclass(frozen=True)
class SkillSymbol:
    name: str  # the skill folder's name (what `name` must be)
    description: str
    path: Path  # its SKILL.md
    range: Range  # the `name` value, or the start of the file
    group: str  # the skills/<group>/ folder


def document_symbols(ws: Workspace, doc: TextDocument) -> list[Symbol]:
    kind, _ = classify(ws, doc.path)
    if kind is FileKind.SCRIPT:
        return _script_symbols(ws, doc)
    ctx = markdown_context(ws, doc)
    if ctx is None:
        return []
    symbols: list[Symbol] = []
    if ctx.kind is FileKind.SKILL and ctx.frontmatter.present:
        symbols.append(_frontmatter_symbol(doc, ctx.frontmatter))
    sections = _sections(doc, ctx.markdown.headings)
    top_level = _nest_sections(sections)
    for command in _command_symbols(ctx):
        owner = _deepest_containing(sections, command.range.start.line)
        (owner.children if owner is not None else top_level).append(command)
    for section in sections:
        section.children.sort(key=lambda s: s.range.start)
    symbols.extend(top_level)
    symbols.sort(key=lambda s: s.range.start)
    return symbols


# -- frontmatter ----------------------------------------------------------------------------


def _frontmatter_symbol(doc: TextDocument, fm: Frontmatter) -> Symbol:
    end_line = min(fm.end_line, max(doc.line_count - 1, 0))
    whole = Range(Position(0, 0), Position(end_line, len(doc.line_text(end_line))))
    opening = Range(Position(0, 0), Position(0, len(doc.line_text(0))))
    symbol = Symbol("frontmatter", SymbolKind.NAMESPACE, whole, opening)
    symbol.children = _mapping_symbols(fm, fm.mapping, whole) if fm.closed else []
    return symbol


def _mapping_symbols(fm: Frontmatter, node: yaml.Node | None, bounds: Range) -> list[Symbol]:
    from easel_ls.model.frontmatter import mapping_items

    symbols = []
    for key, value in mapping_items(node):
        key_range = _clamp(fm.node_range(key), bounds)
        whole = _clamp(Range(key_range.start, max(key_range.end, fm.node_range(value).end)), bounds)
        if isinstance(value, yaml.MappingNode):
            symbol = Symbol(key.value, SymbolKind.OBJECT, whole, key_range)
            symbol.children = _mapping_symbols(fm, value, whole)
        elif isinstance(value, yaml.SequenceNode):
            detail = f"{len(value.value)} item" + ("" if len(value.value) == 1 else "s")
            symbol = Symbol(key.value, SymbolKind.ARRAY, whole, key_range, detail)
        else:
            text = str(value.value) if isinstance(value, yaml.ScalarNode) else ""
            symbol = Symbol(key.value, SymbolKind.KEY, whole, key_range, _short(text))
        symbols.append(symbol)
    return symbols


def _clamp(rng: Range, bounds: Range) -> Range:
    start = min(max(rng.start, bounds.start), bounds.end)
    return Range(start, min(max(rng.end, start), bounds.end))


# -- headings and commands ------------------------------------------------------------------


@dataclass
class _Section:
    level: int
    symbol: Symbol

    @property
    def children(self) -> list[Symbol]:
        return self.symbol.children

    @property
    def range(self) -> Range:
        return self.symbol.range


def _sections(doc: TextDocument, headings: list[Heading]) -> list[_Section]:
    """One section per heading: from its line to the line before the next heading of the same
    or a higher level (or the end of the document)."""
    last_line = max(doc.line_count - 1, 0)
    sections = []
    for i, heading in enumerate(headings):
        end_line = last_line
        for later in headings[i + 1 :]:
            if later.level <= heading.level:
                end_line = max(heading.range.start.line, later.range.start.line - 1)
                break
        whole = Range(
            Position(heading.range.start.line, 0),
            Position(end_line, len(doc.line_text(end_line))),
        )
        whole = Range(whole.start, max(whole.end, heading.range.end))
        symbol = Symbol(heading.text, SymbolKind.SECTION, whole, heading.range, "#" * heading.level)
        sections.append(_Section(heading.level, symbol))
    return sections


def _nest_sections(sections: list[_Section]) -> list[Symbol]:
    top: list[Symbol] = []
    open_sections: list[_Section] = []
    for section in sections:
        while open_sections and open_sections[-1].level >= section.level:
            open_sections.pop()
        (open_sections[-1].children if open_sections else top).append(section.symbol)
        open_sections.append(section)
    return top


def _deepest_containing(sections: list[_Section], line: int) -> _Section | None:
    found = None
    for section in sections:
        inside = section.range.start.line <= line <= section.range.end.line
        if inside and (found is None or section.level > found.level):
            found = section
    return found


def _command_symbols(ctx: Context) -> list[Symbol]:
    symbols = []
    for inv in ctx.invocations:
        words = [inv.script, *inv.args]
        end = max(word.range.end for word in words)
        whole = Range(inv.script.range.start, end)
        detail = _short(" ".join(word.raw for word in words))
        name = " ".join([Path(inv.script_path).name or inv.script.text, *_subcommands(ctx, inv)])
        symbols.append(Symbol(name, SymbolKind.COMMAND, whole, inv.script.range, detail))
    return symbols


def _subcommands(ctx: Context, inv: Invocation) -> list[str]:
    """The subcommand words of a command, as the script's argparse model knows them."""
    script = _script_path(ctx, inv)
    model = script_model(ctx.workspace, script) if script is not None else None
    if model is None or model.parser is None:
        return []
    names = []
    parser = model.parser
    for word in inv.args:
        sub = _subcommand(parser, word)
        if sub is not None:
            names.append(word.text)
            parser = sub
    return names


# -- scripts --------------------------------------------------------------------------------


def _script_symbols(ws: Workspace, doc: TextDocument) -> list[Symbol]:
    if doc.path.suffix != ".py":
        return []
    model = script_model(ws, doc.path)
    if model is None or model.parser is None:
        return []
    return _parser_symbols(doc, model.parser)


def _parser_symbols(doc: TextDocument, parser: ParserModel) -> list[Symbol]:
    symbols = [
        _option_symbol(doc, option)
        for option in parser.options
        if not _implicit_help(parser, option)
    ]
    if parser.subparsers is not None:
        for name, sub in parser.subparsers.choices.items():
            if name in parser.subparsers.aliases:
                continue
            children = _parser_symbols(doc, sub)
            selection = _line_range(doc, sub.line, sub.column)
            end = max([selection.end, *(child.range.end for child in children)])
            help_text = parser.subparsers.help.get(name)
            symbol = Symbol(
                name,
                SymbolKind.COMMAND,
                Range(selection.start, end),
                selection,
                _short(help_text or ""),
                children,
            )
            symbols.append(symbol)
    symbols.sort(key=lambda s: s.range.start)
    return symbols


def _implicit_help(parser: ParserModel, option: OptionSpec) -> bool:
    """argparse's own -h/--help: the model places it on the parser's line; not in the outline."""
    return option.action == "help" and (option.line, option.column) == (parser.line, parser.column)


def _option_symbol(doc: TextDocument, option: OptionSpec) -> Symbol:
    rng = _line_range(doc, option.line, option.column)
    return Symbol(", ".join(option.flags), SymbolKind.OPTION, rng, rng, _short(option.help or ""))


def _line_range(doc: TextDocument, line: int, column: int) -> Range:
    end = len(doc.line_text(line))
    return Range(Position(line, min(column, end)), Position(line, end))


def _short(text: str) -> str | None:
    flat = re.sub(r"\s+", " ", text).strip()
    if not flat:
        return None
    return flat if len(flat) <= DETAIL_LIMIT else flat[: DETAIL_LIMIT - 1] + "…"


# -- workspace symbols ----------------------------------------------------------------------


def workspace_symbols(ws: Workspace, query: str) -> list[SkillSymbol]:
    """Skills whose name or description matches ``query`` (case-insensitive): a name prefix
    first, then a name substring, then the query's letters in order in the name, then a
    description substring. An empty query lists every skill."""
    wanted = query.strip().casefold()
    scored: list[tuple[int, str, SkillSymbol]] = []
    for skill in ws.skills.values():
        symbol = _skill_symbol(ws, skill.name, skill.skill_md)
        score = _score(wanted, symbol)
        if score is not None:
            scored.append((score, symbol.name, symbol))
    scored.sort(key=lambda item: (item[0], item[1]))
    return [symbol for _, _, symbol in scored]


def _skill_symbol(ws: Workspace, folder_name: str, skill_md: Path) -> SkillSymbol:
    from easel_ls.model.frontmatter import parse_frontmatter, scalar_text

    group = skill_md.parent.parent.name
    doc = ws.read(skill_md).doc
    if doc is None:
        return SkillSymbol(folder_name, "", skill_md, Range.line_start(0), group)
    fm = ws.artefact("frontmatter", doc, lambda: parse_frontmatter(doc))
    name = fm.get("name")
    description = fm.get("description")
    rng = fm.node_range(name[1]) if name is not None else Range.line_start(0)
    text = (scalar_text(description[1]) or "") if description is not None else ""
    return SkillSymbol(folder_name, re.sub(r"\s+", " ", text).strip(), skill_md, rng, group)


def _score(query: str, symbol: SkillSymbol) -> int | None:
    if not query:
        return 0
    name = symbol.name.casefold()
    if name.startswith(query):
        return 0
    if query in name:
        return 1
    if _in_order(query, name):
        return 2
    if query in symbol.description.casefold():
        return 3
    return None


def _in_order(query: str, text: str) -> bool:
    letters = iter(text)
    return all(char in letters for char in query if not char.isspace())
