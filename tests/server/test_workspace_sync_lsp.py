"""Workspace awareness over LSP: the background index publishes for files nobody opened, with
work-done progress; watched files re-check what depends on them (a script's argparse, a link
target); deleting a file clears its diagnostics; each root of a multi-root workspace has its own
config."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

SKILL_PATH = "skills/openclaw/card-maker/SKILL.md"
SCRIPT_PATH = "skills/openclaw/card-maker/scripts/render_cards.py"
REFERENCE_PATH = "skills/openclaw/card-maker/references/themes.md"
COMMAND_LINE = 20  # the command inside the SKILL.md's fence (0-based)
LINK_LINE = 10  # `[配色](references/themes.md)`


def units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def span(client: LanguageClient, line_text: str, line: int, needle: str) -> lsp.Range:
    """The range of ``needle`` in ``line_text``, in the client's position units."""
    encoding: str = client.encoding  # type: ignore[attr-defined]
    start = units(line_text[: line_text.index(needle)], encoding)
    return lsp.Range(lsp.Position(line, start), lsp.Position(line, start + units(needle, encoding)))


def codes(client: LanguageClient, uri: str) -> list[str]:
    return sorted(str(d.code) for d in client.diagnostics.get(uri, []))


def notify(client: LanguageClient, path: Path, kind: lsp.FileChangeType) -> None:
    client.workspace_did_change_watched_files(
        lsp.DidChangeWatchedFilesParams(changes=[lsp.FileEvent(uri=path.as_uri(), type=kind)])
    )


def root_of(client: LanguageClient) -> Path:
    return client.workspace_root  # type: ignore[attr-defined]


BROKEN_SKILL_PATH = "skills/openclaw/note-writer/SKILL.md"


@pytest.fixture()
def layout(request: pytest.FixtureRequest) -> str:
    return getattr(request, "param", "one-root")


@pytest.fixture()
def workspace_files(layout: str, workspace_files: Mapping[str, str]) -> Mapping[str, str]:
    """The shared workspace plus a second skill whose link is broken (RS001); or, for the
    layout "multi-root", two roots (alpha, beta) each holding the shared workspace with an
    unknown option in the SKILL.md, beta with a config that ignores CM002."""
    if layout == "multi-root":
        files: dict[str, str] = {"beta/easel-ls.toml": 'ignore = ["CM002"]\n'}
        for folder in ("alpha", "beta"):
            for rel, text in workspace_files.items():
                if rel == SKILL_PATH:
                    text = text.replace("--theme paper", "--thme paper")
                files[f"{folder}/{rel}"] = text
        return files
    card_maker = workspace_files[SKILL_PATH]
    head = card_maker.replace("card-maker", "note-writer").split("## 执行步骤")[0]
    head = head.replace("，配色见 [配色](references/themes.md)", "")  # its one link: steps.md
    return {**workspace_files, BROKEN_SKILL_PATH: head + "## 执行步骤\n见 [步骤](steps.md)。\n"}


async def test_background_index_publishes_unopened_files_with_progress(
    client: LanguageClient, wait_until, index_finished
) -> None:
    await index_finished()
    root = root_of(client)
    broken = root / BROKEN_SKILL_PATH
    uri = broken.as_uri()
    await wait_until(lambda: uri in client.diagnostics, what="the unopened broken skill")
    (diagnostic,) = client.diagnostics[uri]
    assert diagnostic.code == "RS001"
    line = broken.read_text(encoding="utf-8").splitlines()[-1]
    last_line = len(broken.read_text(encoding="utf-8").splitlines()) - 1
    assert diagnostic.range == span(client, line, last_line, "steps.md")
    # Clean files get no publish at all (thousands of empty lists help no one).
    assert (root / SKILL_PATH).as_uri() not in client.diagnostics
    (reports,) = [r for r in client.progress_reports.values() if r]
    begin, *middle, end = reports
    assert isinstance(begin, lsp.WorkDoneProgressBegin)
    assert begin.title == "easel-ls: checking the workspace"
    assert middle and all(isinstance(r, lsp.WorkDoneProgressReport) for r in middle)
    assert middle[-1].message == "4/4 files" and middle[-1].percentage == 100
    assert isinstance(end, lsp.WorkDoneProgressEnd)


async def test_file_watchers_are_registered_when_the_client_allows_it(
    client: LanguageClient, index_finished
) -> None:
    await index_finished()
    caps = client.capabilities.workspace if client.capabilities else None
    dynamic = bool(
        caps
        and caps.did_change_watched_files
        and caps.did_change_watched_files.dynamic_registration
    )
    watchers = [
        r
        for r in client.registrations  # type: ignore[attr-defined]
        if r.method == lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES
    ]
    if not dynamic:
        assert watchers == []  # Neovim's recorded capabilities do not allow it
        return
    (registration,) = watchers
    options: Any = registration.register_options
    globs = [
        w["globPattern"] if isinstance(w, dict) else w.glob_pattern for w in options["watchers"]
    ]
    assert globs == ["**/*.{md,py,sh,json,prompt,expected,toml}", "**/outputs/**"]


@pytest.mark.parametrize("opened", [True, False], ids=["skill-open", "skill-closed"])
async def test_changing_a_scripts_argparse_rechecks_the_skill_that_calls_it(
    client: LanguageClient, open_document, wait_until, index_finished, opened: bool
) -> None:
    await index_finished()
    root = root_of(client)
    skill_uri = (root / SKILL_PATH).as_uri()
    if opened:
        await open_document(SKILL_PATH)
    assert codes(client, skill_uri) == []
    script = root / SCRIPT_PATH
    original = script.read_text(encoding="utf-8")
    script.write_text(original.replace('"--theme"', '"--palette"'), encoding="utf-8")
    notify(client, script, lsp.FileChangeType.Changed)
    await wait_until(lambda: codes(client, skill_uri) == ["CM002"], what="CM002 after the edit")
    (diagnostic,) = client.diagnostics[skill_uri]
    line = (root / SKILL_PATH).read_text(encoding="utf-8").splitlines()[COMMAND_LINE]
    assert diagnostic.range == span(client, line, COMMAND_LINE, "--theme")
    script.write_text(original, encoding="utf-8")
    notify(client, script, lsp.FileChangeType.Changed)
    await wait_until(lambda: codes(client, skill_uri) == [], what="CM002 gone after the revert")


async def test_deleting_a_reference_shows_rs001_and_creating_it_clears_it(
    client: LanguageClient, open_document, wait_until, index_finished
) -> None:
    await index_finished()
    root = root_of(client)
    skill_uri = await open_document(SKILL_PATH)
    reference = root / REFERENCE_PATH
    text = reference.read_text(encoding="utf-8")
    reference.unlink()
    notify(client, reference, lsp.FileChangeType.Deleted)
    await wait_until(lambda: codes(client, skill_uri) == ["RS001"], what="RS001 after the delete")
    (diagnostic,) = client.diagnostics[skill_uri]
    line = (root / SKILL_PATH).read_text(encoding="utf-8").splitlines()[LINK_LINE]
    assert diagnostic.range == span(client, line, LINK_LINE, "references/themes.md")
    reference.write_text(text, encoding="utf-8")
    notify(client, reference, lsp.FileChangeType.Created)
    await wait_until(lambda: codes(client, skill_uri) == [], what="RS001 gone after the create")


async def test_deleting_a_file_clears_its_diagnostics(
    client: LanguageClient, wait_until, index_finished
) -> None:
    await index_finished()
    broken = root_of(client) / BROKEN_SKILL_PATH
    uri = broken.as_uri()
    await wait_until(lambda: codes(client, uri) == ["RS001"], what="the indexed RS001")
    broken.unlink()
    notify(client, broken, lsp.FileChangeType.Deleted)
    await wait_until(lambda: codes(client, uri) == [], what="the deleted file's diagnostics gone")


async def test_creating_a_config_file_rechecks_every_file(
    client: LanguageClient, wait_until, index_finished
) -> None:
    await index_finished()
    root = root_of(client)
    uri = (root / BROKEN_SKILL_PATH).as_uri()
    await wait_until(lambda: codes(client, uri) == ["RS001"], what="the indexed RS001")
    config = root / "easel-ls.toml"
    config.write_text('ignore = ["RS001"]\n', encoding="utf-8")
    notify(client, config, lsp.FileChangeType.Created)
    await wait_until(lambda: codes(client, uri) == [], what="the config's ignore on a closed file")


async def pull(client: LanguageClient, uri: str) -> list[str]:
    report = await client.text_document_diagnostic_async(
        lsp.DocumentDiagnosticParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
    )
    assert isinstance(report, lsp.RelatedFullDocumentDiagnosticReport)
    return sorted(str(d.code) for d in report.items)


@pytest.mark.parametrize("layout", ["multi-root"], indirect=True)
@pytest.mark.parametrize("workspace_folders", [["alpha", "beta"]], indirect=True)
async def test_each_root_of_a_multi_root_workspace_has_its_own_config(
    client: LanguageClient, layout, workspace_folders, wait_until, index_finished
) -> None:
    """Both roots hold the same skill with an unknown option; only beta's config ignores it."""
    await index_finished()
    root = root_of(client)
    alpha = (root / "alpha" / SKILL_PATH).as_uri()
    beta = (root / "beta" / SKILL_PATH).as_uri()
    await wait_until(lambda: codes(client, alpha) == ["CM002"], what="alpha's indexed CM002")
    assert beta not in client.diagnostics  # indexed and clean: nothing published
    assert await pull(client, alpha) == ["CM002"]
    assert await pull(client, beta) == []
    shown: Any = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="easel.showSettings", arguments=[beta])
    )
    assert shown["workspace_root"] == str((root / "beta").resolve())
    assert shown["config_path"] == str((root / "beta" / "easel-ls.toml").resolve())
    assert "CM002" not in shown["enabled"]


async def test_editing_an_open_script_rechecks_the_skill_once_typing_pauses(
    client: LanguageClient, open_document, wait_until, index_finished
) -> None:
    await index_finished()
    root = root_of(client)
    skill_uri = (root / SKILL_PATH).as_uri()
    script_uri = await open_document(SCRIPT_PATH, language_id="python")
    original = (root / SCRIPT_PATH).read_text(encoding="utf-8")
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=script_uri, version=2),
            content_changes=[
                lsp.TextDocumentContentChangeWholeDocument(
                    text=original.replace('"--theme"', '"--palette"')
                )
            ],
        )
    )
    # The unsaved buffer is what the SKILL.md is checked against.
    await wait_until(lambda: codes(client, skill_uri) == ["CM002"], what="CM002 from the buffer")
    client.text_document_did_close(
        lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=script_uri))
    )
    await wait_until(lambda: codes(client, skill_uri) == [], what="back to the disk text")
