"""The subcommands as ruff has them (`check`, `server`, `rule`, `sync`), options and paths in any
order, the deprecated `--check` alias, and the server spellings editors use today."""

from __future__ import annotations

import json
import os
import pty
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

import pytest
from cli_tools import environment, make_workspace, run

from easel_ls.cli import DEPRECATION_NOTE


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "--output-format", "json", "skills"],
        ["check", "skills", "--output-format", "json"],
        ["check", "skills/openclaw", "--output-format", "json", "skills/openclaw/xhs-publish"],
        ["--check", "--output-format", "json", "skills"],  # the failing command
        ["--check", "skills", "--output-format", "json"],
        ["--output-format", "json", "--check", "skills"],
    ],
)
def test_options_and_paths_in_any_order(tmp_path: Path, argv: list[str]) -> None:
    make_workspace(tmp_path, name="card-makr", folder="card-maker")
    result = run(*argv, cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    codes = {finding["code"] for finding in json.loads(result.stdout)}
    assert codes == {"FM009"}
    assert result.stderr == ""  # no deprecation note off a terminal


def test_check_on_named_paths_checks_only_those(tmp_path: Path) -> None:
    make_workspace(tmp_path, name="card-makr", folder="card-maker")
    other = run("check", "skills/openclaw/xhs-publish", "--output-format", "concise", cwd=tmp_path)
    assert other.returncode == 0 and other.stdout == "All checks passed!\n"
    mine = run("check", "--output-format", "concise", "skills/openclaw/card-maker", cwd=tmp_path)
    assert mine.returncode == 1 and "FM009" in mine.stdout


def _with_terminal_stderr(argv: list[str], cwd: Path) -> tuple[int, str, str]:
    """Run with stderr on a pseudo-terminal (as in a shell), stdout on a pipe."""
    controller, terminal = pty.openpty()
    try:
        process = subprocess.run(
            [sys.executable, "-m", "easel_ls", *argv],
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=terminal,
            text=True,
            timeout=60,
            env=environment(),
        )
        os.close(terminal)
        terminal = -1
        chunks = []
        while True:
            try:
                chunk = os.read(controller, 4096)
            except OSError:  # the terminal side is closed: everything was read
                break
            if not chunk:
                break
            chunks.append(chunk)
        return process.returncode, process.stdout, b"".join(chunks).decode()
    finally:
        os.close(controller)
        if terminal != -1:
            os.close(terminal)


def test_the_deprecated_alias_says_so_on_a_terminal_only(tmp_path: Path) -> None:
    make_workspace(tmp_path)
    code, stdout, stderr = _with_terminal_stderr(
        ["--check", "--output-format", "concise", "skills"], tmp_path
    )
    assert code == 0 and stdout == "All checks passed!\n"
    assert stderr.replace("\r\n", "\n") == DEPRECATION_NOTE
    assert DEPRECATION_NOTE.count("\n") == 1  # one line
    code, _, stderr = _with_terminal_stderr(
        ["check", "--output-format", "concise", "skills"], tmp_path
    )
    assert code == 0 and stderr == ""  # the subcommand is not deprecated
    piped = run("--check", "skills", "--output-format", "concise", cwd=tmp_path)
    assert piped.returncode == 0 and piped.stderr == ""


def test_old_check_options_without_check_still_check(tmp_path: Path) -> None:
    make_workspace(tmp_path, name="card-makr", folder="card-maker")
    diff = run("--diff", cwd=tmp_path)
    assert diff.returncode == 1 and "+name: card-maker" in diff.stdout
    settings = json.loads(run("--show-settings", cwd=tmp_path).stdout)
    assert settings["workspace_root"] == str(tmp_path.resolve())


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["chek"], "unknown command `chek`; did you mean `check`?"),
        (["lint", "skills"], "unknown command `lint`"),
        (["--verbose"], "unrecognized arguments: --verbose"),
        (["check", "--output-format", "xml"], "invalid choice: 'xml'"),
        (["check", "--jobs", "0"], "must be 1 or more"),
        (["check", "--watch", "--fix"], "--watch cannot be combined with --fix"),
        (["check", "--add-suppressions", "--diff"], "--add-suppressions cannot be combined"),
        (["check", "no-such-folder"], "no such file or folder: no-such-folder"),
        (["check", "--output-file", "pyproject.toml/report.txt"], "cannot write the report"),
        (["server", "--stdio", "--tcp"], "not allowed with argument"),
        (["server", "--tcp", "--port", "70000"], "--port must be between 0 and 65535"),
        (["rule"], "give a CODE or --all"),
        (["rule", "CM999"], "unknown rule `CM999`"),
        (["sync", "no-such-folder"], "no such folder"),
    ],
)
def test_bad_input_exits_two_with_a_clear_message(
    tmp_path: Path, argv: list[str], message: str
) -> None:
    make_workspace(tmp_path)
    result = run(*argv, cwd=tmp_path, timeout=30)
    assert result.returncode == 2, result.stdout + result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def _frame(payload: dict[str, Any]) -> bytes:
    body = json.dumps(payload).encode()
    return f"Content-Length: {len(body)}\r\n\r\n".encode() + body


def _read_message(stream: IO[bytes]) -> dict[str, Any]:
    length = 0
    while True:
        line = stream.readline()
        if not line:
            raise EOFError("the server closed its output")
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    message: dict[str, Any] = json.loads(stream.read(length))
    return message


def _initialize(root: Path) -> bytes:
    return _frame(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"processId": None, "rootUri": root.as_uri(), "capabilities": {}},
        }
    )


def _handshake(write: IO[bytes], read: IO[bytes], root: Path) -> dict[str, Any]:
    """initialize → its result, then shutdown and exit."""
    write.write(_initialize(root))
    write.flush()
    while True:
        message = _read_message(read)
        if message.get("id") == 1:
            break
    write.write(_frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
    write.write(_frame({"jsonrpc": "2.0", "method": "exit"}))
    write.flush()
    result: dict[str, Any] = message["result"]
    return result


@pytest.mark.parametrize("argv", [[], ["server"], ["server", "--stdio"], ["--stdio"]], ids=repr)
def test_the_server_speaks_lsp_over_stdio(tmp_path: Path, argv: list[str]) -> None:
    """`easel-ls server`, and the spellings editors are configured with today: bare `easel-ls`
    and `easel-ls --stdio` (VS Code's client adds `--stdio` to the command it is given)."""
    make_workspace(tmp_path)
    process = subprocess.Popen(
        [sys.executable, "-m", "easel_ls", *argv],
        cwd=tmp_path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        result = _handshake(process.stdin, process.stdout, tmp_path)
        assert result["serverInfo"]["name"] == "easel-ls"
        assert "textDocumentSync" in result["capabilities"]
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.mark.parametrize("argv", [["server", "--tcp"], ["--tcp"]], ids=repr)
def test_the_server_speaks_lsp_over_tcp(tmp_path: Path, argv: list[str]) -> None:
    make_workspace(tmp_path)
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "easel_ls", *argv, "--port", str(port)],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                connection = socket.create_connection(("127.0.0.1", port), timeout=30)
                break
            except OSError:
                assert process.poll() is None, process.communicate()[1]
                assert time.monotonic() < deadline, "the server never listened"
                time.sleep(0.1)
        with connection, connection.makefile("rwb") as stream:
            result = _handshake(stream, stream, tmp_path)
        assert result["serverInfo"]["name"] == "easel-ls"
    finally:
        process.kill()
        process.wait()
