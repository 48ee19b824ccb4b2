"""Completion: what may be written at the cursor, with its meaning as Markdown documentation.

Frontmatter keys and `layer` values; in commands, script paths, subcommands, the options valid at
that point (from the script's static argparse model, never by running it) and `choices` values;
Markdown link targets under `references/`; rule codes in suppression comments; `.easel.json`
keys, enum values and project file names. Every item replaces the token under the cursor.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from easel_ls.findings import Position, Range
from easel_ls.model.argparse_model import OptionSpec
from easel_ls.model.text import TextDocument
from easel_ls.rules import RULES
from easel_ls.services.context import (
    ArgumentState,
    CommandArgument,
    FrontmatterKey,
    FrontmatterValue,
    JsonKey,
    JsonValue,
    LinkTarget,
    ScriptPath,
    SuppressionCode,
    Token,
    cursor_context,
    enum_values,
    lookup_option,
    manifest_schema,
    openclaw_schema,
    properties,
    schema_at,
    subcommand_names,
)
from easel_ls.services.hover import (
    SUPPRESS,
    describe_frontmatter_key,
    describe_manifest_field,
    describe_option,
    describe_rule_code,
    describe_subcommand,
    expand_help,
)
from easel_ls.spec import ALLOWED_TOP_KEYS, KEY_DOCS, LAYERS
from easel_ls.workspace import Workspace

ItemKind = Literal["key", "value", "file", "script", "subcommand", "option", "rule"]
REPEATABLE_ACTIONS = frozenset({"append", "extend", "count", "append_const"})
MEDIA_SUFFIXES = frozenset(
    {".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".svg", ".heic", ".mp4", ".mov", ".webm"}
)


@dataclass(frozen=True)
class CompletionItem:
    label: str
    kind: ItemKind
    new_text: str
    range: Range  # what the item replaces: the token under the cursor
    detail: str | None = None
    documentation: str | None = None  # Markdown
    sort_text: str | None = None
    filter_text: str | None = None


def complete(ws: Workspace, doc: TextDocument, pos: Position) -> list[CompletionItem]:
    """Completion items for the cursor; empty where easel-ls has nothing to offer."""
    found = cursor_context(ws, doc, pos)
    token = getattr(found, "token", None)
    if token is not None and token.range.start.line != token.range.end.line:
        # A word continued over a `\` line break: LSP edits must stay on one line.
        return []
    if isinstance(found, FrontmatterKey):
        return _frontmatter_keys(found)
    if isinstance(found, FrontmatterValue):
        return _frontmatter_values(found)
    if isinstance(found, SuppressionCode):
        return _rule_codes(found.token)
    if isinstance(found, LinkTarget):
        return _link_targets(found, doc.path)
    if isinstance(found, ScriptPath):
        return _script_paths(ws, found)
    if isinstance(found, CommandArgument):
        return _arguments(found)
    if isinstance(found, JsonKey):
        return _manifest_keys(found)
    if isinstance(found, JsonValue):
        return _manifest_values(found, doc.path.parent)
    return []


# --- frontmatter --------------------------------------------------------------------------------


def _frontmatter_keys(found: FrontmatterKey) -> list[CompletionItem]:
    rng = found.token.range
    indent = " " * rng.start.character
    if not found.parents:
        keys: list[str] = [k for k in ALLOWED_TOP_KEYS if k not in found.siblings]
    elif found.parents == ("metadata",):
        keys = [] if "openclaw" in found.siblings else ["openclaw"]
    elif found.parents[:2] == ("metadata", "openclaw"):
        root = openclaw_schema()
        node = schema_at(root, found.parents[2:])
        keys = [k for k in properties(root, node or {}) if k not in found.siblings]
    else:
        return []
    items = []
    for i, key in enumerate(keys):
        new_text = f"{key}: "
        if key == "metadata":
            new_text = f"metadata:\n{indent}  openclaw:\n{indent}    "
        elif key == "openclaw":
            new_text = f"openclaw:\n{indent}  "
        detail = KEY_DOCS.get(key) if not found.parents else None
        items.append(
            CompletionItem(
                key,
                "key",
                new_text,
                rng,
                detail=detail,
                documentation=describe_frontmatter_key(key, found.parents),
                sort_text=f"{i:03}",
            )
        )
    return items


def _frontmatter_values(found: FrontmatterValue) -> list[CompletionItem]:
    rng = found.token.range
    if not found.parents and found.key == "layer":
        return [
            CompletionItem(
                name, "value", name, rng, detail=meaning, documentation=f"**{name}** — {meaning}"
            )
            for name, meaning in LAYERS.items()
        ]
    if found.parents[:2] == ("metadata", "openclaw"):
        root = openclaw_schema()
        node = schema_at(root, [*found.parents[2:], found.key])
        return [CompletionItem(v, "value", v, rng) for v in enum_values(root, node)]
    return []


# --- suppression codes and links -----------------------------------------------------------------


def _rule_codes(token: Token) -> list[CompletionItem]:
    return [
        CompletionItem(
            code,
            "rule",
            code,
            token.range,
            detail=f"{rule.name}: {rule.summary}",
            documentation=describe_rule_code(code),
        )
        for code, rule in sorted(RULES.items())
    ]


def _link_targets(found: LinkTarget, doc_path: Path) -> list[CompletionItem]:
    if found.skill_folder is None:
        return []
    references = found.skill_folder / "references"
    items = []
    for path in _files_under(references):
        if path == doc_path:
            continue
        target = Path(os.path.relpath(path, found.doc_folder)).as_posix()
        items.append(CompletionItem(target, "file", target, found.token.range, detail="reference"))
    return items


def _files_under(folder: Path, limit: int = 2000) -> list[Path]:
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        found.extend(Path(dirpath) / n for n in sorted(filenames) if not n.startswith("."))
        if len(found) >= limit:
            break
    return found[:limit]


# --- commands -----------------------------------------------------------------------------------

_PLACEHOLDER_PREFIX = re.compile(r"^(\$\{\w+\}|\$\w+|\{\w+\}|<[^<>/]+>)/")


def _script_paths(ws: Workspace, found: ScriptPath) -> list[CompletionItem]:
    suffix = ".py" if found.kind == "python" else ".sh"
    own = _scripts_in(found.skill_folder / "scripts", suffix) if found.skill_folder else []
    shared = _scripts_in(ws.shared_scripts_dir(), suffix)
    prefix = found.token.prefix
    placeholder = _PLACEHOLDER_PREFIX.match(prefix)
    written: list[tuple[str, str]] = []
    if placeholder is not None and found.skill_folder is not None:
        written = [(f"{placeholder.group(1)}/scripts/{p.name}", "skill script") for p in own]
    elif prefix.startswith("scripts/") and found.skill_folder is not None:
        written = [(f"scripts/{p.name}", "skill script") for p in own]
    else:
        written = [(ws.rel(p), "skill script") for p in own]
        written += [(ws.rel(p), "shared script") for p in shared]
    return [
        CompletionItem(text, "script", text, found.token.range, detail=detail, sort_text=f"{i:03}")
        for i, (text, detail) in enumerate(written)
    ]


def _scripts_in(folder: Path, suffix: str) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if p.suffix == suffix and p.is_file())
    except OSError:
        return []


def _arguments(found: CommandArgument) -> list[CompletionItem]:
    state = found.state
    if state is None:
        return []
    token = found.token
    parser = state.parser
    if "=" in token.prefix and token.prefix[:1] in parser.prefix_chars:
        flag = token.prefix.split("=", 1)[0]
        option, _ = lookup_option(parser, flag)
        if option is None or not option.choices:
            return []
        start = token.range.start
        value_range = Range(Position(start.line, start.character + len(flag) + 1), token.range.end)
        return _choices(option, value_range, found.script_label)
    if state.value_required:
        assert state.pending is not None
        return _choices(state.pending, token.range, found.script_label)
    items: list[CompletionItem] = []
    typing_option = token.prefix[:1] in parser.prefix_chars and token.prefix != ""
    if not typing_option:
        if state.pending is not None:
            items += _choices(state.pending, token.range, found.script_label)
        if state.expects_subcommand and parser.subparsers is not None:
            for i, name in enumerate(subcommand_names(parser)):
                help_text = parser.subparsers.help.get(name)
                items.append(
                    CompletionItem(
                        name,
                        "subcommand",
                        name,
                        token.range,
                        detail=help_text if help_text != SUPPRESS else None,
                        documentation=describe_subcommand(
                            name, parser.subparsers.choices[name], help_text, found.script_label
                        ),
                        sort_text=f"0{i:03}",
                    )
                )
        elif state.positionals < len(parser.positionals) and not state.after_separator:
            positional = parser.positionals[state.positionals]
            for choice in positional.choices or ():
                items.append(CompletionItem(choice, "value", choice, token.range, sort_text="0"))
    if not state.after_separator:
        items += _options(state, token, found.script_label)
    return items


def _options(state: ArgumentState, token: Token, script_label: str) -> list[CompletionItem]:
    given = {id(o) for o in state.given}
    blocked_groups = {o.exclusive_group for o in state.given if o.exclusive_group is not None}
    items = []
    for i, option in enumerate(state.parser.options):
        if option.help == SUPPRESS:
            continue
        repeatable = option.action in REPEATABLE_ACTIONS
        if id(option) in given and not repeatable:
            continue
        if option.exclusive_group in blocked_groups and id(option) not in given:
            continue
        flag = _preferred_flag(option, token.prefix)
        is_help = "--help" in option.flags or "-h" in option.flags
        help_text = expand_help(option.help, option) if option.help else None
        items.append(
            CompletionItem(
                flag,
                "option",
                flag,
                token.range,
                detail=help_text or ", ".join(option.flags),
                documentation=describe_option(option, script_label),
                sort_text=f"{'9' if is_help else '1'}{i:03}",
            )
        )
    return items


def _preferred_flag(option: OptionSpec, prefix: str) -> str:
    starting = [f for f in option.flags if prefix and f.startswith(prefix)]
    if starting:
        return starting[0]
    long = [f for f in option.flags if len(f) > 2 and f[1] == f[0]]
    return long[0] if long else option.flags[0]


def _choices(option: OptionSpec, rng: Range, script_label: str) -> list[CompletionItem]:
    doc = describe_option(option, script_label)
    return [
        CompletionItem(
            choice,
            "value",
            choice,
            rng,
            detail=f"{option.flags[-1]} choice",
            documentation=doc,
            sort_text=f"0{i:03}",
        )
        for i, choice in enumerate(option.choices or ())
    ]


# --- .easel.json --------------------------------------------------------------------------------


def _manifest_keys(found: JsonKey) -> list[CompletionItem]:
    root = manifest_schema()
    node = schema_at(root, found.container)
    if node is None:
        return []
    items = []
    for i, key in enumerate(properties(root, node)):
        if key in found.siblings:
            continue
        text = f'"{key}"'
        items.append(
            CompletionItem(
                key,
                "key",
                f"{text}: ",
                found.token.range,
                detail=_first_line(schema_at(root, (*found.container, key))),
                documentation=describe_manifest_field((*found.container, key)),
                sort_text=f"{i:03}",
                filter_text=text if found.quoted else key,
            )
        )
    return items


def _manifest_values(found: JsonValue, project: Path) -> list[CompletionItem]:
    root = manifest_schema()
    path = found.path
    values = enum_values(root, schema_at(root, path))
    detail = None
    if not values:
        if path[:1] == ("deliverables",) and len(path) == 2:
            values = [n for n in _project_files(project, media_only=False) if "/" not in n]
            values = [v for v in values if v not in found.siblings]
            detail = "project file"
        elif path == ("cover",):
            values = _project_files(project, media_only=True)
            detail = "project image or video"
    doc = describe_manifest_field(path)
    return [
        CompletionItem(
            value,
            "file" if detail else "value",
            f'"{value}"',
            found.token.range,
            detail=detail,
            documentation=doc,
            sort_text=f"{i:03}",
            filter_text=f'"{value}"' if found.quoted else value,
        )
        for i, value in enumerate(values)
    ]


def _project_files(project: Path, *, media_only: bool) -> list[str]:
    """Files of the project folder (root first, then `assets/`), as the manifest names them."""
    names: list[str] = []
    for path in _files_under(project, limit=500):
        rel = path.relative_to(project).as_posix()
        if any(part.startswith(".") for part in rel.split("/")):
            continue
        if media_only and path.suffix.lower() not in MEDIA_SUFFIXES:
            continue
        names.append(rel)
    return sorted(names, key=lambda n: (n.count("/"), n))


def _first_line(node: dict[str, object] | None) -> str | None:
    description = node.get("description") if node else None
    if not isinstance(description, str):
        return None
    return description.strip().splitlines()[0] if description.strip() else None
