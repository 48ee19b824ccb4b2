"""Workspace awareness: editor settings, the background index, watched files, easel.showSettings.

- Settings come from ``initializationOptions`` and ``workspace/configuration`` (section
  ``easel-ls``, re-pulled on ``didChangeConfiguration``); a change re-checks everything.
- On ``initialized`` every root is indexed in the background: open documents first, then every
  file the checker wants, in small batches with a yield between them so requests are served
  meanwhile, with ``$/progress`` when the client shows work-done progress. Unopened files get
  their diagnostics pushed too.
- Watched files (registered dynamically): a changed script re-checks the SKILL.md files whose
  commands call it; a created or deleted file re-checks what links to it or mentions it; a
  deleted file loses its diagnostics; a config file change re-checks everything.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from easel_ls.config import CONFIG_FILES, ConfigError
from easel_ls.engine import wants
from easel_ls.findings import Finding
from easel_ls.rules.context import FileKind, classify
from easel_ls.server.app import EaselServer, path_of
from easel_ls.server.convert import uri_of
from easel_ls.server.features.diagnostics import (
    BATCH_SIZE,
    analyse,
    check_and_publish,
    clear,
    configured_workspace,
    open_uris,
    publish,
    recheck,
    report_config_error,
    report_config_errors,
)
from easel_ls.server.features.views import announce_change
from easel_ls.server.settings import SECTION, describe_settings, parse_editor_settings
from easel_ls.workspace import SKILL_FILE, Workspace

log = logging.getLogger(__name__)

WATCH_GLOB = "**/*.{md,py,sh,json,prompt,expected,toml}"
# Deliverables and covers are any kind of file (PNG, MP4, …): a project's manifest is judged
# by which of them exist, and the editor's views show them.
WATCH_OUTPUTS_GLOB = "**/outputs/**"
WATCHER_REGISTRATION_ID = "easel-ls/watched-files"
SHOW_SETTINGS = "easel.showSettings"
INDEX_TITLE = "easel-ls: checking the workspace"
CLIENT_REPLY_TIMEOUT_S = 5.0
INDEX_GRACE_S = 0.3

_tokens = itertools.count(1)


# -- settings ----------------------------------------------------------------------------
def remember_initialization_options(ls: EaselServer, options: Any) -> None:
    layer, problems = parse_editor_settings(options)
    ls.settings_layers.initialization = layer
    _report_problems(ls, "initializationOptions", problems)
    apply_settings(ls)


def _report_problems(ls: EaselServer, where: str, problems: list[str]) -> None:
    for problem in problems:
        log.warning("%s: %s", where, problem)
        with contextlib.suppress(Exception):  # before `initialize` returns there is no writer
            ls.window_log_message(
                lsp.LogMessageParams(type=lsp.MessageType.Warning, message=f"{where}: {problem}")
            )


def apply_settings(ls: EaselServer) -> None:
    """Make the layers take effect: debounce, log level, and (lazily) every resolver."""
    layers = ls.settings_layers
    layers.changed()
    ls.debounce_ms = layers.debounce_ms()
    logging.getLogger("easel_ls").setLevel(layers.log_level())
    for ws in list(ls.roots.values()):
        layers.configure(ws)


def _supports_configuration(ls: EaselServer) -> bool:
    caps = ls.client_capabilities.workspace
    return bool(caps and caps.configuration)


async def pull_configuration(ls: EaselServer) -> bool:
    """Ask for section ``easel-ls``, globally and per root; False when the client cannot say."""
    if not _supports_configuration(ls):
        return False
    roots = list(ls.roots)
    items = [lsp.ConfigurationItem(section=SECTION)]
    items += [lsp.ConfigurationItem(scope_uri=uri_of(root), section=SECTION) for root in roots]
    try:
        values = await asyncio.wait_for(
            ls.workspace_configuration_async(lsp.ConfigurationParams(items=items)),
            CLIENT_REPLY_TIMEOUT_S,
        )
    except Exception as exc:
        log.warning("workspace/configuration failed: %s", exc)
        return False
    values = list(values or [])
    values += [None] * (len(items) - len(values))
    layers = ls.settings_layers
    layers.global_configuration, problems = parse_editor_settings(values[0])
    _report_problems(ls, "workspace/configuration", problems)
    for root, value in zip(roots, values[1:], strict=False):
        # A scoped answer repeats the global one when nothing is set for the folder.
        layers.root_configuration[root], problems = parse_editor_settings(value)
        _report_problems(ls, f"workspace/configuration ({root.name})", problems)
    return True


# -- background index --------------------------------------------------------------------
class BackgroundIndex:
    """Checks every wanted file of every root; restarting cancels the run in progress."""

    def __init__(self) -> None:
        self.task: asyncio.Task[None] | None = None
        self.side_tasks: set[asyncio.Future[None]] = set()  # kept so they are not collected

    def restart(self, ls: EaselServer) -> asyncio.Task[None]:
        if self.task is not None and not self.task.done():
            self.task.cancel()
        self.task = asyncio.ensure_future(index_workspace(ls))
        return self.task


# The longest stretch the background index runs without letting requests and edits through.
INDEX_SLICE_S = 0.012
# Large workspaces are indexed in a worker process (keystrokes never wait behind the index);
# small ones in-process, where starting a worker would cost more than the whole index.
WORKER_INDEX_MIN_FILES = 400
WORKER_CHUNK = 64


async def index_workspace(ls: EaselServer) -> None:
    # Editors open their visible documents right after `initialized`: let those be checked
    # first, from their buffers, before the disk text of the same files is published.
    await asyncio.sleep(INDEX_GRACE_S)
    token = await _begin_progress(ls)
    checked = 0
    try:
        for uri in open_uris(ls).values():
            if uri not in ls.pending:  # else its debounced check is due and will publish
                check_and_publish(ls, uri)
        files = await _wanted_files(ls)
        total = len(files)
        progress = _Progress(ls, token, total)
        if total >= WORKER_INDEX_MIN_FILES:
            checked = await _index_in_worker(ls, files, progress)
        if checked < total:
            await _index_in_process(ls, files[checked:], progress, checked)
        checked = total
        log.info("indexed %d files", total)
        _ask_pull_clients_to_refresh(ls)
        announce_change(ls)  # editor views: every count is known now
    finally:
        if token is not None:
            ls.work_done_progress.end(
                token, lsp.WorkDoneProgressEnd(message=f"{checked} files checked")
            )
    from easel_ls.server.features.graph import build_graph

    await build_graph(ls)  # then references and lenses are answered from a built graph


class _Progress:
    def __init__(self, ls: EaselServer, token: str | None, total: int) -> None:
        self.ls, self.token, self.total, self.last = ls, token, total, -1

    def report(self, checked: int) -> None:
        percentage = checked * 100 // self.total if self.total else 100
        if self.token is not None and percentage != self.last:
            self.last = percentage
            self.ls.work_done_progress.report(
                self.token,
                lsp.WorkDoneProgressReport(
                    message=f"{checked}/{self.total} files", percentage=percentage
                ),
            )


async def _index_in_process(
    ls: EaselServer, files: list[Path], progress: _Progress, done: int
) -> None:
    loop = asyncio.get_running_loop()
    opened = open_uris(ls)
    last_yield = loop.time()
    for index, path in enumerate(files, start=done + 1):
        # Yield every few milliseconds, not every N files: a keystroke in an open document
        # must never wait behind a long slice of the index.
        if loop.time() - last_yield > INDEX_SLICE_S:
            await asyncio.sleep(0)
            last_yield = loop.time()
            opened = open_uris(ls)
        if path not in opened:  # open documents were checked first, from the buffer
            uri = uri_of(path)
            result = analyse(ls, uri)
            if result is not None:
                _, lines, version, findings = result
                publish(ls, uri, path, lines, version, findings, quiet_when_clean=True)
            release_parse(ls, path)
        progress.report(index)


async def _index_in_worker(ls: EaselServer, files: list[Path], progress: _Progress) -> int:
    """Check closed files in a worker process, so the event loop (and every keystroke) never
    waits for the index; returns how many files were handled (the rest fall back in-process)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from easel_ls.batch import check_chunk

    loop = asyncio.get_running_loop()
    done = 0
    # spawn, not fork: the server runs threads, and a forked child would inherit their locks.
    context = multiprocessing.get_context("spawn")
    try:
        with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
            for start in range(0, len(files), WORKER_CHUNK):
                chunk = files[start : start + WORKER_CHUNK]
                by_root: dict[Path, list[tuple[Path, FileKind]]] = {}
                for path in chunk:
                    ws = ls.workspace_for(path)
                    by_root.setdefault(ws.root, []).append((path, classify(ws, path)[0]))
                for root, items in by_root.items():
                    ws = ls.roots.get(root) or ls.workspace_for(items[0][0])
                    spec = (ws.root, ws.config.init_args)
                    results = await loop.run_in_executor(pool, check_chunk, spec, items)
                    _publish_index_results(ls, ws, results)
                done += len(chunk)
                progress.report(done)
    except Exception:
        log.warning("index worker unavailable; indexing in the server process", exc_info=True)
    return done


def _publish_index_results(
    ls: EaselServer,
    ws: Workspace,
    results: list[tuple[Path, FileKind, set[Path], list[Finding]]],
) -> None:
    opened = open_uris(ls)
    for path, _kind, deps, findings in results:
        for dep in deps:
            ws.note_dependency(dep, path)  # watched-file changes re-check this file
        if path in opened:
            continue  # the buffer, not the disk text, is what the editor shows
        uri = uri_of(path)
        doc = ws.read(path).doc if findings else None
        lines = doc.lines if doc is not None else []
        publish(ls, uri, path, lines, None, findings, quiet_when_clean=True)
        release_parse(ls, path)


def release_parse(ls: EaselServer, path: Path) -> None:
    """Drop the cached text and parse of a closed file nothing else reads often; SKILL.md and
    scripts stay (every check of their skill reads them), the rest is re-read if opened."""
    ws = ls.workspace_for(path)
    kind, _ = classify(ws, path)
    if kind not in (FileKind.SKILL, FileKind.SCRIPT):
        ws.forget(path)


async def _wanted_files(ls: EaselServer) -> list[Path]:
    files: list[Path] = []
    for ws in list(ls.roots.values()):
        found: list[Path] = []
        try:
            configured_workspace(ls, ws.root)
            for i, path in enumerate(ws.iter_files([ws.root])):
                if i % (BATCH_SIZE * 16) == 0:
                    await asyncio.sleep(0)
                # With nested roots a file belongs to the most specific one only.
                if ls.workspace_for(path) is ws and wants(ws, path):
                    found.append(path)
        except ConfigError as exc:  # this root is not indexed; the others are
            report_config_error(ls, exc)
            continue
        finally:
            report_config_errors(ls, ws)
        files.extend(found)
    return files


async def _begin_progress(ls: EaselServer) -> str | None:
    window = ls.client_capabilities.window
    if not (window and window.work_done_progress):
        return None
    token = f"easel-ls/index/{next(_tokens)}"
    try:
        # Shielded: cancelling the index (a restart) must not cancel the pending JSON-RPC
        # future, whose late reply would otherwise raise InvalidStateError inside pygls.
        await asyncio.wait_for(
            asyncio.shield(ls.work_done_progress.create_async(token)), CLIENT_REPLY_TIMEOUT_S
        )
    except Exception as exc:
        log.warning("window/workDoneProgress/create failed: %s", exc)
        return None
    ls.work_done_progress.begin(
        token, lsp.WorkDoneProgressBegin(title=INDEX_TITLE, percentage=0, cancellable=False)
    )
    return token


def _ask_pull_clients_to_refresh(ls: EaselServer) -> None:
    caps = ls.client_capabilities.workspace
    if caps and caps.diagnostics and caps.diagnostics.refresh_support:
        with contextlib.suppress(Exception):
            ls.workspace_diagnostic_refresh(None)


# -- watched files -----------------------------------------------------------------------
async def register_file_watchers(ls: EaselServer) -> None:
    caps = ls.client_capabilities.workspace
    watched = caps.did_change_watched_files if caps else None
    if not (watched and watched.dynamic_registration):
        return
    registration = lsp.Registration(
        id=WATCHER_REGISTRATION_ID,
        method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
        register_options=lsp.DidChangeWatchedFilesRegistrationOptions(
            watchers=[
                lsp.FileSystemWatcher(glob_pattern=WATCH_GLOB),
                lsp.FileSystemWatcher(glob_pattern=WATCH_OUTPUTS_GLOB),
            ]
        ),
    )
    try:
        await asyncio.wait_for(
            ls.client_register_capability_async(
                lsp.RegistrationParams(registrations=[registration])
            ),
            CLIENT_REPLY_TIMEOUT_S,
        )
    except Exception as exc:
        log.warning("registering file watchers failed: %s", exc)


def mentions(finding: Finding, path: Path) -> bool:
    """Whether a finding is about ``path`` (a related location, or a fix that touches it)."""
    fix_paths = (
        p
        for fix in finding.fixes
        for p in itertools.chain(
            (e.path for e in fix.edits),
            (c.path for c in fix.creates),
            (r.old_path for r in fix.renames),
            (r.new_path for r in fix.renames),
        )
    )
    return any(loc.path == path for loc in finding.related) or path in fix_paths


def documents_mentioning(ls: EaselServer, path: Path) -> set[Path]:
    found: set[Path] = set()
    for uri, findings in list(ls.findings.items()):
        if any(mentions(f, path) for f in findings):
            doc_path = path_of(uri)
            if doc_path is not None:
                found.add(doc_path)
    return found


def _is_under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def known_documents_under(ls: EaselServer, folder: Path) -> list[tuple[str, Path]]:
    """Documents with findings at or below ``folder`` (a deleted file or folder)."""
    found = []
    for uri in list(ls.findings):
        path = path_of(uri)
        if path is not None and _is_under(path, folder):
            found.append((uri, path))
    return found


def files_changed(
    ls: EaselServer, index: BackgroundIndex, changes: Iterable[lsp.FileEvent]
) -> None:
    to_check: set[Path] = set()
    deleted: set[Path] = set()
    config_changed = False
    opened = open_uris(ls)
    for change in changes:
        path = path_of(change.uri)
        if path is None:
            continue
        ws = ls.workspace_for(path)
        if path.name in CONFIG_FILES:
            ws.config.invalidate()
            config_changed = True
            continue
        ws.forget(path)
        if change.type != lsp.FileChangeType.Changed and not path.suffix:
            ws.forget(path / SKILL_FILE)  # a folder came or went: the skills index may differ
        to_check |= ws.dependents.get(path, set())
        if change.type == lsp.FileChangeType.Deleted:
            deleted.add(path)
            to_check |= documents_mentioning(ls, path)
            for uri, known in known_documents_under(ls, path):
                if known not in opened:
                    clear(ls, uri)
            continue
        if change.type == lsp.FileChangeType.Created:
            to_check |= documents_mentioning(ls, path)
        if path not in opened and wants(ws, path):
            to_check.add(path)
    if config_changed:
        ls.config_errors_shown.clear()  # a config broken again is said again
        index.restart(ls)
        return
    recheck(ls, {p for p in to_check if not any(_is_under(p, d) for d in deleted)})
    announce_change(ls)  # editor views: a skill, manifest or deliverable may have come or gone


def _workspace_path(ls: EaselServer, argument: Any) -> tuple[Workspace, Path] | None:
    if isinstance(argument, dict):
        argument = argument.get("uri") or argument.get("path")
    if isinstance(argument, str) and argument:
        path = path_of(argument) if "://" in argument else Path(argument)
        if path is not None:
            return ls.workspace_for(path), path
    if ls.roots:
        ws = next(iter(ls.roots.values()))
        return ws, ws.root
    return None


def register(server: EaselServer) -> None:
    index = BackgroundIndex()

    @server.feature(lsp.INITIALIZED)
    async def initialized(ls: EaselServer, params: lsp.InitializedParams) -> None:
        if await pull_configuration(ls):
            apply_settings(ls)
        watchers = asyncio.ensure_future(register_file_watchers(ls))
        index.side_tasks.add(watchers)
        watchers.add_done_callback(index.side_tasks.discard)
        index.restart(ls)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(
        ls: EaselServer, params: lsp.DidChangeConfigurationParams
    ) -> None:
        if not await pull_configuration(ls):
            layer, problems = parse_editor_settings(params.settings)
            ls.settings_layers.global_configuration = layer
            _report_problems(ls, "didChangeConfiguration", problems)
        apply_settings(ls)
        index.restart(ls)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: EaselServer, params: lsp.DidChangeWatchedFilesParams) -> None:
        files_changed(ls, index, params.changes)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def did_change_folders(
        ls: EaselServer, params: lsp.DidChangeWorkspaceFoldersParams
    ) -> None:
        for folder in params.event.removed:
            root = path_of(folder.uri)
            if root is None:
                continue
            ls.roots.pop(root.resolve(), None)
            for uri, _ in known_documents_under(ls, root):
                clear(ls, uri)
        for folder in params.event.added:
            root = path_of(folder.uri)
            if root is not None:
                ls.add_root(root)
        await pull_configuration(ls)
        apply_settings(ls)
        index.restart(ls)

    @server.command(SHOW_SETTINGS)
    def show_settings(ls: EaselServer, *args: Any) -> dict[str, Any] | None:
        """The effective settings for a file or folder (argument: a URI or path; default: the
        first root), as ``easel-ls --check --show-settings`` prints them, plus the editor
        layers."""
        target = _workspace_path(ls, args[0] if args else None)
        if target is None:
            return None
        ws, path = target
        return describe_settings(ls.settings_layers, ws, path if path.is_file() else path / "_")
