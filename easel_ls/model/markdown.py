"""Markdown structure of a document body: headings, fences, code spans, links, comments, prose.

pulldown-cmark (through pyromark; CommonMark + tables) decides *what* the structure is and gives
every event its UTF-8 byte range in the source, so positions come straight from the parser:
inside list items, blockquotes and table cells alike, and after CJK or emoji text. Only a link's
destination is located by scanning, inside the source range the parser gave the link.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import accumulate, repeat
from operator import add
from typing import Any

import pyromark

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
    content: str  # the code inside, container prefixes and indentation removed
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


class TextRun:
    """A run of prose. Its range is worked out when first asked for: most runs are only
    searched (for a path, say), and there are a hundred or more per document."""

    __slots__ = ("_range", "_source", "_start", "text")

    def __init__(
        self,
        text: str,
        range: Range | None = None,
        *,
        source: _Source | None = None,
        start: int = 0,
    ) -> None:
        self.text = text
        self._range = range
        self._source = source
        self._start = start  # byte offset in ``source``

    @property
    def range(self) -> Range:
        if self._range is None:
            assert self._source is not None
            if "\n" in self.text:
                end = self._start + len(self.text.encode("utf-8"))
                self._range = self._source.range(self._start, end)
            else:  # the usual case: one line, so the end is the start plus the text
                start = self._source.position(self._start)
                self._range = Range(start, Position(start.line, start.character + len(self.text)))
        return self._range

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TextRun):
            return NotImplemented
        return (self.text, self.range) == (other.text, other.range)

    def __hash__(self) -> int:
        return hash((self.text, self.range))

    def __repr__(self) -> str:
        return f"TextRun(text={self.text!r}, range={self.range!r})"


@dataclass
class MarkdownModel:
    headings: list[Heading] = field(default_factory=list)
    fences: list[Fence] = field(default_factory=list)
    code_spans: list[CodeSpan] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    comments: list[HtmlComment] = field(default_factory=list)
    # Prose as (byte offset in the parsed body, text): a hundred or more runs per document, most
    # of them never looked at, so TextRun objects are made when asked for.
    prose: list[tuple[int, str]] = field(default_factory=list, repr=False)
    _source: _Source | None = field(default=None, repr=False, compare=False)
    _text_runs: list[TextRun] | None = field(default=None, repr=False, compare=False)

    @property
    def text_runs(self) -> list[TextRun]:
        """Runs of prose outside code, links and HTML, in document order."""
        if self._text_runs is None:
            self._text_runs = self.runs_containing("")
        return self._text_runs

    def runs_containing(self, needle: str) -> list[TextRun]:
        """The text runs whose text contains ``needle``."""
        source = self._source
        return [
            TextRun(text, source=source, start=start)
            for start, text in self.prose
            if needle in text
        ]


_PARSER = pyromark.Markdown(options=pyromark.Options.ENABLE_TABLES)

_COMMENT = re.compile(r"<!--(.*?)-->", re.DOTALL)
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_WHITESPACE = re.compile(r"\s+")
_REFERENCE_LINKS = frozenset({"Reference", "Collapsed", "Shortcut"})
_ENDS_TO_HANDLE = frozenset({"CodeBlock", "HtmlBlock", "Link", "Image"})


def parse_markdown(doc: TextDocument, body_start_line: int = 0) -> MarkdownModel:
    """Parse the body (from ``body_start_line``) and report positions in the whole document."""
    lines = doc.lines
    first = max(0, min(body_start_line, len(lines)))
    body = "\n".join(lines[first:])
    if "\x00" in body:
        # CommonMark reads NUL as U+FFFD; doing it first keeps NUL out of every text (paths
        # included) and every column unchanged.
        body = body.replace("\x00", "\ufffd")
    try:
        data = body.encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate: the parser takes valid Unicode only; U+FFFD keeps every column
        # (one code point each).
        body = _LONE_SURROGATE.sub("\ufffd", body)
        data = body.encode("utf-8")
    source = _Source(body, first, data)
    builder = _Builder(source)
    builder.walk(_PARSER.events_with_range(body, merge_text=True))
    return builder.model


class _Source:
    """The parsed body as UTF-8, with byte offsets mapped to document positions."""

    def __init__(self, body: str, first_line: int, data: bytes) -> None:
        self.body = body
        self.data = data  # ``body`` as UTF-8
        self.first_line = first_line
        self._ascii = len(data) == len(body)
        # Each line starts one past the end of the previous one: running sums, in C.
        lengths = map(len, data.split(b"\n"))
        self._starts = list(accumulate(map(add, lengths, repeat(1)), initial=0))[:-1]

    def position(self, offset: int) -> Position:
        line = bisect_right(self._starts, offset) - 1
        start = self._starts[line]
        if self._ascii:
            column = offset - start
        else:
            column = len(self.data[start:offset].decode("utf-8", "ignore"))
        return Position(self.first_line + line, column)

    def range(self, start: int, end: int) -> Range:
        return Range(self.position(start), self.position(max(start, end)))

    def text(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8", "ignore")

    def line_bounds(self, offset: int) -> tuple[int, int]:
        """Byte offsets of the start and end (before the break) of the line holding ``offset``."""
        line = bisect_right(self._starts, offset) - 1
        end = self._starts[line + 1] - 1 if line + 1 < len(self._starts) else len(self.data)
        return self._starts[line], end

    def line_end(self, offset: int) -> int:
        return self.line_bounds(offset)[1]


@dataclass
class _OpenLink:
    start: int  # byte range of the whole link, as the parser reports it
    end: int
    data: dict[str, Any]
    is_image: bool
    text_parts: list[str] = field(default_factory=list)


@dataclass
class _OpenFence:
    start: int
    end: int
    info: str
    pieces: list[tuple[str, int, int]] = field(default_factory=list)  # (text, start, end)


@dataclass
class _OpenHeading:
    level: int
    start: int
    end: int
    content_start: int = -1
    content_end: int = -1


class _Builder:
    def __init__(self, source: _Source) -> None:
        self.source = source
        self.model = MarkdownModel(_source=source)
        self._links: list[_OpenLink] = []
        self._fence: _OpenFence | None = None
        self._in_code_block = False  # fenced or indented: its text is code, not prose
        self._heading: _OpenHeading | None = None
        self._html: list[tuple[str, int]] | None = None  # an HTML block's pieces
        self._definitions: dict[str, tuple[str, Range] | None] | None = None

    def walk(self, events: Iterable[tuple[Any, Any]]) -> None:
        # The hot loop of the whole checker (a few hundred events per document): Text events,
        # most of them, are handled inline, and the prose run being built is a local.
        data = self.source.data
        prose = self.model.prose
        run: tuple[int, int, str] | None = None  # prose being built: start, end byte, text
        for event, span in events:
            if type(event) is str:  # SoftBreak, HardBreak, Rule
                if run is not None:
                    if run[2].strip():
                        prose.append((run[0], run[2]))
                    run = None
                continue
            text = event.get("Text")
            if text is not None:
                start, end = span["start"], span["end"]
                if self._in_code_block:  # fenced or indented: code, not prose
                    if self._fence is not None:
                        self._fence.pieces.append((text, start, end))
                    continue
                if self._html is not None:
                    continue
                if self._heading is not None:
                    self._mark_heading_content(start, end)
                if self._links:
                    self._links[-1].text_parts.append(text)
                    continue
                encoded = text.encode("utf-8")
                raw = data[start:end]
                if raw != encoded:
                    # An escape or entity: only the literal tail is prose at a known place.
                    if run is not None:
                        if run[2].strip():
                            prose.append((run[0], run[2]))
                        run = None
                    if not encoded or not raw.endswith(encoded):
                        continue
                    start = end - len(encoded)
                if run is not None:
                    if run[1] == start:
                        run = (run[0], end, run[2] + text)
                        continue
                    if run[2].strip():
                        prose.append((run[0], run[2]))
                run = (start, end, text)
                continue
            if run is not None:  # any other event ends the prose run
                if run[2].strip():
                    prose.append((run[0], run[2]))
                run = None
            # Most starts and ends (paragraphs, list items, emphasis ...) need nothing.
            value = event.get("End")
            if value is not None:
                if type(value) is not str or value in _ENDS_TO_HANDLE:
                    self._end(value)
                continue
            value = event.get("Start")
            if value is not None:
                if type(value) is not str:
                    self._start(value, span["start"], span["end"])
                elif value == "HtmlBlock":
                    self._html = []
                continue
            ((kind, value),) = event.items()
            start, end = span["start"], span["end"]
            if kind == "Code":
                if self._links:
                    self._links[-1].text_parts.append(value)
                self._mark_heading_content(start, end)
                self._code_span(value, start, end)
            elif kind == "Html":
                if self._html is not None:
                    self._html.append((value, start))
            elif kind == "InlineHtml":
                self._mark_heading_content(start, end)
                self._inline_html(start, end)
            else:
                self._mark_heading_content(start, end)
        if run is not None and run[2].strip():
            prose.append((run[0], run[2]))
        self._close_fence()  # the parser always closes blocks; this only guards against a miss

    # Blocks

    def _start(self, tag: dict[str, Any], start: int, end: int) -> None:
        kind, value = next(iter(tag.items()))
        if kind == "CodeBlock":
            self._in_code_block = True
            if isinstance(value, dict):  # fenced; indented code blocks are not fences
                self._fence = _OpenFence(start, end, str(value.get("Fenced", "")))
        elif kind == "Heading":
            level = str(value.get("level", "H1"))[1:]
            self._heading = _OpenHeading(int(level) if level.isdigit() else 1, start, end)
        elif kind in ("Link", "Image"):
            self._mark_heading_content(start, end)
            self._links.append(_OpenLink(start, end, value, kind == "Image"))

    def _end(self, tag: Any) -> None:
        if type(tag) is str:
            if tag == "CodeBlock":
                self._in_code_block = False
                self._close_fence()
            elif tag == "HtmlBlock":
                self._close_html_block()
            elif tag in ("Link", "Image"):
                self._close_link()
            return
        kind = next(iter(tag))
        if kind == "Heading":
            self._close_heading()

    def _close_fence(self) -> None:
        fence, self._fence = self._fence, None
        if fence is None:
            return
        src = self.source
        content = "".join(text for text, _, _ in fence.pieces)
        lines: dict[int, tuple[int, int, str]] = {}
        for text, start, _ in fence.pieces:
            for line, column, line_text in self._piece_lines(text, start):
                lines.setdefault(line, (line, column, line_text[column:]))
        content_lines = [lines[line] for line in sorted(lines)]
        while content_lines and not content_lines[-1][2].strip():
            content_lines.pop()  # blank lines closing an unterminated fence
        info = fence.info.strip().split()
        last = src.position(src.line_end(max(fence.start, fence.end - 1)))
        self.model.fences.append(
            Fence(
                info=info[0].lower() if info else "",
                content=content,
                content_lines=content_lines,
                range=Range(src.position(fence.start), last),
            )
        )

    def _piece_lines(self, text: str, start: int) -> Iterator[tuple[int, int, str]]:
        """(line, column, source line) for each line a piece of fence content starts."""
        src = self.source
        pieces = text.split("\n")
        if len(pieces) > 1 and not pieces[-1]:
            pieces.pop()  # the piece's own line break
        line_start, line_end = src.line_bounds(start)
        where = src.position(start)
        yield where.line, where.character, src.text(line_start, line_end)
        for piece in pieces[1:]:
            # A piece spanning lines (no container prefix in between): each later line ends
            # with its part of the piece.
            if line_end + 1 > len(src.data):
                return
            line_start, line_end = src.line_bounds(line_end + 1)
            line_text = src.text(line_start, line_end)
            yield src.position(line_start).line, max(0, len(line_text) - len(piece)), line_text

    def _close_heading(self) -> None:
        heading, self._heading = self._heading, None
        if heading is None:
            return
        src = self.source
        if heading.content_start < 0:
            # An empty heading: its (empty) text sits after the marker.
            line_start, line_end = src.line_bounds(heading.start)
            text = src.text(line_start, line_end).rstrip()
            at = src.position(line_start)
            where = Position(at.line, len(text))
            self.model.headings.append(Heading(heading.level, "", Range(where, where)))
            return
        text = src.text(heading.content_start, heading.content_end)
        self.model.headings.append(
            Heading(heading.level, text, src.range(heading.content_start, heading.content_end))
        )

    def _mark_heading_content(self, start: int, end: int) -> None:
        heading = self._heading
        if heading is None:
            return
        if heading.content_start < 0:
            heading.content_start = start
        heading.content_end = max(heading.content_end, end)

    def _close_html_block(self) -> None:
        pieces, self._html = self._html, None
        if not pieces:
            return
        # Each piece is one line of the block with container prefixes removed; join them and
        # keep, for every character, its byte offset in the source.
        offsets: list[int] = []
        for text, start in pieces:
            line_end = self.source.line_end(start)
            offsets.extend(min(at, line_end) for at in _char_offsets(text, start))
        self._comments("".join(text for text, _ in pieces), offsets)

    def _inline_html(self, start: int, end: int) -> None:
        text = self.source.text(start, end)
        self._comments(text, list(_char_offsets(text, start)))

    def _comments(self, text: str, offsets: list[int]) -> None:
        if "<!--" not in text:
            return
        # Past the last `-->` nothing can match: bounding there keeps a run of unclosed `<!--`
        # linear instead of quadratic.
        last_close = text.rfind("-->")
        if last_close < 0:
            return
        for match in _COMMENT.finditer(text, 0, last_close + 3):
            begin = offsets[match.start()]
            finish = offsets[match.end() - 1] + 1
            where = self.source.range(begin, finish)
            self.model.comments.append(HtmlComment(match.group(1).strip(), where, where.start.line))

    # Inline content

    def _code_span(self, text: str, start: int, end: int) -> None:
        if self._in_code_block:
            return
        src = self.source
        raw = src.text(start, end)
        ticks = len(raw) - len(raw.lstrip("`"))
        closing = len(raw) - len(raw.rstrip("`"))
        if ticks == 0 or closing == 0 or ticks + closing > len(raw):
            return
        inner_start = start + ticks
        inner_end = end - closing
        inner = raw[ticks : len(raw) - closing]
        # CommonMark strips one padding space from each side when both are there.
        if len(inner) > 2 and inner[0] in " \n" and inner[-1] in " \n" and inner.strip(" \n"):
            inner_start += 1
            inner_end -= 1
        segments = tuple(self._segments(inner_start, inner_end))
        self.model.code_spans.append(CodeSpan(text, src.range(inner_start, inner_end), segments))

    def _segments(self, start: int, end: int) -> Iterator[tuple[int, int, str]]:
        """(line, column, text) pieces of the source between two byte offsets, one per line;
        container prefixes and indentation of continuation lines are left out."""
        src = self.source
        at = start
        first = True
        while True:
            line_end = src.line_end(at)
            piece_end = min(end, line_end)
            piece = src.text(at, piece_end)
            if not first:
                stripped = _strip_container_prefix(piece)
                at += len(piece.encode("utf-8")) - len(stripped.encode("utf-8"))
                piece = stripped
            where = src.position(at)
            yield where.line, where.character, piece
            if piece_end >= end:
                return
            at = line_end + 1
            first = False

    def _close_link(self) -> None:
        if not self._links:
            return
        link = self._links.pop()
        text = "".join(link.text_parts)
        if self._links:
            self._links[-1].text_parts.extend(link.text_parts)
        located = self._locate_target(link)
        if located is not None:
            target, rng = located
            self.model.links.append(Link(target, text, rng, link.is_image))

    def _locate_target(self, link: _OpenLink) -> tuple[str, Range] | None:
        link_type = link.data.get("link_type")
        dest = str(link.data.get("dest_url") or "")
        src = self.source
        if link_type in ("Autolink", "Email"):
            return src.text(link.start + 1, link.end - 1), src.range(link.start + 1, link.end - 1)
        if link_type == "Inline":
            raw = src.text(link.start, link.end)
            bracket = 1 if link.is_image else 0
            close = _matching_bracket(raw, bracket)
            if close < 0 or close + 1 >= len(raw) or raw[close + 1] != "(":
                return None
            located = _destination(raw, _skip_space(raw, close + 2))
            if located is None:
                return None
            begin = link.start + len(raw[: located[0]].encode("utf-8"))
            finish = link.start + len(raw[: located[1]].encode("utf-8"))
            return dest, src.range(begin, finish)
        if link_type in _REFERENCE_LINKS:
            return self._definition(str(link.data.get("id") or ""))
        return None

    def _definition(self, label: str) -> tuple[str, Range] | None:
        """Target and its range for a `[label]: target` definition, located in its lines."""
        if self._definitions is None:
            self._definitions = {}
            for written, definition in _PARSER.reference_definitions(self.source.body).items():
                key = _normalise_label(written)
                if key not in self._definitions:
                    self._definitions[key] = self._locate_definition(definition)
        return self._definitions.get(_normalise_label(label))

    def _locate_definition(self, definition: Any) -> tuple[str, Range] | None:
        span = definition.get("span") or {}
        start, end = int(span.get("start", 0)), int(span.get("end", 0))
        raw = self.source.text(start, end)
        label_end = re.search(r"(?<!\\)\]:", raw)
        if label_end is None:
            return None
        at = _skip_space(raw, label_end.end())
        while at < len(raw) and raw[at] == ">":  # a blockquote continuation
            at = _skip_space(raw, at + 1)
        located = _destination(raw, at)
        if located is None or located[1] <= located[0]:
            return None
        begin = start + len(raw[: located[0]].encode("utf-8"))
        finish = start + len(raw[: located[1]].encode("utf-8"))
        return str(definition.get("dest") or ""), self.source.range(begin, finish)


def _char_offsets(text: str, start: int) -> Iterator[int]:
    """Byte offset of each character of ``text`` when it sits in the source from ``start``."""
    at = start
    for c in text:
        yield at
        at += 1 if c < "\x80" else len(c.encode("utf-8"))


def _strip_container_prefix(piece: str) -> str:
    """A paragraph continuation line without its `>` markers and indentation."""
    return piece.lstrip(" \t>") if piece.lstrip(" \t").startswith(">") else piece.lstrip(" \t")


def _normalise_label(label: str) -> str:
    # CommonMark: labels match after case folding and collapsing inner whitespace.
    return _WHITESPACE.sub(" ", label.strip()).casefold()


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
