"""The data behind `easel-ls report --html`: the findings `check` computed, the skills view and
the projects of the workspace, which skills compete for the same requests and what each skill
costs in tokens, rendered by ``easel_ls.report.html``."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from easel_ls.findings import Finding
from easel_ls.report.html import render_html
from easel_ls.rules.routing import RoutingState
from easel_ls.services.projects import list_projects
from easel_ls.services.routing import SkillCost, skill_cost, state_of, workspace_resident
from easel_ls.services.skills_view import list_skills
from easel_ls.workspace import Workspace

# A skill joins the collision matrix once another description gives it (or it gives another)
# this share of the own score: below that, a shared word or two, not a competitor.
MATRIX_FLOOR = 0.3
MAX_MATRIX = 30  # 30 × 30 cells still fit the page's width
MAX_PAIRS = 12


def build_report(ws: Workspace, findings: Sequence[Finding], *, generated: str = "") -> str:
    """The HTML page; per-skill counts come from ``findings`` (no second check)."""
    by_path: dict[Path, list[Finding]] = {}
    for finding in findings:
        by_path.setdefault(finding.path, []).append(finding)
    skills = list_skills(ws, lambda path: by_path.get(path, []))
    state = state_of(ws)  # the one `check` built for RT001/RT002 when those ran
    return render_html(
        ws.root,
        findings,
        skills,
        list_projects(ws),
        generated=generated,
        collisions=routing_collisions(ws, state),
        costs=token_costs(ws, state),
    )


# -- routing collisions ------------------------------------------------------------------------
@dataclass(frozen=True)
class CollisionPair:
    """Two skills whose descriptions each give the other at least the collision threshold."""

    first: str
    second: str
    first_to_second: float  # share of ``first``'s own score ``second`` gets for its description
    second_to_first: float
    shared: tuple[str, ...]  # the weightiest words both descriptions have
    first_names_second: bool  # ``first``'s description mentions ``second`` by name
    second_names_first: bool

    @property
    def named(self) -> bool:
        """A boundary is drawn (RT002 stays quiet) when either names the other."""
        return self.first_names_second or self.second_names_first


@dataclass(frozen=True)
class RoutingCollisions:
    skills: int  # skills with a description (the ones routing ranks)
    names: tuple[str, ...]  # the matrix's rows and columns, the most competing first
    similarity: tuple[tuple[float, ...], ...]  # [row][col] = similarity(row, col)
    shared: tuple[tuple[tuple[str, ...], ...], ...]  # [row][col] = shared words
    left_out: int  # competing skills beyond MAX_MATRIX
    pairs: tuple[CollisionPair, ...]  # both directions at or over ``threshold``, closest first
    pairs_left_out: int
    threshold: float  # the root's routing-collision-threshold
    floor: float = MATRIX_FLOOR
    closest: tuple[str, str, float] | None = None  # the highest share of all (for the note)


def routing_collisions(ws: Workspace, state: RoutingState | None = None) -> RoutingCollisions:
    from easel_ls.model.routing import _names  # one definition of a whole-word skill mention

    state = state or state_of(ws)
    index = state.index
    threshold = float(ws.settings_for(ws.root).option("routing-collision-threshold"))
    names = sorted(state.metas)
    # One pass per skill scores every other skill for its description (`neighbours` is
    # `similarity` for all of them at once): n passes, not n² calls.
    share: dict[tuple[str, str], float] = {}
    for name in names:
        for other, value in index.neighbours(name, limit=len(names)):
            share[(name, other)] = value
    strongest: dict[str, float] = dict.fromkeys(names, 0.0)
    rivals: dict[str, int] = dict.fromkeys(names, 0)
    for (a, b), value in share.items():
        # Either direction counts: the skill that takes another's requests competes too.
        for skill in (a, b):
            strongest[skill] = max(strongest[skill], value)
        if value >= MATRIX_FLOOR:
            rivals[a] += 1
            rivals[b] += 1
    competing = sorted(
        (n for n in names if strongest[n] >= MATRIX_FLOOR),
        key=lambda n: (-strongest[n], -rivals[n], n),
    )
    shown = tuple(competing[:MAX_MATRIX])
    similarity = tuple(
        tuple(1.0 if row == col else share.get((row, col), 0.0) for col in shown) for row in shown
    )
    shared = tuple(
        tuple(
            index.shared_words(row, col, limit=5)
            if row != col and share.get((row, col), 0.0) > 0
            else ()
            for col in shown
        )
        for row in shown
    )
    pairs: list[CollisionPair] = []
    for a, b in itertools.combinations(names, 2):
        ab, ba = share.get((a, b), 0.0), share.get((b, a), 0.0)
        if ab < threshold or ba < threshold:
            continue
        da, db = state.metas[a].card.description, state.metas[b].card.description
        pairs.append(
            CollisionPair(a, b, ab, ba, index.shared_words(a, b), _names(da, b), _names(db, a))
        )
    pairs.sort(key=lambda p: (-min(p.first_to_second, p.second_to_first), p.first, p.second))
    closest = max(share.items(), key=lambda kv: (kv[1], kv[0]), default=None)
    return RoutingCollisions(
        skills=len(names),
        names=shown,
        similarity=similarity,
        shared=shared,
        left_out=len(competing) - len(shown),
        pairs=tuple(pairs[:MAX_PAIRS]),
        pairs_left_out=max(len(pairs) - MAX_PAIRS, 0),
        threshold=threshold,
        closest=(closest[0][0], closest[0][1], closest[1]) if closest else None,
    )


# -- token cost --------------------------------------------------------------------------------
@dataclass(frozen=True)
class TokenCosts:
    costs: tuple[SkillCost, ...]  # every readable skill, the largest total first
    resident_total: int  # every skill's name + description: what every request pays
    unavailable: str = ""  # why nothing could be counted (no tokenizer)


def token_costs(ws: Workspace, state: RoutingState | None = None) -> TokenCosts:
    from easel_ls.model.tokens import TokenizerUnavailable

    state = state or state_of(ws)
    try:
        costs = [skill_cost(ws, skill, state) for _name, skill in sorted(ws.skills.items())]
        resident = sum(workspace_resident(ws, state).values())
    except TokenizerUnavailable as exc:
        # The rest of the report stands without counts: say why they are missing.
        return TokenCosts((), 0, str(exc))
    found = [c for c in costs if c is not None]
    found.sort(key=lambda c: (-total_tokens(c), c.name))
    return TokenCosts(tuple(found), resident)


def total_tokens(cost: SkillCost) -> int:
    return cost.resident + cost.body + cost.references_total + cost.scripts_total
