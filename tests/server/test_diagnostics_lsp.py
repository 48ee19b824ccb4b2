"""Diagnostics over LSP: pushed on open, change (debounced) and save; pulled with result ids;
positions in the negotiated encoding; an edit storm ends with the last version only; editor
settings layer over the config file and apply without a restart."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

# The workspace is the shared one from conftest.py: a clean skill whose one command calls
# a script; ``typo`` misspells one of the script's options.
SKILL_PATH = "skills/openclaw/card-maker/SKILL.md"
SCRIPT_PATH = "skills/openclaw/card-maker/scripts/render_cards.py"
TYPO_LINE = 20  # the command line inside the fence (0-based)
COMMAND = f"python {SCRIPT_PATH} --topic <主题> --thme paper"


def units(text: str, encoding: str) -> int:
    """Length of ``text`` in the client's position units."""
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


@pytest.fixture()
def skill(workspace_files) -> str:
    return str(workspace_files[SKILL_PATH])


@pytest.fixture()
def typo(skill: str) -> str:
    return skill.replace("--theme paper", "--thme paper")


def codes_of(client: LanguageClient, uri: str) -> list[str]:
    return sorted(str(d.code) for d in client.diagnostics.get(uri, []))


def only(client: LanguageClient, uri: str, code: str) -> lsp.Diagnostic:
    (diagnostic,) = [d for d in client.diagnostics[uri] if d.code == code]
    return diagnostic


async def test_clean_skill_opens_with_no_diagnostics(client, open_document, diagnostic_codes):
    uri = await open_document(SKILL_PATH)
    assert diagnostic_codes(uri) == []


async def test_diagnostic_carries_code_link_source_severity_related_and_fixes(
    client: LanguageClient, open_document, typo: str
) -> None:
    uri = await open_document(SKILL_PATH, typo)
    diagnostic = only(client, uri, "CM002")
    # `<主题>` comes before the option: one unit a character, but three bytes each in UTF-8.
    start = units(COMMAND[: COMMAND.index("--thme")], client.encoding)  # type: ignore[attr-defined]
    assert diagnostic.range == lsp.Range(
        lsp.Position(TYPO_LINE, start), lsp.Position(TYPO_LINE, start + len("--thme"))
    )
    assert diagnostic.source == "easel-ls"
    assert diagnostic.severity == lsp.DiagnosticSeverity.Error
    assert diagnostic.code_description is not None
    assert diagnostic.code_description.href.endswith("#cm002-unknown-option")
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    (related,) = diagnostic.related_information or []
    assert related.location.uri == (root / SCRIPT_PATH).as_uri()
    assert related.location.range.start.line == 5  # the ArgumentParser the option is missing from
    data: Any = diagnostic.data
    fixes = data["fixes"]
    assert fixes[0]["title"] == "Replace with `--theme`"


async def test_ranges_are_in_the_negotiated_encoding_after_cjk_and_emoji(
    client: LanguageClient, open_document, typo: str
) -> None:
    text = typo.replace("<主题>", "😀主题")
    uri = await open_document(SKILL_PATH, text)
    diagnostic = only(client, uri, "CM002")
    line = text.splitlines()[TYPO_LINE]
    encoding = client.encoding  # type: ignore[attr-defined]
    start = units(line[: line.index("--thme")], encoding)
    assert diagnostic.range.start == lsp.Position(TYPO_LINE, start)
    assert diagnostic.range.end == lsp.Position(TYPO_LINE, start + len("--thme"))
    assert (
        start
        == len(line[: line.index("--thme")]) + {"utf-8": 7, "utf-16": 1, "utf-32": 0}[encoding]
    )


async def test_change_republishes_for_the_new_version(
    client: LanguageClient, open_document, wait_until, skill: str, typo: str
) -> None:
    uri = await open_document(SKILL_PATH)
    change(client, uri, 2, typo)
    await wait_until(lambda: any(d.code == "CM002" for d in client.diagnostics[uri]))
    assert client.published[-1].version == 2  # type: ignore[attr-defined]
    change(client, uri, 3, skill)
    await wait_until(lambda: not client.diagnostics[uri])
    assert client.published[-1].version == 3  # type: ignore[attr-defined]


@pytest.mark.parametrize("initialization_options", [{"debounceMs": 10_000}], indirect=True)
async def test_change_waits_for_the_debounce_but_open_and_save_do_not(
    client: LanguageClient,
    open_document,
    wait_until,
    skill: str,
    typo: str,
    initialization_options: dict[str, Any],
) -> None:
    uri = await open_document(SKILL_PATH, typo)  # open: at once, despite a 10 s debounce
    assert [d.code for d in client.diagnostics[uri]] == ["CM002"]
    change(client, uri, 2, skill)
    await asyncio.sleep(0.5)
    assert [d.code for d in client.diagnostics[uri]] == ["CM002"]  # still debouncing
    client.text_document_did_save(
        lsp.DidSaveTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
    )
    await wait_until(lambda: not client.diagnostics[uri], what="save to check at once")


async def test_edit_storm_ends_with_the_last_version_and_the_server_still_answers(
    client: LanguageClient, open_document, wait_until, skill: str, typo: str
) -> None:
    uri = await open_document(SKILL_PATH)
    last = 501
    for version in range(2, last + 1):
        # Odd versions carry the typo, even ones do not; the last (501) has it.
        change(client, uri, version, typo if version % 2 else skill)
    published = client.published  # type: ignore[attr-defined]

    def last_version_published() -> bool:
        mine = [p for p in published if p.uri == uri]
        return bool(mine) and mine[-1].version == last

    await wait_until(last_version_published, timeout=60, what="diagnostics for version 501")
    versions = [p.version for p in published if p.uri == uri and p.version is not None]
    assert versions == sorted(versions)  # never an older version over a newer one
    assert [d.code for d in client.diagnostics[uri]] == ["CM002"]
    report = await client.text_document_diagnostic_async(
        lsp.DocumentDiagnosticParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
    )
    assert isinstance(report, lsp.RelatedFullDocumentDiagnosticReport)
    assert [d.code for d in report.items] == ["CM002"]


# -- pull ----------------------------------------------------------------------------------
async def test_pull_diagnostics_are_advertised(client: LanguageClient) -> None:
    provider = client.server_capabilities.diagnostic_provider  # type: ignore[attr-defined]
    assert isinstance(provider, lsp.DiagnosticOptions)
    assert provider.identifier == "easel-ls"
    assert provider.workspace_diagnostics is True
    assert provider.inter_file_dependencies is True


async def test_document_pull_reports_unchanged_while_the_result_id_matches(
    client: LanguageClient, open_document, skill: str, typo: str
) -> None:
    uri = await open_document(SKILL_PATH, typo)
    identifier = lsp.TextDocumentIdentifier(uri=uri)
    first = await client.text_document_diagnostic_async(
        lsp.DocumentDiagnosticParams(text_document=identifier)
    )
    assert isinstance(first, lsp.RelatedFullDocumentDiagnosticReport)
    assert [d.code for d in first.items] == ["CM002"]
    assert first.result_id
    again = await client.text_document_diagnostic_async(
        lsp.DocumentDiagnosticParams(text_document=identifier, previous_result_id=first.result_id)
    )
    assert isinstance(again, lsp.RelatedUnchangedDocumentDiagnosticReport)
    assert again.result_id == first.result_id
    change(client, uri, 2, skill)
    fixed = await client.text_document_diagnostic_async(
        lsp.DocumentDiagnosticParams(text_document=identifier, previous_result_id=first.result_id)
    )
    assert isinstance(fixed, lsp.RelatedFullDocumentDiagnosticReport)
    assert not fixed.items
    assert fixed.result_id != first.result_id


async def test_workspace_pull_covers_unopened_files_and_reports_unchanged(
    client: LanguageClient, wait_until, index_finished, typo: str
) -> None:
    await index_finished()
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    skill_uri = (root / SKILL_PATH).as_uri()
    (root / SKILL_PATH).write_text(typo, encoding="utf-8")
    client.workspace_did_change_watched_files(
        lsp.DidChangeWatchedFilesParams(
            changes=[lsp.FileEvent(uri=skill_uri, type=lsp.FileChangeType.Changed)]
        )
    )
    await wait_until(lambda: skill_uri in client.diagnostics, what="the unopened SKILL.md")
    first = await client.workspace_diagnostic_async(
        lsp.WorkspaceDiagnosticParams(previous_result_ids=[])
    )
    reports = {item.uri: item for item in first.items}
    report = reports[skill_uri]
    assert isinstance(report, lsp.WorkspaceFullDocumentDiagnosticReport)
    assert [d.code for d in report.items] == ["CM002"]
    assert report.version is None  # not open in the editor
    previous = [lsp.PreviousResultId(uri=i.uri, value=i.result_id or "") for i in first.items]
    second = await client.workspace_diagnostic_async(
        lsp.WorkspaceDiagnosticParams(previous_result_ids=previous)
    )
    assert second.items
    assert all(isinstance(i, lsp.WorkspaceUnchangedDocumentDiagnosticReport) for i in second.items)


# -- settings --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "initialization_options", [{"debounceMs": 0, "ignore": ["CM002"]}], indirect=True
)
async def test_initialization_options_ignore_a_rule(
    client, open_document, diagnostic_codes, typo, initialization_options
):
    uri = await open_document(SKILL_PATH, typo)
    assert diagnostic_codes(uri) == []


@pytest.mark.parametrize("editor_configuration", [{"maxBodyLines": 5}], indirect=True)
async def test_workspace_configuration_sets_an_option(
    client: LanguageClient, wait_until, skill: str, editor_configuration: dict[str, Any]
) -> None:
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    uri = (root / SKILL_PATH).as_uri()
    # The configuration may arrive after the first check; it re-publishes when it does.
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(
                uri=uri, language_id="markdown", version=1, text=skill
            )
        )
    )
    await wait_until(lambda: "BD001" in [d.code for d in client.diagnostics.get(uri, [])])


async def test_settings_change_applies_without_restart_and_layers_over_the_config_file(
    client: LanguageClient, open_document, wait_until, typo: str
) -> None:
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    uri = await open_document(SKILL_PATH, typo)
    assert [d.code for d in client.diagnostics[uri]] == ["CM002"]
    config = root / "easel-ls.toml"
    config.write_text("max-body-lines = 5\n", encoding="utf-8")
    client.workspace_did_change_watched_files(
        lsp.DidChangeWatchedFilesParams(
            changes=[lsp.FileEvent(uri=config.as_uri(), type=lsp.FileChangeType.Created)]
        )
    )
    await wait_until(lambda: codes_of(client, uri) == ["BD001", "CM002"], what="the file's option")
    # The editor's setting wins over the file's, as a command-line flag would.
    settings: dict[str, Any] = {"maxBodyLines": 500, "ignore": ["CM002"], "debounceMs": 0}
    client.set_configuration(settings, section="easel-ls")
    client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"easel-ls": settings})
    )
    await wait_until(lambda: codes_of(client, uri) == [], what="the editor's settings")
    shown: Any = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="easel.showSettings", arguments=[uri])
    )
    assert shown["config_path"] == str(config)
    assert shown["options"]["max-body-lines"] == 500
    assert shown["editor"]["maxBodyLines"] == 500
    assert shown["editor"]["ignore"] == ["CM002"]
    assert "CM002" not in shown["enabled"]
    assert "CM001" in shown["enabled"]


async def test_bad_settings_are_reported_and_ignored(
    client: LanguageClient, open_document, wait_until, typo: str
) -> None:
    uri = await open_document(SKILL_PATH, typo)
    settings = {"select": "CMX", "debounceMs": -4, "colour": "red"}
    client.set_configuration(settings, section="easel-ls")
    client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"easel-ls": settings})
    )

    def warned() -> list[str]:
        return [m.message for m in client.log_messages if m.type == lsp.MessageType.Warning]

    await wait_until(lambda: len(warned()) >= 3, what="three warnings")
    text = json.dumps(warned(), ensure_ascii=False)
    assert "unknown rule code or prefix CMX" in text
    assert "`debounceMs`: must be a number >= 0" in text
    assert "unknown setting `colour`" in text
    await asyncio.sleep(0.2)
    assert [d.code for d in client.diagnostics[uri]] == ["CM002"]  # defaults still apply
