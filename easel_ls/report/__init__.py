"""The output formats of `easel-ls check`, following ruff's conventions.

``render`` prints findings in one of ``FORMATS``; ``render_summary`` (``Found 3 errors.`` …),
the ``--show-fixes`` listings and ``render_statistics`` (``--statistics``) are separate so the
CLI decides when to print them. Findings are printed sorted by path, then position. Ranges in
findings are 0-based code points; each format converts them (1-based code points, or UTF-16
for SARIF).
"""

from __future__ import annotations

from collections.abc import Callable

from easel_ls.findings import Finding
from easel_ls.report.common import ReportContext, sorted_findings
from easel_ls.report.concise import render_concise
from easel_ls.report.full import render_full
from easel_ls.report.github import render_github
from easel_ls.report.json_format import render_json, render_json_lines
from easel_ls.report.junit import render_junit
from easel_ls.report.sarif import render_sarif
from easel_ls.report.summary import (
    ALL_PASSED,
    render_available_fixes,
    render_fix_summary,
    render_statistics,
    render_summary,
)

FORMATS = ("concise", "full", "json", "json-lines", "github", "sarif", "junit")
# The formats meant for a person: only these get the summary, "All checks passed!" and the
# `--show-fixes` listings (the others are read by programs, which a trailing line would break).
TEXT_FORMATS = ("concise", "full")

_RENDERERS: dict[str, Callable[[list[Finding], ReportContext], str]] = {
    "concise": render_concise,
    "full": render_full,
    "json": render_json,
    "json-lines": render_json_lines,
    "github": render_github,
    "sarif": render_sarif,
    "junit": render_junit,
}


def render(findings: list[Finding], fmt: str, ctx: ReportContext) -> str:
    """The findings in format ``fmt``; raises ValueError for a name not in ``FORMATS``."""
    renderer = _RENDERERS.get(fmt)
    if renderer is None:
        raise ValueError(f"unknown output format {fmt!r}; expected one of {', '.join(FORMATS)}")
    return renderer(sorted_findings(findings, ctx.root), ctx)


__all__ = [
    "ALL_PASSED",
    "FORMATS",
    "TEXT_FORMATS",
    "ReportContext",
    "render",
    "render_available_fixes",
    "render_fix_summary",
    "render_statistics",
    "render_summary",
]
