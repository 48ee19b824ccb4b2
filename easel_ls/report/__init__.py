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

# Format -> (module, function): a run imports only the format it prints.
_RENDERERS: dict[str, tuple[str, str]] = {
    "concise": ("concise", "render_concise"),
    "full": ("full", "render_full"),
    "json": ("json_format", "render_json"),
    "json-lines": ("json_format", "render_json_lines"),
    "github": ("github", "render_github"),
    "sarif": ("sarif", "render_sarif"),
    "junit": ("junit", "render_junit"),
}


def renderer(fmt: str) -> Callable[[list[Finding], ReportContext], str]:
    """The function that prints format ``fmt``; raises ValueError for a name not in
    ``FORMATS``."""
    where = _RENDERERS.get(fmt)
    if where is None:
        raise ValueError(f"unknown output format {fmt!r}; expected one of {', '.join(FORMATS)}")
    # The import statement's own path (so `python -X importtime` lists the format too).
    module = __import__(f"{__name__}.{where[0]}", fromlist=[where[1]])
    function: Callable[[list[Finding], ReportContext], str] = getattr(module, where[1])
    return function


def render(findings: list[Finding], fmt: str, ctx: ReportContext) -> str:
    """The findings in format ``fmt``; raises ValueError for a name not in ``FORMATS``."""
    return renderer(fmt)(sorted_findings(findings, ctx.root), ctx)


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
    "renderer",
]
