"""The static argparse model: read from the script's AST, never imported or run."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from easel_ls.model.argparse_model import ParserModel, ScriptModel, analyse_script

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "argparse"


def analyse(name: str) -> ScriptModel:
    path = FIXTURES / name
    return analyse_script(path.read_text(encoding="utf-8"), str(path))


def main_parser(name: str) -> ParserModel:
    model = analyse(name)
    assert model.status == "ok", model.reason
    assert model.parser is not None
    return model.parser


def line_of(name: str, needle: str) -> int:
    """0-based line of the first source line containing ``needle``."""
    lines = (FIXTURES / name).read_text(encoding="utf-8").splitlines()
    return next(number for number, text in enumerate(lines) if needle in text)


def option(parser: ParserModel, flag: str):
    found = parser.find_option(flag)
    assert found is not None, f"{flag} not in {parser.option_flags()}"
    return found


# --- top-level options --------------------------------------------------------------------------


def test_options_keep_flags_dest_and_the_line_of_their_add_argument():
    parser = main_parser("options.py")
    output = option(parser, "--output")
    assert output.flags == ("-o", "--output")
    assert output.dest == "output"
    assert output.metavar == "PATH"
    assert output.help == "where to write"
    assert output.takes_value and output.action == "store" and output.nargs is None
    assert output.line == line_of("options.py", '"--output"')
    assert output.column == len("parser.add_argument(")
    assert option(parser, "--dry-run").dest == "dry"


def test_help_is_an_option_unless_add_help_is_false():
    assert option(main_parser("options.py"), "-h").action == "help"
    assert main_parser("prefix_and_abbrev.py").find_option("-h") is None


def test_choices_resolve_module_constants_through_known_wrappers():
    parser = main_parser("options.py")
    assert option(parser, "--format").choices == ("html", "json", "md")  # sorted(FORMATS)
    assert option(parser, "--layer").choices == ("plan", "write", "publish")  # list(dict)
    assert option(parser, "--stage").choices == ("plan", "write", "publish")  # tuple(d.keys())
    level = option(parser, "--level")
    assert level.choices == ("1", "2", "3") and level.type_name == "int"
    assert option(parser, "--mode").type_name == "str.lower"


def test_required_default_and_actions_are_recorded():
    parser = main_parser("options.py")
    assert option(parser, "--topic").required
    assert not option(parser, "--output").required
    assert option(parser, "--format").default == "'md'"
    verbose = option(parser, "--verbose")
    assert verbose.action == "count" and not verbose.takes_value and verbose.nargs == 0
    assert option(parser, "--version").action == "version"


# --- subcommands --------------------------------------------------------------------------------


def test_subparsers_record_dest_required_aliases_and_help():
    parser = main_parser("subcommands.py")
    subparsers = parser.subparsers
    assert subparsers is not None
    assert subparsers.dest == "command" and subparsers.required
    assert subparsers.aliases == {"m": "meta"}
    assert subparsers.choices["m"] is subparsers.choices["meta"]
    assert subparsers.help["meta"] == "write the display header"
    assert subparsers.help["record"] == "record a step"
    assert subparsers.line == line_of("subcommands.py", 'add_subparsers(dest="command"')
    meta = subparsers.choices["meta"]
    assert meta.name == "meta" and meta.line == line_of("subcommands.py", 'add_parser("meta"')
    assert option(meta, "--topic").required


def test_nested_subparsers_and_required_set_as_an_attribute():
    parser = main_parser("subcommands.py")
    remote = parser.subcommand("remote")
    assert remote is not None and remote.subparsers is not None
    assert remote.subparsers.required  # remote_commands.required = True
    assert remote.subparsers.aliases == {"ls": "list"}
    add = remote.subcommand("add")
    assert add is not None
    assert [positional.dest for positional in add.positionals] == ["name"]
    assert option(add, "--url").required


def test_positionals_follow_argparse_required_rules():
    record = main_parser("subcommands.py").subcommand("record")
    assert record is not None
    (outputs,) = record.positionals
    assert outputs.nargs == "+" and outputs.required
    nargs = main_parser("nargs_and_actions.py")
    source, extras = nargs.positionals
    assert source.required and source.nargs is None
    assert extras.nargs == "*" and extras.required  # '*' without default is required in argparse


# --- parents, helpers, groups, loops ------------------------------------------------------------


def test_parents_copy_their_options_into_the_child():
    parser = main_parser("parents_and_helpers.py")
    assert option(parser, "--profile").line == line_of("parents_and_helpers.py", '"--profile"')
    publish = parser.subcommand("publish")
    assert publish is not None
    assert publish.find_option("--profile") is not None


def test_helper_functions_add_options_to_the_parser_they_are_given():
    parser = main_parser("parents_and_helpers.py")
    assert option(parser, "--outputs").required
    assert option(parser, "--force").action == "store_true"
    assert option(parser, "--proxy").group_title == "network"
    publish = parser.subcommand("publish")
    assert publish is not None
    assert option(publish, "--outputs").required
    assert publish.find_option("--force") is None  # with_force=False takes the other branch
    assert option(publish, "--exec").action == "store_true"


def test_an_option_added_under_an_unknown_condition_exists_but_is_never_required():
    trace = option(main_parser("parents_and_helpers.py"), "--trace")
    assert trace.conditional and not trace.required


def test_argument_groups_and_mutually_exclusive_groups():
    parser = main_parser("groups_and_loops.py")
    text, file = option(parser, "--text"), option(parser, "--file")
    assert text.exclusive_group is not None and text.exclusive_group == file.exclusive_group
    assert text.group_title == "source"
    assert parser.required_exclusive_groups == {text.exclusive_group}
    draft, final = option(parser, "--draft"), option(parser, "--final")
    assert draft.exclusive_group == final.exclusive_group != text.exclusive_group
    assert draft.exclusive_group not in parser.required_exclusive_groups


def test_loops_over_literals_add_each_flag():
    parser = main_parser("groups_and_loops.py")
    assert option(parser, "--cover").help == "path of the cover"
    assert option(parser, "--thumbnail").help == "path of the thumbnail"
    assert option(parser, "--images").action == "store_true"  # loop over a module constant
    assert option(parser, "--videos").action == "store_true"
    width = option(parser, "--width")
    assert width.help == "pixels" and width.type_name == "int"


def test_set_defaults_is_recorded_and_updates_option_defaults():
    parser = main_parser("groups_and_loops.py")
    assert parser.defaults["func"] == "print"
    assert option(parser, "--width").default == "'1080'"


# --- nargs, actions, prefixes -------------------------------------------------------------------


def test_every_nargs_form():
    parser = main_parser("nargs_and_actions.py")
    assert option(parser, "--size").nargs == 2
    assert option(parser, "--label").nargs == "+"
    assert option(parser, "--level").nargs == "?"
    assert option(parser, "--exec").nargs == "..."  # argparse.REMAINDER
    assert option(parser, "--rest").nargs == "..."  # from argparse import REMAINDER
    assert option(parser, "--size").metavar == "W H"


def test_action_kinds_are_normalised_and_boolean_optional_accepts_no_x():
    parser = main_parser("nargs_and_actions.py")
    color = option(parser, "--no-color")
    assert color.flags == ("--color", "--no-color")
    assert color.action == "boolean_optional" and not color.takes_value
    assert option(parser, "--strict").action == "store_const"
    assert option(parser, "--loose").action == "store_false"
    assert option(parser, "--fast").action == "append_const"
    assert option(parser, "--tag").action == "append" and option(parser, "--tag").takes_value
    assert option(parser, "--label").action == "extend"


def test_prefix_chars_add_help_and_allow_abbrev():
    parser = main_parser("prefix_and_abbrev.py")
    assert parser.prefix_chars == "-+"
    assert not parser.add_help and not parser.allow_abbrev
    assert option(parser, "++extra").flags == ("+x", "++extra")
    assert option(parser, "++extra").dest == "extra"


# --- which parser is the main one ---------------------------------------------------------------


def test_the_main_parser_is_the_one_a_main_function_parses_with():
    parser = main_parser("main_function.py")
    assert option(parser, "--pick").choices == ("a", "b")
    assert parser.line == line_of("main_function.py", "argparse.ArgumentParser()")


def test_a_parser_built_in_an_uncalled_entry_point_is_still_found():
    assert option(main_parser("entry_point_only.py"), "--name").required


def test_parse_known_args_accepts_unknown_options_but_is_not_open():
    parser = main_parser("parse_known_args.py")
    assert parser.accepts_unknown_options and not parser.open


# --- open, never guessed ------------------------------------------------------------------------


def assert_open(name: str, reason_part: str, needle: str) -> ScriptModel:
    model = analyse(name)
    assert model.status == "open"
    assert model.reason is not None and reason_part in model.reason
    assert model.reason_line == line_of(name, needle)
    return model


def test_flags_from_a_runtime_list_make_the_parser_open():
    model = assert_open("dynamic_flags.py", "computed", "add_argument(*option")
    assert model.parser is not None and model.parser.open


def test_choices_from_an_unknown_call_leave_only_those_values_unjudged():
    # Real scripts build choices from a registry (`choices=sorted(PLATFORMS)` imported from a
    # module): the option names and the rest of the command line stay checkable.
    model = analyse("dynamic_choices.py")
    assert model.status == "ok"
    template = option(model.parser, "--template")
    assert template.choices is None and template.takes_value
    assert option(model.parser, "--theme").choices is None


def test_subcommands_from_a_runtime_registry_make_the_parser_open():
    assert_open("dynamic_subcommands.py", "subcommand", "add_parser(name)")


def test_a_parser_from_an_imported_factory_is_open():
    assert_open("imported_factory.py", "built elsewhere", 'parser.add_argument("--extra")')


def test_a_parser_handed_to_an_imported_helper_is_open():
    assert_open("imported_helper.py", "add_common_options", "add_common_options(parser)")


def test_an_argument_parser_subclass_is_open():
    assert_open("parser_subclass.py", "FriendlyParser", "parser = FriendlyParser()")


def test_two_candidate_main_parsers_are_open():
    assert_open("two_parsers.py", "several parsers", "legacy.parse_args")


def test_what_a_script_does_after_parsing_is_not_walked():
    # Real scripts parse first and then compute (a lunar calendar's self-test walks every day
    # of fifty years): walking that work used to exhaust the analysis budget.
    parser = main_parser("work_after_parsing.py")
    assert parser.option_flags() == ["-h", "--help", "--first", "--last"]


def test_a_later_call_that_reaches_a_parser_is_still_followed():
    # After a first parse: a helper naming the module's parser, a helper handed the parser,
    # and a helper building a second parser (which makes the script open) all still count.
    model = analyse("late_options.py")
    assert model.parser is not None
    assert {"--early", "--verbose", "--color"} <= set(model.parser.option_flags())
    assert model.status == "open"
    assert model.reason is not None and "several parsers" in model.reason


def test_an_nargs_argparse_rejects_makes_the_parser_open_not_a_crash():
    # Found by fuzzing: a list (unhashable), a negative count or an unknown string is no nargs
    # argparse documents.
    for nargs in ('["fast", "slow"]', "-1", "'x'", "{}"):
        source = (
            "import argparse\nparser = argparse.ArgumentParser()\n"
            f"parser.add_argument('--mode', nargs={nargs})\nparser.parse_args()\n"
        )
        model = analyse_script(source, "bad_nargs.py")
        assert model.status == "open", nargs
        assert model.reason is not None and "no nargs argparse documents" in model.reason
        assert model.reason_line == 2


def test_a_script_without_argparse_is_not_analysable():
    model = analyse("no_argparse.py")
    assert model.status == "no-argparse" and model.parser is None
    assert model.reason is not None and "does not use argparse" in model.reason


def test_a_syntax_error_is_reported_with_its_line():
    model = analyse("syntax_error.py")
    assert model.status == "syntax-error" and model.parser is None
    assert model.reason is not None and model.reason.startswith("syntax error")
    source = (FIXTURES / "syntax_error.py").read_text(encoding="utf-8")
    try:
        compile(source, "syntax_error.py", "exec")
    except SyntaxError as error:
        assert model.reason_line == (error.lineno or 1) - 1


# --- safety and limits --------------------------------------------------------------------------


def test_analysis_never_runs_the_script(tmp_path):
    fixture = FIXTURES / "sentinel_writer.py"
    sentinel = tmp_path / "sentinel"
    os.environ["EASEL_SENTINEL"] = str(sentinel)
    try:
        model = analyse_script(fixture.read_text(encoding="utf-8"), str(fixture))
    finally:
        del os.environ["EASEL_SENTINEL"]
    assert model.status == "ok" and model.parser is not None
    assert not sentinel.exists()
    # The fixture really does write the sentinel when run, so the check above can fail.
    ran = tmp_path / "ran"
    environment = {**os.environ, "EASEL_SENTINEL": str(ran)}
    subprocess.run([sys.executable, str(fixture)], env=environment, check=True, timeout=30)
    assert ran.read_text() == "ran"


def generated_script(commands: int) -> str:
    lines = ["import argparse", "CHOICES = ('a', 'b')", "def add(p, i):"]
    lines += ["    p.add_argument(f'--opt-{i}', choices=CHOICES)"]
    lines += ["parser = argparse.ArgumentParser()", "sub = parser.add_subparsers(dest='cmd')"]
    for number in range(commands):
        lines += [
            f"c{number} = sub.add_parser('c{number}', help='command {number}')",
            f"c{number}.add_argument('--value', type=int, default={number})",
            f"add(c{number}, {number})",
            "if CHOICES:",
            f"    c{number}.add_argument('--flag', action='store_true')",
        ]
    return "\n".join([*lines, "parser.parse_args()"])


def test_a_1500_line_script_is_fast():
    source = generated_script(300)
    assert source.count("\n") >= 1500
    started = time.perf_counter()
    model = analyse_script(source)
    elapsed = time.perf_counter() - started
    assert model.status == "ok" and model.parser is not None
    assert model.parser.subparsers is not None and len(model.parser.subparsers.choices) == 300
    assert elapsed < 0.5


def test_a_huge_script_or_deep_nesting_does_not_blow_up():
    started = time.perf_counter()
    huge = analyse_script(generated_script(20_000))  # 100 000 lines
    assert time.perf_counter() - started < 30
    # Bounded work: either fully modelled or open with a reason, never a crash.
    assert huge.status == "ok" or (huge.status == "open" and "too" in (huge.reason or ""))
    deep_call = "import argparse\nx = " + "f(" * 180 + ")" * 180 + "\n"
    assert analyse_script(deep_call).status in ("open", "syntax-error")
    long_sum = "import argparse\nx = 1" + " + 1" * 30_000
    assert analyse_script(long_sum).status in ("open", "syntax-error")


def test_self_recursive_helpers_are_refused_not_followed_forever():
    source = (
        "import argparse\n"
        "def add(p):\n"
        "    p.add_argument('--x')\n"
        "    add(p)\n"
        "parser = argparse.ArgumentParser()\n"
        "add(parser)\n"
        "parser.parse_args()\n"
    )
    model = analyse_script(source)
    assert model.status == "open" and model.reason_line == 3


ARGPARSE_LINES = [
    "import argparse",
    "p = argparse.ArgumentParser(prefix_chars='-+', allow_abbrev=False)",
    "p.add_argument('--a', choices=C)",
    "p.add_argument(*F)",
    "s = p.add_subparsers(dest='cmd', required=True)",
    "q = s.add_parser('x', aliases=['y'], parents=[p])",
    "q.add_argument('n', nargs='+')",
    "g = p.add_mutually_exclusive_group(required=True)",
    "g.add_argument('--b', action='store_true')",
    "for f in ('--c', '--d'):\n    p.add_argument(f)",
    "def h(x):\n    x.add_argument('--e')\n    return x",
    "h(p)",
    "C = sorted({'k': 1})",
    "F = [1, 2]",
    "if z:\n    p = argparse.ArgumentParser()",
    "p.parse_args()",
    "p.parse_known_args()",
    "class P(argparse.ArgumentParser): pass",
    "p = P()",
    "while True:\n    q.add_argument('--w')",
    "try:\n    import x\nexcept ImportError:\n    p.add_argument('--fallback')",
    "[p.add_argument(f) for f in F]",
    "lambda: p.add_argument('--l')",
]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_arbitrary_source_never_raises(source):
    assert analyse_script(source).status in ("ok", "open", "no-argparse", "syntax-error")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(ARGPARSE_LINES), max_size=14))
def test_arbitrary_argparse_programs_never_raise(lines):
    model = analyse_script("\n".join(lines))
    assert model.status in ("ok", "open", "no-argparse", "syntax-error")
    if model.status == "ok":
        assert model.parser is not None and not model.parser.open


def test_subclass_that_only_changes_error_output_is_analysed_like_argument_parser() -> None:
    source = (
        "import argparse\n"
        "class _Parser(argparse.ArgumentParser):\n"
        '    """one-line errors"""\n'
        "    def error(self, message):\n"
        "        self.exit(2, message)\n"
        "p = _Parser(prog='m')\n"
        "p.add_argument('--topic', required=True)\n"
        "p.parse_args()\n"
    )
    model = analyse_script(source)
    assert model.status == "ok"
    assert model.parser is not None and model.parser.find_option("--topic") is not None


def test_subclass_that_overrides_parsing_stays_open() -> None:
    source = (
        "import argparse\n"
        "class P(argparse.ArgumentParser):\n"
        "    def parse_args(self, *a):\n"
        "        return super().parse_args(*a)\n"
        "p = P()\n"
        "p.add_argument('--x')\n"
        "p.parse_args()\n"
    )
    assert analyse_script(source).status == "open"


# --- words the script answers before argparse -------------------------------------------------


def test_argv_words_are_the_strings_compared_with_sys_argv() -> None:
    from easel_ls.model.argparse_model import analyse_script

    source = (
        "import argparse, sys\n"
        "from sys import argv\n"
        "args = sys.argv[1:]\n"
        'if "--selftest" in sys.argv:\n'
        "    raise SystemExit(0)\n"
        'if len(argv) > 1 and argv[1] in ("selftest", "--version"):\n'
        "    raise SystemExit(0)\n"
        'if args == ["--check"]:\n'
        "    pass\n"
        'label = "--not-compared"\n'
        "parser = argparse.ArgumentParser()\n"
        'parser.add_argument("--topic", required=True)\n'
        "parser.parse_args()\n"
    )
    model = analyse_script(source)
    assert model.status == "ok"
    assert model.argv_words == {"--selftest", "selftest", "--version", "--check"}


def test_a_script_that_never_reads_sys_argv_has_no_argv_words() -> None:
    from easel_ls.model.argparse_model import analyse_script

    source = (
        "import argparse\n"
        "parser = argparse.ArgumentParser()\n"
        'parser.add_argument("--argv-like", help="argv")\n'
        "parser.parse_args()\n"
    )
    assert analyse_script(source).argv_words == frozenset()


def test_analysis_leaves_no_cycles_holding_the_syntax_tree() -> None:
    # Functions refer to their scope and the scope to them: left as they are, the syntax tree
    # lives until the collector walks it all (costlier than parsing it).
    import gc

    source = (
        "import argparse\n"
        "def helper(p, name):\n"
        "    def inner(q):\n"
        "        q.add_argument(name)\n"
        "    inner(p)\n"
        "def main():\n"
        "    p = argparse.ArgumentParser()\n"
        "    helper(p, '--x')\n"
        "    p.parse_args()\n"
        "main()\n"
    )
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        model = analyse_script(source)
        assert model.status == "ok" and model.parser is not None
        assert model.parser.find_option("--x")
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()
