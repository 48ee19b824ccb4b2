"""Suppression comments, and the EZ001/EZ002 findings about them.

Markdown: ``<!-- easel-ls-disable-next-line CODE[,CODE] -->``, ``<!-- easel-ls-disable CODE -->`` …
``<!-- easel-ls-enable CODE -->``, ``<!-- easel-ls-disable-file CODE -->``.
Fenced commands, Python scripts and frontmatter lines: a trailing ``# easel-ls: ignore[CODE]``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from easel_ls.findings import Finding, Range
from easel_ls.rules import RULES

if TYPE_CHECKING:
    from easel_ls.rules.context import Context

# Matched against a comment's text; the markdown model strips `<!--` and `-->` (kept optional).
_DIRECTIVE = re.compile(
    r"\A(?:<!--)?\s*easel-ls-(disable-next-line|disable-file|disable|enable)\b(.*?)(?:-->)?\s*\Z",
    re.S,
)
_INLINE = re.compile(r"#\s*easel-ls:\s*ignore\[([^\]]*)\]")
_CODE = re.compile(r"[A-Za-z]{2}\d{3}")


def _inline_ignore(text: str) -> re.Match[str] | None:
    """The first ``# easel-ls: ignore[...]``; searching only up to the last `]` keeps a line
    full of unclosed ``ignore[`` linear instead of quadratic."""
    return _INLINE.search(text, 0, text.rfind("]") + 1)


@dataclass
class Directive:
    kind: str  # "next-line", "file", "range", "line"
    codes: tuple[str, ...]
    range: Range  # where the comment is (for EZ001/EZ002)
    first_line: int = 0
    last_line: int = 10**9
    used: set[str] = field(default_factory=set)

    def covers(self, finding: Finding) -> bool:
        return (
            finding.code in self.codes
            and self.first_line <= finding.range.start.line <= self.last_line
        )


def _split_codes(text: str) -> tuple[str, ...]:
    return tuple(c.upper() for c in re.split(r"[\s,]+", text.strip()) if c)


def collect_directives(ctx: Context) -> list[Directive]:
    from easel_ls.rules.context import FileKind

    doc = ctx.doc
    directives: list[Directive] = []
    if ctx.kind in (FileKind.SKILL, FileKind.REFERENCE):
        open_ranges: dict[str, Directive] = {}
        for comment in ctx.markdown.comments:
            for m in _DIRECTIVE.finditer(comment.text):
                kind, codes = m.group(1), _split_codes(m.group(2))
                rng = comment.range
                if kind == "disable-next-line":
                    target = _next_content_line(doc.lines, rng.end.line + 1)
                    directives.append(Directive("next-line", codes, rng, target, target))
                elif kind == "disable-file":
                    directives.append(Directive("file", codes, rng))
                elif kind == "disable":
                    d = Directive("range", codes, rng, rng.end.line)
                    directives.append(d)
                    for code in codes:
                        open_ranges[code] = d
                else:  # enable closes the ranges it names
                    for code in codes:
                        opened = open_ranges.pop(code, None)
                        if opened is not None:
                            opened.last_line = min(d.last_line, rng.start.line)
        for inv in ctx.invocations:
            if inv.suppressed:
                lines = [w.range.start.line for w in [inv.script, *inv.args]]
                first, last = min(lines), max(lines)
                line_text = doc.line_text(last)
                found = _inline_ignore(line_text)
                col = found.start() if found else 0
                rng = Range.of(last, col, last, found.end() if found else 0)
                directives.append(
                    Directive("line", tuple(sorted(inv.suppressed)), rng, first, last)
                )
    # Trailing `# easel-ls: ignore[...]` on Python lines and frontmatter lines.
    if "easel-ls" not in doc.text:  # no directive anywhere: skip reading line by line
        return directives
    if ctx.kind is FileKind.SCRIPT or (ctx.kind is FileKind.SKILL and ctx.frontmatter.closed):
        last_line = ctx.frontmatter.end_line if ctx.kind is FileKind.SKILL else doc.line_count
        for line in range(min(last_line, doc.line_count)):
            text = doc.line_text(line)
            if "easel-ls" not in text:
                continue
            inline = _inline_ignore(text)
            if inline:
                rng = Range.of(line, inline.start(), line, inline.end())
                codes = _split_codes(inline.group(1))
                directives.append(Directive("line", codes, rng, line, line))
    return directives


def _next_content_line(lines: list[str], start: int) -> int:
    for i in range(start, len(lines)):
        if lines[i].strip():
            return i
    return start


def apply_suppressions(ctx: Context, findings: list[Finding]) -> list[Finding]:
    directives = collect_directives(ctx)
    if not directives:
        return findings
    kept = []
    for f in findings:
        suppressed = False
        for d in directives:
            if d.covers(f):
                d.used.add(f.code)
                suppressed = True
        if not suppressed:
            kept.append(f)
    rel = ctx.workspace.rel(ctx.path)
    for d in directives:
        for code in d.codes:
            if code not in RULES:
                guess = _closest_code(code)
                hint = f"; did you mean `{guess}`?" if guess else ""
                kept.append(
                    ctx.finding(
                        "EZ002", d.range, f"suppression names unknown rule code `{code}`{hint}"
                    )
                )
            elif code not in d.used and ctx.settings.is_enabled(code, rel):
                message = f"unused suppression: no {code} ({RULES[code].name}) finding here"
                kept.append(ctx.finding("EZ001", d.range, message))
    return kept


def _closest_code(code: str) -> str | None:
    import difflib

    match = difflib.get_close_matches(code.upper(), list(RULES), n=1, cutoff=0.6)
    return match[0] if match else None
