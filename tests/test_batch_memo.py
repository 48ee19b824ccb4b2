"""The speed-ups of a batch run must not change an answer: the disk memo (symlinks, listings),
script models built once in other processes, and the fast paths of the command reader, the
script facts and content_guard's ASCII folding."""

from __future__ import annotations

import ast
import random
import string
from pathlib import Path

import pytest

from easel_ls import engine
from easel_ls.model.script_facts import _walk, script_facts
from easel_ls.vendor import content_guard
from easel_ls.workspace import Workspace


def _tree(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    refs = root / "skills" / "openclaw" / "demo" / "references"
    refs.mkdir(parents=True)
    (refs.parent / "SKILL.md").write_text("---\nname: demo\n---\n", "utf-8")
    (refs / "a.md").write_text("# a\n", "utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# secret\n", "utf-8")
    (refs / "escape").symlink_to(outside)  # a folder link out of the workspace
    (refs / "b.md").symlink_to(refs / "a.md")  # a link that stays inside
    (refs / "loop.md").symlink_to(refs / "loop.md")
    (refs / "dangling.md").symlink_to(refs / "missing.md")
    return Workspace.at(root)


def _answers(ws: Workspace) -> list[object]:
    refs = ws.root / "skills" / "openclaw" / "demo" / "references"
    paths = [
        refs / "a.md",
        refs / "b.md",
        refs / "escape" / "secret.md",
        refs / "escape" / "none.md",
        refs / "loop.md",
        refs / "dangling.md",
        refs / "sub" / ".." / "a.md",
        refs / "missing" / "x.md",
        ws.root,
        ws.root.parent / "outside" / "secret.md",
    ]
    out: list[object] = []
    for path in paths:
        text = ws.read(path)
        out.append((ws.escapes(path), ws.contains(path), ws.rel(path), text.error))
        ws.forget(path)
    out.append([p.name for p in ws.list_dir(refs, "*.md", recursive=True)])
    return out


def test_disk_memo_gives_the_answers_of_the_disk(tmp_path: Path) -> None:
    ws = _tree(tmp_path)
    fresh = _answers(ws)
    ws.memoise_disk(True)
    assert _answers(ws) == fresh
    assert _answers(ws) == fresh  # from the memo this time
    ws.memoise_disk(False)
    assert _answers(ws) == fresh


def test_listing_memo_still_records_every_folder(tmp_path: Path) -> None:
    ws = _tree(tmp_path)
    refs = ws.root / "skills" / "openclaw" / "demo" / "references"
    (refs / "deep").mkdir()
    ws.memoise_disk(True)
    recorded = []
    for _ in range(2):
        ws.begin_recording()
        ws.list_dir(refs, "*.md", recursive=True)
        recorded.append(ws.end_recording())
    assert recorded[0] == recorded[1]
    assert refs / "deep" in recorded[1]


def test_remembered_only_within_a_batch_run(tmp_path: Path) -> None:
    ws = _tree(tmp_path)
    calls: list[int] = []
    assert ws.remembered("q", lambda: calls.append(1) or len(calls)) == 1
    assert ws.remembered("q", lambda: calls.append(1) or len(calls)) == 2
    ws.memoise_disk(True)
    assert ws.remembered("q", lambda: calls.append(1) or len(calls)) == 3
    assert ws.remembered("q", lambda: calls.append(1) or len(calls)) == 3


def test_adopted_script_models_are_used_only_for_the_same_text(tmp_path: Path) -> None:
    ws = _tree(tmp_path)
    script = ws.root / "skills" / "openclaw" / "demo" / "scripts" / "run.py"
    script.parent.mkdir()
    script.write_text("import argparse\np = argparse.ArgumentParser()\np.parse_args()\n")
    doc = ws.read(script).doc
    assert doc is not None
    ws.adopt_artefacts(script, doc.content_hash, {"argparse": "built elsewhere"})
    assert engine.script_model(ws, script) == "built elsewhere"
    script.write_text("import argparse\np = argparse.ArgumentParser()\np.parse_known_args()\n")
    ws.forget(script)
    ws.adopt_artefacts(script, doc.content_hash, {"argparse": "built elsewhere"})
    model = engine.script_model(ws, script)
    assert model is not None and model != "built elsewhere"


def test_script_facts_come_with_the_argparse_model(tmp_path: Path) -> None:
    ws = _tree(tmp_path)
    script = ws.root / "skills" / "openclaw" / "demo" / "scripts" / "run.py"
    script.parent.mkdir()
    source = "import argparse, requests\np = argparse.ArgumentParser()\nrequests.post('u')\n"
    script.write_text(source)
    engine.script_model(ws, script)
    facts = ws.artefacts_of(script)["script-facts"]
    assert facts == script_facts(ast.parse(source))


def test_fast_walk_keeps_the_order_of_ast_walk() -> None:
    source = Path(engine.__file__).read_text("utf-8")
    tree = ast.parse(source)
    expected = [
        node for node in ast.walk(tree) if not isinstance(node, (ast.Load, ast.Store, ast.Del))
    ]
    assert list(_walk(tree)) == expected


@pytest.mark.parametrize("seed", range(5))
def test_ascii_fold_lowercases_ascii_letters_only(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = string.ascii_letters + "ÄÖÜẞİΣＡｚ主题\ud800\udfff😀 \n\r"
    for _ in range(200):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        expected = "".join(c.lower() if c in string.ascii_uppercase else c for c in text)
        assert content_guard._ascii_fold(text) == expected
