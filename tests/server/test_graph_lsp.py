"""The script ↔ docs graph over LSP, as VS Code and Neovim ask for it: references, document
highlights, prepareRename/rename (one WorkspaceEdit; open documents carry their version),
refusals as error responses, willRenameFiles, and code lenses. Positions are in the negotiated
encoding: the fixture has emoji before option words."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "graph"
SCRIPT = "skills/openclaw/deck-builder/scripts/deck.py"
SKILL = "skills/openclaw/deck-builder/SKILL.md"
OUTLINE = "skills/openclaw/deck-builder/references/outline.md"
REVIEW = "skills/openclaw/slide-review/SKILL.md"


@pytest.fixture()
def workspace_files() -> Mapping[str, str]:
    files = {}
    for path in FIXTURE.rglob("*"):
        if path.is_file():
            files[str(path.relative_to(FIXTURE))] = path.read_bytes().decode("utf-8-sig")
    return files


def text_of(client: LanguageClient, rel: str) -> str:
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    return (root / rel).read_bytes().decode("utf-8-sig")


def units(client: LanguageClient, line: str, column: int) -> int:
    encoding = client.encoding  # type: ignore[attr-defined]
    if encoding == "utf-32":
        return column
    codec, width = ("utf-16-le", 2) if encoding == "utf-16" else ("utf-8", 1)
    return len(line[:column].encode(codec)) // width


def find(client: LanguageClient, rel: str, needle: str, nth: int = 0) -> lsp.Range:
    """The client-unit range of the ``nth`` occurrence of ``needle`` in a workspace file."""
    seen = 0
    for number, row in enumerate(text_of(client, rel).splitlines()):
        start = row.find(needle)
        while start >= 0:
            if seen == nth:
                return lsp.Range(
                    lsp.Position(number, units(client, row, start)),
                    lsp.Position(number, units(client, row, start + len(needle))),
                )
            seen += 1
            start = row.find(needle, start + 1)
    raise AssertionError(f"{needle} not in {rel}")


def uri(client: LanguageClient, rel: str) -> str:
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    return (root / rel).as_uri()


def inside(rng: lsp.Range, by: int = 2) -> lsp.Position:
    return lsp.Position(rng.start.line, rng.start.character + by)


async def test_the_server_advertises_the_graph_features(client: LanguageClient) -> None:
    result: lsp.ServerCapabilities = client.server_capabilities  # type: ignore[attr-defined]
    assert result.references_provider
    assert result.document_highlight_provider
    assert result.rename_provider == lsp.RenameOptions(prepare_provider=True)
    assert result.code_lens_provider is not None
    operations = result.workspace.file_operations if result.workspace else None
    # pygls advertises file operations to clients that can send them (VS Code, not Neovim 0.7).
    if operations is not None and operations.will_rename is not None:
        globs = {f.pattern.glob for f in operations.will_rename.filters}
        assert globs == {"**/skills/**"}


async def test_references_from_the_script_reach_every_skill(
    client: LanguageClient, open_document
) -> None:
    script_uri = await open_document(SCRIPT, language_id="python")
    literal = find(client, SCRIPT, "--topic")
    found = await client.text_document_references_async(
        lsp.ReferenceParams(
            text_document=lsp.TextDocumentIdentifier(uri=script_uri),
            position=inside(literal),
            context=lsp.ReferenceContext(include_declaration=True),
        )
    )
    assert found is not None
    assert [(loc.uri, loc.range) for loc in found] == [
        (script_uri, literal),
        (uri(client, SKILL), find(client, SKILL, "--topic", 0)),
        (uri(client, SKILL), _trim(find(client, SKILL, "--top ", 0))),
        (uri(client, SKILL), find(client, SKILL, "--topic", 1)),  # after 📄: client units
        (uri(client, OUTLINE), find(client, OUTLINE, "--topic")),
        (uri(client, REVIEW), find(client, REVIEW, "--topic")),
    ]


def _trim(rng: lsp.Range) -> lsp.Range:
    """``--top `` found with its trailing space: the word alone."""
    return lsp.Range(rng.start, lsp.Position(rng.end.line, rng.end.character - 1))


async def test_highlights_mark_the_uses_in_the_same_file(
    client: LanguageClient, open_document
) -> None:
    skill_uri = await open_document(SKILL)
    found = await client.text_document_document_highlight_async(
        lsp.DocumentHighlightParams(
            text_document=lsp.TextDocumentIdentifier(uri=skill_uri),
            position=inside(find(client, SKILL, "--topic", 1)),
        )
    )
    assert found is not None
    assert [h.range for h in found] == [
        find(client, SKILL, "--topic", 0),
        _trim(find(client, SKILL, "--top ", 0)),
        find(client, SKILL, "--topic", 1),
    ]


async def test_rename_from_a_command_word_is_one_workspace_edit(
    client: LanguageClient, open_document
) -> None:
    skill_uri = await open_document(SKILL)
    word = find(client, SKILL, "--topic", 1)
    prepared = await client.text_document_prepare_rename_async(
        lsp.PrepareRenameParams(
            text_document=lsp.TextDocumentIdentifier(uri=skill_uri), position=inside(word)
        )
    )
    assert isinstance(prepared, lsp.PrepareRenamePlaceholder)
    assert prepared.placeholder == "--topic" and prepared.range == word
    edit = await client.text_document_rename_async(
        lsp.RenameParams(
            text_document=lsp.TextDocumentIdentifier(uri=skill_uri),
            position=inside(word),
            new_name="--subject",
        )
    )
    assert edit is not None
    by_uri: dict[str, list[tuple[lsp.Range, str]]] = {}
    versions: dict[str, int | None] = {}
    if edit.document_changes is not None:
        for change in edit.document_changes:
            assert isinstance(change, lsp.TextDocumentEdit)
            versions[change.text_document.uri] = change.text_document.version
            by_uri[change.text_document.uri] = [(e.range, e.new_text) for e in change.edits]  # type: ignore[union-attr]
        assert versions[skill_uri] == 1  # the open buffer: the client applies it, by version
        assert versions[uri(client, OUTLINE)] is None
    else:
        assert edit.changes is not None
        by_uri = {u: [(e.range, e.new_text) for e in edits] for u, edits in edit.changes.items()}
    assert by_uri[skill_uri] == [
        (find(client, SKILL, "--topic", 0), "--subject"),
        (_trim(find(client, SKILL, "--top ", 0)), "--subject"),
        (find(client, SKILL, "--topic", 1), "--subject"),
    ]
    script_edits = by_uri[uri(client, SCRIPT)]
    assert (find(client, SCRIPT, "--topic"), "--subject") in script_edits
    assert any(text == ', dest="topic"' for _, text in script_edits)
    assert set(by_uri) == {uri(client, p) for p in (SCRIPT, SKILL, OUTLINE, REVIEW)}


async def test_a_refused_rename_answers_with_the_reason(
    client: LanguageClient, open_document
) -> None:
    script_uri = await open_document(SCRIPT, language_id="python")
    with pytest.raises(JsonRpcException, match="already exists in `build`"):
        await client.text_document_rename_async(
            lsp.RenameParams(
                text_document=lsp.TextDocumentIdentifier(uri=script_uri),
                position=inside(find(client, SCRIPT, "--topic")),
                new_name="--theme",
            )
        )
    nothing = await client.text_document_prepare_rename_async(
        lsp.PrepareRenameParams(
            text_document=lsp.TextDocumentIdentifier(uri=script_uri),
            position=lsp.Position(0, 1),
        )
    )
    assert nothing is None


async def test_moving_a_reference_updates_the_links_before_the_move(
    client: LanguageClient, open_document
) -> None:
    await open_document(SKILL)
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    new = root / "skills/openclaw/deck-builder/references/guides/outline.md"
    edit = await client.workspace_will_rename_files_async(
        lsp.RenameFilesParams(
            files=[lsp.FileRename(old_uri=uri(client, OUTLINE), new_uri=new.as_uri())]
        )
    )
    assert edit is not None
    pairs = []
    if edit.document_changes is not None:
        for change in edit.document_changes:
            assert isinstance(change, lsp.TextDocumentEdit)  # the editor moves the file itself
            pairs += [(change.text_document.uri, e.new_text) for e in change.edits]
    else:
        assert edit.changes is not None
        pairs = [(u, e.new_text) for u, edits in edit.changes.items() for e in edits]
    assert sorted(pairs) == sorted(
        [
            (uri(client, SKILL), "references/guides/outline.md"),
            (uri(client, REVIEW), "../deck-builder/references/guides/outline.md"),
        ]
    )


async def test_code_lenses_count_uses_and_carry_client_locations(
    client: LanguageClient, open_document
) -> None:
    script_uri = await open_document(SCRIPT, language_id="python")
    lenses = await client.text_document_code_lens_async(
        lsp.CodeLensParams(text_document=lsp.TextDocumentIdentifier(uri=script_uri))
    )
    assert lenses is not None
    by_line = {lens.range.start.line: lens for lens in lenses}
    topic = by_line[find(client, SCRIPT, "--topic").start.line]
    assert topic.command is not None
    assert topic.command.title == "5 commands in 2 skills"
    assert topic.command.command == "easel-ls.showReferences"
    target_uri, position, locations = topic.command.arguments or []
    assert target_uri == script_uri
    assert position == {"line": 7, "character": find(client, SCRIPT, "--topic").start.character}
    second = find(client, SKILL, "--topic", 1)
    assert {
        "uri": uri(client, SKILL),
        "range": {
            "start": {"line": second.start.line, "character": second.start.character},
            "end": {"line": second.end.line, "character": second.end.character},
        },
    } in locations
    skill_uri = await open_document(SKILL)
    skill_lenses = await client.text_document_code_lens_async(
        lsp.CodeLensParams(text_document=lsp.TextDocumentIdentifier(uri=skill_uri))
    )
    assert skill_lenses is not None
    assert [lens.command.title for lens in skill_lenses if lens.command][:1] == [
        "deck.py build: 把大纲渲染成幻灯片"
    ]


async def test_a_skill_rename_needs_a_client_that_can_move_folders(
    client: LanguageClient, open_document
) -> None:
    skill_uri = await open_document(SKILL)
    position = inside(find(client, SKILL, "deck-builder"), 3)
    params = lsp.PrepareRenameParams(
        text_document=lsp.TextDocumentIdentifier(uri=skill_uri), position=position
    )
    refusal = None
    try:
        prepared = await client.text_document_prepare_rename_async(params)
    except JsonRpcException as refused:
        refusal = str(refused)
    if refusal is not None:  # Neovim 0.7's recorded capabilities: no documentChanges
        assert "cannot apply file renames" in refusal
        return
    assert isinstance(prepared, lsp.PrepareRenamePlaceholder)
    assert prepared.placeholder == "deck-builder"
    edit = await client.text_document_rename_async(
        lsp.RenameParams(
            text_document=lsp.TextDocumentIdentifier(uri=skill_uri),
            position=position,
            new_name="slide-deck",
        )
    )
    assert edit is not None and edit.document_changes is not None
    renames = [c for c in edit.document_changes if isinstance(c, lsp.RenameFile)]
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    assert [(r.old_uri, r.new_uri) for r in renames] == [
        (
            (root / "skills/openclaw/deck-builder").as_uri(),
            (root / "skills/openclaw/slide-deck").as_uri(),
        )
    ]
    assert isinstance(edit.document_changes[-1], lsp.RenameFile)  # text edits first
