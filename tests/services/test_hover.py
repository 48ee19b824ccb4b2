"""Hover, as the issue asks for it: layer meanings, frontmatter key rules, an option's argparse
help/default/choices and the script line it comes from, `.easel.json` fields from the schema,
and the rule doc behind a code in a suppression comment.

``‸`` marks the cursor in each document."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from easel_ls.config import ConfigResolver
from easel_ls.findings import Range
from easel_ls.model.text import TextDocument
from easel_ls.rules import RULES
from easel_ls.services.context import SCHEMA_DIR
from easel_ls.services.hover import HoverInfo, hover
from easel_ls.spec import KEY_DOCS, LAYERS
from easel_ls.workspace import Workspace

SKILL_DIR = "skills/openclaw/card-maker"
SKILL_PATH = f"{SKILL_DIR}/SKILL.md"
SCRIPT = f"{SKILL_DIR}/scripts/render.py"
MANIFEST = "outputs/spring-picnic/.easel.json"

RENDER_SCRIPT = """import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--verbose", action="store_true", help="更多日志")
sub = parser.add_subparsers(dest="cmd", required=True)
render = sub.add_parser("render", help="渲染卡片")
render.add_argument("--theme", choices=["paper", "mint"], default="paper", help="配色")
render.add_argument("--topic", required=True, help="主题名")
render.add_argument("size", nargs="?", help="卡片尺寸")
parser.parse_args()
"""

FILES = {
    SKILL_PATH: "---\nname: card-maker\nlayer: produce\n---\n# 卡片\n",
    SCRIPT: RENDER_SCRIPT,
    MANIFEST: '{"topic": "spring-picnic"}\n',
}

HEAD = "---\nname: card-maker\nlayer: produce\n---\n# 卡片\n\n"


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    for rel, text in FILES.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    root = tmp_path.resolve()
    return Workspace(root=root, config=ConfigResolver(stop_at=root))


def hover_at(ws: Workspace, rel: str, marked: str) -> HoverInfo | None:
    offset = marked.index("‸")
    doc = TextDocument(ws.root / rel, marked.replace("‸", ""))
    ws.set_overlay(doc)
    return hover(ws, doc, doc.position_at(offset))


def text_at(ws: Workspace, rel: str, marked: str) -> str:
    found = hover_at(ws, rel, marked)
    assert found is not None, f"no hover at {marked!r}"
    return found.markdown


def fenced(command: str) -> str:
    return f"{HEAD}```bash\n{command}\n```\n"


def script_line(needle: str) -> int:
    return next(i for i, text in enumerate(RENDER_SCRIPT.splitlines(), 1) if needle in text)


# --- frontmatter --------------------------------------------------------------------------------


def test_a_layer_value_shows_its_meaning(ws: Workspace) -> None:
    found = hover_at(ws, SKILL_PATH, "---\nname: card-maker\nlayer: pro‸duce\n---\n")
    assert found is not None
    assert LAYERS["produce"] in found.markdown
    assert found.range == Range.of(2, 7, 2, 14)


def test_an_invalid_layer_says_so_and_lists_the_layers(ws: Workspace) -> None:
    text = text_at(ws, SKILL_PATH, "---\nlayer: prodcue‸\n---\n")
    assert "FM008" in text and "`produce`" in text
    assert all(meaning in text for meaning in LAYERS.values())


def test_a_spec_key_shows_its_rule(ws: Workspace) -> None:
    text = text_at(ws, SKILL_PATH, "---\nna‸me: card-maker\n---\n")
    assert KEY_DOCS["name"] in text and "Required (FM004)" in text


@pytest.mark.parametrize(
    ("marked", "code"),
    [
        ("---\nver‸sion: 1.0\n---\n", "FM005"),
        ("---\nmetadata:\n  trig‸ger: 做卡片\n---\n", "FM005"),
        ("---\nlayr‸: plan\n---\n", "FM006"),
    ],
)
def test_forbidden_and_unknown_keys_are_explained(ws: Workspace, marked: str, code: str) -> None:
    assert code in text_at(ws, SKILL_PATH, marked)


def test_an_unknown_key_suggests_the_closest_spec_key(ws: Workspace) -> None:
    assert "did you mean `layer`" in text_at(ws, SKILL_PATH, "---\nlayr‸: plan\n---\n")


def test_openclaw_fields_are_described_from_their_schema(ws: Workspace) -> None:
    schema = json.loads((SCHEMA_DIR / "openclaw-metadata.schema.json").read_text("utf-8"))
    text = text_at(ws, SKILL_PATH, "---\nmetadata:\n  openclaw:\n    requ‸ires:\n---\n")
    requires = schema["properties"]["requires"]
    assert (requires.get("markdownDescription") or requires["description"]) in text


# --- commands -----------------------------------------------------------------------------------


def test_an_option_shows_its_help_default_choices_and_where_it_is_defined(ws: Workspace) -> None:
    command = f"python {SCRIPT} render --th‸eme mint"
    found = hover_at(ws, SKILL_PATH, fenced(command))
    assert found is not None
    text = found.markdown
    assert "配色" in text
    assert "Default: `paper`" in text
    assert "Choices: `paper`, `mint`" in text
    assert f"Defined at `scripts/render.py:{script_line('--theme')}`" in text
    line = HEAD.count("\n") + 1
    start = command.index("--th")
    assert found.range == Range.of(line, start, line, start + len("--theme"))


def test_an_option_value_shows_the_option(ws: Workspace) -> None:
    assert "Choices: `paper`, `mint`" in text_at(
        ws, SKILL_PATH, fenced(f"python {SCRIPT} render --theme mi‸nt")
    )


def test_a_required_option_says_so(ws: Workspace) -> None:
    assert "Required" in text_at(ws, SKILL_PATH, fenced(f"python {SCRIPT} render --to‸pic x"))


def test_a_subcommand_shows_its_help_options_and_line(ws: Workspace) -> None:
    text = text_at(ws, SKILL_PATH, fenced(f"python {SCRIPT} ren‸der --topic x"))
    assert "渲染卡片" in text
    assert "`--theme`" in text and "`--topic`" in text
    assert f"scripts/render.py:{script_line('add_parser(')}" in text


def test_a_parent_option_after_the_subcommand_is_flagged(ws: Workspace) -> None:
    text = text_at(ws, SKILL_PATH, fenced(f"python {SCRIPT} render --verb‸ose"))
    assert "更多日志" in text and "CM007" in text


def test_a_positional_shows_its_help(ws: Workspace) -> None:
    assert "卡片尺寸" in text_at(ws, SKILL_PATH, fenced(f"python {SCRIPT} render 10‸80"))


def test_an_option_in_an_inline_code_span_after_emoji(ws: Workspace) -> None:
    prose = f"😀 用 `python {SCRIPT} render --theme mint` 出图"
    cursor = prose.index("--theme") + 3
    found = hover_at(ws, SKILL_PATH, f"{HEAD}{prose[:cursor]}‸{prose[cursor:]}\n")
    assert found is not None and "配色" in found.markdown
    line = HEAD.count("\n")
    start = prose.index("--theme")
    assert found.range == Range.of(line, start, line, start + len("--theme"))


def test_a_partly_dynamic_parser_says_its_options_may_be_incomplete(ws: Workspace) -> None:
    dynamic = RENDER_SCRIPT.replace(
        "parser.parse_args()",
        "import os\nparser.add_argument(os.environ['FLAG'])\nparser.parse_args()",
    )
    (ws.root / SCRIPT).write_text(dynamic, encoding="utf-8")
    text = text_at(ws, SKILL_PATH, fenced(f"python {SCRIPT} --verb‸ose"))
    assert "更多日志" in text and "other options may exist" in text


# --- suppression comments -----------------------------------------------------------------------


def test_a_code_in_a_suppression_comment_shows_the_rule_doc(ws: Workspace) -> None:
    found = hover_at(ws, SKILL_PATH, f"{HEAD}<!-- easel-ls-disable-next-line RS001, CM0‸02 -->\n")
    assert found is not None
    assert RULES["CM002"].doc in found.markdown
    assert RULES["CM002"].url in found.markdown
    line = HEAD.count("\n")
    start = len("<!-- easel-ls-disable-next-line RS001, ")
    assert found.range == Range.of(line, start, line, start + 5)


def test_a_code_in_an_inline_ignore_shows_the_rule_doc(ws: Workspace) -> None:
    text = text_at(ws, SKILL_PATH, fenced(f"python {SCRIPT} render  # easel-ls: ignore[CM00‸5]"))
    assert RULES["CM005"].doc in text


def test_an_unknown_code_suggests_real_ones(ws: Workspace) -> None:
    assert "not an easel-ls rule code" in text_at(
        ws, SKILL_PATH, f"{HEAD}<!-- easel-ls-disable-next-line CM9‸99 -->\n"
    )


# --- .easel.json --------------------------------------------------------------------------------


def _schema_description(*path: str) -> str:
    schema = json.loads((SCHEMA_DIR / "easel.schema.json").read_text("utf-8"))
    node = schema
    for key in path:
        node = node["properties"][key]
        ref = node.get("items", {}).get("$ref") if node.get("type") == "array" else None
        if ref and key != path[-1]:
            node = schema["$defs"][ref.rsplit("/", 1)[-1]]
    return str(node.get("markdownDescription") or node["description"])


def test_a_manifest_key_shows_its_schema_description(ws: Workspace) -> None:
    found = hover_at(ws, MANIFEST, '{\n  "ki‸nd": "cards"\n}')
    assert found is not None
    assert _schema_description("kind") in found.markdown
    assert "`xhs-note`" in found.markdown
    assert found.range == Range.of(1, 2, 1, 8)


def test_a_step_key_shows_its_schema_description(ws: Workspace) -> None:
    text = text_at(ws, MANIFEST, '{"steps": [{"upst‸ream": []}]}')
    assert _schema_description("steps", "upstream") in text


def test_a_value_outside_the_enum_is_flagged(ws: Workspace) -> None:
    assert "MF002" in text_at(ws, MANIFEST, '{"status": "don‸e"}')
    assert "MF002" not in text_at(ws, MANIFEST, '{"status": "dra‸ft"}')


def test_broken_json_still_hovers(ws: Workspace) -> None:
    assert _schema_description("cover") in text_at(ws, MANIFEST, '{"topic": "x",, "cov‸er": ')


# --- nothing to say -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "marked",
    [
        f"{HEAD}普通的正‸文\n",
        fenced("ls -l‸a"),
        "---\ndescription: >-\n  为小红‸书\n---\n",
    ],
)
def test_prose_and_foreign_commands_have_no_hover(ws: Workspace, marked: str) -> None:
    assert hover_at(ws, SKILL_PATH, marked) is None
