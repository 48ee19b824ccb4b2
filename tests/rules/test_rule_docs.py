"""Every rule has a page in the ruff style, and docs/rules.md is generated from those pages."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from easel_ls.rules import RULES
from easel_ls.rules.base import rule_doc
from easel_ls.rules.catalogue import CATALOGUE
from easel_ls.rules.docgen import DEFAULT_OUTPUT, main, render_rules_markdown

DOCS_FOLDER = Path(__file__).resolve().parents[2] / "easel_ls" / "rules" / "docs"
SECTION_MARKERS = (
    "**What it does**",
    "**Why is this bad?**",
    "**Example**",
    "Use instead:",
    "**Fix**",
    "**Options**",
)
CODE_PATTERN = re.compile(r"\b[A-Z]{2}\d{3}\b")
FENCE_PATTERN = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
ALL_CODES = [rule.code for rule in CATALOGUE]

RULE_OPTIONS = {
    "FM011": "min-cjk-ratio",
    "FM012": "trigger-words",
    "FM013": "boundary-words",
    "FM014": "description-length",
    "BD001": "max-body-lines",
    "BD002": "required-sections",
    "OP001": "generic-project-names",
    "OP002": "system-dirs",
    "CG001": "extra-internal-domains",
    "EZ004": "max-file-size",
}


def _section(page: str, marker: str, next_marker: str | None) -> str:
    start = page.index(marker) + len(marker)
    end = page.index(next_marker, start) if next_marker else len(page)
    return page[start:end].strip()


def _text_outside_fences(page: str) -> str:
    kept: list[str] = []
    open_fence: str | None = None
    for line in page.splitlines():
        match = FENCE_PATTERN.match(line)
        if open_fence is None and match:
            open_fence = match.group(1)
        elif open_fence is not None and match and match.group(1).startswith(open_fence):
            if not match.group(2).strip():
                open_fence = None
        elif open_fence is None:
            kept.append(line)
    return "\n".join(kept)


def _unclosed_fence(page: str) -> str | None:
    open_fence: str | None = None
    for line in page.splitlines():
        match = FENCE_PATTERN.match(line)
        if not match:
            continue
        fence, info = match.group(1), match.group(2).strip()
        if open_fence is None:
            open_fence = fence
        elif fence[0] == open_fence[0] and len(fence) >= len(open_fence) and not info:
            open_fence = None
    return open_fence


def test_every_catalogue_code_has_exactly_one_page():
    pages = {path.stem for path in DOCS_FOLDER.glob("*.md")}
    assert pages == set(ALL_CODES)


@pytest.mark.parametrize("code", ALL_CODES)
def test_page_has_the_five_sections_in_order(code: str):
    page = rule_doc(code)
    assert page.strip(), f"{code} has no documentation"
    positions = [page.find(marker) for marker in SECTION_MARKERS]
    assert -1 not in positions, f"{code} lacks {SECTION_MARKERS[positions.index(-1)]}"
    assert positions == sorted(positions), f"{code} sections are out of order"
    for marker, following in zip(SECTION_MARKERS, [*SECTION_MARKERS[1:], None], strict=True):
        assert _section(page, marker, following), f"{code}: {marker} is empty"


@pytest.mark.parametrize("code", ALL_CODES)
def test_page_has_no_title_line_because_docgen_adds_the_heading(code: str):
    first_line = rule_doc(code).lstrip().splitlines()[0]
    assert first_line == "**What it does**"
    assert not re.search(r"^#{1,6} ", _text_outside_fences(rule_doc(code)), re.MULTILINE)


@pytest.mark.parametrize("code", ALL_CODES)
def test_examples_show_code_before_and_after_use_instead(code: str):
    page = rule_doc(code)
    bad = _section(page, "**Example**", "Use instead:")
    good = _section(page, "Use instead:", "**Fix**")
    assert "```" in bad, f"{code}: the bad example has no code block"
    assert "```" in good, f"{code}: the good example has no code block"


# The only examples meant not to parse are the syntax errors these two rules are about.
UNPARSABLE_ON_PURPOSE = {("FM002", "yaml"), ("MF001", "json")}


@pytest.mark.parametrize("code", ALL_CODES)
def test_yaml_and_json_examples_parse_unless_the_rule_is_about_syntax(code: str):
    broken = set()
    for match in re.finditer(r"^```(json|yaml)\n(.*?)^```$", rule_doc(code), re.S | re.M):
        language, body = match.groups()
        try:
            if language == "json":
                json.loads(body)
            else:
                list(yaml.safe_load_all(body))
        except (ValueError, yaml.YAMLError):
            broken.add((code, language))
    expected = {entry for entry in UNPARSABLE_ON_PURPOSE if entry[0] == code}
    assert broken == expected


@pytest.mark.parametrize("code", ALL_CODES)
def test_every_code_fence_is_closed(code: str):
    assert _unclosed_fence(rule_doc(code)) is None


@pytest.mark.parametrize("code", ALL_CODES)
def test_fix_section_agrees_with_the_catalogue(code: str):
    rule = RULES[code]
    fix_text = _section(rule_doc(code), "**Fix**", "**Options**")
    if rule.fix is None:
        assert fix_text.startswith("None"), f"{code} has no fix in the catalogue"
    else:
        assert fix_text.lower().startswith(rule.fix), f"{code}: the fix is {rule.fix}"


@pytest.mark.parametrize(("code", "option"), sorted(RULE_OPTIONS.items()))
def test_rules_with_options_document_their_config_key(code: str, option: str):
    options_text = _section(rule_doc(code), "**Options**", None)
    assert f"`{option}`" in options_text


@pytest.mark.parametrize("code", sorted(set(ALL_CODES) - set(RULE_OPTIONS)))
def test_rule_specific_keys_appear_only_on_their_own_pages(code: str):
    options_text = _section(rule_doc(code), "**Options**", None)
    foreign = [key for owner, key in RULE_OPTIONS.items() if f"`{key}`" in options_text]
    # OP006 checks the same paths as OP001 and OP002, so it shares their options.
    if code == "OP006":
        assert set(foreign) <= {"generic-project-names", "system-dirs"}
    else:
        assert foreign == []


@pytest.mark.parametrize("code", ALL_CODES)
def test_page_mentions_only_codes_of_the_catalogue(code: str):
    unknown = set(CODE_PATTERN.findall(rule_doc(code))) - set(ALL_CODES)
    assert not unknown


def test_generated_document_mentions_only_codes_of_the_catalogue():
    assert set(CODE_PATTERN.findall(render_rules_markdown())) <= set(ALL_CODES)


def test_docs_rules_md_is_up_to_date():
    assert DEFAULT_OUTPUT.read_text("utf-8") == render_rules_markdown(), (
        "run `python -m easel_ls.rules.docgen`"
    )


@pytest.mark.parametrize("code", ALL_CODES)
def test_rule_url_anchor_exists_in_docs_rules_md(code: str):
    rule = RULES[code]
    anchor = rule.url.rsplit("#", 1)[1]
    document = DEFAULT_OUTPUT.read_text("utf-8")
    assert f'<a id="{anchor}"></a>\n\n## {rule.code} {rule.name}\n' in document


def test_each_rule_heading_and_page_appears_once_in_catalogue_order():
    document = render_rules_markdown()
    positions = []
    for rule in CATALOGUE:
        heading = f"\n## {rule.code} {rule.name}\n"
        assert document.count(heading) == 1
        positions.append(document.index(heading))
        assert rule.doc.strip() in document
    assert positions == sorted(positions)


def test_index_has_one_table_row_per_rule_with_severity_and_fix():
    document = render_rules_markdown()
    for rule in CATALOGUE:
        anchor = rule.url.rsplit("#", 1)[1]
        row = f"| [{rule.code}](#{anchor}) | {rule.name} | {rule.default_severity} |"
        assert document.count(row) == 1, rule.code
    unsafe_row = (
        "| [FM006](#fm006-unknown-key) | unknown-key | warning | unsafe: rename to suggestion |"
    )
    assert unsafe_row in document
    assert "| [FM001](#fm001-frontmatter-missing) | frontmatter-missing | error | — |" in document


def test_document_explains_suppression_and_configuration():
    document = render_rules_markdown()
    for text in (
        "## Suppressing findings",
        "<!-- easel-ls-disable-next-line",
        "<!-- easel-ls-disable ",
        "<!-- easel-ls-enable ",
        "<!-- easel-ls-disable-file ",
        "# easel-ls: ignore[",
        "## Configuration",
        "[tool.easel-ls]",
        "easel-ls.toml",
        ".easel-ls.toml",
    ):
        assert text in document
    for key in (
        "select",
        "ignore",
        "extend-select",
        "per-file-ignores",
        "severity",
        "max-file-size",
        "skill-roots",
        "shared-scripts",
        "outputs-dir",
        *RULE_OPTIONS.values(),
    ):
        assert re.search(rf"^{re.escape(key)} = ", document, re.MULTILINE), key


def test_check_mode_fails_on_a_stale_file_and_passes_after_writing(tmp_path: Path, capsys):
    output = tmp_path / "docs" / "rules.md"
    assert main(["--check", "--output", str(output)]) == 1
    output.parent.mkdir()
    output.write_text("# stale\n", "utf-8")
    assert main(["--check", "--output", str(output)]) == 1
    assert "stale" in capsys.readouterr().err
    assert main(["--output", str(output)]) == 0
    assert output.read_text("utf-8") == render_rules_markdown()
    assert main(["--check", "--output", str(output)]) == 0
