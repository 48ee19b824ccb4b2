"""`easel/skills`, `easel/projects` and `easel/workspaceChanged` over stdio, with the VS Code and
Neovim capabilities, on tests/fixtures/views: skills in every layer (one broken), projects with
a cover image, a failed step, a manifest that is not JSON and one with wrong types."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "views"
LAYERS = ["discover", "plan", "produce", "publish", "attribute", "general"]
PICNIC = "outputs/春日野餐"


@pytest.fixture()
def workspace(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    root = Path(shutil.copytree(FIXTURE, tmp_path / "ws"))
    # "many skills": an index that takes several notification windows.
    for i in range(getattr(request, "param", 0)):
        shutil.copytree(root / "skills/openclaw/card-maker", root / f"skills/openclaw/copy-{i}")
    return root


async def request(client: LanguageClient, method: str, params: Any = None) -> Any:
    result = await client.protocol.send_request_async(method, {} if params is None else params)
    return plain(result)


def plain(value: Any) -> Any:
    """The JSON the server sent (pygls hands a custom result over as named tuples)."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def by_name(items: list[dict[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    return {item[key]: item for item in items}


def uri(client: LanguageClient, rel: str) -> str:
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    return (root / rel).resolve().as_uri()


async def test_skills_are_listed_in_layer_order_with_their_files_and_finding_counts(
    client: LanguageClient,
) -> None:
    result = await request(client, "easel/skills")
    assert result["layers"] == LAYERS
    names = [s["name"] for s in result["skills"]]
    assert names == [
        "topic-scout",
        "brief-writer",
        "card-maker",
        "xhs-publish",
        "data-review",
        "profile-keeper",
        "broken-skill",  # an unknown layer sorts last
    ]
    skills = by_name(result["skills"], "name")
    card = skills["card-maker"]
    assert card["layer"] == card["layerText"] == "produce"
    assert card["uri"] == uri(client, "skills/openclaw/card-maker")
    assert card["skillMd"] == uri(client, "skills/openclaw/card-maker/SKILL.md")
    assert card["scripts"] == [uri(client, "skills/openclaw/card-maker/scripts/render.py")]
    assert card["tests"] == [
        uri(client, "skills/openclaw/card-maker/tests/test1.expected"),
        uri(client, "skills/openclaw/card-maker/tests/test1.prompt"),
    ]
    assert card["findings"] == {"error": 0, "warning": 0, "information": 0, "hint": 0}
    assert skills["brief-writer"]["references"] == [
        uri(client, "skills/openclaw/brief-writer/references/brief-format.md")
    ]
    assert "只负责本层工作" in skills["topic-scout"]["description"]
    broken = skills["broken-skill"]
    assert broken["layer"] is None and broken["layerText"] == "produc"
    assert broken["description"] is None
    # FM004 (no description), FM008 (bad layer), RS001 (broken link) are errors;
    # the four missing sections (BD002) are warnings.
    assert broken["findings"] == {"error": 3, "warning": 4, "information": 0, "hint": 0}


async def test_projects_newest_first_with_cover_deliverables_and_steps(
    client: LanguageClient,
) -> None:
    result = await request(client, "easel/projects")
    topics = [p["topic"] for p in result["projects"]]
    # By `updated`, newest first; the unparsable manifest (no date) comes last.
    assert topics == ["春日野餐", "winter-menu", "autumn-trip"]
    picnic = by_name(result["projects"], "topic")["春日野餐"]
    assert picnic["uri"] == uri(client, PICNIC)
    assert picnic["manifest"] == uri(client, f"{PICNIC}/.easel.json")
    assert (picnic["title"], picnic["kind"], picnic["status"], picnic["platform"]) == (
        "春日野餐清单",
        "cards",
        "ready",
        "小红书",
    )
    assert picnic["error"] is None
    assert picnic["cover"] == {
        "path": "cover.png",
        "uri": uri(client, f"{PICNIC}/cover.png"),
        "exists": True,
        "image": True,
        "implicit": False,
    }
    deliverables = by_name(picnic["deliverables"], "path")
    assert deliverables["note.md"]["exists"] and not deliverables["note.md"]["image"]
    assert deliverables["card_9.png"]["exists"] is False  # listed, never written
    steps = picnic["steps"]
    assert [(s["layer"], s["skill"], s["status"]) for s in steps] == [
        ("discover", "topic-scout", "done"),
        ("plan", "brief-writer", "done"),  # no status: done is the default
        ("produce", "card-maker", "failed"),
        ("produce", "card-maker", "done"),
    ]
    assert [s["index"] for s in steps] == [0, 1, 2, 3]
    assert steps[1]["outputs"] == [
        {
            "path": "brief.md",
            "uri": uri(client, f"{PICNIC}/brief.md"),
            "exists": True,
            "image": False,
        }
    ]
    assert steps[2]["summary"] == "第 3 张放不下"


async def test_a_step_range_is_the_step_object_in_the_manifest(client: LanguageClient) -> None:
    result = await request(client, "easel/projects")
    picnic = by_name(result["projects"], "topic")["春日野餐"]
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    lines = (root / PICNIC / ".easel.json").read_text(encoding="utf-8").splitlines()
    for step in picnic["steps"]:
        start, end = step["range"]["start"], step["range"]["end"]
        assert lines[start["line"]][start["character"]] == "{"
        assert lines[end["line"]][end["character"] - 1] == "}"
        between = "\n".join(lines[start["line"] : end["line"] + 1])
        assert f'"skill": "{step["skill"]}"' in between


async def test_broken_manifests_are_listed_with_their_error(client: LanguageClient) -> None:
    projects = by_name((await request(client, "easel/projects"))["projects"], "topic")
    autumn = projects["autumn-trip"]
    assert autumn["error"].startswith("invalid JSON at line 5")
    assert autumn["title"] is None and autumn["steps"] == [] and autumn["deliverables"] == []
    winter = projects["winter-menu"]
    # Wrong types: the usable parts stay, each problem is named.
    assert winter["status"] == "draft" and winter["title"] is None
    assert "`title` should be a string, not a number" in winter["error"]
    assert "`deliverables` should be an array of strings" in winter["error"]
    assert "`steps[1]` should be an object" in winter["error"]
    assert [s["skill"] for s in winter["steps"]] == ["brief-writer"]
    assert "_scratch" not in projects  # system folders are not projects


async def test_a_root_uri_limits_the_answer_to_that_folder(client: LanguageClient) -> None:
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    result = await request(client, "easel/projects", {"uri": root.resolve().as_uri()})
    assert len(result["projects"]) == 3


@pytest.mark.parametrize("workspace", [150], indirect=True)
async def test_the_background_index_announces_once_when_it_ends(
    client: LanguageClient, workspace: Path
) -> None:
    announced: list[Any] = []
    client.feature("easel/workspaceChanged")(lambda params: announced.append(plain(params)))
    await wait_for(lambda: bool(announced), "the index's easel/workspaceChanged", timeout=60)
    await asyncio_sleep(0.5)
    assert announced == [{}]  # not one per window while it checks 600 files
    # By then every file has been checked: the counts need no check of their own.
    broken = by_name((await request(client, "easel/skills"))["skills"], "name")["broken-skill"]
    assert broken["findings"]["error"] == 3


async def test_an_edit_burst_is_announced_once_and_the_next_request_sees_the_buffer(
    client: LanguageClient,
) -> None:
    announced: list[Any] = []
    client.feature("easel/workspaceChanged")(lambda params: announced.append(plain(params)))
    await wait_for(lambda: bool(announced), "the index's easel/workspaceChanged")
    await asyncio_sleep(0.3)
    announced.clear()
    manifest = uri(client, f"{PICNIC}/.easel.json")
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    text = (root / PICNIC / ".easel.json").read_text(encoding="utf-8")
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(
                uri=manifest, language_id="json", version=1, text=text
            )
        )
    )
    for version in range(2, 12):  # a burst of edits
        edited = text.replace('"ready"', '"published"' if version % 2 else '"draft"')
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=manifest, version=version),
                content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=edited)],
            )
        )
    await wait_for(lambda: bool(announced), "easel/workspaceChanged")
    await asyncio_sleep(0.6)
    # Coalesced: eleven changes, one notification (two if the open's check went out alone).
    assert 1 <= len(announced) <= 2
    assert announced[0] == {}
    projects = by_name((await request(client, "easel/projects"))["projects"], "topic")
    assert projects["春日野餐"]["status"] == "published"  # the buffer, not the disk


async def test_a_deleted_skill_is_announced(client: LanguageClient) -> None:
    announced: list[Any] = []
    client.feature("easel/workspaceChanged")(lambda params: announced.append(params))
    await wait_for(lambda: bool(announced), "the index's easel/workspaceChanged")
    await asyncio_sleep(0.3)
    announced.clear()
    root: Path = client.workspace_root  # type: ignore[attr-defined]
    folder = root / "skills/openclaw/data-review"
    shutil.rmtree(folder)
    client.workspace_did_change_watched_files(
        lsp.DidChangeWatchedFilesParams(
            changes=[
                lsp.FileEvent(uri=folder.as_uri(), type=lsp.FileChangeType.Deleted),
                lsp.FileEvent(uri=(folder / "SKILL.md").as_uri(), type=lsp.FileChangeType.Deleted),
            ]
        )
    )
    await wait_for(lambda: bool(announced), "easel/workspaceChanged after the delete")
    names = [s["name"] for s in (await request(client, "easel/skills"))["skills"]]
    assert "data-review" not in names and "xhs-publish" in names


async def asyncio_sleep(seconds: float) -> None:
    import asyncio

    await asyncio.sleep(seconds)


async def wait_for(condition: Any, what: str, timeout: float = 10.0) -> None:
    import asyncio

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            pytest.fail(f"timed out after {timeout}s waiting for {what}")
        await asyncio.sleep(0.02)
