"""Routing and token cost for people: `easel-ls route`, the hovers on `description:` and on a
quoted trigger phrase, the cost lens above the frontmatter and the report's pictures.

Protocol-free: plain values from the same routing state the RT rules use
(``rules/routing.py``), token counts from ``model/tokens.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from easel_ls.findings import Position, Range
from easel_ls.model.routing import Phrase, Ranking, trigger_phrases
from easel_ls.model.text import TextDocument
from easel_ls.rules.context import FileKind, classify
from easel_ls.rules.routing import (
    RoutingState,
    SkillMeta,
    phrase_range,
    resident_tokens,
    routing_state,
)
from easel_ls.workspace import Skill, Workspace


def state_of(ws: Workspace) -> RoutingState:
    settings = ws.settings_for(ws.root)
    return routing_state(ws, (tuple(settings.option("boundary-words")),))


@dataclass(frozen=True)
class RankedSkill:
    rank: int
    name: str
    score: float
    layer: str | None
    matched: tuple[str, ...]
    path: Path | None


@dataclass(frozen=True)
class RouteResult:
    request: str
    skills: int  # how many skills were ranked
    ranking: tuple[RankedSkill, ...]
    margin: float  # first minus second

    def to_json(self, root: Path) -> dict[str, object]:
        def rel(path: Path | None) -> str | None:
            if path is None:
                return None
            try:
                return path.relative_to(root).as_posix()
            except ValueError:
                return str(path)

        return {
            "request": self.request,
            "skills": self.skills,
            "margin": round(self.margin, 4),
            "ranking": [
                {
                    "rank": r.rank,
                    "name": r.name,
                    "score": r.score,
                    "layer": r.layer,
                    "matched": list(r.matched),
                    "path": rel(r.path),
                }
                for r in self.ranking
            ],
        }


def route(ws: Workspace, request: str, top: int = 5) -> RouteResult:
    state = state_of(ws)
    ranking = state.index.rank(request, top=top)
    return _result(state, ranking)


def _result(state: RoutingState, ranking: Ranking) -> RouteResult:
    ranked = []
    for i, hit in enumerate(ranking.hits, 1):
        meta = state.metas.get(hit.name)
        ranked.append(
            RankedSkill(
                i,
                hit.name,
                hit.score,
                meta.card.layer if meta else None,
                tuple(w for w in hit.matched if len(w) > 1) or hit.matched[:3],
                meta.skill.skill_md if meta else None,
            )
        )
    return RouteResult(ranking.request, len(state.index), tuple(ranked), ranking.margin)


# --- token costs ------------------------------------------------------------------------------


@dataclass(frozen=True)
class SkillCost:
    """Tokens of one skill at each of the spec's three loading layers."""

    name: str
    resident: int  # name + description: every request pays it
    body: int  # SKILL.md when the skill is triggered
    references: dict[str, int] = field(default_factory=dict)  # loaded on demand
    scripts: dict[str, int] = field(default_factory=dict)  # read on demand (code not in prompt)

    @property
    def references_total(self) -> int:
        return sum(self.references.values())

    @property
    def scripts_total(self) -> int:
        return sum(self.scripts.values())


def skill_cost(ws: Workspace, skill: Skill, state: RoutingState | None = None) -> SkillCost | None:
    from easel_ls.model.tokens import count_tokens

    state = state or state_of(ws)
    meta = state.metas.get(skill.name)
    text = ws.read(skill.skill_md).doc
    if text is None:
        return None
    resident = resident_tokens(meta.card) if meta is not None else 0
    references: dict[str, int] = {}
    scripts: dict[str, int] = {}
    for folder, into in (("references", references), ("scripts", scripts)):
        for path in ws.list_dir(skill.folder / folder, "*", recursive=True):
            if not path.is_file():
                continue
            doc = ws.read(path).doc
            if doc is not None:
                into[path.relative_to(skill.folder).as_posix()] = count_tokens(doc.text)
    return SkillCost(skill.name, resident, count_tokens(_body(text)), references, scripts)


def _body(doc: TextDocument) -> str:
    text = doc.text
    if text.startswith("---"):
        end = text.find("\n---", 3)
        if end >= 0:
            close = text.find("\n", end + 1)
            return text[close + 1 :] if close >= 0 else ""
    return text


def workspace_resident(ws: Workspace, state: RoutingState | None = None) -> dict[str, int]:
    """Each skill's resident tokens: their sum is what every request pays."""
    state = state or state_of(ws)
    return {name: resident_tokens(meta.card) for name, meta in state.metas.items()}


def cost_lens_title(cost: SkillCost) -> str:
    from easel_ls.model.tokens import format_tokens

    parts = [f"resident {cost.resident} tokens", f"body {format_tokens(cost.body)}"]
    if cost.references:
        parts.append(f"references {format_tokens(cost.references_total)}")
    if cost.scripts:
        parts.append(f"scripts {format_tokens(cost.scripts_total)}")
    return " · ".join(parts)


def cost_lens(ws: Workspace, doc: TextDocument) -> tuple[Range, str] | None:
    """The lens above a SKILL.md's frontmatter: its cost at each loading layer."""
    kind, skill = classify(ws, doc.path)
    if kind is not FileKind.SKILL or skill is None or not doc.text.startswith("---"):
        return None
    from easel_ls.model.tokens import TokenizerUnavailable

    try:
        cost = skill_cost(ws, skill)
    except TokenizerUnavailable:
        return None
    if cost is None:
        return None
    return Range.line_start(0), cost_lens_title(cost)


# --- hovers -------------------------------------------------------------------------------------


def routing_hover(ws: Workspace, doc: TextDocument, pos: Position) -> tuple[str, Range] | None:
    """On a quoted trigger phrase: where that request goes. On `description:` (key or value):
    its resident cost and its nearest competitors."""
    kind, skill = classify(ws, doc.path)
    if kind is not FileKind.SKILL or skill is None:
        return None
    from easel_ls.model.frontmatter import parse_frontmatter

    fm = ws.artefact("frontmatter", doc, lambda: parse_frontmatter(doc))
    pair = fm.get("description")
    if pair is None:
        return None
    key_range, value_range = fm.node_range(pair[0]), fm.node_range(pair[1])
    on_key = key_range.start.line == pos.line and (
        key_range.start.character <= pos.character <= key_range.end.character
    )
    if not on_key and not _within(value_range, pos):
        return None
    # The value's prose has no hover of its own (only its quoted requests do).
    state = state_of(ws)
    meta = state.metas.get(skill.name)
    if meta is None:
        return None
    if not on_key:
        settings = ws.settings_for(doc.path)
        for phrase in trigger_phrases(
            meta.card.description,
            tuple(settings.option("trigger-quotes")),
            tuple(settings.option("trigger-phrase-cues")),
        ):
            rng = phrase_range(meta, phrase)
            if rng is not None and _within(rng, pos):
                return phrase_hover(state, skill.name, phrase), rng
        return None
    return description_hover(ws, state, meta), key_range


def _within(rng: Range, pos: Position) -> bool:
    return (
        (rng.start.line, rng.start.character)
        <= (pos.line, pos.character)
        <= (
            rng.end.line,
            rng.end.character,
        )
    )


def phrase_hover(state: RoutingState, own: str, phrase: Phrase) -> str:
    result = _result(state, state.index.rank(phrase.text, top=3))
    lines = [f"**Request “{phrase.text}”** reaches, on the resident metadata alone:", ""]
    lines += [_ranked_line(r, own) for r in result.ranking]
    top = result.ranking[0] if result.ranking else None
    if top is not None and top.name != own:
        lines += ["", f"⚠ `{top.name}` wins this request, not `{own}` (RT001)."]
    elif len(result.ranking) > 1:
        lines += ["", f"Margin over `{result.ranking[1].name}`: {result.margin:.2f}."]
    return "\n".join(lines)


def _ranked_line(r: RankedSkill, own: str) -> str:
    words = "、".join(r.matched[:4]) or "—"
    mark = " ← this skill" if r.name == own else ""
    return f"{r.rank}. `{r.name}` · {r.score:.2f} · {words}{mark}"


def description_hover(ws: Workspace, state: RoutingState, meta: SkillMeta) -> str:
    from easel_ls.model.tokens import TokenizerUnavailable, format_tokens

    name = meta.skill.name
    lines = []
    try:
        own = resident_tokens(meta.card)
        total = sum(workspace_resident(ws, state).values())
        lines.append(
            f"**Resident cost**: {own} tokens (`name` + `description`, in every request's "
            f"context); all {len(state.metas)} skills: {format_tokens(total)} tokens."
        )
    except TokenizerUnavailable as exc:
        lines.append(f"Token counts unavailable: {exc}")
    neighbours = state.index.neighbours(name, limit=3)
    if neighbours:
        lines += ["", "**Nearest competitors** (share of this description's score they take):"]
        for other, share in neighbours:
            words = "、".join(state.index.shared_words(name, other, limit=4)) or "—"
            lines.append(f"- `{other}` · {round(share * 100)} % · shared: {words}")
    return "\n".join(lines)
