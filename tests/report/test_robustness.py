"""Bad input never raises: any text, any range, any message renders in every format."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from easel_ls.findings import Applicability, Finding, Fix, Location, Range, Severity, TextEdit
from easel_ls.report import FORMATS, ReportContext, render, render_statistics, render_summary

SCHEMA = json.loads((Path(__file__).parent / "sarif-schema-2.1.0.json").read_text("utf-8"))
PATH = Path("/ws/skills/a/SKILL.md")

texts = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=60)
lines = st.integers(min_value=-2, max_value=8)
columns = st.integers(min_value=-2, max_value=40)


@st.composite
def findings(draw: st.DrawFn) -> Finding:
    rng = Range.of(draw(lines), draw(columns), draw(lines), draw(columns))
    fix = Fix(
        draw(texts), draw(st.sampled_from(Applicability)), (TextEdit(PATH, rng, draw(texts)),)
    )
    return Finding(
        draw(st.sampled_from(["FM001", "CM002", "ZZ999"])),
        "a-name",
        draw(st.sampled_from(Severity)),
        draw(texts),
        PATH,
        rng,
        fixes=draw(st.lists(st.just(fix), max_size=1)),
        related=draw(st.lists(st.just(Location(PATH, rng, draw(texts))), max_size=1)),
        help=draw(st.none() | texts),
    )


@settings(max_examples=150, deadline=None)
@given(text=st.none() | texts, found=st.lists(findings(), max_size=3), unsafe=st.booleans())
def test_every_format_renders_anything(
    text: str | None, found: list[Finding], unsafe: bool
) -> None:
    ctx = ReportContext(Path("/ws"), {PATH: text}.get, unsafe_fixes=unsafe)
    for fmt in FORMATS:
        assert isinstance(render(found, fmt, ctx), str)
    render_summary(found, ctx)
    render_statistics(found, ctx)
    jsonschema.Draft4Validator(SCHEMA).validate(json.loads(render(found, "sarif", ctx)))
    ET.fromstring(render(found, "junit", ctx).encode("utf-8"))
    assert len(json.loads(render(found, "json", ctx))) == len(found)


def test_a_source_that_fails_to_read_counts_as_unavailable() -> None:
    def unreadable(path: Path) -> str | None:
        raise OSError("permission denied")

    finding = Finding("FM001", "frontmatter-missing", Severity.ERROR, "m", PATH, Range.line_start())
    ctx = ReportContext(Path("/ws"), unreadable)
    assert render([finding], "full", ctx) == "skills/a/SKILL.md:1:1: FM001 m\n\n"


def test_an_unknown_format_is_refused_by_name() -> None:
    ctx = ReportContext(Path("/ws"), lambda path: None)
    with pytest.raises(ValueError, match="unknown output format 'xml'"):
        render([], "xml", ctx)


def test_relative_paths_and_roots_are_compared_alike() -> None:
    finding = Finding(
        "FM001",
        "frontmatter-missing",
        Severity.ERROR,
        "m",
        Path("skills/a/SKILL.md"),
        Range.line_start(),
    )
    ctx = ReportContext(Path(".").absolute(), lambda path: None)
    assert render([finding], "concise", ctx) == "skills/a/SKILL.md:1:1: FM001 m\n"


def test_a_path_that_climbs_out_of_the_root_is_outside_it() -> None:
    finding = Finding(
        "RS005", "path-escapes-workspace", Severity.ERROR, "m", Path("/ws/../etc/x.md"),
        Range.line_start(),
    )  # fmt: skip
    ctx = ReportContext(Path("/ws"), lambda path: None)
    assert render([finding], "concise", ctx) == "/ws/../etc/x.md:1:1: RS005 m\n"
