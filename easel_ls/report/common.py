"""What every output format shares: the context, paths, 1-based columns, fixability, colour."""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from easel_ls.findings import Finding, Fix, Position, Severity
from easel_ls.model.text import TextDocument, utf16_column

TAB_WIDTH = 4


@dataclass
class ReportContext:
    root: Path  # paths are printed relative to this (posix style) when inside it
    source: Callable[[Path], str | None]  # text of a file for 'full' (None if unavailable)
    color: bool = False
    unsafe_fixes: bool = False  # whether unsafe fixes count as "fixable" in json/summary


def relative_to_root(path: Path, root: Path) -> Path | None:
    """``path`` relative to ``root`` when it lies inside it, else None (no filesystem access)."""
    if path.is_absolute() != root.is_absolute():
        path, root = path.absolute(), root.absolute()
    # Lexical only: "/ws/../etc" is not inside "/ws", and no symlink is followed.
    path, root = Path(os.path.normpath(path)), Path(os.path.normpath(root))
    try:
        return path.relative_to(root)
    except ValueError:
        return None


def display_path(path: Path, root: Path) -> str:
    inside = relative_to_root(path, root)
    return (inside if inside is not None else path).as_posix()


def row_column(position: Position) -> tuple[int, int]:
    """1-based row and code-point column, as ruff prints them."""
    return max(position.line, 0) + 1, max(position.character, 0) + 1


def is_fixable(finding: Finding, unsafe_fixes: bool) -> bool:
    """A fix `--fix` would apply: safe ones always, unsafe ones only with `--unsafe-fixes`."""
    return any(fix.is_safe or unsafe_fixes for fix in finding.fixes)


def has_hidden_fix(finding: Finding, unsafe_fixes: bool) -> bool:
    return not is_fixable(finding, unsafe_fixes) and bool(finding.fixes)


def applicable_fixes(finding: Finding, unsafe_fixes: bool) -> list[Fix]:
    return [fix for fix in finding.fixes if fix.is_safe or unsafe_fixes]


def sorted_findings(findings: list[Finding], root: Path) -> list[Finding]:
    def key(finding: Finding) -> tuple[str, int, int, str, str]:
        start = finding.range.start
        return (
            display_path(finding.path, root),
            start.line,
            start.character,
            finding.code,
            finding.message,
        )

    return sorted(findings, key=key)


class Sources:
    """Documents read through ``ReportContext.source`` once per render; failures mean None."""

    def __init__(self, source: Callable[[Path], str | None]) -> None:
        self._source = source
        self._documents: dict[Path, TextDocument | None] = {}

    def document(self, path: Path) -> TextDocument | None:
        if path not in self._documents:
            try:
                text = self._source(path)
            except (OSError, ValueError):
                text = None
            self._documents[path] = None if text is None else TextDocument(path, text)
        return self._documents[path]

    def utf16_row_column(self, path: Path, position: Position) -> tuple[int, int]:
        """1-based row and UTF-16 column (SARIF's default); code points if the text is missing."""
        row, column = row_column(position)
        document = self.document(path)
        if document is None:
            return row, column
        line_text = document.line_text(row - 1)
        return row, utf16_column(line_text, column - 1) + 1 + max(column - 1 - len(line_text), 0)


def char_width(char: str) -> int:
    """Terminal columns of one code point: wide East Asian and emoji take two, marks none."""
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def display_line(text: str) -> tuple[str, list[int]]:
    """The line as a terminal shows it, and the display column where each code point starts.

    Tabs expand to the next tab stop; other control characters become their visible
    Control Pictures so carets stay aligned. The column list has one extra entry: the end.
    """
    shown: list[str] = []
    columns: list[int] = []
    column = 0
    for char in text:
        columns.append(column)
        if char == "\t":
            spaces = TAB_WIDTH - column % TAB_WIDTH
            shown.append(" " * spaces)
            column += spaces
            continue
        code = ord(char)
        if code < 0x20:
            char = chr(0x2400 + code)
        elif code == 0x7F:
            char = "\u2421"
        shown.append(char)
        column += char_width(char)
    columns.append(column)
    return "".join(shown), columns


_SEVERITY_COLOURS = {Severity.ERROR: "31", Severity.WARNING: "33", Severity.INFO: "34"}


class Palette:
    """ANSI styling that vanishes when colour is off."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def paint(self, text: str, *codes: str) -> str:
        if not self.enabled or not text:
            return text
        return f"\x1b[{';'.join(codes)}m{text}\x1b[0m"

    def bold(self, text: str) -> str:
        return self.paint(text, "1")

    def cyan(self, text: str) -> str:
        return self.paint(text, "36")

    def gutter(self, text: str) -> str:
        return self.paint(text, "1", "34")

    def severity(self, text: str, severity: Severity) -> str:
        return self.paint(text, "1", _SEVERITY_COLOURS.get(severity, "31"))
