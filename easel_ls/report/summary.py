"""The closing lines of `full`/`concise`, the `--show-fixes` listings and the `--statistics`
table, as ruff prints them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path

from easel_ls.findings import Finding
from easel_ls.report.common import (
    Palette,
    ReportContext,
    applicable_fixes,
    display_path,
    has_hidden_fix,
    is_fixable,
    row_column,
    sorted_findings,
)
from easel_ls.rules import RULES

ALL_PASSED = "All checks passed!"


def _plural(count: int, word: str, plural: str | None = None) -> str:
    return f"{count} {word if count == 1 else (plural or word + 's')}"


def render_summary(findings: list[Finding], ctx: ReportContext, *, fixed: int = 0) -> str:
    """``Found N errors.`` plus what `--fix` could do; ``findings`` are those still remaining.

    Worded as ruff (0.17) words it: ``[*] 2 fixable with `--fix`.``, the unsafe fixes that
    `--unsafe-fixes` would add in brackets after it, or alone when nothing else is fixable.
    """
    palette = Palette(ctx.color)
    remaining = len(findings)
    if remaining == 0 and fixed == 0:
        return palette.paint(ALL_PASSED, "1", "32") + "\n"
    total = remaining + fixed
    found = f"Found {_plural(total, 'error')}"
    if fixed:
        found += f" ({fixed} fixed, {remaining} remaining)"
    lines = [palette.bold(found + ".")]
    fixable = sum(is_fixable(finding, ctx.unsafe_fixes) for finding in findings)
    hidden = sum(has_hidden_fix(finding, ctx.unsafe_fixes) for finding in findings)
    unsafe = (
        f"{_plural(hidden, 'unsafe fix', 'unsafe fixes')} available with `--fix --unsafe-fixes`"
    )
    marker = palette.cyan("[*]")
    if fixable and hidden:
        lines.append(f"{marker} {fixable} fixable with `--fix` ({unsafe}).")
    elif fixable:
        lines.append(f"{marker} {fixable} fixable with `--fix`.")
    elif hidden:
        lines.append(f"{unsafe}.")
    return "\n".join(lines) + "\n"


def render_fix_summary(fixed: Mapping[Path, Mapping[str, int]], ctx: ReportContext) -> str:
    """`--fix --show-fixes`: what was fixed, per file and rule (ruff's ``Fixed N errors:``)."""
    palette = Palette(ctx.color)
    total = sum(sum(per_code.values()) for per_code in fixed.values())
    if total == 0:
        return ""
    width = len(str(max(count for per_code in fixed.values() for count in per_code.values())))
    lines = [palette.paint(f"Fixed {_plural(total, 'error')}:", "1", "32")]
    by_name = sorted(fixed.items(), key=lambda item: display_path(item[0], ctx.root))
    for path, per_code in by_name:
        if not per_code:
            continue
        lines.append(f"{palette.cyan('-')} {palette.bold(display_path(path, ctx.root))}:")
        for code, count in sorted(per_code.items(), key=lambda item: (-item[1], item[0])):
            name = RULES[code].name if code in RULES else code
            lines.append(f"    {count:>{width}} × {palette.bold(code)} ({name})")
    return "\n".join(lines) + "\n"


def render_available_fixes(findings: list[Finding], ctx: ReportContext) -> str:
    """`--show-fixes` without `--fix`: the fix `--fix` would apply to each finding (``[*]``),
    or the unsafe one `--unsafe-fixes` would enable, per file."""
    palette = Palette(ctx.color)
    rows: dict[str, list[str]] = {}
    count = 0
    for finding in sorted_findings(findings, ctx.root):
        applicable = applicable_fixes(finding, ctx.unsafe_fixes)
        if applicable:
            fix, marker = applicable[0], palette.cyan("[*]")
        elif finding.fixes:
            fix, marker = finding.fixes[0], "(unsafe)"
        else:
            continue
        row, column = row_column(finding.range.start)
        where = display_path(finding.path, ctx.root)
        line = f"    {row}:{column} {palette.bold(finding.code)} {marker} {fix.title}"
        rows.setdefault(where, []).append(line)
        count += 1
    if not count:
        return ""
    head = f"Fixes available for {_plural(count, 'error')}:"
    lines = [palette.bold(head)]
    for where, entries in rows.items():
        lines.append(f"{palette.cyan('-')} {palette.bold(where)}:")
        lines.extend(entries)
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
