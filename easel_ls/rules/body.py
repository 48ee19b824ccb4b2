"""BD — SKILL.md body."""

from __future__ import annotations

import difflib
import re

from easel_ls.findings import Applicability, Fix, Position, Range, TextEdit
from easel_ls.rules.context import Context, FileKind, checker
from easel_ls.spec import PROFILE_MARKER

# Anything that looks like an attempt at the marker: `==… EASEL … PROFILE …==` in any case/spacing.
_MARKER_LIKE = re.compile(
    r"={2,}[^=\n]{0,60}?(?:PROFILE|PROFLE|PROFIL|EASEL)[^=\n]{0,60}?={2,}", re.I
)
_JOINED_SECTIONS = re.compile(r"\s*(?:/|／|、|&|＆|\+|与|和|及)\s*")
_NUMBERING = re.compile(r"^(?:\d+[.、)]\s*|[一二三四五六七八九十]+[、.]\s*)")


def _body_range(ctx: Context) -> tuple[int, int]:
    """First body line and the number of body lines (a final newline ends, not adds, a line)."""
    fm = ctx.frontmatter
    start = fm.body_start_line if fm.closed else 0
    total = ctx.doc.line_count
    if ctx.doc.text.endswith(("\n", "\r")):
        total -= 1
    return start, max(0, total - start)


@checker(FileKind.SKILL, codes=("BD001",))
def body_length(ctx: Context) -> None:
    limit = int(ctx.option("max-body-lines"))
    start, count = _body_range(ctx)
    if count > limit:
        line = start + limit
        ctx.report(
            "BD001",
            Range.of(line, 0, line, len(ctx.doc.line_text(line))),
            f"body is {count} lines; the spec keeps SKILL.md under {limit} "
            f"(this is line {limit + 1} of the body)",
            help="move domain knowledge into references/*.md and link to it",
        )


_MODIFIER_LIMIT = 3  # CJK letters a heading may put before the section word (完整, 两种, 先读的)
_NEGATION = re.compile(r"[不无非别没勿]")


def _satisfies(title: str, accepted: tuple[str, ...]) -> bool:
    """A heading starts with an accepted one (`## 执行流程`), or with a short modifier before it
    (`## 完整工作流程`, `## 详细步骤`; never a negation: `## 不输出什么`); a Latin one may also be any
    word of it (`## Định dạng output`, `## Step 1：需求收集`, `## 发布前检查（有 Profile 时）`)."""
    for folded, word in _folded(accepted):
        if word is None:
            at = title.find(folded, 0, _MODIFIER_LIMIT + len(folded))
            if at == 0 or (at > 0 and not _NEGATION.search(title[:at])):
                return True
        elif word.search(title):
            return True
    return False


_FOLDED: dict[tuple[str, ...], tuple[tuple[str, re.Pattern[str] | None], ...]] = {}


def _folded(accepted: tuple[str, ...]) -> tuple[tuple[str, re.Pattern[str] | None], ...]:
    """Each accepted heading case-folded, with the word pattern of a Latin one (built once per
    configuration: every heading of every SKILL.md is compared with them)."""
    known = _FOLDED.get(accepted)
    if known is None:
        if len(_FOLDED) >= 256:
            _FOLDED.clear()
        # The word itself or its plural (`Inputs`), never a longer word (`Stepper`).
        known = _FOLDED[accepted] = tuple(
            (f, None if not f.isascii() else re.compile(rf"(?<![a-z0-9]){re.escape(f)}s?(?![a-z])"))
            for f in (heading.casefold() for heading in accepted)
        )
    return known


def accepted_headings(section: str, synonyms: dict[str, list[str]]) -> tuple[str, ...]:
    """The headings that count as ``section``: itself, then its `section-synonyms`."""
    found = [section]
    found.extend(s for s in synonyms.get(section, ()) if s and s not in found)
    return tuple(found)


@checker(FileKind.SKILL, codes=("BD002",))
def required_sections(ctx: Context) -> None:
    if not ctx.frontmatter.closed:
        return
    titles: list[str] = []
    for heading in ctx.markdown.headings:
        if heading.level == 2:
            title = _NUMBERING.sub("", heading.text.strip()).casefold()
            # `## 输入与输出`, `## Đầu vào / đầu ra`: one heading for two sections.
            titles.extend(part.strip() for part in _JOINED_SECTIONS.split(title))
    start, _ = _body_range(ctx)
    anchor_line = next((h.range.start.line for h in ctx.markdown.headings if h.level == 1), start)
    anchor_line = min(anchor_line, ctx.doc.line_count - 1)
    anchor = Range.of(anchor_line, 0, anchor_line, len(ctx.doc.line_text(anchor_line)))
    end = ctx.doc.end_position
    synonyms = ctx.option("section-synonyms") or {}
    for section in ctx.option("required-sections"):
        accepted = accepted_headings(section, synonyms)
        if any(_satisfies(t, accepted) for t in titles):
            continue
        sep = "" if ctx.doc.text.endswith("\n") else "\n"
        ctx.report(
            "BD002",
            anchor,
            f"section `## {section}` is missing (accepted headings: "
            + ", ".join(f"`{h}`" for h in accepted)
            + ", each may be followed by more words)",
            fixes=[
                Fix(
                    f"Append `## {section}` section",
                    Applicability.UNSAFE,
                    (TextEdit(ctx.path, Range(end, end), f"{sep}\n## {section}\n\n"),),
                )
            ],
        )


@checker(FileKind.SKILL, FileKind.REFERENCE, codes=("BD003",))
def profile_marker(ctx: Context) -> None:
    if "==" not in ctx.doc.text:
        return  # every candidate contains `==`: skip the line-by-line scan
    start = ctx.frontmatter.body_start_line if ctx.frontmatter.closed else 0
    lines = ctx.doc.lines
    for line in range(start, len(lines)):
        text = lines[line]
        if "==" not in text:
            continue
        for m in _MARKER_LIKE.finditer(text):
            found = m.group(0)
            if found == PROFILE_MARKER:
                continue
            score = difflib.SequenceMatcher(None, found.upper(), PROFILE_MARKER).ratio()
            if score < 0.75:
                continue
            rng = Range(Position(line, m.start()), Position(line, m.end()))
            ctx.report(
                "BD003",
                rng,
                f"`{found}` is a near miss of the profile marker `{PROFILE_MARKER}`",
                fixes=[
                    Fix(
                        "Use the exact profile marker",
                        Applicability.SAFE,
                        (TextEdit(ctx.path, rng, PROFILE_MARKER),),
                    )
                ],
            )
