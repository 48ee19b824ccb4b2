"""The code-server harness the VS Code end-to-end tests share: a fresh profile with the built .vsix
installed, code-server serving the copied fixture workspace (stopped with its whole process
group), and a runner for a playwright-core driver script under tests/e2e/vscode/.

Tests use the fixtures by importing them: `from vscode_harness import profile, vscode_url`
(noqa F401/F811: pytest finds fixtures by name in the test module)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_tools import E2E_DIR, REPO, skip_missing, tools_dir

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
EXTENSION_DIR = REPO / "vscode-extension"
USER_SETTINGS = {
    "workbench.startupEditor": "none",
    "security.workspace.trust.enabled": False,
    "telemetry.telemetryLevel": "off",
    "extensions.autoCheckUpdates": False,
    "extensions.autoUpdate": False,
    "update.mode": "none",
    "workbench.enableExperiments": False,
    "workbench.tips.enabled": False,
    "chat.disableAIFeatures": True,
    "easel-ls.debounceMs": 0,
    "easel-ls.trace.server": "messages",
}


def code_server() -> Path:
    return tools_dir() / "code-server" / "node_modules" / ".bin" / "code-server"


def playwright_modules() -> Path:
    return tools_dir() / "driver" / "node_modules"


def built_vsix() -> Path:
    """The universal .vsix .ci/e2e-setup.sh built; $EASEL_E2E_VSIX points at another build."""
    if os.environ.get("EASEL_E2E_VSIX"):
        return Path(os.environ["EASEL_E2E_VSIX"])
    version = json.loads((EXTENSION_DIR / "package.json").read_text(encoding="utf-8"))["version"]
    return EXTENSION_DIR / f"easel-ls-{version}.vsix"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture()
def profile(tmp_path: Path, easel_ls_bin: Path) -> Path:
    """A fresh user-data dir, extensions dir and config: nothing leaks in from $HOME."""
    for tool, present in (
        ("code-server", code_server().exists()),
        ("chromium", CHROMIUM.exists()),
        ("playwright-core", (playwright_modules() / "playwright-core").is_dir()),
        ("node", shutil.which("node") is not None),
    ):
        if not present:
            skip_missing(tool)
    if not built_vsix().exists():
        pytest.fail(f"{built_vsix()} was not built: run `bash .ci/e2e-setup.sh`")
    (tmp_path / "ud" / "User").mkdir(parents=True)
    # An explicit server path: code-server's extension host takes PATH from a login shell.
    settings = {**USER_SETTINGS, "easel-ls.server.path": str(easel_ls_bin / "easel-ls")}
    (tmp_path / "ud" / "User" / "settings.json").write_text(json.dumps(settings))
    return tmp_path


def code_server_args(profile: Path) -> list[str]:
    # --config always: code-server otherwise writes ~/.config/code-server/config.yaml
    return [
        str(code_server()),
        "--config",
        str(profile / "config.yaml"),
        "--user-data-dir",
        str(profile / "ud"),
        "--extensions-dir",
        str(profile / "ext"),
    ]


@pytest.fixture()
def vscode_url(profile: Path, workspace: Path) -> Iterator[str]:
    """code-server with the .vsix installed, serving the workspace; stopped with its children."""
    installed = subprocess.run(
        [*code_server_args(profile), "--install-extension", str(built_vsix())],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    with serving(profile, workspace, extra_args=("--log", "trace")) as url:
        yield url


@contextlib.contextmanager
def serving(
    profile: Path,
    workspace: Path,
    env: dict[str, str] | None = None,
    extra_args: tuple[str, ...] = (),
) -> Iterator[str]:
    """code-server on a free port serving ``workspace`` from ``profile``; its URL, until the
    block ends (then it is stopped with its children)."""
    port = free_port()
    log = (profile / "code-server.log").open("w")
    server = subprocess.Popen(
        [
            *code_server_args(profile),
            "--auth",
            "none",
            "--bind-addr",
            f"127.0.0.1:{port}",
            "--disable-telemetry",
            "--disable-update-check",
            "--disable-workspace-trust",
            "--disable-getting-started-override",
            "--disable-file-downloads",
            *extra_args,
            str(workspace),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        start_new_session=True,  # own process group: the cleanup also ends the extension host
    )
    try:
        wait_healthy(port, server, profile / "code-server.log")
        yield f"http://127.0.0.1:{port}/?folder={workspace}"
    finally:
        stop_group(server)
        log.close()


def wait_healthy(port: int, server: subprocess.Popen[bytes], log_path: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail("code-server exited:\n" + log_path.read_text(errors="replace"))
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    pytest.fail("code-server did not become healthy in 60 s")


def stop_group(process: subprocess.Popen[bytes]) -> None:
    for sig, grace in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 0.0)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            try:
                os.killpg(process.pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.2)
    process.wait(timeout=5)


def extension_logs(profile: Path) -> str:
    parts = []
    for log in sorted(profile.glob("ud/logs/**/*Easel LS*.log")):
        parts.append(f"--- {log}\n{log.read_text(errors='replace')[-4000:]}")
    code_server_log = profile / "code-server.log"
    if code_server_log.exists():
        parts.append(f"--- code-server.log\n{code_server_log.read_text(errors='replace')[-3000:]}")
    return "\n".join(parts)


def screenshot_dir(profile: Path) -> Path:
    """$EASEL_E2E_SCREENSHOTS (e.g. vscode-extension/media for the README), else the profile."""
    shots = Path(os.environ.get("EASEL_E2E_SCREENSHOTS", profile / "screenshots"))
    shots.mkdir(parents=True, exist_ok=True)
    return shots


def run_driver(
    driver: str, vscode_url: str, profile: Path, workspace: Path, *, timeout: float = 240
) -> str:
    """Runs tests/e2e/vscode/<driver> (argv: url, workspace, screenshot dir) with playwright-core
    and Debian's Chromium; fails the test with its output, the screenshots' place and the
    extension and code-server logs unless it exits 0 and printed "E2E OK". Returns its stdout."""
    shots = screenshot_dir(profile)
    env = dict(os.environ, NODE_PATH=str(playwright_modules()), CHROMIUM=str(CHROMIUM))
    driven = subprocess.run(
        ["node", str(E2E_DIR / "vscode" / driver), vscode_url, str(workspace), str(shots)],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    print(driven.stdout)
    assert driven.returncode == 0 and "E2E OK" in driven.stdout, (
        f"{driven.stdout}\n{driven.stderr[-2000:]}\nscreenshots in {shots}\n"
        + extension_logs(profile)
    )
    return driven.stdout
