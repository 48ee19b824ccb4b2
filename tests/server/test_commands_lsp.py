"""Commands (`easel.checkWorkspace`, `easel.registerDeliverables`) and the "Disable CODE for
this line" code action: over LSP with VS Code's and Neovim's capabilities, and the pure parts
directly (each suppression comment must really silence the finding when the engine re-checks)."""

from __future__ import annotations

import importlib.util
import json
import re
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import unquote, urlparse

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from easel_ls.batch import check_paths
from easel_ls.config import ConfigResolver
from easel_ls.engine import check_document
from easel_ls.findings import TextEdit
from easel_ls.model.text import TextDocument
from easel_ls.server.features.actions import disable_for_line
from easel_ls.server.features.commands import (
    manifest_module,
    plan_register_deliverables,
    unregistered_files,
)
from easel_ls.workspace import Workspace

REPO = Path(__file__).resolve().parents[2]
SKILL_PATH = "skills/openclaw/card-maker/SKILL.md"
SCRIPT_PATH = "skills/openclaw/card-maker/scripts/cards.py"
MANIFEST_PATH = "outputs/AI科普/.easel.json"

SCRIPT = '''\
"""Render cards.

Usage: python cards.py render --topic T
"""
import argparse, subprocess  # subprocess: `--exec` may hand the cards to a poster (PB001)

parser = argparse.ArgumentParser()
sub = parser.add_subparsers(dest="cmd", required=True)
render = sub.add_parser("render")
render.add_argument("--topic", required=True)
render.add_argument("--exec", action="store_true")
args = parser.parse_args()
'''

SKILL = f"""\
---
name: card-makr
description: >-
  为小红书笔记生成卡片图。当用户说"做卡片"或需要把策划稿变成图片时使用；只负责出图，
  不负责发布。适用场景：图文笔记、知识卡片、清单类内容，以及各种需要配图的小红书图文。
layer: produce
---
# 卡片制作

## 输入
策划稿。

## 输出
卡片。

## 执行步骤
1. 出图：

   ```bash
   python {SCRIPT_PATH} render --topic 主题名 --colour red
   ```

> 注意 [旧链接](references/old.md)

## Profile 感知
无画像时用默认配色。
"""

MANIFEST = (
    '{\n  "topic": "AI科普",\n  "created": "2026-01-05T10:00:00+08:00",\n'
    '  "title": "AI 科普",\n  "deliverables": ["cover.png"]\n}\n'
)

FILES = {
    SKILL_PATH: SKILL,
    SCRIPT_PATH: SCRIPT,
    MANIFEST_PATH: MANIFEST,
    "outputs/AI科普/cover.png": "png",
    "outputs/AI科普/note.md": "正文\n",
    "outputs/AI科普/caption.txt": "文案\n",
    "outputs/AI科普/.draft.md": "hidden\n",
    "outputs/AI科普/assets/frame.png": "frame",
}


@pytest.fixture()
def workspace_files() -> Mapping[str, str]:
    return FILES


def write(root: Path, files: Mapping[str, str]) -> Workspace:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    resolved = root.resolve()
    return Workspace(root=resolved, config=ConfigResolver(stop_at=resolved))


def reference_manifest_module() -> ModuleType:
    """The repository's own `skills/shared/scripts/manifest.py`: the contract's source."""
    path = REPO / "skills/shared/scripts/manifest.py"
    spec = importlib.util.spec_from_file_location("_reference_manifest", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def without_updated(text: str) -> dict[str, Any]:
    data = json.loads(text)
    data.pop("updated")
    return data


def apply(text: str, edit: TextEdit) -> str:
    doc = TextDocument(Path("x"), text)
    start, end = doc.offset_at(edit.range.start), doc.offset_at(edit.range.end)
    return text[:start] + edit.new_text + text[end:]


# -- disable for this line: the comment really suppresses ----------------------------------


def findings_at(ws: Workspace, path: Path, text: str, code: str) -> list[int]:
    doc = TextDocument(path, text, 2)
    ws.set_overlay(doc)
    return [f.range.start.line for f in check_document(ws, doc) if f.code == code]


def suppress(ws: Workspace, rel: str, code: str) -> tuple[str, str]:
    """Disable ``code`` on the line it is reported on; returns the new text and the edit's text."""
    path = ws.root / rel
    text = path.read_text(encoding="utf-8")
    (line,) = findings_at(ws, path, text, code)
    edit = disable_for_line(ws, TextDocument(path, text), code, line)
    assert edit is not None
    new_text = apply(text, edit)
    assert findings_at(ws, path, new_text, code) == []
    assert findings_at(ws, path, new_text, "EZ001") == []  # the comment is used, not stray
    assert findings_at(ws, path, new_text, "EZ002") == []
    return new_text, edit.new_text


def test_markdown_line_gets_a_comment_above_with_its_indentation(tmp_path: Path) -> None:
    ws = write(tmp_path, FILES)
    new_text, inserted = suppress(ws, SKILL_PATH, "RS001")
    assert inserted == "> <!-- easel-ls-disable-next-line RS001 -->\n"
    assert "> <!-- easel-ls-disable-next-line RS001 -->\n> 注意 [旧链接]" in new_text


def test_fenced_command_gets_a_trailing_ignore_comment(tmp_path: Path) -> None:
    ws = write(tmp_path, FILES)
    new_text, _ = suppress(ws, SKILL_PATH, "CM002")
    assert "--topic 主题名 --colour red # easel-ls: ignore[CM002]\n" in new_text


def test_command_in_a_code_span_gets_a_comment_above(tmp_path: Path) -> None:
    span_skill = SKILL.replace(" --colour red", "").replace(
        "策划稿。", f"策划稿。\n   也可以 `python {SCRIPT_PATH} render --topic x --size 3` 出图。"
    )
    ws = write(tmp_path, {**FILES, SKILL_PATH: span_skill})
    new_text, inserted = suppress(ws, SKILL_PATH, "CM002")
    assert inserted == "   <!-- easel-ls-disable-next-line CM002 -->\n"
    assert "<!-- easel-ls-disable-next-line CM002 -->\n   也可以 `python" in new_text


def test_frontmatter_line_gets_a_trailing_ignore_comment(tmp_path: Path) -> None:
    ws = write(tmp_path, FILES)
    new_text, _ = suppress(ws, SKILL_PATH, "FM009")
    assert new_text.splitlines()[1] == "name: card-makr # easel-ls: ignore[FM009]"


def test_python_line_gets_a_trailing_ignore_comment(tmp_path: Path) -> None:
    ws = write(tmp_path, FILES)
    new_text, _ = suppress(ws, SCRIPT_PATH, "PB001")
    assert 'action="store_true")  # easel-ls: ignore[PB001]\n' in new_text


def test_an_existing_comment_is_merged_not_repeated(tmp_path: Path) -> None:
    ws = write(tmp_path, FILES)
    path = ws.root / SKILL_PATH
    commented = SKILL.replace("> 注意", "<!-- easel-ls-disable-next-line CM002 -->\n> 注意")
    commented = commented.replace("--colour red", "--colour red # easel-ls: ignore[FM009]")
    doc = TextDocument(path, commented)
    link_line = next(i for i, row in enumerate(doc.lines) if "旧链接" in row)
    above = disable_for_line(ws, doc, "RS001", link_line)
    assert above is not None and above.range.start.line == link_line - 1
    assert above.new_text == "<!-- easel-ls-disable-next-line CM002, RS001 -->"
    command_line = next(i for i, row in enumerate(doc.lines) if "--colour" in row)
    trailing = disable_for_line(ws, doc, "CM002", command_line)
    assert trailing is not None and trailing.new_text == "FM009, CM002"
    assert disable_for_line(ws, doc, "FM009", command_line) is None  # already there


def test_no_comment_where_it_would_change_the_text(tmp_path: Path) -> None:
    ws = write(tmp_path, FILES)
    skill = TextDocument(ws.root / SKILL_PATH, SKILL)
    script = TextDocument(ws.root / SCRIPT_PATH, SCRIPT)
    block_scalar_line = 3  # inside `description: >-`: a `#` there is part of the value
    assert disable_for_line(ws, skill, "FM011", block_scalar_line) is None
    assert disable_for_line(ws, skill, "FM001", 0) is None  # the `---` fence
    assert disable_for_line(ws, script, "PB001", 1) is None  # inside the docstring
    assert disable_for_line(ws, skill, "EZ001", 10) is None  # suppressions about suppressions
    manifest = TextDocument(ws.root / MANIFEST_PATH, MANIFEST)
    assert disable_for_line(ws, manifest, "MF008", 1) is None  # JSON has no comments


# -- register deliverables ------------------------------------------------------------------


def test_unregistered_files_are_root_files_not_hidden_not_in_folders(tmp_path: Path) -> None:
    ws = write(tmp_path, FILES)
    project = ws.root / "outputs/AI科普"
    assert unregistered_files(project, ["cover.png"]) == ["caption.txt", "note.md"]
    assert unregistered_files(project, ["./note.md", "cover.png", "caption.txt"]) == []


def test_plan_matches_what_the_manifest_cli_would_write(tmp_path: Path) -> None:
    ws = write(tmp_path, FILES)
    manifest = ws.root / MANIFEST_PATH
    loaded = manifest_module(ws, trusted=False)
    assert loaded.module is not None, loaded.origin
    plan = plan_register_deliverables(manifest, MANIFEST, loaded.module)
    assert plan.error is None and plan.new_text is not None
    assert plan.registered == ("caption.txt", "note.md")
    reference = reference_manifest_module()
    expected = reference.dumps(
        reference.apply_meta(
            json.loads(MANIFEST),
            "AI科普",
            {"deliverables": ["cover.png", "caption.txt", "note.md"]},
        )
    )
    assert without_updated(plan.new_text) == without_updated(expected)
    assert list(json.loads(plan.new_text)) == list(json.loads(expected))  # schema key order


def test_a_corrupt_manifest_is_never_rewritten(tmp_path: Path) -> None:
    ws = write(tmp_path, FILES)
    manifest = ws.root / MANIFEST_PATH
    module = manifest_module(ws, trusted=False).module
    assert module is not None
    broken = plan_register_deliverables(manifest, '{"topic": ', module)
    assert broken.new_text is None and broken.error and "not valid JSON (line 1" in broken.error
    listed = plan_register_deliverables(manifest, "[1, 2]", module)
    assert listed.new_text is None and listed.error and "not a JSON object" in listed.error


def test_workspace_manifest_code_runs_only_when_trusted(tmp_path: Path) -> None:
    marker = tmp_path / "imported"
    shared = REPO / "skills/shared/scripts"
    source = (shared / "manifest.py").read_text(encoding="utf-8")
    ws = write(
        tmp_path,
        {
            "skills/shared/scripts/manifest.py": source + f"\nopen({str(marker)!r}, 'w').close()\n",
            "skills/shared/scripts/output_paths.py": (shared / "output_paths.py").read_text(
                "utf-8"
            ),
            "skills/shared/scripts/content_guard.py": (shared / "content_guard.py").read_text(
                "utf-8"
            ),
        },
    )
    untrusted = manifest_module(ws, trusted=False)
    # A modified workspace copy is never imported: the packaged copy serves instead.
    assert untrusted.module is not None and not marker.exists()
    trusted = manifest_module(ws, trusted=True)
    assert trusted.module is not None and "workspace" in trusted.origin
    assert marker.exists()


# -- over LSP -------------------------------------------------------------------------------


def to_code_points(line: str, units: int, encoding: str) -> int:
    if encoding == "utf-32":
        return units
    codec, width = ("utf-16-le", 2) if encoding == "utf-16" else ("utf-8", 1)
    return len(line.encode(codec)[: units * width].decode(codec, errors="ignore"))


def path_of(uri: str) -> Path:
    return Path(unquote(urlparse(uri).path))


def apply_lsp_edits(text: str, edits: list[lsp.TextEdit], encoding: str) -> str:
    lines = text.split("\n")
    doc = TextDocument(Path("x"), text)
    spans = []
    for edit in edits:
        start, end = edit.range.start, edit.range.end
        s = doc.line_start(start.line) + to_code_points(
            lines[start.line], start.character, encoding
        )
        e = doc.line_start(end.line) + to_code_points(lines[end.line], end.character, encoding)
        spans.append((s, e, edit.new_text))
    for s, e, new in sorted(spans, reverse=True):
        text = text[:s] + new + text[e:]
    return text


async def execute(client: LanguageClient, command: str, *arguments: Any) -> dict[str, Any]:
    result = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command=command, arguments=list(arguments))
    )
    assert isinstance(result, dict), result
    return result


@pytest.fixture()
def applied_edits(client: LanguageClient) -> list[lsp.WorkspaceEdit]:
    """The client applies `workspace/applyEdit` to the files on disk, as an editor would save."""
    received: list[lsp.WorkspaceEdit] = []

    @client.feature(lsp.WORKSPACE_APPLY_EDIT)
    def apply_edit(
        ls: LanguageClient, params: lsp.ApplyWorkspaceEditParams
    ) -> lsp.ApplyWorkspaceEditResult:
        received.append(params.edit)
        encoding = client.encoding  # type: ignore[attr-defined]
        changes = [(uri, list(edits)) for uri, edits in (params.edit.changes or {}).items()]
        for change in params.edit.document_changes or []:
            if isinstance(change, lsp.CreateFile):
                path_of(change.uri).touch()
            elif isinstance(change, lsp.TextDocumentEdit):
                edits = [e for e in change.edits if isinstance(e, lsp.TextEdit)]
                changes.append((change.text_document.uri, edits))
        for uri, text_edits in changes:
            path = path_of(uri)
            text = path.read_text(encoding="utf-8")
            path.write_text(apply_lsp_edits(text, text_edits, encoding), encoding="utf-8")
        return lsp.ApplyWorkspaceEditResult(applied=True)

    return received


async def test_commands_are_advertised(client: LanguageClient) -> None:
    provider = client.server_capabilities.execute_command_provider  # type: ignore[attr-defined]
    assert provider is not None
    assert {"easel.checkWorkspace", "easel.registerDeliverables", "easel.showSettings"} <= set(
        provider.commands
    )


async def test_check_workspace_checks_every_file_and_publishes(
    client: LanguageClient, wait_until
) -> None:
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    result = await execute(client, "easel.checkWorkspace")
    fresh = Workspace(root=root.resolve(), config=ConfigResolver(stop_at=root.resolve()))
    expected = list(check_paths(fresh, [fresh.root]))
    assert result == {
        "files": len({p for p in fresh.iter_files([fresh.root]) if _wanted(fresh, p)}),
        "findings": len(expected),
    }
    assert expected  # the workspace has findings to publish
    note = (root / "outputs/AI科普/note.md").as_uri()
    await wait_until(lambda: note in client.diagnostics, what="MF008 for an unopened file")
    assert [d.code for d in client.diagnostics[note]] == ["MF008"]


async def test_check_workspace_with_a_folder_checks_only_that_folder(
    client: LanguageClient,
) -> None:
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    skill = next(p.parent for p in sorted((root / "skills").rglob("SKILL.md")))
    result = await execute(client, "easel.checkWorkspace", skill.as_uri())
    fresh = Workspace(root=root.resolve(), config=ConfigResolver(stop_at=root.resolve()))
    wanted = {p for p in fresh.iter_files([skill.resolve()]) if _wanted(fresh, p)}
    assert result["files"] == len(wanted) > 0
    everything = await execute(client, "easel.checkWorkspace")
    assert everything["files"] > result["files"]


def _wanted(ws: Workspace, path: Path) -> bool:
    from easel_ls.engine import wants

    return wants(ws, path)


async def test_register_deliverables_applies_one_whole_file_edit(
    client: LanguageClient, applied_edits: list[lsp.WorkspaceEdit]
) -> None:
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    manifest = root / MANIFEST_PATH
    result = await execute(client, "easel.registerDeliverables", manifest.as_uri())
    assert result["applied"] is True
    assert result["registered"] == ["caption.txt", "note.md"]
    (edit,) = applied_edits
    assert edit.changes is not None
    (changed,) = edit.changes.values()
    assert len(changed) == 1 and changed[0].range.start == lsp.Position(0, 0)
    on_disk = json.loads(manifest.read_text(encoding="utf-8"))
    assert on_disk["deliverables"] == ["cover.png", "caption.txt", "note.md"]
    assert on_disk["title"] == "AI 科普" and on_disk["topic"] == "AI科普"  # other fields kept
    reference = reference_manifest_module()
    expected = reference.dumps(
        reference.apply_meta(
            json.loads(MANIFEST), "AI科普", {"deliverables": on_disk["deliverables"]}
        )
    )
    assert without_updated(manifest.read_text(encoding="utf-8")) == without_updated(expected)
    again = await execute(client, "easel.registerDeliverables", (root / "outputs/AI科普").as_uri())
    assert again["applied"] is False and again["registered"] == []
    assert len(applied_edits) == 1


async def test_register_deliverables_refuses_a_corrupt_manifest(
    client: LanguageClient, applied_edits: list[lsp.WorkspaceEdit]
) -> None:
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    manifest = root / MANIFEST_PATH
    manifest.write_text('{"topic": "AI科普", ', encoding="utf-8")
    result = await execute(client, "easel.registerDeliverables", manifest.as_uri())
    assert result["applied"] is False and "not valid JSON" in result["error"]
    assert applied_edits == []
    assert manifest.read_text(encoding="utf-8") == '{"topic": "AI科普", '


async def test_show_settings_returns_the_resolved_settings(client: LanguageClient) -> None:
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    result = await execute(client, "easel.showSettings", (root / SKILL_PATH).as_uri())
    assert result is not None
    assert "CM002" in result["enabled"]
    assert result["options"]["max-body-lines"] == 200


async def test_disable_action_inserts_the_comment_and_the_finding_goes(
    client: LanguageClient, open_document, wait_until
) -> None:
    uri = await open_document(SKILL_PATH)
    encoding = client.encoding  # type: ignore[attr-defined]
    diagnostics = [d for d in client.diagnostics[uri] if d.code in ("CM002", "RS001")]
    assert sorted(str(d.code) for d in diagnostics) == ["CM002", "RS001"]
    actions = await client.text_document_code_action_async(
        lsp.CodeActionParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri),
            range=diagnostics[0].range,
            context=lsp.CodeActionContext(diagnostics=diagnostics),
        )
    )
    disable = [
        a for a in actions or [] if isinstance(a, lsp.CodeAction) and a.title.startswith("Disable")
    ]
    assert sorted(a.title for a in disable) == [
        "Disable CM002 for this line",
        "Disable RS001 for this line",
    ]
    text = SKILL
    edits = [e for a in disable for e in (a.edit.changes or {})[uri]]  # type: ignore[union-attr]
    text = apply_lsp_edits(text, edits, encoding)
    assert re.search(r"--colour red # easel-ls: ignore\[CM002\]\n", text)
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    await wait_until(
        lambda: not {"CM002", "RS001"} & {str(d.code) for d in client.diagnostics.get(uri, [])},
        what="CM002 and RS001 suppressed",
    )
    assert not {"EZ001", "EZ002"} & {str(d.code) for d in client.diagnostics[uri]}


async def test_register_deliverables_creates_a_missing_manifest(
    client: LanguageClient, applied_edits: list[lsp.WorkspaceEdit]
) -> None:
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    manifest = root / MANIFEST_PATH
    manifest.unlink()
    capabilities = client_capabilities_of(client)
    resource_operations = (
        capabilities.workspace
        and capabilities.workspace.workspace_edit
        and capabilities.workspace.workspace_edit.resource_operations
    ) or []
    result = await execute(client, "easel.registerDeliverables", manifest.parent.as_uri())
    if lsp.ResourceOperationKind.Create not in resource_operations:
        assert result["applied"] is False and "cannot create files" in result["error"]
        assert not manifest.exists()
        return
    assert result["applied"] is True
    created = json.loads(manifest.read_text(encoding="utf-8"))
    assert created["topic"] == "AI科普" and created["title"] == "AI科普"
    assert created["deliverables"] == ["caption.txt", "cover.png", "note.md"]
    assert created["cover"] == "cover.png"  # the manifest module's own default


async def test_register_deliverables_creates_nothing_outside_a_project_folder(
    client: LanguageClient, applied_edits: list[lsp.WorkspaceEdit]
) -> None:
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    folder = root / "skills/openclaw/card-maker"
    result = await execute(client, "easel.registerDeliverables", folder.as_uri())
    assert result["applied"] is False and "not a project folder" in result["error"]
    assert applied_edits == [] and not (folder / ".easel.json").exists()


def client_capabilities_of(client: LanguageClient) -> lsp.ClientCapabilities:
    capabilities = client.capabilities
    assert capabilities is not None
    return capabilities
