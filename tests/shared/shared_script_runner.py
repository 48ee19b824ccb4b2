"""Run the shared Easel scripts as real subprocesses, the way skills call them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPTS_DIR = Path(__file__).resolve().parents[2] / "skills" / "shared" / "scripts"


def run_script(
    name: str,
    *args: str,
    cwd: Path | None = None,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``skills/shared/scripts/<name>`` as ``python <path> args``."""
    # The caller's own outputs/.env settings must not leak into a test.
    full_env = {k: v for k, v in os.environ.items() if k not in ("EASEL_OUTPUTS", "EASEL_ENV_FILE")}
    full_env.update({"PYTHONIOENCODING": "utf-8", **(env or {})})
    return subprocess.run(
        [sys.executable, str(SCRIPTS_DIR / name), *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=full_env,
        timeout=60,
    )
