"""`easel-ls check --watch`: check, then after every change re-check what it affects and print
the whole report again, until Ctrl-C.

What a change affects comes from the same dependency map the language server keeps
(``Workspace.dependents``): every document's check records what it read, probed or listed, and
the rules name their targets with ``note_dependency``. Editing a script re-checks the SKILL.md
files that call it, creating `references/x.md` re-checks the links to it, and a config change
re-checks everything. Changes are found by polling file stamps: the standard library only, and
it behaves the same on every platform and file system (network mounts included).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Iterable
from pathlib import Path

from easel_ls.config import CONFIG_FILES, ConfigError
from easel_ls.engine import check_path
from easel_ls.findings import Finding
from easel_ls.rules.context import FileKind, classify
from easel_ls.workspace import SKILL_FILE, Workspace

POLL_INTERVAL_S = 0.5
# After a change is seen, wait this long for the rest of it (an editor saving several files,
# a `git checkout`) so that one report follows one change.
SETTLE_S = 0.15

Stamp = tuple[int, int, int]  # (mtime_ns, size, inode): an atomic replace changes the inode


def _stamp(path: Path) -> Stamp | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


class Watcher:
    """The findings of every checked file, kept current one change at a time."""

    def __init__(
        self, workspace: Workspace, paths: list[Path], *, force_exclude: bool = False
    ) -> None:
        self.workspace = workspace
        self.force_exclude = force_exclude
        self.paths = [p if p.is_absolute() else Path.cwd() / p for p in paths]
        self.explicit = {str(p.resolve()) for p in self.paths if p.is_file()}
        self.findings: dict[Path, list[Finding]] = {}
        self.stamps: dict[Path, Stamp] = {}

    # -- checking ------------------------------------------------------------------------
    def check_all(self) -> None:
        ws = self.workspace
        self.findings.clear()
        ws.dependents.clear()
        with _batch(ws):
            for path in ws.iter_files(self.paths, force_exclude=self.force_exclude):
                if self._wanted(path):
                    self._check(path)
        self.stamps = self.snapshot()

    def _wanted(self, path: Path) -> bool:
        kind, _ = classify(self.workspace, path)
        return kind is not FileKind.OTHER or str(path.resolve()) in self.explicit

    def _check(self, path: Path) -> None:
        ws = self.workspace
        # Everything this check reads becomes a dependency, as the server's index records it.
        ws.begin_recording()
        try:
            findings = check_path(ws, path)
        finally:
            read = ws.end_recording()
        for target in read:
            ws.note_dependency(target, path)
        self.findings[path] = findings

    def all_findings(self) -> list[Finding]:
        return [f for findings in self.findings.values() for f in findings]

    # -- changes -------------------------------------------------------------------------
    def snapshot(self) -> dict[Path, Stamp]:
        """Stamps of the checked files, of everything their checks depend on (files, folders
        whose listing was read, paths probed that do not exist yet) and of the config files
        that could apply."""
        ws = self.workspace
        watched: set[Path] = set(ws.iter_files(self.paths, force_exclude=self.force_exclude))
        watched.update(ws.dependents)
        watched.update(self._config_candidates())
        stamps = {}
        for path in watched:
            stamp = _stamp(path)
            if stamp is not None:
                stamps[path] = stamp
        return stamps

    def _config_candidates(self) -> Iterable[Path]:
        root = self.workspace.root
        folders = {root}
        for path in self.paths:
            folder = path if path.is_dir() else path.parent
            for candidate in [folder, *folder.parents]:
                folders.add(candidate)
                if candidate == root or candidate == candidate.parent:
                    break
        for settings in self.workspace.config.loaded.values():
            if settings.config_path is not None:
                yield settings.config_path
        for folder in folders:
            for name in CONFIG_FILES:
                yield folder / name

    def poll(self) -> dict[Path, tuple[Stamp | None, Stamp | None]]:
        """What changed since the last poll: path -> (stamp before, stamp now); None is a path
        that did not exist (created) or no longer exists (deleted)."""
        before = self.stamps
        current = self.snapshot()
        if current != before:
            time.sleep(SETTLE_S)
            current = self.snapshot()
        self.stamps = current
        return {
            path: (before.get(path), current.get(path))
            for path in before.keys() | current.keys()
            if before.get(path) != current.get(path)
        }

    def apply(self, changes: dict[Path, tuple[Stamp | None, Stamp | None]]) -> int:
        """Re-check what the changes affect; returns how many files were checked again."""
        ws = self.workspace
        if any(p.name in CONFIG_FILES for p in changes):
            ws.config.invalidate()
            self.check_all()
            return len(self.findings)
        came_or_went = {p for p, (old, new) in changes.items() if (old is None) != (new is None)}
        for path in changes:
            ws.forget(path)
        if any(p.name == SKILL_FILE for p in came_or_went):
            # A skill came or went: the skills index, and so how files are classified, changed.
            self.check_all()
            return len(self.findings)
        to_check: set[Path] = set()
        for path, (_, new) in changes.items():
            to_check |= ws.dependents.get(path, set())
            if path in came_or_went:
                # The folder's listing changed too (a reference created or deleted).
                to_check |= ws.dependents.get(path.parent, set())
                to_check |= self._mentioning(path)
            if new is None:
                self.findings.pop(path, None)
            elif self._in_scope(path) and not path.is_dir() and self._wanted(path):
                to_check.add(path)
        checked = 0
        with _batch(ws):
            for path in sorted(to_check):
                if path.is_file() or path.is_symlink():
                    self._check(path)
                    checked += 1
                else:
                    self.findings.pop(path, None)
        return checked

    def _in_scope(self, path: Path) -> bool:
        text = str(path)
        return any(
            text == str(p) or text.startswith(str(p).rstrip(os.sep) + os.sep) for p in self.paths
        )

    def _mentioning(self, path: Path) -> set[Path]:
        """Documents whose findings point at ``path`` (a related location or a fix touching
        it), as the server re-checks them when the file comes or goes."""
        found = set()
        for document, findings in self.findings.items():
            for finding in findings:
                touched = {loc.path for loc in finding.related}
                for fix in finding.fixes:
                    touched.update(edit.path for edit in fix.edits)
                    touched.update(create.path for create in fix.creates)
                    touched.update(r.old_path for r in fix.renames)
                    touched.update(r.new_path for r in fix.renames)
                if path in touched:
                    found.add(document)
                    break
        return found


class _batch:
    """Within one pass the disk is taken as unchanging (the batch memo, fresh each pass)."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    def __enter__(self) -> None:
        self.workspace.memoise_disk(True)

    def __exit__(self, *exc: object) -> None:
        self.workspace.memoise_disk(False)


def watch_main(workspace: Workspace, paths: list[Path], args: argparse.Namespace) -> int:
    """Report, then report again after each change; Ctrl-C ends it with the exit code of the
    last report (0 clean, 1 findings), without a traceback."""
    from easel_ls import cli

    fmt = cli.output_format(args)
    clear = sys.stdout.isatty() and args.output_file is None
    watcher = Watcher(workspace, paths, force_exclude=args.force_exclude)
    last_exit = 130  # interrupted before the first report: the usual code for Ctrl-C

    def report(note: str) -> None:
        nonlocal last_exit
        findings = watcher.all_findings() + cli.config_findings(workspace)
        # Decided before anything is printed: a Ctrl-C once the report shows must exit with it.
        last_exit = cli.exit_code(findings, args)
        ctx = cli.report_context(workspace, args)
        if clear:
            sys.stdout.write("\x1b[2J\x1b[H")  # a fresh screen per report, as ruff does
        cli.emit(cli.compose_report(findings, fmt, ctx, args), args)
        stamp = time.strftime("%H:%M:%S")
        sys.stderr.write(f"[{stamp}] {note} Watching for file changes (Ctrl-C to stop).\n")
        sys.stderr.flush()

    try:
        try:
            watcher.check_all()
        except ConfigError as exc:
            print(f"easel-ls: {exc}", file=sys.stderr)
            return cli.EXIT_ERROR
        report(f"Checked {_files(len(watcher.findings))}.")
        while True:
            time.sleep(POLL_INTERVAL_S)
            changed = watcher.poll()
            if not changed:
                continue
            try:
                checked = watcher.apply(changed)
            except ConfigError as exc:
                # A config being edited is often briefly invalid: say so and keep watching.
                sys.stderr.write(f"easel-ls: {exc}\n")
                sys.stderr.flush()
                continue
            # A folder whose listing changed is named only when no file in it is.
            files = [p for p in changed if not p.is_dir()] or list(changed)
            names = sorted(workspace.rel(p) for p in files)
            what = names[0] if len(names) == 1 else f"{len(names)} files"
            report(f"{what} changed; re-checked {_files(checked)}.")
    except KeyboardInterrupt:
        sys.stderr.write("\n")
        return last_exit


def _files(count: int) -> str:
    return f"{count} file" if count == 1 else f"{count} files"
