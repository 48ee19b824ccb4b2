"""Rename and file moves over the script ↔ docs graph, as protocol-free edits.

A rename is one change set: the literal in the script and every documented use. Abbreviations
become the new full option, so every command stays valid; an option whose `dest` argparse
derived from the old flag keeps that `dest` (`dest="topic"` is written), so `args.topic` in the
script still works. A move rewrites every link, path mention and command path that points at
the moved file or folder, written in the same style (relative to the same base) as before.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from easel_ls.findings import Position, Range, TextEdit
from easel_ls.model.argparse_model import ParserModel
from easel_ls.model.text import TextDocument
from easel_ls.rules.context import script_model
from easel_ls.services.graph import (
    ArgUse,
    ScriptDefinition,
    Symbol,
    graph,
    markdown_documents,
    skill_mentions,
    skill_name_node,
    symbol_at,
)
from easel_ls.workspace import Workspace

_NAME_FORMAT = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
_SUBCOMMAND = re.compile(r"[^\s\"'`$;|&<>()]+")


class RenameRefused(Exception):
    """The rename cannot be done safely; the message says why, for a person."""


@dataclass
class WorkspaceChange:
    edits: dict[Path, list[TextEdit]] = field(default_factory=dict)
    renames: list[tuple[Path, Path]] = field(default_factory=list)  # after the edits

    def add(self, path: Path, rng: Range, new_text: str) -> None:
        edits = self.edits.setdefault(path, [])
        if not any(e.range == rng for e in edits):
            edits.append(TextEdit(path, rng, new_text))

    def sorted_edits(self) -> dict[Path, list[TextEdit]]:
        return {p: sorted(e, key=lambda e: e.range) for p, e in sorted(self.edits.items())}

    @property
    def empty(self) -> bool:
        return not self.edits and not self.renames


@dataclass(frozen=True)
class RenameTarget:
    range: Range  # what the editor selects for the new name
    placeholder: str
    symbol: Symbol


def prepare_rename(ws: Workspace, doc: TextDocument, position: Position) -> RenameTarget | None:
    """What would be renamed at ``position`` (None: nothing renamable there); raises
    RenameRefused when something is there but cannot be renamed safely."""
    symbol = symbol_at(ws, doc, position)
    if symbol is None or symbol.kind == "file":
        return None
    if symbol.kind == "positional":
        raise RenameRefused(
            f"`{symbol.name}` is a positional argument: documented commands name it by position, "
            "so there is nothing to rename in the docs"
        )
    if symbol.kind == "skill":
        _check_skill_renamable(ws, symbol)
        return RenameTarget(symbol.range, symbol.name, symbol)
    definition = _definition(symbol)
    name = _literal_name(symbol, definition)
    _check_parsers_closed(ws, definition)
    return RenameTarget(symbol.range, name, symbol)


def rename(ws: Workspace, doc: TextDocument, position: Position, new_name: str) -> WorkspaceChange:
    target = prepare_rename(ws, doc, position)
    if target is None:
        raise RenameRefused(
            "nothing here can be renamed: put the cursor on an option, a subcommand or a skill name"
        )
    return rename_symbol(ws, target.symbol, new_name)


def rename_symbol(ws: Workspace, symbol: Symbol, new_name: str) -> WorkspaceChange:
    new_name = new_name.strip()
    if symbol.kind == "skill":
        return _rename_skill(ws, symbol, new_name)
    definition = _definition(symbol)
    old = _literal_name(symbol, definition)
    _check_parsers_closed(ws, definition)
    if symbol.kind == "option":
        return _rename_option(ws, definition, old, new_name)
    if symbol.kind == "subcommand":
        return _rename_subcommand(ws, definition, old, new_name)
    raise RenameRefused(f"`{symbol.name}` cannot be renamed")


def find_definition(ws: Workspace, script: Path, name: str, line: int | None = None) -> Symbol:
    """The option or subcommand ``name`` of ``script`` (for the command line); ``line``
    (0-based) picks one of several definitions of the same name."""
    from easel_ls.services.graph import script_definitions

    found = [d for d in script_definitions(ws, script) if name in d.names]
    if line is not None:
        found = [d for d in found if _defined_on(d, name, line)]
    if not found:
        model = script_model(ws, script)
        if model is None or model.parser is None:
            reason = (
                model.reason
                if model is not None and model.reason
                else "has no argparse command line"
            )
            raise RenameRefused(f"{ws.rel(script)} {reason}")
        raise RenameRefused(f"{ws.rel(script)} defines no option or subcommand `{name}`")
    kinds = {d.target.kind for d in found}
    if len(found) > 1:
        where = ", ".join(f"line {d.target.line + 1}" for d in found)
        raise RenameRefused(
            f"`{name}` is defined more than once in {ws.rel(script)} ({where}): say which, "
            f"as {ws.rel(script)}:LINE"
        )
    definition = found[0]
    kind = next(iter(kinds))
    return Symbol(kind, definition.literals.get(name, definition.call), name, definition)


def _defined_on(definition: ScriptDefinition, name: str, line: int) -> bool:
    literal = definition.literals.get(name)
    return line in (definition.call.start.line, literal.start.line if literal else -1)


# -- options --------------------------------------------------------------------------------


def _rename_option(
    ws: Workspace, definition: ScriptDefinition, old: str, new: str
) -> WorkspaceChange:
    parsers = _holding_parsers(ws, definition)
    prefix_chars = "".join(sorted({c for p in parsers for c in p.prefix_chars})) or "-"
    if new == old:
        raise RenameRefused(f"`{old}` already has that name")
    if (
        len(new) < 2
        or new[0] not in prefix_chars
        or new.strip(prefix_chars) == ""
        or any(c.isspace() or c in "=\"'`" for c in new)
    ):
        raise RenameRefused(
            f"`{new}` is not a valid option string: it must start with `{prefix_chars[0]}`, "
            "have a name after the prefix, and hold no space, quote or `=`"
        )
    if old.startswith("--") != new.startswith("--"):
        raise RenameRefused(
            f"`{old}` is a {'long' if old.startswith('--') else 'short'} option; rename it to "
            f"a {'long' if old.startswith('--') else 'short'} one (documented abbreviations "
            "and `dest` depend on it)"
        )
    for parser in parsers:
        taken = set(parser.option_flags())
        if parser.add_help:
            taken |= {"-h", "--help"}
        if new in taken:
            where = f"`{parser.name}`" if parser.name else "the main parser"
            raise RenameRefused(f"`{new}` already exists in {where}")
    change, script = _literal_renamed(definition, old, new)
    if definition.derived_dest is not None and definition.dest_insert_at is not None:
        new_flags = [new if f == old else f for f in definition.names]
        if _derived_dest(new_flags, prefix_chars) != definition.derived_dest:
            at = definition.dest_insert_at
            change.add(script, Range(at, at), f', dest="{definition.derived_dest}"')
    # A script that also looks for the flag in `sys.argv` itself (`"--selftest" in sys.argv`)
    # must keep finding it.
    for rng in _dispatch_literals(ws, script, old, definition, dicts=False):
        change.add(script, rng, new)
    negative_old = "--no-" + old[2:] if old.startswith("--") else None
    negative_new = "--no-" + new[2:] if new.startswith("--") else None
    for use in graph(ws).uses_of(definition.target):
        if use.name == old:
            change.add(use.doc, use.range, new)
        elif negative_old is not None and use.name == negative_old and negative_new:
            change.add(use.doc, use.range, negative_new)
    _expand_abbreviations(ws, change, definition, new)
    return change


def _expand_abbreviations(
    ws: Workspace, change: WorkspaceChange, definition: ScriptDefinition, new: str
) -> None:
    """An abbreviation of another option that the new flag would make ambiguous is written
    in full, so argparse still reads every command the same way."""
    script = definition.target.script
    index = graph(ws)
    for target in list(index.targets()):
        if target.script != script or target == definition.target:
            continue
        for use in index.uses_of(target):
            if use.written != use.name and new.startswith(use.written):
                change.add(use.doc, use.range, use.name)


def _literal_renamed(
    definition: ScriptDefinition, old: str, new: str
) -> tuple[WorkspaceChange, Path]:
    """The change set's first edit: the name's own literal in the script."""
    if old not in definition.literals:
        raise RenameRefused(
            f"`{old}` is not written as a plain string literal in the script, so it cannot be "
            "renamed safely"
        )
    change = WorkspaceChange()
    script = definition.target.script
    change.add(script, definition.literals[old], new)
    return change, script


def _derived_dest(flags: list[str], prefix_chars: str) -> str:
    """argparse's dest for an option without `dest=`: the first long flag, else the first."""
    long_flags = [f for f in flags if len(f) > 1 and f[0] in prefix_chars and f[1] in prefix_chars]
    chosen = long_flags[0] if long_flags else flags[0]
    return chosen.lstrip(prefix_chars).replace("-", "_")


# -- subcommands ----------------------------------------------------------------------------


def _rename_subcommand(
    ws: Workspace, definition: ScriptDefinition, old: str, new: str
) -> WorkspaceChange:
    if new == old:
        raise RenameRefused(f"`{old}` already has that name")
    owners = _subcommand_owners(ws, definition)
    prefix_chars = {c for p in owners for c in p.prefix_chars} or {"-"}
    if not _SUBCOMMAND.fullmatch(new) or new[0] in prefix_chars:
        raise RenameRefused(
            f"`{new}` is not a valid subcommand name: no spaces, quotes or shell characters, "
            "and it must not start like an option"
        )
    for owner in owners:
        if owner.subparsers is not None and new in owner.subparsers.choices:
            raise RenameRefused(f"a subcommand `{new}` already exists beside `{old}`")
    change, script = _literal_renamed(definition, old, new)
    for rng in _dispatch_literals(ws, script, old, definition):
        change.add(script, rng, new)
    for use in graph(ws).uses_of(definition.target):
        if use.name == old:
            change.add(use.doc, use.range, new)
    return change


def _dispatch_literals(
    ws: Workspace, script: Path, name: str, definition: ScriptDefinition, dicts: bool = True
) -> list[Range]:
    """Where the script compares a word with ``name`` itself (`args.cmd == "render"`,
    `"--selftest" in sys.argv`, a dict of handlers, a `match` case): those literals follow the
    rename, or the script stops recognising it."""
    from easel_ls.services.graph import _literal_range

    doc = ws.read(script).doc
    if doc is None:
        return []
    try:
        tree = ast.parse(doc.text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    found: list[ast.Constant] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            found.extend(_constants([node.left, *node.comparators], name))
        elif isinstance(node, ast.Dict) and dicts:
            found.extend(_constants([k for k in node.keys if k is not None], name))
        elif isinstance(node, ast.MatchValue):
            found.extend(_constants([node.value], name))
    ranges = []
    own = set(definition.literals.values())
    for constant in found:
        rng = _literal_range(doc, constant)
        if rng is not None and rng not in own:
            ranges.append(rng)
    return ranges


def _constants(nodes: Iterable[ast.expr], name: str) -> list[ast.Constant]:
    out = []
    for node in nodes:
        if isinstance(node, ast.Constant) and node.value == name:
            out.append(node)
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            out.extend(e for e in node.elts if isinstance(e, ast.Constant) and e.value == name)
    return out


# -- skills ---------------------------------------------------------------------------------


def _check_skill_renamable(ws: Workspace, symbol: Symbol) -> None:
    skill = ws.skills.get(symbol.name)
    if skill is None or symbol.path is None:
        raise RenameRefused(f"`{symbol.name}` is not a skill of this workspace")
    if skill.folder.name != symbol.name:
        raise RenameRefused(
            f"the folder of `{symbol.name}` is named `{skill.folder.name}`: make them agree first"
        )


def _rename_skill(ws: Workspace, symbol: Symbol, new: str) -> WorkspaceChange:
    _check_skill_renamable(ws, symbol)
    old = symbol.name
    if new == old:
        raise RenameRefused(f"`{old}` already has that name")
    if len(new) > 64 or not _NAME_FORMAT.fullmatch(new):
        raise RenameRefused(
            f"`{new}` is not a valid skill name: lowercase letters, digits and single hyphens, "
            "at most 64 characters"
        )
    skill = ws.skills[old]
    new_folder = skill.folder.with_name(new)
    if new in ws.skills or new_folder.exists():
        raise RenameRefused(f"a skill or folder `{new}` already exists")
    change = file_moves(ws, [(skill.folder, new_folder)])
    doc = ws.read(skill.skill_md).doc
    own = skill_name_node(ws, doc) if doc is not None else None
    if own is not None:
        change.add(skill.skill_md, own[1], new)
    moved = {(p, e.range) for p, edits in change.edits.items() for e in edits}
    for path, rng in skill_mentions(ws, old):
        if (path, rng) not in moved and not _overlaps_any(change.edits.get(path, []), rng):
            change.add(path, rng, new)
    return change


def _overlaps_any(edits: list[TextEdit], rng: Range) -> bool:
    return any(e.range.start < rng.end and rng.start < e.range.end for e in edits)


# -- file moves -----------------------------------------------------------------------------


def file_moves(ws: Workspace, moves: list[tuple[Path, Path]]) -> WorkspaceChange:
    """Edits that keep every link, path mention and command path pointing at the same file
    after ``moves`` (files or folders, old -> new); the moves themselves are in ``renames``."""
    change = WorkspaceChange(renames=list(moves))

    def moved(path: Path) -> Path:
        for old, new in moves:
            if path == old:
                return new
            try:
                return new / path.relative_to(old)
            except ValueError:
                continue
        return path

    index = graph(ws)
    for doc_path, link in index.all_links():
        new_target = moved(link.target)
        new_doc = moved(doc_path)
        if new_target == link.target and new_doc == doc_path:
            continue
        doc = ws.read(doc_path).doc
        if doc is None:
            continue
        rewritten = _rewrite_path(ws, doc, link.range, link.target, new_target, moved)
        if rewritten is not None:
            change.add(doc_path, link.range, rewritten)
    for doc_path in markdown_documents(ws):
        _rewrite_written_paths(ws, change, doc_path, moves)
    return change


def _rewrite_written_paths(
    ws: Workspace, change: WorkspaceChange, doc_path: Path, moves: list[tuple[Path, Path]]
) -> None:
    """Paths no link or command names directly, written out in full: a shell variable set in
    a fence (`WP=$ROOT/skills/shared/scripts/publisher.py`, then `python $WP`), a path in a
    note. The root-relative form anywhere, the skill-relative one in the skill's own files."""
    doc = ws.read(doc_path).doc
    if doc is None:
        return
    skill = ws.skill_of(doc_path)
    for old, new in moves:
        forms = [(old.relative_to(ws.root), new.relative_to(ws.root))] if ws.contains(old) else []
        if (
            skill is not None
            and old.is_relative_to(skill.folder)
            and new.is_relative_to(skill.folder)
        ):
            forms.append((old.relative_to(skill.folder), new.relative_to(skill.folder)))
        for old_form, new_form in forms:
            written = old_form.as_posix()
            if written in ("", ".") or written not in doc.text:
                continue
            pattern = re.compile(rf"(?<![\w.-]){re.escape(written)}(?![\w.-]*[\w-])")
            for match in pattern.finditer(doc.text):
                rng = doc.range_of(match.start(), match.end())
                if not _overlaps_any(change.edits.get(doc_path, []), rng):
                    change.add(doc_path, rng, new_form.as_posix())


def _rewrite_path(
    ws: Workspace,
    doc: TextDocument,
    rng: Range,
    target: Path,
    new_target: Path,
    moved: object,
) -> str | None:
    """The written path at ``rng`` pointing at ``new_target`` instead, relative to the same
    base it was written against (None when it needs no change or cannot be read safely)."""
    written = doc.slice(rng)
    path_part, suffix = _split_suffix(written)
    skill = ws.skill_of(doc.path)
    bases = [doc.path.parent, *([skill.folder] if skill else []), ws.root]
    cuts = [0, *(i + 1 for i, c in enumerate(path_part) if c == "/")]
    for cut in cuts:
        tail = path_part[cut:]
        if not tail:
            continue
        if tail.startswith("/"):
            if Path(os.path.normpath(tail)) == target:
                return path_part[:cut] + new_target.as_posix() + suffix
            continue
        for base in bases:
            if Path(os.path.normpath(base / tail)) != target:
                continue
            new_base = moved(base)  # type: ignore[operator]
            new_tail = Path(os.path.relpath(new_target, new_base)).as_posix()
            if tail.startswith("./") and not new_tail.startswith("."):
                new_tail = "./" + new_tail
            if tail.endswith("/") and not new_tail.endswith("/"):
                new_tail += "/"
            if new_tail == tail:
                return None
            return path_part[:cut] + new_tail + suffix
    return None


def _split_suffix(written: str) -> tuple[str, str]:
    for mark in ("#", "?"):
        at = written.find(mark)
        if at > 0:
            return written[:at], written[at:]
    return written, ""


# -- checks ---------------------------------------------------------------------------------


def _definition(symbol: Symbol) -> ScriptDefinition:
    if symbol.definition is None:
        raise RenameRefused(f"`{symbol.name}` cannot be renamed")
    return symbol.definition


def _literal_name(symbol: Symbol, definition: ScriptDefinition) -> str:
    """The name the rename changes: the flag or subcommand name the cursor is on."""
    name = symbol.name
    if symbol.kind == "option" and name not in definition.literals:
        positive = "--" + name[5:] if name.startswith("--no-") else None
        if positive is not None and positive in definition.literals:
            raise RenameRefused(f"`{name}` is derived from `{positive}`: rename `{positive}`")
    return name


def _holding_parsers(ws: Workspace, definition: ScriptDefinition) -> list[ParserModel]:
    model = script_model(ws, definition.target.script)
    if model is None or model.parser is None:
        return []
    key = (definition.target.line, definition.target.column)
    return [p for p in model.parser.walk() if any((o.line, o.column) == key for o in p.options)]


def _subcommand_owners(ws: Workspace, definition: ScriptDefinition) -> list[ParserModel]:
    model = script_model(ws, definition.target.script)
    if model is None or model.parser is None:
        return []
    key = (definition.target.line, definition.target.column)
    return [
        p
        for p in model.parser.walk()
        if p.subparsers is not None
        and any((c.line, c.column) == key for c in p.subparsers.choices.values())
    ]


def _check_parsers_closed(ws: Workspace, definition: ScriptDefinition) -> None:
    model = script_model(ws, definition.target.script)
    script = ws.rel(definition.target.script)
    if model is None or model.parser is None:
        raise RenameRefused(f"{script} has no command line the analysis can read")
    if definition.target.kind == "subcommand":
        parsers = _subcommand_owners(ws, definition)
    else:
        parsers = _holding_parsers(ws, definition)
    for parser in [*parsers, model.parser] if model.status == "open" else parsers:
        if parser.open or model.status == "open":
            reason = parser.open_reason or model.reason or "is built at run time"
            raise RenameRefused(
                f"{script} {reason} (CM010): a rename could miss uses the analysis cannot see"
            )


def uses_in(ws: Workspace, paths: Iterable[Path]) -> list[ArgUse]:
    wanted = set(paths)
    return [u for p, e in graph(ws).docs.items() if p in wanted for u in e.uses]


__all__ = [
    "RenameRefused",
    "RenameTarget",
    "WorkspaceChange",
    "file_moves",
    "find_definition",
    "markdown_documents",
    "prepare_rename",
    "rename",
    "rename_symbol",
]
