"""The `exclude` settings in the editor: the background index never checks what they leave
out, and a document opened there shows no diagnostics (as `check --force-exclude` leaves it
out); the same finding elsewhere is shown."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from pytest_lsp import LanguageClient

SKILL_PATH = "skills/openclaw/card-maker/SKILL.md"
ARCHIVED = "archive/skills/openclaw/card-maker/SKILL.md"
BROKEN = "skills/openclaw/note-writer/SKILL.md"
ARCHIVED_BROKEN = "archive/skills/openclaw/note-writer/SKILL.md"


def typo(skill: str) -> str:
    return skill.replace("--theme paper", "--thme paper")


@pytest.fixture()
def workspace_files(workspace_files: Mapping[str, str]) -> Mapping[str, str]:
    skill = workspace_files[SKILL_PATH]
    broken = skill.replace("card-maker", "note-writer").replace(
        "配色见 [配色](references/themes.md)", "步骤见 [步骤](steps.md)"
    )
    return {
        **workspace_files,
        "easel-ls.toml": 'extend-exclude = ["/archive/"]\n',
        BROKEN: broken,
        ARCHIVED_BROKEN: broken,
        ARCHIVED: typo(skill),
    }


async def test_excluded_files_are_not_indexed_and_show_no_diagnostics_when_opened(
    client: LanguageClient, index_finished, wait_until, open_document, diagnostic_codes
) -> None:
    await index_finished()
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    broken = (root / BROKEN).as_uri()
    await wait_until(lambda: broken in client.diagnostics, what="the broken skill")
    assert "RS001" in diagnostic_codes(broken)
    assert (root / ARCHIVED_BROKEN).as_uri() not in client.diagnostics  # never indexed
    uri = await open_document(ARCHIVED)
    assert diagnostic_codes(uri) == []  # an unknown option, but in an excluded folder
    shown = await open_document(SKILL_PATH, typo((root / SKILL_PATH).read_text("utf-8")))
    assert "CM002" in diagnostic_codes(shown)
