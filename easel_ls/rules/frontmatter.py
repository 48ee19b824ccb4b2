"""FM — SKILL.md frontmatter."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

import yaml

from easel_ls.findings import Applicability, CreateFile, Fix, Location, Position, Range, TextEdit
from easel_ls.model.frontmatter import Frontmatter, is_empty, mapping_items, scalar_text
from easel_ls.rules.base import package_text
from easel_ls.rules.context import Context, FileKind, checker
from easel_ls.spec import (
    ALLOWED_TOP_KEYS,
    FORBIDDEN_KEYS,
    FORBIDDEN_METADATA_KEYS,
    LAYERS,
    REQUIRED_KEYS,
)
from easel_ls.suggest import closest, did_you_mean, ranked

NAME_FORMAT = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
SKILL_MENTION = re.compile(
    r"`([a-z0-9]+(?:-[a-z0-9]+)+)`|(?<![\w-])(skill-[a-z0-9]+(?:-[a-z0-9]+)*)"
)
# Manifest `kind` values and similar kebab words that are not skill names.
_NOT_SKILL_NAMES = {"xhs-note", "allow-unsafe", "dry-run", "kebab-case"}
_WHITE_SPACE = re.compile(r"\s+")
# A whole word that may be a skill's folder name (`与 voice-dub 的区别`, `请走poster-maker`).
_BARE_NAME = re.compile(r"(?<![A-Za-z0-9_-])[a-z0-9]+(?:-[a-z0-9]+)*(?![A-Za-z0-9_-])")
# Other skills named by kind (`委派对应平台发布 SKILL`, `国内平台用各自的发布 SKILL`): a
# boundary too. `本 SKILL`/`该 skill` is the skill itself.
_GENERIC_NEIGHBOUR = re.compile(r"(?<![A-Za-z0-9_-])(?:SKILL|Skill|skill)s?(?![A-Za-z0-9_-])")
# Between names of one list: `原 old-a 和 old-b`, `` `a`、`b` ``.
_LIST_TAIL = re.compile(
    r"(?:`?[a-z0-9]+(?:-[a-z0-9]+)*`?)\s*(?:和|与|、|,|，|及|以及|/|跟|或|and|or)\s*`?\s*$"
)

_DESCRIPTION_SKELETON = (
    "description: >-\n"
    "  用中文说明本 SKILL 做什么、用户在什么场景或用哪些说法时应触发，以及与相邻 SKILL 的边界。\n"
)


def _is_cjk(ch: str) -> bool:
    o = ord(ch)
    return (
        0x4E00 <= o <= 0x9FFF
        or 0x3400 <= o <= 0x4DBF
        or 0x20000 <= o <= 0x2EBEF
        or 0xF900 <= o <= 0xFAFF
        or 0x3040 <= o <= 0x30FF  # kana
        or 0xAC00 <= o <= 0xD7AF  # hangul
    )


def _lines_range(fm: Frontmatter, key: yaml.Node, value: yaml.Node) -> Range:
    """Whole lines holding ``key: value`` (for removal)."""
    start = fm.node_range(key).start.line
    end = fm.node_range(value).end
    end_line = end.line + 1 if end.character > 0 or end.line == start else end.line
    end_line = max(end_line, start + 1)
    return Range(Position(start, 0), Position(end_line, 0))


@checker(FileKind.SKILL, codes=("FM001", "FM002", "FM003"))
def frontmatter_structure(ctx: Context) -> None:
    fm = ctx.frontmatter
    if not fm.present:
        ctx.report(
            "FM001",
            Range.of(0, 0, 0, len(ctx.doc.line_text(0))),
            "SKILL.md has no YAML frontmatter: line 1 must be `---`",
            help="start the file with `---`, the keys `name`, `description`, `layer`, then `---`",
        )
        return
    if not fm.closed:
        ctx.report(
            "FM001",
            Range.of(0, 0, 0, 3),
            "the frontmatter opened on line 1 is never closed with `---`",
        )
        return
    if fm.error is not None:
        ctx.report("FM002", fm.error.range, f"invalid YAML: {fm.error.message}", help=fm.error.hint)
        return
    if fm.root is None:
        ctx.report("FM003", Range.of(0, 0, fm.end_line, 3), "the frontmatter is empty")
        return
    if not isinstance(fm.root, yaml.MappingNode):
        kind = "a list" if isinstance(fm.root, yaml.SequenceNode) else "a scalar"
        ctx.report(
            "FM003",
            fm.node_range(fm.root),
            f"the frontmatter is {kind}, not a mapping of `key: value` pairs",
        )


@checker(FileKind.SKILL, codes=("FM004", "FM005", "FM006", "FM007"))
def frontmatter_keys(ctx: Context) -> None:
    fm = ctx.frontmatter
    mapping = fm.mapping
    if mapping is None:
        return
    seen: dict[str, yaml.Node] = {}
    present = {str(key.value) for key, _ in fm.items()}
    for key, value in fm.items():
        name = str(key.value)
        key_range = fm.node_range(key)
        if name in seen:
            ctx.report(
                "FM007",
                key_range,
                f"duplicate key `{name}`: YAML keeps only the last value",
                related=[Location(ctx.path, fm.node_range(seen[name]), "first defined here")],
            )
            continue
        seen[name] = key
        if name in FORBIDDEN_KEYS:
            ctx.report(
                "FM005",
                key_range,
                f"forbidden key `{name}`: the spec keeps only name, description and layer",
                fixes=_forbidden_fixes(ctx, fm, key, value, name),
                help="provenance goes into EASEL-META.md; execution rules go into the body",
            )
        elif name == "metadata":
            _check_metadata(ctx, fm, value)
        elif name not in ALLOWED_TOP_KEYS:
            suggestions = closest(name, ALLOWED_TOP_KEYS)
            fixes = [
                Fix(
                    f"Rename `{name}` to `{s}`",
                    Applicability.UNSAFE,
                    (TextEdit(ctx.path, key_range, s),),
                )
                for s in suggestions
                if s not in present  # renaming onto a key written elsewhere would duplicate it
            ]
            ctx.report(
                "FM006",
                key_range,
                f"unknown frontmatter key `{name}`",
                fixes=fixes,
                help=did_you_mean(suggestions),
            )
    for required in REQUIRED_KEYS:
        pair = fm.get(required)
        if pair is None:
            insert_at = Position(fm.end_line, 0)
            ctx.report(
                "FM004",
                Range.of(0, 0, 0, 3),
                f"required key `{required}` is missing",
                fixes=[
                    Fix(
                        f"Insert `{required}` key",
                        Applicability.UNSAFE,
                        (
                            TextEdit(
                                ctx.path, Range(insert_at, insert_at), _skeleton(ctx, required)
                            ),
                        ),
                    )
                ],
            )
        elif is_empty(pair[1]):
            ctx.report("FM004", fm.node_range(pair[0]), f"required key `{required}` is empty")


def _skeleton(ctx: Context, key: str) -> str:
    if key == "name":
        return f"name: {ctx.skill.name if ctx.skill else ctx.path.parent.name}\n"
    if key == "description":
        return _DESCRIPTION_SKELETON
    return "layer: general\n"


def _forbidden_fixes(
    ctx: Context, fm: Frontmatter, key: yaml.Node, value: yaml.Node, label: str
) -> list[Fix]:
    lines = _lines_range(fm, key, value)
    removal = TextEdit(ctx.path, lines, "")
    source = ctx.doc.slice(lines)
    fixes = [Fix(f"Remove `{label}`", Applicability.UNSAFE, (removal,))]
    meta = ctx.path.parent / "EASEL-META.md"
    block = f"```yaml\n{source.rstrip()}\n```\n"
    existing = ctx.workspace.read(meta).doc if ctx.workspace.exists(meta) else None
    if existing is None:
        content = f"# EASEL-META\n\n来源与元信息（从 SKILL.md frontmatter 移出）。\n\n{block}"
        fixes.append(
            Fix(
                f"Move `{label}` into EASEL-META.md",
                Applicability.UNSAFE,
                (removal,),
                creates=(CreateFile(meta, content),),
            )
        )
    else:
        end = existing.end_position
        sep = "" if existing.text.endswith("\n") or not existing.text else "\n"
        fixes.append(
            Fix(
                f"Move `{label}` into EASEL-META.md",
                Applicability.UNSAFE,
                (removal, TextEdit(meta, Range(end, end), f"{sep}\n{block}")),
            )
        )
    return fixes


def _check_metadata(ctx: Context, fm: Frontmatter, value: yaml.Node) -> None:
    if not isinstance(value, yaml.MappingNode):
        return  # metadata of another shape: FM016 has nothing to say, FM006 does below
    for key, sub in mapping_items(value):
        name = str(key.value)
        rng = fm.node_range(key)
        if name in FORBIDDEN_METADATA_KEYS:
            ctx.report(
                "FM005",
                rng,
                f"forbidden key `metadata.{name}`: only `metadata.openclaw` is allowed",
                fixes=_forbidden_fixes(ctx, fm, key, sub, f"metadata.{name}"),
                help="provenance goes into EASEL-META.md; execution rules go into the body",
            )
        elif name != "openclaw":
            suggestions = closest(name, ["openclaw"])
            written = {str(k.value) for k, _ in mapping_items(value)}
            ctx.report(
                "FM006",
                rng,
                f"unknown key `metadata.{name}`: only `metadata.openclaw` is allowed",
                help=did_you_mean(suggestions),
                fixes=[
                    Fix(f"Rename to `{s}`", Applicability.UNSAFE, (TextEdit(ctx.path, rng, s),))
                    for s in suggestions
                    if s not in written
                ],
            )


@checker(FileKind.SKILL, codes=("FM008",))
def layer_value(ctx: Context) -> None:
    pair = ctx.frontmatter.get("layer")
    if pair is None or is_empty(pair[1]):
        return
    node = pair[1]
    value = scalar_text(node)
    rng = ctx.frontmatter.node_range(node)
    if value is None:
        ctx.report("FM008", rng, "`layer` must be a single word, one of " + ", ".join(LAYERS))
        return
    if value in LAYERS:
        return
    choices = ranked(value, LAYERS)
    ctx.report(
        "FM008",
        rng,
        f"invalid layer `{value}`: must be one of {', '.join(LAYERS)}",
        help=did_you_mean(closest(value, LAYERS, n=1, cutoff=0.5)),
        fixes=[
            Fix(f"Set layer to `{c}`", Applicability.UNSAFE, (TextEdit(ctx.path, rng, c),))
            for c in choices
        ],
    )


@checker(FileKind.SKILL, codes=("FM009", "FM010"))
def name_value(ctx: Context) -> None:
    pair = ctx.frontmatter.get("name")
    if pair is None or is_empty(pair[1]):
        return
    node = pair[1]
    name = scalar_text(node)
    if name is None:
        return
    rng = ctx.frontmatter.node_range(node)
    folder = ctx.path.parent.name
    if name != folder:
        ctx.report(
            "FM009",
            rng,
            f"name `{name}` differs from the skill folder `{folder}`",
            fixes=[
                Fix(
                    f"Set name to `{folder}`",
                    Applicability.SAFE,
                    (TextEdit(ctx.path, rng, folder),),
                )
            ],
        )
    if len(name) > 64:
        ctx.report("FM010", rng, f"name is {len(name)} characters long; the limit is 64")
    elif not NAME_FORMAT.fullmatch(name):
        ctx.report(
            "FM010",
            rng,
            f"name `{name}` is not lowercase kebab-case (`[a-z0-9]+(-[a-z0-9]+)*`)",
        )


@checker(FileKind.SKILL, codes=("FM011", "FM012", "FM013", "FM014", "FM015"))
def description_value(ctx: Context) -> None:
    fm = ctx.frontmatter
    pair = fm.get("description")
    if pair is None or is_empty(pair[1]):
        return
    node = pair[1]
    text = scalar_text(node)
    if text is None:
        return
    rng = fm.node_range(node)
    rng = _trim_to_content(ctx, rng)
    letters = [c for c in text if c.isalpha()]
    cjk = sum(1 for c in letters if _is_cjk(c))
    ratio = float(ctx.option("min-cjk-ratio"))
    if letters and cjk / len(letters) < ratio:
        ctx.report(
            "FM011",
            rng,
            f"description is {cjk * 100 // len(letters)} % CJK; the spec asks for Chinese "
            f"(at least {int(ratio * 100)} % of its letters)",
        )
    triggers = list(ctx.option("trigger-words"))
    # A folded block scalar puts a space wherever a line broke (`…缺失时， 使用`): words are
    # matched without white space.
    compact = _WHITE_SPACE.sub("", text)
    if not any(_WHITE_SPACE.sub("", w) in compact for w in triggers):
        ctx.report(
            "FM012",
            rng,
            "description says nothing about when to trigger the skill",
            help="add the situations or user wording, e.g. " + "、".join(triggers[:4]),
        )
    lo, hi = ctx.option("description-length")
    length = len(text)
    if length < lo or length > hi:
        ctx.report(
            "FM014",
            rng,
            f"description is {length} characters; keep it within {lo}..{hi}",
        )
    known = ctx.workspace.skills
    own = ctx.skill.name if ctx.skill else ctx.path.parent.name
    mentions = [m for m in SKILL_MENTION.finditer(text)]
    # Any whole-word mention of another workspace skill names a neighbour, backticked or not.
    names_neighbour = (
        any(m.group(0) in known and m.group(0) != own for m in _BARE_NAME.finditer(text))
        or _names_skills_by_kind(text)
        or _names_another_layer(text, _own_layer(fm))
    )
    boundary_words = list(ctx.option("boundary-words"))
    if not names_neighbour and not any(_WHITE_SPACE.sub("", w) in compact for w in boundary_words):
        ctx.report(
            "FM013",
            rng,
            "description draws no boundary with neighbouring skills",
            help="name the neighbour skill or say what it does not handle (不负责…，请用 `…`)",
        )
    if not known:
        return  # no skills index (a lone file): cannot tell which names exist
    source = ctx.doc.slice(fm.node_range(node))
    base = ctx.doc.offset_at(fm.node_range(node).start)
    former = _former_marker(tuple(ctx.option("former-skill-words")))
    for m in mentions:
        name = m.group(1) or m.group(2)
        if name in known or name == own or name in _NOT_SKILL_NAMES:
            continue
        if former is not None and introduced_as_former(text, m.start(), former):
            continue  # `合并了原 old-a 和 old-b`: names a skill that is gone, on purpose
        token = m.group(0)
        idx = source.find(token)
        where = ctx.doc.range_of(base + idx, base + idx + len(token)) if idx >= 0 else rng
        suggestions = closest(name, known)
        ctx.report(
            "FM015",
            where,
            f"description names skill `{name}`, which is not in the workspace",
            help=did_you_mean(suggestions),
        )


# The layers by the names descriptions use for them (`制作层负责生成`, `Lớp produce tạo nội dung`).
_LAYER_WORDS = {
    "discover": ("发现层",),
    "plan": ("策划层",),
    "produce": ("制作层",),
    "publish": ("发布层",),
    "attribute": ("归因层",),
}


def _own_layer(fm: Frontmatter) -> str | None:
    pair = fm.get("layer")
    return scalar_text(pair[1]) if pair is not None else None


def _names_another_layer(text: str, own: str | None) -> bool:
    """Work handed to another pipeline layer is a boundary too."""
    words = {m.group(0) for m in _BARE_NAME.finditer(text)}
    for layer, cjk_names in _LAYER_WORDS.items():
        if layer == own:
            continue
        if layer in words or any(name in text for name in cjk_names):
            return True
    return False


def _names_skills_by_kind(text: str) -> bool:
    for m in _GENERIC_NEIGHBOUR.finditer(text):
        before = text[: m.start()].rstrip()
        if not before.endswith(("本", "该", "此", "这个", "这")):
            return True
    return False


@lru_cache(maxsize=8)
def _former_marker(words: tuple[str, ...]) -> re.Pattern[str] | None:
    if not words:
        return None
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    # The word, a few CJK letters of its phrase (`前身是`, `原来的`), then the name.
    return re.compile(rf"(?:{alternatives})[\u4e00-\u9fff]{{0,3}}\s*`?\s*$")


def introduced_as_former(text: str, start: int, former: re.Pattern[str]) -> bool:
    """Whether the skill name at ``start`` follows a former-skill word, directly or as a later
    item of a list that one introduces (`原 old-a 和 old-b`)."""
    before = text[max(0, start - 200) : start]
    for _ in range(16):  # a list of at most so many names
        if former.search(before):
            return True
        tail = _LIST_TAIL.search(before)
        if tail is None:
            return False
        before = before[: tail.start()]
    return False


def _trim_to_content(ctx: Context, rng: Range) -> Range:
    """Block scalars end at the next line's column 0; point at the written text only."""
    if rng.end.character == 0 and rng.end.line > rng.start.line:
        last = rng.end.line - 1
        return Range(rng.start, Position(last, len(ctx.doc.line_text(last))))
    return rng


@lru_cache(maxsize=1)
def _openclaw_validator() -> Any:
    import jsonschema

    text = package_text("easel_ls.schemas", "openclaw-metadata.schema.json")
    schema = json.loads(text)
    return jsonschema.Draft202012Validator(schema)


_MAX_CONVERTED_NODES = 10_000


def _to_python(root: yaml.Node) -> Any:
    """A plain value for schema validation, bounded in depth and size.

    Aliases share composed nodes, so converting an alias bomb ("billion laughs") would expand
    it exponentially: past a fixed node budget the rest becomes None.
    """
    remaining = _MAX_CONVERTED_NODES

    def convert(node: yaml.Node, depth: int) -> Any:
        nonlocal remaining
        remaining -= 1
        if depth > 32 or remaining < 0:
            return None
        if isinstance(node, yaml.MappingNode):
            return {str(k.value): convert(v, depth + 1) for k, v in mapping_items(node)}
        if isinstance(node, yaml.SequenceNode):
            return [convert(c, depth + 1) for c in node.value[:1000]]
        return _scalar_to_python(node)

    return convert(root, 0)


def _scalar_to_python(node: yaml.Node) -> Any:
    tag = node.tag
    value = node.value
    try:
        if tag.endswith(":bool"):
            return str(value).lower() in ("true", "yes", "on")
        if tag.endswith(":int"):
            return int(str(value).replace("_", ""), 0)
        if tag.endswith(":float"):
            return float(value)
        if tag.endswith(":null"):
            return None
    except ValueError:
        return value
    return value


def _node_at(node: yaml.Node, path: list[Any]) -> tuple[yaml.Node, yaml.Node | None]:
    """(value node, its key node) at a JSON path within a composed YAML node."""
    key_node: yaml.Node | None = None
    for part in path:
        if isinstance(node, yaml.MappingNode) and isinstance(part, str):
            for k, v in mapping_items(node):
                if k.value == part:
                    node, key_node = v, k
                    break
            else:
                break
        elif (
            isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value)
        ):
            node, key_node = node.value[part], None
        else:
            break
    return node, key_node


@checker(FileKind.SKILL, codes=("FM016", "FM017"))
def openclaw_metadata(ctx: Context) -> None:
    fm = ctx.frontmatter
    meta = fm.get("metadata")
    if meta is None or not isinstance(meta[1], yaml.MappingNode):
        return
    found = next(((k, v) for k, v in mapping_items(meta[1]) if k.value == "openclaw"), None)
    if found is None:
        return
    key, node = found
    data = _to_python(node)
    for error in sorted(_openclaw_validator().iter_errors(data), key=lambda e: list(e.path)):
        target, _key = _node_at(node, list(error.absolute_path))
        rng = fm.node_range(target)
        message = _schema_message(error)
        if error.validator == "additionalProperties" and isinstance(target, yaml.MappingNode):
            allowed = list(error.schema.get("properties", {}))
            for k, _v in mapping_items(target):
                if k.value not in allowed:
                    suggestions = closest(str(k.value), allowed)
                    where = ".".join(str(p) for p in ["metadata.openclaw", *error.absolute_path])
                    ctx.report(
                        "FM016",
                        fm.node_range(k),
                        f"unknown key `{k.value}` in `{where}`",
                        help=did_you_mean(suggestions),
                    )
            continue
        ctx.report("FM016", rng, message)
    if isinstance(data, dict) and not any(k in data for k in ("os", "requires", "install")):
        ctx.report(
            "FM017",
            fm.node_range(key),
            "`metadata.openclaw` declares no runtime need (os, requires, install); "
            "the spec allows it only for those",
        )


def _schema_message(error: Any) -> str:
    where = ".".join(str(p) for p in ["metadata.openclaw", *error.absolute_path])
    if error.validator == "enum":
        allowed = ", ".join(str(v) for v in error.validator_value)
        extra = ""
        if "kind" in where:
            extra = " (OpenClaw silently drops other kinds)"
        return f"`{where}` is {error.instance!r}; must be one of {allowed}{extra}"
    if error.validator == "type":
        return f"`{where}` must be of type {error.validator_value}, not {type(error.instance).__name__}"
    if error.validator in ("required", "anyOf") and isinstance(error.instance, dict):
        kind = error.instance.get("kind")
        needs = {
            "brew": "formula or cask",
            "node": "package",
            "uv": "package",
            "go": "module",
            "download": "url",
        }
        if kind in needs:
            return f"install step of kind `{kind}` needs `{needs[kind]}`"
        return f"`{where}`: {error.message}"
    return f"`{where}`: {error.message}"
