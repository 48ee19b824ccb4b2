"""GitHub Actions annotations: the command per severity, positions, and GitHub's escaping."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from easel_ls.findings import Finding, Range, Severity
from easel_ls.report import ReportContext, render


def _one(finding: Finding, ctx: ReportContext) -> str:
    [line] = render([finding], "github", ctx).splitlines()
    return line


def test_command_follows_severity(
    findings: list[Finding], make_ctx: Callable[..., ReportContext]
) -> None:
    lines = {
        line.split("(")[1].split(")")[0]: line
        for line in render(findings, "github", make_ctx()).splitlines()
    }
    assert lines["CM002"].startswith("::error title=easel-ls (CM002),")
    assert lines["FM006"].startswith("::warning title=easel-ls (FM006),")
    assert lines["FM017"].startswith("::notice title=easel-ls (FM017),")


def test_annotation_has_file_and_1_based_positions(
    findings: list[Finding], make_ctx: Callable[..., ReportContext]
) -> None:
    cm002 = next(f for f in findings if f.code == "CM002")
    assert _one(cm002, make_ctx()) == (
        "::error title=easel-ls (CM002),file=skills/openclaw/x/SKILL.md,"
        "line=12,col=46,endLine=12,endColumn=53::"
        "skills/openclaw/x/SKILL.md:12:46: CM002 unknown option `--ouput` for `render`"
        "%0Ahelp: did you mean `--output`?"
    )


def test_message_escapes_percent_and_line_breaks(make_ctx: Callable[..., ReportContext]) -> None:
    finding = Finding(
        "FM002", "frontmatter-invalid-yaml", Severity.ERROR, "100% bad\r\nnext: line, here",
        Path("/ws/a.md"), Range.line_start(),
    )  # fmt: skip
    data = _one(finding, make_ctx()).split("::", 2)[2]
    # In the message part ":" and "," stay as they are: only properties need them encoded.
    assert data == "a.md:1:1: FM002 100%25 bad%0D%0Anext: line, here"


def test_properties_escape_colon_and_comma(make_ctx: Callable[..., ReportContext]) -> None:
    finding = Finding(
        "RS003", "orphan-resource", Severity.WARNING, "orphan",
        Path("/ws/refs/a,b:c%d.md"), Range.line_start(),
    )  # fmt: skip
    properties = _one(finding, make_ctx()).split("::", 2)[1]
    assert "file=refs/a%2Cb%3Ac%25d.md," in properties
    # The comma and colon that separate properties are the only raw ones left.
    assert properties.count(",") == 5
    assert properties.count(":") == 0
