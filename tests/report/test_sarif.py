"""SARIF: a valid 2.1.0 log with the whole catalogue, UTF-16 regions and applicable fixes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from easel_ls import __version__
from easel_ls.findings import Applicability, Finding, Fix, Range, RenameFile, Severity, TextEdit
from easel_ls.report import ReportContext, render
from easel_ls.rules import RULES

SCHEMA = json.loads((Path(__file__).parent / "sarif-schema-2.1.0.json").read_text("utf-8"))


def _sarif(findings: list[Finding], ctx: ReportContext) -> dict[str, Any]:
    log: dict[str, Any] = json.loads(render(findings, "sarif", ctx))
    return log


def _results_by_rule(log: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {result["ruleId"]: result for result in log["runs"][0]["results"]}


def _region(result: dict[str, Any]) -> dict[str, int]:
    region: dict[str, int] = result["locations"][0]["physicalLocation"]["region"]
    return region


def test_the_shipped_schema_is_the_official_oasis_one() -> None:
    assert SCHEMA["id"].startswith("https://docs.oasis-open.org/sarif/sarif/v2.1.0/")
    assert SCHEMA["properties"]["version"]["enum"] == ["2.1.0"]


@pytest.mark.parametrize("unsafe_fixes", [False, True])
def test_log_validates_against_the_sarif_2_1_0_schema(
    findings: list[Finding], make_ctx: Callable[..., ReportContext], unsafe_fixes: bool
) -> None:
    log = _sarif(findings, make_ctx(unsafe_fixes=unsafe_fixes))
    jsonschema.Draft4Validator(SCHEMA).validate(log)


def test_empty_log_is_valid_and_has_no_results(make_ctx: Callable[..., ReportContext]) -> None:
    log = _sarif([], make_ctx())
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    assert log["runs"][0]["results"] == []


def test_driver_describes_easel_ls_and_every_rule_of_the_catalogue(
    make_ctx: Callable[..., ReportContext],
) -> None:
    driver = _sarif([], make_ctx())["runs"][0]["tool"]["driver"]
    assert driver["name"] == "easel-ls"
    assert driver["version"] == __version__
    assert driver["informationUri"].startswith("https://")
    assert [rule["id"] for rule in driver["rules"]] == list(RULES)
    levels = {"error": "error", "warning": "warning", "info": "note"}
    for descriptor in driver["rules"]:
        rule = RULES[descriptor["id"]]
        assert descriptor["name"] == rule.name
        assert descriptor["shortDescription"]["text"] == rule.summary
        assert descriptor["fullDescription"]["text"] == (rule.doc.strip() or rule.summary)
        assert descriptor["helpUri"] == rule.url
        assert descriptor["defaultConfiguration"]["level"] == levels[rule.default_severity]


def test_results_point_at_their_rule_descriptor(
    findings: list[Finding], make_ctx: Callable[..., ReportContext]
) -> None:
    run = _sarif(findings, make_ctx())["runs"][0]
    for result in run["results"]:
        assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == result["ruleId"]


def test_levels_follow_severity(
    findings: list[Finding], make_ctx: Callable[..., ReportContext]
) -> None:
    results = _results_by_rule(_sarif(findings, make_ctx()))
    assert results["CM002"]["level"] == "error"
    assert results["FM006"]["level"] == "warning"
    assert results["FM017"]["level"] == "note"


def test_columns_count_utf16_code_units_so_an_emoji_counts_two(
    findings: list[Finding], make_ctx: Callable[..., ReportContext]
) -> None:
    # "见 🎨 [指南](references/guide.md)": the link target starts at code point 9; the emoji
    # before it is one code point but two UTF-16 units, the CJK characters one each.
    region = _region(_results_by_rule(_sarif(findings, make_ctx()))["RS001"])
    assert region == {"startLine": 9, "startColumn": 11, "endLine": 9, "endColumn": 30}


def test_columns_fall_back_to_code_points_without_the_source(
    make_ctx: Callable[..., ReportContext],
) -> None:
    # No text is available for this file, so the 0-based code-point columns just gain 1.
    unreadable = Finding(
        "BD001",
        "body-too-long",
        Severity.ERROR,
        "too long",
        Path("/ws/gone.md"),
        Range.of(4, 3, 4, 9),
    )
    region = _region(_sarif([unreadable], make_ctx())["runs"][0]["results"][0])
    assert region == {"startLine": 5, "startColumn": 4, "endLine": 5, "endColumn": 10}


def test_paths_inside_the_root_are_relative_to_srcroot_others_absolute(
    findings: list[Finding], make_ctx: Callable[..., ReportContext]
) -> None:
    run = _sarif(findings, make_ctx())["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == "file:///ws/"
    results = _results_by_rule({"runs": [run]})
    inside = results["CM002"]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert inside == {"uri": "skills/openclaw/x/SKILL.md", "uriBaseId": "%SRCROOT%"}
    outside = results["FM017"]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert outside == {"uri": "file:///elsewhere/skills/y/SKILL.md"}


def test_uris_are_percent_encoded(make_ctx: Callable[..., ReportContext]) -> None:
    finding = Finding(
        "RS003",
        "orphan-resource",
        Severity.WARNING,
        "orphan",
        Path("/ws/refs/说明 1.md"),
        Range.line_start(),
    )
    location = _sarif([finding], make_ctx())["runs"][0]["results"][0]["locations"][0]
    assert (
        location["physicalLocation"]["artifactLocation"]["uri"] == "refs/%E8%AF%B4%E6%98%8E%201.md"
    )


def test_only_fixes_that_fix_would_apply_are_listed(
    findings: list[Finding], make_ctx: Callable[..., ReportContext]
) -> None:
    safe_only = _results_by_rule(_sarif(findings, make_ctx()))
    assert "fixes" in safe_only["FM009"]
    assert "fixes" not in safe_only["CM002"]
    with_unsafe = _results_by_rule(_sarif(findings, make_ctx(unsafe_fixes=True)))
    [fix] = with_unsafe["CM002"]["fixes"]
    [change] = fix["artifactChanges"]
    assert change["replacements"] == [
        {
            "deletedRegion": {"startLine": 12, "startColumn": 46, "endLine": 12, "endColumn": 53},
            "insertedContent": {"text": "--output"},
        }
    ]


def test_a_created_file_is_an_insertion_into_an_empty_artifact(
    findings: list[Finding], make_ctx: Callable[..., ReportContext]
) -> None:
    result = _results_by_rule(_sarif(findings, make_ctx(unsafe_fixes=True)))["RS001"]
    [change] = result["fixes"][0]["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "skills/openclaw/poster/references/guide.md"
    assert change["replacements"][0]["insertedContent"] == {"text": "# 指南\n"}


def test_a_rename_only_fix_is_left_out_but_renames_beside_edits_are_kept(
    make_ctx: Callable[..., ReportContext],
) -> None:
    path = Path("/ws/skills/a/SKILL.md")
    rename = RenameFile(Path("/ws/skills/a/refs/x.md"), Path("/ws/skills/a/references/x.md"))
    rename_only = Fix("Move the file", Applicability.SAFE, renames=(rename,))
    with_edit = Fix(
        "Move and relink",
        Applicability.SAFE,
        edits=(TextEdit(path, Range.of(0, 0, 0, 4), "references/x.md"),),
        renames=(rename,),
    )
    finding = Finding(
        "RS001", "broken-link", Severity.ERROR, "broken", path, Range.of(0, 0, 0, 4),
        fixes=[rename_only, with_edit],
    )  # fmt: skip
    log = _sarif([finding], make_ctx())
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    [fix] = log["runs"][0]["results"][0]["fixes"]
    assert fix["description"]["text"] == "Move and relink"
    assert fix["properties"]["renames"][0]["to"]["uri"] == "skills/a/references/x.md"


def test_related_locations_and_help_are_carried(
    findings: list[Finding], make_ctx: Callable[..., ReportContext]
) -> None:
    result = _results_by_rule(_sarif(findings, make_ctx()))["FM007"]
    assert result["message"]["text"] == "key `layer` appears twice\nhelp: keep one `layer` key"
    [related] = result["relatedLocations"]
    assert related["message"]["text"] == "first `layer` here"
    assert related["physicalLocation"]["region"]["startLine"] == 4


def test_a_code_outside_the_catalogue_still_yields_a_valid_result(
    make_ctx: Callable[..., ReportContext],
) -> None:
    finding = Finding("ZZ999", "made-up", Severity.ERROR, "x", Path("/ws/a.md"), Range.line_start())
    log = _sarif([finding], make_ctx())
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    assert "ruleIndex" not in log["runs"][0]["results"][0]


def test_the_schema_check_has_teeth(
    findings: list[Finding], make_ctx: Callable[..., ReportContext]
) -> None:
    log = _sarif(findings, make_ctx())
    log["runs"][0]["results"][0]["level"] = "info"  # SARIF's word is "note"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(SCHEMA).validate(log)
