"""Completion, as the issue asks for it: frontmatter keys and layers with the spec's meanings,
commands completed from the script's static argparse model (never run), link targets under
`references/`, rule codes in suppression comments, and `.easel.json` keys, enums and files.

``‸`` marks the cursor in each document."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from easel_ls.config import ConfigResolver
from easel_ls.findings import Position, Range
from easel_ls.model.text import TextDocument
from easel_ls.rules import RULES
from easel_ls.services.completion import CompletionItem, complete
from easel_ls.services.hover import hover
from easel_ls.spec import KEY_DOCS, LAYERS
from easel_ls.workspace import Workspace

SKILL_DIR = "skills/openclaw/card-maker"
SKILL_PATH = f"{SKILL_DIR}/SKILL.md"
SCRIPT = f"{SKILL_DIR}/scripts/render.py"
MANIFEST = "outputs/spring-picnic/.easel.json"

RENDER_SCRIPT = '''"""Render cards."""
import argparse
from pathlib import Path

Path("ran.txt").write_text("the script was run")  # must never happen during completion


def build():
    parser = argparse.ArgumentParser()
    parser.add_argument("--verbose", action="store_true", help="更多日志")
    sub = parser.add_subparsers(dest="cmd", required=True)
    render = sub.add_parser("render", help="渲染卡片")
    render.add_argument("--theme", choices=["paper", "mint"], default="paper",
                        help="配色，默认 %(default)s")
    render.add_argument("--topic", required=True, help="主题名")
    render.add_argument("--tag", action="append", help="标签，可重复")
    fmt = render.add_mutually_exclusive_group()
    fmt.add_argument("--png", action="store_true", help="导出 PNG")
    fmt.add_argument("--pdf", action="store_true", help="导出 PDF")
    sub.add_parser("themes", help="列出主题", aliases=["t"])
    return parser


if __name__ == "__main__":
    build().parse_args()
'''

FILES = {
    SKILL_PATH: "---\nname: card-maker\nlayer: produce\n---\n# 卡片\n",
    SCRIPT: RENDER_SCRIPT,
    f"{SKILL_DIR}/scripts/helpers.sh": "echo hi\n",
    f"{SKILL_DIR}/references/themes.md": "# 配色\n",
    f"{SKILL_DIR}/references/export/png.md": "# PNG\n",
    "skills/shared/scripts/manifest.py": (
        "import argparse\np = argparse.ArgumentParser()\np.add_argument('--topic')\np.parse_args()\n"
    ),
    "skills/shared/scripts/no_cli.py": "print('no argparse here')\n",
    MANIFEST: '{"topic": "spring-picnic"}\n',
    "outputs/spring-picnic/note.md": "正文\n",
    "outputs/spring-picnic/card-1.png": "",
    "outputs/spring-picnic/assets/bg.jpg": "",
    "outputs/spring-picnic/.hidden": "",
}

FENCE_HEAD = "---\nname: card-maker\nlayer: produce\n---\n# 卡片\n\n```bash\n"


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    for rel, text in FILES.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    root = tmp_path.resolve()
    return Workspace(root=root, config=ConfigResolver(stop_at=root))


def complete_at(ws: Workspace, rel: str, marked: str) -> list[CompletionItem]:
    """Completion items for ``marked`` (``‸`` is the cursor) as the text of ``rel``."""
    offset = marked.index("‸")
    doc = TextDocument(ws.root / rel, marked.replace("‸", ""))
    ws.set_overlay(doc)
    return complete(ws, doc, doc.position_at(offset))


def labels(items: list[CompletionItem]) -> list[str]:
    return [item.label for item in items]


def by_label(items: list[CompletionItem], label: str) -> CompletionItem:
    (item,) = [i for i in items if i.label == label]
    return item


def in_fence(command: str) -> str:
    return f"{FENCE_HEAD}{command}\n```\n"


def script_line(ws: Workspace, needle: str) -> int:
    """1-based line of the script that contains ``needle``."""
    lines = (ws.root / SCRIPT).read_text(encoding="utf-8").splitlines()
    return next(i for i, text in enumerate(lines, 1) if needle in text)


# --- frontmatter --------------------------------------------------------------------------------


def test_frontmatter_offers_the_keys_not_yet_written_with_the_spec_meaning(ws: Workspace) -> None:
    items = complete_at(ws, SKILL_PATH, "---\nname: card-maker\n‸\n---\n")
    assert labels(items) == ["description", "layer", "metadata"]
    layer = by_label(items, "layer")
    assert layer.new_text == "layer: "
    assert layer.documentation is not None and KEY_DOCS["layer"] in layer.documentation


def test_a_partial_key_is_replaced_by_the_key(ws: Workspace) -> None:
    items = complete_at(ws, SKILL_PATH, "---\nname: card-maker\nla‸\n---\n")
    assert by_label(items, "layer").range == Range.of(2, 0, 2, 2)


def test_layer_values_carry_the_layer_meanings(ws: Workspace) -> None:
    items = complete_at(ws, SKILL_PATH, "---\nname: card-maker\nlayer: pro‸\n---\n")
    assert labels(items) == list(LAYERS)
    produce = by_label(items, "produce")
    assert produce.range == Range.of(2, 7, 2, 10)
    assert produce.documentation is not None and LAYERS["produce"] in produce.documentation


def test_a_quoted_layer_value_is_replaced_inside_its_quotes(ws: Workspace) -> None:
    items = complete_at(ws, SKILL_PATH, '---\nlayer: "pl‸"\n---\n')
    assert by_label(items, "plan").range == Range.of(1, 8, 1, 10)


def test_metadata_offers_openclaw_and_then_its_schema_fields(ws: Workspace) -> None:
    assert labels(complete_at(ws, SKILL_PATH, "---\nmetadata:\n  ‸\n---\n")) == ["openclaw"]
    nested = complete_at(
        ws, SKILL_PATH, "---\nmetadata:\n  openclaw:\n    os: [linux]\n    ‸\n---\n"
    )
    assert "requires" in labels(nested) and "install" in labels(nested)
    assert "os" not in labels(nested)


def test_the_continuation_of_a_block_scalar_offers_nothing(ws: Workspace) -> None:
    assert (
        complete_at(ws, SKILL_PATH, "---\ndescription: >-\n  为小红书‸\nlayer: plan\n---\n") == []
    )


# --- commands -----------------------------------------------------------------------------------


def test_after_the_script_come_its_subcommands_with_help_and_the_main_options(
    ws: Workspace,
) -> None:
    items = complete_at(ws, SKILL_PATH, in_fence(f"python {SCRIPT} ‸"))
    assert labels(items)[:2] == ["render", "themes"]  # aliases are not offered twice
    assert "t" not in labels(items)
    render = by_label(items, "render")
    assert render.detail == "渲染卡片"
    assert render.documentation is not None
    defined = script_line(ws, 'add_parser("render"')
    assert f"scripts/render.py:{defined}" in render.documentation
    assert "--verbose" in labels(items)
    assert "--theme" not in labels(items)


def test_after_a_subcommand_come_its_own_options_only(ws: Workspace) -> None:
    items = complete_at(ws, SKILL_PATH, in_fence(f"python {SCRIPT} render ‸"))
    assert {"--theme", "--topic", "--tag", "--png", "--pdf", "--help"} <= set(labels(items))
    assert "--verbose" not in labels(items)


def test_a_partial_option_is_replaced_and_documented_from_argparse(ws: Workspace) -> None:
    command = f"python {SCRIPT} render --th‸"
    items = complete_at(ws, SKILL_PATH, in_fence(command))
    theme = by_label(items, "--theme")
    line = FENCE_HEAD.count("\n")
    start = command.index("--th")
    assert theme.range == Range.of(line, start, line, start + 4)
    assert theme.new_text == "--theme"
    assert theme.detail == "配色，默认 paper"
    doc = theme.documentation or ""
    assert "Default: `paper`" in doc
    assert "Choices: `paper`, `mint`" in doc
    defined = script_line(ws, '"--theme"')
    assert f"Defined at `scripts/render.py:{defined}`" in doc


def test_the_whole_word_is_replaced_when_the_cursor_is_inside_it(ws: Workspace) -> None:
    command = f"python {SCRIPT} render --th‸eme paper"
    items = complete_at(ws, SKILL_PATH, in_fence(command))
    start = command.index("--th")
    assert by_label(items, "--theme").range.end.character == start + len("--theme")


def test_given_options_are_not_offered_again_unless_they_repeat(ws: Workspace) -> None:
    items = complete_at(ws, SKILL_PATH, in_fence(f"python {SCRIPT} render --topic x --tag a ‸"))
    assert "--topic" not in labels(items)
    assert "--tag" in labels(items)  # action="append"


def test_a_mutually_exclusive_partner_is_not_offered(ws: Workspace) -> None:
    items = complete_at(ws, SKILL_PATH, in_fence(f"python {SCRIPT} render --png ‸"))
    assert "--pdf" not in labels(items)
    assert "--png" not in labels(items)


def test_after_an_option_with_choices_only_the_choices_are_offered(ws: Workspace) -> None:
    items = complete_at(ws, SKILL_PATH, in_fence(f"python {SCRIPT} render --theme ‸"))
    assert labels(items) == ["paper", "mint"]


def test_choices_after_an_equals_sign_replace_only_the_value(ws: Workspace) -> None:
    command = f"python {SCRIPT} render --theme=mi‸"
    items = complete_at(ws, SKILL_PATH, in_fence(command))
    value_start = command.index("=") + 1
    mint = by_label(items, "mint")
    assert (mint.range.start.character, mint.range.end.character) == (value_start, value_start + 2)


def test_nothing_is_offered_after_the_command_ends(ws: Workspace) -> None:
    assert complete_at(ws, SKILL_PATH, in_fence(f"python {SCRIPT} themes && ‸")) == []


def test_a_script_without_argparse_or_missing_offers_no_arguments(ws: Workspace) -> None:
    assert complete_at(ws, SKILL_PATH, in_fence("python skills/shared/scripts/no_cli.py ‸")) == []
    assert complete_at(ws, SKILL_PATH, in_fence("python skills/shared/scripts/gone.py ‸")) == []


def test_completion_never_runs_the_script(ws: Workspace) -> None:
    complete_at(ws, SKILL_PATH, in_fence(f"python {SCRIPT} render ‸"))
    assert not (ws.root / "ran.txt").exists()
    assert not (Path.cwd() / "ran.txt").exists()


def test_script_paths_are_offered_as_the_command_writes_them(ws: Workspace) -> None:
    root_form = complete_at(ws, SKILL_PATH, in_fence("python skills/‸"))
    assert labels(root_form) == [SCRIPT, "skills/shared/scripts/manifest.py",
                                 "skills/shared/scripts/no_cli.py"]  # fmt: skip
    placeholder = complete_at(ws, SKILL_PATH, in_fence("python {baseDir}/scripts/r‸"))
    assert labels(placeholder) == ["{baseDir}/scripts/render.py"]
    skill_form = complete_at(ws, SKILL_PATH, in_fence("python scripts/‸"))
    assert labels(skill_form) == ["scripts/render.py"]
    shell = complete_at(ws, SKILL_PATH, in_fence(f"bash {SKILL_DIR}/scripts/h‸"))
    assert labels(shell) == [f"{SKILL_DIR}/scripts/helpers.sh"]


def test_a_launcher_without_a_script_yet_offers_script_paths(ws: Workspace) -> None:
    items = complete_at(ws, SKILL_PATH, in_fence("python3 ‸"))
    assert SCRIPT in labels(items)
    line = FENCE_HEAD.count("\n")
    assert items[0].range == Range(Position(line, 8), Position(line, 8))


def test_an_unclosed_code_span_after_cjk_and_emoji_is_completed(ws: Workspace) -> None:
    prose = f"😀 出图用 `python {SCRIPT} render --t"
    items = complete_at(ws, SKILL_PATH, f"{FENCE_HEAD[:-8]}{prose}‸\n")
    topic = by_label(items, "--topic")
    line = FENCE_HEAD[:-8].count("\n")
    start = prose.index("--t")  # code points: the emoji counts once
    assert topic.range == Range.of(line, start, line, start + 3)


def test_a_command_in_a_reference_file_is_completed_too(ws: Workspace) -> None:
    items = complete_at(ws, f"{SKILL_DIR}/references/themes.md", f"# 配色\n\n`python {SCRIPT} ‸`\n")
    assert "render" in labels(items)


def test_a_fence_deep_in_a_list_item_is_completed_with_its_columns(ws: Workspace) -> None:
    # The fence sits 5 columns in (list item content), past where an indented block would start.
    head = "---\nname: card-maker\nlayer: produce\n---\n# 卡片\n\n1.   步骤：\n\n     ```bash\n"
    command = f"     python {SCRIPT} render --th‸"
    items = complete_at(ws, SKILL_PATH, f"{head}{command}\n     ```\n")
    line = head.count("\n")
    start = command.index("--th")
    assert by_label(items, "--theme").range == Range.of(line, start, line, start + 4)


def test_a_fence_in_a_blockquote_is_completed(ws: Workspace) -> None:
    items = complete_at(ws, SKILL_PATH, f"# 卡片\n\n> ```bash\n> python {SCRIPT} ‸\n> ```\n")
    assert "render" in labels(items)


def test_indented_code_and_other_languages_are_not_commands(ws: Workspace) -> None:
    indented = f"# 卡片\n\n    python {SCRIPT} ‸\n"
    other = f"# 卡片\n\n```text\npython {SCRIPT} ‸\n```\n"
    opening = "# 卡片\n\n```bash‸\n```\n"
    # Fence markers inside an indented code block are code too (not the start of a fence).
    quoted_markers = f"# 卡片\n\n    ```bash\n    python {SCRIPT} ‸\n    ```\n"
    assert complete_at(ws, SKILL_PATH, quoted_markers) == []
    assert complete_at(ws, SKILL_PATH, indented) == []
    assert complete_at(ws, SKILL_PATH, other) == []
    assert complete_at(ws, SKILL_PATH, opening) == []


# --- links and suppression comments -------------------------------------------------------------


def test_link_targets_are_the_files_under_references(ws: Workspace) -> None:
    items = complete_at(ws, SKILL_PATH, f"{FENCE_HEAD[:-8]}见 [配色](references/‸)\n")
    assert labels(items) == ["references/themes.md", "references/export/png.md"]
    line = FENCE_HEAD[:-8].count("\n")
    start = len("见 [配色](")
    assert items[0].range == Range.of(line, start, line, start + len("references/"))


def test_links_from_a_reference_file_are_relative_to_it(ws: Workspace) -> None:
    items = complete_at(ws, f"{SKILL_DIR}/references/themes.md", "# 配色\n\n见 [PNG](‸)\n")
    assert labels(items) == ["export/png.md"]


def test_suppression_comments_offer_rule_codes_with_their_docs(ws: Workspace) -> None:
    items = complete_at(
        ws, SKILL_PATH, f"{FENCE_HEAD[:-8]}<!-- easel-ls-disable-next-line CM‸ -->\n"
    )
    assert labels(items) == sorted(RULES)
    cm002 = by_label(items, "CM002")
    assert cm002.documentation is not None and RULES["CM002"].doc in cm002.documentation
    inline = complete_at(ws, SKILL_PATH, in_fence(f"python {SCRIPT} themes  # easel-ls: ignore[‸"))
    assert "CM002" in labels(inline)


# --- .easel.json --------------------------------------------------------------------------------


def test_manifest_keys_not_yet_written_come_from_the_schema(ws: Workspace) -> None:
    items = complete_at(ws, MANIFEST, '{"topic": "spring-picnic", "ki‸')
    assert "topic" not in labels(items)
    kind = by_label(items, "kind")
    assert kind.new_text == '"kind": '
    assert kind.range == Range.of(0, 27, 0, 30)  # the partial key, its quote included
    assert kind.filter_text == '"kind"'


def test_step_keys_inside_steps(ws: Workspace) -> None:
    items = complete_at(ws, MANIFEST, '{"steps": [{"layer": "plan", ‸}]}')
    assert labels(items) == ["skill", "at", "status", "outputs", "upstream", "summary"]


@pytest.mark.parametrize(
    ("marked", "expected"),
    [
        ('{"kind": "‸"}', ["article", "xhs-note", "video", "cards", "poster", "audio", "other"]),
        ('{"status": ‸', ["draft", "ready", "published"]),
        ('{"steps": [{"layer": "‸"}]}', list(LAYERS)),
        ('{"steps": [{"status": "f‸', ["done", "failed"]),
    ],
)
def test_manifest_enum_values(ws: Workspace, marked: str, expected: list[str]) -> None:
    items = complete_at(ws, MANIFEST, marked)
    assert labels(items) == expected
    assert items[0].new_text == f'"{expected[0]}"'


def test_a_value_is_completed_for_its_own_key_not_a_later_one(ws: Workspace) -> None:
    items = complete_at(ws, MANIFEST, '{\n  "kind": "‸",\n  "cover": ""\n}')
    assert "xhs-note" in labels(items)
    assert "card-1.png" not in labels(items)


def test_deliverables_are_project_root_files_not_yet_listed(ws: Workspace) -> None:
    items = complete_at(ws, MANIFEST, '{"deliverables": ["card-1.png", ‸]}')
    assert labels(items) == ["note.md"]


def test_cover_offers_the_project_images_and_videos(ws: Workspace) -> None:
    items = complete_at(ws, MANIFEST, '{\n  "cover": "‸"\n}')
    assert labels(items) == ["card-1.png", "assets/bg.jpg"]
    assert items[0].range == Range.of(1, 11, 1, 13)  # the whole string, both quotes


def test_outside_any_known_place_nothing_is_offered(ws: Workspace) -> None:
    assert complete_at(ws, MANIFEST, '‸{"topic": "spring-picnic"}') == []
    assert complete_at(ws, SKILL_PATH, f"{FENCE_HEAD[:-8]}普通的正文‸\n") == []
    assert complete_at(ws, MANIFEST, '{"topic": "spring-picnic"‸}') == []


# --- speed --------------------------------------------------------------------------------------


def test_completion_on_a_200_line_skill_is_fast_while_typing(ws: Workspace) -> None:
    prose = "".join(f"第 {i} 行说明，见 `references/themes.md`。\n" for i in range(190))
    complete_at(ws, SKILL_PATH, f"{FENCE_HEAD}python {SCRIPT} render --‸\n```\n{prose}")
    timings = []
    for typed in ("t", "th", "the", "them", "theme"):  # every keystroke is a new text
        marked = f"{FENCE_HEAD}python {SCRIPT} render --{typed}‸\n```\n{prose}"
        started = time.perf_counter()
        items = complete_at(ws, SKILL_PATH, marked)
        timings.append(time.perf_counter() - started)
        assert "--theme" in labels(items)
    assert min(timings) < 0.020


# --- robustness ---------------------------------------------------------------------------------

FRAGMENTS = [
    "---\n", "name: x\n", "layer:", " ", "\n", "`", "```bash\n", "```\n", "python ", SCRIPT,
    " render", " --theme", "=", " --", "-", '"', "'", "{", "}", "[", "]", ":", ",", "\\\n",
    "[a](references/", ")", "<!-- easel-ls-disable-next-line ", "CM002", "-->", "😀", "主题",
    "metadata:\n  ", "openclaw:\n    ", '{"steps": [{', '"kind": ', "  # easel-ls: ignore[", "\r\n",
]  # fmt: skip


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    pieces=st.lists(st.sampled_from(FRAGMENTS), max_size=24),
    rel=st.sampled_from([SKILL_PATH, MANIFEST, f"{SKILL_DIR}/references/themes.md"]),
)
def test_any_text_at_any_position_never_raises(ws: Workspace, pieces: list[str], rel: str) -> None:
    doc = TextDocument(ws.root / rel, "".join(pieces))
    ws.set_overlay(doc)
    for line in range(doc.line_count):
        for character in range(len(doc.line_text(line)) + 1):
            pos = Position(line, character)
            for item in complete(ws, doc, pos):
                assert item.range.start <= pos <= item.range.end
                assert item.range.start.line == item.range.end.line == line
            hover(ws, doc, pos)


def test_a_word_continued_over_a_line_break_gets_no_multi_line_edit(ws: Workspace) -> None:
    doc = TextDocument(ws.root / SKILL_PATH, "layer:```bash\n\\\npython ```bash\n")
    ws.set_overlay(doc)
    for line in range(doc.line_count):
        for character in range(len(doc.line_text(line)) + 1):
            for item in complete(ws, doc, Position(line, character)):
                assert item.range.start.line == item.range.end.line
