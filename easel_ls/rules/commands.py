"""CM — commands in SKILL.md and references, checked against the scripts' argparse (statically);
plus PB002 and the command half of RS004/RS005."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from easel_ls.findings import Applicability, Fix, Location, Position, Range, TextEdit
from easel_ls.rules.context import Context, FileKind, checker
from easel_ls.rules.resources import _other_skill
from easel_ls.suggest import closest, did_you_mean
from easel_ls.workspace import is_within

if TYPE_CHECKING:
    from easel_ls.model.argmatch import MatchIssue
    from easel_ls.model.argparse_model import OptionSpec, ParserModel
    from easel_ls.model.commands import Invocation, Word

ISSUE_CODES = {
    "unknown-option": "CM002",
    "unknown-subcommand": "CM003",
    "missing-subcommand": "CM004",
    "missing-required": "CM005",
    "invalid-choice": "CM006",
    "misplaced-option": "CM007",
    "mutually-exclusive": "CM008",
    "option-value-mismatch": "CM009",
}


_UNRESOLVED_PATH = re.compile(r"[$*?<>{}~]|\.\.\.|…")


@dataclass(frozen=True)
class ResolvedScript:
    path: Path
    escapes: bool


def resolve_script(ctx: Context, inv: Invocation) -> ResolvedScript | None:
    """Where a command's script lives. Commands run from the workspace root; `{baseDir}`-style
    paths and other relative paths mean the skill folder."""
    # CM001 and the CM argument checks both ask, for every command of the document; the answer
    # depends on the document and these three only.
    resolved: dict[tuple[str, str, bool], ResolvedScript | None] = ctx.shared.setdefault(
        "resolved-scripts", {}
    )
    key = (inv.script_path, inv.base, inv.dynamic_path)
    if key not in resolved:
        resolved[key] = _resolve_script(ctx, inv)
    return resolved[key]


def _resolve_script(ctx: Context, inv: Invocation) -> ResolvedScript | None:
    if not inv.script_path:
        return None
    text = inv.script_path
    root = ctx.root
    if inv.dynamic_path:
        # The model leaves absolute paths unjudged; one that leaves the workspace is still RS005.
        literal = text.startswith("/") and _UNRESOLVED_PATH.search(text) is None
        if literal and ctx.workspace.escapes(Path(text)):
            return ResolvedScript(Path(os.path.normpath(text)), True)
        return None
    skill_dir = ctx.skill.folder if ctx.skill else ctx.path.parent
    if os.path.isabs(text):
        candidates = [Path(text)]
    elif inv.base == "skill":
        candidates = [skill_dir / text]
    elif inv.base == "root":
        candidates = [root / text]
    elif text.startswith(("skills/", "scripts/")):
        # `scripts/x.py` is run from the root; a skill's own scripts/ is the common intent too.
        candidates = [root / text, skill_dir / text]
    elif inv.source == "span" and inv.script.text.startswith(("./", "../")):
        # In a code span a `./` or `../` path reads from the file that holds it, like a link.
        candidates = [ctx.path.parent / text, skill_dir / text, root / text]
    else:
        candidates = [skill_dir / text, root / text]
    first = candidates[0]
    if ctx.workspace.escapes(first):
        return ResolvedScript(Path(os.path.normpath(first)), True)
    leads_out: Path | None = None
    root_text = str(root)
    for candidate in candidates:
        normal = Path(os.path.normpath(candidate))
        if not is_within(str(normal), root_text):
            continue  # another reading that leaves the root is not what the author meant
        ctx.workspace.note_dependency(normal, ctx.path)
        if ctx.workspace.escapes(normal):  # a symlink out of the workspace: RS005, not "missing"
            leads_out = leads_out or normal
        elif ctx.workspace.exists(normal):
            return ResolvedScript(normal, False)
    if leads_out is not None:
        return ResolvedScript(leads_out, True)
    return ResolvedScript(Path(os.path.normpath(first)), False)


def _script_candidates(ctx: Context, suffix: str) -> list[str]:
    """Existing scripts a mistyped path may have meant, as root-relative paths."""
    folders = [ctx.workspace.shared_scripts_dir()]
    if ctx.skill is not None:
        folders.insert(0, ctx.skill.folder / "scripts")
    found: list[str] = []
    for folder in folders:
        found.extend(ctx.workspace.rel(p) for p in ctx.workspace.list_dir(folder, f"*{suffix}"))
    return found


def _replace_script_fixes(
    ctx: Context, inv: Invocation, wanted: str
) -> tuple[list[Fix], list[str]]:
    """Fixes that swap in the closest existing scripts, and those scripts' paths."""
    suffix = Path(wanted).suffix
    pool = _script_candidates(ctx, suffix)
    by_name = {Path(p).name: p for p in pool}
    guesses = closest(Path(wanted).name, list(by_name), n=3, cutoff=0.6)
    best = [by_name[g] for g in guesses] + closest(wanted, pool, n=3)
    seen: list[str] = []
    for path in best:
        if path not in seen:
            seen.append(path)
    fixes = []
    paths = []
    for path in seen[:3]:
        new_text = _rewrite_path(inv.script.raw, inv.script_path, path, ctx, inv)
        if new_text is None:
            continue
        paths.append(path)
        edit = TextEdit(ctx.path, inv.script.range, new_text)
        fixes.append(Fix(f"Use `{path}`", Applicability.UNSAFE, (edit,)))
    return fixes, paths


def _rewrite_path(
    raw: str, written: str, replacement: str, ctx: Context, inv: Invocation
) -> str | None:
    """Swap the path in the script word, keeping its prefix form (`{baseDir}/`, quotes)."""
    if inv.base == "skill" and ctx.skill is not None:
        skill_rel = ctx.workspace.rel(ctx.skill.folder) + "/"
        if not replacement.startswith(skill_rel):
            return None
        replacement = replacement[len(skill_rel) :]
    if raw.endswith(written):
        return raw[: len(raw) - len(written)] + replacement
    if written in raw:
        return raw.replace(written, replacement, 1)
    return None


@checker(FileKind.SKILL, FileKind.REFERENCE, codes=("CM001", "CM011", "RS004", "RS005"))
def command_targets(ctx: Context) -> None:
    for inv in ctx.invocations:
        resolved = resolve_script(ctx, inv)
        if resolved is None:
            continue
        if resolved.escapes:
            ctx.report(
                "RS005",
                inv.script.range,
                f"script path `{inv.script.text}` resolves outside the workspace; it is never read",
            )
            continue
        ctx.workspace.note_dependency(resolved.path, ctx.path)
        other = _other_skill(ctx, resolved.path)
        if other is not None:
            ctx.report(
                "RS004",
                inv.script.range,
                f"command calls a script of another skill (`{other}`): skills must stay independent",
                help="move the shared script to skills/shared/scripts/",
            )
        if ctx.workspace.exists(resolved.path):
            continue
        shown = ctx.workspace.rel(resolved.path)
        if inv.kind == "python":
            fixes, candidates = _replace_script_fixes(ctx, inv, shown)
            ctx.report(
                "CM001",
                inv.script.range,
                f"script `{shown}` does not exist",
                fixes=fixes,
                help=did_you_mean(candidates[:1]),
            )
        else:
            ctx.report("CM011", inv.script.range, f"shell script `{shown}` does not exist")


@checker(FileKind.SKILL, FileKind.REFERENCE, codes=("PB002",))
def allow_unsafe_documented(ctx: Context) -> None:
    for inv in ctx.invocations:
        for word in inv.args:
            if word.text == "--allow-unsafe" or word.text.startswith("--allow-unsafe="):
                ctx.report(
                    "PB002",
                    word.range,
                    "documented command passes `--allow-unsafe`, which lets blocked content "
                    "through the publish gate",
                    help="the agent copies documented commands; let a person add it knowingly",
                )


@checker(FileKind.SKILL, FileKind.REFERENCE, codes=tuple(["CM010", *ISSUE_CODES.values()]))
def command_arguments(ctx: Context) -> None:
    from easel_ls.model.argmatch import ArgToken, match_invocation

    reported_unanalysable: set[Path] = set()
    for inv in ctx.invocations:
        if inv.kind != "python":
            continue
        resolved = resolve_script(ctx, inv)
        if resolved is None or resolved.escapes or not ctx.workspace.exists(resolved.path):
            continue
        model = ctx.script_model(resolved.path)
        if model is None:
            continue
        if model.status != "ok" or model.parser is None:
            if resolved.path not in reported_unanalysable:
                reported_unanalysable.add(resolved.path)
                rel = ctx.workspace.rel(resolved.path)
                ctx.report(
                    "CM010",
                    inv.script.range,
                    f"`{rel}` cannot be analysed statically ({model.reason or model.status}); "
                    "its commands are not checked",
                    related=[
                        Location(
                            resolved.path,
                            Range.line_start(max(model.reason_line, 0)),
                            model.reason or "",
                        )
                    ],
                )
            continue
        if model.argv_words and any(
            w.text in model.argv_words for w in inv.args if not w.placeholder
        ):
            continue  # `x.py --selftest`: the script answers it before argparse runs
        tokens = [ArgToken(w.text, w.placeholder, w.optional) for w in inv.args]
        for issue in match_invocation(model.parser, tokens):
            _report_issue(ctx, inv, issue, model.parser, resolved.path)


def _report_issue(
    ctx: Context, inv: Invocation, issue: MatchIssue, parser: ParserModel, script: Path
) -> None:
    code = ISSUE_CODES.get(issue.kind)
    if code is None:
        return
    word = inv.args[issue.token_index] if issue.token_index is not None else None
    rng = _issue_range(word, issue) if word is not None else inv.script.range
    related = []
    if issue.related_line is not None:
        related.append(Location(script, Range.line_start(issue.related_line), "defined here"))
    fixes: list[Fix] = []
    if word is not None:
        if code in ("CM002", "CM003"):
            fixes = _replace_name_fixes(ctx, word, issue.suggestions)
        elif code == "CM006":
            fixes = [
                Fix(f"Use `{c}`", Applicability.UNSAFE, (TextEdit(ctx.path, rng, c),))
                for c in issue.suggestions
            ]
        elif code == "CM007":
            fixes = _move_fixes(ctx, inv, issue, parser)
    ctx.report(
        code,
        rng,
        issue.message,
        fixes=fixes,
        related=related,
        help=did_you_mean(list(issue.suggestions[:1]))
        if code in ("CM002", "CM003", "CM006")
        else None,
    )


def _issue_range(word: Word, issue: MatchIssue) -> Range:
    if issue.span is None or word.raw != word.text:
        return word.range
    start, end = issue.span
    r = word.range
    if r.start.line != r.end.line:
        return r
    return Range(
        Position(r.start.line, r.start.character + start),
        Position(r.start.line, r.start.character + end),
    )


def _replace_name_fixes(ctx: Context, word: Word, suggestions: tuple[str, ...]) -> list[Fix]:
    rng = word.range
    name_len = len(word.raw.split("=", 1)[0]) if word.raw.startswith("-") else len(word.raw)
    if rng.start.line == rng.end.line and word.raw == word.text:
        rng = Range(rng.start, Position(rng.start.line, rng.start.character + name_len))
    return [
        Fix(f"Replace with `{s}`", Applicability.UNSAFE, (TextEdit(ctx.path, rng, s),))
        for s in suggestions
    ]


def _move_fixes(ctx: Context, inv: Invocation, issue: MatchIssue, parser: ParserModel) -> list[Fix]:
    """Move a misplaced option (and its separate value) before/after the subcommand."""
    index = issue.token_index
    if index is None or parser.subparsers is None:
        return []
    words = inv.args
    if any(w.range.start.line != words[0].range.start.line for w in words):
        return []  # continuation lines: leave the move to the author
    subs = parser.subparsers.choices
    sub_index = next((i for i, w in enumerate(words) if w.text in subs and not w.placeholder), None)
    if sub_index is None:
        return []
    span = [words[index]]
    option = words[index].text
    if "=" not in option and index + 1 < len(words) and not words[index + 1].text.startswith("-"):
        spec = _find_option(parser, option, issue.owner)
        if spec is not None and spec.takes_value:
            span.append(words[index + 1])
    moved = " ".join(w.raw for w in span)
    line = words[0].range.start.line
    start = span[0].range.start.character
    end = span[-1].range.end.character
    text = ctx.doc.line_text(line)
    # Remove the words and one separating space.
    if end < len(text) and text[end] == " ":
        end += 1
    elif start > 0 and text[start - 1] == " ":
        start -= 1
    removal = TextEdit(ctx.path, Range.of(line, start, line, end), "")
    sub_word = words[sub_index]
    if issue.owner == "parent":
        at = sub_word.range.start
        insert = TextEdit(ctx.path, Range(at, at), moved + " ")
    else:
        at = sub_word.range.end
        insert = TextEdit(ctx.path, Range(at, at), " " + moved)
    where = "before" if issue.owner == "parent" else "after"
    return [
        Fix(
            f"Move `{option}` {where} `{sub_word.text}`",
            Applicability.UNSAFE,
            (removal, insert) if removal.range.start > insert.range.start else (insert, removal),
        )
    ]


def _find_option(parser: ParserModel, flag: str, owner: str | None) -> OptionSpec | None:
    name = flag.split("=", 1)[0]
    spec = parser.find_option(name)
    if spec is not None:
        return spec
    if parser.subparsers is not None and owner in parser.subparsers.choices:
        return parser.subparsers.choices[owner].find_option(name)
    return None
