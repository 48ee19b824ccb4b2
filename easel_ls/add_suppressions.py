"""`easel-ls check --add-suppressions` (ruff's `--add-noqa`): a suppression comment for every
current finding, so a team can adopt easel-ls on an existing repository and fix the backlog
later.

Where a comment goes, in the forms ``easel_ls.suppressions`` reads:

- a Markdown line: ``<!-- easel-ls-disable-next-line CODE -->`` on its own line above it, with
  the line's indentation and blockquote markers, so it stays in the same list item or quote;
- a line of a fenced command: a trailing ``# easel-ls: ignore[CODE]`` on the command's last
  line (a comment inside the fence is shell, not Markdown);
- a frontmatter line and a line of a Python or shell script: a trailing
  ``# easel-ls: ignore[CODE]``;
- a finding on line 1, or one no line comment can reach (a table row, a fence marker):
  ``<!-- easel-ls-disable-file CODE -->``, right after a SKILL.md's frontmatter, else on line 1.

A comment of the same kind already there gets the code added rather than a second comment.
Each file is checked again with its new comments before anything is written: a comment that
does not silence its finding, reports another one (EZ001 for a comment that silences nothing,
BD001 for a body pushed over its limit), or changes what the file means (a YAML value, a Python
string, a shell here-document) is left out, and its finding stays reported. JSON, `.prompt`/
`.expected` tests and files under `outputs/` have no comment easel-ls reads: their findings are
counted, never touched. Writes are atomic and change nothing outside the inserted text (line
breaks, BOM, every other byte).
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import sys
import tokenize
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import yaml

from easel_ls.engine import check_document
from easel_ls.findings import Finding
from easel_ls.fixes import atomic_write, splice
from easel_ls.model.text import TextDocument
from easel_ls.rules.context import Context, FileKind, classify
from easel_ls.workspace import Workspace

# Findings about suppressions themselves and unreadable files: a comment cannot silence them
# (EZ001/EZ002 are reported after suppressions apply; EZ004 is a file that cannot be read).
NEVER_SUPPRESSIBLE = frozenset({"EZ001", "EZ002", "EZ004"})

_NEXT_LINE = re.compile(r"<!--\s*easel-ls-disable-next-line\b(?P<codes>.*?)-->")
_FILE = re.compile(r"<!--\s*easel-ls-disable-file\b(?P<codes>.*?)-->")
_INLINE = re.compile(r"#\s*easel-ls:\s*ignore\[(?P<codes>[^\]]*)\]")
_CONTAINER = re.compile(r"(?:[ \t]*>)*[ \t]*")  # indentation and blockquote markers
_TABLE_DELIMITER = re.compile(r"\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*")
_BOM = "\ufeff"


@dataclass(frozen=True)
class _Op:
    """One comment to write: ``above`` a Markdown line, ``trailing`` at a line's end, or a
    ``file`` directive inserted before ``line``."""

    kind: Literal["file", "above", "trailing"]
    line: int
    prefix: str = ""


_Plan = dict[_Op, frozenset[str]]


@dataclass
class FileOutcome:
    path: Path
    text: str | None = None  # the new text (None: nothing to write)
    original: str = ""
    comments: int = 0
    suppressed: int = 0


@dataclass
class Summary:
    written: list[FileOutcome] = field(default_factory=list)
    skipped: list[Path] = field(default_factory=list)  # changed on disk while we worked

    @property
    def suppressed(self) -> int:
        return sum(outcome.suppressed for outcome in self.written)

    @property
    def comments(self) -> int:
        return sum(outcome.comments for outcome in self.written)


def _join(existing: str, codes: frozenset[str]) -> str:
    """The codes of a directive with ``codes`` added: the written ones first, as written."""
    known = [c for c in re.split(r"[\s,]+", existing.strip()) if c]
    upper = {c.upper() for c in known}
    return ", ".join(known + sorted(c for c in codes if c not in upper))


def _line_break(doc: TextDocument, line: int) -> str:
    """The break that ends ``line``, else the one before it, else ``\\n``."""
    for candidate in (line, line - 1):
        if 0 <= candidate < doc.line_count - 1:
            return doc.text[doc.line_end(candidate) : doc.line_start(candidate + 1)]
    return "\n"


def _render(doc: TextDocument, plan: _Plan) -> str:
    """The text with every comment of ``plan`` written in; nothing else changes."""
    edits: list[tuple[int, int, int, str]] = []  # (start, end, order at the same offset, new)
    for op, codes in plan.items():
        if op.kind == "trailing":
            line_text = doc.line_text(op.line)
            found = _INLINE.search(line_text)
            if found:
                start = doc.line_start(op.line) + found.start("codes")
                end = doc.line_start(op.line) + found.end("codes")
                edits.append((start, end, 2, _join(found.group("codes"), codes)))
            else:
                comment = f"  # easel-ls: ignore[{', '.join(sorted(codes))}]"
                edits.append((doc.line_end(op.line), doc.line_end(op.line), 2, comment))
            continue
        word, order = ("disable-file", 0) if op.kind == "file" else ("disable-next-line", 1)
        existing = _existing_directive(doc, op)
        if existing is not None:
            line, found = existing
            start = doc.line_start(line) + found.start("codes")
            end = doc.line_start(line) + found.end("codes")
            edits.append((start, end, order, f" {_join(found.group('codes'), codes)} "))
            continue
        comment = f"{op.prefix}<!-- easel-ls-{word} {', '.join(sorted(codes))} -->"
        if op.line < doc.line_count and (op.line < doc.line_count - 1 or doc.line_text(op.line)):
            offset = doc.line_start(op.line)
            edits.append((offset, offset, order, comment + _line_break(doc, op.line)))
        else:  # after the last line
            end = len(doc.text)
            lead = "" if not doc.text or doc.text.endswith(("\n", "\r")) else _line_break(doc, 0)
            edits.append((end, end, order, lead + comment + _line_break(doc, op.line)))
    edits.sort(key=lambda edit: (edit[0], edit[2]))
    return splice(doc.text, ((start, end, new) for start, end, _, new in edits))


def _existing_directive(doc: TextDocument, op: _Op) -> tuple[int, re.Match[str]] | None:
    """The directive line ``op`` should add its codes to, if one is already there: a file
    directive on the line it would be inserted at, or the next-line directive above the line
    (blank lines between, as the directive itself skips them)."""
    if op.kind == "file":
        if op.line < doc.line_count:
            found = _FILE.fullmatch(doc.line_text(op.line).strip())
            if found:
                return op.line, _FILE.search(doc.line_text(op.line)) or found
        return None
    line = op.line - 1
    while line >= 0 and not doc.line_text(line).strip():
        line -= 1
    if line < 0:
        return None
    text = doc.line_text(line)
    container = _CONTAINER.match(text)
    body = text[container.end() :] if container else text
    if _NEXT_LINE.fullmatch(body.rstrip()):
        found = _NEXT_LINE.search(text)
        if found:
            return line, found
    return None


# -- where each finding's comment goes ---------------------------------------------------


class _Planner:
    """The comment for each finding of one file, or None where none can go."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.doc = ctx.doc
        self.unsafe_lines: set[int] | None = None
        if ctx.kind is FileKind.SCRIPT:
            self.unsafe_lines = _script_unsafe_lines(self.doc)

    def op_for(self, finding: Finding) -> _Op | None:
        line = min(max(finding.range.start.line, 0), self.doc.line_count - 1)
        if self.ctx.kind is FileKind.SCRIPT:
            assert self.unsafe_lines is not None
            return None if line in self.unsafe_lines else _Op("trailing", line)
        return self._markdown_op(line)

    def file_op(self) -> _Op:
        fm = self.ctx.frontmatter
        # Line 1 of a SKILL.md is its frontmatter fence: the directive goes right after it.
        return _Op("file", fm.end_line + 1 if fm.present and fm.closed else 0)

    def _markdown_op(self, line: int) -> _Op:
        fm = self.ctx.frontmatter
        if line == 0:
            return self.file_op()
        if fm.present and line <= fm.end_line:
            if fm.closed and line < fm.end_line:
                return _Op("trailing", line)  # checked to leave the YAML as it was
            return self.file_op()
        for fence in self.ctx.markdown.fences:
            first, last = fence.range.start.line, fence.range.end.line
            if not first <= line <= last:
                continue
            if line == first:
                return _Op("above", line, self._prefix(line))
            command_end = self._command_end(line, last)
            return _Op("trailing", command_end) if command_end is not None else self.file_op()
        if self._inside_table(line):
            return self.file_op()  # a line between table rows would end the table
        return _Op("above", line, self._prefix(line))

    def _prefix(self, line: int) -> str:
        match = _CONTAINER.match(self.doc.line_text(line))
        return match.group(0) if match else ""

    def _command_end(self, line: int, fence_end: int) -> int | None:
        """The last line of the fenced command whose words cover ``line`` (where a trailing
        comment is part of that command), or None."""
        for inv in self.ctx.invocations:
            if inv.source != "fence":
                continue
            lines = [w.range.start.line for w in (inv.script, *inv.args)]
            lines += [w.range.end.line for w in (inv.script, *inv.args)]
            if not min(lines) <= line <= max(lines):
                continue
            end = max(lines)
            # A `\` continuation carries the command on: the comment goes after it ends.
            while self.doc.line_text(end).rstrip().endswith("\\") and end + 1 < fence_end:
                end += 1
            if self.doc.line_text(end).rstrip().endswith("\\"):
                return None
            return end
        return None

    def _inside_table(self, line: int) -> bool:
        doc = self.doc
        if "|" not in doc.line_text(line):
            return False
        start = line
        while start > 0 and doc.line_text(start - 1).strip():
            start -= 1
        if start == line:
            return False  # the first line of its block: a comment above it stays outside
        end = line
        while end + 1 < doc.line_count and doc.line_text(end + 1).strip():
            end += 1
        return any(
            "-" in doc.line_text(i) and _TABLE_DELIMITER.fullmatch(doc.line_text(i))
            for i in range(start, end + 1)
        )


def _script_unsafe_lines(doc: TextDocument) -> set[int]:
    """Lines of a script whose end a ``#`` comment cannot follow without changing the script:
    inside a string or here-document, before a ``\\`` continuation, the ``#!`` line."""
    if doc.path.suffix == ".py":
        return _python_unsafe_lines(doc)
    return _shell_unsafe_lines(doc)


def _python_unsafe_lines(doc: TextDocument) -> set[int]:
    every = set(range(doc.line_count))
    unsafe: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(doc.text).readline):
            (start, _), (end, _) = token.start, token.end
            if token.type == tokenize.STRING and end > start:
                unsafe.update(range(start - 1, end - 1))  # every line but the string's last
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return every  # a script Python cannot read: no comment can be proven harmless
    for line in range(doc.line_count):
        if doc.line_text(line).rstrip().endswith("\\"):
            unsafe.add(line)
    if doc.line_text(0).startswith("#!"):
        unsafe.add(0)
    return unsafe


_HEREDOC = re.compile(r"<<(-?)\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\2")


def _shell_unsafe_lines(doc: TextDocument) -> set[int]:
    unsafe: set[int] = set()
    quote: str | None = None
    pending: list[tuple[str, bool]] = []  # here-documents opened on the current line
    heredoc: tuple[str, bool] | None = None
    for number in range(doc.line_count):
        text = doc.line_text(number)
        if heredoc is not None:
            unsafe.add(number)
            delimiter, strip_tabs = heredoc
            if (text.lstrip("\t") if strip_tabs else text) == delimiter:
                heredoc = pending.pop(0) if pending else None
            continue
        i = 0
        while i < len(text):
            char = text[i]
            if quote == "'":
                quote = None if char == "'" else quote
            elif quote == '"':
                if char == "\\":
                    i += 1
                elif char == '"':
                    quote = None
            elif char == "\\":
                i += 1
            elif char in "'\"":
                quote = char
            elif char == "#" and (i == 0 or text[i - 1] in " \t;|&()"):
                break  # a comment runs to the end of the line
            elif text.startswith("<<", i) and not text.startswith("<<<", i):
                found = _HEREDOC.match(text, i)
                if found:
                    pending.append((found.group(3), found.group(1) == "-"))
                    i = found.end() - 1
            i += 1
        if quote is not None or text.rstrip().endswith("\\"):
            unsafe.add(number)
        if pending:
            heredoc = pending.pop(0)
    if doc.line_text(0).startswith("#!"):
        unsafe.add(0)
    return unsafe


# -- proving a plan harmless --------------------------------------------------------------


def _meaning_kept(kind: FileKind, before: TextDocument, after: str) -> bool:
    """The comments change nothing the file means: the frontmatter's YAML events, the Python
    syntax tree. (Markdown comments render as nothing; the shell lines were chosen with care.)"""
    if kind is FileKind.SCRIPT and before.path.suffix == ".py":
        try:
            return ast.dump(ast.parse(before.text)) == ast.dump(ast.parse(after))
        except (SyntaxError, ValueError):
            return False
    if kind is FileKind.SKILL:
        return _yaml_events(_frontmatter_text(before.text)) == _yaml_events(
            _frontmatter_text(after)
        )
    return True


def _frontmatter_text(text: str) -> str | None:
    lines = TextDocument(Path("-"), text).lines
    if not lines or lines[0].rstrip() != "---":
        return None
    for end in range(1, len(lines)):
        if lines[end].rstrip() in ("---", "..."):
            return "\n".join(lines[1:end])
    return None


def _yaml_events(text: str | None) -> list[tuple[object, ...]] | str:
    if text is None:
        return "no frontmatter"
    try:
        return [
            (
                type(event).__name__,
                getattr(event, "value", None),
                getattr(event, "tag", None),
                getattr(event, "anchor", None),
                getattr(event, "style", None),
            )
            for event in yaml.parse(text, Loader=yaml.SafeLoader)
        ]
    except yaml.YAMLError as exc:
        return f"error: {exc}"


class _Trial:
    """Checks a file's text with some comments written in, as `check` would."""

    def __init__(self, workspace: Workspace, doc: TextDocument, kind: FileKind) -> None:
        self.workspace = workspace
        self.doc = doc
        self.kind = kind

    def findings(self, text: str) -> list[Finding]:
        doc = TextDocument(self.doc.path, text)
        # An overlay: what other rules read of this file (a SKILL.md read while its references
        # are checked) is the trial text too.
        self.workspace.set_overlay(doc)
        try:
            return check_document(self.workspace, doc)
        finally:
            self.workspace.drop_overlay(doc.path)

    def run(self, plan: _Plan, reference: list[Finding]) -> tuple[str, list[Finding]] | None:
        """The text and findings with ``plan`` written, when that is no worse than
        ``reference`` for any rule and keeps the file's meaning; else None."""
        if not plan:
            return self.doc.text, reference
        try:
            text = _render(self.doc, plan)
        except ValueError:
            return None
        if not _meaning_kept(self.kind, self.doc, text):
            return None
        after = self.findings(text)
        before_counts = Counter(f.code for f in reference)
        if any(
            count > before_counts[code] for code, count in Counter(f.code for f in after).items()
        ):
            return None
        return text, after


def _with(plan: _Plan, op: _Op, codes: frozenset[str]) -> _Plan:
    merged = dict(plan)
    merged[op] = merged.get(op, frozenset()) | codes
    return merged


def suppress_file(workspace: Workspace, path: Path) -> FileOutcome:
    """The text of ``path`` with a comment for each of its findings that one can silence."""
    outcome = FileOutcome(path)
    kind, skill = classify(workspace, path)
    if kind not in (FileKind.SKILL, FileKind.REFERENCE, FileKind.SCRIPT):
        return outcome
    doc = workspace.read(path).doc
    if doc is None:
        return outcome
    outcome.original = doc.text
    trial = _Trial(workspace, doc, kind)
    base = trial.findings(doc.text)
    targets = [f for f in base if f.code not in NEVER_SUPPRESSIBLE]
    if not targets:
        return outcome
    planner = _Planner(Context(workspace, doc, kind, skill, workspace.settings_for(path)))
    wanted: _Plan = {}
    for finding in targets:
        op = planner.op_for(finding)
        if op is not None:
            wanted = _with(wanted, op, frozenset({finding.code}))

    def left(findings: list[Finding]) -> list[Finding]:
        return [f for f in findings if f.code not in NEVER_SUPPRESSIBLE]

    unplanned = len(targets) - sum(len(codes) for codes in wanted.values())
    # Usually every comment works at once; otherwise keep those that each silence something.
    accepted: _Plan = {}
    text, current = doc.text, base
    together = trial.run(wanted, base)
    if together is not None and len(left(together[1])) <= max(unplanned, 0):
        accepted, (text, current) = wanted, together
    else:
        for op in sorted(wanted, key=lambda o: (o.line, o.kind)):
            candidate = _with(accepted, op, wanted[op])
            tried = trial.run(candidate, current)
            if tried is not None and len(tried[1]) < len(current):
                accepted, (text, current) = candidate, tried
        # What no line comment could silence: a file directive, after the frontmatter (or on
        # line 1), else at the end, where it cannot come before the title a body rule expects.
        for file_op in dict.fromkeys((planner.file_op(), _Op("file", doc.line_count))):
            leftover = frozenset(f.code for f in left(current))
            if not leftover or kind is FileKind.SCRIPT:
                break
            candidate = _with(accepted, file_op, leftover)
            tried = trial.run(candidate, current)
            if tried is not None and len(tried[1]) < len(current):
                accepted, (text, current) = candidate, tried
    if not accepted or text == doc.text:
        return outcome
    outcome.text = text
    outcome.comments = len(accepted)
    outcome.suppressed = len(base) - len(current)
    return outcome


def _write(outcome: FileOutcome) -> bool:
    """Write the new text if the file still holds what was read (its BOM kept); False if it
    changed meanwhile."""
    assert outcome.text is not None
    try:
        raw = outcome.path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    bom = _BOM if raw.startswith(_BOM) else ""
    if raw[len(bom) :] != outcome.original:
        return False
    atomic_write(outcome.path, bom + outcome.text)
    return True


def add_suppressions(workspace: Workspace, findings: list[Finding]) -> Summary:
    """Write the comments for ``findings`` (one pass per file holding any)."""
    summary = Summary()
    for path in sorted({f.path for f in findings}):
        outcome = suppress_file(workspace, path)
        if outcome.text is None:
            continue
        if _write(outcome):
            summary.written.append(outcome)
        else:
            summary.skipped.append(path)
        workspace.forget(path)
    return summary


def why_not(workspace: Workspace, finding: Finding) -> str:
    """Why a finding left after `--add-suppressions` has no comment."""
    if finding.code == "EZ004":
        return "the file cannot be read"
    if finding.code in ("EZ001", "EZ002"):
        return "it is about a suppression comment: edit or remove that comment"
    kind, _ = classify(workspace, finding.path)
    if kind is FileKind.MANIFEST or finding.path.suffix == ".json":
        return "JSON has no comments"
    if kind is FileKind.TEST:
        return "skill tests have no comment syntax"
    if kind is FileKind.OUTPUT:
        return "files under outputs/ are not read for suppression comments"
    if kind is FileKind.OTHER:
        return (
            "not a file easel-ls reads suppression comments in (a config finding: edit the config)"
        )
    at_shebang = (
        finding.range.start.line == 0 and (workspace.text_of(finding.path) or "")[:2] == "#!"
    )
    if kind is FileKind.SCRIPT and at_shebang:
        return "line 1 is the script's #! line; `per-file-ignores` in the config can take it"
    return "no comment there silences it without changing what the file says"


def add_suppressions_main(workspace: Workspace, paths: list[Path], args: argparse.Namespace) -> int:
    from easel_ls import cli
    from easel_ls.report import ReportContext
    from easel_ls.report.common import Palette, sorted_findings
    from easel_ls.report.concise import header_line

    findings = cli.collect_findings(workspace, paths, args)
    summary = add_suppressions(workspace, findings)
    # What is left is what `check` reports now: run it again.
    remaining = cli.collect_findings(workspace, paths, args)
    out = sys.stdout
    files = len(summary.written)
    if summary.comments:
        out.write(
            f"Added {_count(summary.comments, 'suppression comment')} to {_count(files, 'file')}"
            f" ({_count(summary.suppressed, 'finding')} suppressed).\n"
        )
    else:
        out.write("Added no suppression comments.\n")
    for path in summary.skipped:
        out.write(f"{workspace.rel(path)}: changed while the comments were prepared; left alone\n")
    if remaining:
        ctx = ReportContext(root=workspace.root, source=lambda path: None)
        palette = Palette(False)
        out.write(f"{_count(len(remaining), 'finding')} not suppressed:\n")
        for finding in sorted_findings(remaining, workspace.root):
            line = header_line(finding, ctx, palette)
            out.write(f"{line} ({why_not(workspace, finding)})\n")
    out.flush()
    return cli.EXIT_FINDINGS if remaining and not args.exit_zero else cli.EXIT_CLEAN


def _count(number: int, word: str) -> str:
    return f"{number} {word}" if number == 1 else f"{number} {word}s"
