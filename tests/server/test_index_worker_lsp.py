"""A large workspace is indexed in a worker process: closed files still get their diagnostics,
and the dependencies the worker recorded let a script edit re-check the SKILL.md that calls it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

REPO = Path(__file__).resolve().parents[2]
SKILLS = 60  # about 470 files: above the server's worker threshold


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks/gen_workspace.py"),
            str(SKILLS),
            "--out",
            str(root),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return root


def planted(root: Path) -> list[dict]:  # type: ignore[type-arg]
    return json.loads(Path(f"{root}.json").read_text(encoding="utf-8"))["drift"]  # type: ignore[no-any-return]


async def test_worker_index_publishes_closed_files_and_tracks_dependencies(
    client: LanguageClient, wait_until
) -> None:  # type: ignore[no-untyped-def]
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    drift = planted(root)[0]
    uri = (root / drift["path"]).as_uri()

    def codes() -> list[str]:
        return [d.code for d in client.diagnostics.get(uri, [])]  # type: ignore[misc]

    await wait_until(lambda: drift["code"] in codes(), timeout=60, what="the index's publish")
    (diag,) = [d for d in client.diagnostics[uri] if d.range.start.line == drift["line"]]
    assert diag.code == drift["code"]

    # Delete the script the command calls: the worker recorded that dependency, so the closed
    # SKILL.md is re-checked from the watched-file event and now reports the missing script.
    script = root / drift["script"]
    script.unlink()
    client.workspace_did_change_watched_files(
        lsp.DidChangeWatchedFilesParams(
            changes=[lsp.FileEvent(uri=script.as_uri(), type=lsp.FileChangeType.Deleted)]
        )
    )
    await wait_until(lambda: "CM001" in codes(), timeout=30, what="the dependent re-check")
