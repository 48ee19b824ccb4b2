"""A raw JSON-RPC client for `python -m easel_ls` over stdio: it writes Content-Length frames
itself (so it can also write broken ones), answers the server's own requests, and records
every message the server sends."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


class RawServer:
    def __init__(self, cwd: Path, *, python: str = sys.executable) -> None:
        self.process = subprocess.Popen(
            [python, "-m", "easel_ls"],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
        self.next_id = 0
        self.responses: dict[Any, dict[str, Any]] = {}  # id null: an error about a bad frame
        self.notifications: list[dict[str, Any]] = []
        self.server_requests: list[dict[str, Any]] = []
        self.arrived: queue.Queue[None] = queue.Queue()
        self.stderr_lines: list[bytes] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    # -- writing ----------------------------------------------------------------------------
    def send_raw(self, payload: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(payload)
        self.process.stdin.flush()

    def send(self, message: dict[str, Any] | list[Any] | str | int) -> None:
        body = json.dumps(message).encode("utf-8")
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def request(self, method: str, params: Any = None) -> int:
        with self._lock:
            self.next_id += 1
            request_id = self.next_id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return request_id

    def call(self, method: str, params: Any = None, timeout: float = 30.0) -> dict[str, Any]:
        return self.wait_response(self.request(method, params), timeout)

    def wait_response(self, request_id: int | str, timeout: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while request_id not in self.responses:
            if self.process.poll() is not None:
                raise AssertionError(f"server exited ({self.process.returncode}): {self.stderr()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"no response to request {request_id} in {timeout}s")
            with contextlib.suppress(queue.Empty):
                self.arrived.get(timeout=0.05)
        return self.responses[request_id]

    def wait_for(self, predicate: Any, timeout: float = 30.0, what: str = "") -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            if self.process.poll() is not None:
                raise AssertionError(f"server exited: {self.stderr()}")
            with contextlib.suppress(queue.Empty):
                self.arrived.get(timeout=0.05)

    def initialize(self, root: Path, capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
        response = self.call(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": root.as_uri(),
                "workspaceFolders": [{"uri": root.as_uri(), "name": "ws"}],
                "capabilities": capabilities or {},
                "initializationOptions": {"debounceMs": 0},
            },
        )
        assert "result" in response, response
        self.notify("initialized", {})
        result: dict[str, Any] = response["result"]
        return result

    def shutdown(self, timeout: float = 30.0) -> int:
        """shutdown + exit; the exit status of the server."""
        response = self.call("shutdown", timeout=timeout)
        assert "error" not in response, response
        self.notify("exit")
        try:
            return self.process.wait(timeout=timeout)
        finally:
            self.close()

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()

    def stderr(self) -> str:
        return b"".join(self.stderr_lines).decode("utf-8", "replace")[-4000:]

    def rss_kb(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    # -- reading ----------------------------------------------------------------------------
    def _read_stdout(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            if length is None:
                continue
            message = json.loads(stream.read(length))
            self._dispatch(message)
            self.arrived.put(None)

    def _dispatch(self, message: dict[str, Any]) -> None:
        if "method" in message and "id" in message:
            self.server_requests.append(message)
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": _answer(message)})
        elif "method" in message:
            self.notifications.append(message)
        else:
            self.responses[message.get("id")] = message

    def _read_stderr(self) -> None:
        stream = self.process.stderr
        assert stream is not None
        for line in stream:
            self.stderr_lines.append(line)

    def published(self, uri: str) -> list[dict[str, Any]]:
        return [
            n["params"]
            for n in list(self.notifications)
            if n["method"] == "textDocument/publishDiagnostics" and n["params"]["uri"] == uri
        ]


def _answer(request: dict[str, Any]) -> Any:
    """What an editor would answer to the server's requests (edits are not applied)."""
    method = request["method"]
    if method == "workspace/configuration":
        return [None for _ in request.get("params", {}).get("items", [])]
    if method == "workspace/applyEdit":
        return {"applied": False, "failureReason": "test client does not apply edits"}
    if method == "window/showMessageRequest":
        return None
    return None
