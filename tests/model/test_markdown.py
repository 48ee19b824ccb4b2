"""The Markdown structure model: what is found, and exactly where it sits in the document."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from easel_ls.findings import Position, Range
from easel_ls.model.markdown import MarkdownModel, parse_markdown
from easel_ls.model.text import TextDocument


def parse(text: str, body_start_line: int = 0) -> tuple[TextDocument, MarkdownModel]:
    doc = TextDocument(Path("SKILL.md"), text)
    return doc, parse_markdown(doc, body_start_line)


# Headings


def test_heading_range_covers_the_text_after_the_marker() -> None:
    doc, md = parse("intro\n\n## 输出（写入 `outputs/<主题>/`）\n")
    [heading] = md.headings
    assert heading.level == 2
    assert heading.text == "输出（写入 `outputs/<主题>/`）"
    assert heading.range == Range.of(2, 3, 2, 3 + len(heading.text))
    assert doc.slice(heading.range) == heading.text


def test_heading_closing_sequence_is_not_part_of_the_text() -> None:
    doc, md = parse("### 执行步骤 ###\n")
    [heading] = md.headings
    assert (heading.level, heading.text, doc.slice(heading.range)) == (3, "执行步骤", "执行步骤")


def test_empty_heading_sits_on_its_own_line() -> None:
    _, md = parse("text\n\n##\n")
    [heading] = md.headings
    assert (heading.text, heading.range) == ("", Range.of(2, 2, 2, 2))


def test_setext_heading_is_found() -> None:
    doc, md = parse("标题\n===\n")
    assert [(h.level, h.text, doc.slice(h.range)) for h in md.headings] == [(1, "标题", "标题")]


def test_frontmatter_lines_are_ignored_but_positions_are_in_the_whole_document() -> None:
    text = "---\nname: x\n# not a heading: yaml comment\n---\n# 真标题\n"
    _, md = parse(text, body_start_line=4)
    assert [(h.text, h.range.start) for h in md.headings] == [("真标题", Position(4, 2))]


# Fences


def test_fence_info_is_the_lowercased_language_word() -> None:
    _, md = parse("```Bash title=x\necho\n```\n\n```\nplain\n```\n")
    assert [f.info for f in md.fences] == ["bash", ""]


def test_fence_range_includes_markers_and_content_lines_are_exact() -> None:
    _, md = parse("text\n\n```sh\npython a.py\n  --x\n```\n")
    [fence] = md.fences
    assert fence.content == "python a.py\n  --x\n"
    assert fence.range == Range.of(2, 0, 5, 3)
    assert fence.content_lines == [(3, 0, "python a.py"), (4, 0, "  --x")]


def test_fence_inside_a_blockquoted_list_item_strips_prefixes_with_exact_columns() -> None:
    text = "> - 步骤 😀\n>   ```bash\n>   python x.py \\\n>     --y\n>   ```\n"
    doc, md = parse(text)
    [fence] = md.fences
    assert fence.info == "bash"
    assert fence.content_lines == [(2, 4, "python x.py \\"), (3, 4, "  --y")]
    assert fence.range.start == Position(1, 4)
    for line, column, content in fence.content_lines:
        assert doc.line_text(line)[column:] == content


def test_fence_in_an_ordered_list_item() -> None:
    _, md = parse("1. 运行：\n\n   ```bash\n   python a.py\n   ```\n")
    [fence] = md.fences
    assert fence.content_lines == [(3, 3, "python a.py")]


def test_fence_with_tab_indentation_keeps_columns_in_the_source() -> None:
    doc, md = parse("- \t```sh\n\t  x\n")
    [fence] = md.fences
    [(line, column, content)] = fence.content_lines
    assert (line, doc.line_text(line)[column:]) == (1, content)
    assert content.strip() == "x"


def test_unclosed_fence_runs_to_the_end() -> None:
    doc, md = parse("```bash\npython a.py\n")
    [fence] = md.fences
    assert fence.content_lines == [(1, 0, "python a.py")]
    assert doc.contains(fence.range)


def test_crlf_document_has_the_same_ranges_as_lf() -> None:
    lf = "# 标题\n\n```bash\npython a.py\n```\n\n见 `scripts/x.py` 与 [r](references/a.md)\n"
    _, md_lf = parse(lf)
    doc_crlf, md_crlf = parse(lf.replace("\n", "\r\n"))
    assert md_lf == md_crlf
    assert doc_crlf.slice(md_crlf.code_spans[0].range) == "scripts/x.py"


# Code spans


def test_code_span_after_cjk_and_emoji_has_code_point_columns() -> None:
    _, md = parse("运行 😀 `python scripts/x.py` 即可\n")
    [span] = md.code_spans
    assert span.text == "python scripts/x.py"
    assert span.range == Range.of(0, 6, 0, 6 + len(span.text))


def test_code_span_padding_space_is_outside_the_range() -> None:
    doc, md = parse("a `` `x` `` b\n")
    [span] = md.code_spans
    assert span.text == "`x`"
    assert doc.slice(span.range) == "`x`"


def test_code_spans_in_tables_lists_and_headings() -> None:
    text = (
        "## 用 `manifest.py`\n\n"
        "- 第一步 `scripts/a.py`\n\n"
        "| 名称 | 命令 |\n|---|---|\n| 同 | `python x.py` |\n"
    )
    doc, md = parse(text)
    assert [(s.text, doc.slice(s.range)) for s in md.code_spans] == [
        ("manifest.py", "manifest.py"),
        ("scripts/a.py", "scripts/a.py"),
        ("python x.py", "python x.py"),
    ]


def test_repeated_table_cells_are_told_apart() -> None:
    _, md = parse("| `a` | `a` |\n|---|---|\n| x | y |\n")
    assert [s.range.start.character for s in md.code_spans] == [3, 9]


def test_code_span_across_lines_reads_as_one_line() -> None:
    _, md = parse("> see `python a.py\n> --x` here\n")
    [span] = md.code_spans
    assert span.text == "python a.py --x"
    assert span.range == Range.of(0, 7, 1, 5)
    assert span.segments == ((0, 7, "python a.py"), (1, 2, "--x"))


def test_backticks_inside_fences_are_not_code_spans() -> None:
    _, md = parse("```\n`not a span`\n```\n")
    assert md.code_spans == []


def test_escaped_backtick_does_not_open_a_span() -> None:
    # `\`` is a literal backtick, so the span is the space between `a`` and ``b`.
    _, md = parse("\\`a` `b`\n")
    assert [(s.text, s.range) for s in md.code_spans] == [(" ", Range.of(0, 4, 0, 5))]


def test_backslash_inside_a_code_span_is_literal() -> None:
    doc, md = parse("`C:\\dir\\` and `b`\n")
    assert [(s.text, doc.slice(s.range)) for s in md.code_spans] == [
        ("C:\\dir\\", "C:\\dir\\"),
        ("b", "b"),
    ]


# Links


def test_inline_link_range_is_the_target() -> None:
    doc, md = parse("见 [规则](references/rules.md) 文件\n")
    [link] = md.links
    assert (link.target, link.text, link.is_image) == ("references/rules.md", "规则", False)
    assert doc.slice(link.range) == "references/rules.md"
    assert link.range.start == Position(0, 7)


def test_link_with_angle_brackets_and_title() -> None:
    doc, md = parse('[a](<my file.md>) and [b](x.md "title") and [c](y.md#part)\n')
    assert [(link.target, doc.slice(link.range)) for link in md.links] == [
        ("my file.md", "my file.md"),
        ("x.md", "x.md"),
        ("y.md#part", "y.md#part"),
    ]


def test_reference_link_points_at_the_definition_target() -> None:
    text = "见 [规则][rules] 与 [Rules] 与 [rules][]\n\n[rules]: references/rules.md 'x'\n"
    _, md = parse(text)
    assert len(md.links) == 3
    for link in md.links:
        assert link.target == "references/rules.md"
        assert link.range == Range.of(2, 9, 2, 28)
    assert [link.text for link in md.links] == ["规则", "Rules", "rules"]


def test_reference_definition_inside_a_blockquote() -> None:
    doc, md = parse("[a]\n\n> [a]:\n> <b c.md>\n")
    [link] = md.links
    assert (link.target, doc.slice(link.range)) == ("b c.md", "b c.md")


def test_undefined_reference_is_not_a_link() -> None:
    _, md = parse("[not a link] and [x](y.md)\n")
    assert [link.target for link in md.links] == ["y.md"]


def test_link_after_an_unmatched_bracket() -> None:
    doc, md = parse("[ 见 [x](y.md)\n")
    [link] = md.links
    assert (doc.slice(link.range), link.range.start) == ("y.md", Position(0, 8))


def test_images_are_links_flagged_as_images() -> None:
    doc, md = parse("![封面](assets/cover.png)\n")
    [image] = md.links
    assert (image.is_image, image.text, image.target) == (True, "封面", "assets/cover.png")
    assert doc.slice(image.range) == "assets/cover.png"


def test_link_in_table_cell_and_list() -> None:
    doc, md = parse("- [x](a.md)\n\n| [y](b.md) | [y](b.md) |\n|---|---|\n")
    assert [(doc.slice(link.range), link.range.start) for link in md.links] == [
        ("a.md", Position(0, 6)),
        ("b.md", Position(2, 6)),
        ("b.md", Position(2, 18)),
    ]


def test_link_containing_a_code_span() -> None:
    doc, md = parse("[`x.py`](scripts/x.py)\n")
    [link] = md.links
    assert (link.text, doc.slice(link.range)) == ("x.py", "scripts/x.py")
    assert [s.text for s in md.code_spans] == ["x.py"]


def test_escaped_link_target_is_unescaped() -> None:
    doc, md = parse("[a](my\\_file.md)\n")
    [link] = md.links
    assert (link.target, doc.slice(link.range)) == ("my_file.md", "my\\_file.md")


def test_autolink() -> None:
    doc, md = parse("<https://example.com/x>\n")
    [link] = md.links
    assert (link.target, doc.slice(link.range)) == ("https://example.com/x",) * 2


# HTML comments


def test_block_and_inline_comments() -> None:
    text = (
        "<!-- easel-ls-disable-next-line CM002,CM005 -->\n"
        "文字 <!-- easel-ls-disable BD001 --> 后\n\n"
        "> <!-- easel-ls-enable\n> BD001 -->\n"
    )
    doc, md = parse(text)
    assert [(c.text, c.line) for c in md.comments] == [
        ("easel-ls-disable-next-line CM002,CM005", 0),
        ("easel-ls-disable BD001", 1),
        ("easel-ls-enable\nBD001", 3),
    ]
    assert doc.slice(md.comments[1].range) == "<!-- easel-ls-disable BD001 -->"
    assert md.comments[1].range.start == Position(1, 3)
    assert md.comments[2].range == Range.of(3, 2, 4, 11)


def test_comment_inside_a_fence_is_code() -> None:
    _, md = parse("```html\n<!-- x -->\n```\n")
    assert md.comments == []


# Prose


def test_text_runs_are_prose_outside_code_and_links() -> None:
    doc, md = parse("读 references/a.md，再跑 `python x.py`，见 [b](c.md)。\n")
    runs = [(r.text, doc.slice(r.range)) for r in md.text_runs]
    assert runs == [
        ("读 references/a.md，再跑 ", "读 references/a.md，再跑 "),
        ("，见 ", "，见 "),
        ("。", "。"),
    ]


def test_text_runs_in_list_items_and_blockquotes() -> None:
    _, md = parse("> - 见 scripts/run.py\n>   第二行 references/b.md\n")
    assert [(r.text, r.range.start) for r in md.text_runs] == [
        ("见 scripts/run.py", Position(0, 4)),
        ("第二行 references/b.md", Position(1, 4)),
    ]


def test_indented_code_is_neither_prose_nor_a_fence() -> None:
    _, md = parse("para\n\n    scripts/x.py `y`\n\t`\n")
    assert (md.text_runs[0].text, len(md.text_runs)) == ("para", 1)
    assert (md.fences, md.code_spans) == ([], [])


def test_escaped_text_is_not_misplaced() -> None:
    doc, md = parse("a\\_b `c` d\n")
    for run in md.text_runs:
        assert doc.slice(run.range) == run.text
    assert doc.slice(md.code_spans[0].range) == "c"


# Robustness


def test_nul_reads_as_replacement_character_with_columns_unchanged() -> None:
    # Found by fuzzing: a NUL must not reach path handling through a code span.
    _, md = parse("0```bash\n\x00```\n")
    [span] = md.code_spans
    assert span.text == "bash \ufffd"
    assert span.range == Range.of(0, 4, 1, 1)


def test_lone_surrogate_does_not_stop_parsing() -> None:
    _, md = parse("# 标题 \ud800 `x`\n")
    assert [s.text for s in md.code_spans] == ["x"]
    assert md.code_spans[0].range == Range.of(0, 8, 0, 9)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                *list("`[]()<>!-*_#>|\\\"' \t\n\r:=~.主题😀ab1"),
                "```",
                "<!--",
                "-->",
                "\r\n",
                "](",
                "- ",
                "> ",
                "1. ",
                "| ",
                "\\`",
                "[x]: ",
            ]
        ),
        max_size=80,
    ).map("".join),
    st.integers(min_value=-2, max_value=6),
)
def test_any_text_parses_and_every_range_lies_inside_the_document(text: str, start: int) -> None:
    doc = TextDocument(Path("x.md"), text)
    md = parse_markdown(doc, start)
    ranges = [h.range for h in md.headings] + [f.range for f in md.fences]
    ranges += [s.range for s in md.code_spans] + [link.range for link in md.links]
    ranges += [c.range for c in md.comments] + [r.range for r in md.text_runs]
    for rng in ranges:
        assert doc.contains(rng), (rng, text)
    for fence in md.fences:
        for line, column, content in fence.content_lines:
            assert doc.line_text(line)[column:] == content
    for run in md.text_runs:
        assert doc.slice(run.range) == run.text
