"""The closing lines of `full`/`concise` and the `--statistics` table, as ruff prints them."""

from __future__ import annotations

from collections import Counter

from easel_ls.findings import Finding
from easel_ls.report.common import Palette, ReportContext, has_hidden_fix, is_fixable
from easel_ls.rules import RULES


def _plural(count: int, word: str, plural: str | None = None) -> str:
    return f"{count} {word if count == 1 else (plural or word + 's')}"


def render_summary(findings: list[Finding], ctx: ReportContext, *, fixed: int = 0) -> str:
    """``Found N errors.`` plus what `--fix` could do; ``findings`` are those still remaining."""
    palette = Palette(ctx.color)
    remaining = len(findings)
    if remaining == 0 and fixed == 0:
        return palette.paint("All checks passed!", "1", "32") + "\n"
    total = remaining + fixed
    found = f"Found {_plural(total, 'error')}"
    if fixed:
        found += f" ({fixed} fixed, {remaining} remaining)"
    lines = [palette.bold(found + ".")]
    fixable = sum(is_fixable(finding, ctx.unsafe_fixes) for finding in findings)
    hidden = sum(has_hidden_fix(finding, ctx.unsafe_fixes) for finding in findings)
    if fixable:
        lines.append(f"{palette.cyan('[*]')} {fixable} fixable with the --fix option.")
    if hidden:
        fixes = _plural(hidden, "hidden fix", "hidden fixes")
        lines.append(f"({fixes} can be enabled with the --unsafe-fixes option.)")
    return "\n".join(lines) + "\n"


def render_statistics(findings: list[Finding], ctx: ReportContext) -> str:
    """One row per code: count, code, fix marker, rule name; most frequent first.

    The marker column appears only when some code has a fix: ``[*]`` every finding of that
    code is fixable, ``[-]`` some are, ``[ ]`` none is.
    """
    palette = Palette(ctx.color)
    counts = Counter(finding.code for finding in findings)
    if not counts:
        return ""
    fixable = Counter(f.code for f in findings if is_fixable(f, ctx.unsafe_fixes))
    names: dict[str, str] = {}
    for finding in findings:
        names.setdefault(finding.code, finding.name)
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    count_width = max(len(str(count)) for _, count in rows)
    code_width = max(len(code) for code, _ in rows)
    any_fixable = bool(fixable)
    lines = []
    for code, count in rows:
        name = RULES[code].name if code in RULES else names[code]
        marker = ""
        if any_fixable:
            symbol = "*" if fixable[code] == count else "-" if fixable[code] else " "
            marker = (palette.cyan(f"[{symbol}]") if symbol != " " else "[ ]") + " "
        code_cell = palette.bold(code) + " " * (code_width - len(code))
        lines.append(f"{count:>{count_width}}\t{code_cell}\t{marker}{name}")
    return "\n".join(lines) + "\n"
