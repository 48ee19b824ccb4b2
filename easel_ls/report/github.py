"""`github`: GitHub Actions workflow commands, which show as annotations on the diff.

``::error title=easel-ls (CODE),file=…,line=…,col=…,endLine=…,endColumn=…::path:row:col: CODE
message`` (``::warning`` for warnings, ``::notice`` for info). Columns are 1-based code points.
"""

from __future__ import annotations

from easel_ls.findings import Finding, Severity
from easel_ls.report.common import ReportContext, display_path, row_column

_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    """The message part: GitHub decodes %25, %0D and %0A."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A property value: ``:`` and ``,`` would end it, so they are encoded too."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _annotation(finding: Finding, ctx: ReportContext) -> str:
    path = display_path(finding.path, ctx.root)
    row, column = row_column(finding.range.start)
    end_row, end_column = row_column(finding.range.end)
    properties = ",".join(
        f"{key}={escape_property(value)}"
        for key, value in (
            ("title", f"easel-ls ({finding.code})"),
            ("file", path),
            ("line", str(row)),
            ("col", str(column)),
            ("endLine", str(end_row)),
            ("endColumn", str(end_column)),
        )
    )
    message = f"{path}:{row}:{column}: {finding.code} {finding.message}"
    if finding.help:
        message += f"\nhelp: {finding.help}"
    command = _COMMAND.get(finding.severity, "error")
    return f"::{command} {properties}::{escape_data(message)}"


def render_github(findings: list[Finding], ctx: ReportContext) -> str:
    return "".join(_annotation(finding, ctx) + "\n" for finding in findings)
