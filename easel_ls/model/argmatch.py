"""Match a documented command's arguments against a static argparse model.

The matcher follows argparse's own algorithm (3.11): every word is classified as an option
('O'), a value ('A') or the `--` separator, then options and positionals consume words through
the same nargs patterns argparse uses. It reports only what argparse would reject, and stops
quietly where the documentation stops being literal (placeholders, `...`) or where one error
would make the rest guesswork (an unknown option whose value it cannot tell apart).
"""

from __future__ import annotations

import difflib
import functools
import re
import weakref
from dataclasses import dataclass, field
from typing import Literal

from easel_ls.model.argparse_model import OptionSpec, ParserModel, PositionalSpec

IssueKind = Literal[
    "unknown-option",
    "unknown-subcommand",
    "missing-subcommand",
    "missing-required",
    "invalid-choice",
    "misplaced-option",
    "mutually-exclusive",
    "option-value-mismatch",
]
_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")
_ELLIPSES = frozenset({"...", "…", "[...]"})


@dataclass
class ArgToken:
    text: str
    placeholder: bool
    optional: bool = False


@dataclass
class MatchIssue:
    kind: IssueKind
    token_index: int | None
    message: str
    suggestions: tuple[str, ...] = ()
    related_line: int | None = None
    owner: str | None = None
    span: tuple[int, int] | None = None


def match_invocation(model: ParserModel, args: list[ArgToken]) -> list[MatchIssue]:
    """What argparse would reject in ``args`` (the words after the script path)."""
    matcher = _Matcher(args)
    matcher.match_level(model, list(range(len(args))), ())
    if not matcher.stopped:
        matcher.report_missing()
    return matcher.issues


def positional_owners(model: ParserModel, args: list[ArgToken]) -> dict[int, PositionalSpec]:
    """For each word (by index in ``args``) a positional argument takes, that positional, as
    argparse assigns them (nargs patterns, options in between, subcommand levels)."""
    matcher = _Matcher(args)
    matcher.match_level(model, list(range(len(args))), ())
    return matcher.positional_owners


# --- one parser's view: argparse's option lookup ------------------------------------------------


@dataclass(eq=False)
class _Slot:
    """An argparse action as the parse loop sees it."""

    nargs: str | int | None
    option: OptionSpec | None = None
    positional: PositionalSpec | None = None
    subcommands: bool = False

    @property
    def is_option(self) -> bool:
        return self.option is not None


@dataclass
class _Optional:
    """What ``_parse_optional`` returns: the slot (None if unknown) and an explicit value."""

    slot: _Slot | None
    option_string: str
    explicit_arg: str | None


class _ParserView:
    def __init__(self, model: ParserModel) -> None:
        # No reference to the model itself: views are cached while their model lives.
        self.allow_abbrev = model.allow_abbrev
        self.prefix_chars = model.prefix_chars or "-"
        self.slots: dict[str, _Slot] = {}
        self.option_slots: list[_Slot] = []
        for option in model.options:
            slot = _Slot(0 if not option.takes_value else option.nargs, option=option)
            self.option_slots.append(slot)
            for flag in option.flags:
                self.slots[flag] = slot
        self.positional_slots = [_Slot(item.nargs, positional=item) for item in model.positionals]
        if model.subparsers is not None:
            position = min(model.subparsers.position, len(self.positional_slots))
            self.positional_slots.insert(position, _Slot("A...", subcommands=True))
        self.negative_number_options = any(_NEGATIVE_NUMBER.match(flag) for flag in self.slots)
        # text -> parse_optional(text): the same words recur in every command calling the script
        # (and an unknown one costs a scan of every flag). The answers are never modified.
        self._parsed: dict[str, _Optional | list[str] | None] = {}

    def parse_optional(self, text: str) -> _Optional | list[str] | None:
        """argparse's ``_parse_optional``: None for a value, a list of flags when ambiguous."""
        if not text or text[0] not in self.prefix_chars:
            return None
        try:
            return self._parsed[text]
        except KeyError:
            pass
        parsed = self._parse_option_word(text)
        if len(self._parsed) < 4096:
            self._parsed[text] = parsed
        return parsed

    def _parse_option_word(self, text: str) -> _Optional | list[str] | None:
        if text in self.slots:
            return _Optional(self.slots[text], text, None)
        if len(text) == 1:
            return None
        if "=" in text:
            option_string, explicit_arg = text.split("=", 1)
            if option_string in self.slots:
                return _Optional(self.slots[option_string], option_string, explicit_arg)
        candidates = self.option_tuples(text)
        if len({id(candidate.slot) for candidate in candidates}) > 1:
            return [candidate.option_string for candidate in candidates]
        if candidates:
            return candidates[0]
        if _NEGATIVE_NUMBER.match(text) and not self.negative_number_options:
            return None
        if " " in text:
            return None
        return _Optional(None, text, None)

    def option_tuples(self, text: str) -> list[_Optional]:
        chars = self.prefix_chars
        found: list[_Optional] = []
        if text[1] in chars:
            if not self.allow_abbrev:
                return found
            prefix, _, explicit = text.partition("=")
            explicit_arg = explicit if "=" in text else None
            for flag, slot in self.slots.items():
                if flag.startswith(prefix):
                    found.append(_Optional(slot, flag, explicit_arg))
            return found
        short_prefix, short_explicit = text[:2], text[2:]
        for flag, slot in self.slots.items():
            if flag == short_prefix:
                found.append(_Optional(slot, flag, short_explicit))
            elif flag.startswith(text):
                found.append(_Optional(slot, flag, None))
        return found


# A script's parser is matched against every command that calls it: its lookup tables are built
# once per model object (analysed models are never changed). Weak references: a dead model's
# view is never returned, and dead entries are pruned as the table grows.
_VIEWS: dict[int, tuple[weakref.ref[ParserModel], _ParserView]] = {}
_views_prune_at = 256  # doubles with the live entries: pruning stays amortised O(1)


def _view_of(model: ParserModel) -> _ParserView:
    global _views_prune_at
    key = id(model)
    known = _VIEWS.get(key)
    if known is not None and known[0]() is model:
        return known[1]
    if len(_VIEWS) >= _views_prune_at:
        for dead in [k for k, (ref, _) in _VIEWS.items() if ref() is None]:
            del _VIEWS[dead]
        _views_prune_at = max(256, 2 * len(_VIEWS))
    view = _ParserView(model)
    _VIEWS[key] = (weakref.ref(model), view)
    return view


def _nargs_pattern(nargs: str | int | None, is_option: bool) -> str:
    if nargs is None:
        pattern = "(-*A-*)"
    elif nargs == "?":
        pattern = "(-*A?-*)"
    elif nargs == "*":
        pattern = "(-*[A-]*)"
    elif nargs == "+":
        pattern = "(-*A[A-]*)"
    elif nargs == "...":
        pattern = "([-AO]*)"
    elif nargs == "A...":
        pattern = "(-*A[-AO]*)"
    elif nargs == "==SUPPRESS==":
        pattern = "(-*-*)"
    elif isinstance(nargs, int):
        pattern = "(-*" + "-*".join("A" * nargs) + "-*)"
    else:
        pattern = "(-*A-*)"
    if is_option:
        pattern = pattern.replace("-*", "").replace("-", "")
    return pattern


@functools.lru_cache(maxsize=512)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)  # without re's own cache lookup (with its flag checks) per call


def _match_argument(slot: _Slot, pattern: str) -> int | None:
    found = _compiled(_nargs_pattern(slot.nargs, slot.is_option)).match(pattern)
    return len(found.group(1)) if found else None


def _match_partial(slots: list[_Slot], pattern: str) -> list[int]:
    for count in range(len(slots), 0, -1):
        joined = "".join(_nargs_pattern(slot.nargs, False) for slot in slots[:count])
        found = _compiled(joined).match(pattern)
        if found:
            return [len(group) for group in found.groups()]
    return []


# --- the matcher --------------------------------------------------------------------------------


@dataclass
class _LevelState:
    model: ParserModel
    view: _ParserView
    path: tuple[str, ...]
    seen: set[int] = field(default_factory=set)  # ids of slots that took part
    exclusive_seen: dict[int, tuple[OptionSpec, str]] = field(default_factory=dict)


class _Stop(Exception):
    """Checking cannot go on without guessing."""


class _Matcher:
    def __init__(self, args: list[ArgToken]) -> None:
        self.args = args
        self.issues: list[MatchIssue] = []
        self.stopped = False
        self.levels: list[_LevelState] = []
        self.provided: set[int] = set()  # ids of OptionSpecs given, even if misplaced
        self.positional_owners: dict[int, PositionalSpec] = {}  # word index -> its positional

    # -- levels ---------------------------------------------------------------------------------

    def match_level(self, model: ParserModel, indices: list[int], path: tuple[str, ...]) -> None:
        if model.open:
            self.stopped = True
            return
        state = _LevelState(model, _view_of(model), path)
        self.levels.append(state)
        try:
            self.parse_level(state, indices)
        except _Stop:
            self.stopped = True

    def parse_level(self, state: _LevelState, indices: list[int]) -> None:
        view = state.view
        fromfile = state.model.fromfile_prefix_chars
        pattern_parts: list[str] = []
        optionals: dict[int, _Optional] = {}
        words = indices
        after_separator = False
        for position, index in enumerate(indices):
            token = self.args[index]
            text = token.text
            if fromfile and text[:1] in fromfile:
                words = indices[:position]
                self.stopped = True
                break
            if text in _ELLIPSES or (token.optional and text == "|"):
                words = indices[:position]
                self.stopped = True  # the rest is notation, not arguments
                break
            if after_separator:
                pattern_parts.append("A")
                continue
            if text == "--" and not token.placeholder:
                pattern_parts.append("-")
                after_separator = True
                continue
            if token.placeholder and not _literal_option_name(text, view.prefix_chars):
                if _looks_like_option(text, view.prefix_chars):
                    words = indices[:position]  # an option name we cannot read
                    self.stopped = True
                    break
                pattern_parts.append("A")
                continue
            parsed = view.parse_optional(text)
            if isinstance(parsed, list):
                self.report_ambiguous(state, index, parsed)
                raise _Stop
            if parsed is None:
                pattern_parts.append("A")
            else:
                optionals[position] = parsed
                pattern_parts.append("O")
        self.run_parse_loop(state, words, "".join(pattern_parts), optionals)

    def run_parse_loop(
        self,
        state: _LevelState,
        words: list[int],
        pattern: str,
        optionals: dict[int, _Optional],
    ) -> None:
        positionals = list(state.view.positional_slots)
        truncated = self.stopped  # the command goes on beyond what can be read

        def consume_positionals(start: int) -> int:
            counts = _match_partial(positionals, pattern[start:])
            for slot, count in zip(positionals, counts, strict=False):
                self.take_action(state, slot, words[start : start + count], None)
                start += count
            del positionals[: len(counts)]
            return start

        start = 0
        last_option = max(optionals) if optionals else -1
        while start <= last_option:
            next_option = min(index for index in optionals if index >= start)
            if start != next_option:
                end = consume_positionals(start)
                if end > start:
                    start = end
                    continue
                start = end
            if start not in optionals:
                start = next_option  # words no positional takes (argparse: extras)
            start = self.consume_optional(state, words, pattern, optionals, start, truncated)
        consume_positionals(start)

    def consume_optional(
        self,
        state: _LevelState,
        words: list[int],
        pattern: str,
        optionals: dict[int, _Optional],
        start: int,
        truncated: bool,
    ) -> int:
        parsed = optionals[start]
        index = words[start]
        slot, option_string, explicit_arg = parsed.slot, parsed.option_string, parsed.explicit_arg
        if slot is None:
            return self.unknown_option(state, words, pattern, start)
        view = state.view
        while True:
            assert slot is not None and slot.option is not None
            if explicit_arg is None:
                count = _match_argument(slot, pattern[start + 1 :])
                if count is None:
                    if truncated and "O" not in pattern[start + 1 :]:
                        raise _Stop  # the values may lie beyond what can be read
                    self.report_missing_value(state, index, slot.option, option_string)
                    raise _Stop
                values = words[start + 1 : start + 1 + count]
                self.take_action(state, slot, values, index, option_string)
                return start + 1 + count
            count = _match_argument(slot, "A")
            single_dash = option_string[1] not in view.prefix_chars
            if count == 0 and single_dash and explicit_arg != "":
                # A cluster such as -vx: -v takes nothing, so x is the next short option.
                self.take_action(state, slot, [], index, option_string)
                offset = len(self.args[index].text) - len(explicit_arg)
                option_string = option_string[0] + explicit_arg[0]
                remainder = explicit_arg[1:] or None
                if option_string not in view.slots:
                    self.report_cluster_unknown(state, index, option_string, offset)
                    return start + 1
                slot, explicit_arg = view.slots[option_string], remainder
                continue
            if count == 1:
                text = self.args[index].text
                value_span = (len(text) - len(explicit_arg), len(text))
                self.take_action(state, slot, [], index, option_string, (explicit_arg, value_span))
                return start + 1
            self.report_unwanted_value(state, index, slot, option_string, explicit_arg)
            raise _Stop

    def take_action(
        self,
        state: _LevelState,
        slot: _Slot,
        values: list[int],
        option_index: int | None,
        option_string: str | None = None,
        explicit: tuple[str, tuple[int, int]] | None = None,
    ) -> None:
        state.seen.add(id(slot))
        if slot.positional is not None:
            for index in values:
                self.positional_owners[index] = slot.positional
        option = slot.option
        optional_token = option_index is not None and self.args[option_index].optional
        if option is not None:
            self.provided.add(id(option))
            if option.action in ("help", "version"):
                raise _Stop  # argparse prints and exits here
            if option.exclusive_group is not None and not optional_token:
                assert option_index is not None and option_string is not None
                self.check_exclusive(state, option, option_string, option_index)
        if slot.subcommands:
            self.enter_subcommand(state, values)
            return
        spec_choices = (
            option.choices if option else slot.positional.choices if slot.positional else None
        )
        if spec_choices is None or slot.nargs in ("...", "A..."):
            return
        type_name = (
            option.type_name if option else slot.positional.type_name if slot.positional else None
        )
        if explicit is not None:
            assert option_index is not None
            text, span = explicit
            self.check_choice(state, slot, option_index, text, span, spec_choices, type_name)
            return
        separator_skipped = False
        for index in values:
            token = self.args[index]
            if token.text == "--" and not separator_skipped:
                separator_skipped = True
                continue
            if token.placeholder:
                continue
            self.check_choice(state, slot, index, token.text, None, spec_choices, type_name)

    def enter_subcommand(self, state: _LevelState, values: list[int]) -> None:
        subparsers = state.model.subparsers
        assert subparsers is not None
        name_index = values[0]
        token = self.args[name_index]
        if token.placeholder:
            raise _Stop  # the subcommand is not known, nor what follows
        child = subparsers.choices.get(token.text)
        if child is None:
            names = list(subparsers.choices)
            self.issues.append(
                MatchIssue(
                    "unknown-subcommand",
                    name_index,
                    f"unknown subcommand `{token.text}`{_for(state.path)}; expected one of "
                    + _listing(names),
                    _suggest(token.text, names),
                    related_line=subparsers.line,
                )
            )
            raise _Stop
        canonical = subparsers.aliases.get(token.text, token.text)
        self.match_level(child, values[1:], (*state.path, canonical))
        if self.stopped:
            raise _Stop

    # -- unknown and misplaced options ----------------------------------------------------------

    def unknown_option(self, state: _LevelState, words: list[int], pattern: str, start: int) -> int:
        index = words[start]
        text = self.args[index].text
        if self.help_follows(state, words, start):
            raise _Stop  # argparse prints help and exits before complaining about extras
        for ancestor in reversed(self.levels[: self.levels.index(state)]):
            found = ancestor.view.parse_optional(text)
            if isinstance(found, _Optional) and found.slot is not None and found.slot.option:
                option = found.slot.option
                self.issues.append(
                    MatchIssue(
                        "misplaced-option",
                        index,
                        f"`{found.option_string}` belongs to the parent parser"
                        f"{_of(ancestor.path)} and must come before the subcommand "
                        f"`{' '.join(state.path)}`",
                        related_line=option.line,
                        owner="parent",
                    )
                )
                self.provided.add(id(option))
                return self.skip_values(found, pattern, start)
        owner = self.later_subcommand(state, words, pattern, start)
        if owner is not None:
            name, child = owner
            found = _view_of(child).parse_optional(text)
            if isinstance(found, _Optional) and found.slot is not None and found.slot.option:
                option = found.slot.option
                self.issues.append(
                    MatchIssue(
                        "misplaced-option",
                        index,
                        f"`{found.option_string}` belongs to the subcommand `{name}` and must "
                        f"come after it",
                        related_line=option.line,
                        owner=name,
                    )
                )
                self.provided.add(id(option))
                return self.skip_values(found, pattern, start)
        if not state.model.accepts_unknown_options:  # parse_known_args passes it through
            flags = state.model.option_flags()
            self.issues.append(
                MatchIssue(
                    "unknown-option",
                    index,
                    f"unknown option `{text}`{_for(state.path)}",
                    _suggest(text.split("=", 1)[0], flags),
                    related_line=state.model.line,
                )
            )
        if start + 1 < len(words) and pattern[start + 1] == "A":
            raise _Stop  # whether the next word is meant as its value cannot be known
        return start + 1

    def help_follows(self, state: _LevelState, words: list[int], start: int) -> bool:
        help_flags = {
            flag
            for slot in state.view.option_slots
            if slot.option is not None and slot.option.action in ("help", "version")
            for flag in slot.option.flags
        }
        if state.model.subparsers is not None:
            help_flags |= {"-h", "--help"}
        return any(self.args[index].text in help_flags for index in words[start + 1 :])

    def skip_values(self, found: _Optional, pattern: str, start: int) -> int:
        assert found.slot is not None
        if found.explicit_arg is not None:
            return start + 1
        count = _match_argument(found.slot, pattern[start + 1 :])
        return start + 1 + (count or 0)

    def later_subcommand(
        self, state: _LevelState, words: list[int], pattern: str, start: int
    ) -> tuple[str, ParserModel] | None:
        subparsers = state.model.subparsers
        if subparsers is None:
            return None
        for position in range(start + 1, len(words)):
            text = self.args[words[position]].text
            if pattern[position] == "A" and text in subparsers.choices:
                return subparsers.aliases.get(text, text), subparsers.choices[text]
        return None

    # -- reports --------------------------------------------------------------------------------

    def check_exclusive(
        self, state: _LevelState, option: OptionSpec, option_string: str, index: int
    ) -> None:
        group = option.exclusive_group
        assert group is not None
        earlier = state.exclusive_seen.get(group)
        if earlier is None:
            state.exclusive_seen[group] = (option, option_string)
            return
        if earlier[0] is option:
            return
        self.issues.append(
            MatchIssue(
                "mutually-exclusive",
                index,
                f"`{option_string}` cannot be used together with `{earlier[1]}` "
                f"(mutually exclusive{_for(state.path)})",
                related_line=option.line,
            )
        )

    def check_choice(
        self,
        state: _LevelState,
        slot: _Slot,
        index: int,
        text: str,
        span: tuple[int, int] | None,
        choices: tuple[str, ...],
        type_name: str | None,
    ) -> None:
        token = self.args[index]
        alternatives = text.split("|") if token.optional and "|" in text else [text]
        for alternative in alternatives:
            if _is_choice(alternative, choices, type_name):
                continue
            name = (
                f"`{slot.option.flags[-1]}`"
                if slot.option
                else f"`{_positional_name(slot.positional)}`"
            )
            line = (
                slot.option.line
                if slot.option
                else slot.positional.line
                if slot.positional
                else None
            )
            self.issues.append(
                MatchIssue(
                    "invalid-choice",
                    index,
                    f"invalid choice `{alternative}` for {name}{_for(state.path)}; expected one of "
                    + _listing(list(choices)),
                    _suggest(alternative, list(choices)),
                    related_line=line,
                    span=span,
                )
            )

    def report_ambiguous(self, state: _LevelState, index: int, candidates: list[str]) -> None:
        text = self.args[index].text
        self.issues.append(
            MatchIssue(
                "unknown-option",
                index,
                f"ambiguous option `{text}`{_for(state.path)}: could match " + _listing(candidates),
                tuple(candidates),
                related_line=state.model.line,
            )
        )

    def report_cluster_unknown(
        self, state: _LevelState, index: int, option_string: str, offset: int
    ) -> None:
        text = self.args[index].text
        self.issues.append(
            MatchIssue(
                "unknown-option",
                index,
                f"unknown option `{option_string}` in `{text}`{_for(state.path)}",
                _suggest(option_string, state.model.option_flags()),
                related_line=state.model.line,
                span=(offset, offset + 1),
            )
        )

    def report_missing_value(
        self, state: _LevelState, index: int, option: OptionSpec, option_string: str
    ) -> None:
        nargs = option.nargs
        wanted = {
            None: "a value",
            "+": "at least one value",
            "?": "at most one value",
        }.get(nargs, f"{nargs} values" if isinstance(nargs, int) else "a value")  # type: ignore[arg-type]
        self.issues.append(
            MatchIssue(
                "option-value-mismatch",
                index,
                f"`{option_string}` expects {wanted}{_for(state.path)}",
                related_line=option.line,
            )
        )

    def report_unwanted_value(
        self, state: _LevelState, index: int, slot: _Slot, option_string: str, value: str
    ) -> None:
        assert slot.option is not None
        text = self.args[index].text
        takes_none = not slot.option.takes_value
        message = (
            f"`{option_string}` takes no value, but `{text}` gives it `{value}`"
            if takes_none
            else f"`{option_string}` expects {slot.nargs} values, not one attached value"
        )
        self.issues.append(
            MatchIssue(
                "option-value-mismatch",
                index,
                message + _for(state.path),
                related_line=slot.option.line,
                span=(len(text) - len(value) - 1, len(text)),
            )
        )

    def report_missing(self) -> None:
        for state in self.levels:
            missing: list[str] = []
            first_line: int | None = None
            for option in state.model.options:
                if option.required and id(option) not in self.provided:
                    missing.append(f"`{option.flags[-1]}`")
                    first_line = option.line if first_line is None else first_line
            for slot in state.view.positional_slots:
                if id(slot) in state.seen:
                    continue
                if slot.subcommands:
                    subparsers = state.model.subparsers
                    if subparsers is not None and subparsers.required:
                        self.issues.append(
                            MatchIssue(
                                "missing-subcommand",
                                None,
                                f"missing subcommand{_for(state.path)}: expected one of "
                                + _listing(list(subparsers.help or subparsers.choices)),
                                related_line=subparsers.line,
                            )
                        )
                elif slot.positional is not None and slot.positional.required:
                    missing.append(f"`{_positional_name(slot.positional)}`")
                    first_line = slot.positional.line if first_line is None else first_line
            for group in sorted(state.model.required_exclusive_groups):
                members = [
                    option for option in state.model.options if option.exclusive_group == group
                ]
                if members and not any(id(option) in self.provided for option in members):
                    missing.append("one of " + "/".join(f"`{m.flags[-1]}`" for m in members))
                    first_line = members[0].line if first_line is None else first_line
            if missing:
                self.issues.append(
                    MatchIssue(
                        "missing-required",
                        None,
                        f"missing required argument{'s' if len(missing) > 1 else ''}"
                        f"{_for(state.path)}: " + ", ".join(missing),
                        related_line=first_line,
                    )
                )


# --- wording ------------------------------------------------------------------------------------


def _looks_like_option(text: str, prefix_chars: str) -> bool:
    return len(text) > 1 and text[0] in prefix_chars and not _NEGATIVE_NUMBER.match(text)


def _is_choice(text: str, choices: tuple[str, ...], type_name: str | None) -> bool:
    if type_name in ("int", "float"):
        convert = int if type_name == "int" else float
        try:
            value = convert(text)
        except ValueError:
            return True  # a conversion error, not a choice error: not ours to judge
        return any(_converts_to(choice, value, convert) for choice in choices)
    if type_name == "str.lower":
        text = text.lower()
    elif type_name == "str.upper":
        text = text.upper()
    return text in choices


def _converts_to(choice: str, value: float, convert: type[int] | type[float]) -> bool:
    try:
        return convert(choice) == value
    except ValueError:
        return False


def _positional_name(spec: PositionalSpec | None) -> str:
    if spec is None:
        return "?"
    return spec.metavar or spec.dest


def _for(path: tuple[str, ...]) -> str:
    return f" for `{' '.join(path)}`" if path else ""


def _of(path: tuple[str, ...]) -> str:
    return f" (`{' '.join(path)}`)" if path else ""


def _listing(names: list[str]) -> str:
    shown = [f"`{name}`" for name in names[:12]]
    more = f" and {len(names) - 12} more" if len(names) > 12 else ""
    return ", ".join(shown) + more


def _suggest(word: str, candidates: list[str]) -> tuple[str, ...]:
    unique = list(dict.fromkeys(candidates))
    return tuple(difflib.get_close_matches(word, unique, n=3, cutoff=0.6))


_PLACEHOLDER_CHARS = frozenset("<>{}$…")


def _literal_option_name(text: str, prefix_chars: str) -> bool:
    """`--topic=<主题>`: the name is literal even though the value is a placeholder."""
    name, sep, _value = text.partition("=")
    return bool(sep) and name[:1] in prefix_chars and not (_PLACEHOLDER_CHARS & set(name))
