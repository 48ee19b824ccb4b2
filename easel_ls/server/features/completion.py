"""(being written) — see create_server in easel_ls/server/app.py."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from easel_ls.server.app import EaselServer


def register(server: EaselServer) -> None:
    return None
