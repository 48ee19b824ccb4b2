"""CG: outbound content, judged by the shared `content_guard.scan()` (the publish gate's own
categories and offsets).

Scanned: text files (.md, .txt, .json captions) of a project `outputs/<主题>/` outside
`assets/` and hidden paths — CG001 as error, CG002 as info; SKILL.md and references — CG001 only,
as a warning (there the agent is called OpenClaw, so AI wording is expected), in content_guard's
`skill` context: a skill names the environment variables, proxy ports and API versions a user
sets up, so those are not reported there; keys, internal hosts, private IPs and internal paths
are.

Which `content_guard` runs is decided by `easel_ls.vendor.load_shared`: the workspace's own copy
only when it is byte-identical to the packaged one or `trusted-workspace = true`; the help text of
each finding names the copy used.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

from easel_ls.findings import Applicability, Fix, Severity, TextEdit
from easel_ls.rules.context import Context, FileKind, checker
from easel_ls.rules.manifest import shared_modules
from easel_ls.rules.outputs import ASSETS_DIR, hidden_part, is_system_dir, outputs_relative
from easel_ls.vendor import WORKSPACE

TEXT_DELIVERABLE_SUFFIXES = (".md", ".txt", ".json")


def is_text_deliverable(ctx: Context) -> bool:
    parts = outputs_relative(ctx.workspace, ctx.path)
    if parts is None or len(parts) < 2 or is_system_dir(parts[0]):
        return False
    if hidden_part(parts) is not None or parts[1] == ASSETS_DIR:
        return False
    return ctx.path.suffix.lower() in TEXT_DELIVERABLE_SUFFIXES


@checker(FileKind.OUTPUT, FileKind.SKILL, FileKind.REFERENCE, codes=("CG001", "CG002"))
def outbound_content(ctx: Context) -> None:
    in_skill = ctx.kind in (FileKind.SKILL, FileKind.REFERENCE)
    if not in_skill and not is_text_deliverable(ctx):
        return
    shared = shared_modules(ctx)
    guard = shared.content_guard
    root = ctx.workspace.root
    env_file = ctx.workspace.remembered(("env-file", root), lambda: _env_file(root))
    _note_env_dependency(ctx, env_file)
    options = _skill_options(guard) if in_skill else {}
    findings = guard.scan(
        ctx.doc.text,
        extra_domains=tuple(ctx.option("extra-internal-domains") or ()),
        env_file=env_file,
        **options,
    )
    if shared.source == WORKSPACE:
        source = f"checked with the workspace's content_guard ({ctx.workspace.rel(shared.folder)}/)"
    else:
        source = "checked with the content_guard packaged with easel-ls"
    if shared.note:
        source += f"; {shared.note}"
    for found in findings:
        rng = ctx.doc.range_of(found.start, found.end)
        label = str(found.description).split("（")[0].strip() or found.category
        what = f"{label} `{found.excerpt}`"
        if found.level == "BLOCK":
            ctx.report(
                "CG001",
                rng,
                f"{what} ({found.category}): content_guard blocks publishing it",
                fixes=[_redact_fix(ctx, rng, guard)],
                help=source,
                severity=Severity.WARNING if in_skill else None,
            )
        elif not in_skill:
            ctx.report("CG002", rng, f"{what} ({found.category}): {_advice(found)}", help=source)


def _advice(found: Any) -> str:
    if found.category == "env_name_public":
        return "a well-known variable name, fine in a tutorial; else leave it out"
    return "fine when the piece is about AI, else reword it"


_SKILL_OPTIONS: dict[int, tuple[Any, dict[str, Any]]] = {}


def _skill_options(guard: Any) -> dict[str, Any]:
    """The ``scan`` keywords for a SKILL.md or reference that this content_guard takes (a
    trusted workspace copy may be older than the packaged one and lack them): ``warnings=False``
    (only CG001 is reported here, so the WARN-only scans are skipped) and ``context="skill"``
    (env names, proxy ports and API versions are what a skill documents)."""
    known = _SKILL_OPTIONS.get(id(guard))
    if known is None or known[0] is not guard:
        try:
            accepted = set(inspect.signature(guard.scan).parameters)
        except (TypeError, ValueError, AttributeError):
            accepted = set()
        options: dict[str, Any] = {}
        if "warnings" in accepted:
            options["warnings"] = False
        if "context" in accepted:
            options["context"] = "skill"
        known = _SKILL_OPTIONS[id(guard)] = (guard, options)
    return known[1]


def _redact_fix(ctx: Context, rng: Any, guard: Any) -> Fix:
    return Fix(
        "Redact with content_guard",
        Applicability.UNSAFE,
        edits=(TextEdit(ctx.path, rng, str(guard.REDACTION)),),
    )


def _env_file(root: Path) -> Path | None:
    """The workspace's `.env`, whose secret values must not appear in text (read as data)."""
    candidate = root / ".env"
    return candidate if candidate.is_file() else None


def _note_env_dependency(ctx: Context, env_file: Path | None) -> None:
    # Read through the workspace so the check cache re-checks this file when `.env` changes.
    if env_file is not None:
        ctx.workspace.read(env_file)
