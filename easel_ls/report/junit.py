"""`junit`: JUnit XML, a test suite per file and a failing test case per finding.

CI tools (GitLab, Jenkins, Azure) list each finding as a failed test: ``classname`` and
``file`` are the path, ``name`` is ``easel-ls.CODE``, the ``failure`` carries the message
with ``type`` set to the code. With no finding a single passing case says so.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from easel_ls.findings import Finding
from easel_ls.report.common import ReportContext, display_path, row_column

# Characters XML 1.0 cannot carry even escaped.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_text(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def _testcase(finding: Finding, path: str) -> ET.Element:
    row, column = row_column(finding.range.start)
    case = ET.Element(
        "testcase",
        {
            "name": f"easel-ls.{finding.code}",
            "classname": _xml_text(path),
            "file": _xml_text(path),
            "line": str(row),
            "column": str(column),
        },
    )
    failure = ET.SubElement(
        case, "failure", {"message": _xml_text(finding.message), "type": finding.code}
    )
    details = f"{path}:{row}:{column}: {finding.code} [{finding.severity.word}] {finding.message}"
    if finding.help:
        details += f"\nhelp: {finding.help}"
    failure.text = _xml_text(details)
    return case


def render_junit(findings: list[Finding], ctx: ReportContext) -> str:
    by_file: dict[str, list[Finding]] = {}
    for finding in findings:
        by_file.setdefault(display_path(finding.path, ctx.root), []).append(finding)
    suites = ET.Element(
        "testsuites",
        {
            "name": "easel-ls",
            "tests": str(len(findings) or 1),
            "failures": str(len(findings)),
            "errors": "0",
        },
    )
    for path, file_findings in by_file.items():
        count = str(len(file_findings))
        suite = ET.SubElement(
            suites,
            "testsuite",
            {
                "name": _xml_text(path),
                "tests": count,
                "failures": count,
                "errors": "0",
                "skipped": "0",
            },
        )
        for finding in file_findings:
            suite.append(_testcase(finding, path))
    if not findings:
        suite = ET.SubElement(
            suites,
            "testsuite",
            {"name": "easel-ls", "tests": "1", "failures": "0", "errors": "0", "skipped": "0"},
        )
        ET.SubElement(suite, "testcase", {"name": "No errors found", "classname": "easel-ls"})
    ET.indent(suites, space="  ")
    body = ET.tostring(suites, encoding="unicode")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{body}\n'
