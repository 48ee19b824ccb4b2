"""The script ↔ docs graph: which documented command words use which `add_argument` /
`add_parser`, and which Markdown paths point at which file. References, rename, file moves,
code lenses and highlights are questions to this graph (``services/refactor.py`` turns them
into edits).

The graph is read statically, like every rule: scripts through the argparse model, documents
through the command model, paths resolved as navigation and the RS rules resolve them. It is
kept per workspace and refreshed document by document by content hash, so a question on a
1000-skill workspace costs the documents that changed, not the workspace.
"""

from __future__ import annotations

import ast
import os
import re
import time
import weakref
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from easel_ls.findings import Position, Range
from easel_ls.model.argmatch import ArgToken, positional_owners
from easel_ls.model.text import TextDocument
from easel_ls.rules.context import Context, FileKind, classify, script_model
from easel_ls.services.context import arity, is_option_word, lookup_option
from easel_ls.services.lenses import Lens, LocationArg
from easel_ls.services.navigation import (
    FileLink,
    document_links,
    markdown_context,
)
from easel_ls.workspace import Workspace

if TYPE_CHECKING:
    from easel_ls.model.argparse_model import OptionSpec, ParserModel
    from easel_ls.model.commands import Invocation, Word

DefinitionKind = Literal["option", "subcommand", "positional"]
SHOW_REFERENCES = "easel-ls.showReferences"
_CALLS = {"add_argument": "argument", "add_parser": "parser"}


@dataclass(frozen=True)
class Definition:
    """An `add_argument` (option or positional) or `add_parser` call of a script; one call
    a helper makes for several parsers is one definition."""

    script: Path
    kind: DefinitionKind
    line: int
    column: int


@dataclass(frozen=True)
class ArgUse:
    """A word of a documented command that names a definition."""

    doc: Path
    range: Range  # the name as written; an option's `=value` is left out
    written: str
    name: str  # what it stands for: the full flag (abbreviations expanded) or subcommand name
    target: Definition
    command: int  # which command of the document (to count commands)


@dataclass(frozen=True)
class ScriptDefinition:
    """One definition as the script writes it."""

    target: Definition
    names: tuple[str, ...]  # flags; subcommand name and aliases; a positional's dest
    literals: dict[str, Range]  # name -> its string literal's range (quotes excluded)
    call: Range  # the call, from its first character to the end of its first line
    help: str | None
    derived_dest: str | None  # an option's dest when argparse derives it from a flag
    dest_insert_at: Position | None  # after the last flag literal (to pin a derived dest)
    parsers: tuple[str, ...]  # the subcommand paths of the parsers that hold it ("" = main)


@dataclass
class _DocEntry:
    content_hash: str
    scripts: dict[Path, int]  # script -> id of the model the uses were read from
    uses: list[ArgUse]
    files: list[FileLink]
    stamp: tuple[int, int] | None = None  # (mtime_ns, size) on disk when read; None: a buffer
    unresolved: bool = False  # a command names a script that is not there (yet)


@dataclass
class GraphIndex:
    """Documents' uses and links, with reverse maps kept up to date entry by entry (so an edit
    costs that document, not a rebuild of every map)."""

    docs: dict[Path, _DocEntry] = field(default_factory=dict)
    generation: int = -1  # the workspace generation it is current with (-1: never built)
    skills_id: int = 0  # which skills index the document list came from
    model_ids: dict[Path, int] = field(default_factory=dict)
    pending: list[Path] = field(default_factory=list)  # not indexed yet (the first build)
    _by_target: dict[Definition, dict[Path, list[ArgUse]]] = field(default_factory=dict)
    _by_file: dict[Path, dict[Path, list[FileLink]]] = field(default_factory=dict)
    _by_script: dict[Path, set[Path]] = field(default_factory=dict)

    def put(self, path: Path, entry: _DocEntry) -> None:
        self.drop(path)
        self.docs[path] = entry
        for use in entry.uses:
            self._by_target.setdefault(use.target, {}).setdefault(path, []).append(use)
        for link in entry.files:
            self._by_file.setdefault(link.target, {}).setdefault(path, []).append(link)
        for script in entry.scripts:
            self._by_script.setdefault(script, set()).add(path)

    def drop(self, path: Path) -> None:
        entry = self.docs.pop(path, None)
        if entry is None:
            return
        for target in {u.target for u in entry.uses}:
            self._forget(self._by_target, target, path)
        for file in {link.target for link in entry.files}:
            self._forget(self._by_file, file, path)
        for script in entry.scripts:
            users = self._by_script.get(script)
            if users is not None:
                users.discard(path)

    @staticmethod
    def _forget(table: dict, key: object, path: Path) -> None:
        per_doc = table.get(key)
        if per_doc is not None:
            per_doc.pop(path, None)
            if not per_doc:
                del table[key]

    def uses_of(self, target: Definition) -> list[ArgUse]:
        per_doc = self._by_target.get(target, {})
        return [u for doc in sorted(per_doc) for u in per_doc[doc]]

    def targets(self) -> Iterator[Definition]:
        return iter(self._by_target)

    def links_to(self, target: Path) -> list[tuple[Path, FileLink]]:
        per_doc = self._by_file.get(target, {})
        return [(doc, link) for doc in sorted(per_doc) for link in per_doc[doc]]

    def users_of(self, script: Path) -> set[Path]:
        return set(self._by_script.get(script, ()))

    def knows_script(self, script: Path) -> bool:
        return bool(self._by_script.get(script))

    def all_links(self) -> Iterator[tuple[Path, FileLink]]:
        for doc, entry in self.docs.items():
            for link in entry.files:
                yield doc, link


# Per workspace (by identity: a Workspace is an unhashable dataclass), dropped with it.
_INDEXES: dict[int, GraphIndex] = {}


# -- the index ------------------------------------------------------------------------------


def markdown_documents(ws: Workspace) -> list[Path]:
    """Every SKILL.md and `references/**/*.md` of the workspace's skills."""
    found = []
    for skill in ws.skills.values():
        found.append(skill.skill_md)
        found.extend(ws.list_dir(skill.folder / "references", "*.md", recursive=True))
    known = set(found)
    found.extend(p for p in ws.overlays if p.suffix == ".md" and p not in known)
    return found


def graph(ws: Workspace) -> GraphIndex:
    """The workspace's graph, brought up to date with what changed since it was last asked
    (the workspace's change counter): a question costs the documents that changed."""
    index = _index_of(ws)
    if index.generation < 0:
        _start(ws, index)
    while index.pending:
        _refresh_document(ws, index, index.pending.pop())
    changed = ws.changed_since(index.generation)
    index.generation = ws.generation
    skills_moved = id(ws.skills) != index.skills_id
    if not changed and not skills_moved:
        return index
    to_check = {p for p in changed if p in index.docs}
    forced: set[Path] = set()  # documents whose script changed: read their commands again
    relist = skills_moved or any(p not in index.docs and p.suffix in (".md", "") for p in changed)
    for script in (p for p in changed if p.suffix in (".py", ".sh")):
        if not index.knows_script(script):
            # A new script may be what a command was missing.
            to_check |= {p for p, e in index.docs.items() if e.unresolved}
            continue
        index.model_ids.pop(script, None)
        forced |= index.users_of(script)
    if relist:
        index.skills_id = id(ws.skills)
        wanted = markdown_documents(ws)
        for gone in index.docs.keys() - set(wanted):
            index.drop(gone)
        to_check |= {p for p in wanted if p not in index.docs}
    for path in to_check | forced:
        _refresh_document(ws, index, path, force=path in forced)
    return index


def _index_of(ws: Workspace) -> GraphIndex:
    index = _INDEXES.get(id(ws))
    if index is None:
        index = _INDEXES[id(ws)] = GraphIndex()
        weakref.finalize(ws, _INDEXES.pop, id(ws), None)
    return index


def _start(ws: Workspace, index: GraphIndex) -> None:
    index.generation = ws.generation
    index.skills_id = id(ws.skills)
    index.pending = markdown_documents(ws)[::-1]


def warm(ws: Workspace, seconds: float) -> bool:
    """Build the graph for about ``seconds`` (the server calls it between requests after the
    background index, so the first reference question does not wait); True when built."""
    index = _index_of(ws)
    if index.generation < 0:
        _start(ws, index)
    deadline = time.perf_counter() + seconds
    while index.pending and time.perf_counter() < deadline:
        _refresh_document(ws, index, index.pending.pop())
    return not index.pending


def _refresh_document(ws: Workspace, index: GraphIndex, path: Path, force: bool = False) -> None:
    entry = None if force else index.docs.get(path)
    stamp = None
    if path not in ws.overlays:
        try:
            st = os.stat(path)
        except OSError:
            index.drop(path)
            return
        stamp = (st.st_mtime_ns, st.st_size)
    if (
        entry is not None
        and stamp is not None
        and entry.stamp == stamp
        and _models_unchanged(ws, index, entry)
    ):
        return
    found = ws.read(path).doc
    if found is None:
        index.drop(path)
        return
    if (
        entry is not None
        and entry.content_hash == found.content_hash
        and _models_unchanged(ws, index, entry)
    ):
        entry.stamp = stamp
        return
    entry = _index_document(ws, found, index.model_ids)
    entry.stamp = stamp
    index.put(path, entry)
    if stamp is not None:
        ws.release(path)  # a closed file: its text and parse are re-read if it is opened


def _models_unchanged(ws: Workspace, index: GraphIndex, entry: _DocEntry) -> bool:
    return all(
        i == ADOPTED or _model_id(ws, s, index.model_ids) == i for s, i in entry.scripts.items()
    )


# An entry built in another process: its scripts' models are taken as current until one of
# those scripts changes (then its users are read again).
ADOPTED = -1


def build_entries(spec: tuple[Path, tuple[object, ...]]) -> list[tuple[Path, _DocEntry]]:
    """In a worker process: the graph entry of every document of the workspace ``spec`` names
    (the server adopts them, so the editor process never parses the whole workspace)."""
    from easel_ls.batch import _worker_workspace

    ws = _worker_workspace(spec)
    models: dict[Path, int] = {}
    built = []
    for path in markdown_documents(ws):
        try:
            st = os.stat(path)
        except OSError:
            continue
        found = ws.read(path).doc
        if found is None:
            continue
        entry = _index_document(ws, found, models)
        entry.stamp = (st.st_mtime_ns, st.st_size)
        entry.scripts = dict.fromkeys(entry.scripts, ADOPTED)
        built.append((path, entry))
        ws.release(path)
    return built


def begin_adoption(ws: Workspace) -> tuple[int, int] | None:
    """Before a worker builds the entries: the workspace state they will be current with
    (None: the graph is already built or being built here)."""
    index = _index_of(ws)
    if index.generation >= 0:
        return None
    return ws.generation, id(ws.skills)


def adopt(ws: Workspace, since: tuple[int, int], entries: list[tuple[Path, _DocEntry]]) -> bool:
    """Take a worker's entries; what changed after ``since`` is read again on the next
    question. False when the graph was built here meanwhile."""
    index = _index_of(ws)
    if index.generation >= 0:
        return False
    index.generation, index.skills_id = since
    for path, entry in entries:
        if path in ws.overlays:
            index.pending.append(path)  # the buffer, not the disk text
        else:
            index.put(path, entry)
    return True


def _model_id(ws: Workspace, script: Path, memo: dict[Path, int]) -> int:
    known = memo.get(script)
    if known is None:
        model = script_model(ws, script) if ws.exists(script) else None
        known = memo[script] = id(model) if model is not None else 0
    return known


def _index_document(ws: Workspace, doc: TextDocument, models: dict[Path, int]) -> _DocEntry:
    ctx = markdown_context(ws, doc)
    entry = _DocEntry(doc.content_hash, {}, [], [])
    if ctx is None:
        return entry
    entry.files = document_links(ws, doc)
    for number, inv in enumerate(ctx.invocations):
        script = _resolved_script(ctx, inv)
        if script is None:
            entry.unresolved = entry.unresolved or bool(inv.script_path)
            continue
        entry.scripts[script] = _model_id(ws, script, models)
        entry.uses.extend(command_uses(ctx, inv, script, number))
    return entry


def _resolved_script(ctx: Context, inv: Invocation) -> Path | None:
    from easel_ls.services.navigation import _script_path

    return _script_path(ctx, inv)


def command_uses(ctx: Context, inv: Invocation, script: Path, number: int) -> list[ArgUse]:
    """The words of one command that name a definition of ``script``, walking subcommands as
    argparse does: a subcommand word descends; an option matches its parser or an enclosing
    one (exactly, or as the unique prefix argparse accepts); a value is never a subcommand."""
    model = script_model(ctx.workspace, script)
    if model is None or model.parser is None:
        return []
    uses: list[ArgUse] = []
    parsers = [model.parser]
    skip = 0
    options_done = False
    for word in inv.args:
        if skip:
            skip -= 1
            continue
        if word.placeholder:
            continue
        current = parsers[-1]
        text = word.text
        if text == "--":
            options_done = True
            continue
        sub = current.subcommand(text) if not text.startswith("-") or options_done else None
        if sub is not None:
            rng = _name_range(word, len(text))
            if rng is not None:
                target = Definition(script, "subcommand", sub.line, sub.column)
                uses.append(ArgUse(ctx.path, rng, text, text, target, number))
            parsers.append(sub)
            continue
        if options_done or not is_option_word(text, current):
            continue
        for parser in reversed(parsers):
            option, inline = lookup_option(parser, text)
            if option is None:
                continue
            flag = _written_flag(text, inline, option)
            name = (
                flag
                if flag in option.flags
                else next((f for f in option.flags if f.startswith(flag)), flag)
            )
            rng = _name_range(word, len(flag))
            if rng is not None:
                target = Definition(script, "option", option.line, option.column)
                uses.append(ArgUse(ctx.path, rng, flag, name, target, number))
            if option.takes_value and inline is None:
                skip = arity(option.nargs)[0]  # its values are never subcommands
            break
    tokens = [ArgToken(w.text, w.placeholder, w.optional) for w in inv.args]
    for index, spec in positional_owners(model.parser, tokens).items():
        word = inv.args[index]
        target = Definition(script, "positional", spec.line, spec.column)
        uses.append(ArgUse(ctx.path, word.range, word.text, spec.dest, target, number))
    return uses


def _written_flag(text: str, inline: str | None, option: OptionSpec) -> str:
    """The option part of a word (`--theme` of `--theme=paper`, `-n` of `-n3` and `-na=b`)."""
    if inline is None:
        return text
    if text.endswith("=" + inline):
        before = text[: len(text) - len(inline) - 1]
        if any(f.startswith(before) for f in option.flags):
            return before
    return text[: len(text) - len(inline)]


def _name_range(word: Word, length: int) -> Range | None:
    """The range of the first ``length`` characters of the word's text, where it is written
    as is (optionally inside quotes); None when shell quoting makes it ambiguous."""
    name = word.text[:length]
    start = word.range.start
    if word.raw.startswith(name):
        offset = 0
    elif word.raw[:1] in "\"'" and word.raw[1:].startswith(name):
        offset = 1
    else:
        return None
    begin = start.character + offset
    return Range(Position(start.line, begin), Position(start.line, begin + length))


# -- the script side ------------------------------------------------------------------------


def script_definitions(ws: Workspace, script: Path) -> list[ScriptDefinition]:
    """Every definition of ``script`` its argparse model knows, with the literals that name it."""
    doc = ws.read(script).doc
    if doc is None:
        return []
    model = script_model(ws, script)
    root = model.parser if model is not None else None
    if root is None:
        return []
    return ws.artefact("graph-definitions", doc, lambda: _definitions(doc, root))


def _definitions(doc: TextDocument, root: ParserModel) -> list[ScriptDefinition]:
    try:
        tree = ast.parse(doc.text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    calls: dict[tuple[int, int], list[ast.Call]] = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _CALLS
        ):
            # Where the model anchors the definition: an argument at its first name, a
            # subcommand at the call.
            anchor: ast.expr = node
            if node.func.attr == "add_argument" and node.args:
                anchor = node.args[0]
            start = (anchor.lineno - 1, _char_column(doc, anchor.lineno - 1, anchor.col_offset))
            calls.setdefault(start, []).append(node)
    found: dict[Definition, ScriptDefinition] = {}
    paths = _parser_paths(root)
    for parser in root.walk():
        where = paths.get(id(parser), "")
        for option in parser.options:
            if option.action == "help" and (option.line, option.column) == (
                parser.line,
                parser.column,
            ):
                continue  # the implicit -h/--help argparse adds: nothing to rename or count
            target = Definition(doc.path, "option", option.line, option.column)
            _add(found, doc, calls, target, option.flags, option.help, where, option)
        for positional in parser.positionals:
            target = Definition(doc.path, "positional", positional.line, positional.column)
            _add(found, doc, calls, target, (positional.dest,), positional.help, where, None)
        if parser.subparsers is not None:
            names: dict[int, list[str]] = {}
            models: dict[int, ParserModel] = {}
            for name, child in parser.subparsers.choices.items():
                names.setdefault(id(child), []).append(name)
                models[id(child)] = child
            for key, child in models.items():
                target = Definition(doc.path, "subcommand", child.line, child.column)
                help_text = parser.subparsers.help.get(child.name or names[key][0])
                _add(found, doc, calls, target, tuple(names[key]), help_text, where, None)
    return sorted(found.values(), key=lambda d: (d.target.line, d.target.column))


def _parser_paths(root: ParserModel) -> dict[int, str]:
    """Each parser's subcommand path (`render`, `batch run`; "" for the main parser)."""
    paths = {id(root): ""}
    stack = [root]
    while stack:
        parser = stack.pop()
        if parser.subparsers is None:
            continue
        for child in parser.subparsers.choices.values():
            if id(child) not in paths:
                base = paths[id(parser)]
                paths[id(child)] = f"{base} {child.name}".strip()
                stack.append(child)
    return paths


def _add(
    found: dict[Definition, ScriptDefinition],
    doc: TextDocument,
    calls: dict[tuple[int, int], list[ast.Call]],
    target: Definition,
    names: tuple[str, ...],
    help_text: str | None,
    where: str,
    option: OptionSpec | None,
) -> None:
    known = found.get(target)
    if known is not None:
        if where not in known.parsers:
            found[target] = _with_parser(known, where)
        return
    kind = "parser" if target.kind == "subcommand" else "argument"
    node = _call_for(calls.get((target.line, target.column), []), kind, names)
    literals: dict[str, Range] = {}
    insert_at = None
    explicit_dest = False
    if node is not None:
        for constant in _name_constants(node, kind):
            rng = _literal_range(doc, constant)
            if rng is not None and isinstance(constant.value, str):
                literals.setdefault(constant.value, rng)
        explicit_dest = any(k.arg == "dest" for k in node.keywords)
        last = [a for a in node.args if isinstance(a, ast.Constant)]
        if last and last[-1].end_lineno is not None and last[-1].end_col_offset is not None:
            line = last[-1].end_lineno - 1
            insert_at = Position(line, _char_column(doc, line, last[-1].end_col_offset))
    line, column = target.line, target.column
    if node is not None:
        line = node.lineno - 1
        column = _char_column(doc, line, node.col_offset)
    line_text = doc.line_text(line) if line < doc.line_count else ""
    call = Range(Position(line, column), Position(line, len(line_text)))
    derived = None
    if option is not None and not explicit_dest:
        derived = option.dest
    found[target] = ScriptDefinition(
        target, names, literals, call, help_text, derived, insert_at, (where,)
    )


def _with_parser(known: ScriptDefinition, where: str) -> ScriptDefinition:
    return ScriptDefinition(
        known.target,
        known.names,
        known.literals,
        known.call,
        known.help,
        known.derived_dest,
        known.dest_insert_at,
        (*known.parsers, where),
    )


def _call_for(nodes: list[ast.Call], kind: str, names: tuple[str, ...]) -> ast.Call | None:
    candidates = [
        n for n in nodes if isinstance(n.func, ast.Attribute) and _CALLS[n.func.attr] == kind
    ]
    for node in candidates:
        values = {c.value for c in _name_constants(node, kind)}
        if values & set(names):
            return node
    return candidates[0] if len(candidates) == 1 else None


def _name_constants(node: ast.Call, kind: str) -> Iterator[ast.Constant]:
    if kind == "argument":
        yield from (a for a in node.args if isinstance(a, ast.Constant))
        return
    first = (
        node.args[0]
        if node.args
        else next((k.value for k in node.keywords if k.arg == "name"), None)
    )
    if isinstance(first, ast.Constant):
        yield first
    for keyword in node.keywords:
        if keyword.arg == "aliases" and isinstance(keyword.value, (ast.List, ast.Tuple)):
            yield from (e for e in keyword.value.elts if isinstance(e, ast.Constant))


def _literal_range(doc: TextDocument, node: ast.Constant) -> Range | None:
    """The range of a string literal's text inside its quotes, when the source writes the
    value exactly (no prefix, escape, concatenation or line break)."""
    if node.end_lineno != node.lineno or node.end_col_offset is None:
        return None
    line = node.lineno - 1
    start = _char_column(doc, line, node.col_offset)
    end = _char_column(doc, line, node.end_col_offset)
    source = doc.line_text(line)[start:end]
    value = node.value
    if not isinstance(value, str) or len(source) != len(value) + 2:
        return None
    if source[0] not in "\"'" or source[-1] != source[0] or source[1:-1] != value:
        return None
    return Range(Position(line, start + 1), Position(line, end - 1))


def _char_column(doc: TextDocument, line: int, byte_offset: int) -> int:
    if line >= doc.line_count:
        return byte_offset
    encoded = doc.line_text(line).encode("utf-8", errors="surrogatepass")
    return len(encoded[:byte_offset].decode("utf-8", errors="ignore"))


# -- what is under the cursor ---------------------------------------------------------------


@dataclass(frozen=True)
class Symbol:
    """What a position names in the graph."""

    kind: Literal["option", "subcommand", "positional", "file", "skill"]
    range: Range  # the word under the cursor
    name: str  # the flag / subcommand / dest; a file's path; a skill's name
    definition: ScriptDefinition | None = None
    path: Path | None = None  # the file (kind "file"); the skill folder (kind "skill")


def symbol_at(ws: Workspace, doc: TextDocument, position: Position) -> Symbol | None:
    kind, skill = classify(ws, doc.path)
    if kind is FileKind.SCRIPT:
        return _script_symbol(ws, doc, position)
    if kind not in (FileKind.SKILL, FileKind.REFERENCE):
        return None
    index = graph(ws)
    entry = index.docs.get(doc.path)
    if entry is not None and entry.content_hash == doc.content_hash:
        for use in entry.uses:
            if _contains(use.range, position):
                definition = definition_of(ws, use.target)
                if definition is not None:
                    return Symbol(use.target.kind, use.range, use.name, definition)
        for link in entry.files:
            if _contains(link.range, position):
                return Symbol("file", link.range, ws.rel(link.target), None, link.target)
    if kind is FileKind.SKILL and skill is not None:
        name = _skill_name_at(ws, doc, position)
        if name is not None:
            return Symbol("skill", name[1], name[0], None, skill.folder)
    mention = _skill_mention_at(ws, doc, position)
    if mention is not None:
        return mention
    if kind is FileKind.REFERENCE:
        return Symbol("file", Range(position, position), ws.rel(doc.path), None, doc.path)
    return None


def definition_of(ws: Workspace, target: Definition) -> ScriptDefinition | None:
    for definition in script_definitions(ws, target.script):
        if definition.target == target:
            return definition
    return None


def _script_symbol(ws: Workspace, doc: TextDocument, position: Position) -> Symbol | None:
    for definition in script_definitions(ws, doc.path):
        for name, rng in definition.literals.items():
            if _contains(rng, position):
                return Symbol(definition.target.kind, rng, name, definition)
    for definition in script_definitions(ws, doc.path):
        if _contains(definition.call, position) and definition.names:
            name = definition.names[0]
            rng = definition.literals.get(name, definition.call)
            return Symbol(definition.target.kind, rng, name, definition)
    return None


def _skill_name_at(
    ws: Workspace, doc: TextDocument, position: Position
) -> tuple[str, Range] | None:
    found = skill_name_node(ws, doc)
    if found is not None and _contains(found[1], position):
        return found
    return None


def skill_name_node(ws: Workspace, doc: TextDocument) -> tuple[str, Range] | None:
    """The `name:` value of a SKILL.md and its range (a plain scalar on one line)."""
    ctx = markdown_context(ws, doc)
    if ctx is None or ctx.kind is not FileKind.SKILL:
        return None
    item = ctx.frontmatter.get("name")
    if item is None:
        return None
    node = item[1]
    value = getattr(node, "value", None)
    if not isinstance(value, str) or not value:
        return None
    rng = ctx.frontmatter.node_range(node)
    written = doc.slice(rng)
    if written != value:
        offset = written.find(value)
        if offset < 0 or rng.start.line != rng.end.line:
            return None
        start = rng.start.character + offset
        rng = Range(Position(rng.start.line, start), Position(rng.start.line, start + len(value)))
    return value, rng


_NAME_WORD = re.compile(r"(?<![A-Za-z0-9_/.-])[a-z0-9]+(?:-[a-z0-9]+)*(?![A-Za-z0-9_/-])")


def _skill_mention_at(ws: Workspace, doc: TextDocument, position: Position) -> Symbol | None:
    if position.line >= doc.line_count:
        return None
    line = doc.line_text(position.line)
    for match in _NAME_WORD.finditer(line):
        if match.start() <= position.character <= match.end():
            skill = ws.skills.get(match.group(0))
            if skill is None:
                return None
            rng = Range(
                Position(position.line, match.start()), Position(position.line, match.end())
            )
            return Symbol("skill", rng, skill.name, None, skill.folder)
    return None


def skill_mentions(ws: Workspace, name: str) -> list[tuple[Path, Range]]:
    """Whole-word mentions of a skill name in every skill's Markdown (paths are not mentions:
    a path moves with the folder)."""
    pattern = re.compile(rf"(?<![A-Za-z0-9_/.-]){re.escape(name)}(?![A-Za-z0-9_/-])")
    found = []
    for path in markdown_documents(ws):
        doc = ws.read(path).doc
        if doc is None or name not in doc.text:
            continue
        own_name = skill_name_node(ws, doc) if path.name == "SKILL.md" else None
        for match in pattern.finditer(doc.text):
            rng = doc.range_of(match.start(), match.end())
            if own_name is not None and own_name[1] == rng:
                continue
            found.append((path, rng))
    return found


# -- questions ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Place:
    path: Path
    range: Range


def references(
    ws: Workspace, doc: TextDocument, position: Position, include_declaration: bool = True
) -> list[Place]:
    symbol = symbol_at(ws, doc, position)
    if symbol is None:
        return []
    return references_of(ws, symbol, include_declaration)


def references_of(ws: Workspace, symbol: Symbol, include_declaration: bool = True) -> list[Place]:
    places: list[Place] = []
    if symbol.definition is not None:
        definition = symbol.definition
        if include_declaration:
            rng = definition.literals.get(symbol.name) or next(
                iter(definition.literals.values()), definition.call
            )
            places.append(Place(definition.target.script, rng))
        uses = graph(ws).uses_of(definition.target)
        if symbol.kind == "subcommand":
            uses = [u for u in uses if u.name == symbol.name]
        places.extend(Place(u.doc, u.range) for u in uses)
    elif symbol.kind == "file" and symbol.path is not None:
        places.extend(Place(doc, link.range) for doc, link in graph(ws).links_to(symbol.path))
        if include_declaration:
            places.insert(0, Place(symbol.path, Range.line_start(0)))
    elif symbol.kind == "skill":
        skill = ws.skills.get(symbol.name)
        if include_declaration and skill is not None:
            skill_doc = ws.read(skill.skill_md).doc
            own = skill_name_node(ws, skill_doc) if skill_doc is not None else None
            if own is not None:
                places.append(Place(skill.skill_md, own[1]))
        places.extend(Place(p, r) for p, r in skill_mentions(ws, symbol.name))
    return _unique(places)


def highlights(ws: Workspace, doc: TextDocument, position: Position) -> list[Range]:
    """The cursor on an option or subcommand of a command: its uses in the same document."""
    symbol = symbol_at(ws, doc, position)
    if symbol is None or symbol.definition is None:
        return []
    entry = graph(ws).docs.get(doc.path)
    if entry is None:
        return []
    target = symbol.definition.target
    return sorted(
        u.range
        for u in entry.uses
        if u.target == target and (symbol.kind != "subcommand" or u.name == symbol.name)
    )


# -- code lenses ----------------------------------------------------------------------------


def code_lenses(ws: Workspace, doc: TextDocument) -> list[Lens]:
    kind, _skill = classify(ws, doc.path)
    if kind is FileKind.SCRIPT:
        return _script_lenses(ws, doc)
    return _command_lenses(ws, doc)


def _script_lenses(ws: Workspace, doc: TextDocument) -> list[Lens]:
    definitions = script_definitions(ws, doc.path)
    if not definitions:
        return []
    index = graph(ws)
    lenses = []
    for definition in definitions:
        if definition.target.kind == "positional":
            continue
        uses = index.uses_of(definition.target)
        commands = {(u.doc, u.command) for u in uses}
        skills = {_skill_key(ws, u.doc) for u in uses}
        title = f"{_count(len(commands), 'command')} in {_count(len(skills), 'skill')}"
        if not uses:
            title = "no documented command"
        anchor = definition.literals.get(definition.names[0]) if definition.names else None
        where = anchor.start if anchor is not None else definition.call.start
        locations = [LocationArg(u.doc, u.range) for u in uses]
        arguments = (doc.path, where, locations) if uses else ()
        lenses.append(Lens(definition.call, title, SHOW_REFERENCES if uses else "", arguments))
    return lenses


def _command_lenses(ws: Workspace, doc: TextDocument) -> list[Lens]:
    """Above a command that calls a script's subcommand: that subcommand's help line."""
    ctx = markdown_context(ws, doc)
    if ctx is None:
        return []
    lenses = []
    for inv in ctx.invocations:
        script = _resolved_script(ctx, inv)
        if script is None:
            continue
        subcommands = [
            u for u in command_uses(ctx, inv, script, 0) if u.target.kind == "subcommand"
        ]
        if not subcommands:
            continue
        last = subcommands[-1]
        definition = definition_of(ws, last.target)
        if definition is None or not definition.help:
            continue
        path = " ".join(u.name for u in subcommands)
        title = f"{script.name} {path}: {_one_line(definition.help)}"
        line = inv.script.range.start.line
        lenses.append(Lens(Range(Position(line, 0), Position(line, 0)), title))
    return lenses


def _one_line(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= 100 else flat[:99] + "…"


def _skill_key(ws: Workspace, doc: Path) -> str:
    skill = ws.skill_of(doc)
    return skill.name if skill is not None else str(doc.parent)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


# -- helpers --------------------------------------------------------------------------------


def _contains(rng: Range, position: Position) -> bool:
    return rng.start <= position <= rng.end


def _unique(places: Iterable[Place]) -> list[Place]:
    seen: set[tuple[Path, Range]] = set()
    out = []
    for place in places:
        key = (place.path, place.range)
        if key not in seen:
            seen.add(key)
            out.append(place)
    return out


def relative_path(target: Path, base: Path) -> str:
    return Path(os.path.relpath(target, base)).as_posix()
