"""Matching documented arguments against the argparse model follows argparse's own rules."""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import re
import shlex
from functools import cache
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from easel_ls.model.argmatch import ArgToken, MatchIssue, match_invocation
from easel_ls.model.argparse_model import ParserModel, analyse_script

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "argparse"
PLACEHOLDER = re.compile(r"<[^>]*>|\{[^}]*\}|\$\w+|\.\.\.")


@cache
def model_of(name: str) -> ParserModel:
    model = analyse_script((FIXTURES / name).read_text(encoding="utf-8"), name)
    assert model.parser is not None, model.reason
    return model.parser


def tokens(command: str) -> list[ArgToken]:
    """Words of a documented command; `[...]` marks optional words as in usage notation."""
    words: list[ArgToken] = []
    for word in shlex.split(command):
        optional = word.startswith("[") or word.endswith("]")
        text = word.strip("[]") if optional else word
        words.append(ArgToken(text, bool(PLACEHOLDER.search(text)), optional))
    return words


def issues(fixture: str, command: str) -> list[MatchIssue]:
    return match_invocation(model_of(fixture), tokens(command))


def kinds(fixture: str, command: str) -> list[tuple[str, int | None]]:
    return [(issue.kind, issue.token_index) for issue in issues(fixture, command)]


def only(fixture: str, command: str) -> MatchIssue:
    found = issues(fixture, command)
    assert len(found) == 1, found
    return found[0]


def line_of(name: str, needle: str) -> int:
    lines = (FIXTURES / name).read_text(encoding="utf-8").splitlines()
    return next(number for number, text in enumerate(lines) if needle in text)


# --- each issue kind ----------------------------------------------------------------------------


def test_unknown_option_with_did_you_mean():
    issue = only("options.py", "--topic x --ouput out.md")
    assert (issue.kind, issue.token_index) == ("unknown-option", 2)
    assert issue.message == "unknown option `--ouput`"
    assert issue.suggestions[0] == "--output"


def test_unknown_option_in_a_subcommand_names_the_subcommand():
    issue = only("subcommands.py", "meta --topic t --titel x")
    assert issue.message == "unknown option `--titel` for `meta`"
    assert issue.suggestions[0] == "--title"


def test_every_unknown_flag_is_reported_when_no_value_can_be_mistaken():
    assert kinds("options.py", "--topic x --dryrun --verbse") == [
        ("unknown-option", 2),
        ("unknown-option", 3),
    ]


def test_an_ambiguous_abbreviation_is_an_unknown_option_listing_the_candidates():
    issue = only("main_function.py", "--o x")
    assert issue.kind == "unknown-option"
    assert set(issue.suggestions) == {"--output", "--open"}
    assert "ambiguous" in issue.message


def test_abbreviations_are_errors_when_allow_abbrev_is_false():
    issue = only("prefix_and_abbrev.py", "--outp file")
    assert issue.kind == "unknown-option"
    assert "--output" in issue.suggestions


def test_unknown_subcommand_with_did_you_mean():
    issue = only("subcommands.py", "recrod --topic t --layer plan a.md")
    assert (issue.kind, issue.token_index) == ("unknown-subcommand", 0)
    assert issue.suggestions[0] == "record"
    assert issue.related_line == line_of("subcommands.py", 'add_subparsers(dest="command"')


def test_missing_subcommand_when_subparsers_are_required():
    issue = only("subcommands.py", "--root here")
    assert (issue.kind, issue.token_index) == ("missing-subcommand", None)
    assert "`meta`, `record`, `remote`" in issue.message


def test_missing_nested_subcommand():
    issue = only("subcommands.py", "remote")
    assert issue.kind == "missing-subcommand" and "for `remote`" in issue.message


def test_missing_required_options_and_positionals_are_one_issue():
    issue = only("subcommands.py", "record --layer plan")
    assert (issue.kind, issue.token_index) == ("missing-required", None)
    assert "`--topic`" in issue.message and "`outputs`" in issue.message
    assert issue.related_line == line_of("subcommands.py", 'record.add_argument("--topic"')


def test_a_required_mutually_exclusive_group_needs_one_member():
    issue = only("groups_and_loops.py", "--draft")
    assert issue.kind == "missing-required"
    assert "one of `--text`/`--file`" in issue.message


def test_invalid_choice_with_the_choices_resolved_from_constants():
    issue = only("options.py", "--topic x --format xml")
    assert (issue.kind, issue.token_index) == ("invalid-choice", 3)
    assert "`html`, `json`, `md`" in issue.message
    assert issue.related_line == line_of("options.py", '"--format"')


def test_invalid_choice_after_equals_underlines_only_the_value():
    issue = only("options.py", "--topic x --format=xml")
    assert issue.kind == "invalid-choice" and issue.span == (9, 12)


def test_invalid_choice_suggests_the_closest_choice():
    issue = only("subcommands.py", "record --topic t --layer plna a.md")
    assert issue.suggestions == ("plan",)


def test_typed_choices_compare_as_argparse_converts_them():
    assert issues("options.py", "--topic x --level 02 --mode FAST") == []
    assert kinds("options.py", "--topic x --level 5") == [("invalid-choice", 3)]


def test_parent_option_after_the_subcommand_is_misplaced():
    issue = only("subcommands.py", "meta --topic t --root here")
    assert (issue.kind, issue.token_index, issue.owner) == ("misplaced-option", 3, "parent")
    assert issue.related_line == line_of("subcommands.py", '"--root"')


def test_subcommand_option_before_the_subcommand_is_misplaced():
    issue = only("subcommands.py", "--topic t meta")
    assert (issue.kind, issue.token_index, issue.owner) == ("misplaced-option", 0, "meta")


def test_a_parent_option_the_subcommand_also_defines_is_fine_after_it():
    assert issues("subcommands.py", "meta --topic t --quiet") == []
    assert kinds("subcommands.py", "meta --topic t -q") == [("misplaced-option", 3)]


def test_two_options_of_one_mutually_exclusive_group():
    issue = only("groups_and_loops.py", "--text a --file b")
    assert (issue.kind, issue.token_index) == ("mutually-exclusive", 2)
    assert "`--file`" in issue.message and "`--text`" in issue.message


def test_a_flag_given_a_value_with_equals():
    issue = only("options.py", "--topic x --dry-run=1")
    assert (issue.kind, issue.token_index) == ("option-value-mismatch", 2)
    assert issue.span == (9, 11)


def test_a_value_option_at_the_end_or_before_another_option_has_no_value():
    assert kinds("options.py", "--topic x --output") == [("option-value-mismatch", 2)]
    assert kinds("options.py", "--output --topic x") == [("option-value-mismatch", 0)]
    assert kinds("nargs_and_actions.py", "src --size 1") == [("option-value-mismatch", 1)]


def test_an_unknown_letter_in_a_short_cluster():
    issue = only("options.py", "--topic x -vq")
    assert issue.kind == "unknown-option" and issue.span == (2, 3)


# --- look-alikes that must not be flagged -------------------------------------------------------


def test_abbreviations_of_a_unique_long_option_are_accepted():
    assert issues("options.py", "--top x --out f --form json --dry") == []


def test_option_equals_value_and_short_option_attached_values():
    assert issues("options.py", "--topic=x --output=a.md -ob.md --format=md") == []


def test_short_clusters():
    assert issues("options.py", "--topic x -vvv") == []
    assert issues("nargs_and_actions.py", "src -xk -n3 -xn 4") == []


def test_negative_numbers_are_values():
    assert issues("options.py", "--topic x --offset -1") == []


def test_double_dash_ends_options():
    assert issues("nargs_and_actions.py", "src -- --not-an-option -x") == []


def test_nargs_star_swallows_values_and_fixed_nargs_take_exactly_n():
    assert issues("nargs_and_actions.py", "src a b c --size 1 2 --label x y z --tag t") == []


def test_remainder_takes_everything_after_it():
    assert issues("nargs_and_actions.py", "src --exec ls -la --whatever") == []
    assert issues("remainder_positional.py", "--timeout 3 prog --x -y z") == []


def test_optional_nargs_may_be_left_without_a_value():
    assert issues("nargs_and_actions.py", "src --level") == []
    assert kinds("nargs_and_actions.py", "src --level mid") == [("invalid-choice", 2)]


def test_boolean_optional_action_accepts_no_x():
    assert issues("nargs_and_actions.py", "src --no-color") == []
    assert issues("nargs_and_actions.py", "src --color") == []


def test_aliases_are_subcommands():
    assert issues("subcommands.py", "m --topic t") == []
    assert issues("subcommands.py", "remote ls") == []


def test_parent_options_before_the_subcommand_and_nested_subcommands():
    assert issues("subcommands.py", "--root r -q remote add origin --url u") == []


def test_options_from_parents_and_helpers_are_accepted():
    assert issues("parents_and_helpers.py", "--profile p --outputs o --trace t --proxy x") == []
    assert issues("parents_and_helpers.py", "--outputs o publish --outputs p --exec") == []


def test_placeholders_are_never_judged():
    assert issues("options.py", "--topic <主题> --format {format}") == []
    assert issues("subcommands.py", "record --topic $TOPIC --layer <layer> <file>") == []


def test_a_placeholder_where_an_option_name_belongs_stops_quietly():
    assert issues("subcommands.py", "meta --{flag} value") == []


def test_a_placeholder_subcommand_stops_checking_without_a_false_alarm():
    assert issues("subcommands.py", "<command> --anything goes") == []


def test_an_ellipsis_stands_for_more_arguments():
    assert issues("subcommands.py", "record --topic t ...") == []


def test_bracketed_options_are_judged_by_name_not_presence():
    assert issues("subcommands.py", "record [--topic t] --layer plan out.md") == []
    assert kinds("subcommands.py", "record --topic t --layer plan a [--dry]") == [
        ("unknown-option", 6)
    ]
    assert issues("groups_and_loops.py", "[--text a] [--file b]") == []


def test_bracketed_alternatives_are_each_checked_against_choices():
    assert issues("subcommands.py", "record --topic t [--layer plan|write] a") == []
    issue = only("subcommands.py", "record --topic t [--layer plan|draft] a")
    assert issue.kind == "invalid-choice" and "`draft`" in issue.message


def test_help_stops_checking_like_argparse_exits():
    assert issues("options.py", "--help") == []
    assert issues("options.py", "--bogus --help") == []
    assert issues("subcommands.py", "record -h") == []
    assert issues("options.py", "--version") == []


def test_parse_known_args_accepts_unknown_options_but_still_checks_choices():
    assert issues("parse_known_args.py", "--foo --mode a") == []
    assert kinds("parse_known_args.py", "--foo --mode c") == [("invalid-choice", 2)]


def test_an_open_parser_is_never_judged():
    open_model = analyse_script((FIXTURES / "dynamic_flags.py").read_text(encoding="utf-8"))
    assert open_model.parser is not None and open_model.parser.open
    assert match_invocation(open_model.parser, tokens("--whatever --known")) == []


def test_an_open_subparser_silences_its_level_and_below():
    source = (
        "import argparse\n"
        "from elsewhere import add_everything\n"
        "parser = argparse.ArgumentParser()\n"
        "parser.add_argument('--root')\n"
        "commands = parser.add_subparsers(dest='cmd')\n"
        "dynamic = commands.add_parser('dynamic')\n"
        "add_everything(dynamic)\n"
        "parser.parse_args()\n"
    )
    model = analyse_script(source)
    assert model.status == "open" and model.parser is not None
    assert match_invocation(model.parser, tokens("dynamic --anything")) == []
    assert kinds_for(model.parser, "--roo x --bogus") == [("unknown-option", 2)]


def kinds_for(model: ParserModel, command: str) -> list[tuple[str, int | None]]:
    return [(issue.kind, issue.token_index) for issue in match_invocation(model, tokens(command))]


# --- robustness ---------------------------------------------------------------------------------

WORDS = st.sampled_from(
    [
        "--topic",
        "t",
        "--top",
        "-vvx",
        "-o",
        "--output=x",
        "--",
        "-",
        "",
        "meta",
        "m",
        "record",
        "remote",
        "add",
        "--layer",
        "plan",
        "--root",
        "-q",
        "-h",
        "<主题>",
        "...",
        "|",
        "--no-color",
        "-1",
        "--size",
        "=",
        "--=",
        "-=x",
        "+x",
        "++",
    ]
)
FIXTURE_NAMES = st.sampled_from(
    [
        "options.py",
        "subcommands.py",
        "nargs_and_actions.py",
        "groups_and_loops.py",
        "prefix_and_abbrev.py",
        "remainder_positional.py",
        "parents_and_helpers.py",
        "parse_known_args.py",
    ]
)
TOKEN = st.builds(ArgToken, st.one_of(WORDS, st.text(max_size=8)), st.booleans(), st.booleans())


@settings(max_examples=400, deadline=None)
@given(FIXTURE_NAMES, st.lists(TOKEN, max_size=12))
def test_arbitrary_token_lists_never_raise(fixture, args):
    found = match_invocation(model_of(fixture), args)
    for issue in found:
        assert issue.token_index is None or 0 <= issue.token_index < len(args)
        assert issue.message


# --- argparse itself as the oracle --------------------------------------------------------------

ORACLE_WORDS = {
    "options.py": "--topic x --top -o f --output=a -ob --format md xml --format=json --dry-run "
    "--dry-run=1 -v -vv -vq --offset -1 --level 2 5 --mode FAST --o --ou -- y",
    "subcommands.py": "meta m record remote add list ls --topic t --root r -q --quiet --title "
    "--layer plan plna a.md --url u origin -- --ro --ti",
    "nargs_and_actions.py": "src a --size 1 2 --tag t --label x --level low mid --color "
    "--no-color --strict --fast -n 3 -n3 -x -k -xk -xn --exec ls --rest -- -1 --co --no",
    "groups_and_loops.py": "--text a --file b --draft --final --cover c --images --width 3 --w",
    "prefix_and_abbrev.py": "+x ++extra ++ex --output f --outp --outline -h x +",
    "remainder_positional.py": "--timeout 3 prog --x -y z -- --time",
}


def real_parser(name: str, monkeypatch) -> argparse.ArgumentParser:
    """The fixture's own parser, built by running the fixture (tests only, never analysis)."""
    built: list[argparse.ArgumentParser] = []

    def record_parser(self, args=None, namespace=None):
        built.append(self)
        return argparse.Namespace()

    with monkeypatch.context() as patch:
        patch.setattr(argparse.ArgumentParser, "parse_args", record_parser)
        source = (FIXTURES / name).read_text(encoding="utf-8")
        exec(compile(source, name, "exec"), {"__name__": "fixture"})
    return built[-1]


def argparse_accepts(parser: argparse.ArgumentParser, words: list[str]) -> bool:
    try:
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            parser.parse_args(words)
    except SystemExit as exit_:
        return exit_.code == 0  # --help and --version exit cleanly
    return True


def test_whatever_argparse_accepts_is_never_flagged(monkeypatch):
    generator = random.Random(20260601)
    for name, vocabulary in ORACLE_WORDS.items():
        parser, model = real_parser(name, monkeypatch), model_of(name)
        words = vocabulary.split()
        rejected = caught = 0
        for _ in range(3000):
            command = [generator.choice(words) for _ in range(generator.randint(0, 7))]
            found = match_invocation(model, [ArgToken(word, False) for word in command])
            if argparse_accepts(parser, command):
                assert found == [], (name, command, found)
            else:
                rejected += 1
                caught += bool(found)
        assert caught > rejected * 0.7, (name, caught, rejected)


def test_option_with_placeholder_value_after_equals_is_still_checked() -> None:
    from easel_ls.model.argparse_model import analyse_script

    source = (
        "import argparse\np = argparse.ArgumentParser()\n"
        "p.add_argument('--topic')\np.add_argument('--layer')\np.parse_args()\n"
    )
    parser = analyse_script(source).parser
    assert parser is not None
    tokens = [ArgToken("--topic=<主题>", True), ArgToken("--lyaer", False), ArgToken("plan", False)]
    (issue,) = match_invocation(parser, tokens)
    assert issue.kind == "unknown-option" and issue.token_index == 1
    assert match_invocation(parser, [ArgToken("--topic=<主题>", True)]) == []


def test_parser_lookup_tables_are_built_once_per_model_and_never_outlive_it() -> None:
    from easel_ls.model import argmatch
    from easel_ls.model.argparse_model import OptionSpec

    def parser_with(flag: str) -> ParserModel:
        option = OptionSpec(
            (flag,), flag[2:], "store", None, True, None, False, None, None, None, 1, 0
        )
        return ParserModel(options=[option])

    parser = parser_with("--a")
    assert argmatch._view_of(parser) is argmatch._view_of(parser)
    for _ in range(300):  # new models, some at the addresses of dead ones
        parser = parser_with("--b")
        assert match_invocation(parser, [ArgToken("--b", False), ArgToken("1", False)]) == []
        assert [i.kind for i in match_invocation(parser, [ArgToken("--a", False)])] == [
            "unknown-option"
        ]
        parser = parser_with("--a")
        assert match_invocation(parser, [ArgToken("--a", False), ArgToken("1", False)]) == []
    assert len(argmatch._VIEWS) < 600  # dead models' tables are pruned
