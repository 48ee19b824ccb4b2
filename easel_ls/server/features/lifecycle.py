"""initialize: roots (multi-root) and initialization options."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from easel_ls.server.app import path_of

if TYPE_CHECKING:
    from easel_ls.server.app import EaselServer


def register(server: EaselServer) -> None:
    @server.feature(lsp.INITIALIZE)
    def initialize(ls: EaselServer, params: lsp.InitializeParams) -> None:
        options = params.initialization_options or {}
        if isinstance(options, dict) and "debounceMs" in options:
            with contextlib.suppress(TypeError, ValueError):
                ls.debounce_ms = max(0, int(options["debounceMs"]))
        folders = params.workspace_folders or []
        roots = [path_of(f.uri) for f in folders]
        if not roots and params.root_uri:
            roots = [path_of(params.root_uri)]
        for root in roots:
            if root is not None:
                ls.add_root(root)
