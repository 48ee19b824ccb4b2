"""A static model of a script's argparse command line, built from its AST only.

The script is parsed, never imported or run. A small abstract interpreter follows the statements
that build parsers (including helper functions, loops over literals, branches and ``parents=``)
and records every option, positional and subcommand with the line that defines it. Whenever the
interpreter meets something it cannot know for sure, it marks the parser *open* and says why: an
open parser is never used to judge a command (only CM010 is reported for its script).

Decisions the rules rely on:
- A script that never imports argparse is ``no-argparse`` (CM010: it cannot be checked).
- ``parse_known_args`` makes the parser accept unknown options: it is not open, but unknown
  options are not errors (``ParserModel.accepts_unknown_options``).
- Options added under a condition (``if``, a loop that may not run, ``try/except``) exist for
  matching purposes but are never required.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

NO_VALUE_ACTIONS = frozenset(
    {
        "store_const",
        "store_true",
        "store_false",
        "append_const",
        "count",
        "help",
        "version",
        "boolean_optional",
    }
)
VALUE_ACTIONS = frozenset({"store", "append", "extend"})
KNOWN_NARGS = frozenset({"?", "*", "+", "...", "A...", "==SUPPRESS=="})
# argparse's module constants, by name.
ARGPARSE_CONSTANTS: dict[str, str] = {
    "OPTIONAL": "?",
    "ZERO_OR_MORE": "*",
    "ONE_OR_MORE": "+",
    "REMAINDER": "...",
    "PARSER": "A...",
    "SUPPRESS": "==SUPPRESS==",
}
# Methods whose call on an object the analysis cannot resolve means the parser is built elsewhere.
PARSER_METHODS = frozenset(
    {
        "add_argument",
        "add_argument_group",
        "add_mutually_exclusive_group",
        "add_subparsers",
        "add_parser",
        "set_defaults",
        "parse_args",
        "parse_known_args",
        "parse_intermixed_args",
        "parse_known_intermixed_args",
    }
)
PARSE_METHODS = frozenset(
    {"parse_args", "parse_known_args", "parse_intermixed_args", "parse_known_intermixed_args"}
)
# Callables that may receive a parser without changing it.
HARMLESS_CALLEES = frozenset(
    {"print", "isinstance", "id", "repr", "str", "len", "type", "hasattr", "autocomplete"}
)
# Names that reach argparse or any object by a computed name (a body using them may touch a
# parser however it is written).
_ARGPARSE_WORDS = frozenset({"argparse", "ArgumentParser"})
_DYNAMIC_LOOKUPS = frozenset(
    {"getattr", "setattr", "eval", "exec", "globals", "vars", "locals", "__import__"}
)
MAX_UNROLL = 256
MAX_CALL_DEPTH = 16
STEP_BUDGET = 3_000_000
MAX_FUNCTION_CALLS = 5_000  # helpers calling helpers twice over must not explode
_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")


@dataclass
class OptionSpec:
    flags: tuple[str, ...]
    dest: str
    action: str
    nargs: str | int | None
    takes_value: bool
    choices: tuple[str, ...] | None
    required: bool
    default: str | None
    help: str | None
    metavar: str | None
    line: int
    column: int
    exclusive_group: int | None = None
    group_title: str | None = None
    type_name: str | None = None  # "int", "float", "str", "str.lower", or source text
    conditional: bool = False  # added under a condition: may be absent at run time


@dataclass
class PositionalSpec:
    dest: str
    nargs: str | int | None
    choices: tuple[str, ...] | None
    help: str | None
    metavar: str | None
    line: int
    column: int
    required: bool
    action: str = "store"
    type_name: str | None = None
    default: str | None = None
    conditional: bool = False


@dataclass
class SubparsersSpec:
    dest: str | None
    required: bool
    line: int
    column: int
    choices: dict[str, ParserModel] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    help: dict[str, str | None] = field(default_factory=dict)
    position: int = 0  # how many positionals were added before add_subparsers
    title: str | None = None


@dataclass
class ParserModel:
    options: list[OptionSpec] = field(default_factory=list)
    positionals: list[PositionalSpec] = field(default_factory=list)
    subparsers: SubparsersSpec | None = None
    allow_abbrev: bool = True
    prefix_chars: str = "-"
    add_help: bool = True
    open: bool = False
    open_reason: str | None = None
    line: int = 0
    column: int = 0
    name: str | None = None  # canonical subcommand name; None for the main parser
    open_line: int | None = None
    accepts_unknown_options: bool = False
    fromfile_prefix_chars: str | None = None
    required_exclusive_groups: set[int] = field(default_factory=set)
    defaults: dict[str, str] = field(default_factory=dict)  # set_defaults, as source text

    def find_option(self, flag: str) -> OptionSpec | None:
        for option in self.options:
            if flag in option.flags:
                return option
        return None

    def option_flags(self) -> list[str]:
        return [flag for option in self.options for flag in option.flags]

    def subcommand(self, name: str) -> ParserModel | None:
        return self.subparsers.choices.get(name) if self.subparsers else None

    def walk(self) -> Iterator[ParserModel]:
        """This parser and every sub-parser below it (aliases visited once)."""
        seen: set[int] = set()
        stack = [self]
        while stack:
            parser = stack.pop()
            if id(parser) in seen:
                continue
            seen.add(id(parser))
            yield parser
            if parser.subparsers:
                stack.extend(reversed(list(parser.subparsers.choices.values())))

    def mark_open(self, reason: str, line: int | None) -> None:
        if not self.open:
            self.open, self.open_reason, self.open_line = True, reason, line


@dataclass
class ScriptModel:
    path: str
    status: Literal["ok", "open", "no-argparse", "syntax-error"]
    parser: ParserModel | None
    reason: str | None
    reason_line: int
    # Words the script looks for in `sys.argv` itself (`if "--selftest" in sys.argv:`): a
    # command holding one may never reach argparse, so argparse's rules say nothing about it.
    argv_words: frozenset[str] = frozenset()


def analyse_script(
    source: str, path: str = "<script>", tree: ast.Module | None = None
) -> ScriptModel:
    """Model the argparse command line of ``source`` without importing or running it.
    ``tree``: ``source`` already parsed, when the caller has it."""
    try:
        if tree is None:
            tree = ast.parse(source, filename=path)
    except SyntaxError as error:
        line = max((error.lineno or 1) - 1, 0)
        return ScriptModel(path, "syntax-error", None, f"syntax error: {error.msg}", line)
    except (ValueError, RecursionError, MemoryError, OverflowError) as error:
        return ScriptModel(path, "syntax-error", None, f"cannot be parsed: {error}", 0)
    if not _uses_argparse(tree):
        return ScriptModel(path, "no-argparse", None, _no_argparse_reason(tree), 0)
    try:
        model = _Interpreter(source, path).run(tree)
    except RecursionError:
        return ScriptModel(path, "open", None, "is nested too deeply to analyse", 0)
    except _BudgetExceeded:
        return ScriptModel(path, "open", None, "is too large to analyse", 0)
    # Most scripts name `argv` only as `main(argv=None)`: walk again only for `sys.argv`.
    if "sys.argv" in source or "import argv" in source:
        model.argv_words = argv_words(tree)
    return model


def _is_argv(node: ast.expr, aliases: set[str]) -> bool:
    """`sys.argv`, `sys.argv[1]`, `sys.argv[1:]`, or a name assigned from one of them."""
    while isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute):
        return node.attr == "argv" and isinstance(node.value, ast.Name) and node.value.id == "sys"
    return isinstance(node, ast.Name) and node.id in aliases


def _string_constants(node: ast.expr) -> Iterator[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        for element in node.elts:
            yield from _string_constants(element)


def argv_words(tree: ast.Module) -> frozenset[str]:
    """Every string a comparison with `sys.argv` names: `"--selftest" in sys.argv`,
    `sys.argv[1] == "selftest"`, `argv[1:] in (["-h"], ["--version"])` (read, never run)."""
    aliases: set[str] = {"argv"}  # `from sys import argv`
    nodes = list(ast.walk(tree))
    for node in nodes:
        if isinstance(node, ast.Assign) and _is_argv(node.value, set()):
            aliases.update(t.id for t in node.targets if isinstance(t, ast.Name))
    found: set[str] = set()
    for node in nodes:
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        if not any(_is_argv(operand, aliases) for operand in operands):
            continue
        for operand in operands:
            if isinstance(operand, (ast.List, ast.Tuple, ast.Set)):
                for element in operand.elts:
                    if isinstance(element, (ast.List, ast.Tuple)):
                        found.update(_string_constants(element))
            found.update(_string_constants(operand))
    return frozenset(found)


def _uses_argparse(tree: ast.Module) -> bool:
    """Imports argparse, or calls parser methods on something built elsewhere."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr
            in ("add_argument", "add_subparsers", "parse_args", "parse_known_args")
        ):
            return True
        if isinstance(node, ast.Import) and any(
            alias.name.split(".")[0] == "argparse" for alias in node.names
        ):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "argparse":
            return True
    return False


def _no_argparse_reason(tree: ast.Module) -> str:
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    for library in ("click", "typer", "fire", "docopt", "optparse", "getopt"):
        if library in imported:
            return f"does not use argparse (it uses {library})"
    return "does not use argparse"


# --- values of the abstract interpreter -------------------------------------------------------


class _Unknown:
    """A value the analysis cannot know."""

    def __init__(self, silent: bool = False) -> None:
        # A silent unknown is a parameter of a function run without a caller: calls on it are
        # not evidence that a parser is built elsewhere.
        self.silent = silent


UNKNOWN = _Unknown()
_MISSING = _Unknown()  # a name not bound at all
UNBOUND_PARAMETER = _Unknown(silent=True)


class _BudgetExceeded(Exception):
    pass


@dataclass(eq=False)
class _ParserRef:
    model: ParserModel
    site: tuple[int, int]
    is_child: bool = False
    used_as_parent: bool = False
    conflict_resolve: bool = False


@dataclass(eq=False)
class _SubparsersRef:
    owner: _ParserRef
    spec: SubparsersSpec


@dataclass(eq=False)
class _GroupRef:
    parser: _ParserRef
    title: str | None
    exclusive_group: int | None


@dataclass(eq=False)
class _BoundMethod:
    target: object
    name: str


@dataclass(eq=False)
class _ArgparseName:
    name: str  # an attribute of the argparse module: "ArgumentParser", "BooleanOptionalAction"


@dataclass(eq=False)
class _ArgparseModule:
    pass


@dataclass(eq=False)
class _Imported:
    name: str  # dotted name of something imported from another module


@dataclass(eq=False)
class _Builtin:
    name: str


@dataclass(eq=False)
class _Function:
    node: ast.FunctionDef | ast.AsyncFunctionDef
    defaults: list[object]
    kw_defaults: list[object | None]
    scope: _Scope


@dataclass(eq=False)
class _Class:
    name: str
    parser_subclass: bool
    action_subclass: bool
    # Overrides only how errors/help are printed: parses exactly like ArgumentParser.
    cosmetic: bool = False


@dataclass(eq=False)
class _Scope:
    variables: dict[str, object]
    parent: _Scope | None = None
    global_names: set[str] = field(default_factory=set)
    # One journal per open branch: the value each name had before the branch assigned it.
    journals: list[dict[str, object]] = field(default_factory=list)

    def lookup(self, name: str) -> object:
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.variables:
                return scope.variables[name]
            scope = scope.parent
        return _Builtin(name) if name in _BUILTINS else UNKNOWN

    def assign(self, name: str, value: object) -> None:
        if name in self.global_names and self.parent is not None:
            root = self.parent
            while root.parent is not None:
                root = root.parent
            root.variables[name] = value
            return
        if self.journals and name not in self.journals[-1]:
            self.journals[-1][name] = self.variables.get(name, _MISSING)
        self.variables[name] = value

    def undo(self, journal: dict[str, object]) -> None:
        for name, old in journal.items():
            if old is _MISSING:
                self.variables.pop(name, None)
            else:
                self.variables[name] = old


_BUILTINS = frozenset(
    {"sorted", "list", "tuple", "set", "frozenset", "range", "dict", "reversed", "str", "int"}
    | {"float", "len", "print", "isinstance", "id", "repr", "type", "hasattr", "bool", "open"}
)
_PRIMITIVE = (str, int, float, bool, type(None))


@dataclass
class _Frame:
    scope: _Scope
    returns: list[object] = field(default_factory=list)
    stopped: bool = False
    base_conditional: int = 0  # a `return` at this depth ends the function


# --- the interpreter ----------------------------------------------------------------------------


class _Interpreter:
    def __init__(self, source: str, path: str) -> None:
        self.path = path
        self.lines = re.split(r"\r\n|\r|\n", source)
        self.steps = 0
        self.conditional = 0
        self.call_stack: list[_Function] = []
        self.parsers: list[_ParserRef] = []
        self.parse_calls: list[tuple[_ParserRef, int]] = []
        self.script_open: list[tuple[str, int]] = []
        # Per parser model: (model, option count, every flag it may hold), so registering an
        # option is not a scan of all earlier options (quadratic on huge scripts).
        self.flag_index: dict[int, tuple[ParserModel, int, set[str]]] = {}
        self.functions_run: set[int] = set()
        # Functions (by node) that can reach a parser: see ``may_touch_parsers``.
        self.touches_parsers: dict[int, bool] = {}
        self.next_group_id = 0
        self.calls_made = 0
        # Scopes where a `def` may run: a function refers to its scope, which refers to it.
        self.scopes: list[_Scope] = []

    # -- entry ----------------------------------------------------------------------------------

    def run(self, tree: ast.Module) -> ScriptModel:
        module = _Scope({"__name__": "__main__"})
        self.scopes.append(module)
        try:
            self.exec_block(tree.body, _Frame(module))
            if not self.parse_calls:
                self._run_uncalled_functions(tree, module)
            return self._conclude()
        finally:
            # Break the function <-> scope cycles, which hold the syntax tree: freed now, it
            # is never walked by the collector (walking a big tree costs more than parsing it).
            for scope in self.scopes:
                scope.variables.clear()
            self.scopes.clear()

    def _run_uncalled_functions(self, tree: ast.Module, module: _Scope) -> None:
        # The parser may be built in a function nothing at module level calls (an entry point).
        for node in tree.body:
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            function = module.variables.get(node.name)
            if isinstance(function, _Function) and id(node) not in self.functions_run:
                params: list[object] = [UNBOUND_PARAMETER] * len(_parameter_names(node))
                self.call_function(function, params, {}, node)

    def _conclude(self) -> ScriptModel:
        main, reason, line = self._main_parser()
        if main is None:
            return ScriptModel(self.path, "open", None, reason, line)
        if self.script_open and not main.open:
            script_reason, script_line = self.script_open[0]
            main.mark_open(script_reason, script_line)
        for parser in main.walk():
            if parser.open:
                where = f"subcommand `{parser.name}` " if parser.name else ""
                text = f"{where}{parser.open_reason}"
                return ScriptModel(self.path, "open", main, text, parser.open_line or parser.line)
        return ScriptModel(self.path, "ok", main, None, main.line)

    def _main_parser(self) -> tuple[ParserModel | None, str, int]:
        called = _distinct_by_site(ref for ref, _ in self.parse_calls)
        if len(called) == 1:
            return called[0].model, "", 0
        if len(called) > 1:
            lines = ", ".join(str(line + 1) for _, line in self.parse_calls)
            reason = f"calls parse_args on several parsers (lines {lines})"
            main = called[0].model
            main.mark_open(reason, self.parse_calls[0][1])
            return main, reason, self.parse_calls[0][1]
        roots = _distinct_by_site(
            ref for ref in self.parsers if not ref.is_child and not ref.used_as_parent
        )
        if len(roots) == 1:
            return roots[0].model, "", 0
        if self.script_open:
            reason, line = self.script_open[0]
            return None, reason, line
        if roots:
            lines = ", ".join(str(ref.model.line + 1) for ref in roots)
            return None, f"builds several parsers (lines {lines}) and none calls parse_args", 0
        return None, "builds no ArgumentParser the analysis can follow", 0

    # -- helpers --------------------------------------------------------------------------------

    def tick(self) -> None:
        self.steps += 1
        if self.steps > STEP_BUDGET:
            raise _BudgetExceeded

    def column(self, node: ast.expr | ast.stmt) -> int:
        line_index = node.lineno - 1
        if not 0 <= line_index < len(self.lines):
            return node.col_offset
        encoded = self.lines[line_index].encode("utf-8", errors="surrogatepass")
        return len(encoded[: node.col_offset].decode("utf-8", errors="ignore"))

    def open_script(self, reason: str, node: ast.AST) -> None:
        self.script_open.append((reason, getattr(node, "lineno", 1) - 1))

    def open_parser(self, parser: _ParserRef, reason: str, node: ast.AST) -> None:
        parser.model.mark_open(reason, getattr(node, "lineno", 1) - 1)

    # -- statements -----------------------------------------------------------------------------

    def exec_block(self, body: list[ast.stmt], frame: _Frame) -> None:
        for statement in body:
            if frame.stopped:
                return
            self.exec_statement(statement, frame)

    def exec_statement(self, node: ast.stmt, frame: _Frame) -> None:
        self.tick()
        scope = frame.scope
        if isinstance(node, ast.Expr):
            self.eval(node.value, scope)
        elif isinstance(node, ast.Assign):
            value = self.eval(node.value, scope)
            for target in node.targets:
                self.assign(target, value, scope)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self.assign(node.target, self.eval(node.value, scope), scope)
        elif isinstance(node, ast.AugAssign):
            self.exec_augmented(node, scope)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.define_function(node, scope)
        elif isinstance(node, ast.ClassDef):
            self.define_class(node, scope)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            self.exec_import(node, scope)
        elif isinstance(node, ast.If):
            self.exec_if(node, frame)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self.exec_for(node, frame)
        elif isinstance(node, ast.While):
            self.eval(node.test, scope)
            self.exec_branches([node.body, node.orelse], frame, keep_original=True)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                value = self.eval(item.context_expr, scope)
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, UNKNOWN, scope)
            self.exec_block(node.body, frame)
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            self.exec_try(node, frame)
        elif isinstance(node, ast.Match):
            self.eval(node.subject, scope)
            self.exec_branches([case.body for case in node.cases], frame, keep_original=True)
        elif isinstance(node, ast.Return):
            value = self.eval(node.value, scope) if node.value is not None else None
            frame.returns.append(value)
            if self.conditional == frame.base_conditional:
                frame.stopped = True
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            scope.global_names.update(node.names)
        elif isinstance(node, (ast.Raise, ast.Assert, ast.Delete)):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.eval(child, scope)
        elif isinstance(node, (ast.Pass, ast.Break, ast.Continue)):
            pass
        else:
            self.scan_for_parser_calls(node)

    def exec_augmented(self, node: ast.AugAssign, scope: _Scope) -> None:
        value = self.eval(node.value, scope)
        if isinstance(node.target, ast.Name):
            current = scope.lookup(node.target.id)
            scope.assign(node.target.id, _binary(current, node.op, value))

    def exec_import(self, node: ast.Import | ast.ImportFrom, scope: _Scope) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                if alias.asname:
                    bound: object = (
                        _ArgparseModule() if alias.name == "argparse" else _Imported(alias.name)
                    )
                    scope.assign(alias.asname, bound)
                else:
                    scope.assign(top, _ArgparseModule() if top == "argparse" else _Imported(top))
            return
        module = node.module or ""
        for alias in node.names:
            name = alias.asname or alias.name
            if module == "argparse":
                scope.assign(name, _argparse_attribute(alias.name))
            else:
                scope.assign(name, _Imported(f"{module}.{alias.name}"))

    def define_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: _Scope) -> None:
        for decorator in node.decorator_list:
            self.eval(decorator, scope)
        defaults = [self.eval(default, scope) for default in node.args.defaults]
        kw_defaults = [
            self.eval(default, scope) if default is not None else None
            for default in node.args.kw_defaults
        ]
        scope.assign(node.name, _Function(node, defaults, kw_defaults, scope))

    def define_class(self, node: ast.ClassDef, scope: _Scope) -> None:
        bases = [self.eval(base, scope) for base in node.bases]
        parser_subclass = any(
            (isinstance(base, _ArgparseName) and base.name == "ArgumentParser")
            or (isinstance(base, _Class) and base.parser_subclass)
            for base in bases
        )
        action_subclass = any(
            (isinstance(base, _ArgparseName) and base.name.endswith("Action"))
            or (isinstance(base, _Class) and base.action_subclass)
            for base in bases
        )
        parser_bases = [
            b
            for b in bases
            if (isinstance(b, _ArgparseName) and b.name == "ArgumentParser")
            or (isinstance(b, _Class) and b.parser_subclass)
        ]
        cosmetic = (
            parser_subclass
            and len(parser_bases) == len(bases)
            and all(not isinstance(b, _Class) or b.cosmetic for b in parser_bases)
            and all(_is_cosmetic_member(stmt) for stmt in node.body)
            and not node.decorator_list
            and not node.keywords
        )
        scope.assign(node.name, _Class(node.name, parser_subclass, action_subclass, cosmetic))
        # Methods are not followed; parsers built inside them stay invisible, and any use of
        # such a parser then reads as an unknown object.

    def exec_if(self, node: ast.If, frame: _Frame) -> None:
        if _is_main_guard(node.test):
            self.exec_block(node.body, frame)
            self.exec_branches([node.orelse], frame, keep_original=True)
            return
        test = self.eval(node.test, frame.scope)
        if isinstance(test, _PRIMITIVE):
            # A condition on known constants (a helper's flag argument) takes one branch only.
            self.exec_block(node.body if test else node.orelse, frame)
            return
        self.exec_branches([node.body, node.orelse], frame, keep_original=not node.orelse)

    def exec_branches(
        self, branches: list[list[ast.stmt]], frame: _Frame, keep_original: bool
    ) -> None:
        """Run each branch from the same starting variables; merge what they bind."""
        branches = [branch for branch in branches if branch]
        if not branches:
            return
        scope = frame.scope
        outcomes: list[dict[str, object]] = []
        self.conditional += 1
        try:
            for branch in branches:
                scope.journals.append({})
                try:
                    branch_frame = _Frame(scope, frame.returns, False, frame.base_conditional)
                    self.exec_block(branch, branch_frame)
                finally:
                    journal = scope.journals.pop()
                outcomes.append({name: scope.variables.get(name, _MISSING) for name in journal})
                scope.undo(journal)
        finally:
            self.conditional -= 1
        touched = {name for outcome in outcomes for name in outcome}
        for name in sorted(touched):
            original = scope.variables.get(name, _MISSING)
            values = [outcome.get(name, original) for outcome in outcomes]
            if keep_original:
                values.append(original)
            first = values[0]
            agreed = first is not _MISSING and all(_same(first, value) for value in values[1:])
            scope.assign(name, first if agreed else UNKNOWN)

    def exec_for(self, node: ast.For | ast.AsyncFor, frame: _Frame) -> None:
        scope = frame.scope
        iterable = _iterate(self.eval(node.iter, scope))
        # A loop over a literal runs once per item; any other loop may run zero times.
        certain = iterable is not None and not _may_leave_early(node)
        items = iterable if iterable is not None else [UNKNOWN]
        if not certain:
            self.conditional += 1
        try:
            for item in items:
                self.assign(node.target, item, scope)
                body_frame = _Frame(scope, frame.returns, False, frame.base_conditional)
                self.exec_block(node.body, body_frame)
        finally:
            if not certain:
                self.conditional -= 1
        self.exec_branches([node.orelse], frame, keep_original=True)

    def exec_try(self, node: ast.stmt, frame: _Frame) -> None:
        self.exec_block(getattr(node, "body", []), frame)
        handlers = [handler.body for handler in getattr(node, "handlers", [])]
        self.exec_branches(handlers, frame, keep_original=True)
        self.exec_block(getattr(node, "orelse", []), frame)
        self.exec_block(getattr(node, "finalbody", []), frame)

    def assign(self, target: ast.expr, value: object, scope: _Scope) -> None:
        if isinstance(target, ast.Name):
            scope.assign(target.id, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = _iterate(value)
            simple = not any(isinstance(element, ast.Starred) for element in target.elts)
            if items is not None and simple and len(items) == len(target.elts):
                for element, item in zip(target.elts, items, strict=True):
                    self.assign(element, item, scope)
            else:
                for element in target.elts:
                    inner = element.value if isinstance(element, ast.Starred) else element
                    self.assign(inner, UNKNOWN, scope)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, UNKNOWN, scope)
        elif isinstance(target, ast.Attribute):
            self.assign_attribute(target, value, scope)
        else:
            # Subscript targets: evaluate for side effects only.
            for child in ast.iter_child_nodes(target):
                if isinstance(child, ast.expr):
                    self.eval(child, scope)

    def assign_attribute(self, target: ast.Attribute, value: object, scope: _Scope) -> None:
        owner = self.eval(target.value, scope)
        if isinstance(owner, _SubparsersRef):
            if target.attr == "required":
                owner.spec.required = value is True and not self.conditional
            elif target.attr == "dest":
                owner.spec.dest = value if isinstance(value, str) else None
        elif isinstance(owner, _ParserRef):
            if target.attr == "allow_abbrev":
                owner.model.allow_abbrev = value is not False
            elif target.attr in ("prefix_chars", "add_help", "fromfile_prefix_chars"):
                self.open_parser(owner, f"changes `{target.attr}` after creation", target)

    # -- expressions ----------------------------------------------------------------------------

    def eval(self, node: ast.expr, scope: _Scope) -> object:
        self.steps += 1  # tick(), inlined: this runs for every expression of the script
        if self.steps > STEP_BUDGET:
            raise _BudgetExceeded
        # The commonest nodes first, by exact type (the parser makes no subclasses).
        kind = type(node)
        if kind is ast.Constant:
            return node.value  # type: ignore[attr-defined]
        if kind is ast.Name:
            return scope.lookup(node.id)  # type: ignore[attr-defined]
        if kind is ast.Attribute:
            return self.eval_attribute(node, scope)  # type: ignore[arg-type]
        if kind is ast.Call:
            return self.eval_call(node, scope)  # type: ignore[arg-type]
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return scope.lookup(node.id)
        if isinstance(node, ast.Attribute):
            return self.eval_attribute(node, scope)
        if isinstance(node, ast.Call):
            return self.eval_call(node, scope)
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return self.eval_sequence(node, scope)
        if isinstance(node, ast.Dict):
            return self.eval_dict(node, scope)
        if isinstance(node, ast.BinOp):
            return _binary(self.eval(node.left, scope), node.op, self.eval(node.right, scope))
        if isinstance(node, ast.UnaryOp):
            operand = self.eval(node.operand, scope)
            if isinstance(node.op, ast.USub) and isinstance(operand, (int, float)):
                return -operand
            if isinstance(node.op, ast.Not) and isinstance(operand, _PRIMITIVE):
                return not operand
            return UNKNOWN
        if isinstance(node, ast.JoinedStr):
            return self.eval_fstring(node, scope)
        if isinstance(node, ast.Subscript):
            return self.eval_subscript(node, scope)
        if isinstance(node, ast.IfExp):
            self.eval(node.test, scope)
            self.conditional += 1
            try:
                body, orelse = self.eval(node.body, scope), self.eval(node.orelse, scope)
            finally:
                self.conditional -= 1
            return body if _same(body, orelse) else UNKNOWN
        if isinstance(node, ast.NamedExpr):
            value = self.eval(node.value, scope)
            self.assign(node.target, value, scope)
            return value
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return self.eval_comprehension(node, scope)
        if isinstance(node, (ast.Lambda, ast.DictComp)):
            self.scan_for_parser_calls(node)
            return UNKNOWN
        # Comparisons, boolean operators, await, yield, ...: follow calls inside them.
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.eval(child, scope)
            elif isinstance(child, ast.comprehension):
                self.scan_for_parser_calls(child)
        return UNKNOWN

    def eval_attribute(self, node: ast.Attribute, scope: _Scope) -> object:
        base = self.eval(node.value, scope)
        name = node.attr
        if isinstance(base, _ArgparseModule):
            return _argparse_attribute(name)
        if isinstance(base, _Imported):
            return _Imported(f"{base.name}.{name}")
        if isinstance(base, (_ParserRef, _SubparsersRef, _GroupRef)):
            if name.startswith("_") and name not in ("_optionals", "_positionals"):
                parser = base if isinstance(base, _ParserRef) else _owner(base)
                self.open_parser(parser, f"uses argparse internals (`{name}`)", node)
                return UNKNOWN
            return _BoundMethod(base, name)
        if isinstance(base, (dict, str)) and name in _CONSTANT_METHODS:
            return _BoundMethod(base, name)
        if isinstance(base, _Unknown):
            return _BoundMethod(base, name)
        return UNKNOWN

    def eval_sequence(self, node: ast.Tuple | ast.List | ast.Set, scope: _Scope) -> object:
        items: list[object] = []
        known = True
        for element in node.elts:
            if isinstance(element, ast.Starred):
                expanded = _iterate(self.eval(element.value, scope))
                if expanded is None:
                    known = False
                else:
                    items.extend(expanded)
            else:
                items.append(self.eval(element, scope))
        if not known:
            return UNKNOWN
        if isinstance(node, ast.Tuple):
            return tuple(items)
        if isinstance(node, ast.List):
            return items
        try:
            return frozenset(items)
        except TypeError:
            return UNKNOWN

    def eval_dict(self, node: ast.Dict, scope: _Scope) -> object:
        result: dict[object, object] = {}
        known = True
        for key, value in zip(node.keys, node.values, strict=True):
            evaluated = self.eval(value, scope)
            if key is None:
                if isinstance(evaluated, dict):
                    result.update(evaluated)
                else:
                    known = False
                continue
            key_value = self.eval(key, scope)
            if isinstance(key_value, _PRIMITIVE):
                result[key_value] = evaluated
            else:
                known = False
        return result if known else UNKNOWN

    def eval_fstring(self, node: ast.JoinedStr, scope: _Scope) -> object:
        parts: list[str] = []
        known = True
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                parts.append(value.value)
            elif isinstance(value, ast.FormattedValue):
                inner = self.eval(value.value, scope)
                if (
                    value.conversion == -1
                    and value.format_spec is None
                    and isinstance(inner, (str, int))
                    and not isinstance(inner, bool)
                ):
                    parts.append(str(inner))
                else:
                    known = False
            else:
                known = False
        return "".join(parts) if known else UNKNOWN

    def eval_subscript(self, node: ast.Subscript, scope: _Scope) -> object:
        base = self.eval(node.value, scope)
        if isinstance(node.slice, ast.Slice):
            parts = (node.slice.lower, node.slice.upper, node.slice.step)
            raw = [self.eval(part, scope) if part is not None else None for part in parts]
            bounds = [bound for bound in raw if bound is None or type(bound) is int]
            if isinstance(base, (tuple, list, str)) and len(bounds) == 3 and bounds[2] != 0:
                return base[slice(*bounds)]
            return UNKNOWN
        index = self.eval(node.slice, scope)
        if (
            isinstance(base, (tuple, list, str))
            and isinstance(index, int)
            and not isinstance(index, bool)
            and -len(base) <= index < len(base)
        ):
            return base[index]
        if isinstance(base, dict) and isinstance(index, _PRIMITIVE) and index in base:
            return base[index]
        return UNKNOWN

    def eval_comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp, scope: _Scope
    ) -> object:
        if len(node.generators) != 1 or node.generators[0].is_async:
            self.scan_for_parser_calls(node)
            return UNKNOWN
        generator = node.generators[0]
        items = _iterate(self.eval(generator.iter, scope))
        if items is None:
            self.scan_for_parser_calls(node)
            return UNKNOWN
        inner = _Scope({}, scope)
        results: list[object] = []
        for item in items:
            self.assign(generator.target, item, inner)
            conditions = [self.eval(condition, inner) for condition in generator.ifs]
            if any(not isinstance(condition, _PRIMITIVE) for condition in conditions):
                return UNKNOWN
            if all(conditions):
                results.append(self.eval(node.elt, inner))
        if isinstance(node, ast.SetComp):
            try:
                return frozenset(results)
            except TypeError:
                return UNKNOWN
        return results

    def scan_for_parser_calls(self, node: ast.AST) -> None:
        """Code the interpreter does not follow must not touch a parser unseen."""
        for child in ast.walk(node):
            if (
                isinstance(child, ast.Call)
                and isinstance(child.func, ast.Attribute)
                and child.func.attr in PARSER_METHODS
            ):
                self.open_script(
                    f"calls `{child.func.attr}` in code the analysis cannot follow", child
                )
                return

    # -- calls ----------------------------------------------------------------------------------

    def eval_call(self, node: ast.Call, scope: _Scope) -> object:
        callee = self.eval(node.func, scope)
        args: list[object] = []
        kwargs: dict[str, object] = {}
        dynamic = False
        for argument in node.args:
            if isinstance(argument, ast.Starred):
                expanded = _iterate(self.eval(argument.value, scope))
                if expanded is None:
                    dynamic = True
                else:
                    args.extend(expanded)
            else:
                args.append(self.eval(argument, scope))
        for keyword in node.keywords:
            value = self.eval(keyword.value, scope)
            if keyword.arg is None:
                if isinstance(value, dict) and all(isinstance(key, str) for key in value):
                    kwargs.update({str(key): item for key, item in value.items()})
                else:
                    dynamic = True
            else:
                kwargs[keyword.arg] = value
        call = _Call(node, args, kwargs, dynamic)
        if isinstance(callee, _ArgparseName) and callee.name == "ArgumentParser":
            return self.create_parser(call, scope)
        if isinstance(callee, _Class) and callee.cosmetic:
            return self.create_parser(call, scope)
        if isinstance(callee, _Class) and callee.parser_subclass:
            parser = self.create_parser(call, scope)
            self.open_parser(parser, f"uses the ArgumentParser subclass `{callee.name}`", node)
            return parser
        if isinstance(callee, _BoundMethod):
            return self.call_method(callee, call)
        if isinstance(callee, _Function):
            if call.dynamic:
                reason = f"`{callee.node.name}` is called with computed arguments"
                self.refuse_call([*call.args, *call.kwargs.values()], reason, node)
                return UNKNOWN
            return self.call_function(callee, args, kwargs, node)
        if isinstance(callee, _Builtin):
            return _call_builtin(callee.name, args, kwargs)
        callee_name = _dotted_name(node.func)
        if callee_name.rsplit(".", 1)[-1] in HARMLESS_CALLEES:
            return UNKNOWN
        reason = f"passes the parser to `{callee_name}`, which it cannot follow"
        self.refuse_call([*call.args, *call.kwargs.values()], reason, node)
        return UNKNOWN

    def refuse_call(self, values: list[object], reason: str, node: ast.AST) -> None:
        """A call the analysis does not follow may change any parser it receives."""
        for value in values:
            for parser in _parsers_in(value):
                self.open_parser(parser, reason, node)

    def call_function(
        self, function: _Function, args: list[object], kwargs: dict[str, object], node: ast.AST
    ) -> object:
        self.functions_run.add(id(function.node))
        if self.parse_calls and self.beside_the_point(function, args, kwargs):
            return UNKNOWN
        self.calls_made += 1
        if (
            function in self.call_stack
            or len(self.call_stack) >= MAX_CALL_DEPTH
            or self.calls_made > MAX_FUNCTION_CALLS
        ):
            reason = f"`{function.node.name}` is called too deeply or too often to follow"
            self.refuse_call([*args, *kwargs.values()], reason, node)
            return UNKNOWN
        scope = _Scope(_bind_parameters(function, args, kwargs), function.scope)
        self.scopes.append(scope)
        frame = _Frame(scope, base_conditional=self.conditional)
        self.call_stack.append(function)
        try:
            self.exec_block(function.node.body, frame)
        finally:
            self.call_stack.pop()
        if isinstance(function.node, ast.AsyncFunctionDef) or not frame.returns:
            return UNKNOWN if frame.returns else None
        first = frame.returns[0]
        return first if all(_same(first, other) for other in frame.returns[1:]) else UNKNOWN

    def beside_the_point(
        self, function: _Function, args: list[object], kwargs: dict[str, object]
    ) -> bool:
        """Once a command line is parsed, argparse has done its work: a later call that is
        handed no parser or function and cannot reach one changes nothing the model says, and
        running it (a handler computing a calendar, say) can cost more than the whole rest."""
        for value in (*args, *kwargs.values()):
            if (
                isinstance(value, (_Function, _BoundMethod))
                or next(_parsers_in(value), None) is not None
            ):
                return False
        return not self.may_touch_parsers(function)

    def may_touch_parsers(self, function: _Function) -> bool:
        """Whether the function's body (nested functions included) could build, change or
        parse with a parser: it names a parser method, argparse, a dynamic lookup, a global,
        a parser in scope, or a function that may itself."""
        key = id(function.node)
        known = self.touches_parsers.get(key)
        if known is not None:
            return known
        self.touches_parsers[key] = False  # while it is looked at: a cycle adds nothing
        touches = False
        for node in ast.walk(function.node):
            if isinstance(node, ast.Attribute):
                touches = node.attr in PARSER_METHODS or node.attr in _ARGPARSE_WORDS
            elif isinstance(node, ast.Name):
                if node.id in _ARGPARSE_WORDS or node.id in _DYNAMIC_LOOKUPS:
                    touches = True
                elif isinstance(node.ctx, ast.Load):
                    value = function.scope.lookup(node.id)
                    touches = (
                        isinstance(value, (_ArgparseModule, _ArgparseName))
                        or (isinstance(value, _Function) and self.may_touch_parsers(value))
                        or (isinstance(value, _Class) and value.parser_subclass)
                        or next(_parsers_in(value), None) is not None
                    )
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                touches = True
            if touches:
                break
        self.touches_parsers[key] = touches
        return touches

    def call_method(self, method: _BoundMethod, call: _Call) -> object:
        target, name = method.target, method.name
        if isinstance(target, _Unknown):
            if name not in HARMLESS_CALLEES:
                reason = f"passes the parser to `{_dotted_name(call.node.func)}`"
                self.refuse_call([*call.args, *call.kwargs.values()], reason, call.node)
            if name in PARSER_METHODS and not target.silent:
                where = _dotted_name(call.node.func)
                self.open_script(
                    f"calls `{name}` on a parser built elsewhere (`{where}`)", call.node
                )
            return UNKNOWN
        if isinstance(target, (dict, str)):
            return _call_constant_method(target, name, call.args)
        if isinstance(target, _SubparsersRef):
            if name == "add_parser":
                return self.add_subparser(target, call)
            return UNKNOWN
        if not isinstance(target, (_ParserRef, _GroupRef)):
            return UNKNOWN
        parser = target if isinstance(target, _ParserRef) else target.parser
        group = target if isinstance(target, _GroupRef) else None
        if name == "add_argument":
            self.add_argument(parser, group, call)
            return UNKNOWN
        if name == "add_argument_group":
            title = _first_argument(call, "title")
            return _GroupRef(parser, title if isinstance(title, str) else None, None)
        if name == "add_mutually_exclusive_group":
            self.next_group_id += 1
            if call.kwargs.get("required") is True and not self.conditional:
                parser.model.required_exclusive_groups.add(self.next_group_id)
            title = group.title if group else None
            return _GroupRef(parser, title, self.next_group_id)
        if name == "add_subparsers" and group is None:
            return self.add_subparsers(parser, call)
        if name == "set_defaults":
            self.set_defaults(parser, call)
            return None
        if name in PARSE_METHODS and group is None:
            if "known" in name:
                parser.model.accepts_unknown_options = True
            self.parse_calls.append((parser, call.node.lineno - 1))
            return UNKNOWN
        return UNKNOWN

    # -- argparse semantics ---------------------------------------------------------------------

    def create_parser(self, call: _Call, scope: _Scope) -> _ParserRef:
        node = call.node
        model = ParserModel(line=node.lineno - 1, column=self.column(node))
        parser = _ParserRef(model, (node.lineno, node.col_offset))
        self.parsers.append(parser)
        settings = dict(zip(_PARSER_POSITIONAL_PARAMETERS, call.args, strict=False))
        settings.update(call.kwargs)
        self.configure_parser(parser, settings, call)
        return parser

    def configure_parser(
        self, parser: _ParserRef, settings: dict[str, object], call: _Call
    ) -> None:
        model, node = parser.model, call.node
        if call.dynamic:
            self.open_parser(parser, "is created with computed arguments (`**kwargs`)", node)
        prefix_chars = settings.get("prefix_chars", "-")
        if isinstance(prefix_chars, str) and prefix_chars:
            model.prefix_chars = prefix_chars
        else:
            self.open_parser(parser, "uses prefix characters computed at run time", node)
        model.allow_abbrev = settings.get("allow_abbrev", True) is not False
        model.add_help = settings.get("add_help", True) is not False
        fromfile = settings.get("fromfile_prefix_chars")
        model.fromfile_prefix_chars = fromfile if isinstance(fromfile, str) else None
        if fromfile is not None and not isinstance(fromfile, str):
            self.open_parser(parser, "reads arguments from files chosen at run time", node)
        parser.conflict_resolve = settings.get("conflict_handler") == "resolve"
        if model.add_help:
            self.add_help_option(parser)
        parents = settings.get("parents", ())
        parent_items = _iterate(parents)
        if parent_items is None:
            self.open_parser(parser, "takes `parents=` the analysis cannot resolve", node)
            return
        for parent in parent_items:
            if isinstance(parent, _ParserRef):
                parent.used_as_parent = True
                self.copy_parent(parser, parent)
            elif not isinstance(parent, _Unknown) or not parent.silent:
                self.open_parser(parser, "inherits from a parent parser built elsewhere", node)

    def add_help_option(self, parser: _ParserRef) -> None:
        model = parser.model
        prefix = "-" if "-" in model.prefix_chars else model.prefix_chars[0]
        model.options.append(
            OptionSpec(
                flags=(prefix + "h", prefix * 2 + "help"),
                dest="help",
                action="help",
                nargs=0,
                takes_value=False,
                choices=None,
                required=False,
                default=None,
                help="show this help message and exit",
                metavar=None,
                line=model.line,
                column=model.column,
            )
        )

    def copy_parent(self, child: _ParserRef, parent: _ParserRef) -> None:
        model, source = child.model, parent.model
        if source.open:
            model.mark_open(f"inherits from an open parent: {source.open_reason}", source.open_line)
        for option in source.options:
            if not any(model.find_option(flag) for flag in option.flags):
                model.options.append(dataclasses.replace(option))
        model.positionals.extend(dataclasses.replace(item) for item in source.positionals)
        if source.subparsers and not model.subparsers:
            model.subparsers = source.subparsers
        model.required_exclusive_groups |= source.required_exclusive_groups
        model.defaults.update(source.defaults)

    def add_argument(self, parser: _ParserRef, group: _GroupRef | None, call: _Call) -> None:
        node, model = call.node, parser.model
        if call.dynamic:
            self.open_parser(parser, "adds an argument with computed `*args`/`**kwargs`", node)
            return
        flags = call.args
        if not all(isinstance(flag, str) and flag for flag in flags):
            self.open_parser(parser, "adds an argument whose name is computed at run time", node)
            return
        names = [str(flag) for flag in flags]
        anchor = node.args[0] if node.args else node
        line, column = anchor.lineno - 1, self.column(anchor)
        kwargs = call.kwargs
        action = _normalise_action(kwargs.get("action", "store"))
        if action is None:
            self.open_parser(parser, "uses a custom argparse action", node)
            return
        nargs = kwargs.get("nargs")
        if nargs is not None and not (
            (isinstance(nargs, int) and not isinstance(nargs, bool) and nargs >= 0)
            or (isinstance(nargs, str) and nargs in KNOWN_NARGS)
        ):
            reason = (
                "uses an `nargs` computed at run time"
                if isinstance(nargs, _Unknown)
                else f"passes `nargs={nargs!r}`, which is no nargs argparse documents"
            )
            self.open_parser(parser, reason, node)
            return
        nargs_value: str | int | None = 0 if action in NO_VALUE_ACTIONS else _nargs_of(nargs)
        type_name = self.type_name(call)
        choices, known = _choices(kwargs.get("choices"))
        if not known:
            # Choices computed at run time restrict only this argument's values: leave them
            # unjudged and keep checking the rest of the command line.
            choices = None
        elif choices is not None and not _comparable(choices, kwargs.get("choices"), type_name):
            choices = None
        help_text = kwargs.get("help")
        help_value = help_text if isinstance(help_text, str) else None
        metavar = _metavar(kwargs.get("metavar"))
        default = self.source_of(node, "default")
        conditional = self.conditional > 0
        dest_value = kwargs.get("dest")
        if not names or names[0][0] not in model.prefix_chars:
            if len(names) > 1 or (not names and not isinstance(dest_value, str)):
                self.open_parser(parser, "adds a positional argument it cannot read", node)
                return
            dest = names[0] if names else str(dest_value)
            required = nargs not in ("?", "*") or (nargs == "*" and "default" not in kwargs)
            if action in ("help", "version"):
                required = False
            positional = PositionalSpec(
                dest=str(dest_value) if isinstance(dest_value, str) else dest,
                nargs=nargs_value,
                choices=choices,
                help=help_value,
                metavar=metavar,
                line=line,
                column=column,
                required=required and not conditional,
                action=action,
                type_name=type_name,
                default=default,
                conditional=conditional,
            )
            model.positionals.append(positional)
            return
        if action == "boolean_optional":
            names += ["--no-" + name[2:] for name in names if name.startswith("--")]
        option = OptionSpec(
            flags=tuple(names),
            dest=dest_value if isinstance(dest_value, str) else _option_dest(names, model),
            action=action,
            nargs=nargs_value,
            takes_value=action in VALUE_ACTIONS and nargs_value != 0,
            choices=choices,
            required=kwargs.get("required") is True and not conditional,
            default=default,
            help=help_value,
            metavar=metavar,
            line=line,
            column=column,
            exclusive_group=group.exclusive_group if group else None,
            group_title=group.title if group else None,
            type_name=type_name,
            conditional=conditional,
        )
        self.register_option(parser, option, node)

    def register_option(self, parser: _ParserRef, option: OptionSpec, node: ast.Call) -> None:
        model = parser.model
        known_flags = self.flags_of(model)
        clashes = (
            [existing for existing in model.options if set(existing.flags) & set(option.flags)]
            if known_flags & set(option.flags)
            else []
        )
        known_flags.update(option.flags)
        for existing in clashes:
            if existing.action == "help" or (parser.conflict_resolve and not option.conditional):
                existing.flags = tuple(flag for flag in existing.flags if flag not in option.flags)
                if not existing.flags:
                    model.options.remove(existing)
                continue
            # The same flag defined twice (in branches): accept what either definition accepts.
            if existing.takes_value != option.takes_value or existing.nargs != option.nargs:
                self.open_parser(parser, f"defines `{option.flags[0]}` in two ways", node)
                return
            existing.required = existing.required and option.required
            existing.conditional = True
            if existing.choices is None or option.choices is None:
                existing.choices = None
            else:
                existing.choices = existing.choices + tuple(
                    choice for choice in option.choices if choice not in existing.choices
                )
            new_flags = tuple(flag for flag in option.flags if flag not in existing.flags)
            existing.flags += new_flags
            return
        model.options.append(option)
        self.flag_index[id(model)] = (model, len(model.options), known_flags)

    def flags_of(self, model: ParserModel) -> set[str]:
        """A superset of the flags ``model`` holds (flags are only ever removed elsewhere);
        rebuilt when options were added or removed outside ``register_option``."""
        entry = self.flag_index.get(id(model))
        if entry is None or entry[0] is not model or entry[1] != len(model.options):
            entry = (model, len(model.options), set(model.option_flags()))
            self.flag_index[id(model)] = entry
        return entry[2]

    def type_name(self, call: _Call) -> str | None:
        for keyword in call.node.keywords:
            if keyword.arg == "type":
                value = call.kwargs.get("type")
                if isinstance(value, _Builtin) and value.name in ("int", "float", "str"):
                    return value.name
                return _unparse(keyword.value)
        return None

    def source_of(self, node: ast.Call, keyword_name: str) -> str | None:
        for keyword in node.keywords:
            if keyword.arg == keyword_name:
                return _unparse(keyword.value)
        return None

    def add_subparsers(self, parser: _ParserRef, call: _Call) -> object:
        node, model = call.node, parser.model
        if call.dynamic:
            self.open_parser(parser, "adds subcommands with computed arguments", node)
        if model.subparsers is not None:
            self.open_parser(parser, "adds subparsers twice", node)
            return _SubparsersRef(parser, model.subparsers)
        parser_class = call.kwargs.get("parser_class")
        if parser_class is not None and not (
            (isinstance(parser_class, _ArgparseName) and parser_class.name == "ArgumentParser")
            or (isinstance(parser_class, _Class) and parser_class.cosmetic)
        ):
            self.open_parser(parser, "builds subcommands with a custom parser class", node)
        dest = call.kwargs.get("dest")
        title = call.kwargs.get("title")
        spec = SubparsersSpec(
            dest=dest if isinstance(dest, str) else None,
            required=call.kwargs.get("required") is True and not self.conditional,
            line=node.lineno - 1,
            column=self.column(node),
            position=len(model.positionals),
            title=title if isinstance(title, str) else None,
        )
        model.subparsers = spec
        return _SubparsersRef(parser, spec)

    def add_subparser(self, subparsers: _SubparsersRef, call: _Call) -> object:
        node, owner = call.node, subparsers.owner
        name = _first_argument(call, "name")
        aliases = _iterate(call.kwargs.get("aliases", ()))
        if (
            not isinstance(name, str)
            or aliases is None
            or not all(isinstance(alias, str) for alias in aliases)
        ):
            self.open_parser(owner, "adds a subcommand whose name is computed at run time", node)
            return UNKNOWN
        model = ParserModel(line=node.lineno - 1, column=self.column(node), name=name)
        child = _ParserRef(model, (node.lineno, node.col_offset), is_child=True)
        self.parsers.append(child)
        settings = {key: value for key, value in call.kwargs.items() if key != "aliases"}
        self.configure_parser(child, settings, _Call(node, call.args[1:], {}, call.dynamic))
        spec = subparsers.spec
        spec.choices[name] = model
        help_text = call.kwargs.get("help")
        spec.help[name] = help_text if isinstance(help_text, str) else None
        for alias in aliases:
            spec.choices[str(alias)] = model
            spec.aliases[str(alias)] = name
        return child

    def set_defaults(self, parser: _ParserRef, call: _Call) -> None:
        for keyword in call.node.keywords:
            if keyword.arg is None:
                continue
            text = _unparse(keyword.value)
            parser.model.defaults[keyword.arg] = text or ""
            for option in parser.model.options:
                if option.dest == keyword.arg:
                    option.default = text
            for positional in parser.model.positionals:
                if positional.dest == keyword.arg:
                    positional.default = text


# --- small pure helpers -------------------------------------------------------------------------


@dataclass
class _Call:
    node: ast.Call
    args: list[object]
    kwargs: dict[str, object]
    dynamic: bool


_PARSER_POSITIONAL_PARAMETERS = (
    "prog",
    "usage",
    "description",
    "epilog",
    "parents",
    "formatter_class",
    "prefix_chars",
    "fromfile_prefix_chars",
    "argument_default",
    "conflict_handler",
    "add_help",
    "allow_abbrev",
    "exit_on_error",
)
_CONSTANT_METHODS = frozenset(
    {"keys", "values", "items", "get", "join", "lower", "upper", "strip", "replace", "split"}
)


def _argparse_attribute(name: str) -> object:
    if name in ARGPARSE_CONSTANTS:
        return ARGPARSE_CONSTANTS[name]
    return _ArgparseName(name)


def _owner(target: _SubparsersRef | _GroupRef) -> _ParserRef:
    return target.owner if isinstance(target, _SubparsersRef) else target.parser


def _distinct_by_site(refs: Iterator[_ParserRef] | list[_ParserRef]) -> list[_ParserRef]:
    # A builder function called twice yields two identical parsers: they are one parser.
    seen: dict[tuple[int, int], _ParserRef] = {}
    for ref in refs:
        seen.setdefault(ref.site, ref)
    return list(seen.values())


def _is_main_guard(test: ast.expr) -> bool:
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and len(test.comparators) == 1
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == "__main__"
        and isinstance(test.ops[0], ast.Eq)
    )


def _may_leave_early(loop: ast.For | ast.AsyncFor) -> bool:
    """Whether the loop body can break, continue or return (so an item may be skipped)."""
    stack: list[tuple[ast.AST, bool]] = [(statement, True) for statement in loop.body]
    while stack:
        node, own_loop = stack.pop()
        if isinstance(node, ast.Return) or (
            own_loop and isinstance(node, (ast.Break, ast.Continue))
        ):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        nested_loop = isinstance(node, (ast.For, ast.AsyncFor, ast.While))
        stack.extend((child, own_loop and not nested_loop) for child in ast.iter_child_nodes(node))
    return False


def _same(left: object, right: object) -> bool:
    if left is right:
        return True
    if isinstance(left, (*_PRIMITIVE, tuple, frozenset, list, dict)) and type(left) is type(right):
        try:
            return bool(left == right)
        except Exception:  # comparing odd constants must not fail the analysis
            return False
    return False


def _iterate(value: object) -> list[object] | None:
    """The items a literal iterable yields, or None when they cannot be known."""
    if isinstance(value, (tuple, list)):
        return list(value) if len(value) <= MAX_UNROLL else None
    if isinstance(value, frozenset):
        if len(value) > MAX_UNROLL:
            return None
        try:
            return sorted(value)
        except TypeError:
            return None
    if isinstance(value, dict):
        return list(value) if len(value) <= MAX_UNROLL else None
    return None


def _binary(left: object, operator: ast.operator, right: object) -> object:
    if isinstance(operator, ast.Add):
        if isinstance(left, str) and isinstance(right, str):
            return left + right
        if isinstance(left, tuple) and isinstance(right, tuple):
            return left + right
        if isinstance(left, list) and isinstance(right, list):
            return left + right
        if _is_number(left) and _is_number(right):
            return left + right  # type: ignore[operator]
    if isinstance(operator, ast.BitOr) and isinstance(left, dict) and isinstance(right, dict):
        return {**left, **right}
    return UNKNOWN


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _call_builtin(name: str, args: list[object], kwargs: dict[str, object]) -> object:
    if name in ("sorted", "list", "tuple", "set", "frozenset", "reversed") and len(args) == 1:
        items = _iterate(args[0])
        if items is None:
            return UNKNOWN
        if name == "sorted":
            if kwargs:
                return UNKNOWN
            try:
                return sorted(items)  # type: ignore[type-var]
            except TypeError:
                return UNKNOWN
        if name == "tuple":
            return tuple(items)
        if name in ("set", "frozenset"):
            try:
                return frozenset(items)
            except TypeError:
                return UNKNOWN
        return list(reversed(items)) if name == "reversed" else items
    bounds = [arg for arg in args if isinstance(arg, int) and not isinstance(arg, bool)]
    if name == "range" and 1 <= len(args) <= 3 and len(bounds) == len(args) and not kwargs:
        try:
            numbers = range(*bounds)
        except ValueError:
            return UNKNOWN
        return tuple(numbers) if len(numbers) <= 10_000 else UNKNOWN
    if name == "dict" and not args:
        return dict(kwargs)
    if name in ("int", "float", "str") and not args and not kwargs:
        return _Builtin(name)
    return UNKNOWN


def _call_constant_method(
    target: dict[object, object] | str, name: str, args: list[object]
) -> object:
    if isinstance(target, dict):
        if name == "keys" and not args:
            return list(target)
        if name == "values" and not args:
            return list(target.values())
        if name == "items" and not args:
            return [tuple(item) for item in target.items()]
        return UNKNOWN
    if name in ("lower", "upper", "strip") and not args:
        return getattr(target, name)()
    if name == "replace" and len(args) == 2 and all(isinstance(arg, str) for arg in args):
        return target.replace(str(args[0]), str(args[1]))
    if name == "join" and len(args) == 1:
        items = _iterate(args[0])
        if items is not None and all(isinstance(item, str) for item in items):
            return target.join(str(item) for item in items)
    if name == "split" and len(args) <= 1 and all(isinstance(arg, str) for arg in args):
        return target.split(str(args[0])) if args else target.split()
    return UNKNOWN


def _bind_parameters(
    function: _Function, args: list[object], kwargs: dict[str, object]
) -> dict[str, object]:
    arguments = function.node.args
    positional = [*arguments.posonlyargs, *arguments.args]
    bound: dict[str, object] = {}
    defaults = dict(
        zip(
            [p.arg for p in positional[len(positional) - len(function.defaults) :]],
            function.defaults,
            strict=True,
        )
    )
    for index, parameter in enumerate(positional):
        if index < len(args):
            bound[parameter.arg] = args[index]
        elif parameter.arg in kwargs:
            bound[parameter.arg] = kwargs[parameter.arg]
        else:
            bound[parameter.arg] = defaults.get(parameter.arg, UNKNOWN)
    for parameter, default in zip(arguments.kwonlyargs, function.kw_defaults, strict=True):
        value = kwargs.get(parameter.arg, default if default is not None else UNKNOWN)
        bound[parameter.arg] = value
    if arguments.vararg:
        bound[arguments.vararg.arg] = tuple(args[len(positional) :])
    if arguments.kwarg:
        names = {p.arg for p in positional} | {p.arg for p in arguments.kwonlyargs}
        bound[arguments.kwarg.arg] = {k: v for k, v in kwargs.items() if k not in names}
    return bound


def _parameter_names(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    return [parameter.arg for parameter in [*node.args.posonlyargs, *node.args.args]]


def _parsers_in(value: object, depth: int = 0) -> Iterator[_ParserRef]:
    if isinstance(value, _ParserRef):
        yield value
    elif isinstance(value, (_SubparsersRef, _GroupRef)):
        yield _owner(value)
    elif isinstance(value, _BoundMethod):
        yield from _parsers_in(value.target, depth + 1)
    elif isinstance(value, (tuple, list, frozenset)) and depth < 4:
        for item in value:
            yield from _parsers_in(item, depth + 1)
    elif isinstance(value, dict) and depth < 4:
        for item in value.values():
            yield from _parsers_in(item, depth + 1)


def _first_argument(call: _Call, keyword: str) -> object:
    return call.args[0] if call.args else call.kwargs.get(keyword)


def _dotted_name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted_name(node.value)}.{node.attr}"
    if isinstance(node, ast.Call):
        return f"{_dotted_name(node.func)}()"
    return "…"


def _unparse(node: ast.expr) -> str | None:
    try:
        text = ast.unparse(node)
    except (RecursionError, ValueError, AttributeError):
        return None
    return text if len(text) <= 200 else text[:199] + "…"


def _normalise_action(action: object) -> str | None:
    if isinstance(action, str):
        if action in NO_VALUE_ACTIONS - {"boolean_optional"} or action in VALUE_ACTIONS:
            return action
        return None
    if isinstance(action, _ArgparseName):
        return {
            "BooleanOptionalAction": "boolean_optional",
            "_StoreAction": "store",
            "_StoreTrueAction": "store_true",
            "_StoreFalseAction": "store_false",
            "_StoreConstAction": "store_const",
            "_AppendAction": "append",
            "_AppendConstAction": "append_const",
            "_CountAction": "count",
            "_ExtendAction": "extend",
        }.get(action.name)
    return None


def _choices(value: object) -> tuple[tuple[str, ...] | None, bool]:
    """Literal choices as strings; the flag says whether they are known."""
    if value is None:
        return None, True
    if isinstance(value, str):
        return tuple(value), True  # argparse tests `in`, so a string means its characters
    items = _iterate(value)
    if items is None and isinstance(value, (tuple, list, frozenset, dict)):
        return None, True  # too many to list: known to be literal, but not worth checking
    if items is None:
        return None, False
    if not all(isinstance(item, _PRIMITIVE) for item in items):
        return None, False
    return tuple(str(item) for item in items), True


def _comparable(choices: tuple[str, ...], raw: object, type_name: str | None) -> bool:
    """Whether a command's words can be compared with these choices without running `type=`."""
    items = _iterate(raw) if not isinstance(raw, str) else list(raw)
    if items is None:
        return False
    if type_name in (None, "str", "str.lower", "str.upper"):
        return all(isinstance(item, str) for item in items)
    if type_name == "int":
        return all(isinstance(item, int) and not isinstance(item, bool) for item in items)
    if type_name == "float":
        return all(_is_number(item) for item in items)
    return False


def _metavar(value: object) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, tuple) and all(isinstance(item, str) for item in value):
        return " ".join(str(item) for item in value)
    return None


def _nargs_of(value: object) -> str | int | None:
    return value if isinstance(value, (str, int)) else None


def _option_dest(flags: list[str], model: ParserModel) -> str:
    long_flags = [flag for flag in flags if len(flag) > 1 and flag[1] in model.prefix_chars]
    chosen = long_flags[0] if long_flags else flags[0]
    return chosen.lstrip(model.prefix_chars).replace("-", "_") or chosen


_COSMETIC_METHODS = frozenset(
    {"error", "exit", "print_help", "print_usage", "format_help", "format_usage", "_print_message"}
)


def _is_cosmetic_member(stmt: ast.stmt) -> bool:
    """A class-body statement that cannot change what the parser accepts."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        return True  # docstring
    if isinstance(stmt, ast.Pass):
        return True
    return isinstance(stmt, ast.FunctionDef) and stmt.name in _COSMETIC_METHODS
