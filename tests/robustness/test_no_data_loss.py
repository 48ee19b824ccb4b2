"""No write loses data: a fault between writing the temp file and renaming it leaves the original
intact (easel-ls fixes and the shared manifest.py alike), `--fix` never overwrites a change made
on disk after it read the file, and 20 concurrent manifest writers plus a concurrent `--fix`
lose no field while a reader always sees valid JSON."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import ModuleType

import pytest
from robustness_inputs import make_workspace

from easel_ls.batch import check_paths
from easel_ls.fixes import FixPlan, atomic_write, plan_changes, write_changes

REPO = Path(__file__).resolve().parents[2]
MANIFEST_SCRIPT = REPO / "skills/shared/scripts/manifest.py"
ORIGINAL = '{\n  "topic": "t",\n  "title": "原标题"\n}\n'


def shared_manifest() -> ModuleType:
    """The repository's own shared manifest module (our code, not a workspace's)."""
    sys.path.insert(0, str(MANIFEST_SCRIPT.parent))
    try:
        spec = importlib.util.spec_from_file_location("robustness_manifest", MANIFEST_SCRIPT)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["robustness_manifest"] = module
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(MANIFEST_SCRIPT.parent))


class InjectedFault(Exception):
    pass


def fail_on_replace(monkeypatch: pytest.MonkeyPatch) -> None:
    def replace(src: object, dst: object) -> None:
        raise InjectedFault("power cut between write and rename")

    monkeypatch.setattr(os, "replace", replace)


def leftovers(folder: Path, keep: str) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name != keep)


def test_atomic_write_keeps_the_original_when_the_rename_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "SKILL.md"
    target.write_text(ORIGINAL, encoding="utf-8")
    fail_on_replace(monkeypatch)
    with pytest.raises(InjectedFault):
        atomic_write(target, "新内容\n")
    assert target.read_text(encoding="utf-8") == ORIGINAL
    assert leftovers(tmp_path, "SKILL.md") == []  # the temp file is cleaned up


def test_atomic_write_keeps_the_original_when_the_write_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "SKILL.md"
    target.write_text(ORIGINAL, encoding="utf-8")

    def fsync(fd: int) -> None:
        raise InjectedFault("disk full")

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(InjectedFault):
        atomic_write(target, "新内容\n" * 1000)
    assert target.read_text(encoding="utf-8") == ORIGINAL
    assert leftovers(tmp_path, "SKILL.md") == []


def test_the_shared_manifest_keeps_the_original_when_the_rename_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manifest = shared_manifest()
    project = tmp_path / "outputs/t"
    project.mkdir(parents=True)
    (project / ".easel.json").write_text(ORIGINAL, encoding="utf-8")
    fail_on_replace(monkeypatch)
    with pytest.raises(InjectedFault):
        manifest.upsert_meta(tmp_path / "outputs", "t", title="新标题")
    assert (project / ".easel.json").read_text(encoding="utf-8") == ORIGINAL
    assert leftovers(project, ".easel.json") == []  # no temp file, no stale lock


KILL_BETWEEN_WRITE_AND_RENAME = """
import os, sys
from pathlib import Path
def crash(src, dst):
    os._exit(9)  # a real crash: no cleanup code runs
os.replace = crash
from easel_ls.fixes import atomic_write
atomic_write(Path(sys.argv[1]), "新内容\\n")
"""


def test_a_process_killed_between_write_and_rename_leaves_the_original(tmp_path: Path) -> None:
    target = tmp_path / "SKILL.md"
    target.write_text(ORIGINAL, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-c", KILL_BETWEEN_WRITE_AND_RENAME, str(target)],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=60,
    )
    assert result.returncode == 9
    assert target.read_text(encoding="utf-8") == ORIGINAL
    # What a crash can leave is a hidden temp file beside it, never a half-written original.
    assert all(name.startswith(".SKILL.md.") for name in leftovers(tmp_path, "SKILL.md"))


def test_fix_never_overwrites_a_manifest_changed_after_it_was_read(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws")
    project = ws.root / "outputs/t"
    project.mkdir(parents=True)
    path = project / ".easel.json"
    path.write_text(json.dumps({"topic": "wrong", "title": "t"}, indent=2) + "\n", "utf-8")
    findings = list(check_paths(ws, [path]))
    plan = FixPlan()
    for finding in findings:
        for fix in finding.fixes:
            if fix.is_safe:
                plan.add(fix)
    assert plan.applied, [f.code for f in findings]  # MF007: topic does not match the folder
    changes = plan_changes(plan, ws.text_of)
    # Meanwhile a skill records a step through manifest.py.
    shared_manifest().record_step(ws.root / "outputs", "t", "plan", "planner")
    write_changes(changes)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert [step["skill"] for step in data["steps"]] == ["planner"]


def test_fix_never_overwrites_a_document_changed_after_it_was_read(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws")
    project = ws.root / "outputs/t"
    project.mkdir(parents=True)
    path = project / ".easel.json"
    path.write_text(json.dumps({"topic": "wrong"}) + "\n", "utf-8")
    plan = FixPlan()
    for finding in check_paths(ws, [path]):
        for fix in finding.fixes:
            if fix.is_safe:
                plan.add(fix)
    changes = plan_changes(plan, ws.text_of)
    path.write_text(json.dumps({"topic": "wrong", "title": "typed meanwhile"}) + "\n", "utf-8")
    write_changes(changes)
    assert json.loads(path.read_text(encoding="utf-8"))["title"] == "typed meanwhile"


META_FIELDS = {
    "title": "标题",
    "summary": "一句话",
    "platform": "小红书",
    "tags": "a,b",
    "cover": "cover.png",
    "profile": "默认",
    "deliverables": "cover.png,card.png",
    "kind": None,  # filled from manifest.KINDS
}


def test_twenty_concurrent_writers_and_a_fix_run_lose_nothing(tmp_path: Path) -> None:
    manifest = shared_manifest()
    ws = make_workspace(tmp_path / "ws")
    outputs = ws.root / "outputs"
    project = outputs / "t"
    project.mkdir(parents=True)
    path = project / ".easel.json"
    # A wrong topic gives `--fix` a safe manifest edit to race with the writers.
    path.write_text(json.dumps({"topic": "wrong", "title": "t"}, indent=2) + "\n", "utf-8")
    fields = dict(META_FIELDS, kind=manifest.KINDS[0])
    command = [sys.executable, str(MANIFEST_SCRIPT), "--root", str(outputs)]
    writers = [
        [*command, "meta", "--topic", "t", f"--{name}", value] for name, value in fields.items()
    ]
    steps = [f"skill-{i}" for i in range(20 - len(writers))]
    writers += [
        [*command, "record", "--topic", "t", "--layer", "plan", "--skill", s] for s in steps
    ]
    assert len(writers) == 20

    seen_invalid: list[str] = []
    reads = 0
    stop = threading.Event()

    def reader() -> None:
        nonlocal reads
        while not stop.is_set():
            try:
                text = path.read_text(encoding="utf-8")
            except FileNotFoundError:
                seen_invalid.append("missing")
                continue
            try:
                json.loads(text)
            except json.JSONDecodeError:
                seen_invalid.append(text[:200])
            reads += 1

    polling = threading.Thread(target=reader)
    polling.start()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    try:
        fixer = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "easel_ls",
                "--fix",
                "--no-cache",
                "--exit-zero",
                "--check",
                "outputs",
            ],
            cwd=ws.root,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        running = [
            subprocess.Popen(w, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for w in writers
        ]
        results = [(p.wait(timeout=120), p.stderr.read()) for p in running if p.stderr]
        _, fix_err = fixer.communicate(timeout=120)
    finally:
        time.sleep(0.05)
        stop.set()
        polling.join()
    assert [r for r in results if r[0] != 0] == []
    assert fixer.returncode == 0 and b"Traceback" not in fix_err, fix_err.decode()
    assert seen_invalid == [] and reads > 0
    data = json.loads(path.read_text(encoding="utf-8"))
    assert sorted(step["skill"] for step in data["steps"]) == sorted(steps)
    for name, value in fields.items():
        got = data[name]
        if name in ("tags", "deliverables"):
            assert got == value.split(","), name
        else:
            assert got == value, name
    assert data["topic"] == "t"


WRITERS = {"write_text", "write_bytes", "atomic_write", "write_changes", "write_atomic", "unlink"}


def test_the_server_never_writes_files_behind_the_editor() -> None:
    """Edits to documents go to the editor (code action edits, `workspace/applyEdit`), which
    knows about unsaved buffers; the server and its services write no file themselves."""
    offenders = []
    for folder in ("easel_ls/server", "easel_ls/services"):
        for path in sorted((REPO / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.Call):
                    continue
                name = ast.unparse(node.func).rsplit(".", 1)[-1]
                writes_by_mode = name == "open" and any(
                    isinstance(a, ast.Constant)
                    and isinstance(a.value, str)
                    and set(a.value) & set("wax+")
                    for a in [*node.args[1:2], *(k.value for k in node.keywords if k.arg == "mode")]
                )
                if (
                    name in WRITERS
                    or writes_by_mode
                    or (name in {"replace", "rename"} and "os." in ast.unparse(node.func))
                ):
                    offenders.append(
                        f"{path.relative_to(REPO)}:{node.lineno} {ast.unparse(node.func)}"
                    )
    assert offenders == []
