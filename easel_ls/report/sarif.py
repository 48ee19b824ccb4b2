"""`sarif`: a SARIF 2.1.0 log for code-scanning services (GitHub, Azure DevOps, IDE viewers).

Every rule of the catalogue is described under ``tool.driver.rules``. Artifact URIs are
relative to the root with ``uriBaseId`` ``%SRCROOT%`` (absolute ``file:`` URIs for files
outside it). Regions use 1-based lines and UTF-16 code-unit columns, SARIF's default
``columnKind``; without a file's text the columns fall back to code points. Fixes are given
for the fixes `--fix` would apply (unsafe ones only with ``unsafe_fixes``); a created file is
an insertion into an empty artifact, renames go into the fix's ``properties``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from easel_ls import __version__
from easel_ls.findings import Finding, Fix, Range, Severity
from easel_ls.report.common import ReportContext, Sources, applicable_fixes, relative_to_root
from easel_ls.rules import RULES

JsonObject = dict[str, Any]

SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
INFORMATION_URI = "https://github.com/easel-ls/easel-ls"
ROOT_BASE_ID = "%SRCROOT%"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _level(severity: Severity) -> str:
    return _LEVEL.get(severity, "error")


def _rule_descriptors() -> list[JsonObject]:
    descriptors = []
    for rule in RULES.values():
        full = rule.doc.strip()
        descriptors.append(
            {
                "id": rule.code,
                "name": rule.name,
                "shortDescription": {"text": rule.summary},
                "fullDescription": {"text": full or rule.summary, "markdown": full or rule.summary},
                "helpUri": rule.url,
                "defaultConfiguration": {"level": _level(rule.severity)},
                "properties": {"family": rule.family, "fix": rule.fix or "none"},
            }
        )
    return descriptors


def _artifact_location(path: Path, root: Path) -> JsonObject:
    inside = relative_to_root(path, root)
    if inside is None:
        return {"uri": path.absolute().as_uri()}
    return {"uri": quote(inside.as_posix(), safe="/"), "uriBaseId": ROOT_BASE_ID}


def _region(path: Path, rng: Range, sources: Sources) -> JsonObject:
    start_line, start_column = sources.utf16_row_column(path, rng.start)
    end_line, end_column = sources.utf16_row_column(path, max(rng.end, rng.start))
    return {
        "startLine": start_line,
        "startColumn": start_column,
        "endLine": end_line,
        "endColumn": end_column,
    }


def _physical_location(path: Path, rng: Range, ctx: ReportContext, sources: Sources) -> JsonObject:
    return {
        "physicalLocation": {
            "artifactLocation": _artifact_location(path, ctx.root),
            "region": _region(path, rng, sources),
        }
    }


def _fix(fix: Fix, ctx: ReportContext, sources: Sources) -> JsonObject | None:
    changes: dict[Path, list[JsonObject]] = {}
    for edit in fix.edits:
        changes.setdefault(edit.path, []).append(
            {
                "deletedRegion": _region(edit.path, edit.range, sources),
                "insertedContent": {"text": edit.new_text},
            }
        )
    for create in fix.creates:
        empty_start = {"startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 1}
        changes.setdefault(create.path, []).append(
            {"deletedRegion": empty_start, "insertedContent": {"text": create.content}}
        )
    if not changes:
        return None  # SARIF needs at least one artifact change: a bare rename has none
    result: JsonObject = {
        "description": {"text": fix.title},
        "artifactChanges": [
            {"artifactLocation": _artifact_location(path, ctx.root), "replacements": replacements}
            for path, replacements in changes.items()
        ],
        "properties": {"applicability": fix.applicability.value},
    }
    if fix.renames:
        result["properties"]["renames"] = [
            {
                "from": _artifact_location(rename.old_path, ctx.root),
                "to": _artifact_location(rename.new_path, ctx.root),
            }
            for rename in fix.renames
        ]
    return result


def _result(
    finding: Finding, ctx: ReportContext, sources: Sources, rule_index: dict[str, int]
) -> JsonObject:
    message = finding.message + (f"\nhelp: {finding.help}" if finding.help else "")
    result: JsonObject = {
        "ruleId": finding.code,
        "level": _level(finding.severity),
        "message": {"text": message},
        "locations": [_physical_location(finding.path, finding.range, ctx, sources)],
    }
    if finding.code in rule_index:
        result["ruleIndex"] = rule_index[finding.code]
    if finding.related:
        result["relatedLocations"] = [
            {"id": number, "message": {"text": related.message or finding.message}}
            | _physical_location(related.path, related.range, ctx, sources)
            for number, related in enumerate(finding.related)
        ]
    fixes = [_fix(fix, ctx, sources) for fix in applicable_fixes(finding, ctx.unsafe_fixes)]
    if any(fixes):
        result["fixes"] = [fix for fix in fixes if fix is not None]
    return result


def render_sarif(findings: list[Finding], ctx: ReportContext) -> str:
    sources = Sources(ctx.source)
    rule_index = {code: index for index, code in enumerate(RULES)}
    root_uri = ctx.root.absolute().as_uri().rstrip("/") + "/"
    log = {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "easel-ls",
                        "version": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": _rule_descriptors(),
                    }
                },
                "originalUriBaseIds": {ROOT_BASE_ID: {"uri": root_uri}},
                "columnKind": "utf16CodeUnits",
                "results": [_result(finding, ctx, sources, rule_index) for finding in findings],
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
