"""VS Code end to end with the platform package: a clean code-server profile with only
easel-ls-linux-x64-<version>.vsix installed, no `easel-ls.server.path`, and a PATH whose python3
(>= 3.11) cannot import easel_ls and that has no `easel-ls`. The server bundled in the .vsix must
start with that python3 and publish CM002 for the drifted option (vscode/drive_bundled.js), and
the extension's log must say the bundled server was chosen."""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_tools import skip_missing
from vscode_harness import (
    CHROMIUM,
    EXTENSION_DIR,
    USER_SETTINGS,
    code_server,
    code_server_args,
    extension_logs,
    playwright_modules,
    run_driver,
    serving,
)

TARGET = "linux-x64"


def bundled_vsix() -> Path:
    version = json.loads((EXTENSION_DIR / "package.json").read_text(encoding="utf-8"))["version"]
    return EXTENSION_DIR / f"easel-ls-{TARGET}-{version}.vsix"


def usable_without_easel_ls(python: str) -> bool:
    """A CPython >= 3.11 that cannot import easel_ls (run as the extension runs it: no user site)."""
    probe = subprocess.run(
        [
            python,
            "-s",
            "-c",
            "import importlib.util, sys; "
            "sys.exit(sys.version_info < (3, 11) or importlib.util.find_spec('easel_ls') is not None)",
        ],
        env={k: v for k, v in os.environ.items() if not k.startswith("PYTHON")},
        cwd="/",  # not the repo, whose easel_ls `-c` would find through the working directory
        capture_output=True,
        timeout=30,
    )
    return probe.returncode == 0


@pytest.fixture()
def bare_path(tmp_path: Path) -> Path:
    """A bin/ folder for the front of PATH: python3 (the system one when it is >= 3.11 and has
    no easel_ls, else a fresh venv of this interpreter's base, which has none) and node."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    python = "/usr/bin/python3"
    if not (Path(python).exists() and usable_without_easel_ls(python)):
        venv = tmp_path / "venv"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        python = str(venv / "bin" / "python3")
    assert usable_without_easel_ls(python), f"{python} is no Python >= 3.11 without easel_ls"
    (bin_dir / "python3").symlink_to(python)
    node = shutil.which("node")
    if node is None:
        skip_missing("node")
    (bin_dir / "node").symlink_to(node)  # code-server's launcher is a node script
    return bin_dir


@pytest.fixture()
def bundled_url(tmp_path: Path, workspace: Path, bare_path: Path) -> Iterator[str]:
    """code-server with only the linux-x64 package installed, started with the bare PATH."""
    if sys.platform != "linux" or platform.machine() != "x86_64":
        pytest.skip(f"the {TARGET} package only installs on Linux x86_64")
    for tool, present in (
        ("code-server", code_server().exists()),
        ("chromium", CHROMIUM.exists()),
        ("playwright-core", (playwright_modules() / "playwright-core").is_dir()),
    ):
        if not present:
            skip_missing(tool)
    if not bundled_vsix().exists():
        pytest.fail(f"{bundled_vsix()} was not built: run `bash .ci/e2e-setup.sh`")
    (tmp_path / "ud" / "User").mkdir(parents=True)
    (tmp_path / "ud" / "User" / "settings.json").write_text(json.dumps(USER_SETTINGS))
    search_path = os.pathsep.join([str(bare_path), "/usr/bin", "/bin"])
    assert shutil.which("easel-ls", path=search_path) is None, "easel-ls is on the bare PATH"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    # VSCODE_CLI=1: the server skips resolving a login shell's environment, which would put
    # the user's PATH (and maybe an easel-ls) back.
    env.update(PATH=search_path, VSCODE_CLI="1")
    profile = tmp_path
    installed = subprocess.run(
        [*code_server_args(profile), "--install-extension", str(bundled_vsix())],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    listed = subprocess.run(
        [*code_server_args(profile), "--list-extensions"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert listed.stdout.split() == ["easel.easel-ls"], listed.stdout + listed.stderr
    with serving(profile, workspace, env=env) as url:
        yield url


def test_vscode_bundled_server_works_on_install(
    bundled_url: str, tmp_path: Path, workspace: Path, bare_path: Path
) -> None:
    run_driver("drive_bundled.js", bundled_url, tmp_path, workspace, timeout=120)
    logs = extension_logs(tmp_path)
    python3 = bare_path / "python3"
    started = f"Starting {python3} -s -P -m easel_ls server"
    assert started in logs, f"the bundled server was not started with {python3}:\n{logs}"
    line = next(line for line in logs.splitlines() if started in line)
    assert "bundled server (easel-ls" in line and f"{TARGET}) with Python 3." in line, line
    assert str(tmp_path / "ext") in line, f"the libraries are not the installed package's: {line}"
