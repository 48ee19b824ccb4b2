"""Async notification handlers must not pile up futures in the protocol (pygls 2.1 never drops
them: the soak run showed RSS growing with every edit)."""

from __future__ import annotations

import asyncio

from easel_ls.server.app import create_server


async def test_finished_notification_futures_are_released() -> None:
    server = create_server()

    @server.feature("easel/testPing")
    async def ping(ls: object, params: object) -> None:
        await asyncio.sleep(0)

    for _ in range(200):
        server.protocol._handle_notification("easel/testPing", None)
    assert len(server.protocol._request_futures) == 200  # running
    await asyncio.sleep(0.05)
    assert server.protocol._request_futures == {}
