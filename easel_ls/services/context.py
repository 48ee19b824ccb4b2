"""What is under the cursor, for completion and hover alike.

One question, answered once: given a document and a cursor (code points), is it on a frontmatter
key or value, a command's script path or argument (with the argparse state reached at that
word), a Markdown link target, a code in a suppression comment, or a `.easel.json` key or value?
Documents being typed are often broken (an unclosed code span, invalid JSON), so every reader
here is tolerant: it answers from what is there and never raises.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

from easel_ls.findings import Position, Range
from easel_ls.model.argparse_model import OptionSpec, ParserModel, ScriptModel
from easel_ls.model.commands import (
    COMMAND_FENCE_LANGUAGES,
    Invocation,
    Word,
    extract_invocations,
)
from easel_ls.model.markdown import parse_markdown
from easel_ls.model.text import TextDocument
from easel_ls.rules.context import Context, FileKind, classify, script_model
from easel_ls.workspace import Workspace


@dataclass(frozen=True)
class Token:
    """The text the cursor is in (possibly empty): what a completion replaces, what hover names."""

    text: str
    range: Range
    prefix: str  # the part before the cursor

    @classmethod
    def empty(cls, pos: Position) -> Token:
        return cls("", Range(pos, pos), "")


@dataclass
class FrontmatterKey:
    token: Token
    parents: tuple[str, ...]  # () for a top-level key; ("metadata",) under `metadata:`
    siblings: frozenset[str]  # keys already written at that level (the token's own excluded)


@dataclass
class FrontmatterValue:
    key: str
    parents: tuple[str, ...]
    token: Token


@dataclass
class LinkTarget:
    token: Token
    skill_folder: Path | None
    doc_folder: Path


@dataclass
class SuppressionCode:
    token: Token


@dataclass
class ScriptPath:
    token: Token
    kind: Literal["python", "shell"]
    skill_folder: Path | None


@dataclass
class ArgumentState:
    """Where argparse stands after reading some words: which (sub)parser, what was given."""

    parsers: list[ParserModel]
    given: list[OptionSpec] = dataclasses.field(default_factory=list)
    pending: OptionSpec | None = None  # the option whose values come next
    pending_min: int = 0
    pending_max: int = 0
    positionals: int = 0
    after_separator: bool = False  # `--` was read: no more options

    @property
    def parser(self) -> ParserModel:
        return self.parsers[-1]

    @property
    def value_required(self) -> bool:
        return self.pending is not None and self.pending_min > 0

    @property
    def expects_subcommand(self) -> bool:
        sub = self.parser.subparsers
        return sub is not None and not self.after_separator and self.positionals >= sub.position


@dataclass
class CommandArgument:
    invocation: Invocation
    index: int  # index in invocation.args of the word at the cursor (len(args): a new word)
    token: Token
    script: Path | None
    model: ScriptModel | None
    state: ArgumentState | None  # argparse after the words before this one; None if no parser
    script_label: str  # the script as "defined at" names it: skill- or root-relative


@dataclass
class JsonKey:
    container: tuple[str | int, ...]  # path of the object whose key is typed
    token: Token
    quoted: bool  # the token is a string (range includes its quotes)
    siblings: frozenset[str]


@dataclass
class JsonValue:
    path: tuple[str | int, ...]
    token: Token
    quoted: bool
    siblings: tuple[str, ...]  # the other strings of the same array (for `deliverables`)


CursorContext = (
    FrontmatterKey
    | FrontmatterValue
    | LinkTarget
    | SuppressionCode
    | ScriptPath
    | CommandArgument
    | JsonKey
    | JsonValue
)

MARKDOWN_KINDS = (FileKind.SKILL, FileKind.REFERENCE)


def cursor_context(ws: Workspace, doc: TextDocument, pos: Position) -> CursorContext | None:
    """What the cursor is on, or None when nothing easel-ls knows about is there."""
    if pos.line < 0 or pos.line >= doc.line_count:
        return None
    pos = Position(pos.line, min(max(pos.character, 0), len(doc.line_text(pos.line))))
    kind, skill = classify(ws, doc.path)
    ctx = Context(ws, doc, kind, skill, ws.settings_for(doc.path))
    if kind is FileKind.MANIFEST:
        return json_context(doc, pos)
    if kind not in MARKDOWN_KINDS and doc.path.suffix.lower() != ".md":
        return None
    found = suppression_context(doc, pos)
    if found is not None:
        return found
    if kind is FileKind.SKILL and 1 <= pos.line < frontmatter_end(doc):
        return frontmatter_context(doc, pos)
    link = link_context(ctx, pos)
    if link is not None:
        return link
    return command_context(ctx, pos)


# --- suppression comments ----------------------------------------------------------------------

_DIRECTIVE = re.compile(r"easel-ls-(?:disable-next-line|disable-file|disable|enable)\b")
_INLINE_IGNORE = re.compile(r"easel-ls:\s*ignore\[")
_CODE_CHAR = re.compile(r"[A-Za-z0-9]")


def suppression_context(doc: TextDocument, pos: Position) -> SuppressionCode | None:
    line = doc.line_text(pos.line)
    before = line[: pos.character]
    directive = None
    for match in _DIRECTIVE.finditer(before):
        if "-->" not in before[match.end() :]:
            directive = match
    if directive is None:
        for match in _INLINE_IGNORE.finditer(before):
            if "]" not in before[match.end() :]:
                directive = match
    if directive is None or pos.character < directive.end():
        return None
    if directive.re is _DIRECTIVE and pos.character == directive.end():
        return None  # still on the directive word itself
    return SuppressionCode(_word_around(line, pos, _CODE_CHAR))


def _word_around(line: str, pos: Position, char: re.Pattern[str]) -> Token:
    start = pos.character
    while start > 0 and char.match(line[start - 1]):
        start -= 1
    end = pos.character
    while end < len(line) and char.match(line[end]):
        end += 1
    return Token(
        line[start:end],
        Range(Position(pos.line, start), Position(pos.line, end)),
        line[start : pos.character],
    )


# --- frontmatter --------------------------------------------------------------------------------

_KEY_LINE = re.compile(r"^( *)([A-Za-z_][\w.-]*)?( *:)?")


def frontmatter_end(doc: TextDocument) -> int:
    """The line of the closing `---` (the line count while it is unclosed); 0 without one."""
    if doc.line_text(0).rstrip() != "---":
        return 0
    for number in range(1, doc.line_count):
        if doc.line_text(number).rstrip() in ("---", "..."):
            return number
    return doc.line_count


def frontmatter_context(
    doc: TextDocument, pos: Position
) -> FrontmatterKey | FrontmatterValue | None:
    """The key or value at the cursor inside the frontmatter; None on anything else (a prose
    value, a list item, a comment). Read line by line, not through YAML, so a half-typed block
    still answers."""
    end = frontmatter_end(doc)
    if not 1 <= pos.line < end:
        return None
    lines = doc.lines[:end]
    line = lines[pos.line]
    match = _KEY_LINE.match(line)
    assert match is not None  # every group is optional
    indent = len(match.group(1))
    key = match.group(2) or ""
    if pos.character < indent or line[indent:].startswith(("#", "-")):
        return None
    parents = _yaml_parents(lines, pos.line, indent)
    if parents is None:
        return None
    key_end = indent + len(key)
    if match.group(3) is None or pos.character <= key_end:
        if match.group(3) is None and line[key_end:].strip():
            return None  # `foo bar` is prose, not a key being typed
        if pos.character > key_end:
            return None  # past the word and a space: no key is being typed there
        token = Token(
            key,
            Range(Position(pos.line, indent), Position(pos.line, key_end)),
            line[indent : pos.character],
        )
        siblings = _yaml_siblings(lines, pos.line, indent) - {key}
        return FrontmatterKey(token, parents, frozenset(siblings))
    value_start = match.end()
    while value_start < len(line) and line[value_start] == " ":
        value_start += 1
    value_end = _value_end(line, value_start)
    if pos.character < value_start:
        token = Token.empty(pos)
    else:
        start, stop = value_start, max(value_end, pos.character)
        if start < len(line) and line[start] in "'\"":
            start += 1
            if stop > start and line[stop - 1] == line[value_start]:
                stop -= 1
        start = min(start, pos.character)
        token = Token(
            line[start:stop],
            Range(Position(pos.line, start), Position(pos.line, stop)),
            line[start : pos.character],
        )
    return FrontmatterValue(key, parents, token)


def _value_end(line: str, start: int) -> int:
    comment = line.find(" #", start)
    end = comment if comment != -1 else len(line)
    return len(line[:end].rstrip())


def _yaml_parents(lines: Sequence[str], line_no: int, indent: int) -> tuple[str, ...] | None:
    """Keys of the mappings that hold a line at ``indent``; None inside a scalar or a list."""
    parents: list[str] = []
    level = indent
    for number in range(line_no - 1, 0, -1):
        text = lines[number]
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        match = _KEY_LINE.match(text)
        assert match is not None
        own = len(match.group(1))
        if own >= level:
            continue
        if match.group(2) is None or match.group(3) is None:
            return None  # under a list item or a multi-line scalar
        value = text[match.end() :].strip()
        if value and not value.startswith("#"):
            return None  # continuation of a block scalar (`>-`) or a flow value
        parents.append(match.group(2))
        level = own
        if own == 0:
            break
    if level > 0 and indent > 0:
        return None
    return tuple(reversed(parents))


def _yaml_siblings(lines: Sequence[str], line_no: int, indent: int) -> set[str]:
    first = line_no
    while first > 1 and _indent_of(lines[first - 1], indent) >= indent:
        first -= 1
    last = line_no
    while last + 1 < len(lines) and _indent_of(lines[last + 1], indent) >= indent:
        last += 1
    keys = set()
    for number in range(first, last + 1):
        if number == line_no:
            continue
        match = _KEY_LINE.match(lines[number])
        if match and len(match.group(1)) == indent and match.group(2) and match.group(3):
            keys.add(match.group(2))
    return keys


def _indent_of(text: str, blank: int) -> int:
    if not text.strip():
        return blank  # blank lines belong to the block around them
    return len(text) - len(text.lstrip(" "))


# --- Markdown links -----------------------------------------------------------------------------

_LINK_OPEN = re.compile(r"\]\(<?([^()<>\s]*)$")


def link_context(ctx: Context, pos: Position) -> LinkTarget | None:
    line = ctx.doc.line_text(pos.line)
    match = _LINK_OPEN.search(line[: pos.character])
    if match is None:
        return None
    start = match.start(1)
    end = pos.character
    while end < len(line) and line[end] not in ")># \t":
        end += 1
    token = Token(
        line[start:end],
        Range(Position(pos.line, start), Position(pos.line, end)),
        line[start : pos.character],
    )
    skill = ctx.skill.folder if ctx.skill is not None else None
    return LinkTarget(token, skill, ctx.doc.path.parent)


# --- commands -----------------------------------------------------------------------------------

_BETWEEN_WORDS = re.compile(r"(?:[ \t\[\]]|\\\r?\n)*")
_LAUNCHER_AT_END = re.compile(
    r"(?:^|[\s;&|(`])(?:(?:uv|poetry|pipenv) run )?(?:\S*/)?(python(?:3(?:\.\d+)?)?|bash|sh|zsh)"
    r"(?: +-[A-Za-z]+)* +$"
)


def command_context(ctx: Context, pos: Position) -> ScriptPath | CommandArgument | None:
    """The command word at the cursor: in a command fence or a code span of the body (the
    document's invocations and fences are cached per text, so a keystroke parses it once)."""
    if pos.line < _body_start(ctx.doc):
        return None
    fence = next(
        (f for f in ctx.markdown.fences if f.range.start.line <= pos.line <= f.range.end.line),
        None,
    )
    if fence is not None and (
        pos.line == fence.range.start.line or fence.info not in COMMAND_FENCE_LANGUAGES
    ):
        return None  # on the opening marker, or in code of another language
    found = _in_invocations(ctx, ctx.invocations, pos)
    if found is not None:
        return found
    line = ctx.doc.line_text(pos.line)
    column = 0
    if fence is None:
        ticks = [i for i, c in enumerate(line[: pos.character]) if c == "`"]
        if len(ticks) % 2 == 0:
            return None
        column = ticks[-1] + 1  # a code span opened and not closed yet
        close = line.find("`", pos.character)
        text = line[column : close if close != -1 else len(line)]
        fragment = _fragment_invocations(ctx.doc, text, pos.line, column)
        found = _in_invocations(ctx, fragment, pos)
        if found is not None:
            return found
    launcher = _LAUNCHER_AT_END.search(line[column : pos.character])
    if launcher is None:
        return None
    kind: Literal["python", "shell"] = "python" if launcher.group(1).startswith("py") else "shell"
    skill = ctx.skill.folder if ctx.skill is not None else None
    return ScriptPath(Token.empty(pos), kind, skill)


def _body_start(doc: TextDocument) -> int:
    end = frontmatter_end(doc)
    return end + 1 if end else 0


def _fragment_invocations(doc: TextDocument, text: str, line: int, column: int) -> list[Invocation]:
    scratch = TextDocument(doc.path, f"```bash\n{text}\n```\n")
    invocations = extract_invocations(scratch, parse_markdown(scratch))
    return [_moved(inv, line - 1, column) for inv in invocations]


def _moved(inv: Invocation, lines: int, columns: int) -> Invocation:
    """An invocation parsed from a piece of the document, placed back where the piece is."""

    def place(p: Position) -> Position:
        return Position(p.line + lines, p.character + columns)

    def move(word: Word) -> Word:
        return dataclasses.replace(
            word, range=Range(place(word.range.start), place(word.range.end))
        )

    return dataclasses.replace(
        inv, script=move(inv.script), args=[move(w) for w in inv.args], line=inv.line + lines
    )


def _in_invocations(
    ctx: Context, invocations: Sequence[Invocation], pos: Position
) -> ScriptPath | CommandArgument | None:
    for inv in reversed(invocations):
        words = [inv.script, *inv.args]
        if pos < inv.script.range.start:
            continue
        hit = next((i for i, w in enumerate(words) if w.range.start <= pos <= w.range.end), None)
        if hit is None:
            before = [i for i, w in enumerate(words) if w.range.end <= pos]
            previous = words[before[-1]]
            gap = ctx.doc.text[ctx.doc.offset_at(previous.range.end) : ctx.doc.offset_at(pos)]
            if not _BETWEEN_WORDS.fullmatch(gap):
                continue
            index = before[-1] + 1
            token = Token.empty(pos)
        else:
            index = hit
            token = _word_token(ctx.doc, words[hit], pos)
        if index == 0:
            skill = ctx.skill.folder if ctx.skill is not None else None
            return ScriptPath(token, inv.kind, skill)
        return _argument_context(ctx, inv, index - 1, token)
    return None


def _word_token(doc: TextDocument, word: Word, pos: Position) -> Token:
    start, end = word.range.start, word.range.end
    raw = word.raw
    if raw[:1] in "'\"" and start.line == end.line:
        start = Position(start.line, start.character + 1)
        if len(raw) > 1 and raw[-1] == raw[0]:
            end = Position(end.line, end.character - 1)
    if pos < start:
        start = pos
    end = max(end, pos)
    return Token(
        doc.slice(Range(start, end)),
        Range(start, end),
        doc.slice(Range(start, pos)),
    )


def _argument_context(ctx: Context, inv: Invocation, index: int, token: Token) -> CommandArgument:
    script = resolved_script(ctx, inv)
    model = script_model(ctx.workspace, script) if script is not None else None
    state = None
    if model is not None and model.parser is not None:
        state = read_arguments(model.parser, [w.text for w in inv.args[:index]])
    label = ""
    if script is not None:
        label = ctx.workspace.rel(script)
        if ctx.skill is not None:
            with contextlib.suppress(ValueError):
                label = script.relative_to(ctx.skill.folder).as_posix()
    return CommandArgument(inv, index, token, script, model, state, label)


def resolved_script(ctx: Context, inv: Invocation) -> Path | None:
    """The existing Python script a command runs, resolved as the CM rules resolve it."""
    from easel_ls.engine import load_rules

    load_rules()  # importing a rule module first would leave the engine's registry partial
    from easel_ls.rules.commands import resolve_script

    resolved = resolve_script(ctx, inv)
    if resolved is None or resolved.escapes or resolved.path.suffix != ".py":
        return None
    return resolved.path if ctx.workspace.exists(resolved.path) else None


# --- argparse, read the way argparse reads ------------------------------------------------------

_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")
_MANY = 10**9


def arity(nargs: str | int | None) -> tuple[int, int]:
    """(fewest, most) values an option takes."""
    if nargs is None:
        return 1, 1
    if isinstance(nargs, int):
        return nargs, nargs
    return {"?": (0, 1), "*": (0, _MANY), "+": (1, _MANY), "...": (0, _MANY)}.get(
        nargs, (0, _MANY) if nargs == "A..." else (0, 0)
    )


def is_option_word(text: str, parser: ParserModel) -> bool:
    return len(text) > 1 and text[0] in parser.prefix_chars and not _NEGATIVE_NUMBER.match(text)


def lookup_option(parser: ParserModel, text: str) -> tuple[OptionSpec | None, str | None]:
    """The option a word names (exact, `--flag=value`, an unambiguous prefix, or `-xVALUE`) and
    its inline value."""
    flag, value = text, None
    if "=" in text:
        flag, value = text.split("=", 1)
    option = parser.find_option(flag)
    if option is not None:
        return option, value
    if parser.allow_abbrev and len(flag) > 2 and flag[1] in parser.prefix_chars:
        matches = {id(o): o for o in parser.options for f in o.flags if f.startswith(flag)}
        if len(matches) == 1:
            return next(iter(matches.values())), value
    if len(text) > 2 and text[1] not in parser.prefix_chars:
        short = parser.find_option(text[:2])
        if short is not None:
            return short, text[2:] if short.takes_value else None
    return None, None


def read_arguments(parser: ParserModel, words: Sequence[str]) -> ArgumentState:
    """argparse's reading of ``words``, far enough to know what may come next."""
    state = ArgumentState([parser])
    for text in words:
        current = state.parser
        if state.pending is not None and state.pending.nargs in ("...", "A..."):
            continue  # REMAINDER takes everything
        if not state.after_separator and text == "--":
            state.after_separator, state.pending = True, None
            continue
        if not state.after_separator and is_option_word(text, current):
            option, inline = lookup_option(current, text)
            state.pending = None
            if option is None:
                continue
            state.given.append(option)
            if option.takes_value and inline is None:
                low, high = arity(option.nargs)
                if high > 0:
                    state.pending, state.pending_min, state.pending_max = option, low, high
            continue
        sub = current.subparsers
        is_subcommand = (
            sub is not None
            and not state.after_separator
            and state.positionals >= sub.position
            and text in sub.choices
        )
        if state.pending is not None and not (is_subcommand and state.pending_min == 0):
            state.pending_min = max(0, state.pending_min - 1)
            state.pending_max -= 1
            if state.pending_max <= 0:
                state.pending = None
            continue
        state.pending = None
        if is_subcommand and sub is not None:
            state.parsers.append(sub.choices[text])
            state.given, state.positionals = [], 0
            continue
        state.positionals += 1
    return state


def subcommand_names(parser: ParserModel) -> list[str]:
    """Canonical subcommand names (aliases are not offered twice)."""
    sub = parser.subparsers
    if sub is None:
        return []
    return [name for name in sub.choices if name not in sub.aliases]


def option_owner(state: ArgumentState, flag_word: str) -> tuple[OptionSpec, ParserModel] | None:
    """The option a word names, looked up in the current parser, then the ones above it."""
    for parser in reversed(state.parsers):
        option, _ = lookup_option(parser, flag_word)
        if option is not None:
            return option, parser
    return None


# --- .easel.json --------------------------------------------------------------------------------


@dataclass
class _JsonToken:
    kind: Literal["string", "word", "punct"]
    start: int
    end: int
    text: str  # punctuation char, bare word, or the decoded string value
    closed: bool = True


_JSON_WORD = re.compile(r"[^\s,:{}\[\]\"]+")


def _json_tokens(text: str) -> list[_JsonToken]:
    tokens: list[_JsonToken] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
        elif c in "{}[]:,":
            tokens.append(_JsonToken("punct", i, i + 1, c))
            i += 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] not in '"\n':
                j += 2 if text[j] == "\\" and j + 1 < n and text[j + 1] != "\n" else 1
            closed = j < n and text[j] == '"'
            end = min(j + 1 if closed else j, n)
            raw = text[i:end] if closed else text[i:end] + '"'
            try:
                value = json.loads(raw)
            except ValueError:
                value = raw[1:-1]
            tokens.append(_JsonToken("string", i, end, str(value), closed))
            i = end
        else:
            match = _JSON_WORD.match(text, i)
            end = match.end() if match else i + 1
            tokens.append(_JsonToken("word", i, end, text[i:end]))
            i = end
    return tokens


@dataclass
class _Frame:
    kind: Literal["object", "array"]
    path: tuple[str | int, ...]
    expect: Literal["key", "colon", "value", "comma"] = "key"
    key: str | None = None
    index: int = 0
    keys: list[tuple[int, str]] = dataclasses.field(default_factory=list)  # (offset, key)
    strings: list[tuple[int, str]] = dataclasses.field(default_factory=list)  # array items


def json_context(doc: TextDocument, pos: Position) -> JsonKey | JsonValue | None:
    """A tolerant reading of JSON: the key or value at the cursor, even in broken JSON."""
    cursor = doc.offset_at(pos)
    tokens = _json_tokens(doc.text)
    stack: list[_Frame] = []
    at_cursor: tuple[_Frame, str, _JsonToken | None, tuple[str | int, ...]] | None = None
    reached = False  # the scan has passed the cursor: the role is decided, right or None
    for token in tokens:
        inside = token.kind != "punct" and token.start < cursor <= token.end
        if not reached and (inside or token.start >= cursor):
            reached = True
            at_cursor = _role(stack, token if inside else None)
        frame = stack[-1] if stack else None
        if token.kind == "punct":
            if token.text in "{[":
                path = _child_path(frame)
                kind: Literal["object", "array"] = "object" if token.text == "{" else "array"
                stack.append(_Frame(kind, path, "key" if kind == "object" else "value"))
            elif token.text in "}]":
                if stack:
                    stack.pop()
                if stack:
                    _after_value(stack[-1])
            elif token.text == ":" and frame is not None and frame.kind == "object":
                frame.expect = "value"
            elif token.text == "," and frame is not None:
                if frame.kind == "object":
                    frame.expect, frame.key = "key", None
                else:
                    frame.expect, frame.index = "value", frame.index + 1
            continue
        if frame is None:
            continue
        if frame.kind == "object" and frame.expect == "key":
            frame.key, frame.expect = token.text, "colon"
            if token.kind == "string":
                frame.keys.append((token.start, token.text))
        elif frame.expect == "value":
            if frame.kind == "array" and token.kind == "string":
                frame.strings.append((token.start, token.text))
            _after_value(frame)
    if not reached:
        at_cursor = _role(stack, None)
    if at_cursor is None:
        return None
    frame, role, hit, path = at_cursor
    if hit is not None:
        start, end = hit.start, hit.end
        text = doc.text[start:end]
        quoted = hit.kind == "string"
    else:
        start = end = cursor
        text, quoted = "", False
    rng = doc.range_of(start, end)
    tok = Token(text, rng, doc.text[start:cursor])
    own = hit.start if hit is not None else -1
    if role == "key":
        siblings = frozenset(key for offset, key in frame.keys if offset != own)
        return JsonKey(frame.path, tok, quoted, siblings)
    others = tuple(value for offset, value in frame.strings if offset != own)
    return JsonValue(path, tok, quoted, others)


def _role(
    stack: list[_Frame], token: _JsonToken | None
) -> tuple[_Frame, str, _JsonToken | None, tuple[str | int, ...]] | None:
    """The cursor's role in the innermost container, with the value path as it is *now*
    (the frame moves on to later keys as the scan continues)."""
    if not stack:
        return None
    frame = stack[-1]
    if frame.kind == "object" and frame.expect in ("key", "colon") and token is not None:
        return frame, "key", token, frame.path
    if frame.kind == "object" and frame.expect == "key":
        return frame, "key", None, frame.path
    if frame.expect == "value":
        return frame, "value", token, _child_path(frame)
    return None


def _child_path(frame: _Frame | None) -> tuple[str | int, ...]:
    if frame is None:
        return ()
    if frame.kind == "object":
        return (*frame.path, frame.key or "")
    return (*frame.path, frame.index)


def _after_value(frame: _Frame) -> None:
    frame.expect = "comma"


# --- JSON Schemas shipped with easel-ls ---------------------------------------------------------

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"
MANIFEST_SCHEMA = "easel.schema.json"
OPENCLAW_SCHEMA = "openclaw-metadata.schema.json"

# The manifest's shape from the rule catalogue (MF), used only while the schema file is absent.
_LAYER_ENUM = ["discover", "plan", "produce", "publish", "attribute", "general"]
_STRING: dict[str, Any] = {"type": "string"}
_STRINGS: dict[str, Any] = {"type": "array", "items": {"type": "string"}}
_FALLBACK_MANIFEST: dict[str, Any] = {
    "type": "object",
    "properties": {
        "topic": _STRING,
        "profile": _STRING,
        "created": _STRING,
        "updated": _STRING,
        "title": _STRING,
        "summary": _STRING,
        "platform": _STRING,
        "kind": {"enum": ["article", "xhs-note", "video", "cards", "poster", "audio", "other"]},
        "status": {"enum": ["draft", "ready", "published"]},
        "tags": _STRINGS,
        "cover": _STRING,
        "deliverables": _STRINGS,
        "steps": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "layer": {"enum": _LAYER_ENUM},
                    "skill": _STRING,
                    "at": _STRING,
                    "status": {"enum": ["done", "failed"]},
                    "outputs": _STRINGS,
                    "upstream": _STRINGS,
                    "summary": _STRING,
                },
            },
        },
    },
}


@cache
def _load_schema(name: str) -> dict[str, Any] | None:
    try:
        loaded = json.loads((SCHEMA_DIR / name).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return loaded if isinstance(loaded, dict) else None


def manifest_schema() -> dict[str, Any]:
    return _load_schema(MANIFEST_SCHEMA) or _FALLBACK_MANIFEST


def openclaw_schema() -> dict[str, Any]:
    return _load_schema(OPENCLAW_SCHEMA) or {}


def schema_at(root: dict[str, Any], path: Sequence[str | int]) -> dict[str, Any] | None:
    """The subschema that describes the value at ``path`` (object keys and array indexes)."""
    node: dict[str, Any] | None = _resolve(root, root)
    for step in path:
        if node is None:
            return None
        if isinstance(step, int):
            items = node.get("items")
            node = _resolve(root, items) if isinstance(items, dict) else None
        else:
            node = _resolve(root, properties(root, node).get(step))
    return node


def properties(root: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """An object schema's properties, including those of `allOf` members."""
    found: dict[str, Any] = {}
    for part in [node, *[_resolve(root, p) or {} for p in node.get("allOf", [])]]:
        props = part.get("properties")
        if isinstance(props, dict):
            found.update(props)
    return found


def enum_values(root: dict[str, Any], node: dict[str, Any] | None) -> list[str]:
    if node is None:
        return []
    values: list[Any] = []
    if isinstance(node.get("enum"), list):
        values.extend(node["enum"])
    if "const" in node:
        values.append(node["const"])
    for key in ("anyOf", "oneOf"):
        for part in node.get(key, []) or []:
            values.extend(enum_values(root, _resolve(root, part)))
    return [str(v) for v in dict.fromkeys(values) if isinstance(v, str)]


def _resolve(root: dict[str, Any], node: Any, depth: int = 0) -> dict[str, Any] | None:
    if not isinstance(node, dict):
        return None
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/") and depth < 16:
        target: Any = root
        for part in ref[2:].split("/"):
            target = target.get(part) if isinstance(target, dict) else None
        resolved = _resolve(root, target, depth + 1)
        if resolved is not None:
            merged = {**resolved, **{k: v for k, v in node.items() if k != "$ref"}}
            return merged
    return node
