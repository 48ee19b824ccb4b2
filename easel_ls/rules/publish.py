"""PB — publish and output safety contracts, read from a script's AST (never run)."""

from __future__ import annotations

import ast

from easel_ls.findings import Range
from easel_ls.model.script_facts import ScriptFacts, script_facts
from easel_ls.rules.context import Context, FileKind, checker

# `manifest.py` writes `.easel.json` and `output_paths.py` is the validator (spec: 产物管理).
SHARED_CONTRACT_MODULES = frozenset({"manifest.py", "output_paths.py", "content_guard.py"})


def _facts(ctx: Context) -> ScriptFacts | None:
    # Usually built already, from the same parse as the script's argparse model
    # (engine.script_model), when a document calling the script was checked first.
    def build() -> ScriptFacts | None:
        try:
            return script_facts(ast.parse(ctx.doc.text))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None  # CM010 speaks for unparsable scripts where they are called

    return ctx.workspace.artefact("script-facts", ctx.doc, build)


def _char_range(ctx: Context, line: int, start: int, end: int | None = None) -> Range:
    """AST columns count UTF-8 bytes; findings count code points (CJK names are common).
    Without ``end`` the range runs to the end of the line."""
    text = ctx.doc.line_text(line)
    raw = text.encode("utf-8", "surrogatepass")

    def column(byte_col: int) -> int:
        return len(raw[:byte_col].decode("utf-8", "ignore"))

    return Range.of(line, column(start), line, len(text) if end is None else column(end))


def _skill_layer(ctx: Context) -> str | None:
    if ctx.skill is None:
        return None
    from easel_ls.model.frontmatter import parse_frontmatter, scalar_text

    doc = ctx.workspace.read(ctx.skill.skill_md).doc
    if doc is None:
        return None
    ctx.workspace.note_dependency(ctx.skill.skill_md, ctx.path)
    fm = ctx.workspace.artefact("frontmatter", doc, lambda: parse_frontmatter(doc))
    pair = fm.get("layer")
    return scalar_text(pair[1]) if pair else None


@checker(FileKind.SCRIPT, codes=("PB001",))
def publish_unguarded(ctx: Context) -> None:
    if ctx.path.suffix != ".py":
        return
    facts = _facts(ctx)
    if facts is None or "guard_or_die" in facts.calls or "guard_or_die" in facts.defines:
        return
    # A stdlib-only script that imports nothing able to send (a queue that prints a plan) posts
    # nothing with `--exec`; one that imports a package or a sibling module may.
    sends = facts.imports_sender or facts.imports_beyond_stdlib
    if facts.exec_option_line is not None and sends:
        line = facts.exec_option_line
        rng = _char_range(ctx, line, facts.exec_option_col)
        ctx.report(
            "PB001",
            rng,
            "script has an `--exec` option but never calls `content_guard.guard_or_die`",
            help="call guard_or_die(parts, exec_mode=args.exec, allow_unsafe=args.allow_unsafe) "
            "before posting",
        )
        return
    if facts.post_call is not None and facts.imports_http and _skill_layer(ctx) == "publish":
        line, col, end = facts.post_call
        ctx.report(
            "PB001",
            _char_range(ctx, line, col, end),
            "script of a publish-layer skill posts content but never calls "
            "`content_guard.guard_or_die`",
        )


@checker(FileKind.SCRIPT, codes=("PB003",))
def output_write_unvalidated(ctx: Context) -> None:
    if ctx.path.suffix != ".py":
        return
    if ctx.skill is None and ctx.path.name in SHARED_CONTRACT_MODULES:
        return  # the spec's own shared modules: they define the outputs/ contract
    facts = _facts(ctx)
    if facts is None or facts.outputs_literal is None or not facts.writes:
        return
    if "validate_output_path" in facts.calls or "validate_output_path" in facts.defines:
        return
    line, col, end = facts.outputs_literal
    ctx.report(
        "PB003",
        _char_range(ctx, line, col, end),
        "script writes under `outputs/` but never calls `validate_output_path`",
        help="from output_paths import validate_output_path; validate every path before writing",
    )
