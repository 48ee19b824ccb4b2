"""Protocol-free findings: what a rule reports and how to fix it.

Ranges are 0-based lines and 0-based *code point* columns (Python string indices within the
line). Conversion to UTF-16 (LSP) or 1-based columns (reports) happens at the edges.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple


class Severity(enum.IntEnum):
    # Values follow LSP's DiagnosticSeverity so adapters can pass them through.
    ERROR = 1
    WARNING = 2
    INFO = 3

    @classmethod
    def parse(cls, word: str) -> Severity:
        return cls[word.strip().upper()]

    @property
    def word(self) -> str:
        return self.name.lower()


class Applicability(str, enum.Enum):
    SAFE = "safe"
    UNSAFE = "unsafe"


# Positions and ranges are named tuples: immutable, ordered and hashable like frozen
# dataclasses, but several times cheaper to make and compare, and a check makes a few hundred
# thousand of them.
class Position(NamedTuple):
    line: int
    character: int


class Range(NamedTuple):
    start: Position
    end: Position

    @classmethod
    def of(
        cls, line: int, start: int, end_line: int | None = None, end: int | None = None
    ) -> Range:
        end_line = line if end_line is None else end_line
        return cls(Position(line, start), Position(end_line, start if end is None else end))

    @classmethod
    def line_start(cls, line: int = 0) -> Range:
        return cls(Position(line, 0), Position(line, 0))


@dataclass(frozen=True)
class Location:
    path: Path
    range: Range
    message: str = ""


@dataclass(frozen=True)
class TextEdit:
    """Replace ``range`` of ``path`` with ``new_text``."""

    path: Path
    range: Range
    new_text: str


@dataclass(frozen=True)
class CreateFile:
    path: Path
    content: str = ""


@dataclass(frozen=True)
class RenameFile:
    old_path: Path
    new_path: Path


@dataclass(frozen=True)
class Fix:
    title: str
    applicability: Applicability
    edits: tuple[TextEdit, ...] = ()
    creates: tuple[CreateFile, ...] = ()
    renames: tuple[RenameFile, ...] = ()

    @property
    def is_safe(self) -> bool:
        return self.applicability is Applicability.SAFE


@dataclass
class Finding:
    code: str
    name: str
    severity: Severity
    message: str
    path: Path
    range: Range
    fixes: list[Fix] = field(default_factory=list)
    related: list[Location] = field(default_factory=list)
    help: str | None = None

    @property
    def sort_key(self) -> tuple[str, int, int, str]:
        return (str(self.path), self.range.start.line, self.range.start.character, self.code)
