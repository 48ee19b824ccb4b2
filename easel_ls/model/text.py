"""A document's text with a line index: offsets <-> (line, character), and UTF-16 columns.

Characters are Python code points. Line breaks are ``\\n``, ``\\r\\n`` or a lone ``\\r`` (as in
LSP); the break itself does not belong to the line's content.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from functools import cached_property
from itertools import accumulate, islice, repeat
from operator import add
from pathlib import Path

from easel_ls.findings import Position, Range

try:  # the builtin module hashlib takes it from, without loading OpenSSL (a cold run's 2 ms)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b


def _line_starts(text: str) -> list[int]:
    starts = [0]
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            starts.append(i + 1)
        elif c == "\r":
            if i + 1 < n and text[i + 1] == "\n":
                i += 1
            starts.append(i + 1)
        i += 1
    return starts


@dataclass
class TextDocument:
    path: Path
    text: str
    version: int | None = None
    _starts: list[int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if "\r" in self.text:
            self._starts = _line_starts(self.text)
        else:
            # Fast path: the common case has only \n breaks. Each line starts one past the end
            # of the previous one: running sums of (length + 1), all computed in C. The split
            # is also the ``lines`` most documents are asked for.
            lines = self.text.split("\n")
            self.__dict__["lines"] = lines
            lengths = map(len, islice(lines, len(lines) - 1))
            self._starts = list(accumulate(map(add, lengths, repeat(1)), initial=0))

    @cached_property
    def content_hash(self) -> str:
        return blake2b(self.text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()

    @property
    def line_count(self) -> int:
        return len(self._starts)

    def line_start(self, line: int) -> int:
        return self._starts[line]

    def line_end(self, line: int) -> int:
        """Offset just past the line's content (before its line break)."""
        if line + 1 < len(self._starts):
            end = self._starts[line + 1] - 1
            if end > self._starts[line] and self.text[end] == "\n" and self.text[end - 1] == "\r":
                end -= 1
            return end
        return len(self.text)

    def line_length(self, line: int) -> int:
        """``len(self.line_text(line))`` without slicing the line out."""
        if line < 0 or line >= len(self._starts):
            return 0
        return self.line_end(line) - self._starts[line]

    def line_text(self, line: int) -> str:
        if line < 0 or line >= len(self._starts):
            return ""
        return self.text[self._starts[line] : self.line_end(line)]

    @cached_property
    def lines(self) -> list[str]:
        if "\r" not in self.text:
            return self.text.split("\n")  # the same lines, split in C
        return [self.line_text(i) for i in range(len(self._starts))]

    def position_at(self, offset: int) -> Position:
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self._starts, offset) - 1
        character = min(offset, self.line_end(line)) - self._starts[line]
        return Position(line, character)

    def offset_at(self, position: Position) -> int:
        if position.line < 0:
            return 0
        if position.line >= len(self._starts):
            return len(self.text)
        start = self._starts[position.line]
        return min(start + max(position.character, 0), self.line_end(position.line))

    def range_of(self, start: int, end: int) -> Range:
        return Range(self.position_at(start), self.position_at(end))

    def slice(self, rng: Range) -> str:
        return self.text[self.offset_at(rng.start) : self.offset_at(rng.end)]

    @property
    def end_position(self) -> Position:
        return self.position_at(len(self.text))

    def contains(self, rng: Range) -> bool:
        last = len(self._starts) - 1

        def ok(p: Position) -> bool:
            return 0 <= p.line <= last and 0 <= p.character <= len(self.line_text(p.line))

        return ok(rng.start) and ok(rng.end) and rng.start <= rng.end


def utf16_column(line_text: str, character: int) -> int:
    """Code-point column -> UTF-16 code-unit column."""
    prefix = line_text[:character]
    return len(prefix) + sum(1 for c in prefix if ord(c) > 0xFFFF)


def column_from_utf16(line_text: str, units: int) -> int:
    """UTF-16 code-unit column -> code-point column (clamped to the line)."""
    count = 0
    for i, c in enumerate(line_text):
        if count >= units:
            return i
        count += 2 if ord(c) > 0xFFFF else 1
    return len(line_text)
