"""JUnit XML: a test suite per file, a failing test case per finding, readable by CI tools."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

from easel_ls.findings import Finding, Range, Severity
from easel_ls.report import ReportContext, render


def _parse(findings: list[Finding], ctx: ReportContext) -> ET.Element:
    return ET.fromstring(render(findings, "junit", ctx).encode("utf-8"))


def test_one_suite_per_file_and_one_failing_case_per_finding(
    findings: list[Finding], make_ctx: Callable[..., ReportContext]
) -> None:
    suites = _parse(findings, make_ctx())
    assert suites.tag == "testsuites"
    assert suites.get("tests") == suites.get("failures") == str(len(findings))
    by_name = {suite.get("name"): suite for suite in suites.iter("testsuite")}
    assert set(by_name) == {
        "/elsewhere/skills/y/SKILL.md",
        "projects/spring-sale/.easel.json",
        "skills/openclaw/empty/SKILL.md",
        "skills/openclaw/poster/SKILL.md",
        "skills/openclaw/x/SKILL.md",
    }
    poster = by_name["skills/openclaw/poster/SKILL.md"]
    cases = poster.findall("testcase")
    assert poster.get("tests") == poster.get("failures") == str(len(cases)) == "4"
    assert [case.get("name") for case in cases] == [
        "easel-ls.FM009",
        "easel-ls.FM007",
        "easel-ls.FM006",
        "easel-ls.RS001",
    ]


def test_failure_carries_message_code_and_position(
    findings: list[Finding], make_ctx: Callable[..., ReportContext]
) -> None:
    suites = _parse(findings, make_ctx())
    case = next(c for c in suites.iter("testcase") if c.get("name") == "easel-ls.CM002")
    assert case.get("classname") == case.get("file") == "skills/openclaw/x/SKILL.md"
    assert (case.get("line"), case.get("column")) == ("12", "46")
    failure = case.find("failure")
    assert failure is not None
    assert failure.get("type") == "CM002"
    assert failure.get("message") == "unknown option `--ouput` for `render`"
    assert failure.text is not None and "help: did you mean `--output`?" in failure.text


def test_no_findings_is_one_passing_case(make_ctx: Callable[..., ReportContext]) -> None:
    suites = _parse([], make_ctx())
    cases = list(suites.iter("testcase"))
    assert len(cases) == 1
    assert cases[0].find("failure") is None
    assert suites.get("failures") == "0"


def test_text_xml_cannot_carry_is_replaced_not_fatal(
    make_ctx: Callable[..., ReportContext],
) -> None:
    finding = Finding(
        "FM002", "frontmatter-invalid-yaml", Severity.ERROR, 'bad \x00 & <"quote">\x1b[0m',
        Path("/ws/a & b.md"), Range.line_start(),
    )  # fmt: skip
    failure = _parse([finding], make_ctx()).find("testsuite/testcase/failure")
    assert failure is not None
    assert failure.get("message") == 'bad \ufffd & <"quote">\ufffd[0m'
