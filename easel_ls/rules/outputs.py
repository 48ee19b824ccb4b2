"""OP: the `outputs/` layout (spec 产物管理): one project = one `outputs/<主题>/` folder with
finished files at its root, intermediates in `assets/`, one hidden `.easel.json`, and system
state only in registered `_` folders.

Where a finding sits:
- file-level (OP003, OP005): line 1 of the file itself, reported by that file's own check;
- folder-level (OP001, OP002, OP004, OP007): on the folder's `.easel.json` when it exists, else
  on line 1 of the first file inside that can be read (walk order, names sorted). Paths whose own
  check cannot run (a binary hidden file, an empty hidden folder) are reported by that anchor.
OP006 reads SKILL.md, references and scripts for output paths they teach.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from easel_ls.findings import Applicability, CreateFile, Fix, Range, RenameFile
from easel_ls.model.placeholders import PlaceholderNouns
from easel_ls.rules.context import Context, FileKind, checker
from easel_ls.workspace import Workspace

MANIFEST_NAME = ".easel.json"
ASSETS_DIR = "assets"
_WALK_LIMIT = 5000  # entries per project folder: bounds the work on a huge folder


def outputs_relative(ws: Workspace, path: Path) -> tuple[str, ...] | None:
    """``path``'s parts below the outputs folder, or None when it is not under it."""
    try:
        return path.relative_to(ws.outputs_dir()).parts
    except ValueError:
        return None


def is_manifest_scratch(name: str) -> bool:
    """The lock and temp files manifest.py (and our atomic writer) hold for a moment."""
    if name == MANIFEST_NAME + ".lock":
        return True
    return name.endswith(".tmp") and (
        name.startswith(MANIFEST_NAME + ".") or name.startswith("." + MANIFEST_NAME + ".")
    )


def hidden_part(parts: tuple[str, ...]) -> int | None:
    """Index of the first hidden part of an outputs-relative path; a project's manifest and the
    manifest's lock/temp files are not hidden paths."""
    for index, part in enumerate(parts):
        if not part.startswith("."):
            continue
        is_last = index == len(parts) - 1
        if is_last and index == 1 and (part == MANIFEST_NAME or is_manifest_scratch(part)):
            return None
        return index
    return None


def is_system_dir(name: str) -> bool:
    return name.startswith("_")


@dataclass
class ProjectListing:
    """One walk of a project (or system) folder, sorted like ``Workspace.iter_files``."""

    folder: Path
    files: list[Path] = field(default_factory=list)  # every file, walk order
    root_files: list[Path] = field(default_factory=list)
    root_dirs: list[Path] = field(default_factory=list)
    empty_dirs: list[Path] = field(default_factory=list)


def list_project(folder: Path) -> ProjectListing:
    listing = ProjectListing(folder)
    seen = 0
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        dirnames.sort()
        here = Path(dirpath)
        if here == folder:
            listing.root_dirs = [here / d for d in dirnames]
        if not dirnames and not filenames and here != folder:
            listing.empty_dirs.append(here)
        for name in sorted(filenames):
            path = here / name
            listing.files.append(path)
            if here == folder:
                listing.root_files.append(path)
        seen += len(dirnames) + len(filenames)
        if seen > _WALK_LIMIT:
            break
    return listing


def folder_anchor(ws: Workspace, listing: ProjectListing) -> Path | None:
    """Where folder-level findings sit: the manifest, else the first readable file."""
    manifest = listing.folder / MANIFEST_NAME
    if ws.exists(manifest):
        return manifest
    for path in listing.files:
        if ws.read(path).doc is not None:
            return path
    return None


def readable(ws: Workspace, path: Path) -> bool:
    return ws.read(path).doc is not None


@checker(FileKind.OUTPUT, FileKind.MANIFEST, codes=("OP003", "OP005"))
def file_placement(ctx: Context) -> None:
    parts = outputs_relative(ctx.workspace, ctx.path)
    if parts is None:
        return
    outputs_name = ctx.option("outputs-dir")
    if len(parts) == 1 and not is_manifest_scratch(parts[0]):
        ctx.report(
            "OP003",
            Range.line_start(0),
            f"`{parts[0]}` sits directly in `{outputs_name}/`; the content library only shows "
            f"project folders: move it into `{outputs_name}/<主题>/` "
            f"(or `{outputs_name}/_scratch/` for scratch files)",
        )
    hidden = hidden_part(parts)
    if hidden is not None and not is_manifest_scratch(parts[-1]):
        ctx.report("OP005", Range.line_start(0), _hidden_message(parts, hidden, outputs_name))


def _hidden_message(parts: tuple[str, ...], hidden: int, outputs_name: str) -> str:
    shown = "/".join(parts[: hidden + 1])
    return (
        f"hidden path `{outputs_name}/{shown}`: the only hidden file of a project is its "
        "`.easel.json`; hidden results are lost to the content library (move it into `assets/`)"
    )


@checker(FileKind.OUTPUT, FileKind.MANIFEST, codes=("OP001", "OP002", "OP004", "OP005", "OP007"))
def folder_layout(ctx: Context) -> None:
    ws = ctx.workspace
    parts = outputs_relative(ws, ctx.path)
    if parts is None or len(parts) < 2 or parts[0].startswith("."):
        return  # root files are OP003; a hidden top folder is OP005 on its files
    folder = ws.outputs_dir() / parts[0]
    if ctx.path.name != MANIFEST_NAME and ws.exists(folder / MANIFEST_NAME):
        return  # the manifest is the anchor; skip the folder walk
    listing = list_project(folder)
    if folder_anchor(ws, listing) != ctx.path:
        return
    name = parts[0]
    outputs_name = ctx.option("outputs-dir")
    anchor = Range.line_start(0)
    if is_system_dir(name):
        registered = list(ctx.option("system-dirs"))
        if name not in registered:
            ctx.report(
                "OP002",
                anchor,
                f"`{outputs_name}/{name}/` is not a registered system folder "
                f"(registered: {', '.join(registered)})",
            )
    else:
        generic = {n.lower() for n in ctx.option("generic-project-names")}
        if name.lower() in generic:
            ctx.report(
                "OP001",
                anchor,
                f"project folder `{outputs_name}/{name}/` has a generic name; name it after its "
                f"topic (test or scratch output goes to `{outputs_name}/_scratch/`)",
            )
        if not ws.exists(folder / MANIFEST_NAME):
            ctx.report(
                "OP004",
                anchor,
                f"project `{outputs_name}/{name}/` has no `.easel.json`",
                fixes=_create_manifest_fix(ctx, folder),
            )
        for sub in listing.root_dirs:
            if sub.name == ASSETS_DIR or sub.name.startswith("."):
                continue
            ctx.report(
                "OP007",
                anchor,
                f"folder `{sub.name}/` at the root of project `{name}`: intermediates go "
                f"into `assets/` (finished files stay at the project root)",
                fixes=[
                    Fix(
                        f"Move `{sub.name}/` into `assets/`",
                        Applicability.UNSAFE,
                        renames=(RenameFile(sub, folder / ASSETS_DIR / sub.name),),
                    )
                ],
            )
    _report_unvisited_hidden(ctx, listing, outputs_name)


def _report_unvisited_hidden(ctx: Context, listing: ProjectListing, outputs_name: str) -> None:
    """Hidden paths whose own check never runs: unreadable files and empty folders."""
    ws = ctx.workspace
    candidates = [p for p in listing.files if not readable(ws, p)] + listing.empty_dirs
    for path in candidates:
        parts = outputs_relative(ws, path)
        if parts is None or is_manifest_scratch(parts[-1]):
            continue
        hidden = hidden_part(parts)
        if hidden is None:
            continue
        finding = ctx.finding(
            "OP005", Range.line_start(0), _hidden_message(parts, hidden, outputs_name)
        )
        finding.path = path
        ctx.findings.append(finding)


def _create_manifest_fix(ctx: Context, folder: Path) -> list[Fix]:
    from easel_ls.rules.manifest import shared_modules

    manifest = shared_modules(ctx).manifest
    try:
        content = manifest.dumps(manifest.apply_meta({}, folder.name, {}))
    except Exception:  # a topic manifest.py refuses: no fix rather than a wrong one
        return []
    return [
        Fix(
            "Create .easel.json",
            Applicability.UNSAFE,
            creates=(CreateFile(folder / MANIFEST_NAME, content),),
        )
    ]


# --- OP006: output paths taught by skills ------------------------------------------------------

# Marked placeholders in output paths: `<主题>`, `{topic}`, `$OUT`, globs, `...`, `%s`, `%(x)s`.
_PLACEHOLDER = re.compile(r"[<{$*…]|\.\.\.|%s|%\(")


@lru_cache(maxsize=8)
def _path_token(outputs_name: str) -> re.Pattern[str]:
    prefix = re.escape(outputs_name.strip("/"))
    # The literal first, then a look back past it at the character before: a pattern that starts
    # with a literal is searched for quickly, one that starts with a lookbehind tries every offset.
    return re.compile(
        rf"{prefix}/(?<![\w./\\-]{prefix}/)(?P<rest>[^\s`'\"()\[\]，。、；：！？）（】【》《]*)"
    )


@checker(FileKind.SKILL, FileKind.REFERENCE, FileKind.SCRIPT, codes=("OP006",))
def documented_output_paths(ctx: Context) -> None:
    from easel_ls.vendor import load_shared

    if ctx.kind is FileKind.SCRIPT and ctx.skill is None:
        return  # shared scripts define these rules and test them with bad paths on purpose
    outputs_name = str(ctx.option("outputs-dir")).strip("/")
    text = ctx.doc.text
    if f"{outputs_name}/" not in text:
        return  # every path token starts so; most files never mention outputs
    generic = {n.lower() for n in ctx.option("generic-project-names")}
    system_bare = {d.lstrip("_").lower(): d for d in ctx.option("system-dirs")}
    skill_names = ctx.workspace.skills  # a name -> skill mapping: membership is all we need
    file_suffixes = load_shared(None).output_paths.FILE_SUFFIXES
    nouns = ctx.placeholder_nouns
    for match in _path_token(outputs_name).finditer(text):
        rest = match.group("rest").rstrip(".,;:")
        segments = [s for s in rest.split("/") if s]
        if not segments:
            continue
        first = segments[0]
        if _is_placeholder(first, nouns):
            # A placeholder names the project (`outputs/<主题>/`, `outputs/书名/chapters/`);
            # only a second one that names the topic again doubles it.
            problem = _doubled_topic(first, segments, rest.endswith("/"), nouns)
        else:
            problem = _path_problem(
                first, segments, rest, generic, system_bare, skill_names, file_suffixes
            )
        if problem is None:
            continue
        start = match.start()
        end = match.start("rest") + len(rest)
        shown = text[start:end]
        ctx.report("OP006", ctx.doc.range_of(start, end), f"`{shown}`: {problem}")


def _is_placeholder(segment: str, nouns: PlaceholderNouns) -> bool:
    return _PLACEHOLDER.search(segment) is not None or nouns.match(segment)


_TOPIC_WORDS = ("主题", "topic")


def _doubled_topic(
    first: str, segments: list[str], ends_as_folder: bool, nouns: PlaceholderNouns
) -> str | None:
    """`outputs/主题名/<主题>/`: two placeholders for one project folder."""
    if len(segments) < 2 or (len(segments) == 2 and not ends_as_folder):
        return None  # `outputs/<主题>/<文件名>.md`: the second one is the file
    second = segments[1]
    if not _is_placeholder(second, nouns):
        return None
    if not any(w in second.lower() for w in _TOPIC_WORDS) and second != first:
        return None  # `outputs/<主题>/<章节>/`: a folder inside the project
    return (
        f"the project folder is written twice (`{first}/{second}/`); write `outputs/<主题>/` once"
    )


def _path_problem(
    first: str,
    segments: list[str],
    rest: str,
    generic: set[str],
    system_bare: dict[str, str],
    skill_names: Collection[str],
    file_suffixes: frozenset[str],
) -> str | None:
    lowered = first.lower()
    if len(segments) == 1 and not rest.endswith("/") and "." in first:
        suffix = first.rsplit(".", 1)[1].lower()
        if suffix in file_suffixes and first.startswith("_"):
            return (
                "system state as a file at the outputs root; keep it in a registered system "
                "folder (`outputs/_publish/…`, `outputs/_analytics/…`)"
            )
        if suffix in file_suffixes:
            return "a file directly in the outputs folder; write `outputs/<主题>/` instead"
    if lowered in generic:
        return f"`{first}` is a generic project name; projects are named after their topic"
    if lowered in system_bare:
        return f"system state lives in `{system_bare[lowered]}`, not `{first}`"
    if first in skill_names:
        return f"project folder named after the skill `{first}`; name it after the topic"
    return None
