"""`json` and `json-lines`: ruff's JSON shape, one object per finding.

Each object has ``code``, ``name``, ``message``, ``severity`` (error, warning, info),
``filename`` (relative to the root when inside it), ``location`` / ``end_location``
(``{row, column}``, 1-based, columns in code points as ruff counts them), ``fix`` and ``url``;
beyond ruff: ``help`` (a did-you-mean or hint, or null) and ``related`` (``[{filename,
location, end_location, message}]``).

``fix`` is the finding's first fix, or null: ``{applicability: "safe"|"unsafe", message,
edits: [{filename, content, location, end_location}], file_operations}``. ruff's edits never
leave the file, easel-ls fixes may, hence ``filename`` on every edit; ``file_operations``
lists what a fix does to files besides editing them: ``{"kind": "create", "filename",
"content"}`` and ``{"kind": "rename", "old_filename", "new_filename"}`` (empty when none).
Unsafe fixes are always listed: ``applicability`` says whether `--fix` alone applies them.
"""

from __future__ import annotations

import json
from typing import Any

from easel_ls.findings import Finding, Fix, Range
from easel_ls.report.common import ReportContext, display_path, row_column
from easel_ls.rules import RULES

JsonObject = dict[str, Any]


def _point(row_and_column: tuple[int, int]) -> JsonObject:
    row, column = row_and_column
    return {"row": row, "column": column}


def _locations(rng: Range) -> JsonObject:
    return {"location": _point(row_column(rng.start)), "end_location": _point(row_column(rng.end))}


def _fix_json(fix: Fix, ctx: ReportContext) -> JsonObject:
    operations: list[JsonObject] = [
        {
            "kind": "create",
            "filename": display_path(create.path, ctx.root),
            "content": create.content,
        }
        for create in fix.creates
    ]
    operations += [
        {
            "kind": "rename",
            "old_filename": display_path(rename.old_path, ctx.root),
            "new_filename": display_path(rename.new_path, ctx.root),
        }
        for rename in fix.renames
    ]
    return {
        "applicability": fix.applicability.value,
        "message": fix.title,
        "edits": [
            {"filename": display_path(edit.path, ctx.root), "content": edit.new_text}
            | _locations(edit.range)
            for edit in fix.edits
        ],
        "file_operations": operations,
    }


def finding_json(finding: Finding, ctx: ReportContext) -> JsonObject:
    rule = RULES.get(finding.code)
    return {
        "code": finding.code,
        "name": finding.name,
        "message": finding.message,
        "severity": finding.severity.word,
        "filename": display_path(finding.path, ctx.root),
        **_locations(finding.range),
        "fix": _fix_json(finding.fixes[0], ctx) if finding.fixes else None,
        "url": rule.url if rule else None,
        "help": finding.help,
        "related": [
            {"filename": display_path(related.path, ctx.root), "message": related.message}
            | _locations(related.range)
            for related in finding.related
        ],
    }


def render_json(findings: list[Finding], ctx: ReportContext) -> str:
    objects = [finding_json(finding, ctx) for finding in findings]
    return json.dumps(objects, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def render_json_lines(findings: list[Finding], ctx: ReportContext) -> str:
    return "".join(
        json.dumps(finding_json(finding, ctx), ensure_ascii=False, sort_keys=True) + "\n"
        for finding in findings
    )
