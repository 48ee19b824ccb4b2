"""What the PB rules need to know about a Python script, read from its AST (never run)."""

from __future__ import annotations

import ast
import re
import sys
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
_POST_CALLS = {"post", "put"}
# `urlopen(url)` reads; it sends only with data, itself or through a `Request(url, data=…)`.
_SENDING_METHODS = {"POST", "PUT", "PATCH"}
# Self-test code asserts on sample paths (`Path("outputs/x/answer.md")`) and writes to temporary
# folders: an `outputs/` literal there says nothing about where the script writes.
_SELF_TEST = re.compile(r"_?(?:cmd_)?(?:self_?test\w*|test_\w+)")
_HTTP_MODULES = {"requests", "httpx", "urllib", "aiohttp", "http"}
_STDLIB = frozenset(sys.stdlib_module_names)
# What else can carry text out: a browser driven to a platform, mail, another program.
_SENDER_MODULES = _HTTP_MODULES | {
    "playwright", "selenium", "pyppeteer", "DrissionPage", "undetected_chromedriver", "smtplib",
    "subprocess",
}  # fmt: skip


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
    imports_sender: bool = False  # http, browser automation, mail or subprocess
    imports_beyond_stdlib: bool = False  # a package or a sibling module, which may send


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
    sending = _Sending()
    while todo:
        node = pop()
        kind = type(node)
        if kind is call_type:
            _note_call(facts, node, sending)  # type: ignore[arg-type]
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
            roots = {a.name.split(".")[0] for a in node.names}  # type: ignore[attr-defined]
            facts.imports_http |= not roots.isdisjoint(_HTTP_MODULES)
            facts.imports_sender |= not roots.isdisjoint(_SENDER_MODULES)
            facts.imports_beyond_stdlib |= not roots <= _STDLIB
        elif kind is import_from_type:
            module = node.module  # type: ignore[attr-defined]
            root = module.split(".")[0] if module else ""
            facts.imports_http |= root in _HTTP_MODULES
            facts.imports_sender |= root in _SENDER_MODULES
            # `from . import x` (no module) and `from .x import y` are sibling modules.
            facts.imports_beyond_stdlib |= bool(node.level) or root not in _STDLIB  # type: ignore[attr-defined]
        for name in _CHILD_FIELDS.get(kind) or _child_fields(kind):
            value = getattr(node, name, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, node_type):
                        push(item)
            elif isinstance(value, node_type):
                push(value)
    if facts.post_call is None and sending.urlopen is not None and sending.sends:
        facts.post_call = sending.urlopen
    return facts


class _Sending:
    """The first `urlopen` call, and whether any request of the script carries data."""

    __slots__ = ("sends", "urlopen")

    def __init__(self) -> None:
        self.urlopen: tuple[int, int, int] | None = None
        self.sends = False


def _within(line: int, spans: list[tuple[int, int]]) -> bool:
    return any(start <= line <= end for start, end in spans)


def _carries_data(node: ast.Call) -> bool:
    if len(node.args) >= 2 or any(k.arg == "data" for k in node.keywords):
        return True
    method = next((k.value for k in node.keywords if k.arg == "method"), None)
    return (
        isinstance(method, ast.Constant)
        and isinstance(method.value, str)
        and method.value.upper() in _SENDING_METHODS
    )


def _note_call(facts: ScriptFacts, node: ast.Call, sending: _Sending) -> None:
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
    elif name == "urlopen":
        if sending.urlopen is None:
            sending.urlopen = _span(node)
        sending.sends |= _carries_data(node)
    elif name == "Request":
        sending.sends |= _carries_data(node)


def _span(node: ast.expr) -> tuple[int, int, int]:
    """(line, start column, end column) of a node, the end only when it ends on its line."""
    end = node.end_col_offset if node.end_lineno == node.lineno else node.col_offset
    return (node.lineno - 1, node.col_offset, end or node.col_offset)
