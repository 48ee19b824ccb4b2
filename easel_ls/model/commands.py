"""Script invocations documented in Markdown: fenced shell blocks and command-like code spans.

A small shell reader, not a shell: it knows enough syntax (quotes, escapes, continuations,
control operators, redirections, heredocs, comments, `$ ` prompts) to find each `python x.py …`
or `bash x.sh …` and keep the exact document range of every word. Documentation notation is
understood too: `[--opt value]` marks optional words, and `<主题>`, `{topic}`, `$VAR`, `...` mark
placeholders that are never judged as values.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from typing import Literal

from easel_ls.findings import Position, Range
from easel_ls.model.markdown import CodeSpan, Fence, MarkdownModel
from easel_ls.model.placeholders import DEFAULT_NOUNS, PlaceholderNouns
from easel_ls.model.text import TextDocument

COMMAND_FENCE_LANGUAGES = frozenset({"bash", "sh", "shell", "console", "zsh", ""})


@dataclass
class Word:
    text: str  # shell-unquoted text
    raw: str  # as written
    range: Range  # exact range in the document, quotes included
    placeholder: bool  # <...>, {…}, $VAR/${VAR}, "...", …, or a CJK placeholder noun like 主题名
    optional: bool  # inside `[ ... ]` documentation notation


@dataclass
class Invocation:
    kind: Literal["python", "shell"]
    script: Word  # the script word as written (`$S`, `{baseDir}/scripts/x.py` ...)
    script_path: str  # normalised: `{baseDir}/scripts/x.py` -> "scripts/x.py"
    base: Literal["skill", "root", "auto"]  # auto: skills/… and scripts/… from root, else skill
    args: list[Word]  # the words after the script
    source: Literal["fence", "span"]
    line: int  # 0-based line of the script word
    suppressed: frozenset[str] = frozenset()  # codes from `# easel-ls: ignore[...]`
    dynamic_path: bool = False  # the path has a placeholder we cannot resolve: never judged


def extract_invocations(
    doc: TextDocument, md: MarkdownModel, placeholder_nouns: PlaceholderNouns = DEFAULT_NOUNS
) -> list[Invocation]:
    """Every script invocation in the document's command fences and command-like code spans.
    ``placeholder_nouns``: nouns written in place of a value (`placeholder-words`)."""
    found: list[Invocation] = []
    for fence in md.fences:
        if fence.info in COMMAND_FENCE_LANGUAGES:
            found.extend(_fence_invocations(doc, fence, placeholder_nouns))
    for span in md.code_spans:
        found.extend(_span_invocations(doc, span, placeholder_nouns))
    found.sort(key=lambda inv: (inv.script.range.start, inv.source))
    return found


# Logical lines: command text with the document position of every character.


@dataclass
class _Line:
    text: str = ""
    # (line, character) of every character of ``text``: plain tuples, built in C by zip (a
    # Position object per character was a large share of reading every fence).
    positions: list[tuple[int, int]] = field(default_factory=list)

    def add(self, text: str, line: int, column: int) -> None:
        self.text += text
        self.positions.extend(zip(repeat(line), range(column, column + len(text))))

    def add_break(self, line: int, column: int, char: str = "\n") -> None:
        """A joining character that is not in the document: it sits at the end of ``line``."""
        self.text += char
        self.positions.append((line, column))


def _fence_lines(fence: Fence) -> Iterator[tuple[int, int, str]]:
    """Physical command lines of a fence, `$ ` prompts removed; console output lines dropped."""
    console = fence.info == "console"
    continued = False
    for line, column, text in fence.content_lines:
        body = text.lstrip(" \t")
        indent = len(text) - len(body)
        if body.startswith("$ ") or body == "$":
            body, indent = body[2:], indent + min(2, len(body))
        elif console and continued and body.startswith("> "):
            body, indent = body[2:], indent + 2
        elif console and not continued:
            yield line, -1, text  # output: not a command, but it still ends a heredoc
            continue
        continued = _ends_with_continuation(body)
        yield line, column + indent, body


def _ends_with_continuation(text: str) -> bool:
    trailing = len(text) - len(text.rstrip("\\"))
    return trailing % 2 == 1


# Lexing


@dataclass
class _Token:
    kind: Literal["word", "op", "redirect", "heredoc", "comment"]
    start: int
    end: int
    text: str
    has_variable: bool = False


_PLACEHOLDER_ANGLE = re.compile(r"<[^<>\s|&;()]+>")
# A run of characters that are word characters wherever they appear: the lexer takes it at once.
_PLAIN_RUN = re.compile(r"[^ \t\n#'\"\\$`<>&|;(){}\[\]]+")
_CONTROL_OPERATORS = ("&&", "||", "|&", ";;", "|", ";", "&", "(", ")")


class _Incomplete(Exception):
    """The line ends inside a quote or after an operator that needs more."""


# A line of plain words (a `#` comment may end it): no escapes, unquoted variables, operators or
# redirections, and quotes only around text without a backslash. Most documented commands are
# such lines, and reading them a word at a time is much cheaper than ``_lex_full``'s character
# loop. (`{}[]` only matter to the full lexer for `|`, which is not plain.)
_PLAIN = r"[^ \t\n'\"\\$`<>&|;()]"
_ANGLE = r"<[^<>\s|&;()]+>"  # as _PLACEHOLDER_ANGLE
_QUOTED = r"'[^']*'|\"[^\"\\]*\""
# A `#` where a token starts is a comment (the first alternative that matches wins).
_SIMPLE_TOKEN = re.compile(
    rf"[ \t\n]+|(#.*)|((?:{_PLAIN}+|{_ANGLE}|{_QUOTED})+)",
    re.DOTALL,
)
# The pieces of such a word (plain runs hold no quote or `<`): a quoted piece loses its quotes.
_SIMPLE_PIECE = re.compile(rf"([^'\"<]+|{_ANGLE})|'([^']*)'|\"([^\"\\]*)\"")
_QUOTED_VARIABLE = re.compile(r"\$[\w{(]")  # `\w` is ``isalnum()`` or `_`, as in _lex_full


def _lex_simple(text: str) -> list[_Token] | None:
    """The tokens ``_lex_full`` reads from a line of plain words; None for any other line."""
    tokens: list[_Token] = []
    i, n = 0, len(text)
    match = _SIMPLE_TOKEN.match
    while i < n:
        m = match(text, i)
        if m is None:
            return None
        end = m.end()
        word = m.group(2)
        if word is None:
            if m.group(1) is not None:
                tokens.append(_Token("comment", i, n, text[i + 1 :]))
        elif "'" in word or '"' in word:
            pieces, has_variable = [], False
            for plain, single, double in _SIMPLE_PIECE.findall(word):
                if double and _QUOTED_VARIABLE.search(double):
                    has_variable = True
                pieces.append(plain or single or double)
            tokens.append(_Token("word", i, end, "".join(pieces), has_variable))
        else:
            tokens.append(_Token("word", i, end, word))
        i = end
    return tokens


def _lex(text: str, final: bool) -> list[_Token]:
    simple = _lex_simple(text)
    return simple if simple is not None else _lex_full(text, final)


def _lex_full(text: str, final: bool) -> list[_Token]:
    tokens: list[_Token] = []
    n = len(text)
    i = 0
    word_start = -1
    chars: list[str] = []
    has_variable = False
    brace_depth = 0
    bracket_depth = 0

    def flush(at: int) -> None:
        nonlocal word_start, chars, has_variable, brace_depth
        if word_start >= 0:
            tokens.append(_Token("word", word_start, at, "".join(chars), has_variable))
        word_start, chars, has_variable, brace_depth = -1, [], False, 0

    def begin(at: int) -> None:
        nonlocal word_start
        if word_start < 0:
            word_start = at

    while i < n:
        c = text[i]
        nxt = text[i + 1] if i + 1 < n else ""
        if c in " \t\n":
            flush(i)
            i += 1
        elif c == "#" and word_start < 0:
            tokens.append(_Token("comment", i, n, text[i + 1 :]))
            i = n
        elif c == "'":
            begin(i)
            close = text.find("'", i + 1)
            if close < 0:
                if not final:
                    raise _Incomplete
                close = n
            chars.append(text[i + 1 : close])
            i = close + 1
        elif c == '"':
            begin(i)
            j = i + 1
            while j < n and text[j] != '"':
                if text[j] == "\\" and j + 1 < n and text[j + 1] in '"\\$`\n':
                    if text[j + 1] != "\n":
                        chars.append(text[j + 1])
                    j += 2
                    continue
                if text[j] == "$" and j + 1 < n and (text[j + 1].isalnum() or text[j + 1] in "_{("):
                    has_variable = True
                chars.append(text[j])
                j += 1
            if j >= n and not final:
                raise _Incomplete
            i = j + 1
        elif c == "\\":
            begin(i)
            if nxt and nxt != "\n":
                chars.append(nxt)
            i += 2
        elif c == "$" and nxt != "" and (nxt.isalnum() or nxt in "_{("):
            begin(i)
            end = _variable_end(text, i)
            chars.append(text[i:end])
            has_variable = True
            i = end
        elif c == "`":
            begin(i)
            close = text.find("`", i + 1)
            end = n if close < 0 else close + 1
            chars.append(text[i:end])
            has_variable = True
            i = end
        elif c == "<":
            placeholder = _PLACEHOLDER_ANGLE.match(text, i)
            if nxt == "<":
                flush(i)
                op = (
                    "<<<"
                    if text.startswith("<<<", i)
                    else "<<-"
                    if text.startswith("<<-", i)
                    else "<<"
                )
                tokens.append(_Token("redirect" if op == "<<<" else "heredoc", i, i + len(op), op))
                i += len(op)
            elif placeholder:
                begin(i)
                chars.append(placeholder.group())
                i = placeholder.end()
            else:
                flush(i)
                tokens.append(_Token("redirect", i, i + 1, "<"))
                i += 1
        elif c == ">":
            if word_start >= 0 and "".join(chars).isdigit():
                word_start, chars = -1, []  # `2>`: the digits name a descriptor
            flush(i)
            i = _redirect(text, i, tokens)
        elif c == "&" and nxt == ">":
            flush(i)
            i = _redirect(text, i + 1, tokens, start=i)
        elif c == "|" and (brace_depth > 0 or bracket_depth > 0):
            begin(i)  # `{a|b}` or `[--json|--csv]`: documentation alternatives, not a pipe
            chars.append(c)
            i += 1
        elif c in "&|;()":
            flush(i)
            op = next(o for o in _CONTROL_OPERATORS if text.startswith(o, i))
            tokens.append(_Token("op", i, i + len(op), op))
            i += len(op)
        else:
            begin(i)
            plain = _PLAIN_RUN.match(text, i)
            if plain is not None:
                chars.append(plain.group())
                i = plain.end()
                continue
            chars.append(c)
            if c == "{":
                brace_depth += 1
            elif c == "}":
                brace_depth = max(0, brace_depth - 1)
            elif c == "[" and (i == word_start or text[i - 1] == "["):
                bracket_depth += 1
            elif c == "]" and bracket_depth > 0:
                bracket_depth -= 1
            i += 1
    flush(n)
    if not final and tokens and tokens[-1].kind == "op" and tokens[-1].text in ("&&", "||", "|"):
        raise _Incomplete
    return tokens


def _variable_end(text: str, i: int) -> int:
    """End of `$name`, `${...}` or `$(...)` starting at ``i``."""
    n = len(text)
    opener = text[i + 1]
    if opener in "{(":
        closer = "}" if opener == "{" else ")"
        depth = 0
        j = i + 1
        while j < n:
            if text[j] == opener:
                depth += 1
            elif text[j] == closer:
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
        return n
    j = i + 1
    while j < n and (text[j].isalnum() or text[j] == "_"):
        j += 1
    return j


def _redirect(text: str, i: int, tokens: list[_Token], start: int | None = None) -> int:
    """Read a `>`-family redirection at ``i``; a `>&2`-style one needs no target word."""
    begin = i if start is None else start
    j = i + 1
    if j < len(text) and text[j] in ">|":
        j += 1
    if j < len(text) and text[j] == "&":
        k = j + 1
        while k < len(text) and (text[k].isdigit() or text[k] == "-"):
            k += 1
        if k > j + 1:
            tokens.append(_Token("op", begin, k, "fd-redirect"))
            return k
    tokens.append(_Token("redirect", begin, j, text[begin:j]))
    return j


# Words and simple commands


_BRACED = re.compile(r"\{[^{}]*\}")


# A character every placeholder form needs (a word's text has no character its raw lacks).
_PLACEHOLDER_HINT = re.compile(r"[|.…<{\u3400-\u9fff\uf900-\ufaff]")


def _looks_placeholder(
    text: str, raw: str, has_variable: bool, nouns: PlaceholderNouns = DEFAULT_NOUNS
) -> bool:
    if not has_variable and _PLACEHOLDER_HINT.search(raw) is None:
        # Most words: only a configured non-CJK placeholder noun (`topic`) can still be one.
        return bool(nouns.other) and text.lower() in nouns.other
    if raw == "|":  # `[--a | --b]`: a separator of alternatives, not a value
        return True
    if has_variable or "..." in raw or "…" in raw:
        return True
    if _PLACEHOLDER_ANGLE.search(raw) or _BRACED.search(raw):
        return True
    return nouns.match(text)


class _WordMaker:
    """Turns lexed word tokens into Words, tracking `[ ... ]` optional notation."""

    def __init__(
        self, doc: TextDocument, line: _Line, nouns: PlaceholderNouns = DEFAULT_NOUNS
    ) -> None:
        self.doc = doc
        self.line = line
        self.nouns = nouns
        self.optional_depth = 0
        self._line_lengths: dict[int, int] = {}  # a line holds several words: measure it once

    def make(self, token: _Token) -> Word | None:
        start, end, text = token.start, token.end, token.text
        raw = self.line.text[start:end]
        if not raw or raw[0] == "[":  # most words have no `[`: skip measuring it
            opening = len(raw) - len(raw.lstrip("["))
            if opening == len(raw):  # a lone `[` (or `[[`)
                self.optional_depth += opening
                return None
            if opening and text.startswith("[" * opening):
                self.optional_depth += opening
                start, raw, text = start + opening, raw[opening:], text[opening:]
        optional = self.optional_depth > 0
        if optional and raw[-1] == "]":
            closing = len(raw) - len(raw.rstrip("]"))
            if text.endswith("]" * closing):
                closing = min(closing, self.optional_depth)
                self.optional_depth -= closing
                end, raw, text = end - closing, raw[:-closing], text[:-closing]
                if not raw:
                    return None
        placeholder = _looks_placeholder(text, raw, token.has_variable, self.nouns)
        return Word(text, raw, self.range(start, end), placeholder, optional)

    def range(self, start: int, end: int) -> Range:
        positions = self.line.positions
        head_line, head_character = positions[start]
        last_line, last_character = positions[end - 1 if end > start else start]
        head_length = self._line_length(head_line)
        last_length = head_length if last_line == head_line else self._line_length(last_line)
        if head_character > head_length:
            head_character = head_length
        last_character = last_character + 1 if last_character < last_length else last_length
        first = Position(head_line, head_character)
        if (last_line, last_character) <= (head_line, head_character):
            return Range(first, first)  # as ``max(first, stop)``: never before the start
        return Range(first, Position(last_line, last_character))

    def _line_length(self, line: int) -> int:
        length = self._line_lengths.get(line)
        if length is None:
            length = self._line_lengths[line] = self.doc.line_length(line)
        return length


@dataclass
class _Command:
    words: list[Word]
    heredoc_delimiters: list[str]


def _commands(tokens: list[_Token], maker: _WordMaker) -> Iterator[_Command]:
    words: list[Word] = []
    delimiters: list[str] = []
    skip_next_word = False
    heredoc_next = False
    for token in tokens:
        if token.kind == "word":
            if heredoc_next:
                delimiters.append(token.text)
            elif not skip_next_word:
                word = maker.make(token)
                if word is not None:
                    words.append(word)
            skip_next_word = heredoc_next = False
        elif token.kind == "redirect":
            skip_next_word = True
        elif token.kind == "heredoc":
            heredoc_next = True
        elif token.kind == "op" and token.text != "fd-redirect":
            yield _Command(words, delimiters)
            words, delimiters = [], []
    yield _Command(words, delimiters)


def _suppressed_codes(tokens: list[_Token]) -> frozenset[str]:
    codes: set[str] = set()
    for token in tokens:
        if token.kind == "comment":
            # Stop at the last `]`: an unclosed `ignore[` run would otherwise scan quadratically.
            text = token.text[: token.text.rfind("]") + 1]
            for match in re.finditer(r"easel-ls:\s*ignore\[([^\]]*)\]", text):
                codes.update(c.strip().upper() for c in match.group(1).split(",") if c.strip())
    return frozenset(codes)


# Launchers and paths

_PYTHON = re.compile(r"(?:.*/)?python(?:3(?:\.\d+)?)?")
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", re.DOTALL)
_SHELLS = frozenset({"bash", "sh", "zsh", "dash"})
_PREFIX_COMMANDS = frozenset({"env", "time", "nohup", "exec", "command"})
# Reserved words that may precede a command: `if python a.py; then`, `do python a.py "$f"`.
_RESERVED_WORDS = frozenset({"if", "then", "else", "elif", "do", "while", "until", "!", "{"})
_RUNNERS = {"uv": "run", "poetry": "run", "pipenv": "run"}
_UV_OPTIONS_WITH_VALUE = frozenset(
    {"--with", "--python", "-p", "--project", "--directory", "--package", "--extra", "--group",
     "--env-file", "--index", "--with-requirements", "--from"}
)  # fmt: skip
_PYTHON_OPTIONS_WITH_VALUE = frozenset({"-X", "-W", "--check-hash-based-pycs"})
_SKILL_NAMES = frozenset(
    {"skill", "skilldir", "skillroot", "skillpath", "skillfolder", "skillhome", "basedir"}
)
_ROOT_NAMES = frozenset({"root", "repo", "reporoot", "workspace", "workspaceroot", "projectroot"})
_LEADING_PLACEHOLDER = re.compile(r"\$\{(\w+)\}|\$(\w+)|\{(\w+)\}|<([^<>/]+)>")
_UNRESOLVED = re.compile(r"[$*?]|\{[^{}]*\}|<[^<>]*>|\.\.\.|…")

Base = Literal["skill", "root", "auto"]


@dataclass
class _Directory:
    """Where `cd` left the shell: a path under a base, or somewhere we cannot know."""

    base: Base = "auto"
    path: str = ""
    known: bool = True


@dataclass
class _ShellState:
    variables: dict[str, str] = field(default_factory=dict)
    directory: _Directory = field(default_factory=_Directory)


def _placeholder_kind(name: str) -> Base | None:
    key = name.lower().replace("-", "").replace("_", "")
    if key in _SKILL_NAMES:
        return "skill"
    if key in _ROOT_NAMES:
        return "root"
    return None


def _resolve(text: str, state: _ShellState) -> tuple[str, Base, bool]:
    """(normalised path, base, dynamic) for a path word as written."""
    base: Base = "auto"
    anchored = False
    for _ in range(8):  # a variable may expand to another placeholder
        match = _LEADING_PLACEHOLDER.match(text)
        if match is None:
            break
        name = next(g for g in match.groups() if g is not None)
        rest = text[match.end() :]
        kind = _placeholder_kind(name)
        is_variable = match.group(1) is not None or match.group(2) is not None
        if kind is not None and (rest == "" or rest.startswith("/")):
            base, anchored, text = kind, True, rest.lstrip("/")
            break
        if is_variable and name in state.variables:
            text = state.variables[name] + rest
            continue
        return text, base, True
    if anchored and not text:
        return ".", base, False
    if _UNRESOLVED.search(text) or text.startswith(("/", "~")) or not text:
        return text, base, True
    path = posixpath.normpath(text)
    if not anchored:
        directory = state.directory
        if not directory.known:
            return path, base, True
        if directory.path or directory.base != "auto":
            path = posixpath.normpath(posixpath.join(directory.path, path))
            base = directory.base
    return path, base, False


def _change_directory(state: _ShellState, target: Word | None) -> None:
    if target is None or target.text in ("-", "~"):
        state.directory = _Directory(known=False)
        return
    path, base, dynamic = _resolve(target.text, state)
    if dynamic or path.startswith(".."):
        state.directory = _Directory(known=False)
        return
    path = "" if path == "." else path
    if base == "auto" and path.startswith("skills/"):
        base = "root"
    state.directory = _Directory(base=base, path=path)


def _skip_assignments(words: Sequence[Word], i: int) -> int:
    while i < len(words) and _ASSIGNMENT.fullmatch(words[i].text):
        i += 1
    return i


def _launch(words: list[Word], direct: str = "/") -> tuple[str, int] | None:
    """("python" | "shell", index of the script word), or None when this runs no script.

    A script run directly (no launcher) must contain ``direct``: any `dir/x.sh` in a fence, but
    must start with `./` in a code span, where `scripts/x.py` and `../x.py` are path mentions.
    """
    i = _skip_assignments(words, 0)
    while i < len(words) and words[i].text in _PREFIX_COMMANDS | _RESERVED_WORDS:
        prefix = words[i].text
        i = _skip_assignments(words, i + 1)
        while prefix in _PREFIX_COMMANDS and i < len(words) and words[i].text[:1] == "-":
            i += 1
    if i >= len(words):
        return None
    first = words[i].text
    if _RUNNERS.get(first) and i + 1 < len(words) and words[i + 1].text == _RUNNERS[first]:
        i += 2
        while i < len(words) and words[i].text.startswith("-"):
            option = words[i].text
            i += 2 if option in _UV_OPTIONS_WITH_VALUE else 1
        if i >= len(words):
            return None
        if not _PYTHON.fullmatch(words[i].text):
            return ("python", i) if words[i].text.endswith(".py") else None
        first = words[i].text
    if _PYTHON.fullmatch(first):
        return _after_options(words, i + 1, "python")
    if first in _SHELLS:
        return _after_options(words, i + 1, "shell")
    # In a span only `./x.sh`: `../../shared/scripts/x.py` there is a path, not a command.
    runs_directly = first.startswith(direct) if direct == "./" else direct in first
    if runs_directly and first.endswith(".sh"):
        return "shell", i
    if runs_directly and first.endswith(".py"):
        return "python", i
    return None


def _after_options(words: list[Word], i: int, kind: str) -> tuple[str, int] | None:
    while i < len(words):
        option = words[i].text
        if option == "--":
            i += 1
            break
        if not option.startswith(("-", "+")) or option in ("-", "+"):
            break
        if kind == "python" and option[:2] in ("-m", "-c"):
            return None  # a module or inline code, not a script path
        if kind == "python" and re.fullmatch(r"-[A-Za-z]+", option) and set(option) & {"m", "c"}:
            return None
        if kind == "shell" and re.fullmatch(r"-[A-Za-z]*[cs][A-Za-z]*", option):
            return None  # `bash -c '…'` or a script on stdin
        takes_value = (
            option in _PYTHON_OPTIONS_WITH_VALUE
            if kind == "python"
            else option in ("-o", "+o", "-O", "+O")
        )
        i += 2 if takes_value else 1
    if i >= len(words) or words[i].text in ("-", ""):
        return None
    return kind, i


def _invocations(
    commands: list[_Command],
    state: _ShellState,
    source: Literal["fence", "span"],
    suppressed: frozenset[str],
) -> Iterator[Invocation]:
    for command in commands:
        words = command.words
        if not words:
            continue
        first_command = _skip_assignments(words, 0)
        if first_command == len(words):
            for word in words:  # `S=skills/x/scripts/a.py` sets a variable for later lines
                name, value = _ASSIGNMENT.fullmatch(word.text).groups()  # type: ignore[union-attr]
                state.variables[name] = value
            continue
        head = words[first_command].text
        if head in ("export", "readonly", "declare", "local"):
            for word in words[first_command + 1 :]:
                assignment = _ASSIGNMENT.fullmatch(word.text)
                if assignment:
                    state.variables[assignment.group(1)] = assignment.group(2)
            continue
        if head in ("cd", "pushd"):
            target = words[first_command + 1] if first_command + 1 < len(words) else None
            _change_directory(state, target)
            continue
        launched = _launch(words)
        if launched is None:
            continue
        kind, index = launched
        script = words[index]
        path, base, dynamic = _resolve(script.text, state)
        yield Invocation(
            kind="python" if kind == "python" else "shell",
            script=script,
            script_path=path,
            base=base,
            args=words[index + 1 :],
            source=source,
            line=script.range.start.line,
            suppressed=suppressed,
            dynamic_path=dynamic,
        )


# Sources


def _fence_invocations(
    doc: TextDocument, fence: Fence, nouns: PlaceholderNouns
) -> Iterator[Invocation]:
    state = _ShellState()
    lines = list(_fence_lines(fence))
    i = 0
    while i < len(lines):
        line_no, column, text = lines[i]
        i += 1
        if column < 0:
            continue
        logical = _Line()
        logical.add(text, line_no, column)
        tokens: list[_Token] = []
        while True:
            if _ends_with_continuation(logical.text):
                logical.text = logical.text[:-1]
                logical.positions.pop()
                if i < len(lines) and lines[i][1] >= 0:
                    logical.add(lines[i][2], lines[i][0], lines[i][1])
                    i += 1
                    continue
            # A quote left open for this long is a typo, not a string: stop joining lines.
            joined = logical.positions[-1][0] - line_no if logical.positions else 0
            final = i >= len(lines) or lines[i][1] < 0 or joined > 200
            try:
                tokens = _lex(logical.text, final)
                break
            except _Incomplete:
                last_line, last_character = (
                    logical.positions[-1] if logical.positions else (line_no, column)
                )
                logical.add_break(last_line, last_character + 1)
                logical.add(lines[i][2], lines[i][0], lines[i][1])
                i += 1
        commands = list(_commands(tokens, _WordMaker(doc, logical, nouns)))
        yield from _invocations(commands, state, "fence", _suppressed_codes(tokens))
        for delimiter in (d for command in commands for d in command.heredoc_delimiters):
            while i < len(lines) and lines[i][2].strip().removeprefix("> ") != delimiter:
                i += 1  # a heredoc body is data, not commands
            i += 1


def _span_line(span: CodeSpan) -> _Line:
    line = _Line()
    joined = " ".join(piece for _, _, piece in span.segments)
    if span.segments and joined == span.text:
        for k, (line_no, column, piece) in enumerate(span.segments):
            if k:
                previous_line, previous_character = (
                    line.positions[-1] if line.positions else (line_no, column)
                )
                line.add_break(previous_line, previous_character + 1, " ")
            line.add(piece, line_no, column)
        return line
    start = span.range.start
    line.add(span.text, start.line, start.character)  # columns clamp to the line in ranges
    return line


def _could_launch(text: str) -> bool:
    """Whether a code span may run a script: every launcher (`python…`, `bash`/`sh`/`zsh`/
    `dash`, `….py`, `….sh`) has `py` or `sh` in its word, and without quotes or backslashes
    every word is a piece of the span's text. Most spans are not commands: skip lexing them."""
    return "py" in text or "sh" in text or any(c in text for c in "'\"\\")


def _span_invocations(
    doc: TextDocument, span: CodeSpan, nouns: PlaceholderNouns
) -> list[Invocation]:
    if not _could_launch(span.text):
        return []
    logical = _span_line(span)
    stripped = logical.text.lstrip(" ")
    if stripped.startswith("$ "):
        skip = len(logical.text) - len(stripped) + 2
        logical.text, logical.positions = logical.text[skip:], logical.positions[skip:]
    tokens = _lex(logical.text, final=True)
    commands = list(_commands(tokens, _WordMaker(doc, logical, nouns)))
    state = _ShellState()
    if not commands:
        return []
    launched = _launch(commands[0].words, direct="./")
    if launched is None:
        return []
    kind, index = launched
    if kind == "python" and index == 0 and len(commands[0].words) == 1 and len(commands) == 1:
        return []  # a lone `./x.py` in a span names the module; it runs nothing
    return list(_invocations(commands, state, "span", _suppressed_codes(tokens)))
