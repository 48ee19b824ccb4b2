"""The LanguageServer, its state, and the wiring of every feature, in one place.

A thin adapter: documents go into the engine's workspace as overlays, findings come back as
diagnostics (fixes ride in ``Diagnostic.data``), features call the protocol-free services.
Each feature module under ``features/`` has a ``register(server)`` function; ``create_server``
calls them all, so this file is the one place that shows what the server can do.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import JsonRPCNotification
from pygls.uris import to_fs_path

from easel_ls import __version__
from easel_ls.config import ConfigResolver
from easel_ls.findings import Finding
from easel_ls.model.text import TextDocument
from easel_ls.server.convert import Converter
from easel_ls.server.settings import SettingsLayers
from easel_ls.workspace import Workspace, find_root

log = logging.getLogger(__name__)


class EaselProtocol(LanguageServerProtocol):
    """pygls 2.1 keeps the future of every async notification handler in `_request_futures`
    forever (only responses remove entries): about 2 MB per 1000 edits. Drop them when done."""

    def _handle_notification(self, method_name: str, params: object) -> None:
        before = set(self._request_futures)
        super()._handle_notification(method_name, params)
        for key in set(self._request_futures) - before:
            self._request_futures[key].add_done_callback(self._forget(key))

    def structure_message(self, data: dict[str, Any]) -> Any:
        """A request whose params do not fit its LSP type gets an InvalidParams error response
        (pygls 2.1 logs and drops it, leaving the editor waiting forever)."""
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            msg_id = data.get("id")
            if "method" not in data or not isinstance(msg_id, (str, int)):
                raise
            error = exc.to_response_error()
            error.message = f"{error.message}: cannot read the params of {data['method']!r}"
            self._send_response(msg_id, error=error)
            # Hand pygls something harmless to dispatch: an unknown notification is ignored.
            return JsonRPCNotification(method="$/easel-ls/dropped", jsonrpc="2.0", params=None)

    def _forget(self, key: str | int) -> Callable[[object], None]:
        def forget(_future: object) -> None:
            # Deferred: pygls's shutdown iterates `_request_futures` while cancelling them.
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                self._request_futures.pop(key, None)
                return
            loop.call_soon(self._request_futures.pop, key, None)

        return forget


class EaselServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("easel-ls", __version__, protocol_cls=EaselProtocol)
        self.roots: dict[Path, Workspace] = {}
        self.debounce_ms = 150
        self.pending: dict[str, asyncio.TimerHandle] = {}
        # Latest findings per document URI (what diagnostics and code actions were built from).
        self.findings: dict[str, list[Finding]] = {}
        # URIs whose last push was non-empty (so a switch to pull can clear them once).
        self.pushed: set[str] = set()
        # Editor settings layers (initializationOptions, workspace/configuration): settings.py.
        self.settings_layers = SettingsLayers()
        # Each root workspace's script ↔ docs graph being built (by the workspace's identity: a
        # root added again is a new workspace with a graph of its own); graph requests await it.
        self.graph_builds: dict[int, asyncio.Task[None]] = {}
        # Config errors already shown to the user (each once, until it changes).
        self.config_errors_shown: set[str] = set()

    # -- workspaces -----------------------------------------------------------------------
    def add_root(self, root: Path) -> Workspace:
        resolver = ConfigResolver(stop_at=root.resolve(), lenient=True)
        ws = Workspace(root=root.resolve(), config=resolver)
        self.roots[ws.root] = ws
        return ws

    def workspace_for(self, path: Path) -> Workspace:
        """The workspace of the most specific root holding ``path`` (multi-root aware)."""
        best: Workspace | None = None
        for root, ws in self.roots.items():
            try:
                path.relative_to(root)
            except ValueError:
                continue
            if best is None or len(root.parts) > len(best.root.parts):
                best = ws
        if best is not None:
            return best
        root = find_root(path)
        found = self.roots.get(root)
        if found is None:
            found = self.add_root(root)
        return found

    # -- documents ------------------------------------------------------------------------
    def document(self, uri: str) -> TextDocument | None:
        """The current text of a document (editor buffer if open, else disk) as the engine
        sees it; the overlay is refreshed from pygls's copy."""
        path = path_of(uri)
        if path is None:
            return None
        ws = self.workspace_for(path)
        opened = self.opened(uri)
        if opened is not None:
            doc = TextDocument(path, opened.source, opened.version)
            ws.set_overlay(doc)
            return doc
        return ws.read(path).doc

    def opened(self, uri: str) -> Any:
        """The editor's buffer for ``uri``, or None. pygls keys buffers by the percent-decoded
        URI, while clients send `春日野餐` as `%E6%98%A5…`: look it up the way pygls stores it."""
        return self.workspace.text_documents.get(unquote(uri))

    def converter(self) -> Converter:
        def lines_of(path: Path) -> list[str]:
            ws = self.workspace_for(path)
            doc = ws.read(path).doc
            return doc.lines if doc is not None else []

        return Converter(self.workspace.position_codec, lines_of)


def path_of(uri: str) -> Path | None:
    fs = to_fs_path(uri)
    return Path(fs) if fs else None


def create_server() -> EaselServer:
    from easel_ls.server.features import (
        actions,
        commands,
        completion,
        diagnostics,
        graph,
        hover,
        lenses,
        lifecycle,
        navigation,
        symbols,
        views,
        workspace_sync,
    )

    server = EaselServer()
    features = (
        lifecycle,  # initialize: roots, options
        workspace_sync,  # settings, background index + progress, watched files
        diagnostics,  # push and pull diagnostics
        actions,  # quick fixes, fix-all, disable-for-line
        completion,
        hover,
        navigation,  # document links, go to definition
        graph,  # references, rename, file moves, document highlights
        lenses,  # code lenses: script definitions, skill commands, the pipeline
        symbols,  # document and workspace symbols
        commands,  # workspace/executeCommand
        views,  # easel/skills, easel/projects, easel/workspaceChanged
    )
    for feature in features:
        feature.register(server)
    return server
