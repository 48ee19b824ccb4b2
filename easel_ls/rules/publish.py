"""PB — publish and output safety contracts, read from a script's AST (never run)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from easel_ls.engine import Context, FileKind, checker
from easel_ls.findings import Range

_WRITE_METHODS = {
    "write_text",
    "write_bytes",
    "mkdir",
    "touch",
    "makedirs",
    "copy",
    "copy2",
    "copyfile",
    "copytree",
    "move",
    "rename",
    "replace",
    "dump",
    "save",
    "savefig",
}
_POST_CALLS = {"post", "put", "urlopen"}
_HTTP_MODULES = {"requests", "httpx", "urllib", "aiohttp", "http"}


@dataclass
class ScriptFacts:
    exec_option_line: int | None = None
    exec_option_col: int = 0
    calls: set[str] = field(default_factory=set)
    defines: set[str] = field(default_factory=set)
    outputs_literal: tuple[int, int, int] | None = None  # line, col, end col
    writes: bool = False
    post_call: tuple[int, int, int] | None = None
    imports_http: bool = False


def _call_name(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def script_facts(tree: ast.AST) -> ScriptFacts:
    facts = ScriptFacts()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _call_name(node)
            if name is None:
                continue
            facts.calls.add(name)
            if name == "add_argument" and facts.exec_option_line is None:
                for arg in node.args:
                    if isinstance(arg, ast.Constant) and arg.value == "--exec":
                        facts.exec_option_line = node.lineno - 1
                        facts.exec_option_col = node.col_offset
            if name in _WRITE_METHODS:
                facts.writes = True
            if name == "open":
                mode = (
                    node.args[1]
                    if len(node.args) > 1
                    else next((k.value for k in node.keywords if k.arg == "mode"), None)
                )
                if (
                    isinstance(mode, ast.Constant)
                    and isinstance(mode.value, str)
                    and any(c in mode.value for c in "wax+")
                ):
                    facts.writes = True
            if name in _POST_CALLS and facts.post_call is None:
                end = node.end_col_offset if node.end_lineno == node.lineno else node.col_offset
                facts.post_call = (node.lineno - 1, node.col_offset, end or node.col_offset)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            facts.defines.add(node.name)
        elif isinstance(node, ast.Import):
            if any(a.name.split(".")[0] in _HTTP_MODULES for a in node.names):
                facts.imports_http = True
        elif isinstance(node, ast.ImportFrom):
            if node.module and node.module.split(".")[0] in _HTTP_MODULES:
                facts.imports_http = True
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            value = node.value
            if facts.outputs_literal is None and (
                value == "outputs" or value.startswith("outputs/")
            ):
                end = node.end_col_offset if node.end_lineno == node.lineno else node.col_offset
                facts.outputs_literal = (node.lineno - 1, node.col_offset, end or node.col_offset)
    return facts


def _facts(ctx: Context) -> ScriptFacts | None:
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
    if facts.exec_option_line is not None:
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
