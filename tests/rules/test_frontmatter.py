"""FM — SKILL.md frontmatter: what each rule flags, where, its fixes, and the look-alikes it spares.

Positions are 0-based lines and 0-based code-point columns; line 0 is the opening `---`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from easel_ls.findings import Applicability, Finding
from easel_ls.fixes import apply_edits
from easel_ls.model.text import TextDocument

SKILL = "skills/openclaw/card-maker/SKILL.md"
NEIGHBOUR = "skills/openclaw/xhs-note-plan/SKILL.md"

BODY = """
# 卡片制作 🎨

## 输入

- 主题：`outputs/<主题>/` 下已有的笔记文案。

## 输出（写入 outputs/<主题>/）

- 一组 PNG 卡片。

## 执行步骤

1. 读取笔记，按画像配色排版。

## Profile 感知

- 有 `=== EASEL ACCOUNT PROFILE ===` 时按画像配色。
"""

# A description that satisfies every FM rule: Chinese, trigger, boundary, a real neighbour.
DESCRIPTION = """\
description: >-
  把小红书笔记文案做成一组图文卡片 🎨：按画像配色排版封面和内页，导出 PNG 到项目根目录。
  适用场景：用户说“做卡片”“出图”。不负责写文案，文案请用 `xhs-note-plan`。
"""

GOOD = f"name: card-maker\n{DESCRIPTION}layer: produce\n"
LAYER_LINE = 5  # `layer: produce` in GOOD (line 0 is `---`)
AFTER = 6  # the first line of a key appended to GOOD
NEIGHBOUR_TEXT = f"---\nname: xhs-note-plan\n{DESCRIPTION}layer: plan\n---\n{BODY}"

Lint = Callable[..., list[Finding]]


def skill_text(frontmatter: str) -> str:
    return f"---\n{frontmatter}---\n{BODY}"


@pytest.fixture
def lint(make_workspace, check) -> Lint:
    """FM findings for a SKILL.md whose frontmatter is ``frontmatter`` (text between the fences)."""

    def run(
        frontmatter: str | None = None,
        *,
        text: str | None = None,
        folder: str = "card-maker",
        extra: dict[str, str] | None = None,
    ) -> list[Finding]:
        path = f"skills/openclaw/{folder}/SKILL.md"
        content = text if text is not None else skill_text(frontmatter or "")
        ws = make_workspace({path: content, NEIGHBOUR: NEIGHBOUR_TEXT, **(extra or {})})
        return [f for f in check(ws, path) if f.code.startswith("FM")]

    return run


def where(finding: Finding) -> tuple[int, int, int, int]:
    r = finding.range
    return (r.start.line, r.start.character, r.end.line, r.end.character)


def codes(findings: list[Finding]) -> list[str]:
    return [f.code for f in findings]


def fixed(text: str, finding: Finding, title: str) -> str:
    fix = next(f for f in finding.fixes if f.title == title)
    doc = TextDocument(Path("/ws") / SKILL, text)
    return apply_edits(doc, [e for e in fix.edits if e.path.name == "SKILL.md"])


def test_a_spec_conforming_frontmatter_is_clean(lint: Lint) -> None:
    assert lint(GOOD) == []


# -- FM001 frontmatter-missing ---------------------------------------------------------------


def test_fm001_file_without_frontmatter_is_flagged_on_line_1(lint: Lint) -> None:
    findings = lint(text="# 卡片制作\n\n## 输入\n")
    assert codes(findings) == ["FM001"]
    assert where(findings[0]) == (0, 0, 0, len("# 卡片制作"))


def test_fm001_frontmatter_never_closed_is_flagged_at_the_opening_fence(lint: Lint) -> None:
    findings = lint(text="---\nname: card-maker\nlayer: produce\n\n# 卡片制作\n")
    assert codes(findings) == ["FM001"]
    assert where(findings[0]) == (0, 0, 0, 3)
    assert "never closed" in findings[0].message


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("\ufeff" + skill_text(GOOD), id="utf8-bom"),
        pytest.param(skill_text(GOOD).replace("\n", "\r\n"), id="crlf"),
        pytest.param(skill_text(GOOD).replace("---\n#", "...\n#", 1), id="yaml-document-end"),
        pytest.param(skill_text(GOOD) + "\n---\n\n尾注\n", id="thematic-break-in-body"),
    ],
)
def test_fm001_spares_frontmatter_with_bom_crlf_or_dots_end(lint: Lint, text: str) -> None:
    assert lint(text=text) == []


# -- FM002 frontmatter-invalid-yaml ----------------------------------------------------------


def test_fm002_unquoted_colon_space_points_at_the_colon_and_explains(lint: Lint) -> None:
    frontmatter = "name: card-maker\ndescription: 🎨卡片用法: 做卡片\nlayer: produce\n"
    findings = lint(frontmatter)
    assert codes(findings) == ["FM002"]
    # "description: " is 13 code points, "🎨卡片用法" 5 more: the `:` is column 18.
    assert where(findings[0]) == (2, 18, 2, 19)
    assert findings[0].help is not None
    assert "`: `" in findings[0].help and "block scalar" in findings[0].help


def test_fm002_plain_usage_line_from_the_brief(lint: Lint) -> None:
    findings = lint("name: card-maker\ndescription: 用法: xxx\nlayer: produce\n")
    assert codes(findings) == ["FM002"]
    assert where(findings[0])[:2] == (2, len("description: 用法"))
    assert findings[0].help is not None and "`: `" in findings[0].help


def test_fm002_other_yaml_errors_carry_no_colon_hint(lint: Lint) -> None:
    findings = lint('name: card-maker\ndescription: "没有闭合的引号\nlayer: produce\n')
    assert codes(findings) == ["FM002"]
    assert findings[0].help is None


@pytest.mark.parametrize(
    "description",
    [
        pytest.param('description: "用法: 做卡片，用于出图"\n', id="double-quoted"),
        pytest.param("description: '用法: 做卡片，用于出图'\n", id="single-quoted"),
        pytest.param("description: 用法：做卡片，用于出图\n", id="full-width-colon"),
        pytest.param("description: 每天 10:30 用于出图\n", id="colon-without-space"),
        pytest.param("description: >-\n  用法: 做卡片，用于出图\n", id="folded-block"),
        pytest.param("description: |\n  用法: 做卡片\n  用于出图\n", id="literal-block"),
    ],
)
def test_fm002_spares_colons_yaml_accepts(lint: Lint, description: str) -> None:
    assert "FM002" not in codes(lint(f"name: card-maker\n{description}layer: produce\n"))


# -- FM003 frontmatter-not-mapping -----------------------------------------------------------


def test_fm003_frontmatter_that_is_a_list(lint: Lint) -> None:
    findings = lint("- name: card-maker\n- layer: produce\n")
    assert codes(findings) == ["FM003"]
    assert where(findings[0])[:2] == (1, 0)
    assert "a list" in findings[0].message


def test_fm003_frontmatter_that_is_a_scalar(lint: Lint) -> None:
    findings = lint("把笔记做成卡片\n")
    assert codes(findings) == ["FM003"]
    assert "a scalar" in findings[0].message


# -- FM004 required-key-missing --------------------------------------------------------------


def test_fm004_missing_layer_offers_an_unsafe_skeleton_before_the_closing_fence(lint: Lint) -> None:
    frontmatter = f"name: card-maker\n{DESCRIPTION}"
    findings = lint(frontmatter)
    assert codes(findings) == ["FM004"]
    assert where(findings[0]) == (0, 0, 0, 3)
    assert "`layer`" in findings[0].message
    [fix] = findings[0].fixes
    assert fix.title == "Insert `layer` key"
    assert fix.applicability is Applicability.UNSAFE
    text = skill_text(frontmatter)
    assert fixed(text, findings[0], fix.title) == skill_text(frontmatter + "layer: general\n")


def test_fm004_missing_name_skeleton_uses_the_folder_name(lint: Lint) -> None:
    frontmatter = f"{DESCRIPTION}layer: produce\n"
    [finding] = lint(frontmatter)
    assert finding.code == "FM004"
    text = skill_text(frontmatter)
    assert fixed(text, finding, "Insert `name` key") == skill_text(
        frontmatter + "name: card-maker\n"
    )


def test_fm004_empty_values_are_flagged_at_their_keys(lint: Lint) -> None:
    findings = lint('name: card-maker\ndescription: ""\nlayer:\n')
    assert [(f.code, where(f)) for f in findings] == [
        ("FM004", (2, 0, 2, 11)),
        ("FM004", (3, 0, 3, 5)),
    ]


# -- FM005 forbidden-key ---------------------------------------------------------------------


def test_fm005_forbidden_top_level_key_with_remove_and_move_fixes(lint: Lint) -> None:
    frontmatter = GOOD + "version: 1.0.0\n"
    [finding] = lint(frontmatter)
    assert finding.code == "FM005"
    assert where(finding) == (AFTER, 0, AFTER, len("version"))
    assert [(f.title, f.applicability) for f in finding.fixes] == [
        ("Remove `version`", Applicability.UNSAFE),
        ("Move `version` into EASEL-META.md", Applicability.UNSAFE),
    ]
    text = skill_text(frontmatter)
    assert fixed(text, finding, "Remove `version`") == skill_text(GOOD)
    move = finding.fixes[1]
    [created] = move.creates
    assert created.path.name == "EASEL-META.md"
    assert created.path.parent.name == "card-maker"
    assert "version: 1.0.0" in created.content


def test_fm005_removing_a_block_list_removes_all_its_lines(lint: Lint) -> None:
    frontmatter = GOOD + "tags:\n  - 小红书\n  - 卡片\n"
    [finding] = lint(frontmatter)
    assert finding.code == "FM005"
    assert fixed(skill_text(frontmatter), finding, "Remove `tags`") == skill_text(GOOD)


def test_fm005_move_appends_to_an_existing_easel_meta(lint: Lint) -> None:
    frontmatter = GOOD + "self_developed: true\n"
    meta = "skills/openclaw/card-maker/EASEL-META.md"
    [finding] = lint(frontmatter, extra={meta: "# EASEL-META\n"})
    move = next(f for f in finding.fixes if f.title.startswith("Move"))
    assert move.creates == ()
    appended = next(e for e in move.edits if e.path.name == "EASEL-META.md")
    assert "self_developed: true" in appended.new_text


@pytest.mark.parametrize("key", ["trigger", "impl", "source"])
def test_fm005_forbidden_metadata_keys_are_flagged_at_the_nested_key(lint: Lint, key: str) -> None:
    frontmatter = GOOD + f"metadata:\n  {key}: 做卡片\n"
    [finding] = lint(frontmatter)
    assert finding.code == "FM005"
    assert where(finding) == (AFTER + 1, 2, AFTER + 1, 2 + len(key))
    assert f"metadata.{key}" in finding.message


@pytest.mark.parametrize(
    "key", ["version", "profile_aware", "self_developed", "allowed-tools", "tags"]
)
def test_fm005_every_forbidden_key(lint: Lint, key: str) -> None:
    assert codes(lint(GOOD + f"{key}: x\n")) == ["FM005"]


def test_fm005_spares_the_word_version_inside_the_description(lint: Lint) -> None:
    frontmatter = GOOD.replace("导出 PNG", "导出 version 2 的 PNG")
    assert lint(frontmatter) == []


# -- FM006 unknown-key -----------------------------------------------------------------------


def test_fm006_typo_key_suggests_and_renames(lint: Lint) -> None:
    frontmatter = GOOD.replace("name: card-maker", "nmae: card-maker")
    findings = lint(frontmatter)
    assert codes(findings) == ["FM004", "FM006"]
    unknown = findings[1]
    assert where(unknown) == (1, 0, 1, 4)
    assert unknown.help == "did you mean `name`?"
    [fix] = unknown.fixes
    assert (fix.title, fix.applicability) == ("Rename `nmae` to `name`", Applicability.UNSAFE)
    assert fixed(skill_text(frontmatter), unknown, fix.title) == skill_text(GOOD)


def test_fm006_unknown_metadata_key_suggests_openclaw(lint: Lint) -> None:
    findings = lint(GOOD + "metadata:\n  openclwa:\n    os: [darwin]\n")
    assert codes(findings) == ["FM006"]
    assert where(findings[0]) == (AFTER + 1, 2, AFTER + 1, 10)
    assert findings[0].help == "did you mean `openclaw`?"


def test_fm006_offers_no_rename_onto_a_key_written_later(lint: Lint) -> None:
    # Renaming `nmae` to `name` would make `name` a duplicate (FM007) and YAML drop a value.
    frontmatter = GOOD.replace("name: card-maker", "nmae: card-maker\nname: card-maker")
    [unknown] = [f for f in lint(frontmatter) if f.code == "FM006"]
    assert unknown.help == "did you mean `name`?"
    assert unknown.fixes == []
    nested = lint(GOOD + "metadata:\n  openclwa: {}\n  openclaw:\n    os: [darwin]\n")
    [unknown] = [f for f in nested if f.code == "FM006"]
    assert unknown.fixes == []


def test_fm006_unrelated_key_has_no_suggestion(lint: Lint) -> None:
    [finding] = lint(GOOD + "作者: 小林\n")
    assert finding.code == "FM006"
    assert finding.help is None and finding.fixes == []


# -- FM007 duplicate-key ---------------------------------------------------------------------


def test_fm007_second_occurrence_is_flagged_with_the_first_as_related(lint: Lint) -> None:
    findings = lint(GOOD + "layer: plan\n")
    assert codes(findings) == ["FM007"]
    assert where(findings[0]) == (AFTER, 0, AFTER, 5)
    [related] = findings[0].related
    assert related.path.name == "SKILL.md"
    assert (related.range.start.line, related.range.start.character) == (LAYER_LINE, 0)
    assert related.message == "first defined here"


def test_fm007_same_key_under_different_parents_is_not_a_duplicate(lint: Lint) -> None:
    frontmatter = GOOD + (
        "metadata:\n  openclaw:\n    os: [darwin]\n"
        "    install:\n      - kind: brew\n        os: [darwin]\n        formula: ffmpeg\n"
    )
    assert lint(frontmatter) == []


# -- FM008 invalid-layer ---------------------------------------------------------------------


def test_fm008_invalid_layer_offers_every_value_closest_first(lint: Lint) -> None:
    frontmatter = GOOD.replace("layer: produce", "layer: publsh")
    [finding] = lint(frontmatter)
    assert finding.code == "FM008"
    assert where(finding) == (LAYER_LINE, 7, LAYER_LINE, 13)
    titles = [f.title for f in finding.fixes]
    assert titles[0] == "Set layer to `publish`"
    assert sorted(titles) == sorted(
        f"Set layer to `{v}`"
        for v in ("discover", "plan", "produce", "publish", "attribute", "general")
    )
    assert all(f.applicability is Applicability.UNSAFE for f in finding.fixes)
    expected = skill_text(GOOD.replace("layer: produce", "layer: publish"))
    assert fixed(skill_text(frontmatter), finding, titles[0]) == expected


def test_fm008_on_an_alias_points_at_the_alias_and_its_fix_keeps_the_anchor(lint: Lint) -> None:
    # Composing shares the anchored node: the finding (and its fix) must be where `*l` is
    # written, not at `&l publsh` (rewriting that would delete the anchor and break the YAML).
    frontmatter = f"name: card-maker\nx-stage: &l publsh\n{DESCRIPTION}layer: *l\n"
    [finding] = [f for f in lint(frontmatter) if f.code == "FM008"]
    layer_line = LAYER_LINE + 1  # one key was added above it
    assert where(finding) == (layer_line, 7, layer_line, 9)
    repaired = fixed(skill_text(frontmatter), finding, "Set layer to `publish`")
    assert "x-stage: &l publsh\n" in repaired and "layer: publish\n" in repaired
    loaded = yaml.safe_load(repaired.split("---")[1])
    assert loaded["layer"] == "publish" and loaded["x-stage"] == "publsh"


def test_fm008_a_list_of_layers_is_flagged(lint: Lint) -> None:
    [finding] = lint(GOOD.replace("layer: produce", "layer: [plan, produce]"))
    assert finding.code == "FM008"


@pytest.mark.parametrize(
    "layer", ["discover", "plan", "produce", "publish", "attribute", "general", "'plan'"]
)
def test_fm008_spares_every_valid_layer(lint: Lint, layer: str) -> None:
    assert lint(GOOD.replace("layer: produce", f"layer: {layer}  # 流水线阶段")) == []


# -- FM009 name-mismatch / FM010 name-format -------------------------------------------------


def test_fm009_name_differs_from_folder_with_a_safe_fix(lint: Lint) -> None:
    frontmatter = GOOD.replace("name: card-maker", "name: cards-maker")
    [finding] = lint(frontmatter)
    assert finding.code == "FM009"
    assert where(finding) == (1, 6, 1, 6 + len("cards-maker"))
    [fix] = finding.fixes
    assert (fix.title, fix.applicability) == ("Set name to `card-maker`", Applicability.SAFE)
    assert fixed(skill_text(frontmatter), finding, fix.title) == skill_text(GOOD)


def test_fm010_name_not_kebab_case_matching_its_folder(lint: Lint) -> None:
    frontmatter = GOOD.replace("name: card-maker", "name: Card_Maker")
    [finding] = lint(frontmatter, folder="Card_Maker")
    assert finding.code == "FM010"
    assert where(finding) == (1, 6, 1, 16)


def test_fm010_name_over_64_characters(lint: Lint) -> None:
    long_name = "-".join(["card"] * 13)  # 64 code points
    assert len(long_name) == 64
    assert lint(GOOD.replace("card-maker", long_name, 1), folder=long_name) == []
    longer = long_name + "s"
    [finding] = lint(GOOD.replace("card-maker", longer, 1), folder=longer)
    assert finding.code == "FM010"
    assert "65 characters" in finding.message


def test_fm009_and_fm010_both_fire_for_a_chinese_name(lint: Lint) -> None:
    findings = lint(GOOD.replace("name: card-maker", "name: 卡片-maker"))
    assert codes(findings) == ["FM009", "FM010"]


@pytest.mark.parametrize("name", ["xhs-note-2", "a", "3d-cards"])
def test_fm010_spares_digits_and_single_words(lint: Lint, name: str) -> None:
    assert lint(GOOD.replace("card-maker", name, 1), folder=name) == []


# -- FM011..FM014 description ----------------------------------------------------------------


def test_fm011_fm012_english_description_without_trigger(lint: Lint) -> None:
    description = (
        "description: Make 🎨 cards from xhs notes, not copywriting: see `xhs-note-plan`\n"
    )
    description = description.replace(": see", " see")
    findings = lint(f"name: card-maker\n{description}layer: produce\n")
    assert codes(findings) == ["FM011", "FM012", "FM014"]
    assert where(findings[0])[:2] == (2, len("description: "))
    assert "0 % CJK" in findings[0].message


def test_fm011_spares_chinese_with_english_product_words(lint: Lint) -> None:
    frontmatter = GOOD.replace("导出 PNG", "用 Pillow 和 Playwright 导出 PNG 与 WebP")
    assert lint(frontmatter) == []


def test_fm012_spares_用于_as_trigger_wording(lint: Lint) -> None:
    frontmatter = GOOD.replace("适用场景：用户说", "用于用户提到")
    assert "FM012" not in codes(lint(frontmatter))


def test_fm013_description_without_boundary_is_info(lint: Lint) -> None:
    frontmatter = GOOD.replace(
        "不负责写文案，文案请用 `xhs-note-plan`。",
        "出图前会先预览排版效果，确认配色、字号与留白都合适后再批量导出。",
    )
    findings = lint(frontmatter)
    assert codes(findings) == ["FM013"]
    assert findings[0].severity.word == "info"
    assert where(findings[0]) == (2, 13, 4, len(frontmatter.splitlines()[3]))


def test_fm013_naming_an_existing_neighbour_is_a_boundary(lint: Lint) -> None:
    frontmatter = GOOD.replace(
        "不负责写文案，文案请用 `xhs-note-plan`。", "上游文案来自 `xhs-note-plan` 的笔记。"
    )
    assert lint(frontmatter) == []


@pytest.mark.parametrize(
    "boundary",
    [
        pytest.param("分镜由 xhs-note-plan 先写好。", id="bare-neighbour-name"),
        pytest.param("文案改用对应的写作 SKILL。", id="skills-by-kind"),
        pytest.param("发布委派给各平台的发布SKILL。", id="skills-by-kind-without-space"),
        pytest.param("文案由策划层写好，本 SKILL 只排版。", id="another-layer"),
        pytest.param("和写作类技能分工：这里只排版。", id="boundary-word-分工"),
    ],
)
def test_fm013_real_world_boundaries_count(lint: Lint, boundary: str) -> None:
    frontmatter = GOOD.replace("不负责写文案，文案请用 `xhs-note-plan`。", boundary)
    assert "FM013" not in codes(lint(frontmatter))


@pytest.mark.parametrize(
    "not_a_boundary",
    [
        pytest.param("本 SKILL 会先预览排版效果再导出。", id="the-skill-itself"),
        pytest.param("本SKILL会先预览排版效果再导出。", id="the-skill-itself-without-space"),
        pytest.param("出图用 card-maker 自己的脚本。", id="its-own-name"),
        pytest.param("这一步属于制作层，导出 SVG。", id="its-own-layer"),
    ],
)
def test_fm013_look_alikes_that_draw_no_boundary(lint: Lint, not_a_boundary: str) -> None:
    frontmatter = GOOD.replace("不负责写文案，文案请用 `xhs-note-plan`。", not_a_boundary)
    assert "FM013" in codes(lint(frontmatter))


def description_of_length(length: int) -> str:
    """A folded description of exactly ``length`` code points (an emoji is one)."""
    head = "用于把笔记做成卡片 🎨，不负责写文案。"
    filler = "卡" * (length - len(head) - 1)  # the fold adds one space
    return f"description: >-\n  {head}\n  {filler}\n"


@pytest.mark.parametrize("length", [80, 300])
def test_fm014_spares_the_length_bounds(lint: Lint, length: int) -> None:
    description = description_of_length(length)
    assert len(yaml.safe_load(description)["description"]) == length
    assert lint(f"name: card-maker\n{description}layer: produce\n") == []


@pytest.mark.parametrize("length", [79, 301])
def test_fm014_flags_one_past_the_bounds(lint: Lint, length: int) -> None:
    description = description_of_length(length)
    assert len(yaml.safe_load(description)["description"]) == length
    findings = lint(f"name: card-maker\n{description}layer: produce\n")
    assert codes(findings) == ["FM014"]
    assert where(findings[0])[:2] == (2, 13)
    assert f"{length} characters" in findings[0].message


# -- FM015 description-unknown-skill ---------------------------------------------------------


def test_fm015_flags_only_skills_that_do_not_exist_at_the_token(lint: Lint) -> None:
    line = "  🎨卡片：封面交给 `cover-maker`，复盘见 skill-review-bot；文案 `xhs-note-plan`，产物 `xhs-note`。"
    frontmatter = (
        "name: card-maker\ndescription: >-\n"
        "  把小红书笔记做成图文卡片，适用场景：用户说“做卡片”。不负责写文案。\n"
        f"{line}\nlayer: produce\n"
    )
    findings = lint(frontmatter)
    assert codes(findings) == ["FM015", "FM015"]
    cover, bot = findings
    col = line.index("`cover-maker`")
    assert where(cover) == (4, col, 4, col + len("`cover-maker`"))
    assert cover.help == "did you mean `card-maker`?"
    col = line.index("skill-review-bot")
    assert where(bot) == (4, col, 4, col + len("skill-review-bot"))


def test_fm015_spares_its_own_name_and_kebab_words(lint: Lint) -> None:
    frontmatter = GOOD.replace("导出 PNG", "`card-maker` 支持 `dry-run`，导出 PNG")
    assert lint(frontmatter) == []


# -- FM016 openclaw-metadata-invalid / FM017 openclaw-metadata-unneeded ----------------------

OPENCLAW_OK = """\
metadata:
  openclaw:
    emoji: "🎨"
    os: [darwin, linux]
    requires:
      bins: [ffmpeg]
      env: [XHS_COOKIE]
    install:
      - kind: brew
        formula: ffmpeg
      - kind: uv
        package: pillow
      - kind: download
        url: https://example.com/font.zip
"""


def test_fm016_fm017_spare_a_valid_runtime_manifest(lint: Lint) -> None:
    assert lint(GOOD + OPENCLAW_OK) == []


def test_fm016_os_outside_darwin_linux_win32_points_at_the_item(lint: Lint) -> None:
    findings = lint(GOOD + "metadata:\n  openclaw:\n    os: [darwin, macos]\n")
    assert codes(findings) == ["FM016"]
    col = len("    os: [darwin, ")
    assert where(findings[0]) == (AFTER + 2, col, AFTER + 2, col + len("macos"))
    assert "darwin, linux, win32" in findings[0].message


def test_fm016_install_kind_apt_is_silently_dropped_by_openclaw(lint: Lint) -> None:
    frontmatter = (
        GOOD + "metadata:\n  openclaw:\n    install:\n      - kind: apt\n        package: ffmpeg\n"
    )
    findings = lint(frontmatter)
    assert codes(findings) == ["FM016"]
    assert where(findings[0]) == (AFTER + 3, 14, AFTER + 3, 17)
    assert "silently drops" in findings[0].message


def test_fm016_brew_install_without_formula_or_cask(lint: Lint) -> None:
    frontmatter = (
        GOOD + "metadata:\n  openclaw:\n    install:\n      - kind: brew\n        bins: [ffmpeg]\n"
    )
    findings = lint(frontmatter)
    assert codes(findings) == ["FM016"]
    assert where(findings[0])[:2] == (AFTER + 3, 8)
    assert "formula or cask" in findings[0].message


@pytest.mark.parametrize(
    ("step", "needs"),
    [("kind: node", "package"), ("kind: go", "module"), ("kind: download", "url")],
)
def test_fm016_each_install_kind_needs_its_field(lint: Lint, step: str, needs: str) -> None:
    findings = lint(GOOD + f"metadata:\n  openclaw:\n    install:\n      - {step}\n")
    assert codes(findings) == ["FM016"]
    assert f"`{needs}`" in findings[0].message


def test_fm016_unknown_nested_key_with_did_you_mean(lint: Lint) -> None:
    findings = lint(GOOD + "metadata:\n  openclaw:\n    requires:\n      binz: [ffmpeg]\n")
    assert codes(findings) == ["FM016"]
    assert where(findings[0]) == (AFTER + 3, 6, AFTER + 3, 10)
    assert findings[0].help == "did you mean `bins`?"
    assert "metadata.openclaw.requires" in findings[0].message


def test_fm016_wrong_type(lint: Lint) -> None:
    findings = lint(GOOD + "metadata:\n  openclaw:\n    os: darwin\n")
    assert codes(findings) == ["FM016"]
    assert where(findings[0])[:2] == (AFTER + 2, 8)
    assert "type array" in findings[0].message


def test_fm017_openclaw_without_os_requires_or_install(lint: Lint) -> None:
    findings = lint(
        GOOD + 'metadata:\n  openclaw:\n    emoji: "🎨"\n    homepage: https://x.example\n'
    )
    assert codes(findings) == ["FM017"]
    assert where(findings[0]) == (AFTER + 1, 2, AFTER + 1, 10)
    assert findings[0].severity.word == "info"


# -- robustness ------------------------------------------------------------------------------


def billion_laughs(indent: str) -> str:
    lines = [f'{indent}lol0: &a0 ["哈"]']
    for i in range(1, 10):
        lines.append(f"{indent}lol{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "where_bomb",
    [
        pytest.param(lambda: billion_laughs(""), id="top-level"),
        pytest.param(lambda: "metadata:\n  openclaw:\n" + billion_laughs("    "), id="openclaw"),
    ],
)
def test_billion_laughs_alias_bomb_is_checked_in_bounded_time(
    lint: Lint, where_bomb: Callable[[], str]
) -> None:
    started = time.monotonic()
    findings = lint(GOOD + where_bomb())
    assert time.monotonic() - started < 5
    assert set(codes(findings)) <= {"FM006", "FM016", "FM017"}
    assert len(findings) >= 10  # one unknown key per `lolN`


@pytest.mark.parametrize(
    "situation",
    [
        "当脚本已发现活动、但奖励规则缺失时，使用本 SKILL 补全规则。",
        "活动规则缺失时触发，读取官方页面补全。",
        "适用于带货直播与知识分享直播。",
    ],
)
def test_fm012_a_situation_closing_the_sentence_is_trigger_wording(
    lint: Lint, situation: str
) -> None:
    frontmatter = GOOD.replace("适用场景：用户说", situation + "例如")
    assert "FM012" not in codes(lint(frontmatter))


def test_fm012_trigger_words_match_across_a_folded_line_break(lint: Lint) -> None:
    description = (
        "description: >-\n"
        "  补全站内创作活动的规则：读取官方活动页，输出参与条件、作品规格和奖励，供选题与排期使用。\n"
        "  当脚本已发现活动但奖励仍缺失时，\n"
        "  使用本 SKILL；不负责报名。\n"
    )
    assert "FM012" not in codes(lint(f"name: card-maker\n{description}layer: produce\n"))
    unrelated = description.replace("时，\n  使用本 SKILL", "的那一刻，\n  读取本 SKILL")
    assert "FM012" in codes(lint(f"name: card-maker\n{unrelated}layer: produce\n"))
