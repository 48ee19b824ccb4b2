"""A config file the server cannot use (`check` exits 2 on it): the editor goes on with the
default settings for its files and says so once, in a message naming the file and the problem;
the background index ends; fixing the file re-indexes with it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

SKILL_PATH = "skills/openclaw/card-maker/SKILL.md"
BROKEN = "skills/openclaw/note-writer/SKILL.md"
USABLE = 'ignore = ["RS001"]\n'


@pytest.fixture()
def workspace_files(workspace_files: Mapping[str, str]) -> Mapping[str, str]:
    card_maker = workspace_files[SKILL_PATH]
    head = card_maker.replace("card-maker", "note-writer").split("## 执行步骤")[0]
    head = head.replace("，配色见 [配色](references/themes.md)", "")  # its one link: steps.md
    return {
        **workspace_files,
        BROKEN: head + "## 执行步骤\n见 [步骤](steps.md)。\n",
        "easel-ls.toml": USABLE + 'extend-exclude = ["!"]\n',
    }


def warnings(client: LanguageClient) -> list[str]:
    return [m.message for m in client.messages if m.type == lsp.MessageType.Warning]


async def test_a_broken_config_is_shown_once_and_fixing_it_reindexes(
    client: LanguageClient, index_finished, wait_until, open_document
) -> None:
    await index_finished()
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    config = root / "easel-ls.toml"
    broken = (root / BROKEN).as_uri()
    # The defaults apply: the config's `ignore` is not used, so RS001 shows.
    await wait_until(lambda: broken in client.diagnostics, what="the index, with the defaults")
    assert [d.code for d in client.diagnostics[broken]] == ["RS001"]
    await open_document(SKILL_PATH)
    (shown,) = warnings(client)  # once, though the index and the open document both met it
    assert str(config) in shown
    assert "`extend-exclude`: `!` is not a .gitignore pattern" in shown
    assert "The default settings apply until it is fixed." in shown
    described: Any = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="easel.showSettings", arguments=[broken])
    )
    assert list(described["config_errors"]) == [str(config)]
    assert described["options"]["extend-exclude"] == []  # the defaults, meanwhile

    config.write_text(USABLE, encoding="utf-8")
    client.workspace_did_change_watched_files(
        lsp.DidChangeWatchedFilesParams(
            changes=[lsp.FileEvent(uri=config.as_uri(), type=lsp.FileChangeType.Changed)]
        )
    )
    await wait_until(
        lambda: len(client.diagnostics[broken]) == 0, timeout=30, what="the re-index with it"
    )
    assert len(warnings(client)) == 1
