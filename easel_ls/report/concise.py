"""`concise`: one line per finding, ``path:row:col: CODE [*] message`` (ruff's concise)."""

from __future__ import annotations

from easel_ls.findings import Finding
from easel_ls.report.common import Palette, ReportContext, display_path, is_fixable, row_column


def header_line(finding: Finding, ctx: ReportContext, palette: Palette) -> str:
    """The location, code, fix marker and message: the first line of `concise` and `full`."""
    row, column = row_column(finding.range.start)
    colon = palette.cyan(":")
    location = colon.join(
        (palette.bold(display_path(finding.path, ctx.root)), str(row), str(column))
    )
    marker = " " + palette.cyan("[*]") if is_fixable(finding, ctx.unsafe_fixes) else ""
    code = palette.severity(finding.code, finding.severity)
    return f"{location}{colon} {code}{marker} {finding.message}"


def render_concise(findings: list[Finding], ctx: ReportContext) -> str:
    palette = Palette(ctx.color)
    return "".join(header_line(finding, ctx, palette) + "\n" for finding in findings)
