"""JSON and JSON Lines: ruff's shape, 1-based code-point columns, the first fix, the rule url."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from easel_ls.findings import (
    Applicability,
    CreateFile,
    Finding,
    Fix,
    Range,
    RenameFile,
    Severity,
    TextEdit,
)
from easel_ls.report import ReportContext, render
from easel_ls.rules import RULES

RUFF_KEYS = {"code", "message", "filename", "location", "end_location", "fix", "url"}


def _point(row: int, column: int) -> dict[str, int]:
    return {"row": row, "column": column}


def test_round_trip_gives_back_every_finding(
    findings: list[Finding], make_ctx: Callable[..., ReportContext]
) -> None:
    ctx = make_ctx()
    objects = json.loads(render(findings, "json", ctx))
    assert len(objects) == len(findings)
    by_code = {finding.code: finding for finding in findings}
    for obj in objects:
        finding = by_code[obj["code"]]
        assert set(obj) >= RUFF_KEYS
        assert obj["name"] == finding.name
        assert obj["message"] == finding.message
        assert obj["severity"] == finding.severity.word
        start, end = finding.range.start, finding.range.end
        assert obj["location"] == _point(start.line + 1, start.character + 1)
        assert obj["end_location"] == _point(end.line + 1, end.character + 1)
        assert obj["url"] == RULES[finding.code].url
        assert obj["help"] == finding.help
        root = ctx.root
        expected = (
            finding.path.relative_to(root) if finding.path.is_relative_to(root) else finding.path
        )
        assert obj["filename"] == expected.as_posix()


def test_columns_are_code_points_even_after_cjk_and_emoji(
    findings: list[Finding], make_ctx: Callable[..., ReportContext]
) -> None:
    objects = {o["code"]: o for o in json.loads(render(findings, "json", make_ctx()))}
    # "见 🎨 [指南](" is nine code points: the target starts at column 10.
    assert objects["RS001"]["location"] == _point(9, 10)
    assert objects["RS001"]["end_location"] == _point(9, 29)


def test_fix_is_the_first_fix_with_its_edits_and_applicability(
    findings: list[Finding], make_ctx: Callable[..., ReportContext]
) -> None:
    objects = {o["code"]: o for o in json.loads(render(findings, "json", make_ctx()))}
    assert objects["FM009"]["fix"] == {
        "applicability": "safe",
        "message": "Set `name` to `poster`",
        "edits": [
            {
                "filename": "skills/openclaw/poster/SKILL.md",
                "content": "poster",
                "location": _point(2, 7),
                "end_location": _point(2, 12),
            }
        ],
        "file_operations": [],
    }
    # Unsafe fixes are listed too; their applicability says --fix alone skips them.
    assert objects["CM002"]["fix"]["applicability"] == "unsafe"
    assert objects["FM001"]["fix"] is None


def _finding_with_create() -> list[Finding]:
    fix = Fix(
        "Create it",
        Applicability.UNSAFE,
        creates=(CreateFile(Path("/ws/skills/a/references/new.md"), "# 新\n"),),
    )
    return [
        Finding(
            "RS002", "missing-resource", Severity.ERROR, "missing", Path("/ws/skills/a/SKILL.md"),
            Range.line_start(), fixes=[fix],
        )
    ]  # fmt: skip


def test_file_operations_hold_creates_and_renames(make_ctx: Callable[..., ReportContext]) -> None:
    path = Path("/ws/skills/a/SKILL.md")
    first = Fix(
        "Move and relink",
        Applicability.UNSAFE,
        edits=(TextEdit(path, Range.of(2, 1, 2, 5), "references/x.md"),),
        renames=(RenameFile(Path("/ws/skills/a/x.md"), Path("/ws/skills/a/references/x.md")),),
    )
    second = Fix("Never shown: json carries the first fix", Applicability.SAFE)
    finding = Finding(
        "RS001", "broken-link", Severity.ERROR, "broken", path, Range.of(2, 1, 2, 5),
        fixes=[first, second],
    )  # fmt: skip
    [obj] = json.loads(render([finding], "json", make_ctx()))
    assert obj["fix"]["message"] == "Move and relink"
    assert obj["fix"]["file_operations"] == [
        {
            "kind": "rename",
            "old_filename": "skills/a/x.md",
            "new_filename": "skills/a/references/x.md",
        }
    ]
    creates = json.loads(render(_finding_with_create(), "json", make_ctx()))[0]["fix"]
    assert creates["file_operations"] == [
        {"kind": "create", "filename": "skills/a/references/new.md", "content": "# 新\n"}
    ]


def test_related_locations_are_listed(
    findings: list[Finding], make_ctx: Callable[..., ReportContext]
) -> None:
    objects = {o["code"]: o for o in json.loads(render(findings, "json", make_ctx()))}
    assert objects["FM007"]["related"] == [
        {
            "filename": "skills/openclaw/poster/SKILL.md",
            "message": "first `layer` here",
            "location": _point(4, 1),
            "end_location": _point(4, 6),
        }
    ]


def test_json_lines_is_the_same_objects_one_per_line(
    findings: list[Finding], make_ctx: Callable[..., ReportContext]
) -> None:
    ctx = make_ctx()
    lines = render(findings, "json-lines", ctx).splitlines()
    whole: list[dict[str, Any]] = json.loads(render(findings, "json", ctx))
    assert [json.loads(line) for line in lines] == whole


def test_no_findings_is_an_empty_list(make_ctx: Callable[..., ReportContext]) -> None:
    assert json.loads(render([], "json", make_ctx())) == []
    assert render([], "json-lines", make_ctx()) == ""
