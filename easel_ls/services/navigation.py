"""Navigation in skill Markdown: document links and go to definition.

Links: every Markdown link target, every `references/…`, `scripts/…` or `skills/…` path written
in prose or a code span, and the script word of every command, when it resolves to a file inside
the workspace. Definition: from those words to the file, and from an option or subcommand word of
a command to the `add_argument` / `add_parser` line of the script (the static argparse model).
Paths resolve exactly as the rules resolve them, so navigation and diagnostics never disagree.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from easel_ls.findings import Position, Range
from easel_ls.model.argmatch import ArgToken, positional_owners
from easel_ls.model.text import TextDocument
from easel_ls.rules.context import Context, FileKind, classify, script_model
from easel_ls.services.context import lookup_option
from easel_ls.workspace import Workspace

if TYPE_CHECKING:
    from easel_ls.model.argparse_model import ParserModel
    from easel_ls.model.commands import Invocation, Word

MARKDOWN_KINDS = frozenset({FileKind.SKILL, FileKind.REFERENCE})


@dataclass(frozen=True)
class FileLink:
    """A range of the document that names a file of the workspace."""

    range: Range
    target: Path
    tooltip: str


@dataclass(frozen=True)
class Definition:
    """Where a word of the document is defined: a file, or a line of a script."""

    origin: Range  # the word in the document
    path: Path
    range: Range  # in ``path``
    what: str  # "file", "option", "subcommand" or "positional"


def markdown_context(ws: Workspace, doc: TextDocument) -> Context | None:
    """The engine's view of a skill Markdown document (SKILL.md or a reference), else None."""
    kind, skill = classify(ws, doc.path)
    if kind not in MARKDOWN_KINDS:
        return None
    return Context(ws, doc, kind, skill, ws.settings_for(doc.path))


def document_links(ws: Workspace, doc: TextDocument) -> list[FileLink]:
    ctx = markdown_context(ws, doc)
    if ctx is None:
        return []
    scripts = _script_words(ctx)
    # A path inside a command is the command's script word, not a second mention.
    mentions = [m for m in _mentioned_files(ctx) if not any(_overlaps(m, s) for s in scripts)]
    unique = {
        (link.range, link.target): link for link in [*_link_targets(ctx), *mentions, *scripts]
    }
    return sorted(unique.values(), key=lambda link: link.range)


def definition(ws: Workspace, doc: TextDocument, position: Position) -> list[Definition]:
    """Definitions of the word at ``position`` (empty when it names nothing we can resolve)."""
    ctx = markdown_context(ws, doc)
    if ctx is None:
        return []
    for inv in ctx.invocations:
        found = _command_definition(ctx, inv, position)
        if found is not None:
            return [found]
    for link in document_links(ws, doc):
        if _contains(link.range, position):
            return [Definition(link.range, link.target, Range.line_start(0), "file")]
    return []


# -- links ----------------------------------------------------------------------------------


def _link_targets(ctx: Context) -> list[FileLink]:
    from easel_ls.rules.resources import escapes, link_target_path

    found = []
    for link in ctx.markdown.links:
        rel = link_target_path(link.target)
        if rel is None:
            continue
        target = Path(os.path.normpath(Path(rel) if os.path.isabs(rel) else ctx.path.parent / rel))
        if not escapes(ctx.root, target) and _is_file(ctx, target):
            found.append(FileLink(link.range, target, ctx.workspace.rel(target)))
    return found


def _mentioned_files(ctx: Context) -> list[FileLink]:
    """`references/x.md`-style paths in prose and code spans (not commands), as RS002 reads them."""
    from easel_ls.rules.resources import (
        GLOB,
        MENTION,
        TRAILING_PUNCTUATION,
        escapes,
        is_placeholder,
    )

    if ctx.skill is None:
        return []
    pieces = [(span.text, span.range) for span in ctx.markdown.code_spans]
    pieces.extend((run.text, run.range) for run in ctx.markdown.text_runs)
    found = []
    for text, rng in pieces:
        if "/" not in text:
            continue
        for match in MENTION.finditer(text):
            raw = match.group(1).rstrip(TRAILING_PUNCTUATION)
            if not raw or GLOB.search(raw) or is_placeholder(raw):
                continue
            base = ctx.root if raw.startswith("skills/") else ctx.skill.folder
            target = Path(os.path.normpath(base / raw.rstrip("/")))
            if escapes(ctx.root, target) or not _is_file(ctx, target):
                continue
            where = _piece_range(ctx.doc, rng, text, match.start(1), match.start(1) + len(raw))
            if where is not None:
                found.append(FileLink(where, target, ctx.workspace.rel(target)))
    return found


def _piece_range(doc: TextDocument, rng: Range, text: str, start: int, end: int) -> Range | None:
    """The document range of ``text[start:end]``, where ``text`` was read from ``rng``."""
    begin = doc.offset_at(rng.start)
    if doc.text[begin : begin + len(text)] == text:
        return doc.range_of(begin + start, begin + end)
    # A code span across lines is normalised (newlines became spaces): find the piece itself.
    found = doc.slice(rng).find(text[start:end])
    return doc.range_of(begin + found, begin + found + end - start) if found >= 0 else None


def _script_words(ctx: Context) -> list[FileLink]:
    found = []
    for inv in ctx.invocations:
        script = _script_path(ctx, inv)
        if script is not None:
            found.append(FileLink(inv.script.range, script, ctx.workspace.rel(script)))
    return found


def _script_path(ctx: Context, inv: Invocation) -> Path | None:
    from easel_ls.rules.commands import resolve_script

    resolved = resolve_script(ctx, inv)
    if resolved is None or resolved.escapes or not _is_file(ctx, resolved.path):
        return None
    return resolved.path


def _is_file(ctx: Context, path: Path) -> bool:
    return path in ctx.workspace.overlays or path.is_file()


# -- commands -------------------------------------------------------------------------------


def _command_definition(ctx: Context, inv: Invocation, position: Position) -> Definition | None:
    words = [inv.script, *inv.args]
    if not any(_contains(word.range, position) for word in words):
        return None
    script = _script_path(ctx, inv)
    if script is None:
        return None
    if _contains(inv.script.range, position):
        return Definition(inv.script.range, script, Range.line_start(0), "file")
    model = script_model(ctx.workspace, script)
    if model is None or model.parser is None:
        return None
    ctx.workspace.note_dependency(script, ctx.path)
    parsers = [model.parser]  # the parser chain the words walk down, subcommand by subcommand
    for index, word in enumerate(inv.args):
        current = parsers[-1]
        if _contains(word.range, position):
            found = _word_definition(ctx, script, word, parsers)
            return found or _positional_definition(ctx, script, model.parser, inv, index)
        subcommand = _subcommand(current, word)
        if subcommand is not None:
            parsers.append(subcommand)
    return None


def _positional_definition(
    ctx: Context, script: Path, parser: ParserModel, inv: Invocation, index: int
) -> Definition | None:
    """The `add_argument` of the positional that takes word ``index``, as argparse assigns it."""
    tokens = [ArgToken(w.text, w.placeholder, w.optional) for w in inv.args]
    spec = positional_owners(parser, tokens).get(index)
    if spec is None:
        return None
    rng = _line_range(ctx, script, spec.line, spec.column)
    return Definition(inv.args[index].range, script, rng, "positional")


def _word_definition(
    ctx: Context, script: Path, word: Word, parsers: list[ParserModel]
) -> Definition | None:
    if word.placeholder:
        return None
    current = parsers[-1]
    subcommand = _subcommand(current, word)
    if subcommand is not None:
        rng = _line_range(ctx, script, subcommand.line, subcommand.column)
        return Definition(word.range, script, rng, "subcommand")
    if len(word.text) > 1 and word.text[0] in current.prefix_chars:
        # Options of an enclosing parser still name a definition (CM007 says they are misplaced).
        for parser in reversed(parsers):
            option, _value = lookup_option(parser, word.text)
            if option is not None:
                rng = _line_range(ctx, script, option.line, option.column)
                return Definition(word.range, script, rng, "option")
    return None


def _subcommand(parser: ParserModel, word: Word) -> ParserModel | None:
    if word.placeholder or parser.subparsers is None:
        return None
    return parser.subparsers.choices.get(word.text)


def _line_range(ctx: Context, script: Path, line: int, column: int) -> Range:
    """From the definition's start to the end of its line (a visible landing in the editor)."""
    doc = ctx.workspace.read(script).doc
    end = len(doc.line_text(line)) if doc is not None and line < doc.line_count else column
    return Range(Position(line, column), Position(line, max(column, end)))


def _overlaps(a: FileLink, b: FileLink) -> bool:
    return a.range.start < b.range.end and b.range.start < a.range.end


def _contains(rng: Range, position: Position) -> bool:
    return rng.start <= position <= rng.end
