"""TS — skill tests: `tests/N.prompt` + `tests/N.expected` pairs and their patterns."""

from __future__ import annotations

import re
from functools import lru_cache

from easel_ls.findings import Applicability, CreateFile, Fix, Range
from easel_ls.rules.context import Context, FileKind, checker

_PAIR = {".prompt": ".expected", ".expected": ".prompt"}


@checker(FileKind.TEST, codes=("TS001",))
def unpaired_test(ctx: Context) -> None:
    other = ctx.path.with_suffix(_PAIR[ctx.path.suffix])
    ctx.workspace.note_dependency(other, ctx.path)
    if ctx.workspace.exists(other):
        return
    content = (
        "# 期望输出关键字，每行一个；以 re: 开头的行是正则\n" if other.suffix == ".expected" else ""
    )
    ctx.report(
        "TS001",
        Range.line_start(0),
        f"`{ctx.path.name}` has no `{other.name}` beside it",
        fixes=[
            Fix(f"Create {other.name}", Applicability.UNSAFE, creates=(CreateFile(other, content),))
        ],
    )


@lru_cache(maxsize=4096)
def _compile_problem(pattern: str) -> tuple[str, int | None] | None:
    """Why ``pattern`` does not compile (the message, and for a syntax error its index), or None.
    Remembered: every skill's tests repeat the same few patterns, and the ``re`` module's own
    cache (shared with every other pattern of a run) forgets them."""
    try:
        re.compile(pattern)
    except re.error as exc:
        return exc.msg, exc.pos or 0
    except (RecursionError, OverflowError) as exc:
        return str(exc), None
    return None


@checker(FileKind.TEST, codes=("TS002", "TS003"))
def expected_patterns(ctx: Context) -> None:
    if ctx.path.suffix != ".expected":
        return
    meaningful = 0
    for line, text in enumerate(ctx.doc.lines):
        stripped = text.strip()
        if not stripped or stripped.startswith("#"):
            continue
        meaningful += 1
        if not stripped.startswith("re:"):
            continue
        start = text.index("re:") + 3
        pattern = text[start:].strip()
        offset = start + (len(text[start:]) - len(text[start:].lstrip()))
        problem = _compile_problem(pattern)
        if problem is not None:
            message, pos = problem
            if pos is not None:
                message = f"{message} (at column {offset + pos + 1})"
            ctx.report(
                "TS003",
                Range.of(line, offset, line, offset + len(pattern)),
                f"pattern does not compile: {message}",
            )
    if meaningful == 0:
        ctx.report(
            "TS002",
            Range.line_start(0),
            "`.expected` lists no keyword or pattern, so the test can never fail",
            help="one keyword per line; a line starting with `re:` is a regular expression",
        )
