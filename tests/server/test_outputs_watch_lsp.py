"""A project's files are watched too (`**/outputs/**`): deleting the cover PNG, which no other
watcher glob names, re-checks the manifest (MF005), and restoring it clears the finding."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

MANIFEST = "outputs/spring-cards/.easel.json"
COVER = "outputs/spring-cards/cover.png"


@pytest.fixture()
def workspace_files() -> Mapping[str, str]:
    manifest = {
        "topic": "spring-cards",
        "title": "春日卡片",
        "kind": "cards",
        "status": "draft",
        "cover": "cover.png",
        "deliverables": ["cover.png"],
    }
    return {
        MANIFEST: json.dumps(manifest, ensure_ascii=False, indent=2) + "\n",
        "skills/openclaw/card-maker/SKILL.md": "---\nname: card-maker\ndescription: x\n---\n",
    }


@pytest.fixture()
def workspace(tmp_path: Path, workspace_files: Mapping[str, str]) -> Path:
    for rel, text in workspace_files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    # A real (tiny) PNG: the signature and an IHDR chunk.
    (tmp_path / COVER).write_bytes(
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"
    )
    return tmp_path


def codes(client: LanguageClient, uri: str) -> list[str]:
    return sorted(str(d.code) for d in client.diagnostics.get(uri, []))


async def test_deleting_the_cover_rechecks_the_manifest(
    client: LanguageClient, wait_until, index_finished
) -> None:
    await index_finished()
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    manifest_uri = (root / MANIFEST).as_uri()
    assert "MF005" not in codes(client, manifest_uri)
    cover = root / COVER
    data = cover.read_bytes()
    cover.unlink()
    client.workspace_did_change_watched_files(
        lsp.DidChangeWatchedFilesParams(
            changes=[lsp.FileEvent(uri=cover.as_uri(), type=lsp.FileChangeType.Deleted)]
        )
    )
    await wait_until(lambda: "MF005" in codes(client, manifest_uri), what="MF005 after delete")
    cover.write_bytes(data)
    client.workspace_did_change_watched_files(
        lsp.DidChangeWatchedFilesParams(
            changes=[lsp.FileEvent(uri=cover.as_uri(), type=lsp.FileChangeType.Created)]
        )
    )
    await wait_until(lambda: "MF005" not in codes(client, manifest_uri), what="MF005 gone")
