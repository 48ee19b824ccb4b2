"""initialize: roots (multi-root) and initialization options."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from easel_ls.server.app import path_of

if TYPE_CHECKING:
    from easel_ls.server.app import EaselServer


def register(server: EaselServer) -> None:
    @server.feature(lsp.INITIALIZE)
    def initialize(ls: EaselServer, params: lsp.InitializeParams) -> None:
        from easel_ls.server.features.workspace_sync import remember_initialization_options

        folders = params.workspace_folders or []
        roots = [path_of(f.uri) for f in folders]
        if not roots and params.root_uri:
            roots = [path_of(params.root_uri)]
        for root in roots:
            if root is not None:
                ls.add_root(root)
        # Editor settings (debounceMs, select, …) layer over each root's config files.
        remember_initialization_options(ls, params.initialization_options)
