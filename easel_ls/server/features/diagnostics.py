"""Diagnostics, pushed and pulled.

Push (``publishDiagnostics``): on open and save at once, on change after ``debounceMs`` (a newer
change cancels the pending check, so an edit storm checks once). Pull
(``textDocument/diagnostic``, ``workspace/diagnostic``): reports carry a result id, a hash of
the findings, and are ``unchanged`` when the client already holds that id.

A check of one document may change what others see (a script's options, a link target), so
after a change the documents recorded in ``Workspace.dependents`` are checked again, once the
typing pauses.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from easel_ls.config import ConfigError
from easel_ls.engine import check_document, check_path
from easel_ls.findings import Finding
from easel_ls.server.app import path_of
from easel_ls.server.convert import uri_of
from easel_ls.server.features.views import VIEW_FILES, announce_change
from easel_ls.workspace import Workspace

if TYPE_CHECKING:
    from easel_ls.server.app import EaselServer

log = logging.getLogger(__name__)

PULL_IDENTIFIER = "easel-ls"
# Files checked between two yields to the event loop, so requests are served meanwhile.
BATCH_SIZE = 16
# Dependents of an edited document wait for a pause in typing (a pending-check key prefix).
DEPENDENTS_DELAY_S = 0.3
DEPENDENTS_KEY = "dependents:"


def findings_result_id(findings: Iterable[Finding]) -> str:
    """A stable id for a set of findings: equal findings, equal id."""
    digest = hashlib.sha1(usedforsecurity=False)
    for f in findings:
        r = f.range
        key = (f.code, int(f.severity), str(f.path), r.start.line, r.start.character)
        digest.update(repr((*key, r.end.line, r.end.character, f.message, f.help)).encode())
        digest.update(repr([(fix.title, fix.applicability.value) for fix in f.fixes]).encode())
    return digest.hexdigest()[:16]


def configured_workspace(ls: EaselServer, path: Path) -> Workspace:
    """The workspace of ``path``, its resolver carrying the current editor settings."""
    ws = ls.workspace_for(path)
    ls.settings_layers.configure(ws)
    return ws


def open_uris(ls: EaselServer) -> dict[Path, str]:
    """Open documents by path (the URI as the client spelled it)."""
    result: dict[Path, str] = {}
    for opened in list(ls.workspace.text_documents.values()):
        uri = opened.uri
        path = path_of(uri)
        if path is not None:
            result[path] = uri
    return result


def analyse(ls: EaselServer, uri: str) -> tuple[Path, list[str], int | None, list[Finding]] | None:
    """Check one document (editor buffer if open, else disk): its path, lines, version and
    findings; None if the URI is not a file."""
    path = path_of(uri)
    if path is None:
        return None
    ws = configured_workspace(ls, path)
    opened = ls.opened(uri)
    try:
        return _analysed(ls, ws, uri, path, opened is not None)
    finally:
        report_config_errors(ls, ws)


def _analysed(
    ls: EaselServer, ws: Workspace, uri: str, path: Path, opened: bool
) -> tuple[Path, list[str], int | None, list[Finding]] | None:
    try:
        if opened:
            doc = ls.document(uri)
            if doc is None:
                return None
            if _excluded(ws, path):  # as `check --force-exclude` leaves it out
                return path, doc.lines, doc.version, []
            return path, doc.lines, doc.version, _checked(ls, lambda: check_document(ws, doc))
        if _excluded(ws, path):
            return path, [], None, []
        if not path.exists() and not path.is_symlink():
            return None
        findings = _checked(ls, lambda: check_path(ws, path))
        on_disk = ws.read(path).doc
        return path, on_disk.lines if on_disk is not None else [], None, findings
    except Exception:
        # A failing engine must not take the server down; the log says why.
        log.exception("checking %s failed", uri)
        return path, [], None, []


def _excluded(ws: Workspace, path: Path) -> bool:
    try:
        return ws.is_excluded(path, is_dir=False)
    except ConfigError:  # the check reports it
        return False


def _checked(ls: EaselServer, run: Callable[[], list[Finding]]) -> list[Finding]:
    try:
        return run()
    except ConfigError as exc:
        report_config_error(ls, exc)
        return []


def report_config_error(ls: EaselServer, error: ConfigError) -> None:
    """A config error met while checking (the files it applies to get no findings)."""
    _show_once(ls, f"easel-ls: {error}. The files it applies to are not checked.")


def report_config_errors(ls: EaselServer, ws: Workspace) -> None:
    """Config files of ``ws`` that cannot be used (`check` exits 2 on them): the editor goes on
    with the default settings for their files, and says so once, where the user sees it."""
    for message in list(ws.config.errors.values()):
        _show_once(ls, f"easel-ls: {message}. The default settings apply until it is fixed.")


def _show_once(ls: EaselServer, text: str) -> None:
    log.warning("%s", text)
    if text in ls.config_errors_shown:
        return
    ls.config_errors_shown.add(text)
    ls.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=text))


def to_diagnostics(
    ls: EaselServer, path: Path, lines: list[str], findings: list[Finding]
) -> list[lsp.Diagnostic]:
    conv = ls.converter()
    return [conv.diagnostic(f, lines) for f in findings if f.path == path]


def is_stale(ls: EaselServer, uri: str, version: int | None) -> bool:
    """Whether the editor already holds a newer version than the one that was checked."""
    current = ls.opened(uri)
    if current is None or version is None or current.version is None:
        return False
    return version < current.version


def publish(
    ls: EaselServer,
    uri: str,
    path: Path,
    lines: list[str],
    version: int | None,
    findings: list[Finding],
    *,
    quiet_when_clean: bool = False,
) -> None:
    """Record and push findings. ``quiet_when_clean`` skips sending an empty list for a file
    that never had diagnostics (the background index, over thousands of clean files)."""
    if is_stale(ls, uri, version):
        return
    had_findings = bool(ls.findings.get(uri))
    # Editor views (easel/skills, easel/projects) refresh on a coalesced easel/workspaceChanged;
    # bulk publishes (quiet_when_clean: the index, re-checks) announce once when they end.
    views_changed = ls.findings.get(uri) != findings or path.name in VIEW_FILES
    ls.findings[uri] = findings
    if views_changed and not quiet_when_clean:
        announce_change(ls)
    if pull_owns(ls, uri):
        # The client pulls this open document; pushing too would show every finding twice.
        if uri in ls.pushed:
            ls.pushed.discard(uri)
            ls.text_document_publish_diagnostics(
                lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[], version=version)
            )
        if refresh_supported(ls):
            ls.workspace_diagnostic_refresh(None)
        return
    diagnostics = to_diagnostics(ls, path, lines, findings)
    if quiet_when_clean and not diagnostics and not had_findings:
        return
    if diagnostics:
        ls.pushed.add(uri)
    else:
        ls.pushed.discard(uri)
    ls.text_document_publish_diagnostics(
        lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
    )


def pull_supported(ls: EaselServer) -> bool:
    text_document = ls.client_capabilities.text_document
    return text_document is not None and text_document.diagnostic is not None


def pull_owns(ls: EaselServer, uri: str) -> bool:
    """Open documents of a client that pulls are served by pull only (push covers the rest:
    files the background index checked, and clients that cannot pull)."""
    return pull_supported(ls) and ls.opened(uri) is not None


def refresh_supported(ls: EaselServer) -> bool:
    workspace = ls.client_capabilities.workspace
    diagnostics = workspace.diagnostics if workspace is not None else None
    return bool(diagnostics and diagnostics.refresh_support)


def clear(ls: EaselServer, uri: str) -> None:
    """A deleted file: forget its findings and clear what the editor shows."""
    ls.findings.pop(uri, None)
    announce_change(ls)  # a file is gone: the editor views change
    ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


def check_and_publish(ls: EaselServer, uri: str, *, with_dependents: bool = False) -> None:
    ls.pending.pop(uri, None)
    result = analyse(ls, uri)
    if result is None:
        return
    path, lines, version, findings = result
    publish(ls, uri, path, lines, version, findings)
    if with_dependents:
        schedule_dependents(ls, uri, path)


def schedule_dependents(ls: EaselServer, uri: str, path: Path) -> None:
    """Re-check what depends on ``path`` a little later, once the typing pauses: the edited
    document's own diagnostics come first and are never delayed by its dependents."""
    key = DEPENDENTS_KEY + uri
    cancel_pending(ls, key)
    dependents = dependents_of(ls, [path]) - {path}
    if not dependents:
        return
    loop = asyncio.get_running_loop()
    delay = max(ls.debounce_ms / 1000, DEPENDENTS_DELAY_S)

    def run() -> None:
        ls.pending.pop(key, None)
        recheck(ls, dependents)

    ls.pending[key] = loop.call_later(delay, run)


def dependents_of(ls: EaselServer, paths: Iterable[Path]) -> set[Path]:
    found: set[Path] = set()
    opened: dict[Path, str] | None = None
    for path in paths:
        ws = ls.workspace_for(path)
        found |= ws.dependents.get(path, set())
        if path.name == "SKILL.md" and ws.routing_dependents:
            # Any description moves every route (RT): the open documents that show routing
            # findings follow at once; the others are re-checked when next indexed or opened.
            opened = open_uris(ls) if opened is None else opened
            found |= {p for p in ws.routing_dependents if p in opened}
    return found


def recheck(ls: EaselServer, paths: Iterable[Path]) -> None:
    """Check again and publish each path: the buffer if open, the disk if not, a clear if gone."""
    opened = open_uris(ls)
    for path in sorted(paths):
        uri = opened.get(path)
        if uri is not None:
            check_and_publish(ls, uri)
            continue
        uri = uri_of(path)
        result = analyse(ls, uri)
        if result is None:
            if uri in ls.findings:
                clear(ls, uri)
            continue
        _, lines, version, findings = result
        publish(ls, uri, path, lines, version, findings, quiet_when_clean=True)
    announce_change(ls)  # editor views: what depends on a change may count differently now


def schedule(ls: EaselServer, uri: str) -> None:
    """Check after ``debounce_ms``; a newer change replaces a pending check, so stale versions
    are never checked. With 0 the check runs on the next loop turn (still coalescing)."""
    handle = ls.pending.pop(uri, None)
    if handle is not None:
        handle.cancel()
    loop = asyncio.get_running_loop()
    delay = max(0, ls.debounce_ms) / 1000
    check = partial(check_and_publish, ls, uri, with_dependents=True)
    ls.pending[uri] = loop.call_later(delay, check)


def cancel_pending(ls: EaselServer, uri: str) -> None:
    handle = ls.pending.pop(uri, None)
    if handle is not None:
        handle.cancel()


# -- pull --------------------------------------------------------------------------------
def document_report(
    ls: EaselServer, uri: str, previous_result_id: str | None
) -> lsp.RelatedFullDocumentDiagnosticReport | lsp.RelatedUnchangedDocumentDiagnosticReport:
    result = analyse(ls, uri)
    if result is None:
        return lsp.RelatedFullDocumentDiagnosticReport(items=[], result_id=None)
    path, lines, _version, findings = result
    if ls.findings.get(uri) != findings:
        announce_change(ls)  # the editor views' finding counts change
    ls.findings[uri] = findings
    result_id = findings_result_id(findings)
    if previous_result_id == result_id:
        return lsp.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
    return lsp.RelatedFullDocumentDiagnosticReport(
        items=to_diagnostics(ls, path, lines, findings), result_id=result_id
    )


async def workspace_report(
    ls: EaselServer, params: lsp.WorkspaceDiagnosticParams
) -> lsp.WorkspaceDiagnosticReport:
    """Every known document (the background index fills them in); cooperative, so a
    ``$/cancelRequest`` stops it between batches."""
    previous = {p.uri: p.value for p in params.previous_result_ids}
    items: list[
        lsp.WorkspaceFullDocumentDiagnosticReport | lsp.WorkspaceUnchangedDocumentDiagnosticReport
    ] = []
    for i, (uri, findings) in enumerate(list(ls.findings.items())):
        if i and i % (BATCH_SIZE * 8) == 0:
            await asyncio.sleep(0)
        opened = ls.opened(uri)
        version = opened.version if opened is not None else None
        result_id = findings_result_id(findings)
        if previous.get(uri) == result_id:
            items.append(
                lsp.WorkspaceUnchangedDocumentDiagnosticReport(
                    uri=uri, version=version, result_id=result_id
                )
            )
            continue
        path = path_of(uri)
        if path is None:
            continue
        doc = ls.document(uri) if opened is not None else ls.workspace_for(path).read(path).doc
        lines = doc.lines if doc is not None else []
        items.append(
            lsp.WorkspaceFullDocumentDiagnosticReport(
                uri=uri,
                version=version,
                items=to_diagnostics(ls, path, lines, findings),
                result_id=result_id,
            )
        )
    return lsp.WorkspaceDiagnosticReport(items=items)


def register(server: EaselServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: EaselServer, params: lsp.DidOpenTextDocumentParams) -> None:
        check_and_publish(ls, params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: EaselServer, params: lsp.DidChangeTextDocumentParams) -> None:
        schedule(ls, params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: EaselServer, params: lsp.DidSaveTextDocumentParams) -> None:
        check_and_publish(ls, params.text_document.uri, with_dependents=True)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: EaselServer, params: lsp.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        cancel_pending(ls, uri)
        path = path_of(uri)
        if path is None:
            return
        ls.workspace_for(path).drop_overlay(path)
        # Unsaved edits are gone: the file and what depends on it go back to the disk text.
        recheck(ls, {path} | dependents_of(ls, [path]))

    @server.feature(
        lsp.TEXT_DOCUMENT_DIAGNOSTIC,
        lsp.DiagnosticOptions(
            identifier=PULL_IDENTIFIER, inter_file_dependencies=True, workspace_diagnostics=True
        ),
    )
    def document_diagnostic(
        ls: EaselServer, params: lsp.DocumentDiagnosticParams
    ) -> lsp.RelatedFullDocumentDiagnosticReport | lsp.RelatedUnchangedDocumentDiagnosticReport:
        return document_report(ls, params.text_document.uri, params.previous_result_id)

    @server.feature(lsp.WORKSPACE_DIAGNOSTIC)
    async def workspace_diagnostic(
        ls: EaselServer, params: lsp.WorkspaceDiagnosticParams
    ) -> lsp.WorkspaceDiagnosticReport:
        return await workspace_report(ls, params)
