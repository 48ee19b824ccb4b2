"""Malformed LSP traffic gets JSON-RPC errors or is ignored, and the server keeps serving: after
each storm it still answers a hover and a `shutdown`, and exits cleanly on `exit`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from lsp_wire import RawServer
from robustness_inputs import SKILL, make_workspace

METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

TEXT = "---\nname: x\n---\n# x\n\n[broken](references/missing.md)\n"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[RawServer, str]]:
    ws = make_workspace(tmp_path / "ws")
    running = RawServer(ws.root)
    try:
        running.initialize(ws.root)
        uri = (ws.root / SKILL).as_uri()
        running.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": TEXT}},
        )
        running.wait_for(lambda: running.published(uri), what="first diagnostics")
        yield running, uri
    finally:
        running.close()


def still_serving(server: RawServer, uri: str) -> None:
    hover = server.call(
        "textDocument/hover",
        {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 2}},
    )
    assert "error" not in hover, hover
    assert server.process.poll() is None


def test_broken_frames_are_survived(server: tuple[RawServer, str]) -> None:
    running, uri = server
    for body in (b"{not json", b"", b"[]", b"42", b'"text"', b"\xff\xfe", b'{"jsonrpc": "2.0"}'):
        running.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    still_serving(running, uri)
    assert running.shutdown() == 0


def test_unknown_methods_get_method_not_found(server: tuple[RawServer, str]) -> None:
    running, uri = server
    response = running.call("easel/noSuchMethod", {"x": 1})
    assert response["error"]["code"] == METHOD_NOT_FOUND
    running.notify("easel/noSuchNotification", {"x": 1})
    running.notify("$/someOptionalThing", {})
    still_serving(running, uri)
    assert running.shutdown() == 0


# Params that lsprotocol cannot structure: pygls 2 logs them and drops the message without a
# response (openlawlibrary/pygls#326), so an editor waits for an answer that never comes.
UNSTRUCTURABLE = [
    ("textDocument/hover", {"textDocument": {"uri": 42}, "position": "here"}),
    ("textDocument/hover", None),
    ("textDocument/completion", {"position": {"line": -1, "character": -1}}),
    ("textDocument/definition", ["not", "an", "object"]),
    ("textDocument/codeAction", {"textDocument": {"uri": "file:///nowhere.md"}}),
]
WELL_FORMED_BUT_WRONG = [
    ("textDocument/documentSymbol", {"textDocument": {"uri": "not a uri"}}),
    (
        "textDocument/hover",
        {"textDocument": {"uri": "file:///nowhere.md"}, "position": {"line": 99, "character": 0}},
    ),
    ("workspace/executeCommand", {"command": "easel.noSuchCommand", "arguments": [1]}),
    ("workspace/executeCommand", {"command": "easel.checkWorkspace", "arguments": "x"}),
]


@pytest.mark.parametrize(("method", "params"), WELL_FORMED_BUT_WRONG)
def test_wrong_params_get_an_error_or_an_empty_answer(
    server: tuple[RawServer, str], method: str, params: object
) -> None:
    running, uri = server
    response = running.call(method, params)
    if "error" in response:
        assert response["error"]["code"] in (INVALID_PARAMS, INTERNAL_ERROR, METHOD_NOT_FOUND)
    still_serving(running, uri)
    assert running.shutdown() == 0


def test_unstructurable_params_do_not_stop_the_server(server: tuple[RawServer, str]) -> None:
    running, uri = server
    for method, params in UNSTRUCTURABLE:
        running.request(method, params)
    still_serving(running, uri)
    assert running.shutdown() == 0


@pytest.mark.parametrize(("method", "params"), UNSTRUCTURABLE)
def test_unstructurable_params_get_invalid_params(
    server: tuple[RawServer, str], method: str, params: object
) -> None:
    running, _ = server
    response = running.call(method, params, timeout=2)
    assert response["error"]["code"] == INVALID_PARAMS


def test_notifications_for_unopened_documents_are_ignored(server: tuple[RawServer, str]) -> None:
    running, uri = server
    ghost = uri.replace("SKILL.md", "GHOST.md")
    running.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": ghost, "version": 2}, "contentChanges": [{"text": "x"}]},
    )
    running.notify("textDocument/didSave", {"textDocument": {"uri": ghost}})
    running.notify("textDocument/didClose", {"textDocument": {"uri": ghost}})
    running.notify("textDocument/didClose", {"textDocument": {"uri": "file:///elsewhere/x.md"}})
    still_serving(running, uri)
    assert running.shutdown() == 0


def test_stale_versions_and_out_of_range_edits_keep_the_server_alive(
    server: tuple[RawServer, str],
) -> None:
    running, uri = server
    far = {"start": {"line": 900, "character": 5}, "end": {"line": 1000, "character": 99}}
    backwards = {"start": {"line": 3, "character": 9}, "end": {"line": 1, "character": 0}}
    for version, change in [
        (5, {"range": far, "text": "appended\n"}),
        (3, {"text": TEXT + "stale full text\n"}),  # older than 5
        (6, {"range": backwards, "text": "?"}),
        (7, {"range": {"start": {"line": 0, "character": 10**6}, "end": far["end"]}, "text": ""}),
        (8, {"text": TEXT}),
    ]:
        running.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
        )
    running.wait_for(
        lambda: any(p.get("version") == 8 for p in running.published(uri)),
        what="diagnostics for version 8",
    )
    latest = [p for p in running.published(uri) if p.get("version") == 8][-1]
    assert [d["code"] for d in latest["diagnostics"]].count("RS001") == 1
    still_serving(running, uri)
    assert running.shutdown() == 0


def test_a_cancel_request_storm_is_survived(server: tuple[RawServer, str]) -> None:
    running, uri = server
    in_flight = [
        running.request(
            "textDocument/hover",
            {"textDocument": {"uri": uri}, "position": {"line": 5, "character": i % 20}},
        )
        for i in range(50)
    ]
    for i in range(2_000):
        running.notify("$/cancelRequest", {"id": in_flight[i % 50] if i % 2 else 10**6 + i})
    running.notify("$/cancelRequest", {"id": "no-such-id"})
    running.notify("$/cancelRequest", {})
    for request_id in in_flight:  # each gets an answer: a result or a cancellation error
        running.wait_response(request_id)
    still_serving(running, uri)
    assert running.shutdown() == 0
