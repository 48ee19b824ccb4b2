"""RS — references and resources: links, mentioned paths, orphans, cross-skill use, escapes."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

from easel_ls.findings import Applicability, CreateFile, Fix, Position, Range
from easel_ls.rules.context import Context, FileKind, checker
from easel_ls.suggest import closest, did_you_mean
from easel_ls.workspace import SKILL_FILE, Skill, path_escapes

_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_PLACEHOLDER = re.compile(r"<[^>]*>|\{[^}]*\}|\$\{?\w+|\.\.\.|…|主题名")
GLOB = re.compile(r"[*?\[\]]")
# `references/x.md`, `scripts/a.py`, `skills/…` written in prose or a code span.
MENTION = re.compile(
    r"(?<![\w./\-])((?:references|scripts|skills)/[^\s`'\"()<>{}\[\]，。；：、！？（）《》「」]*)"
)
TRAILING_PUNCTUATION = ".,;:!?)'\"，。；：、！？）"


def is_placeholder(text: str) -> bool:
    return bool(_PLACEHOLDER.search(text))


def escapes(root: Path, target: Path) -> bool:
    """True when ``target`` lies outside ``root``, lexically or through a symlink (rules use
    ``Workspace.escapes``, which memoises symlink checks during a batch run)."""
    return path_escapes(str(root), str(target))


def link_target_path(target: str) -> str | None:
    """The file part of a relative link, or None for URLs, anchors, mail and placeholders."""
    if not target or target.startswith("#") or _SCHEME.match(target) or target.startswith("//"):
        return None
    path = unquote(target.split("#", 1)[0].split("?", 1)[0])
    if not path or is_placeholder(path):
        return None
    return path


def _reference_stub(path: Path) -> str:
    title = path.stem.replace("-", " ").replace("_", " ")
    return f"# {title}\n\n"


def _create_reference_fix(ctx: Context, target: Path) -> list[Fix]:
    if ctx.skill is None or target.suffix.lower() != ".md":
        return []
    try:
        rel = target.relative_to(ctx.skill.folder)
    except ValueError:
        return []
    if not rel.parts or rel.parts[0] != "references":
        return []
    return [
        Fix(
            f"Create {rel.as_posix()}",
            Applicability.UNSAFE,
            creates=(CreateFile(target, _reference_stub(target)),),
        )
    ]


def _other_skill(ctx: Context, target: Path) -> str | None:
    """The name of another skill whose folder holds ``target``."""
    skill = ctx.workspace.indexed_skill_holding(target)
    if skill is None or (ctx.skill is not None and skill.folder == ctx.skill.folder):
        return None
    return skill.name


def _siblings(ctx: Context, folder: Path) -> list[str]:
    return [p.name for p in ctx.workspace.list_dir(folder)]


@checker(FileKind.SKILL, FileKind.REFERENCE, codes=("RS001", "RS004", "RS005"))
def links(ctx: Context) -> None:
    base = ctx.path.parent
    for link in ctx.markdown.links:
        rel = link_target_path(link.target)
        if rel is None:
            continue
        target = Path(rel) if os.path.isabs(rel) else base / rel
        if ctx.workspace.escapes(target):
            ctx.report(
                "RS005",
                link.range,
                f"link `{link.target}` resolves outside the workspace; it is never read",
            )
            continue
        target = Path(os.path.normpath(target))
        ctx.workspace.note_dependency(target, ctx.path)
        other = _other_skill(ctx, target)
        if other is not None:
            ctx.report(
                "RS004",
                link.range,
                f"link into another skill's folder (`{other}`): skills must stay independent",
                help="copy what you need into this skill's references/, or move it to skills/shared/",
            )
        if ctx.workspace.exists(target):
            continue
        suggestions = closest(target.name, _siblings(ctx, target.parent))
        ctx.report(
            "RS001",
            link.range,
            f"broken link: `{rel}` does not exist",
            fixes=_create_reference_fix(ctx, target),
            help=did_you_mean(suggestions),
        )


def _command_span_ranges(ctx: Context) -> set[tuple[int, int]]:
    return {
        (inv.script.range.start.line, inv.script.range.start.character)
        for inv in ctx.invocations
        if inv.source == "span"
    }


@checker(FileKind.SKILL, FileKind.REFERENCE, codes=("RS002",))
def mentioned_paths(ctx: Context) -> None:
    if ctx.skill is None:
        return
    md = ctx.markdown
    command_spans = _command_span_ranges(ctx)
    # Only text with a `/` can mention a path: the others' ranges are never worked out.
    pieces: list[tuple[str, Range]] = []
    for span in md.code_spans:
        if "/" not in span.text:
            continue
        start = span.range.start
        inside_command = any(
            line == start.line and start.character <= col <= span.range.end.character
            for line, col in command_spans
        )
        if not inside_command:
            pieces.append((span.text, span.range))
    pieces.extend((run.text, run.range) for run in md.runs_containing("/"))
    for text, rng in pieces:
        for m in MENTION.finditer(text):
            if text[m.end(1) : m.end(1) + 1] in _TEMPLATE_OPENERS:
                continue  # `references/theme-{名称}.md`: a family of files, named by a template
            raw = m.group(1).rstrip(TRAILING_PUNCTUATION)
            if not raw or GLOB.search(raw) or is_placeholder(raw) or raw.endswith("/."):
                continue
            path_text = raw.rstrip("/")
            if path_text in ("references", "scripts", "skills"):
                continue
            owner = (
                None if raw.startswith("skills/") else _skill_named_before(ctx, text, m.start(1))
            )
            if owner is not None:
                base = owner.folder  # `clip-studio / references/timing.md`: that skill's file
            else:
                base = ctx.root if raw.startswith("skills/") else ctx.skill.folder
            target = base / path_text
            if ctx.workspace.escapes(target):
                continue
            ctx.workspace.note_dependency(target, ctx.path)
            if ctx.workspace.exists(target):
                continue
            where = _sub_range(ctx, rng, text, m.start(1), m.start(1) + len(raw))
            suggestions = closest(target.name, _siblings(ctx, target.parent))
            ctx.report(
                "RS002",
                where,
                f"`{raw}` does not exist" + (f" in `{owner.name}`" if owner is not None else ""),
                fixes=_create_reference_fix(ctx, target),
                help=did_you_mean(suggestions),
            )


def _sub_range(ctx: Context, rng: Range, text: str, start: int, end: int) -> Range:
    """Range of text[start:end] when ``text`` is the exact document slice of ``rng``."""
    begin = ctx.doc.offset_at(rng.start)
    if ctx.doc.text[begin : begin + len(text)] == text:
        return ctx.doc.range_of(begin + start, begin + end)
    # The piece was normalised (a code span across lines): find it in the slice.
    source = ctx.doc.slice(rng)
    idx = source.find(text[start:end])
    if idx >= 0:
        return ctx.doc.range_of(begin + idx, begin + idx + end - start)
    return rng


# A skill's name right before a path, joined by a slash, `的` or a colon: the path is that skill's.
_SKILL_BEFORE = re.compile(
    r"(?<![A-Za-z0-9_.\-])([A-Za-z0-9][A-Za-z0-9_.\-]*)[ \t]*(?:/|的|:|：)[ \t]*$"
)


def _skill_named_before(ctx: Context, text: str, start: int) -> Skill | None:
    m = _SKILL_BEFORE.search(text, max(0, start - 80), start)
    if m is None:
        return None
    skill = ctx.workspace.skills.get(m.group(1))
    return skill if skill is not None and skill != ctx.skill else None


def _mentions(text: str, rel: str, name: str) -> bool:
    if rel in text or name in text:
        return True
    if "{" not in text and "<" not in text:
        return False
    # A template naming a family of files (`references/theme-{名称}.md`) names each of them.
    return any(
        re.fullmatch(rf"{re.escape(m.group(1))}[^/]+{re.escape(m.group(2))}", rel)
        for m in _TEMPLATE_MENTION.finditer(text)
        if m.group(1).count("/") == rel.count("/")
    )


# `references/theme-` right before a `{…}` or `<…>` placeholder, then the rest of the name.
_TEMPLATE_OPENERS = frozenset("{<[")
_TEMPLATE_MENTION = re.compile(
    r"(?<![\w./\-])((?:references|scripts)/[^\s`'\"()<>{}\[\]]*)"
    r"(?:\{[^{}\s/]+\}|<[^<>\s/]+>)([^\s`'\"()<>{}\[\]/]*)"
)


# Files whose text may mention a resource of the skill (binaries and data are not read).
_SPEAKING_SUFFIXES = frozenset(
    {".md", ".py", ".sh", ".prompt", ".expected", ".txt", ".yaml", ".yml", ".toml", ".json"}
)
_SPEAKING_LIMIT = 400  # files per skill folder: a vendored tree inside a skill stays cheap


def _speaking_files(ctx: Context, folder: Path) -> Iterator[Path]:
    """SKILL.md, then (only when it does not mention the file) the rest of the folder: most
    resources are named in SKILL.md, and listing a skill folder is the costly part."""
    skill_md = folder / SKILL_FILE
    yield skill_md
    listed = 0
    for path in ctx.workspace.list_dir(folder, "*", recursive=True):
        if listed >= _SPEAKING_LIMIT:
            return
        if path != ctx.path and path != skill_md and path.suffix.lower() in _SPEAKING_SUFFIXES:
            listed += 1
            yield path


def _posix_below(path: Path, folder: Path) -> str:
    """``path.relative_to(folder).as_posix()``; string slicing in the common case."""
    text, base = str(path), str(folder)
    if text.startswith(base + os.sep) and len(text) > len(base) + 1:
        return text[len(base) + 1 :].replace(os.sep, "/")
    return path.relative_to(folder).as_posix()


@checker(FileKind.REFERENCE, FileKind.SCRIPT, codes=("RS003",))
def orphan_resource(ctx: Context) -> None:
    skill = ctx.skill
    if skill is None:
        return
    rel = _posix_below(ctx.path, skill.folder)
    if ctx.path.name.startswith(("_", ".")) and ctx.path.suffix == ".py":
        return  # private helper modules are imported, not documented
    name = ctx.path.name
    ws = ctx.workspace
    # Everything the skill folder says counts: SKILL.md first (where most mentions are), then
    # its references, AGENTS.md and other notes, tests and the other scripts.
    for path in _speaking_files(ctx, skill.folder):
        ws.note_dependency(path, ctx.path)
        if _mentions(ws.text_of(path) or "", rel, name):
            return
    if ctx.kind is FileKind.SCRIPT and ctx.path.suffix == ".py":
        # A module imported by a documented script of the same skill is in use.
        module = ctx.path.stem
        pattern = re.compile(
            rf"^\s*(?:from\s+{re.escape(module)}\b|import\s+{re.escape(module)}\b)", re.M
        )
        for path in ws.list_dir(ctx.path.parent, "*.py"):
            if path != ctx.path and pattern.search(ws.text_of(path) or ""):
                return
    what = "reference" if ctx.kind is FileKind.REFERENCE else "script"
    ctx.report(
        "RS003",
        Range(Position(0, 0), Position(0, 0)),
        f"orphan {what}: nothing in the skill folder of `{skill.name}` (SKILL.md, references, "
        f"notes, tests, scripts) mentions `{rel}`",
        help=f"link it from SKILL.md (e.g. `[…]({rel})`) or delete it",
    )
