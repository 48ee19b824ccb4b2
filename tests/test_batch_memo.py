"""The speed-ups of a batch run must not change an answer: the disk memo (symlinks, listings),
script models built once in other processes, and the fast paths of the command reader, the
script facts and content_guard's ASCII folding."""

from __future__ import annotations

import ast
import random
import re
import string
import sys
from pathlib import Path

import pytest

from easel_ls.model.script_facts import ScriptFacts, script_facts
from easel_ls.rules import context
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


def _walked_by_os(ws: Workspace, top: Path) -> list[Path]:
    """``Workspace.iter_files`` as it was defined: os.walk, sorted, skipping tool folders."""
    import os

    found = []
    for folder, dirnames, filenames in os.walk(top, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in (".git", "__pycache__"))
        found += [Path(folder) / name for name in sorted(filenames)]
    return found


def _odd_tree(tmp_path: Path) -> Workspace:
    ws = _tree(tmp_path)
    demo = ws.root / "skills" / "openclaw" / "demo"
    (demo / "tests").mkdir()
    (demo / "tests" / "t.prompt").write_text("hi\n", "utf-8")
    (demo / "tests" / "t.expected").symlink_to(demo / "tests" / "gone.expected")
    (demo / "linked").symlink_to(demo / "tests")  # a folder link: listed, never entered
    (demo / ".git").mkdir()
    (demo / ".git" / "config").write_text("", "utf-8")
    (demo / "easel-ls.toml").write_text('ignore = ["RS001"]\n', "utf-8")
    (demo / "references" / "deep" / "er").mkdir(parents=True)
    (demo / "references" / "deep" / "er" / "z.md").write_text("# z\n", "utf-8")
    return ws


def test_walk_lists_what_os_walk_lists(tmp_path: Path) -> None:
    ws = _odd_tree(tmp_path)
    expected = _walked_by_os(ws, ws.root)
    assert list(ws.iter_files([ws.root])) == expected
    ws.memoise_disk(True)
    assert list(ws.iter_files([ws.root])) == expected


def test_what_the_walk_remembers_gives_the_answers_of_the_disk(tmp_path: Path) -> None:
    ws = _odd_tree(tmp_path)
    demo = ws.root / "skills" / "openclaw" / "demo"
    probes = [
        *_walked_by_os(ws, ws.root),
        demo / "linked" / "t.prompt",
        demo / "tests" / "missing.prompt",
        demo / "references",
        demo / "references" / "deep" / ".." / "a.md",
        demo / "easel-ls.toml",
        demo,  # a folder with a config file: its own settings
        ws.root,
    ]

    def answers(fresh: Workspace) -> list[object]:
        return [
            (
                fresh.exists(p),
                fresh.read(p).error,
                fresh.settings_for(p).is_enabled("RS001", fresh.rel(p)),
                fresh.escapes(p),
            )
            for p in probes
        ]

    expected = answers(Workspace.at(ws.root))
    batch = Workspace.at(ws.root)
    batch.memoise_disk(True)
    list(batch.iter_files([batch.root]))  # the walk fills the memo
    assert answers(batch) == expected
    assert not batch.settings_for(demo / "SKILL.md").is_enabled("RS001", "x")


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
    assert context.script_model(ws, script) == "built elsewhere"
    script.write_text("import argparse\np = argparse.ArgumentParser()\np.parse_known_args()\n")
    ws.forget(script)
    ws.adopt_artefacts(script, doc.content_hash, {"argparse": "built elsewhere"})
    model = context.script_model(ws, script)
    assert model is not None and model != "built elsewhere"


def test_script_facts_come_with_the_argparse_model(tmp_path: Path) -> None:
    ws = _tree(tmp_path)
    script = ws.root / "skills" / "openclaw" / "demo" / "scripts" / "run.py"
    script.parent.mkdir()
    source = "import argparse, requests\np = argparse.ArgumentParser()\nrequests.post('u')\n"
    script.write_text(source)
    context.script_model(ws, script)
    facts = ws.artefacts_of(script)["script-facts"]
    assert facts == script_facts(ast.parse(source))


def _facts_by_definition(tree: ast.AST) -> ScriptFacts:
    """The script facts exactly as their fields are documented, on ``ast.walk``."""
    facts = ScriptFacts()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = (
                func.id
                if isinstance(func, ast.Name)
                else func.attr
                if isinstance(func, ast.Attribute)
                else None
            )
            if name is None:
                continue
            facts.calls.add(name)
            if name == "add_argument" and facts.exec_option_line is None:
                for arg in node.args:
                    if isinstance(arg, ast.Constant) and arg.value == "--exec":
                        facts.exec_option_line = node.lineno - 1
                        facts.exec_option_col = node.col_offset
            if (
                name in ("write_text", "write_bytes", "mkdir", "touch", "makedirs", "copy")
                or name
                in ("copy2", "copyfile", "copytree", "move", "rename", "replace", "dump", "save")
                or name == "savefig"
            ):
                facts.writes = True
            if name == "open":
                mode = (
                    node.args[1]
                    if len(node.args) > 1
                    else next((k.value for k in node.keywords if k.arg == "mode"), None)
                )
                if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
                    facts.writes |= any(c in mode.value for c in "wax+")
            if name in ("post", "put") and facts.post_call is None:
                end = node.end_col_offset if node.end_lineno == node.lineno else node.col_offset
                facts.post_call = (node.lineno - 1, node.col_offset, end or node.col_offset)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            facts.defines.add(node.name)
        elif isinstance(node, ast.Import):
            roots = [a.name.split(".")[0] for a in node.names]
            facts.imports_http |= any(r in _HTTP for r in roots)
            facts.imports_sender |= any(r in _HTTP + _SENDERS for r in roots)
            facts.imports_beyond_stdlib |= any(r not in sys.stdlib_module_names for r in roots)
        elif isinstance(node, ast.ImportFrom):
            root = node.module.split(".")[0] if node.module else ""
            facts.imports_http |= root in _HTTP
            facts.imports_sender |= root in _HTTP + _SENDERS
            facts.imports_beyond_stdlib |= node.level > 0 or root not in sys.stdlib_module_names
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            value = node.value
            in_self_test = any(
                f.lineno <= node.lineno <= (f.end_lineno or f.lineno)
                for f in ast.walk(tree)
                if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                and re.fullmatch(r"_?(cmd_)?(self_?test\w*|test_\w+)", f.name)
            )
            if (
                facts.outputs_literal is None
                and (value == "outputs" or value.startswith("outputs/"))
                and not in_self_test
            ):
                end = node.end_col_offset if node.end_lineno == node.lineno else node.col_offset
                facts.outputs_literal = (node.lineno - 1, node.col_offset, end or node.col_offset)
    if facts.post_call is None:
        calls = [
            n for n in ast.walk(tree)
            if isinstance(n, ast.Call)
            and getattr(n.func, "id", getattr(n.func, "attr", None)) in ("urlopen", "Request")
        ]  # fmt: skip
        urlopens = [
            n for n in calls if getattr(n.func, "id", getattr(n.func, "attr", None)) == "urlopen"
        ]
        if urlopens and any(_sends_data(n) for n in calls):
            n = urlopens[0]
            end = n.end_col_offset if n.end_lineno == n.lineno else n.col_offset
            facts.post_call = (n.lineno - 1, n.col_offset, end or n.col_offset)
    return facts


_HTTP = ("requests", "httpx", "urllib", "aiohttp", "http")
_SENDERS = (
    "playwright", "selenium", "pyppeteer", "DrissionPage", "undetected_chromedriver", "smtplib",
    "subprocess",
)  # fmt: skip


def _sends_data(call: ast.Call) -> bool:
    """Documented: a request carries data with a second positional, `data=`, or a sending
    `method=`."""
    method = next((k.value for k in call.keywords if k.arg == "method"), None)
    return (
        len(call.args) >= 2
        or any(k.arg == "data" for k in call.keywords)
        or (
            isinstance(method, ast.Constant)
            and isinstance(method.value, str)
            and method.value.upper() in ("POST", "PUT", "PATCH")
        )
    )


_REPO = Path(__file__).resolve().parents[1]


def _parses(path: Path) -> bool:
    try:
        ast.parse(path.read_text("utf-8"))
    except (SyntaxError, ValueError, UnicodeDecodeError):
        return False  # fixtures of broken scripts
    return True


_PYTHON_SOURCES = sorted(
    path
    for pattern in ("easel_ls/**/*.py", "skills/**/*.py", "tests/**/*.py", "benchmarks/*.py")
    for path in _REPO.glob(pattern)
    if _parses(path)
)


@pytest.mark.parametrize("path", _PYTHON_SOURCES, ids=lambda p: str(p.relative_to(_REPO)))
def test_script_facts_match_their_definition(path: Path) -> None:
    tree = ast.parse(path.read_text("utf-8"))
    assert script_facts(tree) == _facts_by_definition(tree)


def test_script_facts_of_every_construct() -> None:
    source = """
import requests, urllib.request as u
from http import client
import argparse
OUT = "outputs/x"
async def send(p):
    await requests.post(p)
def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--exec", action="store_true")
    open(OUT, mode="a").write("x")
    (lambda: u.urlopen("u"))()
    [requests.put(x) for x in "ab" if open(x, "w")]
    f"{OUT!r:>{10}}"
    match parser:
        case {"k": [1, *rest]} if rest: pass
        case str() as s: pass
    try: pass
    except* OSError as e: pass
    global OUT2
    del OUT2
"""
    tree = ast.parse(source)
    facts = script_facts(tree)
    assert facts == _facts_by_definition(tree)
    assert facts.exec_option_line == 9 and facts.writes and facts.imports_http
    assert facts.outputs_literal == (4, 6, 17) and facts.post_call is not None


@pytest.mark.parametrize("seed", range(5))
def test_ascii_fold_lowercases_ascii_letters_only(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = string.ascii_letters + "ÄÖÜẞİΣＡｚ主题\ud800\udfff😀 \n\r"
    for _ in range(200):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        expected = "".join(c.lower() if c in string.ascii_uppercase else c for c in text)
        assert content_guard._ascii_fold(text) == expected
