"""`easel-ls sync`: the spec's `openclaw/sync.sh`. Mirrors the workspace's `skills/openclaw/`
and `skills/shared/` into OpenClaw's workspace (`~/.openclaw/workspace-easel/` unless
``--target``), at the same relative paths, so the commands in SKILL.md (`python
skills/shared/scripts/…`, run from the workspace root) work there as they do here.

- It refuses (exit 1) while `easel-ls check` finds errors in those folders, unless ``--force``:
  a broken skill synced is a broken skill the Agent runs.
- Each file is written to a temporary file beside its destination, then renamed over it, so
  OpenClaw never reads half a file. Files whose bytes and mode already match are left alone.
- ``--dry-run`` lists what would change (``+`` added, ``~`` changed, ``-`` deleted) and writes
  nothing.
- ``--delete`` also removes files that exist only in the target's `skills/openclaw/` and
  `skills/shared/` (without it they are listed, ``?``, and kept). Nothing outside those two
  folders of the target is ever written or deleted, and no path is followed out of the target
  through a symbolic link.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from easel_ls.fixes import atomic_write_bytes
from easel_ls.workspace import find_root, is_within, path_escapes

SYNCED = ("skills/openclaw", "skills/shared")
DEFAULT_TARGET = Path("~/.openclaw/workspace-easel")
# Build and tool litter that is not part of a skill.
_SKIPPED_DIRS = frozenset(
    {
        "__pycache__",
        ".git",
        ".easel-ls-cache",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        "node_modules",
    }
)
_SKIPPED_FILES = frozenset({".DS_Store", "Thumbs.db"})
_SKIPPED_SUFFIXES = (".pyc", ".pyo")

EXIT_CLEAN, EXIT_FAILED, EXIT_ERROR = 0, 1, 2


class SyncError(Exception):
    """The sync cannot go ahead safely (nothing was written)."""


@dataclass(frozen=True)
class Change:
    kind: Literal["add", "change", "delete", "extra"]
    rel: str  # posix path relative to the workspace root (and to the target)
    source: Path | None
    dest: Path


@dataclass
class Plan:
    root: Path
    target: Path
    changes: list[Change] = field(default_factory=list)
    unchanged: int = 0
    warnings: list[str] = field(default_factory=list)
    folders: list[str] = field(default_factory=list)  # the synced folders the workspace has

    def count(self, kind: str) -> int:
        return sum(change.kind == kind for change in self.changes)


_MARKS = {"add": "+", "change": "~", "delete": "-", "extra": "?"}


def _skipped(name: str, is_dir: bool) -> bool:
    if is_dir:
        return name in _SKIPPED_DIRS
    return name in _SKIPPED_FILES or name.endswith(_SKIPPED_SUFFIXES)


def _walk_files(top: Path) -> list[Path]:
    """Files below ``top`` (symbolic links included as entries, never entered), sorted."""
    found: list[Path] = []
    for folder, dirs, files in os.walk(top, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not _skipped(d, True))
        here = Path(folder)
        for name in sorted(files):
            if not _skipped(name, False):
                found.append(here / name)
        # A symbolic link to a folder is listed among dirs by os.walk: keep it as an entry so
        # the source side can report it and the target side can delete it.
        for name in list(dirs):
            if (here / name).is_symlink():
                dirs.remove(name)
                found.append(here / name)
    return sorted(found)


def _same(source: Path, dest: Path) -> bool:
    try:
        if dest.is_symlink() or not dest.is_file():
            return False
        src_stat, dest_stat = source.stat(), dest.stat()
        if src_stat.st_size != dest_stat.st_size:
            return False
        if stat.S_IMODE(src_stat.st_mode) != stat.S_IMODE(dest_stat.st_mode):
            return False
        return source.read_bytes() == dest.read_bytes()
    except OSError:
        return False


def plan_sync(root: Path, target: Path, *, delete: bool = False) -> Plan:
    """What a sync of ``root`` into ``target`` would do; raises SyncError when it must not."""
    root = root.resolve()
    target = target.expanduser().resolve()
    target_text = str(target)
    plan = Plan(root, target)
    sources = [(rel, root / rel) for rel in SYNCED if (root / rel).is_dir()]
    if not sources:
        raise SyncError(f"no {' or '.join(s + '/' for s in SYNCED)} in {root}")
    # Into the workspace itself or its skills/ it would copy skills into their own tree.
    if target == root:
        raise SyncError(f"the target {target} is the workspace itself")
    if is_within(target_text, str(root / "skills")):
        raise SyncError(f"the target {target} lies inside the workspace's own skills/")
    plan.folders = [rel for rel, _ in sources]
    for rel, folder in sources:
        dest_folder = target / rel
        if is_within(str(dest_folder), str(folder)) or is_within(str(folder), str(dest_folder)):
            raise SyncError(f"the target {target} overlaps the workspace's {rel}/")
        if path_escapes(target_text, str(dest_folder)):
            raise SyncError(f"{dest_folder} leads outside the target through a symbolic link")
        seen: set[str] = set()
        for source in _walk_files(folder):
            rel_path = source.relative_to(root).as_posix()
            dest = target / rel_path
            if source.is_symlink():
                resolved = source.resolve()
                if not resolved.is_file():
                    plan.warnings.append(f"{rel_path}: a broken or folder symbolic link; skipped")
                    continue
                if not is_within(str(resolved), str(root)):
                    plan.warnings.append(
                        f"{rel_path}: a symbolic link to outside the workspace; skipped"
                    )
                    continue
            seen.add(rel_path)
            if _escapes(target_text, dest):
                raise SyncError(f"{dest} leads outside the target through a symbolic link")
            if dest.is_dir() and not dest.is_symlink():
                raise SyncError(f"{dest} is a folder in the target, but a file in the workspace")
            if not dest.exists() and not dest.is_symlink():
                plan.changes.append(Change("add", rel_path, source, dest))
            elif _same(source, dest):
                plan.unchanged += 1
            else:
                plan.changes.append(Change("change", rel_path, source, dest))
        if dest_folder.is_dir() and not dest_folder.is_symlink():
            for dest in _walk_files(dest_folder):
                rel_path = dest.relative_to(target).as_posix()
                if rel_path in seen:
                    continue
                if _blocks_a_file(rel_path, seen):
                    raise SyncError(
                        f"{dest} is a file in the target, but a folder in the workspace"
                    )
                kind: Literal["delete", "extra"] = "delete" if delete else "extra"
                plan.changes.append(Change(kind, rel_path, None, dest))
    plan.changes.sort(key=lambda change: change.rel)
    return plan


def _escapes(target: str, dest: Path) -> bool:
    """Whether writing or deleting ``dest`` would act outside ``target``: through a folder on
    the way that is a symbolic link out of it. ``dest`` itself may be a link: it is replaced
    or unlinked, never followed."""
    return path_escapes(target, str(dest.parent))


def _blocks_a_file(rel_path: str, seen: set[str]) -> bool:
    prefix = rel_path + "/"
    return any(other.startswith(prefix) for other in seen)


def _copy(source: Path, dest: Path) -> None:
    """``dest`` becomes a copy of ``source`` (bytes and permission bits) in one rename."""
    atomic_write_bytes(dest, source.read_bytes(), mode=stat.S_IMODE(source.stat().st_mode))


def apply_sync(plan: Plan) -> None:
    target = str(plan.target)
    for change in plan.changes:
        # Checked again at write time: the target may have changed since the plan.
        if _escapes(target, change.dest):
            raise SyncError(f"{change.dest} leads outside the target through a symbolic link")
        if change.kind in ("add", "change"):
            assert change.source is not None
            _copy(change.source, change.dest)
        elif change.kind == "delete":
            with contextlib.suppress(FileNotFoundError):
                change.dest.unlink()  # a symbolic link is removed, never followed
            _prune_empty(change.dest.parent, plan.target)


def _prune_empty(folder: Path, target: Path) -> None:
    """Remove the folders a deletion left empty, up to (not including) the synced folders."""
    stops = {target / rel for rel in SYNCED}
    while folder not in stops and is_within(str(folder), str(target)) and folder != target:
        try:
            folder.rmdir()
        except OSError:  # not empty, or gone
            return
        folder = folder.parent


def render_plan(plan: Plan, *, dry_run: bool) -> str:
    lines = [f"{_MARKS[change.kind]} {change.rel}" for change in plan.changes]
    added, changed, deleted = plan.count("add"), plan.count("change"), plan.count("delete")
    verb = "Would sync" if dry_run else "Synced"
    folders = " and ".join(f"{rel}/" for rel in plan.folders)
    summary = (
        f"{verb} {folders} to {plan.target}: {added} added, {changed} changed, "
        f"{deleted} deleted, {plan.unchanged} unchanged."
    )
    extra = plan.count("extra")
    if extra:
        summary += f" {extra} only in the target (kept; --delete removes them)."
    if dry_run:
        summary += " Nothing was written (--dry-run)."
    return "\n".join([*lines, summary]) + "\n"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="easel-ls sync",
        description="Mirror the workspace's skills/openclaw/ and skills/shared/ into OpenClaw's "
        "workspace (the spec's openclaw/sync.sh). Refuses while `easel-ls check` finds errors "
        "in them, unless --force.",
    )
    parser.add_argument(
        "workspace",
        nargs="?",
        type=Path,
        help="the workspace to sync (default: the one holding the current folder)",
    )
    parser.add_argument(
        "--target",
        type=Path,
        default=DEFAULT_TARGET,
        help=f"where to mirror them (default: {DEFAULT_TARGET})",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="list what would change; write nothing"
    )
    parser.add_argument(
        "--delete",
        action="store_true",
        help="also delete files found only in the target's skills/openclaw/ and skills/shared/",
    )
    parser.add_argument("--force", action="store_true", help="sync even when the check fails")
    parser.add_argument("--config", type=Path, help="use this config file for the check")
    parser.add_argument("--no-cache", action="store_true", help="check without the on-disk cache")
    return parser


def _check_errors(root: Path, args: argparse.Namespace) -> tuple[int, int, str]:
    """(errors, other findings, their concise report) of `easel-ls check` on the synced
    folders."""
    from easel_ls import cli
    from easel_ls.findings import Severity
    from easel_ls.report import render

    check_args = cli.build_check_parser().parse_args([])
    check_args.config, check_args.no_cache, check_args.no_progress = (
        args.config,
        args.no_cache,
        True,
    )
    paths = [root / rel for rel in SYNCED if (root / rel).is_dir()]
    workspace = cli.open_workspace(check_args, paths)
    findings = cli.collect_findings(workspace, paths, check_args)
    errors = sum(f.severity is Severity.ERROR for f in findings)
    report = render(findings, "concise", cli.report_context(workspace, check_args))
    return errors, len(findings) - errors, report


def sync_main(argv: list[str]) -> int:
    from easel_ls.config import ConfigError

    args = build_parser().parse_args(argv)
    start = args.workspace or Path.cwd()
    if not start.exists():
        print(f"easel-ls sync: no such folder: {start}", file=sys.stderr)
        return EXIT_ERROR
    root = find_root(start)
    try:
        plan = plan_sync(root, args.target, delete=args.delete)
        errors, others, report = _check_errors(root, args)
    except (SyncError, ConfigError, OSError) as exc:
        print(f"easel-ls sync: {exc}", file=sys.stderr)
        return EXIT_ERROR
    refused = errors > 0 and not args.force
    if errors or others:
        sys.stderr.write(report)
    if args.dry_run or not refused:
        sys.stdout.write(render_plan(plan, dry_run=args.dry_run))
        sys.stdout.flush()
    word = "error" if errors == 1 else "errors"
    if refused:
        print(
            f"easel-ls sync: refusing to sync: `easel-ls check` finds {errors} {word} in "
            f"{' and '.join(s + '/' for s in SYNCED)} (listed above); fix them, or pass --force",
            file=sys.stderr,
        )
        return EXIT_FAILED
    if errors:
        print(f"easel-ls sync: syncing despite {errors} {word} (--force)", file=sys.stderr)
    for warning in plan.warnings:
        print(f"easel-ls sync: {warning}", file=sys.stderr)
    if args.dry_run:
        return EXIT_CLEAN
    try:
        apply_sync(plan)
    except (SyncError, OSError) as exc:
        print(f"easel-ls sync: {exc}", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_CLEAN
