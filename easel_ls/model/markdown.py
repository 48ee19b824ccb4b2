"""Markdown structure of a document body: headings, fences, code spans, links, comments, prose.

markdown-it-py (CommonMark + tables) decides *what* the structure is; it only reports block line
ranges, so every column is recovered here from the source lines. Inline content is mapped back to
the document character by character, which keeps ranges exact inside list items, blockquotes,
table cells, and after CJK or emoji text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import normalizeReference, unescapeAll
from markdown_it.token import Token

from easel_ls.findings import Position, Range
from easel_ls.model.text import TextDocument


@dataclass
class Heading:
    level: int
    text: str
    range: Range  # the heading text, after the `## ` marker


@dataclass
class Fence:
    info: str  # first word of the info string, lowercased ("bash", "" ...)
    content: str  # the code inside, as markdown-it gives it
    # For each content line: (document line, start column in the document, the line's text from
    # that column on). Container prefixes (`> `, list indentation) are already stripped.
    content_lines: list[tuple[int, int, str]]
    range: Range  # the whole fence, markers included


@dataclass
class CodeSpan:
    text: str  # as CommonMark reads it: line breaks become spaces, one padding space stripped
    range: Range  # the content inside the backticks
    # One (document line, start column, raw text) piece per source line the content covers; the
    # text is the pieces joined with single spaces.
    segments: tuple[tuple[int, int, str], ...] = ()


@dataclass
class Link:
    target: str  # destination with backslash escapes and entities resolved
    text: str
    range: Range  # the target text inside (...), or a reference definition's target
    is_image: bool


@dataclass
class HtmlComment:
    text: str  # between `<!--` and `-->`, stripped
    range: Range  # the whole comment, markers included
    line: int


@dataclass
class TextRun:
    text: str
    range: Range


@dataclass
class MarkdownModel:
    headings: list[Heading] = field(default_factory=list)
    fences: list[Fence] = field(default_factory=list)
    code_spans: list[CodeSpan] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    comments: list[HtmlComment] = field(default_factory=list)
    text_runs: list[TextRun] = field(default_factory=list)


_PARSER = MarkdownIt("commonmark", {"html": True}).enable("table")

_COMMENT = re.compile(r"<!--(.*?)-->", re.DOTALL)
# Characters that may sit between two inline tokens in the source without being text themselves.
_MARKUP_GAP = re.compile(r"[*_~\\\[\]!\s]*")
_DOCUMENT_START = Position(0, 0)


def parse_markdown(doc: TextDocument, body_start_line: int = 0) -> MarkdownModel:
    """Parse the body (from ``body_start_line``) and report positions in the whole document."""
    lines = doc.lines
    if "\x00" in doc.text:
        # markdown-it reads NUL as U+FFFD; align against the same characters (columns unchanged).
        lines = [line.replace("\x00", "\ufffd") for line in lines]
    first = max(0, min(body_start_line, len(lines)))
    env: dict[str, Any] = {}
    tokens = _PARSER.parse("\n".join(lines[first:]), env)
    builder = _Builder(lines, first, env.get("references") or {})
    builder.walk(tokens)
    return builder.model


class _Source:
    """Text of a block (inline content, html block ...) with the document position of each char."""

    def __init__(
        self,
        text: str,
        cells: list[tuple[int, int]],
        lines: Sequence[str],
        origin: Position = _DOCUMENT_START,
    ) -> None:
        self.text = text
        self._cells = cells
        self._lines = lines
        self._origin = origin  # where empty text sits

    def _line_length(self, line: int) -> int:
        return len(self._lines[line]) if 0 <= line < len(self._lines) else 0

    def start(self, index: int) -> Position:
        if not self._cells:
            return self._origin
        line, col = self._cells[max(0, min(index, len(self._cells) - 1))]
        if index >= len(self._cells):
            col += 1
        return Position(line, max(0, min(col, self._line_length(line))))

    def end(self, index: int) -> Position:
        """Position just after char ``index - 1``."""
        if index <= 0:
            return self.start(0)
        line, col = self._cells[min(index, len(self._cells)) - 1]
        return Position(line, max(0, min(col + 1, self._line_length(line))))

    def range(self, start: int, end: int) -> Range:
        if end <= start:
            return Range(self.start(start), self.start(start))
        return Range(self.start(start), self.end(end))

    def segments(self, start: int, end: int) -> tuple[tuple[int, int, str], ...]:
        """Split ``text[start:end]`` at line breaks into (line, column, text) pieces."""
        pieces: list[tuple[int, int, str]] = []
        piece_start = start
        for i in range(start, end + 1):
            if i == end or self.text[i] == "\n":
                where = self.start(piece_start)
                pieces.append((where.line, where.character, self.text[piece_start:i]))
                piece_start = i + 1
        return tuple(pieces)


def _align_lines(text: str, first_line: int, lines: Sequence[str]) -> list[tuple[int, int]]:
    """Map each char of ``text`` (lines of a block with prefixes stripped) to document cells."""
    cells: list[tuple[int, int]] = []
    for i, piece in enumerate(text.split("\n")):
        line = first_line + i
        source = lines[line] if 0 <= line < len(lines) else ""
        base = _piece_column(piece, source)
        cells.extend((line, max(0, base + k)) for k in range(len(piece)))
        cells.append((line, len(source)))  # the line break
    cells.pop()
    return cells


def _piece_column(piece: str, source: str) -> int:
    """Column in ``source`` where ``piece`` (a suffix of it, modulo trimming) begins."""
    core = piece.lstrip(" \t")
    lead = len(piece) - len(core)
    if not core:
        return len(source) - len(piece)
    if source.endswith(core):
        return len(source) - len(core) - lead
    trimmed = source.rstrip()
    if trimmed.endswith(core):
        return len(trimmed) - len(core) - lead
    found = source.rfind(core)  # an ATX heading's closing `##` follows its text
    if found >= 0:
        return found - lead
    return max(0, len(source) - len(piece))


def _backtick_runs(text: str, start: int, escapes: bool) -> Iterator[tuple[int, int]]:
    """(start, length) of backtick runs from ``start``; backslashes escape only outside spans."""
    i = start
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and escapes:
            i += 2
            continue
        if c == "`":
            j = i
            while j < n and text[j] == "`":
                j += 1
            yield i, j - i
            i = j
            continue
        i += 1


def _find_code_span(raw: str, cursor: int, fence: str) -> tuple[int, int] | None:
    """Content bounds of the first code span delimited by ``fence`` from ``cursor``."""
    width = len(fence)
    opening = next((run for run in _backtick_runs(raw, cursor, True) if run[1] == width), None)
    if opening is None:
        return None
    content_start = opening[0] + width
    closing = next(
        (run for run in _backtick_runs(raw, content_start, False) if run[1] == width), None
    )
    if closing is None:
        return None
    return content_start, closing[0]


def _matching_bracket(raw: str, open_index: int) -> int:
    """Index of the `]` closing the `[` at ``open_index``; code spans and escapes are skipped."""
    depth = 0
    i = open_index
    n = len(raw)
    while i < n:
        c = raw[i]
        if c == "\\":
            i += 2
            continue
        if c == "`":
            j = i
            while j < n and raw[j] == "`":
                j += 1
            span = _find_code_span(raw, i, raw[i:j])
            i = span[1] + (j - i) if span else j
            continue
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _skip_space(raw: str, i: int) -> int:
    while i < len(raw) and raw[i] in " \t\n":
        i += 1
    return i


def _destination(raw: str, i: int) -> tuple[int, int, int] | None:
    """Parse a link destination at ``i``: (start, end, index after) with `<>` excluded."""
    if i < len(raw) and raw[i] == "<":
        j = i + 1
        while j < len(raw) and raw[j] not in "<>\n":
            j += 2 if raw[j] == "\\" else 1
        if j < len(raw) and raw[j] == ">":
            return i + 1, j, j + 1
        return None
    j = i
    depth = 0
    while j < len(raw):
        c = raw[j]
        if c == "\\" and j + 1 < len(raw):
            j += 2
            continue
        if c in " \t\n" or ord(c) < 0x20:
            break
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                break
            depth -= 1
        j += 1
    return i, min(j, len(raw)), min(j, len(raw))


def _inline_tail_end(raw: str, i: int) -> int:
    """Index after the `)` closing an inline link whose destination ended at ``i``."""
    depth = 0
    quote = ""
    while i < len(raw):
        c = raw[i]
        if c == "\\":
            i += 2
            continue
        if quote:
            if c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                return i + 1
            depth -= 1
        i += 1
    return len(raw)


@dataclass
class _OpenLink:
    tail_end: int
    target: str
    target_range: Range | None
    is_image: bool
    text_parts: list[str] = field(default_factory=list)


class _Builder:
    def __init__(self, lines: Sequence[str], first: int, references: dict[str, Any]) -> None:
        self.lines = lines
        self.first = first
        self.references = references
        self.model = MarkdownModel()
        self._definitions: dict[str, tuple[str, Range] | None] = {}

    # Blocks

    def walk(self, tokens: list[Token]) -> None:
        heading_level = 0
        row_cursor: tuple[int, int] | None = None  # (document line, column) inside a table row
        for token in tokens:
            kind = token.type
            if kind == "heading_open":
                heading_level = int(token.tag[1:]) if token.tag[1:].isdigit() else 1
            elif kind == "heading_close":
                heading_level = 0
            elif kind == "tr_open" and token.map:
                row_cursor = (token.map[0] + self.first, 0)
            elif kind == "tr_close":
                row_cursor = None
            elif kind == "inline" and token.map:
                if row_cursor is not None:
                    cell, row_cursor = self._cell_source(token.content, row_cursor)
                    if cell is None:
                        continue
                    source = cell
                else:
                    source = self._block_source(token.content, token.map[0])
                self._inline(token, source)
                if heading_level and row_cursor is None:
                    self.model.headings.append(
                        Heading(heading_level, token.content, source.range(0, len(token.content)))
                    )
            elif kind == "fence" and token.map:
                self._fence(token)
            elif kind == "html_block" and token.map:
                self._comments(self._block_source(token.content.rstrip("\n"), token.map[0]), 0)

    def _block_source(self, text: str, body_line: int) -> _Source:
        line = body_line + self.first
        in_document = 0 <= line < len(self.lines)
        origin = Position(line, len(self.lines[line].rstrip())) if in_document else Position(0, 0)
        return _Source(text, _align_lines(text, line, self.lines), self.lines, origin)

    def _cell_source(
        self, content: str, row: tuple[int, int]
    ) -> tuple[_Source | None, tuple[int, int]]:
        line, cursor = row
        source_line = self.lines[line] if line < len(self.lines) else ""
        if not content:
            return _Source("", [], self.lines, Position(line, cursor)), row
        # A cell's content drops the backslash of `\|`; let it back in to find the raw cell.
        pattern = "".join(r"\\?\|" if c == "|" else re.escape(c) for c in content)
        found = re.compile(pattern).search(source_line, cursor)
        if found is None:
            return None, row
        cells: list[tuple[int, int]] = []
        col = found.start()
        for c in content:
            if c == "|" and source_line[col] == "\\":
                col += 1
            cells.append((line, col))
            col += 1
        return _Source(content, cells, self.lines), (line, found.end())

    def _fence(self, token: Token) -> None:
        assert token.map is not None
        open_line = token.map[0] + self.first
        last_line = max(open_line, min(token.map[1] + self.first, len(self.lines)) - 1)
        opening = self.lines[open_line] if open_line < len(self.lines) else ""
        marker = opening.find(token.markup) if token.markup else -1
        content_lines = []
        if token.content:
            for i, piece in enumerate(token.content.rstrip("\n").split("\n")):
                line = open_line + 1 + i
                if line >= len(self.lines):
                    break
                source = self.lines[line]
                column = max(0, min(_piece_column(piece, source), len(source)))
                if piece.startswith((" ", "\t")) and not source.endswith(piece):
                    # A tab partly eaten by the indent comes back as spaces; keep the source.
                    column = len(source) - len(piece.lstrip(" \t"))
                content_lines.append((line, column, source[column:]))
        info = token.info.strip().split()
        self.model.fences.append(
            Fence(
                info=info[0].lower() if info else "",
                content=token.content,
                content_lines=content_lines,
                range=Range(
                    Position(open_line, max(marker, 0)),
                    Position(last_line, len(self.lines[last_line]) if self.lines else 0),
                ),
            )
        )

    def _comments(self, source: _Source, offset: int, limit: int | None = None) -> None:
        end = len(source.text) if limit is None else limit
        # Past the last `-->` nothing can match: bounding there keeps a run of unclosed `<!--`
        # linear instead of quadratic.
        last_close = source.text.rfind("-->", offset, end)
        if last_close < 0:
            return
        for match in _COMMENT.finditer(source.text, offset, last_close + 3):
            where = source.range(match.start(), match.end())
            self.model.comments.append(HtmlComment(match.group(1).strip(), where, where.start.line))

    # Inline content

    def _inline(self, token: Token, source: _Source) -> None:
        raw = source.text
        cursor = 0
        links: list[_OpenLink] = []
        for child in token.children or []:
            kind = child.type
            if kind == "text":
                if links:
                    links[-1].text_parts.append(child.content)
                found = self._locate_text(raw, cursor, child.content)
                if found is not None:
                    cursor = found + len(child.content)
                    if not links and child.content.strip():
                        rng = source.range(found, cursor)
                        self.model.text_runs.append(TextRun(child.content, rng))
            elif kind in ("softbreak", "hardbreak"):
                newline = raw.find("\n", cursor)
                cursor = newline + 1 if newline >= 0 else cursor
            elif kind == "code_inline":
                if links:
                    links[-1].text_parts.append(child.content)
                cursor = self._code_span(source, cursor, child)
            elif kind == "html_inline":
                found = raw.find(child.content, cursor)
                if found >= 0:
                    self._comments(source, found, found + len(child.content))
                    cursor = found + len(child.content)
            elif kind == "link_open":
                opened = self._open_link(raw, source, cursor, child)
                links.append(opened[0])
                cursor = opened[1]
            elif kind == "link_close" and links:
                link = links.pop()
                if link.target_range is not None:
                    text = "".join(link.text_parts)
                    self.model.links.append(Link(link.target, text, link.target_range, False))
                if links:
                    links[-1].text_parts.extend(link.text_parts)
                cursor = max(cursor, link.tail_end)
            elif kind == "image":
                if links:
                    links[-1].text_parts.append(child.content)
                image, cursor = self._open_link(raw, source, cursor, child)
                if image.target_range is not None:
                    self.model.links.append(
                        Link(image.target, child.content, image.target_range, True)
                    )
                cursor = max(cursor, image.tail_end)

    @staticmethod
    def _locate_text(raw: str, cursor: int, text: str) -> int | None:
        """Where a text token starts in the raw content, if only markup lies before it."""
        if not text:
            return None
        gap = _MARKUP_GAP.match(raw, cursor)
        last = gap.end() if gap else cursor
        # The text may itself begin with a markup character, so try each start within the gap.
        return next((at for at in range(cursor, last + 1) if raw.startswith(text, at)), None)

    def _code_span(self, source: _Source, cursor: int, child: Token) -> int:
        bounds = _find_code_span(source.text, cursor, child.markup or "`")
        if bounds is None:
            return cursor
        start, end = bounds
        inner = source.text[start:end]
        # CommonMark strips one padding space from each side when both are there.
        if len(inner) > 2 and inner[0] in " \n" and inner[-1] in " \n" and inner.strip(" \n"):
            start, end = start + 1, end - 1
        segments = source.segments(start, end)
        self.model.code_spans.append(CodeSpan(child.content, source.range(start, end), segments))
        return bounds[1] + len(child.markup or "`")

    def _open_link(
        self, raw: str, source: _Source, cursor: int, child: Token
    ) -> tuple[_OpenLink, int]:
        """Find the source of a link (or image) markdown-it found; returns it and the new cursor."""
        is_image = child.type == "image"
        href = str(child.attrs.get("src" if is_image else "href") or "")
        if child.markup == "autolink":
            start = raw.find("<", cursor)
            end = raw.find(">", start + 1) if start >= 0 else -1
            if start < 0 or end < 0:
                return _OpenLink(cursor, href, None, False), cursor
            target = raw[start + 1 : end]
            rng = source.range(start + 1, end)
            return _OpenLink(end + 1, target, rng, False), start + 1
        opener = "![" if is_image else "["
        candidate = raw.find(opener, cursor)
        fallback: tuple[_OpenLink, int] | None = None
        for _ in range(64):  # bounded: bracket-heavy text must not turn quadratic
            if candidate < 0:
                break
            bracket = candidate + len(opener) - 1
            if bracket > 0 and raw[bracket - 1] == "\\" and not is_image:
                candidate = raw.find(opener, candidate + 1)
                continue
            close = _matching_bracket(raw, bracket)
            parsed = self._link_tail(raw, source, bracket, close) if close >= 0 else None
            if parsed is not None:
                target, rng, tail_end, normalised = parsed
                opened = (_OpenLink(tail_end, target, rng, is_image), bracket + 1)
                if normalised == href:
                    return opened
                fallback = fallback or opened
            candidate = raw.find(opener, candidate + 1)
        return fallback or (_OpenLink(cursor, href, None, is_image), cursor)

    def _link_tail(
        self, raw: str, source: _Source, bracket: int, close: int
    ) -> tuple[str, Range, int, str] | None:
        """What follows `[text]`: (target, target range, end, normalised href) or None."""
        after = close + 1
        if after < len(raw) and raw[after] == "(":
            dest = _destination(raw, _skip_space(raw, after + 1))
            if dest is None:
                return None
            start, end, rest = dest
            target = unescapeAll(raw[start:end])
            return target, source.range(start, end), _inline_tail_end(raw, rest), _normalise(target)
        label = raw[bracket + 1 : close]
        tail_end = after
        if after < len(raw) and raw[after] == "[":
            label_close = raw.find("]", after + 1)
            if label_close >= 0:
                if label_close > after + 1:
                    label = raw[after + 1 : label_close]
                tail_end = label_close + 1
        definition = self._definition(normalizeReference(label))
        if definition is None:
            return None
        target, rng = definition
        return target, rng, tail_end, _normalise(target)

    def _definition(self, label: str) -> tuple[str, Range] | None:
        """Target and its range for a `[label]: target` definition, located in its lines."""
        if label in self._definitions:
            return self._definitions[label]
        found: tuple[str, Range] | None = None
        reference = self.references.get(label)
        span = reference.get("map") if isinstance(reference, dict) else None
        if span:
            first, last = span[0] + self.first, min(span[1] + self.first, len(self.lines))
            text = "\n".join(self.lines[first:last])
            source = _Source(text, _align_lines(text, first, self.lines), self.lines)
            label_end = re.search(r"(?<!\\)\]:", text)
            if label_end:
                start = label_end.end()
                start = _skip_space(text, start)
                while start < len(text) and text[start] == ">":  # a blockquote continuation
                    start = _skip_space(text, start + 1)
                dest = _destination(text, start)
                if dest is not None and dest[1] > dest[0]:
                    target = unescapeAll(text[dest[0] : dest[1]])
                    found = (target, source.range(dest[0], dest[1]))
        self._definitions[label] = found
        return found


def _normalise(target: str) -> str:
    return str(_PARSER.normalizeLink(target))
