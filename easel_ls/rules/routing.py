"""RT — routing: which skill a request reaches on the resident metadata alone, and what the
metadata costs.

Every skill's ``name`` + ``description`` is resident in the agent's context and decides the
route; these rules rank the workspace's skills for the requests a skill says it serves (its
quoted trigger phrases, its ``tests/N.prompt``) with :mod:`easel_ls.model.routing`.

The ranking needs every skill's metadata, read once per run (``routing_state``). A result
cached on disk carries the digest of all skills' frontmatter (see ``Workspace.routing_digest``)
instead of one dependency per SKILL.md, so a warm run stays one stat per file.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from easel_ls.findings import Location, Range
from easel_ls.model.routing import (
    Phrase,
    RoutingIndex,
    SkillCard,
    boundary_spans,
    normalise,
    trigger_phrases,
)
from easel_ls.model.text import TextDocument
from easel_ls.rules.context import Context, FileKind, checker
from easel_ls.workspace import Skill, Workspace

# A request counts as won only with this share of the winner's score: closer than that, the
# agent's pick between the two is a coin toss.
TIE_SHARE = 0.9


@dataclass
class SkillMeta:
    """A skill's routing metadata and where it is written."""

    skill: Skill
    card: SkillCard
    doc: TextDocument | None = None
    description_range: Range | None = None
    description_source: str = ""  # the description as written (block scalar lines included)
    description_offset: int = 0  # offset of ``description_source`` in the document


@dataclass
class RoutingState:
    key: tuple[object, ...]
    metas: dict[str, SkillMeta] = field(default_factory=dict)
    index: RoutingIndex = field(default_factory=RoutingIndex)


def _meta_of(ws: Workspace, skill: Skill) -> SkillMeta | None:
    from easel_ls.model.frontmatter import parse_frontmatter, scalar_text

    text = ws.read(skill.skill_md)
    doc = text.doc
    if doc is None:
        return None
    fm = ws.artefact("frontmatter", doc, lambda: parse_frontmatter(doc))
    pair = fm.get("description")
    description = scalar_text(pair[1]) if pair is not None else None
    if not description:
        return None
    layer_pair = fm.get("layer")
    layer = scalar_text(layer_pair[1]) if layer_pair is not None else None
    name_pair = fm.get("name")
    name = scalar_text(name_pair[1]) if name_pair is not None else None
    rng = fm.node_range(pair[1]) if pair is not None else None
    meta = SkillMeta(skill, SkillCard(name or skill.name, description, layer), doc, rng)
    if rng is not None:
        meta.description_source = doc.slice(rng)
        meta.description_offset = doc.offset_at(rng.start)
    return meta


def routing_state(ws: Workspace, settings_key: tuple[object, ...]) -> RoutingState:
    """Every skill's metadata and the index over it: once per batch run; in the editor, again
    only after a SKILL.md changed."""

    def build() -> RoutingState:
        held: RoutingState | None = getattr(ws, "routing_memo", None)
        skills = ws.skills
        key = (settings_key, tuple(sorted(str(s.skill_md) for s in skills.values())))
        if held is not None and held.key == key:
            changed = {p for p in ws.changed_since(held_generation(ws)) if p.name == "SKILL.md"}
            if not changed:
                return held
        state = RoutingState(key)
        for name in sorted(skills):
            meta = _meta_of(ws, skills[name])
            if meta is not None:
                state.metas[name] = meta
        cues = tuple(str(c) for c in settings_key[0]) if settings_key else ()  # type: ignore[attr-defined]
        # Indexed by folder name: the name every rule, mention and test uses for the skill.
        cards = [SkillCard(n, m.card.description, m.card.layer) for n, m in state.metas.items()]
        state.index = RoutingIndex.build(cards, boundary_cues=cues)
        ws.routing_memo = state
        ws.routing_generation = ws.generation
        return state

    return ws.remembered(("routing-state", settings_key), build)


def held_generation(ws: Workspace) -> int:
    return int(getattr(ws, "routing_generation", -1))


def prime_routing(ws: Workspace) -> None:
    """Build the routing state in the parent before worker processes fork, so they inherit
    it (and the frontmatter of every SKILL.md) instead of each building its own."""
    settings = ws.settings_for(ws.root)
    if settings.is_enabled("RT001") or settings.is_enabled("RT002"):
        routing_state(ws, (tuple(settings.option("boundary-words")),))


def _state(ctx: Context) -> RoutingState:
    cues = tuple(ctx.option("boundary-words"))
    state = routing_state(ctx.workspace, (cues,))
    ctx.workspace.note_routing_dependent(ctx.path)
    return state


def phrase_range(meta: SkillMeta, phrase: Phrase) -> Range | None:
    """Where ``phrase`` is written in the SKILL.md, when the source holds it on one line."""
    if meta.doc is None or meta.description_range is None:
        return None
    i = meta.description_source.find(phrase.text)
    if i < 0:
        return None
    start = meta.description_offset + i
    return meta.doc.range_of(start, start + len(phrase.text))


def _describe_loss(index: RoutingIndex, request: str, own: str) -> tuple[str, float] | None:
    """The skill that takes ``request`` from ``own`` (or ties with it), and the margin (own
    score minus the winner's: negative when ``own`` loses)."""
    rival = index.best_rival(request, own, TIE_SHARE)
    if rival is None:
        return None
    winner, score, own_score = rival
    return winner, own_score - score


def description_of(state: RoutingState, name: str) -> list[Location]:
    """Where ``name``'s description is written: the related location of a routing finding."""
    meta = state.metas.get(name)
    if meta is None or meta.description_range is None:
        return []
    return [Location(meta.skill.skill_md, meta.description_range, f"`{name}`")]


def _loss_message(request: str, own: str, winner: str, margin: float) -> str:
    if margin >= 0:
        return (
            f"request “{request}” barely reaches `{own}`: `{winner}` scores within "
            f"{round((1 - TIE_SHARE) * 100)} % (margin {margin:.2f}), so the agent may pick either"
        )
    return f"request “{request}” reaches `{winner}` first, not `{own}` (behind by {-margin:.2f})"


@checker(FileKind.SKILL, codes=("RT001", "RT002", "RT003"))
def routing_of_skill(ctx: Context) -> None:
    if ctx.skill is None:
        return
    want = {code for code in ("RT001", "RT002", "RT003") if ctx.settings.is_enabled(code)}
    if not want:
        return
    state = _state(ctx)
    meta = state.metas.get(ctx.skill.name)
    if meta is None:
        return  # no description: FM004 says so
    if "RT001" in want and len(state.index) > 1:
        _phrases_reach(ctx, state, meta)
    if "RT002" in want and len(state.index) > 1:
        _collisions(ctx, state, meta)
    if "RT003" in want:
        _resident_cost(ctx, state, meta)


def _phrases_reach(ctx: Context, state: RoutingState, meta: SkillMeta) -> None:
    quotes = tuple(ctx.option("trigger-quotes"))
    cues = tuple(ctx.option("trigger-phrase-cues"))
    own = ctx.skill.name if ctx.skill else ""
    description = meta.card.description
    # A request quoted in a boundary clause (不负责“写文案”，交给 …) is one the skill hands on.
    handed_on = boundary_spans(
        normalise(description), tuple(ctx.option("boundary-words")), set(ctx.workspace.skills)
    )
    asked: set[str] = set()
    for phrase in trigger_phrases(description, quotes, cues):
        if any(phrase.start in span for span in handed_on) or phrase.text in asked:
            continue  # handed on, or quoted twice: one request, one finding
        asked.add(phrase.text)
        loss = _describe_loss(state.index, phrase.text, own)
        if loss is None:
            continue
        winner, margin = loss
        rng = phrase_range(meta, phrase) or meta.description_range or Range.line_start(0)
        related = description_of(state, winner)
        ctx.report(
            "RT001",
            rng,
            _loss_message(phrase.text, own, winner, margin),
            related=related,
            help=f"say what sets `{own}` apart from `{winner}`, or name `{winner}` as the "
            "neighbour for the other case",
        )


def _collisions(ctx: Context, state: RoutingState, meta: SkillMeta) -> None:
    own = ctx.skill.name if ctx.skill else ""
    threshold = float(ctx.option("routing-collision-threshold"))
    index = state.index
    for other, share in index.neighbours(own, limit=3):
        if share < threshold or index.similarity(other, own) < threshold:
            continue
        other_meta = state.metas.get(other)
        if other_meta is None or _names_each_other(meta, other_meta):
            continue
        words = "、".join(index.shared_words(own, other)) or "—"
        related = []
        if other_meta.description_range is not None:
            related.append(
                Location(other_meta.skill.skill_md, other_meta.description_range, f"`{other}`")
            )
        ctx.report(
            "RT002",
            meta.description_range or Range.line_start(0),
            f"description collides with `{other}` ({round(share * 100)} % of what it says "
            f"scores for `{other}` too; shared: {words}) and neither names the other",
            related=related,
            help=f"draw the boundary: say which requests belong to `{other}` (交给 `{other}`)",
        )


def _names_each_other(a: SkillMeta, b: SkillMeta) -> bool:
    from easel_ls.model.routing import _names  # one definition of a whole-word skill mention

    return _names(a.card.description, b.skill.name) or _names(b.card.description, a.skill.name)


def _resident_cost(ctx: Context, state: RoutingState, meta: SkillMeta) -> None:
    from easel_ls.model.tokens import TokenizerUnavailable, format_tokens

    try:
        own = resident_tokens(meta.card)
        budget = int(ctx.option("description-token-budget"))
        if own > budget:
            ctx.report(
                "RT003",
                meta.description_range or Range.line_start(0),
                f"resident metadata of `{meta.card.name}` is {own} tokens, over the "
                f"{budget}-token budget: every request pays it",
                help="keep the capability, the user wording and the boundary; move the rest "
                "into the body or references/",
            )
        workspace_budget = int(ctx.option("resident-token-budget"))
        costs = {name: resident_tokens(m.card) for name, m in state.metas.items()}
        total = sum(costs.values())
        if (
            total > workspace_budget
            and costs
            and max(costs, key=lambda n: (costs[n], n)) == (ctx.skill.name if ctx.skill else "")
        ):
            ctx.report(
                "RT003",
                meta.description_range or Range.line_start(0),
                f"the workspace's resident metadata is {format_tokens(total)} tokens over "
                f"{len(costs)} skills, over the {format_tokens(workspace_budget)}-token budget; "
                f"this description is the largest ({own} tokens)",
            )
    except TokenizerUnavailable as exc:
        ctx.report("RT003", Range.line_start(0), f"token counts unavailable: {exc}")


def resident_tokens(card: SkillCard) -> int:
    """What a skill costs every request: its name and description as the agent lists them."""
    from easel_ls.model.tokens import count_tokens

    return count_tokens(f"{card.name}: {card.description}")


@checker(FileKind.TEST, codes=("RT001",))
def routing_of_test(ctx: Context) -> None:
    if ctx.path.suffix != ".prompt" or ctx.skill is None:
        return
    if not ctx.settings.is_enabled("RT001"):
        return
    request = ctx.doc.text.strip()
    if not request:
        return
    state = _state(ctx)
    if len(state.index) < 2 or ctx.skill.name not in state.metas:
        return
    loss = _describe_loss(state.index, request, ctx.skill.name)
    if loss is None:
        return
    winner, margin = loss
    shown = request if len(request) <= 40 else request[:39] + "…"
    related = description_of(state, winner)
    ctx.report(
        "RT001",
        Range.line_start(0),
        _loss_message(shown, ctx.skill.name, winner, margin),
        related=related,
        help=f"the test's request should reach `{ctx.skill.name}`: sharpen its description "
        f"against `{winner}`",
    )
