"""Hover: what a thing under the cursor means, as Markdown.

Layer meanings, frontmatter key rules, an option's argparse help/default/choices and the script
line that defines it, `.easel.json` fields from the schema, and the rule doc behind a code in a
suppression comment. The ``describe_*`` helpers also write completion documentation.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from easel_ls.findings import Position, Range
from easel_ls.model.argparse_model import OptionSpec, ParserModel, PositionalSpec
from easel_ls.model.text import TextDocument
from easel_ls.rules import RULES
from easel_ls.rules.context import FileKind, classify
from easel_ls.services.context import (
    CommandArgument,
    FrontmatterKey,
    FrontmatterValue,
    JsonKey,
    JsonValue,
    SuppressionCode,
    cursor_context,
    enum_values,
    is_option_word,
    manifest_schema,
    openclaw_schema,
    option_owner,
    schema_at,
)
from easel_ls.services.previews import manifest_preview, markdown_link_preview
from easel_ls.spec import (
    ALLOWED_TOP_KEYS,
    FORBIDDEN_KEYS,
    FORBIDDEN_METADATA_KEYS,
    KEY_DOCS,
    LAYERS,
    REQUIRED_KEYS,
)
from easel_ls.suggest import closest, did_you_mean
from easel_ls.workspace import Workspace

SUPPRESS = "==SUPPRESS=="


@dataclass(frozen=True)
class HoverInfo:
    markdown: str
    range: Range


def hover(ws: Workspace, doc: TextDocument, pos: Position) -> HoverInfo | None:
    """The hover for the cursor, or None when there is nothing to say."""
    routed = _routing(ws, doc, pos)
    if routed is not None:
        return HoverInfo(*routed)
    preview = _preview(ws, doc, pos)
    if preview is not None and preview[0] == "file":
        return HoverInfo(preview[1], preview[2])
    found = cursor_context(ws, doc, pos)
    text: str | None = None
    if isinstance(found, SuppressionCode):
        text = describe_rule_code(found.token.text)
    elif isinstance(found, FrontmatterKey):
        text = (
            describe_frontmatter_key(found.token.text, found.parents) if found.token.text else None
        )
    elif isinstance(found, FrontmatterValue):
        text = _frontmatter_value(found)
    elif isinstance(found, CommandArgument):
        text = _command_argument(found)
    elif isinstance(found, JsonKey):
        key = _json_text(found.token.text)
        if key:
            text = describe_manifest_field((*found.container, key))
    elif isinstance(found, JsonValue) and found.token.text:
        text = describe_manifest_field(found.path, value=_json_text(found.token.text))
    if preview is not None:  # inside a manifest step: the step, then what the field means
        markdown = preview[1] + (f"\n\n---\n\n{text}" if found is not None and text else "")
        return HoverInfo(markdown, found.token.range if found is not None and text else preview[2])
    if found is None or not text:
        return None
    return HoverInfo(text, found.token.range)


def _routing(ws: Workspace, doc: TextDocument, pos: Position) -> tuple[str, Range] | None:
    """`description:` and its quoted trigger phrases in a SKILL.md: cost and routing."""
    if doc.path.name != "SKILL.md" or pos.line > 60:  # the frontmatter's lines only
        return None
    from easel_ls.services.routing import routing_hover

    found = routing_hover(ws, doc, pos)
    if found is None:
        return None
    text, rng = found
    key_doc = describe_frontmatter_key("description")
    if key_doc and _on_key(doc, pos):  # the key's own meaning stays first
        text = f"{key_doc}\n\n---\n\n{text}"
    return text, rng


def _on_key(doc: TextDocument, pos: Position) -> bool:
    line = doc.line_text(pos.line)
    return line.startswith("description") and pos.character <= len("description")


def _preview(ws: Workspace, doc: TextDocument, pos: Position) -> tuple[str, str, Range] | None:
    """("file", markdown, range) for a file a manifest or a Markdown link names, ("step", …)
    inside a manifest step; None elsewhere."""
    if pos.line < 0 or pos.line >= doc.line_count:
        return None
    pos = Position(pos.line, min(max(pos.character, 0), len(doc.line_text(pos.line))))
    kind, _skill = classify(ws, doc.path)
    if kind is FileKind.MANIFEST:
        found = manifest_preview(ws, doc, pos)
        if found is None:
            return None
        markdown, rng = found
        return ("step" if markdown.startswith("**Step ") else "file"), markdown, rng
    found = markdown_link_preview(ws, doc, pos)
    return ("file", *found) if found is not None else None


# --- rule codes ---------------------------------------------------------------------------------


def describe_rule_code(code: str) -> str | None:
    if not code:
        return None
    rule = RULES.get(code.upper())
    if rule is None:
        hint = did_you_mean(closest(code.upper(), RULES, n=3))
        return f"`{code}` is not an easel-ls rule code." + (f" {hint}" if hint else "")
    return (
        f"**{rule.code}** `{rule.name}` ({rule.default_severity})\n\n{rule.summary}\n\n"
        f"{rule.doc}\n\n[Rule documentation]({rule.url})"
    )


# --- frontmatter --------------------------------------------------------------------------------


def describe_frontmatter_key(key: str, parents: tuple[str, ...] = ()) -> str | None:
    if not parents:
        if key in KEY_DOCS:
            required = " Required (FM004)." if key in REQUIRED_KEYS else ""
            return f"**`{key}`** — {KEY_DOCS[key]}{required}"
        if key in FORBIDDEN_KEYS:
            return (
                f"**`{key}`** is forbidden by the Easel SKILL spec v0.3 (FM005): the frontmatter "
                f"keeps only {', '.join(f'`{k}`' for k in ALLOWED_TOP_KEYS)}. Provenance goes into "
                "`EASEL-META.md` beside SKILL.md; execution rules go into the body."
            )
        hint = did_you_mean(closest(key, ALLOWED_TOP_KEYS))
        return f"**`{key}`** is not a frontmatter key of the spec (FM006)." + (
            f" {hint}" if hint else ""
        )
    if parents == ("metadata",):
        if key in FORBIDDEN_METADATA_KEYS:
            return (
                f"**`metadata.{key}`** is forbidden by the spec (FM005): routing lives in "
                "`description`, provenance in `EASEL-META.md`."
            )
        if key == "openclaw":
            return f"**`metadata.openclaw`** — {KEY_DOCS['metadata']}\n\n" + (
                openclaw_schema().get("description") or ""
            )
        return f"**`metadata.{key}`**: only `metadata.openclaw` is allowed (FM006)."
    if parents[:2] == ("metadata", "openclaw"):
        root = openclaw_schema()
        node = schema_at(root, [*parents[2:], key])
        if node is None:
            return f"**`{key}`** is not a `metadata.openclaw` field (FM016)."
        return _schema_text(".".join([*parents, key]), root, node)
    return None


def _frontmatter_value(found: FrontmatterValue) -> str | None:
    value = found.token.text
    if found.parents or not value:
        return None
    if found.key == "layer":
        meaning = LAYERS.get(value)
        if meaning is not None:
            return f"**layer `{value}`** — {meaning}"
        hint = did_you_mean(closest(value, LAYERS))
        return (
            f"`{value}` is not a layer (FM008)."
            + (f" {hint}" if hint else "")
            + "\n\n"
            + describe_layers()
        )
    return None


def describe_layers() -> str:
    return "\n".join(f"- `{name}`: {meaning}" for name, meaning in LAYERS.items())


# --- commands -----------------------------------------------------------------------------------


def _command_argument(found: CommandArgument) -> str | None:
    text = _argument_text(found)
    reason = None
    if found.state is not None and found.state.parser.open:
        reason = found.state.parser.open_reason
    elif found.model is not None and found.model.status == "open":
        reason = found.model.reason
    if text and reason:
        text += (
            f"\n\n*easel-ls reads this parser only in part ({reason}); other options may exist.*"
        )
    return text


def _argument_text(found: CommandArgument) -> str | None:
    state = found.state
    args = found.invocation.args
    if state is None or found.index >= len(args):
        return None
    word = args[found.index].text
    parser = state.parser
    if not state.after_separator and is_option_word(word, parser) and not state.value_required:
        owned = option_owner(state, word)
        if owned is None:
            return None
        option, owner = owned
        note = ""
        if owner is not parser:
            where = f"`{owner.name}`" if owner.name else "the main parser"
            note = f"\n\n*An option of {where}: argparse rejects it after the subcommand (CM007).*"
        return describe_option(option, found.script_label) + note
    if state.pending is not None:
        return describe_option(state.pending, found.script_label)
    sub = parser.subparsers
    if state.expects_subcommand and sub is not None and word in sub.choices:
        canonical = sub.aliases.get(word, word)
        return describe_subcommand(
            canonical, sub.choices[canonical], sub.help.get(canonical), found.script_label
        )
    if state.positionals < len(parser.positionals):
        return describe_positional(parser.positionals[state.positionals], found.script_label)
    return None


def describe_option(option: OptionSpec, script_label: str) -> str:
    flags = ", ".join(f"`{f}`" for f in option.flags)
    if option.takes_value:
        flags += f" `{option.metavar or option.dest.upper()}`"
    parts = [flags]
    if option.help and option.help != SUPPRESS:
        parts.append(expand_help(option.help, option))
    facts = []
    default = literal_default(option)
    if default is not None:
        facts.append(f"Default: `{default}`")
    if option.choices:
        facts.append("Choices: " + ", ".join(f"`{c}`" for c in option.choices))
    if option.required:
        facts.append("Required")
    if option.action in ("append", "extend", "count", "append_const"):
        facts.append("May be repeated")
    if script_label:
        facts.append(f"Defined at `{script_label}:{option.line + 1}`")
    parts.append("  \n".join(facts))
    return "\n\n".join(p for p in parts if p)


def describe_subcommand(
    name: str, parser: ParserModel, help_text: str | None, script_label: str
) -> str:
    parts = [f"**subcommand `{name}`**"]
    if help_text and help_text != SUPPRESS:
        parts.append(help_text)
    flags = [o.flags[-1] for o in parser.options if "--help" not in o.flags]
    if flags:
        parts.append("Options: " + ", ".join(f"`{f}`" for f in flags))
    if parser.subparsers is not None:
        names = [n for n in parser.subparsers.choices if n not in parser.subparsers.aliases]
        parts.append("Subcommands: " + ", ".join(f"`{n}`" for n in names))
    if script_label:
        parts.append(f"Defined at `{script_label}:{parser.line + 1}`")
    return "\n\n".join(parts)


def describe_positional(positional: PositionalSpec, script_label: str) -> str:
    parts = [f"positional `{positional.metavar or positional.dest}`"]
    if positional.help and positional.help != SUPPRESS:
        parts.append(positional.help)
    if positional.choices:
        parts.append("Choices: " + ", ".join(f"`{c}`" for c in positional.choices))
    if script_label:
        parts.append(f"Defined at `{script_label}:{positional.line + 1}`")
    return "\n\n".join(parts)


_HELP_FIELD = re.compile(r"%\((\w+)\)[sdrfi]|%%")


def literal_default(option: OptionSpec) -> str | None:
    """The default as argparse would print it: a literal's value, else its source text."""
    if option.default is None:
        return None
    try:
        return str(ast.literal_eval(option.default))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return option.default


def expand_help(text: str, option: OptionSpec) -> str:
    """argparse's `%(default)s`-style help placeholders, filled in from the static model."""
    default = literal_default(option)
    values = {
        "default": default if default is not None else "None",
        "choices": ", ".join(option.choices or ()),
        "dest": option.dest,
        "metavar": option.metavar or option.dest.upper(),
    }

    def fill(match: re.Match[str]) -> str:
        if match.group(0) == "%%":
            return "%"
        return values.get(match.group(1), match.group(0))

    return _HELP_FIELD.sub(fill, text)


# --- .easel.json --------------------------------------------------------------------------------


def describe_manifest_field(path: tuple[str | int, ...], value: str | None = None) -> str | None:
    root = manifest_schema()
    node = schema_at(root, path)
    if node is None:
        return None
    keys = [p for p in path if isinstance(p, str)]
    if not keys:
        return None
    label = ".".join(
        f"{p}[]" if i + 1 < len(path) and isinstance(path[i + 1], int) else p
        for i, p in enumerate(path)
        if isinstance(p, str)
    )
    text = _schema_text(label, root, node)
    allowed = enum_values(root, node)
    if value and allowed and value not in allowed:
        text += f"\n\n`{value}` is not one of them (MF002)."
    return text


def _schema_text(label: str, root: dict[str, Any], node: dict[str, Any]) -> str:
    parts = [f"**`{label}`**"]
    kind = node.get("type")
    if isinstance(kind, str):
        parts[0] += f" ({kind})"
    description = node.get("markdownDescription") or node.get("description")
    if isinstance(description, str):
        parts.append(description)
    allowed = enum_values(root, node)
    if allowed:
        parts.append("One of: " + ", ".join(f"`{v}`" for v in allowed))
    return "\n\n".join(parts)


def _json_text(raw: str) -> str:
    """A JSON token's value (strings unquoted, even when the closing quote is missing)."""
    if raw.startswith('"'):
        inner = raw[1:-1] if len(raw) > 1 and raw.endswith('"') else raw[1:]
        return inner.replace('\\"', '"')
    return raw
