"""What the PB rules need to know about a Python script, read from its AST (never run)."""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

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


def parse_python(source: str, path: str = "<unknown>") -> ast.Module | None:
    """The script's AST, or None when it does not parse."""
    try:
        return ast.parse(source, filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None


def _call_name(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


_CONTEXTS = (ast.Load, ast.Store, ast.Del)


def _walk(tree: ast.AST) -> Iterator[ast.AST]:
    """``ast.walk`` (breadth first, the same order: "the first such call" depends on it) without
    its per-node generator layers, and without the Load/Store/Del context leaves."""
    todo = deque([tree])
    pop, push = todo.popleft, todo.append
    node_type, contexts = ast.AST, _CONTEXTS
    while todo:
        node = pop()
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, node_type):
                if not isinstance(value, contexts):
                    push(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, node_type):
                        push(item)
        yield node


def script_facts(tree: ast.AST) -> ScriptFacts:
    facts = ScriptFacts()
    for node in _walk(tree):
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
