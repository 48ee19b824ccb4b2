"""Code actions: the fixes that ride in each diagnostic's data, source.fixAll.easel-ls, and
"Disable CODE for this line" (writes the suppression comment the engine reads).

Where the comment goes (see ``easel_ls/suppressions.py``): in Markdown a
``<!-- easel-ls-disable-next-line CODE -->`` line above, with the line's indentation; on a fenced
command a trailing `` # easel-ls: ignore[CODE]`` on its last line; on a script or frontmatter
line a trailing ``# easel-ls: ignore[CODE]``. An existing comment of the same kind is merged.
No action is offered where a comment would change the text's meaning (inside a multi-line
string or block scalar, after a line continuation, inside a non-command code block).
"""

from __future__ import annotations

import io
import re
import tokenize
from typing import TYPE_CHECKING

import yaml
from lsprotocol import converters
from lsprotocol import types as lsp

from easel_ls.findings import Range, TextEdit
from easel_ls.model.text import TextDocument
from easel_ls.rules.context import FileKind, classify
from easel_ls.server.convert import SOURCE
from easel_ls.workspace import Workspace

if TYPE_CHECKING:
    from easel_ls.model.frontmatter import Frontmatter
    from easel_ls.server.app import EaselServer

FIX_ALL_KIND = "source.fixAll.easel-ls"
_converter = converters.get_converter()
# Codes about suppressions and unreadable files: a comment cannot sensibly silence them.
UNSUPPRESSIBLE_PREFIX = "EZ"
_INLINE = re.compile(r"#\s*easel-ls:\s*ignore\[([^\]]*)\]")
_NEXT_LINE = re.compile(
    r"\A(?P<prefix>[ \t]*(?:>[ \t]?)*)<!--\s*easel-ls-disable-next-line\b(?P<codes>[^>]*?)\s*-->\s*\Z"
)
_CONTAINER_PREFIX = re.compile(r"[ \t]*(?:>[ \t]?)*")


def quick_fixes(params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    actions: list[lsp.CodeAction] = []
    for diagnostic in params.context.diagnostics:
        if diagnostic.source != SOURCE or not isinstance(diagnostic.data, dict):
            continue
        for fix in diagnostic.data.get("fixes", []):
            actions.append(
                lsp.CodeAction(
                    title=fix["title"],
                    kind=lsp.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    edit=_converter.structure(fix["edit"], lsp.WorkspaceEdit),
                    is_preferred=fix["applicability"] == "safe",
                )
            )
    return actions


def fix_all(ls: EaselServer, uri: str) -> lsp.CodeAction | None:
    """Every safe fix of the document, non-overlapping, as one edit."""
    from easel_ls.fixes import FixPlan

    plan = FixPlan()
    for finding in ls.findings.get(uri, []):
        for fix in finding.fixes:
            if fix.is_safe and not fix.creates and not fix.renames:
                plan.add(fix)
                break
    doc = ls.document(uri)
    if plan.applied == 0 or doc is None:
        return None
    conv = ls.converter()
    edits = [
        lsp.TextEdit(range=conv.range(e.path, e.range, doc.lines), new_text=e.new_text)
        for edits in plan.edits.values()
        for e in edits
    ]
    return lsp.CodeAction(
        title="easel-ls: fix all safe fixes",
        kind=FIX_ALL_KIND,
        edit=lsp.WorkspaceEdit(changes={uri: edits}),
    )


def disable_for_line(ws: Workspace, doc: TextDocument, code: str, line: int) -> TextEdit | None:
    """The edit that suppresses ``code`` on ``line`` of ``doc``, or None where no comment can."""
    from easel_ls.services.navigation import markdown_context

    if code.startswith(UNSUPPRESSIBLE_PREFIX) or not 0 <= line < doc.line_count:
        return None
    kind, _ = classify(ws, doc.path)
    if kind is FileKind.SCRIPT:
        if not _script_line_takes_comment(doc, line):
            return None
        return _inline_comment(doc, line, code, separator="  ")
    ctx = markdown_context(ws, doc)
    if ctx is None:
        return None
    if ctx.kind is FileKind.SKILL and ctx.frontmatter.present and line <= ctx.frontmatter.end_line:
        return _frontmatter_comment(doc, ctx.frontmatter, line, code)
    for inv in ctx.invocations:
        lines = [word.range.start.line for word in [inv.script, *inv.args]]
        if inv.source == "fence" and min(lines) <= line <= max(lines):
            return _inline_comment(doc, max(lines), code, separator=" ")
    if any(f.range.start.line <= line <= f.range.end.line for f in ctx.markdown.fences):
        return None  # a comment inside a code block is code, not a directive
    if not doc.line_text(line).strip():
        return None
    first_body_line = ctx.frontmatter.body_start_line if ctx.frontmatter.closed else 0
    return _comment_above(doc, line, code, first_body_line)


def _inline_comment(doc: TextDocument, line: int, code: str, separator: str) -> TextEdit | None:
    text = doc.line_text(line)
    existing = _INLINE.search(text)
    if existing is not None:
        codes = _codes(existing.group(1))
        if code in codes:
            return None
        rng = Range.of(line, existing.start(1), line, existing.end(1))
        return TextEdit(doc.path, rng, ", ".join([*codes, code]))
    content_end = len(text.rstrip())
    rng = Range.of(line, content_end, line, len(text))
    return TextEdit(doc.path, rng, f"{separator}# easel-ls: ignore[{code}]")


def _comment_above(doc: TextDocument, line: int, code: str, first_body_line: int) -> TextEdit:
    above = line - 1
    while above >= first_body_line and not doc.line_text(above).strip():
        above -= 1
    if above >= first_body_line:
        existing = _NEXT_LINE.match(doc.line_text(above))
        if existing is not None:
            codes = _codes(existing.group("codes"))
            if code not in codes:
                merged = f"{existing.group('prefix')}<!-- easel-ls-disable-next-line "
                merged += f"{', '.join([*codes, code])} -->"
                end = len(doc.line_text(above))
                return TextEdit(doc.path, Range.of(above, 0, above, end), merged)
    prefix = _CONTAINER_PREFIX.match(doc.line_text(line))
    indent = prefix.group() if prefix else ""
    newline = "\r\n" if "\r\n" in doc.text else "\n"
    comment = f"{indent}<!-- easel-ls-disable-next-line {code} -->{newline}"
    return TextEdit(doc.path, Range.of(line, 0, line, 0), comment)


def _frontmatter_comment(
    doc: TextDocument, fm: Frontmatter, line: int, code: str
) -> TextEdit | None:
    if not fm.closed or line in (0, fm.end_line):
        return None  # the `---` fences take no comment
    edit = _inline_comment(doc, line, code, separator=" ")
    if edit is None:
        return None
    before = "\n".join(doc.line_text(i) for i in range(1, fm.end_line))
    lines = [doc.line_text(i) for i in range(1, fm.end_line)]
    row = lines[line - 1]
    start, end = edit.range.start.character, edit.range.end.character
    lines[line - 1] = row[:start] + edit.new_text + row[end:]
    # The comment must not become part of a value (a block scalar, a multi-line string).
    return edit if _same_yaml(before, "\n".join(lines)) else None


def _same_yaml(before: str, after: str) -> bool:
    """Same YAML tokens: PyYAML's scanner drops comments, so only a changed value differs."""

    def tokens(text: str) -> list[tuple[str, object]] | None:
        try:
            return [(type(t).__name__, getattr(t, "value", None)) for t in yaml.scan(text)]
        except yaml.YAMLError:
            return None

    old = tokens(before)
    return old is not None and old == tokens(after)


def _script_line_takes_comment(doc: TextDocument, line: int) -> bool:
    text = doc.line_text(line)
    if text.rstrip().endswith("\\"):
        return False  # a comment after a line continuation ends the statement
    if doc.path.suffix != ".py":
        return True
    try:
        for token in tokenize.generate_tokens(io.StringIO(doc.text).readline):
            (first, _), (last, _) = token.start, token.end
            if first - 1 <= line < last - 1 and token.type != tokenize.NEWLINE:
                return False  # the line ends inside a multi-line string
            if first - 1 > line:
                break
    except (tokenize.TokenError, SyntaxError):
        pass  # a script that does not tokenize: the comment is as good as anywhere
    return True


def _codes(text: str) -> list[str]:
    return [c.upper() for c in re.split(r"[\s,]+", text.strip()) if c]


def disable_actions(ls: EaselServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    uri = params.text_document.uri
    wanted = [
        d
        for d in params.context.diagnostics
        if d.source == SOURCE and isinstance(d.code, str) and d.code
    ]
    if not wanted:
        return []
    doc = ls.document(uri)
    if doc is None:
        return []
    ws = ls.workspace_for(doc.path)
    conv = ls.converter()
    actions: list[lsp.CodeAction] = []
    seen: set[tuple[str, int]] = set()
    for diagnostic in wanted:
        code, line = str(diagnostic.code), diagnostic.range.start.line
        if (code, line) in seen:
            continue
        seen.add((code, line))
        edit = disable_for_line(ws, doc, code, line)
        if edit is None:
            continue
        text_edit = lsp.TextEdit(
            range=conv.range(doc.path, edit.range, doc.lines), new_text=edit.new_text
        )
        actions.append(
            lsp.CodeAction(
                title=f"Disable {code} for this line",
                kind=lsp.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                edit=lsp.WorkspaceEdit(changes={uri: [text_edit]}),
            )
        )
    return actions


def register(server: EaselServer) -> None:
    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION,
        lsp.CodeActionOptions(
            code_action_kinds=[lsp.CodeActionKind.QuickFix, FIX_ALL_KIND],
            resolve_provider=False,
        ),
    )
    def code_action(ls: EaselServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        only = [str(k) for k in params.context.only or []]
        actions: list[lsp.CodeAction] = []
        if not only or any(k.startswith("quickfix") for k in only):
            actions.extend(quick_fixes(params))
            actions.extend(disable_actions(ls, params))
        if any(k in ("source", "source.fixAll", FIX_ALL_KIND) for k in only):
            action = fix_all(ls, params.text_document.uri)
            if action is not None:
                actions.append(action)
        return actions
