"""`--jobs N` checks in worker processes and reports exactly what a single process reports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("extra", [[], ["--select", "CM,RS"]])
def test_parallel_run_equals_serial_run(tmp_path: Path, extra: list[str]) -> None:
    workspace = tmp_path / "ws"
    subprocess.run(
        [sys.executable, str(ROOT / "benchmarks/gen_workspace.py"), "12", "--out", str(workspace)],
        check=True,
        capture_output=True,
        timeout=120,
    )

    def run(jobs: str) -> str:
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "easel_ls",
                "--check",
                ".",
                "--output-format",
                "json",
                "--no-cache",
                "--jobs",
                jobs,
                *extra,
            ],
            cwd=workspace,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode in (0, 1), result.stderr
        return result.stdout

    serial = run("1")
    assert '"code"' in serial  # the generated workspace has planted drift
    assert run("2") == serial
