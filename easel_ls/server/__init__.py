"""The language server: the only package that imports pygls and lsprotocol."""

from __future__ import annotations


def start(*, tcp: bool = False, host: str = "127.0.0.1", port: int = 2087) -> int:
    from easel_ls.server.app import create_server

    server = create_server()
    if tcp:
        server.start_tcp(host, port)
    else:
        server.start_io()
    return 0
