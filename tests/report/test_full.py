"""`full`: ruff's layout, carets measured in display columns, context lines, multi-line rails."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from easel_ls.findings import Finding, Location, Range, Severity
from easel_ls.report import ReportContext, render

PATH = Path("/ws/skills/a/SKILL.md")


def _full(
    text: str | None,
    rng: Range,
    *,
    color: bool = False,
    related: list[Location] | None = None,
    help: str | None = None,
) -> list[str]:
    """The `full` lines for one finding at ``rng`` in a file holding ``text``."""
    finding = Finding(
        "FM006", "unknown-key", Severity.WARNING, "msg", PATH, rng,
        related=related or [], help=help,
    )  # fmt: skip
    ctx = ReportContext(Path("/ws"), {PATH: text}.get, color=color)
    return render([finding], "full", ctx).rstrip("\n").splitlines()


def _marker(lines: list[str]) -> str:
    """The caret line: the gutter line that carries the code."""
    [line] = [line for line in lines if line.endswith(" FM006") and "|" in line.split("FM006")[0]]
    return line


def _carets(lines: list[str]) -> tuple[int, int]:
    """Display column (0-based, within the source text) of the first caret, and how many."""
    marks = _marker(lines).split("| ", 1)[1]
    return len(marks) - len(marks.lstrip(" ")), marks.count("^")


def test_matches_the_documented_example(
    findings: list[Finding], make_ctx: Callable[..., ReportContext]
) -> None:
    cm002 = [f for f in findings if f.code == "CM002"]
    assert render(cm002, "full", make_ctx(unsafe_fixes=True)) == (
        "skills/openclaw/x/SKILL.md:12:46: CM002 [*] unknown option `--ouput` for `render`\n"
        "   |\n"
        "11 | ```bash\n"
        "12 | python skills/openclaw/x/scripts/a.py render --ouput <主题>\n"
        "   |                                              ^^^^^^^ CM002\n"
        "13 | ```\n"
        "   |\n"
        "   = help: did you mean `--output`?\n"
        "\n"
    )


def test_cjk_before_the_range_shifts_carets_two_columns_each() -> None:
    assert _carets(_full("主题 x\n", Range.of(0, 3, 0, 4))) == (5, 1)  # "主题 " is 5 wide


def test_emoji_counts_two_columns_and_a_wide_range_gets_two_carets_each() -> None:
    assert _carets(_full("🎨x\n", Range.of(0, 1, 0, 2))) == (2, 1)
    assert _carets(_full("选 主题\n", Range.of(0, 2, 0, 4))) == (3, 4)


def test_combining_marks_take_no_column() -> None:
    # "e" + COMBINING ACUTE ACCENT shows as one column.
    assert _carets(_full("e\u0301x\n", Range.of(0, 2, 0, 3))) == (1, 1)


def test_tabs_expand_to_the_next_stop_of_four() -> None:
    lines = _full("\tkey: v\na\tb\n", Range.of(0, 1, 0, 4))
    assert "1 |     key: v" in lines
    assert _marker(lines) == "  |     ^^^ FM006"
    assert "2 | a   b" in _full("x\na\tb\n", Range.of(1, 2, 1, 3))
    assert _marker(_full("x\na\tb\n", Range.of(1, 2, 1, 3))) == "  |     ^ FM006"


def test_an_empty_range_still_gets_one_caret() -> None:
    assert _marker(_full("abc\n", Range.of(0, 3, 0, 3))) == "  |    ^ FM006"


def test_one_line_of_context_each_side_only_where_it_exists() -> None:
    lines = _full("one\ntwo\nthree\nfour\n", Range.of(1, 0, 1, 3))
    assert lines[1:7] == ["  |", "1 | one", "2 | two", "  | ^^^ FM006", "3 | three", "  |"]
    first = _full("one\ntwo\n", Range.of(0, 0, 0, 3))
    assert first[1:5] == ["  |", "1 | one", "  | ^^^ FM006", "2 | two"]


def test_empty_file_at_line_1_column_1() -> None:
    assert _full("", Range.line_start()) == [
        "skills/a/SKILL.md:1:1: FM006 msg",
        "  |",
        "1 |",
        "  | ^ FM006",
        "  |",
    ]


def test_multi_line_range_from_a_line_start_draws_a_rail() -> None:
    lines = _full("a\n  b(\n  c,\n  d)\ne\n", Range.of(1, 2, 3, 4))
    assert lines[1:9] == [
        "  |",
        "1 |   a",
        "2 | /   b(",
        "3 | |   c,",
        "4 | |   d)",
        "  | |____^ FM006",
        "5 |   e",
        "  |",
    ]


def test_multi_line_range_from_mid_line_underlines_up_to_its_start() -> None:
    lines = _full("key: [1,\n  2]\n", Range.of(0, 5, 1, 4))
    assert lines[1:6] == [
        "  |",
        "1 |   key: [1,",
        "  |  ______^",
        "2 | |   2]",
        "  | |____^ FM006",
    ]


def test_a_range_ending_at_a_line_start_ends_on_the_line_before() -> None:
    lines = _full("x\nab\ncd\n", Range.of(1, 0, 2, 0))
    assert "  | ^^ FM006" in lines


def test_long_multi_line_ranges_are_elided() -> None:
    text = "".join(f"line {n}\n" for n in range(20))
    lines = _full(text, Range.of(2, 0, 15, 7))
    assert "..." in lines
    assert " 3 | / line 2" in lines and " 4 | | line 3" in lines
    assert "15 | | line 14" in lines and "16 | | line 15" in lines
    assert not any(line.startswith(" 9 |") for line in lines)


def test_related_locations_become_notes_and_help_comes_last() -> None:
    related = [Location(PATH, Range.of(0, 0, 0, 3), "first here")]
    lines = _full("abc\nabc\n", Range.of(1, 0, 1, 3), related=related, help="remove one")
    assert lines[-2:] == [
        "  = note: skills/a/SKILL.md:1:1: first here",
        "  = help: remove one",
    ]


def test_without_the_source_only_header_and_help_are_printed() -> None:
    assert _full(None, Range.of(41, 0, 41, 3), help="try this") == [
        "skills/a/SKILL.md:42:1: FM006 msg",
        "   = help: try this",
    ]


def test_a_range_past_the_end_of_the_file_is_clamped_not_fatal() -> None:
    lines = _full("only\n", Range.of(7, 2, 9, 1))
    assert lines[0] == "skills/a/SKILL.md:8:3: FM006 msg"
    assert any("FM006" in line and "^" in line for line in lines[1:])


def test_colour_only_when_told() -> None:
    plain = "\n".join(_full("abc\n", Range.of(0, 0, 0, 1)))
    coloured = "\n".join(_full("abc\n", Range.of(0, 0, 0, 1), color=True))
    assert "\x1b[" not in plain
    assert "\x1b[" in coloured
    assert "\x1b[1;33mFM006" in coloured  # warnings in yellow


def test_control_characters_show_as_pictures_so_carets_align() -> None:
    lines = _full("a\x1bb\n", Range.of(0, 2, 0, 3))
    assert "1 | a\u241bb" in lines
    assert _marker(lines) == "  |   ^ FM006"
