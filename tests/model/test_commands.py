"""Script invocations in Markdown: which commands are found, their words, and exact ranges."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from easel_ls.findings import Position, Range
from easel_ls.model.commands import Invocation, extract_invocations
from easel_ls.model.markdown import parse_markdown
from easel_ls.model.text import TextDocument


def invocations(text: str) -> tuple[TextDocument, list[Invocation]]:
    doc = TextDocument(Path("SKILL.md"), text)
    return doc, extract_invocations(doc, parse_markdown(doc))


def fenced(body: str, info: str = "bash") -> str:
    return f"```{info}\n{body}\n```\n"


def only(text: str) -> Invocation:
    _, found = invocations(text)
    assert len(found) == 1, found
    return found[0]


def args(inv: Invocation) -> list[str]:
    return [word.text for word in inv.args]


# Launchers


def test_python_script_in_a_bash_fence() -> None:
    doc, [inv] = invocations(fenced("python scripts/x.py run --topic demo"))
    assert (inv.kind, inv.script_path, inv.base, inv.source) == (
        "python",
        "scripts/x.py",
        "auto",
        "fence",
    )
    assert args(inv) == ["run", "--topic", "demo"]
    assert inv.script.range == Range.of(1, 7, 1, 19)
    assert [doc.slice(w.range) for w in inv.args] == ["run", "--topic", "demo"]
    assert inv.line == 1


def test_every_command_fence_language_and_no_language() -> None:
    for info in ("bash", "sh", "shell", "zsh", ""):
        assert only(fenced("python a.py", info)).script_path == "a.py"


def test_other_fence_languages_are_not_commands() -> None:
    for info in ("python", "text", "yaml", "json"):
        assert invocations(fenced("python a.py", info))[1] == []


def test_python3_uv_run_and_venv_launchers() -> None:
    body = "\n".join(
        [
            "python3 a.py",
            "python3.11 b.py",
            "uv run python c.py",
            "uv run --with rich d.py",
            ".venv/bin/python e.py",
            "./scripts/f.py --x",
        ]
    )
    _, found = invocations(fenced(body))
    assert [inv.script_path for inv in found] == [
        "a.py",
        "b.py",
        "c.py",
        "d.py",
        "e.py",
        "scripts/f.py",
    ]
    assert all(inv.kind == "python" for inv in found)


def test_interpreter_options_before_the_script_are_skipped() -> None:
    inv = only(fenced("python3 -u -X utf8 -W ignore scripts/a.py --verbose"))
    assert (inv.script_path, args(inv)) == ("scripts/a.py", ["--verbose"])


def test_shell_scripts_bash_sh_and_dot_slash() -> None:
    _, found = invocations(fenced("bash scripts/run.sh --x\nsh -e setup.sh\n./local.sh a"))
    assert [(inv.kind, inv.script_path, args(inv)) for inv in found] == [
        ("shell", "scripts/run.sh", ["--x"]),
        ("shell", "setup.sh", []),
        ("shell", "local.sh", ["a"]),
    ]


# Look-alikes that are not script invocations


def test_modules_inline_code_and_other_tools_are_not_invocations() -> None:
    body = "\n".join(
        [
            "python -m pkg.tool --x",
            "python -c 'print(1)'",
            "python",
            "pip install requests",
            "bash -c 'python a.py'",
            "echo python a.py",
            "uv run pytest",
        ]
    )
    assert invocations(fenced(body))[1] == []


def test_prose_mentioning_python_is_not_a_command() -> None:
    assert invocations("先用 python scripts/a.py 跑一遍。\n")[1] == []


def test_code_span_is_a_command_only_when_it_starts_with_a_launcher() -> None:
    text = (
        "路径 `scripts/a.py`，安装 `pip install x`，运行 `python scripts/a.py --x`，"
        "或 `./run.sh`，或 `bash x.sh`。\n"
    )
    assert [inv.script_path for inv in invocations(text)[1]] == ["scripts/a.py", "run.sh", "x.sh"]


def test_heredoc_body_is_data() -> None:
    body = "cat <<'EOF' > notes.txt\npython not_a_command.py\nEOF\npython real.py"
    assert [inv.script_path for inv in invocations(fenced(body))[1]] == ["real.py"]


def test_indented_heredoc_delimiter() -> None:
    body = "cat <<-END\n\tpython hidden.py\n\tEND\npython shown.py"
    assert [inv.script_path for inv in invocations(fenced(body))[1]] == ["shown.py"]


def test_console_block_only_prompted_lines_are_commands() -> None:
    body = "$ python scripts/a.py \\\n> --flag\nwrote python out.py\n$ python b.py"
    _, found = invocations(fenced(body, "console"))
    assert [(inv.script_path, args(inv)) for inv in found] == [
        ("scripts/a.py", ["--flag"]),
        ("b.py", []),
    ]
    assert found[0].args[0].range == Range.of(2, 2, 2, 8)


# Shell syntax


def test_backslash_continuations_join_lines_and_keep_ranges() -> None:
    body = "python skills/shared/scripts/manifest.py record --topic <主题> \\\n  --layer plan \\\n  --outputs a.md,b.md"
    doc, [inv] = invocations(fenced(body))
    assert args(inv) == ["record", "--topic", "<主题>", "--layer", "plan", "--outputs", "a.md,b.md"]
    assert inv.args[3].range == Range.of(2, 2, 2, 9)
    assert doc.slice(inv.args[6].range) == "a.md,b.md"


def test_chains_and_pipes() -> None:
    body = "python a.py && python b.py; python c.py | python d.py || true & python e.py"
    assert [inv.script_path for inv in invocations(fenced(body))[1]] == [
        "a.py",
        "b.py",
        "c.py",
        "d.py",
        "e.py",
    ]


def test_pipe_into_a_script_and_redirections_are_not_arguments() -> None:
    inv = only(fenced("cat in.txt | python a.py --x 1 > out.txt 2>&1 < in.txt 2> err.log"))
    assert args(inv) == ["--x", "1"]


def test_env_prefixes_and_prompts_are_skipped() -> None:
    inv = only(fenced("$ FOO=1 BAR='x y' python a.py --x"))
    assert (inv.script_path, args(inv)) == ("a.py", ["--x"])
    assert inv.script.range.start == Position(1, 25)


def test_trailing_comment_is_not_an_argument() -> None:
    assert args(only(fenced("python a.py --x 1  # 说明 --not-an-option"))) == ["--x", "1"]


def test_commands_after_shell_reserved_words() -> None:
    body = 'for f in *.md; do python a.py "$f"; done\nif python check.py; then bash ok.sh; fi'
    _, found = invocations(fenced(body))
    assert [(inv.script_path, args(inv)) for inv in found] == [
        ("a.py", ["$f"]),
        ("check.py", []),
        ("ok.sh", []),
    ]


def test_comment_lines_are_ignored() -> None:
    assert invocations(fenced("# python a.py\n  # python b.py"))[1] == []


def test_quotes_and_escapes_keep_one_range_per_word() -> None:
    doc, [inv] = invocations(fenced("python a.py --title \"标题 一\" 'x y'z a\\ b"))
    assert args(inv) == ["--title", "标题 一", "x yz", "a b"]
    assert [w.raw for w in inv.args] == ["--title", '"标题 一"', "'x y'z", "a\\ b"]
    for word in inv.args:
        assert doc.slice(word.range) == word.raw


def test_quoted_argument_spanning_lines() -> None:
    _, [inv] = invocations(fenced('python a.py --body "第一行\n第二行" --x'))
    assert args(inv) == ["--body", "第一行\n第二行", "--x"]
    assert inv.args[1].range == Range.of(1, 19, 2, 4)


def test_option_with_equals_is_one_word() -> None:
    assert args(only(fenced("python a.py --kind=cards"))) == ["--kind=cards"]


def test_suppression_comment_on_the_command_line() -> None:
    _, found = invocations(fenced("python a.py --x  # easel-ls: ignore[CM002, cm005]\npython b.py"))
    assert [inv.suppressed for inv in found] == [frozenset({"CM002", "CM005"}), frozenset()]


def test_suppression_applies_to_a_continued_command() -> None:
    inv = only(fenced("python a.py \\\n  --x  # easel-ls: ignore[CM002]"))
    assert inv.suppressed == frozenset({"CM002"})


# Documentation notation and placeholders


def test_optional_notation_marks_words_and_leaves_the_brackets_out() -> None:
    doc, [inv] = invocations(fenced("python m.py latest --topic <主题> [--layer plan] [--json]"))
    assert [(w.text, w.optional) for w in inv.args] == [
        ("latest", False),
        ("--topic", False),
        ("<主题>", False),
        ("--layer", True),
        ("plan", True),
        ("--json", True),
    ]
    assert doc.slice(inv.args[3].range) == "--layer"
    assert doc.slice(inv.args[4].range) == "plan"


def test_alternatives_inside_brackets_or_braces_are_not_pipes() -> None:
    inv = only(fenced("python a.py [--json|--csv] --kind {article|video}"))
    assert [(w.text, w.optional, w.placeholder) for w in inv.args] == [
        ("--json|--csv", True, False),
        ("--kind", False, False),
        ("{article|video}", False, True),
    ]


def test_bar_between_optional_alternatives_is_notation() -> None:
    inv = only(fenced("python a.py [--json | --csv]"))
    assert [(w.text, w.optional, w.placeholder) for w in inv.args] == [
        ("--json", True, False),
        ("|", True, True),
        ("--csv", True, False),
    ]


def test_placeholders() -> None:
    body = 'python a.py <主题> {topic} $VAR "${OUT}/x" "..." … 主题名 画像名 "内容" 小红书 cards'
    inv = only(fenced(body))
    assert [(w.text, w.placeholder) for w in inv.args] == [
        ("<主题>", True),
        ("{topic}", True),
        ("$VAR", True),
        ("${OUT}/x", True),
        ("...", True),
        ("…", True),
        ("主题名", True),
        ("画像名", True),
        ("内容", True),
        ("小红书", False),
        ("cards", False),
    ]


def test_single_quoted_dollar_is_literal() -> None:
    [word] = only(fenced("python a.py '$HOME'")).args
    assert (word.text, word.placeholder) == ("$HOME", False)


# Script paths


def test_skill_folder_placeholders() -> None:
    body = "\n".join(
        [
            "python {baseDir}/scripts/a.py",
            "python $SKILL_DIR/scripts/b.py",
            'python "${SKILL_DIR}/scripts/c.py"',
            "python <skill>/scripts/d.py",
        ]
    )
    _, found = invocations(fenced(body))
    assert [(inv.script_path, inv.base, inv.dynamic_path) for inv in found] == [
        ("scripts/a.py", "skill", False),
        ("scripts/b.py", "skill", False),
        ("scripts/c.py", "skill", False),
        ("scripts/d.py", "skill", False),
    ]
    assert found[0].script.raw == "{baseDir}/scripts/a.py"


def test_root_placeholder() -> None:
    inv = only(fenced("python <ROOT>/skills/shared/scripts/m.py"))
    assert (inv.script_path, inv.base) == ("skills/shared/scripts/m.py", "root")


def test_paths_are_normalised() -> None:
    assert only(fenced("python ./scripts/../scripts/./a.py")).script_path == "scripts/a.py"


def test_variable_assigned_earlier_in_the_fence() -> None:
    doc, found = invocations(
        fenced('S=skills/x/scripts/a.py\npython $S sub --x\npython "$S" other')
    )
    assert [(inv.script_path, inv.base, inv.dynamic_path) for inv in found] == [
        ("skills/x/scripts/a.py", "auto", False),
        ("skills/x/scripts/a.py", "auto", False),
    ]
    assert doc.slice(found[0].script.range) == "$S"
    assert args(found[0]) == ["sub", "--x"]


def test_variable_pointing_at_the_skill_folder() -> None:
    inv = only(fenced("export DIR={baseDir}/scripts\npython $DIR/a.py"))
    assert (inv.script_path, inv.base) == ("scripts/a.py", "skill")


def test_env_prefix_does_not_set_a_variable() -> None:
    inv = only(fenced("S=a.py python $S"))
    assert inv.dynamic_path


def test_unknown_placeholders_make_the_path_dynamic() -> None:
    for script in ("$UNKNOWN/x.py", "<path>/x.py", "scripts/*.py", "/usr/lib/x.py", "~/x.py"):
        inv = only(fenced(f"python {script}"))
        assert inv.dynamic_path, script


def test_cd_into_a_skill_then_a_relative_script() -> None:
    inv = only(fenced("cd skills/x && python scripts/a.py"))
    assert (inv.script_path, inv.base, inv.dynamic_path) == ("skills/x/scripts/a.py", "root", False)


def test_cd_into_the_skill_folder_placeholder() -> None:
    inv = only(fenced("cd {baseDir} && python scripts/a.py"))
    assert (inv.script_path, inv.base) == ("scripts/a.py", "skill")


def test_cd_somewhere_unknown_makes_later_relative_paths_dynamic() -> None:
    _, found = invocations(fenced("cd /tmp && python a.py\npython {baseDir}/b.py"))
    assert [(inv.script_path, inv.dynamic_path) for inv in found] == [
        ("a.py", True),
        ("b.py", False),
    ]


# Code spans


def test_code_span_after_cjk_and_emoji_has_exact_ranges() -> None:
    doc, [inv] = invocations("运行 😀 `python scripts/x.py run --topic <主题>` 即可。\n")
    assert inv.source == "span"
    assert inv.script.range == Range.of(0, 13, 0, 25)
    assert [(w.text, w.range.start.character) for w in inv.args] == [
        ("run", 26),
        ("--topic", 30),
        ("<主题>", 38),
    ]
    assert all(doc.slice(w.range) == w.raw for w in inv.args)


def test_code_span_in_a_list_item_inside_a_blockquote() -> None:
    doc, [inv] = invocations("> - 第一步：`$ python3 {baseDir}/scripts/a.py --x 1`\n")
    assert (inv.script_path, inv.base, args(inv)) == ("scripts/a.py", "skill", ["--x", "1"])
    assert doc.slice(inv.script.range) == "{baseDir}/scripts/a.py"
    assert inv.script.range.start == Position(0, 19)


def test_code_span_in_a_table_cell() -> None:
    doc, [inv] = invocations("| 步骤 | 命令 |\n|---|---|\n| 一 | `bash scripts/run.sh` |\n")
    assert (inv.kind, doc.slice(inv.script.range)) == ("shell", "scripts/run.sh")


def test_code_span_broken_across_lines() -> None:
    _, [inv] = invocations("运行 `python a.py\n--x` 吧\n")
    assert [(w.text, w.range) for w in inv.args] == [("--x", Range.of(1, 0, 1, 3))]


def test_fence_in_a_list_item_inside_a_blockquote() -> None:
    text = "> 1. 步骤😀\n>    ```bash\n>    python a.py \\\n>      --topic <主题>\n>    ```\n"
    _, [inv] = invocations(text)
    assert inv.script.range == Range.of(2, 12, 2, 16)
    assert [(w.text, w.range) for w in inv.args] == [
        ("--topic", Range.of(3, 7, 3, 14)),
        ("<主题>", Range.of(3, 15, 3, 19)),
    ]


def test_crlf_document() -> None:
    _, [inv] = invocations(fenced("python a.py \\\n  --x").replace("\n", "\r\n"))
    assert inv.args[0].range == Range.of(2, 2, 2, 5)


# Robustness

_PIECES = [
    *list("`'\"\\$<>[]{}()|&;#= \t\n\r-./主题😀ax"),
    "```bash\n",
    "```console\n",
    "```\n",
    "python ",
    "python3 -u ",
    "uv run ",
    "bash ",
    "./x.sh",
    "cd ",
    "S=",
    "$S",
    "{baseDir}/",
    "<skill>/",
    "[--",
    "\\\n",
    "$ ",
    "> ",
    "- ",
    "<<EOF",
    "\nEOF\n",
    "# easel-ls: ignore[",
    "...",
]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=60).map("".join))
def test_any_text_never_raises_and_every_range_is_inside_the_document(text: str) -> None:
    doc, found = invocations(text)
    for inv in found:
        for word in [inv.script, *inv.args]:
            assert doc.contains(word.range), (word, text)
        assert inv.line == inv.script.range.start.line


# Fast paths agree with the general code they bypass

_LEX_PIECES = [
    *list("`'\"\\$<>[]{}()|&;#= \t\n\r-./_:,主题名😀\u3000ax9"),
    "<主题>",
    "<a b>",
    "<a'b>",
    '"$X"',
    '"${X}"',
    '"$主"',
    '"a$"',
    "'$X'",
    '""',
    "''",
    "--k=v",
    "{a|b}",
    "[--x]",
    "…",
    "2>",
    "&>",
    "<<EOF",
    "# easel-ls: ignore[CX001]",
]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(_LEX_PIECES), max_size=30).map("".join))
def test_simple_lexer_agrees_with_the_full_lexer(text: str) -> None:
    from easel_ls.model.commands import _Incomplete, _lex_full, _lex_simple

    simple = _lex_simple(text)
    if simple is None:
        return
    for final in (True, False):
        try:
            full = _lex_full(text, final)
        except _Incomplete:
            raise AssertionError(f"the simple lexer read an incomplete line: {text!r}") from None
        assert simple == full, text


def test_simple_lexer_takes_common_command_lines() -> None:
    from easel_ls.model.commands import _lex_simple

    for text in (
        'python skills/a/scripts/x.py run --topic <主题> --summary "<一句话结论>"  # note',
        "python x.py --root \"$EASEL_OUTPUTS\" --name 'a b' [--opt value] {baseDir}/x",
    ):
        assert _lex_simple(text) is not None
    for text in ("a | b", "a > out", "echo $X", "a \\ b", "a 'open", "x=$(date)", "a && b"):
        assert _lex_simple(text) is None


def _word_maker_reference(maker, token):  # type: ignore[no-untyped-def]
    """``_WordMaker.make`` as written before its fast paths (the behaviour to keep)."""
    from easel_ls.findings import Position, Range
    from easel_ls.model.commands import Word

    start, end, text = token.start, token.end, token.text
    raw = maker.line.text[start:end]
    opening = len(raw) - len(raw.lstrip("["))
    if opening == len(raw):
        maker.optional_depth += opening
        return None
    if opening and text.startswith("[" * opening):
        maker.optional_depth += opening
        start, raw, text = start + opening, raw[opening:], text[opening:]
    optional = maker.optional_depth > 0
    closing = len(raw) - len(raw.rstrip("]"))
    if closing and maker.optional_depth > 0 and text.endswith("]" * closing):
        closing = min(closing, maker.optional_depth)
        maker.optional_depth -= closing
        end, raw, text = end - closing, raw[:-closing], text[:-closing]
        if not raw:
            return None
    positions = maker.line.positions
    head_line, head_character = positions[start]
    last_line, last_character = positions[max(start, end - 1)]
    first = Position(head_line, min(head_character, maker.doc.line_length(head_line)))
    stop = Position(last_line, min(last_character + 1, maker.doc.line_length(last_line)))
    rng = Range(first, max(first, stop))
    return Word(
        text, raw, rng, _looks_placeholder_reference(text, raw, token.has_variable), optional
    )


def _looks_placeholder_reference(text: str, raw: str, has_variable: bool) -> bool:
    from easel_ls.model import commands

    if raw == "|":
        return True
    if has_variable or "..." in raw or "…" in raw:
        return True
    if commands._PLACEHOLDER_ANGLE.search(raw) or commands._BRACED.search(raw):
        return True
    return is_placeholder_noun_reference(text)


def is_placeholder_noun_reference(text: str) -> bool:
    """A CJK word that contains a default placeholder noun or ends in 名; a default non-CJK
    placeholder word, whole (the spec of `easel_ls.model.placeholders`, written plainly)."""
    import re

    from easel_ls.model.placeholders import PLACEHOLDER_WORDS

    cjk = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
    if cjk.search(text):
        if not re.fullmatch(r"[\u3400-\u9fff\uf900-\ufaff0-9_\-]+", text):
            return False
        return text.endswith("名") or any(n in text for n in PLACEHOLDER_WORDS if cjk.search(n))
    return text.lower() in {w.lower() for w in PLACEHOLDER_WORDS if not cjk.search(w)}


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_LEX_PIECES + _PIECES), max_size=40).map("".join))
def test_word_maker_agrees_with_its_reference(text: str) -> None:
    from easel_ls.model.commands import _lex_full, _Line, _WordMaker

    doc = TextDocument(Path("SKILL.md"), "x\n" + text + "\n")
    line = _Line()
    line.add(text, 1, 0)
    if text:
        line.add_break(1, len(text))  # a joining character past the end of the line
        line.add(text[:5], 2, 3)  # a second piece on a line too short for it
    tokens = _lex_full(line.text, True)
    fast, reference = _WordMaker(doc, line), _WordMaker(doc, line)
    for token in tokens:
        if token.kind == "word":
            assert fast.make(token) == _word_maker_reference(reference, token), text
            assert fast.optional_depth == reference.optional_depth


# --- code spans: commands versus path mentions ----------------------------------------------


@pytest.mark.parametrize(
    ("span", "is_command"),
    [
        ("`python ../../shared/scripts/stats.py --top 3`", True),
        ("`./scripts/run.sh --all`", True),
        ("`./scripts/run.sh`", True),
        ("`../../shared/scripts/stats.py`", False),  # a module named in prose
        ("`./scripts/helper.py`", False),  # a lone `./x.py` names the file
        ("`scripts/make.py`", False),
    ],
)
def test_a_span_runs_a_script_only_with_a_launcher_or_a_leading_dot_slash(
    span: str, is_command: bool
) -> None:
    doc = TextDocument(Path("SKILL.md"), f"复用 {span} 的函数。\n")
    found = extract_invocations(doc, parse_markdown(doc))
    assert bool(found) is is_command
