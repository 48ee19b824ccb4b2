"""`--jobs N` checks in worker processes and reports exactly what a single process reports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from easel_ls.rules.context import FileKind

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A generated 12-skill workspace (with planted drift) to check."""
    folder = tmp_path / "ws"
    subprocess.run(
        [sys.executable, str(ROOT / "benchmarks/gen_workspace.py"), "12", "--out", str(folder)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return folder


@pytest.mark.parametrize("extra", [[], ["--select", "CM,RS"]])
def test_parallel_run_equals_serial_run(workspace: Path, extra: list[str]) -> None:

    def run(jobs: str) -> str:
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "easel_ls",
                "--check",
                ".",
                "--output-format",
                "json",
                "--no-cache",
                *(["--jobs", jobs] if jobs else []),
                *extra,
            ],
            cwd=workspace,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode in (0, 1), result.stderr
        return result.stdout

    serial = run("1")
    assert '"code"' in serial  # the generated workspace has planted drift
    assert run("2") == serial
    assert run("") == serial  # the default: 12 skills are worth two workers where they fork


def test_a_parallel_run_writes_the_cache_a_serial_run_writes(
    workspace: Path, tmp_path: Path
) -> None:
    # Workers build the cache entries: same stamps, settings keys, dependencies and findings.

    def run(jobs: str, cache_dir: Path) -> str:
        command = [sys.executable, "-m", "easel_ls", "--check", ".", "--output-format", "json"]
        command += ["--jobs", jobs, "--cache-dir", str(cache_dir)]
        result = subprocess.run(command, cwd=workspace, capture_output=True, text=True, timeout=120)
        assert result.returncode in (0, 1), result.stderr
        return result.stdout

    serial = run("1", tmp_path / "serial")
    assert run("2", tmp_path / "parallel") == serial
    serial_cache = json.loads((tmp_path / "serial" / "check.json").read_text("utf-8"))
    parallel_cache = json.loads((tmp_path / "parallel" / "check.json").read_text("utf-8"))
    assert parallel_cache["entries"] and parallel_cache == serial_cache
    assert run("2", tmp_path / "parallel") == serial  # warm: every file from the cache


def test_spawned_workers_report_what_forked_workers_report(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Where fork is unavailable (or threads run), workers are spawned: nothing is inherited.
    import multiprocessing

    from easel_ls import batch
    from easel_ls.config import ConfigResolver
    from easel_ls.workspace import Workspace

    root = workspace.resolve()

    def findings() -> list[tuple[str, str, int, int]]:
        ws = Workspace(root=root, config=ConfigResolver(stop_at=root))
        found = batch.check_paths(ws, [root], jobs=2)
        return sorted(
            (f.code, str(f.path), f.range.start.line, f.range.start.character) for f in found
        )

    forked = findings()
    monkeypatch.setattr(batch, "_process_context", lambda: multiprocessing.get_context("spawn"))
    assert forked and findings() == forked


def test_a_script_only_a_reference_names_is_still_modelled_in_parallel(tmp_path: Path) -> None:
    # The script primer models every shared script, named in a SKILL.md or not: a command in a
    # reference calling a script no SKILL.md names is checked against the same model.
    root = tmp_path / "ws"
    skill = root / "skills" / "openclaw" / "demo"
    (skill / "references").mkdir(parents=True)
    scripts = root / "skills" / "shared" / "scripts"
    scripts.mkdir(parents=True)
    (root / "easel-ls.toml").write_text("", "utf-8")
    (skill / "SKILL.md").write_text(
        "---\nname: demo\ndescription: 做卡片。适用场景：用户说“做卡片”。不负责写文案。\n"
        "layer: produce\n---\n\n# 卡片\n\n见 [用法](references/usage.md)。\n\n"
        "```bash\npython skills/shared/scripts/named.py run --color red\n```\n",
        "utf-8",
    )
    (skill / "references" / "usage.md").write_text(
        "# 用法\n\n```bash\npython skills/shared/scripts/unnamed.py run --colour red\n```\n",
        "utf-8",
    )
    parser = (
        "import argparse\np = argparse.ArgumentParser()\ns = p.add_subparsers(dest='c')\n"
        "r = s.add_parser('run')\nr.add_argument('--color')\np.parse_args()\n"
    )
    (scripts / "named.py").write_text(parser, "utf-8")
    (scripts / "unnamed.py").write_text(parser, "utf-8")

    def run(jobs: str) -> str:
        command = [sys.executable, "-m", "easel_ls", "check", ".", "--output-format", "json"]
        result = subprocess.run(
            [*command, "--no-cache", "--jobs", jobs],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode in (0, 1), result.stderr
        return result.stdout

    serial = run("1")
    assert [f["code"] for f in json.loads(serial) if f["filename"].endswith("usage.md")] == [
        "CM002"
    ]
    assert run("2") == serial


def _misses(**counts: int) -> list[tuple[Path, FileKind]]:
    return [
        (Path(f"/ws/{kind}-{i}"), FileKind(kind)) for kind, n in counts.items() for i in range(n)
    ]


def test_workers_are_used_for_a_real_sized_repository_not_for_a_handful_of_skills(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Real repositories have few files, most of them SKILL.md (milliseconds each): 77 skills in
    # 130 files took a third of a second in one process. Forked workers pay off from about ten.
    import multiprocessing

    from easel_ls import batch

    monkeypatch.setattr(batch, "_cpu_count", lambda: 4)
    monkeypatch.setattr(batch, "_process_context", lambda: batch._FORK)
    assert batch._worker_count(None, _misses(skill=77, reference=30, script=20)) == 4
    assert batch._worker_count(None, _misses(skill=10)) == 4
    assert batch._worker_count(None, _misses(skill=6, reference=4, test=20)) == 1
    assert batch._worker_count(None, _misses(test=399)) == 1  # cheap files: not worth it
    assert batch._worker_count(None, _misses(test=400)) == 4  # as many files as this, though
    assert batch._worker_count(3, _misses(skill=1)) == 3  # --jobs decides
    monkeypatch.setattr(batch, "_process_context", lambda: multiprocessing.get_context("spawn"))
    assert batch._worker_count(None, _misses(skill=77)) == 1  # spawned workers start slowly
    monkeypatch.setattr(batch, "_cpu_count", lambda: 1)
    assert batch._worker_count(None, _misses(test=5000)) == 1


def test_a_cold_run_over_the_shared_scripts_starts_modelling_them_at_once(
    workspace: Path, tmp_path: Path
) -> None:
    from easel_ls import batch
    from easel_ls.cache import CheckCache
    from easel_ls.config import ConfigResolver
    from easel_ls.workspace import Workspace

    root = workspace.resolve()
    ws = Workspace(root=root, config=ConfigResolver(stop_at=root))
    cold = CheckCache(ws, tmp_path / "cache")
    assert batch._cold_over_shared_scripts(ws, [root], None, None, 2)
    assert batch._cold_over_shared_scripts(ws, [root / "skills"], cold, None, 2)
    assert not batch._cold_over_shared_scripts(ws, [root], None, 1, 2)  # --jobs 1
    assert not batch._cold_over_shared_scripts(ws, [root], None, None, 1)  # one CPU
    skill = next((root / "skills" / "openclaw").iterdir())
    assert not batch._cold_over_shared_scripts(ws, [skill], None, None, 2)  # some scripts only
    assert not batch._cold_over_shared_scripts(ws, [skill / "SKILL.md"], None, None, 2)
    warm = CheckCache(ws, tmp_path / "cache")
    warm.store(skill / "SKILL.md", set(), [])
    assert not batch._cold_over_shared_scripts(ws, [root], warm, None, 2)  # the cache answers


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_the_primer_models_every_script_once_this_process_included(
    workspace: Path, method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Helpers and this process take scripts from one queue (fork) or fixed shares (spawn):
    # every script is modelled exactly once, and those modelled here stay in this workspace.
    import multiprocessing

    from easel_ls import batch
    from easel_ls.config import ConfigResolver
    from easel_ls.workspace import Workspace

    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} here")
    monkeypatch.setattr(batch, "_process_context", lambda: multiprocessing.get_context(method))
    root = workspace.resolve()
    ws = Workspace(root=root, config=ConfigResolver(stop_at=root))
    ws.memoise_disk(True)
    scripts = batch._shared_python_scripts(ws)
    assert len(scripts) > 3
    primed = batch._ScriptPrimer(ws, scripts, 3).result()
    assert sorted(path for path, _, _ in primed) == sorted(scripts)
    here = [path for path in scripts if ws.artefacts_of(path)]
    assert here  # this process takes scripts too (with fork, as many as it gets to first)
    if method == "spawn":
        assert len(here) < len(scripts)  # a fixed share each
    assert all("script-facts" in artefacts for _, _, artefacts in primed)


fork_only = pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="no fork here")


@fork_only
@pytest.mark.parametrize("count", [0, 1, 7, 2500])
def test_forked_children_take_every_task_exactly_once(count: int) -> None:
    from easel_ls import batch

    tasks = batch._Tasks(count)  # above 1000 tasks, one number stands for a run of them

    def body(send):  # type: ignore[no-untyped-def]
        for index in tasks.take():
            send(index, index * 2)

    children = batch._Children(3, body)
    try:
        got = sorted(children.results())
    finally:
        tasks.close()
        children.stop()
    assert got == [(i, i * 2) for i in range(count)]


@fork_only
def test_an_exception_in_a_forked_child_is_raised_in_the_parent() -> None:
    from easel_ls import batch

    def body(send):  # type: ignore[no-untyped-def]
        raise ValueError("broken in the child")

    children = batch._Children(2, body)
    with pytest.raises(ValueError, match="broken in the child"):
        list(children.results())
    children.stop()


@fork_only
def test_a_forked_worker_that_dies_fails_the_run_instead_of_hanging(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import os

    from easel_ls import batch

    def die(*args: object) -> None:
        os._exit(3)

    monkeypatch.setattr(batch, "_check_chunk_with_entries", die)
    chunks = [[(tmp_path / f"f{i}.md", batch.FileKind.REFERENCE)] for i in range(4)]
    with pytest.raises(RuntimeError, match="ended before"):
        list(batch._forked_chunks((tmp_path, (None, None, {})), chunks, False, 2))
