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
from easel_ls.rules.context import FileKind, classify, script_model
from easel_ls.workspace import Workspace

if TYPE_CHECKING:
    from easel_ls.cache import CheckCache, EntryBuilder


def check_paths(
    workspace: Workspace,
    paths: list[Path],
    *,
    progress: Callable[[int, Path], None] | None = None,
    cache: CheckCache | None = None,
    jobs: int | None = 1,
    force_exclude: bool = False,
) -> Iterator[Finding]:
    """Findings for every file to check under ``paths``. ``jobs`` > 1 (or None: one per CPU
    for large runs) checks cache misses in worker processes; results are identical.
    ``force_exclude``: the ``exclude`` settings leave out named paths too."""
    workspace.memoise_disk(True)
    try:
        yield from _check_paths(workspace, paths, progress, cache, jobs, force_exclude)
    finally:
        workspace.memoise_disk(False)


def _check_paths(
    workspace: Workspace,
    paths: list[Path],
    progress: Callable[[int, Path], None] | None,
    cache: CheckCache | None,
    jobs: int | None,
    force_exclude: bool = False,
) -> Iterator[Finding]:
    explicit = {p.resolve() for p in paths if p.is_file()}
    misses: list[tuple[Path, FileKind]] = []
    primer: _ScriptPrimer | None = None
    try:
        cpus = _cpu_count()
        if _cold_over_shared_scripts(workspace, paths, cache, jobs, cpus):
            # Every shared script will be checked and most documents call one: a helper starts
            # on them now, on another CPU, while this process walks the tree and imports the
            # rules (a small run gains as much as a large one).
            primer = _ScriptPrimer(workspace, _shared_python_scripts(workspace), cpus)
        for path in workspace.iter_files(paths, force_exclude=force_exclude):
            kind, _ = classify(workspace, path)
            if kind is FileKind.OTHER and not (explicit and path.resolve() in explicit):
                continue
            hit = cache.lookup(path) if cache is not None and kind in CACHEABLE else None
            if hit is not None:
                yield from hit
                continue
            misses.append((path, kind))
            if primer is None and len(misses) == _PARALLEL_THRESHOLD:
                workers = _worker_count(jobs, misses)
                if workers > 1:
                    # A large run that will use worker processes: they parse the shared scripts
                    # (which most documents call) while this process is still walking the tree.
                    primer = _ScriptPrimer(workspace, _shared_python_scripts(workspace), workers)
        workers = _worker_count(jobs, misses)
        if workers > 1:
            # While the primer's processes parse the scripts: what each forked worker needs.
            _prepare_for_workers(workspace)
            if primer is not None:
                primed, primer = primer.result(), None
            else:
                primed = _analyse_scripts_in_parallel(workspace, misses, workers)
            yield from _check_parallel(workspace, misses, workers, progress, cache, primed)
            return
        if primer is not None:
            # This process takes the scripts still waiting; the helper's land in its workspace.
            started: _ScriptPrimer = primer
            primer = None
            started.result()
    finally:
        if primer is not None:  # the walk failed or was abandoned
            primer.cancel()
    for i, (path, kind) in enumerate(misses):
        if progress is not None:
            progress(i, path)
        yield from check_path(workspace, path, cache=cache, kind=kind, looked_up=True)
        workspace.release(path)


_PARALLEL_THRESHOLD = 400  # files: below this, spawning processes costs more than it saves
# Forked workers cost a few milliseconds: they pay off from about this much work, counted in
# SKILL.md files (most of a real repository's time: 1.5 to 3 ms each, a reference or a script
# a third of that, a test or a deliverable a few percent).
_FORKED_PARALLEL_WORK = 10.0
_WORK_OF_KIND = {FileKind.SKILL: 1.0, FileKind.REFERENCE: 0.3, FileKind.SCRIPT: 0.3}
_WORK_OF_OTHER_KINDS = 0.02
_CHUNK_LIMIT = 100  # files per task handed to a worker process (small: a short tail)


def _cpu_count() -> int:
    import os

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return min(cpus or 1, 8)


def _worker_count(jobs: int | None, misses: list[tuple[Path, FileKind]]) -> int:
    """``jobs``, else one per CPU for a run worth it: many files, or (where workers are forked,
    which is cheap) enough work. A real repository has fewer files than a generated one, and
    most of them are SKILL.md files: 130 files can be a third of a second of checking."""
    if jobs is not None:
        return max(1, jobs)
    cpus = _cpu_count()
    if cpus < 2:
        return 1
    if len(misses) >= _PARALLEL_THRESHOLD:
        return cpus
    if _process_context().get_start_method() != "fork":
        return 1
    work = 0.0
    for _, kind in misses:
        work += _WORK_OF_KIND.get(kind, _WORK_OF_OTHER_KINDS)
        if work >= _FORKED_PARALLEL_WORK:
            return cpus
    return 1


def _cold_over_shared_scripts(
    workspace: Workspace,
    paths: list[Path],
    cache: CheckCache | None,
    jobs: int | None,
    cpus: int,
) -> bool:
    """A run with nothing cached (no cache, or an empty one) over folders that hold the shared
    scripts, with more than one CPU to use: it will need every shared script's model."""
    if jobs == 1 or cpus < 2 or (cache is not None and cache.entries):
        return False
    if _process_context().get_start_method() != "fork":
        return False  # a spawned helper starts too slowly to be worth it before the walk
    shared = workspace.shared_scripts_dir()
    return any(
        path.is_dir() and (path == shared or path in shared.parents)
        for path in (p.resolve() for p in paths)
    )


def _check_parallel(
    workspace: Workspace,
    misses: list[tuple[Path, FileKind]],
    workers: int,
    progress: Callable[[int, Path], None] | None,
    cache: CheckCache | None,
    primed: PrimedScripts,
) -> Iterator[Finding]:
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
        context = _process_context()
        if context.get_start_method() == "fork":
            results = _forked_chunks(spec, chunks, record, workers)
        else:
            results = _pooled_chunks(spec, chunks, record, workers, context, primed)
        for chunk, chunk_results in zip(chunks, results, strict=False):
            # A worker sends no paths back (rebuilding Path objects costs): the chunk has them.
            for (path, _), (entry, findings) in zip(chunk, chunk_results, strict=True):
                if progress is not None:
                    progress(done, path)
                done += 1
                if cache is not None and entry is not None:
                    cache.store_entry(path, entry)
                yield from findings
    finally:
        _FORKED_WORKSPACES.pop(workspace.root, None)


ChunkResults = list[tuple[str | None, list[Finding]]]  # per file of the chunk, in order


def _forked_chunks(
    spec: tuple[Path, tuple[Any, ...]],
    chunks: list[list[tuple[Path, FileKind]]],
    record: bool,
    workers: int,
) -> Iterator[ChunkResults]:
    """The chunks' results, in order, from forked children that take the next chunk when
    free. They start from this process's workspace, script models included."""
    tasks = _Tasks(len(chunks))

    def worker(send: Callable[[int, Any], None]) -> None:
        for index in tasks.take():
            send(index, _check_chunk_with_entries(spec, chunks[index], record))

    children = None
    try:
        children = _Children(min(workers, len(chunks)), worker)
        waiting: dict[int, ChunkResults] = {}
        following = 0
        for index, results in children.results():
            waiting[index] = results
            while following in waiting:
                yield waiting.pop(following)
                following += 1
        if following < len(chunks):
            raise RuntimeError("a worker process ended before its files were checked")
    finally:
        tasks.close()
        if children is not None:
            children.stop()


def _pooled_chunks(
    spec: tuple[Path, tuple[Any, ...]],
    chunks: list[list[tuple[Path, FileKind]]],
    record: bool,
    workers: int,
    context: Any,
    primed: PrimedScripts,
) -> Iterator[ChunkResults]:
    """The chunks' results, in order, from a pool of spawned workers, which start afresh
    (with the script models built before the check)."""
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=_adopt_primed, initargs=(primed,)
    ) as pool:
        yield from pool.map(
            _check_chunk_with_entries, [spec] * len(chunks), chunks, [record] * len(chunks)
        )


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
    from easel_ls.rules.manifest import manifest_schema

    manifest_schema()  # read and parsed once, for every worker
    from easel_ls.rules.routing import prime_routing

    prime_routing(workspace)  # every SKILL.md's metadata and the routing index, inherited
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
    importing the rules), and by this process once it is free. With fork, scripts are taken
    one at a time, largest first, by whichever process is free, so none is left with a long
    last share while the others idle. What this process builds, and what it adopts from the
    helpers, is in its workspace, which the check's forked workers inherit."""

    def __init__(self, workspace: Workspace, scripts: list[Path], workers: int):
        def size(path: Path) -> int:
            try:
                return path.stat().st_size
            except OSError:
                return 0

        self._workspace = workspace
        self._scripts = sorted(scripts, key=size, reverse=True)
        self._tasks: _Tasks | None = None
        self._children: _Children | None = None
        self._pool: Any = None
        self._futures: list[Any] = []
        helpers = min(workers, len(self._scripts)) - 1
        if helpers < 1:
            return
        context = _process_context()
        if context.get_start_method() == "fork":
            tasks = self._tasks = _Tasks(len(self._scripts))
            scripts = self._scripts

            def helper(send: Callable[[int, Any], None]) -> None:
                # This workspace, as forked: its config, skills index and disk memo are built.
                send(0, _analyse_queue(workspace, scripts, tasks, keep=False))

            self._children = _Children(helpers, helper)
            return
        from concurrent.futures import ProcessPoolExecutor

        # Spawned helpers share nothing: fixed shares, dealt round-robin.
        count = helpers + 1
        shares = [self._scripts[i::count] for i in range(1, count)]
        self._scripts = self._scripts[0::count]
        spec = (workspace.root, workspace.config.init_args)
        self._pool = ProcessPoolExecutor(helpers, mp_context=context)
        self._futures = [self._pool.submit(_analyse_scripts, spec, share) for share in shares]

    def result(self) -> PrimedScripts:
        """Every script model: this process takes scripts too until none is left, then
        collects the helpers' (its own are in its workspace already, and listed as well)."""
        try:
            helped: PrimedScripts = []
            if self._children is None:
                own = _analyse_queue(self._workspace, self._scripts, self._tasks, keep=True)
                if self._pool is not None:
                    helped = [item for future in self._futures for item in future.result()]
                return own + helped
            own = _analyse_queue(self._workspace, self._scripts, self._tasks, keep=True)
            helped.extend(item for _, items in self._children.results() for item in items)
            for path, content_hash, artefacts in helped:
                self._workspace.adopt_artefacts(path, content_hash, artefacts)
            return own + helped
        finally:
            self.cancel()

    def cancel(self) -> None:
        if self._tasks is not None:
            self._tasks.close()
            self._tasks = None
        if self._children is not None:
            self._children.stop()
            self._children = None
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def _shared_python_scripts(workspace: Workspace) -> list[Path]:
    folder = workspace.shared_scripts_dir()
    return [
        path
        for path in workspace.iter_files([folder])
        if path.suffix == ".py" and classify(workspace, path)[0] is FileKind.SCRIPT
    ]


def _analyse_scripts(spec: tuple[Path, tuple[Any, ...]], scripts: list[Path]) -> PrimedScripts:
    """Spawned primer helper: build the script models of ``scripts``."""
    return _analyse_queue(_worker_workspace(spec), scripts, None, keep=False)


def _analyse_queue(
    workspace: Workspace, scripts: list[Path], tasks: _Tasks | None, *, keep: bool
) -> PrimedScripts:
    """The argparse model, and the script facts from the same parse, of each of ``scripts``
    (all, or those taken from ``tasks``); ``keep``: leave them (and the text) in
    ``workspace``. Most are called by some command; modelling the others costs little (a
    module without argparse is recognised at once, and what runs after `parse_args` is not
    walked), less than reading every SKILL.md to find which are named."""
    out = []
    taken = (scripts[i] for i in tasks.take()) if tasks is not None else iter(scripts)
    for path in taken:
        text = workspace.read(path)
        try:
            if text.doc is None or script_model(workspace, path) is None:
                continue
        except Exception:  # left to the check, which reports it as EZ003 on the right file
            continue
        out.append((path, text.doc.content_hash, workspace.artefacts_of(path)))
        if not keep:
            workspace.release(path, keep=frozenset())
    return out


_PRIMED: PrimedScripts = []


def _adopt_primed(primed: PrimedScripts) -> None:
    """Worker initializer: script models built before the check (see ``check_chunk``)."""
    global _PRIMED
    _PRIMED = primed


def _worker_workspace(spec: tuple[Path, tuple[Any, ...]]) -> Workspace:
    from easel_ls.config import ConfigResolver

    root, (explicit, stop_at, overrides, lenient) = spec
    workspace = _WORKER_WORKSPACES.get(root)
    if workspace is None:
        # A forked worker has a copy of the parent's workspace, whose skills index, config
        # lookups and disk memo the walk already built; a spawned one starts afresh.
        workspace = _FORKED_WORKSPACES.get(root)
        if workspace is None:
            config = ConfigResolver(explicit, stop_at=stop_at, overrides=overrides, lenient=lenient)
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
    Linux). With threads about, forking could copy a held lock: the platform default then.
    The fork case needs no multiprocessing (workers are plain forked children, see
    ``_Children``), so it is not imported for it."""
    import os
    import threading

    if hasattr(os, "fork") and threading.active_count() == 1:
        return _FORK
    import multiprocessing

    return multiprocessing.get_context()


class _ForkContext:
    """Stands for multiprocessing's fork context where workers are forked by hand."""

    def get_start_method(self) -> str:
        return "fork"


_FORK = _ForkContext()


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
) -> ChunkResults:
    """Worker (`--check`): like ``check_chunk``, but each file comes back (in the chunk's
    order, without its path) with its cache entry as JSON when it is cacheable and there is a
    cache, instead of its dependencies."""
    from easel_ls.cache import EntryBuilder

    workspace = _worker_workspace(spec)
    builder = _WORKER_ENTRY_BUILDERS.get(workspace.root)
    if builder is None:
        builder = _WORKER_ENTRY_BUILDERS[workspace.root] = EntryBuilder(workspace)
        # This worker lives for one `--check` run, during which the disk is taken as unchanging
        # (as in the parent): one memo for all its chunks, not a fresh one per chunk.
        if not workspace.memoising_disk:
            workspace.memoise_disk(True)
    out: ChunkResults = []
    checked = _checked(workspace, chunk, build_cache_entries, fresh_memo=False)
    for path, kind, deps, findings in checked:
        cached = build_cache_entries and kind in CACHEABLE
        # Each entry goes back as the JSON the cache file holds: encoding here, in parallel,
        # is most of the saving, and a string pickles faster than the nested lists.
        entry = builder.encode_entry(builder.entry(path, deps, findings)) if cached else None
        out.append((entry, findings))
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


# --- forked processes without a pool -------------------------------------------------------
# With fork, workers are plain forked children: no executor, queues or threads to import and
# start (tens of milliseconds, a fifth of a small run). Tasks are numbers in a pipe that every
# process reads (a read of a few bytes from a pipe is atomic: each read takes one task); each
# child sends its results, pickled and framed, through a pipe of its own.

_TOKEN = 4  # bytes per task number in the task pipe
_TOKENS_MAX = 1000  # task numbers written before anyone reads: well within any pipe's buffer
_FRAME = 8  # bytes of the length before each message


class _Tasks:
    """Task numbers 0 .. count-1, taken by whichever process (this one or a forked child) is
    free first; above ``_TOKENS_MAX`` a number stands for a run of consecutive tasks."""

    def __init__(self, count: int) -> None:
        import os

        self.count = count
        self._run = max(1, -(-count // _TOKENS_MAX))
        self.fd, write = os.pipe()
        try:
            data = b"".join(i.to_bytes(_TOKEN, "little") for i in range(-(-count // self._run)))
            while data:
                data = data[os.write(write, data) :]
        finally:
            os.close(write)  # once drained, every reader sees the end

    def take(self) -> Iterator[int]:
        import os

        while True:
            token = os.read(self.fd, _TOKEN)
            while token and len(token) < _TOKEN:  # never split in practice; taken whole anyway
                token += os.read(self.fd, _TOKEN - len(token))
            if len(token) < _TOKEN:
                return
            first = int.from_bytes(token, "little") * self._run
            yield from range(first, min(first + self._run, self.count))

    def close(self) -> None:
        import os

        os.close(self.fd)


class _Children:
    """Processes forked from this one, each running ``body(send)``; ``send(index, value)``
    hands a result to this process. An exception in a child is raised here."""

    def __init__(self, count: int, body: Callable[[Callable[[int, Any], None]], None]) -> None:
        import os
        import pickle  # noqa: F401  (imported once, before the children need it)

        self._pids: list[int] = []
        self._fds: list[int] = []
        try:
            for _ in range(count):
                read, write = os.pipe()
                pid = os.fork()
                if pid == 0:  # the child
                    os.close(read)
                    for fd in self._fds:
                        os.close(fd)
                    _child_main(write, body)
                os.close(write)
                self._pids.append(pid)
                self._fds.append(read)
        except BaseException:
            self.stop()
            raise

    def results(self) -> Iterator[tuple[int, Any]]:
        """(index, value) as the children send them, until every child is done."""
        import os
        import pickle
        import select

        buffers = {fd: bytearray() for fd in self._fds}
        open_fds = list(self._fds)
        while open_fds:
            ready, _, _ = select.select(open_fds, [], [])
            for fd in ready:
                data = os.read(fd, 1 << 20)
                if not data:
                    open_fds.remove(fd)
                    continue
                buffer = buffers[fd]
                buffer += data
                while len(buffer) >= _FRAME:
                    size = int.from_bytes(buffer[:_FRAME], "little")
                    if len(buffer) < _FRAME + size:
                        break
                    kind, index, value = pickle.loads(buffer[_FRAME : _FRAME + size])
                    del buffer[: _FRAME + size]
                    if kind == "error":
                        raise value
                    yield index, value
        self.stop()

    def stop(self) -> None:
        """End the children (those still running are killed) and reap them."""
        import os
        import signal

        for fd in self._fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds = []
        for pid in self._pids:
            with contextlib.suppress(OSError):
                if os.waitpid(pid, os.WNOHANG) == (0, 0):
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
        self._pids = []


def _child_main(fd: int, body: Callable[[Callable[[int, Any], None]], None]) -> None:
    import os
    import pickle

    def send(kind: str, index: int, value: Any) -> None:
        data = pickle.dumps((kind, index, value), pickle.HIGHEST_PROTOCOL)
        data = len(data).to_bytes(_FRAME, "little") + data
        while data:
            data = data[os.write(fd, data) :]

    code = 0
    try:
        body(lambda index, value: send("ok", index, value))
    except BaseException as exc:  # raised again in the parent
        code = 1
        with contextlib.suppress(BaseException):
            try:
                send("error", -1, exc)
            except Exception:  # an exception that cannot be pickled
                send("error", -1, RuntimeError(f"{type(exc).__name__}: {exc}"))
    finally:
        os._exit(code)


_WORKER_WORKSPACES: dict[Path, Workspace] = {}
_WORKER_ENTRY_BUILDERS: dict[Path, EntryBuilder] = {}
