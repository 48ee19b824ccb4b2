"""What the PB rules need to know about a Python script, read from its AST (never run)."""

from __future__ import annotations

import ast
import re
from collections import deque
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
# Self-test code asserts on sample paths (`Path("outputs/x/answer.md")`) and writes to temporary
# folders: an `outputs/` literal there says nothing about where the script writes.
_SELF_TEST = re.compile(r"_?(?:cmd_)?(?:self_?test\w*|test_\w+)")
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


# Fields that never hold a node (names, numbers, flags, the Load/Store/Del context): the walk
# does not look at them. A Constant's value is data, not a child.
_NOT_CHILDREN = frozenset(
    {
        "id",
        "attr",
        "arg",
        "module",
        "level",
        "kind",
        "type_comment",
        "conversion",
        "is_async",
        "ctx",
    }
)
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {ast.Constant: ()}


def _child_fields(node_type: type) -> tuple[str, ...]:
    fields = _CHILD_FIELDS.get(node_type)
    if fields is None:
        names = getattr(node_type, "_fields", ())
        fields = _CHILD_FIELDS[node_type] = tuple(f for f in names if f not in _NOT_CHILDREN)
    return fields


def script_facts(tree: ast.AST) -> ScriptFacts:
    """One breadth-first walk, in ``ast.walk``'s order ("the first such call" depends on it).
    It is most of the cost of a script after parsing, so nodes are dispatched on their exact
    type (the parser makes no subclasses) and fields that never hold a node are skipped."""
    facts = ScriptFacts()
    node_type, call_type, constant_type = ast.AST, ast.Call, ast.Constant
    function_types = (ast.FunctionDef, ast.AsyncFunctionDef)
    import_type, import_from_type = ast.Import, ast.ImportFrom
    todo = deque([tree])
    pop, push = todo.popleft, todo.append
    self_tests: list[tuple[int, int]] = []  # line spans; a function comes before its body
    while todo:
        node = pop()
        kind = type(node)
        if kind is call_type:
            _note_call(facts, node)  # type: ignore[arg-type]
        elif kind is constant_type:
            value = node.value  # type: ignore[attr-defined]
            if (
                type(value) is str
                and facts.outputs_literal is None
                and (value == "outputs" or value.startswith("outputs/"))
                and not _within(node.lineno, self_tests)  # type: ignore[attr-defined]
            ):
                facts.outputs_literal = _span(node)  # type: ignore[arg-type]
            continue  # no children
        elif kind in function_types:
            name = node.name  # type: ignore[attr-defined]
            facts.defines.add(name)
            if _SELF_TEST.fullmatch(name):
                self_tests.append((node.lineno, node.end_lineno or node.lineno))  # type: ignore[attr-defined]
        elif kind is import_type:
            if any(a.name.split(".")[0] in _HTTP_MODULES for a in node.names):  # type: ignore[attr-defined]
                facts.imports_http = True
        elif kind is import_from_type:
            module = node.module  # type: ignore[attr-defined]
            if module and module.split(".")[0] in _HTTP_MODULES:
                facts.imports_http = True
        for name in _CHILD_FIELDS.get(kind) or _child_fields(kind):
            value = getattr(node, name, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, node_type):
                        push(item)
            elif isinstance(value, node_type):
                push(value)
    return facts


def _within(line: int, spans: list[tuple[int, int]]) -> bool:
    return any(start <= line <= end for start, end in spans)


def _note_call(facts: ScriptFacts, node: ast.Call) -> None:
    name = _call_name(node)
    if name is None:
        return
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
        facts.post_call = _span(node)


def _span(node: ast.expr) -> tuple[int, int, int]:
    """(line, start column, end column) of a node, the end only when it ends on its line."""
    end = node.end_col_offset if node.end_lineno == node.lineno else node.col_offset
    return (node.lineno - 1, node.col_offset, end or node.col_offset)
