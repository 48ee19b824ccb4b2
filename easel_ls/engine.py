"""Checks one document: the enabled rules over its context, a failing rule isolated as EZ003,
then suppressions and the settings (``finalize``).

text -> model (cached by content hash) -> rules -> findings -> suppressions and config.
Running many files (worker processes, the shared-script primer, the on-disk cache) is
``easel_ls.batch``; what a rule sees and the rule registry are ``easel_ls.rules.context``.
"""

from __future__ import annotations

import traceback
from pathlib import Path
from typing import TYPE_CHECKING

from easel_ls.config import Settings
from easel_ls.findings import Finding, Range
from easel_ls.model.text import TextDocument
from easel_ls.rules import RULES
from easel_ls.rules.context import (
    Context,
    FileKind,
    RegisteredChecker,
    classify,
    registered_checkers,
)
from easel_ls.workspace import Workspace

if TYPE_CHECKING:
    from easel_ls.cache import CheckCache


_rules_loaded = False


def load_rules() -> list[RegisteredChecker]:
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
            routing,
            skill_tests,
        )

        _rules_loaded = True
    return registered_checkers()


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
    checkers = load_rules()
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


def wants(workspace: Workspace, path: Path) -> bool:
    """Whether `--check` over a folder should look at this file."""
    kind, _ = classify(workspace, path)
    return kind is not FileKind.OTHER


def check_one(workspace: Workspace, path: Path) -> list[Finding]:
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
        findings = check_one(workspace, path)
    finally:
        deps = workspace.end_recording() if cacheable else set()
    if cacheable and cache is not None:
        cache.store(path, deps, findings)
    return findings
