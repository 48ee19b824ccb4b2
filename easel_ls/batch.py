"""Checks many files: the walk, the on-disk cache, worker processes (forked from the parent's
workspace where possible), the shared scripts parsed by the workers while the parent walks the
tree, and progress. Each file is checked by ``easel_ls.engine``; results are identical to a
serial run.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from easel_ls.engine import CACHEABLE, check_one, check_path, load_rules
from easel_ls.findings import Finding
from easel_ls.rules.context import FileKind, classify, script_facts_of, script_model
from easel_ls.workspace import SKILL_FILE, Workspace

if TYPE_CHECKING:
    from easel_ls.cache import CheckCache, EntryBuilder


def check_paths(
    workspace: Workspace,
    paths: list[Path],
    *,
    progress: Callable[[int, Path], None] | None = None,
    cache: CheckCache | None = None,
    jobs: int | None = 1,
) -> Iterator[Finding]:
    """Findings for every file to check under ``paths``. ``jobs`` > 1 (or None: one per CPU
    for large runs) checks cache misses in worker processes; results are identical."""
    workspace.memoise_disk(True)
    try:
        yield from _check_paths(workspace, paths, progress, cache, jobs)
    finally:
        workspace.memoise_disk(False)


def _check_paths(
    workspace: Workspace,
    paths: list[Path],
    progress: Callable[[int, Path], None] | None,
    cache: CheckCache | None,
    jobs: int | None,
) -> Iterator[Finding]:
    explicit = {p.resolve() for p in paths if p.is_file()}
    misses: list[tuple[Path, FileKind]] = []
    primer: _ScriptPrimer | None = None
    try:
        for path in workspace.iter_files(paths):
            kind, _ = classify(workspace, path)
            if kind is FileKind.OTHER and not (explicit and path.resolve() in explicit):
                continue
            hit = cache.lookup(path) if cache is not None and kind in CACHEABLE else None
            if hit is not None:
                yield from hit
                continue
            misses.append((path, kind))
            if primer is None and len(misses) == _PARALLEL_THRESHOLD:
                workers = _worker_count(jobs, len(misses))
                if workers > 1:
                    # A large run that will use worker processes: they parse the shared scripts
                    # (which most documents call) while this process is still walking the tree.
                    primer = _ScriptPrimer(workspace, _shared_python_scripts(workspace), workers)
        workers = _worker_count(jobs, len(misses))
        if workers > 1:
            # While the primer's processes parse the scripts: what each forked worker needs.
            _prepare_for_workers(workspace)
            if primer is not None:
                primed, primer = primer.result(), None
            else:
                primed = _analyse_scripts_in_parallel(workspace, misses, workers)
            yield from _check_parallel(workspace, misses, workers, progress, cache, primed)
            return
    finally:
        if primer is not None:  # the walk failed or was abandoned
            primer.cancel()
    for i, (path, kind) in enumerate(misses):
        if progress is not None:
            progress(i, path)
        yield from check_path(workspace, path, cache=cache, kind=kind, looked_up=True)
        workspace.release(path)


_PARALLEL_THRESHOLD = 400  # below this, starting processes costs more than it saves
_CHUNK_LIMIT = 250  # files per task handed to a worker process


def _worker_count(jobs: int | None, files: int) -> int:
    import os

    if jobs is None:
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        return min(cpus or 1, 8) if files >= _PARALLEL_THRESHOLD else 1
    return max(1, jobs)


def _check_parallel(
    workspace: Workspace,
    misses: list[tuple[Path, FileKind]],
    workers: int,
    progress: Callable[[int, Path], None] | None,
    cache: CheckCache | None,
    primed: PrimedScripts,
) -> Iterator[Finding]:
    from concurrent.futures import ProcessPoolExecutor

    spec = (workspace.root, workspace.config.init_args)
    # Chunks follow folder order, so a worker sees a skill's files (and its scripts) together;
    # small enough that no worker is left with a long last chunk while the others idle.
    size = max(20, min(len(misses) // (workers * 8) + 1, _CHUNK_LIMIT))
    chunks = [misses[i : i + size] for i in range(0, len(misses), size)]
    # With a cache, workers also build each file's cache entry (stamps, settings key, findings
    # as JSON): the parent shares the CPUs with them and only files the entries away.
    record = cache is not None
    done = 0
    # Forked workers start from this workspace (never from one an earlier run left here).
    _WORKER_WORKSPACES.pop(workspace.root, None)
    _WORKER_ENTRY_BUILDERS.pop(workspace.root, None)
    _FORKED_WORKSPACES[workspace.root] = workspace
    try:
        with ProcessPoolExecutor(
            max_workers=workers,
            mp_context=_process_context(),
            initializer=_adopt_primed,
            initargs=(primed,),
        ) as pool:
            jobs = pool.map(
                _check_chunk_with_entries, [spec] * len(chunks), chunks, [record] * len(chunks)
            )
            for results in jobs:
                for path, entry, findings in results:
                    if progress is not None:
                        progress(done, path)
                    done += 1
                    if cache is not None and entry is not None:
                        cache.store_entry(path, entry)
                    yield from findings
    finally:
        _FORKED_WORKSPACES.pop(workspace.root, None)


def _prepare_for_workers(workspace: Workspace) -> None:
    """Do once in the parent what each forked worker would otherwise do on its own: import the
    rules and models (where no bytecode cache can be written, every import compiles) and decide
    which shared modules (content_guard ...) to load. jsonschema is left out: the precheck
    settles almost every manifest without it, and the rare worker that needs it imports it."""
    from easel_ls import schemas, suppressions  # noqa: F401
    from easel_ls.model import (  # noqa: F401
        argmatch,
        argparse_model,
        commands,
        frontmatter,
        json_doc,
        markdown,
        script_facts,
    )
    from easel_ls.vendor import load_shared

    load_rules()
    trusted = bool(workspace.settings_for(workspace.root).option("trusted-workspace"))
    with contextlib.suppress(Exception):  # a worker meets (and reports) the same problem
        load_shared(None)  # the packaged copy (some rules read its constants)
        load_shared(workspace.shared_scripts_dir(), trusted=trusted)


# (path, content hash, artefacts by kind) of the scripts analysed before the check started.
PrimedScripts = list[tuple[Path, str, dict[str, Any]]]


def _analyse_scripts_in_parallel(
    workspace: Workspace, misses: list[tuple[Path, FileKind]], workers: int
) -> PrimedScripts:
    """The argparse models (and script facts) of the Python scripts to check, each built once
    by one of ``workers`` processes (this one included). Most documents call scripts: without
    this every worker would parse every script it meets, and parsing is most of a script's
    cost."""
    scripts = [path for path, kind in misses if kind is FileKind.SCRIPT and path.suffix == ".py"]
    return _ScriptPrimer(workspace, scripts, workers).result()


class _ScriptPrimer:
    """Script models being built (see ``_analyse_scripts_in_parallel``) by ``workers - 1``
    processes started early, which work while this process is still busy (walking the tree,
    importing the rules), and by this process once it is free. Scripts are taken one at a
    time, largest first, from a shared counter, so no process is left with a long last share
    while the others idle. What this process builds stays in its workspace, which the check's
    forked workers inherit."""

    def __init__(self, workspace: Workspace, scripts: list[Path], workers: int):
        from concurrent.futures import Future, ProcessPoolExecutor

        def size(path: Path) -> int:
            try:
                return path.stat().st_size
            except OSError:
                return 0

        self._workspace = workspace
        self._spec = (workspace.root, workspace.config.init_args)
        self._scripts = sorted(scripts, key=size, reverse=True)
        self._pool = None
        self._futures: list[Future[PrimedScripts]] = []
        self._next: Any = None
        helpers = min(workers, len(self._scripts)) - 1
        if helpers < 1:
            return
        context = _process_context()
        shares: list[list[Path] | None]
        if context.get_start_method() == "fork":
            # The counter of the next script to take, inherited by the forked helpers.
            self._next = context.Value("i", 0)
            shares = [None] * helpers
        else:  # spawned helpers share nothing: fixed shares, dealt round-robin
            count = helpers + 1
            shares = [self._scripts[i::count] for i in range(1, count)]
            self._scripts = self._scripts[0::count]
        global _PRIMER_QUEUE
        _PRIMER_QUEUE = (self._scripts, self._next)
        try:
            self._pool = ProcessPoolExecutor(helpers, mp_context=context)
            self._futures = [
                self._pool.submit(_analyse_scripts, self._spec, share) for share in shares
            ]
        finally:
            _PRIMER_QUEUE = None

    def result(self) -> PrimedScripts:
        """Every script model: this process takes scripts too until none is left, then
        collects the helpers' (its own are in its workspace already, and listed as well)."""
        try:
            own = _analyse_queue(self._workspace, self._scripts, self._next, keep=True)
            if self._pool is None:
                return own
            return own + [item for future in self._futures for item in future.result()]
        finally:
            if self._pool is not None:
                self._pool.shutdown()

    def cancel(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)


# The scripts a forked primer helper takes from, and the shared counter (see _ScriptPrimer).
_PRIMER_QUEUE: tuple[list[Path], Any] | None = None


def _take(scripts: list[Path], counter: Any) -> Iterator[Path]:
    """The scripts this process takes: all of them (no counter), else the next free one each
    time, until none is left."""
    if counter is None:
        yield from scripts
        return
    while True:
        with counter.get_lock():
            index = counter.value
            counter.value = index + 1
        if index >= len(scripts):
            return
        yield scripts[index]


def _shared_python_scripts(workspace: Workspace) -> list[Path]:
    folder = workspace.shared_scripts_dir()
    return [
        path
        for path in workspace.iter_files([folder])
        if path.suffix == ".py" and classify(workspace, path)[0] is FileKind.SCRIPT
    ]


def _analyse_scripts(
    spec: tuple[Path, tuple[Any, ...]], scripts: list[Path] | None
) -> PrimedScripts:
    """Primer helper: build the script models of ``scripts`` (None: take them from the
    inherited queue, see ``_ScriptPrimer``)."""
    counter = None
    if scripts is None:
        assert _PRIMER_QUEUE is not None
        scripts, counter = _PRIMER_QUEUE
    return _analyse_queue(_worker_workspace(spec), scripts, counter, keep=False)


def _analyse_queue(
    workspace: Workspace, scripts: list[Path], counter: Any, *, keep: bool
) -> PrimedScripts:
    """The argparse model (and the script facts from the same parse) of a script some
    SKILL.md names, the script facts alone of the others; ``keep``: leave them (and the text)
    in ``workspace``. Only a guess of what the check will ask for: a model it needs and finds
    missing is built where it is needed, the same model."""
    named: set[str] | None = None
    out = []
    for path in _take(scripts, counter):
        if named is None:
            named = _named_in_skill_files(workspace, {path.name for path in scripts})
        text = workspace.read(path)
        try:
            if text.doc is None:
                continue
            if path.name in named:
                if script_model(workspace, path) is None:
                    continue
            else:
                script_facts_of(workspace, text.doc, str(path))
        except Exception:  # left to the check, which reports it as EZ003 on the right file
            continue
        out.append((path, text.doc.content_hash, workspace.artefacts_of(path)))
        if not keep:
            workspace.release(path, keep=frozenset())
    return out


def _named_in_skill_files(workspace: Workspace, names: set[str]) -> set[str]:
    """Which of the file ``names`` some SKILL.md of the workspace contains (a script nothing
    names, such as a module the others import, is never run by a documented command)."""
    wanted = {name: name.encode() for name in names}
    found: set[str] = set()
    for skill in workspace.skills.values():
        try:
            data = (skill.folder / SKILL_FILE).read_bytes()
        except OSError:
            continue
        found.update(name for name, raw in wanted.items() if raw in data)
        if len(found) == len(wanted):
            break
    return found


_PRIMED: PrimedScripts = []


def _adopt_primed(primed: PrimedScripts) -> None:
    """Worker initializer: script models built before the check (see ``check_chunk``)."""
    global _PRIMED
    _PRIMED = primed


def _worker_workspace(spec: tuple[Path, tuple[Any, ...]]) -> Workspace:
    from easel_ls.config import ConfigResolver

    root, (explicit, stop_at, overrides) = spec
    workspace = _WORKER_WORKSPACES.get(root)
    if workspace is None:
        # A forked worker has a copy of the parent's workspace, whose skills index, config
        # lookups and disk memo the walk already built; a spawned one starts afresh.
        workspace = _FORKED_WORKSPACES.get(root)
        if workspace is None:
            config = ConfigResolver(explicit, stop_at=stop_at, overrides=overrides)
            workspace = Workspace(root=root, config=config)
        _WORKER_WORKSPACES[root] = workspace
        for path, content_hash, artefacts in _PRIMED:
            workspace.adopt_artefacts(path, content_hash, artefacts)
    return workspace


# The parent's workspace while a `--check` run's worker processes are forked (see above).
_FORKED_WORKSPACES: dict[Path, Workspace] = {}


def _process_context() -> Any:
    """fork where there is one and no other thread runs (the CLI): forked workers share the
    parent's imports, GC settings and workspace (Python 3.14 makes forkserver the default on
    Linux). With threads about, forking could copy a held lock: the platform default then."""
    import multiprocessing
    import threading

    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def check_chunk(
    spec: tuple[Path, tuple[Any, ...]], chunk: list[tuple[Path, FileKind]]
) -> list[tuple[Path, FileKind, set[Path], list[Finding]]]:
    """Worker (the editor's index): check some files with a workspace equivalent to the
    parent's; each comes back with the paths its check read (its dependencies)."""
    return list(_checked(_worker_workspace(spec), chunk, record=True))


def _check_chunk_with_entries(
    spec: tuple[Path, tuple[Any, ...]],
    chunk: list[tuple[Path, FileKind]],
    build_cache_entries: bool,
) -> list[tuple[Path, dict[str, Any] | None, list[Finding]]]:
    """Worker (`--check`): like ``check_chunk``, but a cacheable file comes back with its
    cache entry (when there is a cache) instead of its dependencies."""
    from easel_ls.cache import EntryBuilder

    workspace = _worker_workspace(spec)
    builder = _WORKER_ENTRY_BUILDERS.get(workspace.root)
    if builder is None:
        builder = _WORKER_ENTRY_BUILDERS[workspace.root] = EntryBuilder(workspace)
        # This worker lives for one `--check` run, during which the disk is taken as unchanging
        # (as in the parent): one memo for all its chunks, not a fresh one per chunk.
        if not workspace.memoising_disk:
            workspace.memoise_disk(True)
    out: list[tuple[Path, dict[str, Any] | None, list[Finding]]] = []
    checked = _checked(workspace, chunk, build_cache_entries, fresh_memo=False)
    for path, kind, deps, findings in checked:
        cached = build_cache_entries and kind in CACHEABLE
        out.append((path, builder.entry(path, deps, findings) if cached else None, findings))
    return out


def _checked(
    workspace: Workspace,
    chunk: list[tuple[Path, FileKind]],
    record: bool,
    *,
    fresh_memo: bool = True,
) -> Iterator[tuple[Path, FileKind, set[Path], list[Finding]]]:
    """(path, kind, dependencies, findings) of each file of a chunk; dependencies are
    recorded (``record``) for the cacheable kinds only."""
    # A chunk is checked in one go: the disk is taken as unchanging meanwhile (the editor's
    # index worker lives much longer than one chunk, so it gets a fresh memo per chunk).
    if fresh_memo:
        workspace.memoise_disk(True)
    try:
        for path, kind in chunk:
            recorded = record and kind in CACHEABLE
            if recorded:
                workspace.begin_recording()
            try:
                findings = check_one(workspace, path)
            finally:
                deps = workspace.end_recording() if recorded else set()
            yield path, kind, deps, findings
            workspace.release(path)
    finally:
        if fresh_memo:
            workspace.memoise_disk(False)


_WORKER_WORKSPACES: dict[Path, Workspace] = {}
_WORKER_ENTRY_BUILDERS: dict[Path, EntryBuilder] = {}
