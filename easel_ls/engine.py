"""Runs the rules over a document or a workspace.

text -> model (cached by content hash) -> rules -> findings -> suppressions and config.
A rule that raises is isolated as EZ003 on that file; the other rules still run.
"""

from __future__ import annotations

import contextlib
import enum
import gc
import os
import re
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from easel_ls.config import Settings
from easel_ls.findings import Finding, Fix, Location, Range, Severity
from easel_ls.model.text import TextDocument
from easel_ls.rules import RULES
from easel_ls.workspace import SKILL_FILE, Skill, Workspace, is_within

if TYPE_CHECKING:
    from easel_ls.cache import CheckCache, EntryBuilder
    from easel_ls.model.argparse_model import ScriptModel
    from easel_ls.model.commands import Invocation
    from easel_ls.model.frontmatter import Frontmatter
    from easel_ls.model.markdown import MarkdownModel
    from easel_ls.model.placeholders import PlaceholderNouns


class FileKind(str, enum.Enum):
    SKILL = "skill"  # SKILL.md
    REFERENCE = "reference"  # <skill>/references/**/*.md
    SCRIPT = "script"  # <skill>/scripts/* and shared scripts (.py, .sh)
    TEST = "test"  # <skill>/tests/*.prompt|*.expected
    MANIFEST = "manifest"  # outputs/<topic>/.easel.json
    OUTPUT = "output"  # other files under outputs/
    OTHER = "other"


def classify(workspace: Workspace, path: Path) -> tuple[FileKind, Skill | None]:
    # Asked several times per file (the walk, the check, rules); within a batch run the answer
    # cannot change, and forked workers inherit the walk's answers.
    return workspace.remembered(("kind", path), lambda: _classify(workspace, path))


def _classify(workspace: Workspace, path: Path) -> tuple[FileKind, Skill | None]:
    if path.name == ".easel.json":
        return FileKind.MANIFEST, None
    outputs = workspace.outputs_dir()
    if _is_under(path, outputs):
        return FileKind.OUTPUT, None
    skill = workspace.skill_of(path)
    if skill is not None:
        rel = _parts_below(path, skill.folder)
        if rel == (SKILL_FILE,):
            return FileKind.SKILL, skill
        if rel[0] == "references" and path.suffix.lower() == ".md":
            return FileKind.REFERENCE, skill
        if rel[0] == "scripts" and path.suffix in (".py", ".sh"):
            return FileKind.SCRIPT, skill
        if rel[0] == "tests" and path.suffix in (".prompt", ".expected") and len(rel) == 2:
            return FileKind.TEST, skill
        return FileKind.OTHER, skill
    if path.suffix in (".py", ".sh") and _is_under(path, workspace.shared_scripts_dir()):
        return FileKind.SCRIPT, None
    return FileKind.OTHER, None


def _is_under(path: Path, folder: Path) -> bool:
    return is_within(str(path), str(folder))  # Path.relative_to, without building paths


def _parts_below(path: Path, folder: Path) -> tuple[str, ...]:
    """``path.relative_to(folder).parts``; string slicing in the common case."""
    text, base = str(path), str(folder)
    if text != base and is_within(text, base):
        return tuple(text[len(base) :].lstrip(os.sep).split(os.sep))
    return path.relative_to(folder).parts


@dataclass
class Context:
    """What a rule sees: one document, its kind, its skill, the workspace and settings."""

    workspace: Workspace
    doc: TextDocument
    kind: FileKind
    skill: Skill | None
    settings: Settings
    findings: list[Finding] = field(default_factory=list)
    # What one rule worked out about this document that another needs too (by rule's key).
    shared: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def path(self) -> Path:
        return self.doc.path

    @property
    def root(self) -> Path:
        return self.workspace.root

    def option(self, key: str) -> Any:
        return self.settings.option(key)

    def report(
        self,
        code: str,
        rng: Range,
        message: str,
        *,
        fixes: Iterable[Fix] = (),
        related: Iterable[Location] = (),
        help: str | None = None,
        severity: Severity | None = None,
    ) -> None:
        self.findings.append(
            self.finding(
                code, rng, message, fixes=fixes, related=related, help=help, severity=severity
            )
        )

    def finding(
        self,
        code: str,
        rng: Range,
        message: str,
        *,
        fixes: Iterable[Fix] = (),
        related: Iterable[Location] = (),
        help: str | None = None,
        severity: Severity | None = None,
    ) -> Finding:
        """``severity`` overrides the rule's default for this finding (e.g. by file kind)."""
        rule = RULES[code]
        return Finding(
            code=code,
            name=rule.name,
            severity=rule.severity if severity is None else severity,
            message=message,
            path=self.path,
            range=rng,
            fixes=list(fixes),
            related=list(related),
            help=help,
        )

    # Parsed artefacts come from the workspace cache (keyed by path + content hash).
    @cached_property
    def frontmatter(self) -> Frontmatter:
        from easel_ls.model.frontmatter import Frontmatter, parse_frontmatter

        if self.kind is not FileKind.SKILL:
            return Frontmatter(present=False, closed=False, end_line=0, body_start_line=0)
        return self.workspace.artefact("frontmatter", self.doc, lambda: parse_frontmatter(self.doc))

    @cached_property
    def markdown(self) -> MarkdownModel:
        from easel_ls.model.markdown import parse_markdown

        start = self.frontmatter.body_start_line if self.frontmatter.closed else 0
        return self.workspace.artefact(
            "markdown", self.doc, lambda: parse_markdown(self.doc, start)
        )

    @cached_property
    def placeholder_nouns(self) -> PlaceholderNouns:
        from easel_ls.model.placeholders import nouns_for

        return nouns_for(tuple(self.option("placeholder-words")))

    @cached_property
    def invocations(self) -> list[Invocation]:
        from easel_ls.model.commands import extract_invocations
        from easel_ls.model.placeholders import DEFAULT_NOUNS

        nouns = self.placeholder_nouns
        # Configured nouns change which words are values: they are part of the cache key.
        kind = "invocations" if nouns is DEFAULT_NOUNS else "invocations:" + "|".join(nouns.words)
        return self.workspace.artefact(
            kind, self.doc, lambda: extract_invocations(self.doc, self.markdown, nouns)
        )

    def script_model(self, path: Path) -> ScriptModel | None:
        return script_model(self.workspace, path)


def script_model(workspace: Workspace, path: Path) -> ScriptModel | None:
    """The static argparse model of a script, cached by path + content hash; None if unreadable."""
    text = workspace.read(path)
    if text.doc is None:
        return None
    doc = text.doc
    return workspace.artefact("argparse", doc, lambda: _analyse_script(workspace, doc, str(path)))


def _analyse_script(workspace: Workspace, doc: TextDocument, path: str) -> ScriptModel:
    """The argparse model, and the PB rules' script facts from the same parse: parsing is most
    of the cost of either, and a script called from many documents is analysed once."""
    # The syntax tree (tens of thousands of nodes, no cycles) is freed before collection
    # resumes: collecting meanwhile would only walk it again and again, making this a third
    # slower, and collecting as it resumes would walk it once more.
    with _collector_paused():
        return _analyse_parsed(workspace, doc, path)


def _analyse_parsed(workspace: Workspace, doc: TextDocument, path: str) -> ScriptModel:
    from easel_ls.model.argparse_model import analyse_script
    from easel_ls.model.script_facts import parse_python, script_facts

    tree = parse_python(doc.text, path)
    if tree is not None:
        workspace.artefact("script-facts", doc, lambda: script_facts(tree))
    return analyse_script(doc.text, path, tree)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


Checker = Callable[[Context], None]


@dataclass(frozen=True)
class RegisteredChecker:
    name: str
    kinds: frozenset[FileKind]
    codes: tuple[str, ...]
    func: Checker


_CHECKERS: list[RegisteredChecker] = []


def checker(*kinds: FileKind, codes: Sequence[str]) -> Callable[[Checker], Checker]:
    """Register a rule function for some file kinds; ``codes`` are the codes it may report."""

    def register(func: Checker) -> Checker:
        _CHECKERS.append(
            RegisteredChecker(
                f"{func.__module__.rsplit('.', 1)[-1]}.{func.__name__}",
                frozenset(kinds),
                tuple(codes),
                func,
            )
        )
        return func

    return register


_rules_loaded = False


def _load_rules() -> list[RegisteredChecker]:
    # Import every family (each import registers its checkers once; importing one rule module
    # elsewhere first must not hide the others). Once: the import statement costs more than a
    # rule on a small file.
    global _rules_loaded
    if not _rules_loaded:
        from easel_ls.rules import (  # noqa: F401  (importing registers the checkers)
            body,
            commands,
            content,
            frontmatter,
            manifest,
            outputs,
            publish,
            resources,
            skill_tests,
        )

        _rules_loaded = True
    return _CHECKERS


def check_document(workspace: Workspace, doc: TextDocument) -> list[Finding]:
    """All findings for one document (its text may be an unsaved editor buffer)."""
    from easel_ls.suppressions import apply_suppressions

    kind, skill = classify(workspace, doc.path)
    settings = workspace.settings_for(doc.path)
    ctx = Context(workspace, doc, kind, skill, settings)
    rel = workspace.rel(doc.path)
    for registered in _enabled_checkers(kind, settings, rel):
        try:
            registered.func(ctx)
        except Exception as exc:
            frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
            where = f" at {Path(frame.filename).name}:{frame.lineno}" if frame else ""
            ctx.report(
                "EZ003",
                Range.line_start(0),
                f"rule {registered.name} failed on this file: "
                f"{type(exc).__name__}: {exc}{where}; other rules still ran",
            )
    findings = apply_suppressions(ctx, ctx.findings)
    return finalize(findings, settings, rel)


# (checkers list and its length, settings, kind) -> the checkers to run, for settings without
# per-file ignores (then the answer does not depend on the file): asked for every file. Keyed by
# identity; each value holds the objects of its key, so an id is never mistaken for another's.
_ENABLED: dict[
    tuple[int, int, int, FileKind],
    tuple[list[RegisteredChecker], Settings, list[RegisteredChecker]],
] = {}


def _enabled_checkers(kind: FileKind, settings: Settings, rel: str) -> list[RegisteredChecker]:
    checkers = _load_rules()
    key = (id(checkers), len(checkers), id(settings), kind)
    known = _ENABLED.get(key) if not settings.per_file_ignores else None
    if known is not None and known[0] is checkers and known[1] is settings:
        return known[2]
    found = [
        registered
        for registered in checkers
        if kind in registered.kinds
        and any(settings.is_enabled(code, rel) for code in registered.codes)
    ]
    if not settings.per_file_ignores:
        if len(_ENABLED) >= 1024:
            _ENABLED.clear()
        _ENABLED[key] = (checkers, settings, found)
    return found


def finalize(findings: list[Finding], settings: Settings, rel: str) -> list[Finding]:
    kept = []
    for f in findings:
        if f.code != "EZ003" and not settings.is_enabled(f.code, rel):
            continue
        # A configured severity wins; otherwise keep the one the rule chose for this finding.
        configured = dict(settings.severity).get(f.code)
        if configured is not None:
            f.severity = configured
        kept.append(f)
    kept.sort(key=lambda f: f.sort_key)
    return kept


def unreadable_finding(workspace: Workspace, path: Path, reason: str) -> Finding:
    rule = RULES["EZ004"]
    return Finding(
        code="EZ004",
        name=rule.name,
        severity=workspace.settings_for(path).severity_of("EZ004"),
        message=f"file {reason}; it is skipped",
        path=path,
        range=Range.line_start(0),
    )


CHECKED_SUFFIXES = {".md", ".py", ".sh", ".prompt", ".expected", ".json"}


def wants(workspace: Workspace, path: Path) -> bool:
    """Whether `--check` over a folder should look at this file."""
    kind, _ = classify(workspace, path)
    return kind is not FileKind.OTHER


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
    spec = (workspace.root, workspace.config.init_args)
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
                    primer = _ScriptPrimer(spec, _shared_python_scripts(workspace), workers)
        workers = _worker_count(jobs, len(misses))
        if workers > 1:
            if primer is not None:
                primed, primer = primer.result(), None
            else:
                primed = _analyse_scripts_in_parallel(spec, misses, workers)
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

    _prepare_for_workers(workspace)
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
    rules, models and jsonschema (where no bytecode cache can be written, every import compiles)
    and decide which shared modules (content_guard ...) to load."""
    import jsonschema  # noqa: F401  (the manifest and metadata schemas)

    from easel_ls import schemas, suppressions  # noqa: F401
    from easel_ls.model import argmatch, commands, frontmatter, json_doc, markdown  # noqa: F401
    from easel_ls.vendor import load_shared

    _load_rules()
    trusted = bool(workspace.settings_for(workspace.root).option("trusted-workspace"))
    with contextlib.suppress(Exception):  # a worker meets (and reports) the same problem
        load_shared(None)  # the packaged copy (some rules read its constants)
        load_shared(workspace.shared_scripts_dir(), trusted=trusted)


# (path, content hash, artefacts by kind) of the scripts analysed before the check started.
PrimedScripts = list[tuple[Path, str, dict[str, Any]]]


def _analyse_scripts_in_parallel(
    spec: tuple[Path, tuple[Any, ...]], misses: list[tuple[Path, FileKind]], workers: int
) -> PrimedScripts:
    """The argparse models (and script facts) of the Python scripts to check, each built once
    by one of ``workers`` processes. Most documents call scripts: without this every worker
    would parse every script it meets, and parsing is most of a script's cost."""
    scripts = [path for path, kind in misses if kind is FileKind.SCRIPT and path.suffix == ".py"]
    return _ScriptPrimer(spec, scripts, workers).result()


class _ScriptPrimer:
    """Script models being built in worker processes (see ``_analyse_scripts_in_parallel``);
    started early, it works while the parent process is busy with something else."""

    def __init__(self, spec: tuple[Path, tuple[Any, ...]], scripts: list[Path], workers: int):
        from concurrent.futures import Future, ProcessPoolExecutor

        def size(path: Path) -> int:
            try:
                return path.stat().st_size
            except OSError:
                return 0

        # Largest first, dealt round-robin: every process gets a similar share of the parsing.
        by_size = sorted(scripts, key=size, reverse=True)
        shares = [by_size[i::workers] for i in range(workers) if by_size[i::workers]]
        self._pool = None
        if len(scripts) > 1:
            self._pool = ProcessPoolExecutor(len(shares), mp_context=_process_context())
        self._futures: list[Future[PrimedScripts]] = []
        if self._pool is not None:
            self._futures = [self._pool.submit(_analyse_scripts, spec, share) for share in shares]

    def result(self) -> PrimedScripts:
        if self._pool is None:
            return []
        try:
            return [item for future in self._futures for item in future.result()]
        finally:
            self._pool.shutdown()

    def cancel(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)


def _shared_python_scripts(workspace: Workspace) -> list[Path]:
    folder = workspace.shared_scripts_dir()
    return [
        path
        for path in workspace.iter_files([folder])
        if path.suffix == ".py" and classify(workspace, path)[0] is FileKind.SCRIPT
    ]


def _analyse_scripts(spec: tuple[Path, tuple[Any, ...]], scripts: list[Path]) -> PrimedScripts:
    """Worker: build the script models of ``scripts``."""
    workspace = _worker_workspace(spec)
    out = []
    for path in scripts:
        text = workspace.read(path)
        try:
            if text.doc is None or script_model(workspace, path) is None:
                continue
        except Exception:  # left to the check, which reports it as EZ003 on the right file
            continue
        out.append((path, text.doc.content_hash, workspace.artefacts_of(path)))
        workspace.release(path, keep=frozenset())
    return out


_PRIMED: PrimedScripts = []


def _adopt_primed(primed: PrimedScripts) -> None:
    """Worker initializer: script models built before the check (see ``_check_chunk``)."""
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


def _check_chunk(
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
    """Worker (`--check`): like ``_check_chunk``, but a cacheable file comes back with its
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
                findings = _check_one(workspace, path)
            finally:
                deps = workspace.end_recording() if recorded else set()
            yield path, kind, deps, findings
            workspace.release(path)
    finally:
        if fresh_memo:
            workspace.memoise_disk(False)


_WORKER_WORKSPACES: dict[Path, Workspace] = {}
_WORKER_ENTRY_BUILDERS: dict[Path, EntryBuilder] = {}


def _check_one(workspace: Workspace, path: Path) -> list[Finding]:
    text = workspace.read(path)
    if text.doc is not None:
        return check_document(workspace, text.doc)
    if classify(workspace, path)[0] is FileKind.OUTPUT and path.is_file():
        # Images, videos and other media are normal deliverables: layout rules still apply,
        # content rules see no text.
        return check_document(workspace, TextDocument(path, ""))
    if not workspace.settings_for(path).is_enabled("EZ004", workspace.rel(path)):
        return []
    return [unreadable_finding(workspace, path, text.error or "cannot be read")]


# Kinds whose every input is read through the workspace (so recorded as a dependency) and
# whose results may therefore come from the on-disk cache.
CACHEABLE = frozenset({FileKind.SKILL, FileKind.REFERENCE, FileKind.SCRIPT, FileKind.TEST})


def check_path(
    workspace: Workspace,
    path: Path,
    *,
    cache: CheckCache | None = None,
    kind: FileKind | None = None,
    looked_up: bool = False,
) -> list[Finding]:
    if cache is not None and kind is None:
        kind = classify(workspace, path)[0]
    cacheable = cache is not None and kind in CACHEABLE
    if cacheable and cache is not None:
        hit = None if looked_up else cache.lookup(path)
        if hit is not None:
            return hit
        workspace.begin_recording()
    try:
        findings = _check_one(workspace, path)
    finally:
        deps = workspace.end_recording() if cacheable else set()
    if cacheable and cache is not None:
        cache.store(path, deps, findings)
    return findings


SUPPRESSION_CODE = re.compile(r"[A-Z]{2}\d{3}")
