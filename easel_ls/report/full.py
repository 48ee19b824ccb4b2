"""`full`: ruff's full output, the header then the source with carets under the range.

```
skills/x/SKILL.md:12:34: CM002 unknown option `--ouput` for `render`
   |
11 | ```bash
12 | python skills/x/scripts/a.py render --ouput <主题>
   |                                     ^^^^^^^ CM002
13 | ```
   |
   = help: did you mean `--output`?
```

Carets are measured in display columns (wide CJK and emoji count two, tabs expand). A range
over several lines is drawn with a left rail, as annotate-snippets (ruff, rustc) does.
"""

from __future__ import annotations

from dataclasses import dataclass

from easel_ls.findings import Finding
from easel_ls.model.text import TextDocument
from easel_ls.report.common import (
    Palette,
    ReportContext,
    Sources,
    display_line,
    display_path,
    row_column,
)
from easel_ls.report.concise import header_line

# Longer ranges show their first and last lines around a "..." row.
MAX_RANGE_LINES = 6
EDGE_LINES = 2


@dataclass(frozen=True)
class _Span:
    """The finding's range clamped to the document: lines and code-point columns."""

    start_line: int
    start_column: int
    end_line: int
    end_column: int


def _clamp_span(finding: Finding, document: TextDocument) -> _Span:
    last_line = document.line_count - 1
    start, end = finding.range.start, finding.range.end
    if end < start:
        end = start
    start_line = min(max(start.line, 0), last_line)
    start_column = min(max(start.character, 0), len(document.line_text(start_line)))
    end_line = min(max(end.line, start_line), last_line)
    end_text = document.line_text(end_line)
    end_column = (
        min(max(end.character, 0), len(end_text)) if end.line <= last_line else len(end_text)
    )
    if end_line > start_line and end_column == 0:
        # A range that stops at a line start really ends with the previous line.
        end_line -= 1
        end_column = len(document.line_text(end_line))
    if end_line == start_line:
        end_column = max(end_column, start_column)
    return _Span(start_line, start_column, end_line, end_column)


class _Snippet:
    """Builds the gutter-prefixed lines of one finding's source excerpt."""

    def __init__(self, document: TextDocument, span: _Span, palette: Palette) -> None:
        self.document = document
        self.span = span
        self.palette = palette
        last_shown = min(span.end_line + 1, document.line_count - 1)
        self.width = len(str(last_shown + 1))
        self.lines: list[str] = []

    def source_line(self, line: int, rail: str = "") -> None:
        number = self.palette.gutter(f"{line + 1:>{self.width}} |")
        shown, _ = display_line(self.document.line_text(line))
        self.lines.append(f"{number} {rail}{shown}".rstrip())

    def marker_line(self, marker: str = "") -> None:
        self.lines.append(f"{self.palette.gutter(' ' * (self.width + 1) + '|')} {marker}".rstrip())

    def elision(self) -> None:
        self.lines.append(self.palette.gutter("..."))


def _single_line(snippet: _Snippet, finding: Finding) -> None:
    span, palette = snippet.span, snippet.palette
    _, columns = display_line(snippet.document.line_text(span.start_line))
    start = columns[span.start_column]
    carets = "^" * max(columns[span.end_column] - start, 1)
    snippet.source_line(span.start_line)
    marks = palette.severity(f"{carets} {finding.code}", finding.severity)
    snippet.marker_line(" " * start + marks)


def _multi_line(snippet: _Snippet, finding: Finding) -> None:
    span, palette = snippet.span, snippet.palette

    def paint(text: str) -> str:
        return palette.severity(text, finding.severity)

    start_text = snippet.document.line_text(span.start_line)
    _, start_columns = display_line(start_text)
    if start_text[: span.start_column].strip():
        snippet.source_line(span.start_line, "  ")
        snippet.marker_line(" " + paint("_" * (start_columns[span.start_column] + 1) + "^"))
    else:
        snippet.source_line(span.start_line, paint("/") + " ")
    inner = list(range(span.start_line + 1, span.end_line))
    if len(inner) + 2 > MAX_RANGE_LINES:
        for line in inner[: EDGE_LINES - 1]:
            snippet.source_line(line, paint("|") + " ")
        snippet.elision()
        inner = inner[len(inner) - (EDGE_LINES - 1) :]
    for line in inner:
        snippet.source_line(line, paint("|") + " ")
    snippet.source_line(span.end_line, paint("|") + " ")
    _, end_columns = display_line(snippet.document.line_text(span.end_line))
    last_char = end_columns[span.end_column - 1] if span.end_column > 0 else 0
    snippet.marker_line(paint("|" + "_" * (last_char + 1) + "^ " + finding.code))


def _snippet_lines(
    finding: Finding, document: TextDocument, palette: Palette
) -> tuple[int, list[str]]:
    span = _clamp_span(finding, document)
    snippet = _Snippet(document, span, palette)
    snippet.marker_line()
    if span.start_line > 0:
        snippet.source_line(span.start_line - 1, "  " if span.end_line > span.start_line else "")
    if span.end_line == span.start_line:
        _single_line(snippet, finding)
    else:
        _multi_line(snippet, finding)
    if span.end_line + 1 < document.line_count:
        snippet.source_line(span.end_line + 1, "  " if span.end_line > span.start_line else "")
    snippet.marker_line()
    return snippet.width, snippet.lines


def _notes(finding: Finding, ctx: ReportContext, palette: Palette, width: int) -> list[str]:
    indent = " " * (width + 1)
    lines = []
    for related in finding.related:
        row, column = row_column(related.range.start)
        where = f"{display_path(related.path, ctx.root)}:{row}:{column}"
        text = f"{where}: {related.message}" if related.message else where
        lines.append(f"{indent}{palette.gutter('=')} {palette.bold('note')}: {text}")
    help_text = finding.help or (finding.fixes[0].title if finding.fixes else None)
    if help_text:
        lines.append(f"{indent}{palette.gutter('=')} {palette.bold('help')}: {help_text}")
    return lines


def render_full(findings: list[Finding], ctx: ReportContext) -> str:
    palette = Palette(ctx.color)
    sources = Sources(ctx.source)
    blocks = []
    for finding in findings:
        lines = [header_line(finding, ctx, palette)]
        document = sources.document(finding.path)
        width = len(str(row_column(finding.range.start)[0]))
        if document is not None:
            width, snippet = _snippet_lines(finding, document, palette)
            lines += snippet
        lines += _notes(finding, ctx, palette, width)
        blocks.append("\n".join(lines) + "\n\n")
    return "".join(blocks)
