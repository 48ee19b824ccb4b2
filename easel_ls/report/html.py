"""`easel-ls report --html`: the workspace on one self-contained page, for people who never
open the editor.

Findings by family and by skill as bar charts, skills per layer, which skills compete for the
same requests (a similarity matrix and the colliding pairs), what each skill costs in tokens at
each loading layer, projects with their status, cover and pipeline (steps across the layer
lanes), and the most frequent rules with their docs.
One file and no network: inline CSS (allowed by its hash in a strict Content-Security-Policy),
inline SVG charts, covers embedded as ``data:`` images, no scripts, fonts or remote URLs.
Everything taken from the workspace (skill text, manifests, paths) is HTML-escaped.

The renderer takes plain rows (the skills-view and projects services' dataclasses fit the
protocols below), so it never reads a workspace itself apart from embedding cover images.
"""

from __future__ import annotations

import base64
import hashlib
import html
import itertools
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from easel_ls import __version__
from easel_ls.findings import Finding, Severity
from easel_ls.model.tokens import format_tokens
from easel_ls.rules import RULES
from easel_ls.rules.docgen import FAMILY_TITLES
from easel_ls.spec import LAYERS

PIPELINE_LANES = ("discover", "plan", "produce", "publish", "attribute")
TOP_RULES = 10
MAX_BARS = 15
MAX_COST_ROWS = 40  # 40 bars of 22 px: a screen and a half, whatever the workspace's size
MAX_EMBEDDED_IMAGE = 512 * 1024
_IMAGE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".svg": "image/svg+xml",
}
SEVERITIES = (
    (Severity.ERROR, "error", "errors"),
    (Severity.WARNING, "warning", "warnings"),
    (Severity.INFO, "information", "info"),
)


class FileRow(Protocol):
    @property
    def path(self) -> str: ...
    @property
    def file(self) -> Path: ...
    @property
    def exists(self) -> bool: ...
    @property
    def image(self) -> bool: ...


class StepRow(Protocol):
    @property
    def index(self) -> int: ...
    @property
    def layer(self) -> str | None: ...
    @property
    def skill(self) -> str | None: ...
    @property
    def status(self) -> str: ...
    @property
    def summary(self) -> str | None: ...
    @property
    def outputs(self) -> Sequence[FileRow]: ...


class ProjectRow(Protocol):
    @property
    def topic(self) -> str: ...
    @property
    def title(self) -> str | None: ...
    @property
    def kind(self) -> str | None: ...
    @property
    def status(self) -> str | None: ...
    @property
    def platform(self) -> str | None: ...
    @property
    def summary(self) -> str | None: ...
    @property
    def updated(self) -> str | None: ...
    @property
    def cover(self) -> FileRow | None: ...
    @property
    def deliverables(self) -> Sequence[FileRow]: ...
    @property
    def steps(self) -> Sequence[StepRow]: ...
    @property
    def error(self) -> str | None: ...


class SkillRow(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def folder(self) -> Path: ...
    @property
    def skill_md(self) -> Path: ...
    @property
    def layer(self) -> str | None: ...
    @property
    def layer_text(self) -> str | None: ...
    @property
    def description(self) -> str | None: ...
    @property
    def findings(self) -> Mapping[str, int]: ...
    @property
    def scripts(self) -> Sequence[Path]: ...
    @property
    def references(self) -> Sequence[Path]: ...
    @property
    def tests(self) -> Sequence[Path]: ...


class PairRow(Protocol):
    @property
    def first(self) -> str: ...
    @property
    def second(self) -> str: ...
    @property
    def first_to_second(self) -> float: ...
    @property
    def second_to_first(self) -> float: ...
    @property
    def shared(self) -> Sequence[str]: ...
    @property
    def first_names_second(self) -> bool: ...
    @property
    def second_names_first(self) -> bool: ...


class CollisionView(Protocol):
    """Which skills compete (``services.workspace_report.RoutingCollisions`` fits)."""

    @property
    def skills(self) -> int: ...
    @property
    def names(self) -> Sequence[str]: ...
    @property
    def similarity(self) -> Sequence[Sequence[float]]: ...
    @property
    def shared(self) -> Sequence[Sequence[Sequence[str]]]: ...
    @property
    def left_out(self) -> int: ...
    @property
    def pairs(self) -> Sequence[PairRow]: ...
    @property
    def pairs_left_out(self) -> int: ...
    @property
    def threshold(self) -> float: ...
    @property
    def floor(self) -> float: ...
    @property
    def closest(self) -> tuple[str, str, float] | None: ...


class CostRow(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def resident(self) -> int: ...
    @property
    def body(self) -> int: ...
    @property
    def references_total(self) -> int: ...
    @property
    def scripts_total(self) -> int: ...


class CostView(Protocol):
    """Tokens per skill and layer (``services.workspace_report.TokenCosts`` fits)."""

    @property
    def costs(self) -> Sequence[CostRow]: ...
    @property
    def resident_total(self) -> int: ...
    @property
    def unavailable(self) -> str: ...


@dataclass(frozen=True)
class Bar:
    label: str
    counts: Mapping[Severity, int]
    title: str = ""  # a tooltip: the full label or what it stands for


def e(text: object) -> str:
    """Escaped for HTML text and attribute values."""
    return html.escape(str(text), quote=True)


# -- the page ----------------------------------------------------------------------------
def render_html(
    root: Path,
    findings: Sequence[Finding],
    skills: Sequence[SkillRow],
    projects: Sequence[ProjectRow],
    *,
    generated: str = "",
    collisions: CollisionView | None = None,
    costs: CostView | None = None,
) -> str:
    style = STYLE
    digest = base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()
    csp = (
        f"default-src 'none'; style-src 'sha256-{digest}'; img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )
    totals = Counter(f.severity for f in findings)
    body = [
        _header(root, findings, skills, projects, totals, generated),
        '<div class="grid">',
        _section(
            "findings-by-family",
            "Findings by family",
            bar_chart(family_bars(findings), "findings by rule family"),
        ),
        _section(
            "findings-by-skill",
            "Findings by skill",
            bar_chart(skill_bars(root, findings, skills), "findings by skill"),
        ),
        "</div>",
        _section("skills-by-layer", "Skills by layer", _layers(skills)),
        *(
            [_section("routing-collisions", "Routing collisions", _collisions(collisions))]
            if collisions is not None
            else []
        ),
        *(
            [_section("token-cost", _cost_heading(costs), _costs(costs))]
            if costs is not None
            else []
        ),
        _section("projects", "Projects", _projects(projects)),
        _section("top-rules", "Top rules", _top_rules(findings)),
        f"<footer>easel-ls {e(__version__)} · <code>easel-ls report --html</code></footer>",
    ]
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">\n'  # no " < & in it
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>Easel report · {e(root.name)}</title>\n"
        f"<style>{style}</style>\n</head>\n<body>\n<main>\n"
        + "\n".join(body)
        + "\n</main>\n</body>\n</html>\n"
    )


def _section(anchor: str, title: str, content: str) -> str:
    return f'<section id="{anchor}" class="card">\n<h2>{e(title)}</h2>\n{content}\n</section>'


def _header(
    root: Path,
    findings: Sequence[Finding],
    skills: Sequence[SkillRow],
    projects: Sequence[ProjectRow],
    totals: Counter[Severity],
    generated: str,
) -> str:
    tiles = [
        ("skills", len(skills), ""),
        ("projects", len(projects), ""),
        ("errors", totals[Severity.ERROR], "error" if totals[Severity.ERROR] else "ok"),
        ("warnings", totals[Severity.WARNING], "warning" if totals[Severity.WARNING] else "ok"),
        ("info", totals[Severity.INFO], ""),
    ]
    cells = "".join(
        f'<div class="tile {cls}"><span class="num">{count}</span>'
        f'<span class="what">{e(what)}</span></div>'
        for what, count, cls in tiles
    )
    when = f" · generated {e(generated)}" if generated else ""
    return (
        f'<header>\n<h1>Easel workspace report <span class="root">{e(root.name)}</span></h1>\n'
        f'<p class="sub"><code>{e(root)}</code>{when}</p>\n'
        f'<div class="tiles">{cells}</div>\n</header>'
    )


# -- bar charts --------------------------------------------------------------------------
def family_of(code: str) -> str:
    match = re.match(r"[A-Z]+", code)
    return match.group(0) if match else code


def family_bars(findings: Iterable[Finding]) -> list[Bar]:
    by_family: dict[str, Counter[Severity]] = {}
    for f in findings:
        by_family.setdefault(family_of(f.code), Counter())[f.severity] += 1
    bars = [
        Bar(family, counts, FAMILY_TITLES.get(family, family).replace("`", ""))
        for family, counts in by_family.items()
    ]
    return sorted(bars, key=lambda b: (-sum(b.counts.values()), b.label))


def skill_bars(root: Path, findings: Iterable[Finding], skills: Sequence[SkillRow]) -> list[Bar]:
    """Findings per skill folder; a project's findings under ``outputs/<topic>``, the rest
    under ``other``."""
    folders = sorted(((s.folder, s.name) for s in skills), key=lambda fs: -len(fs[0].parts))
    grouped: dict[str, Counter[Severity]] = {}
    for f in findings:
        grouped.setdefault(_owner(root, f.path, folders), Counter())[f.severity] += 1
    bars = [Bar(name, counts, name) for name, counts in grouped.items()]
    bars.sort(key=lambda b: (-b.counts.get(Severity.ERROR, 0), -sum(b.counts.values()), b.label))
    return bars


def _owner(root: Path, path: Path, folders: Sequence[tuple[Path, str]]) -> str:
    for folder, name in folders:
        if path == folder or folder in path.parents:
            return name
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        return "other"
    if len(parts) >= 3 and parts[0] == "outputs":
        return f"outputs/{parts[1]}"
    return "other"


def bar_chart(bars: Sequence[Bar], label: str) -> str:
    """Horizontal bars, each split by severity; the longest bar spans the plot."""
    if not bars:
        return '<p class="empty">No findings. All checks passed.</p>'
    shown = list(bars[:MAX_BARS])
    left, plot, row, top = 150, 330, 26, 8
    width = left + plot + 60
    height = top + row * len(shown) + 4
    most = max(sum(b.counts.values()) for b in shown) or 1
    parts = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" width="100%" role="img" '
        f'aria-label="{e(label)}">'
    ]
    for i, bar in enumerate(shown):
        y = top + i * row
        name = bar.label if len(bar.label) <= 22 else bar.label[:21] + "…"
        parts.append(
            f'<g class="bar"><title>{e(bar.title or bar.label)}</title>'
            f'<text class="label" x="{left - 8}" y="{y + 16}" text-anchor="end">{e(name)}</text>'
        )
        x = float(left)
        for severity, key, _plural in SEVERITIES:
            count = bar.counts.get(severity, 0)
            if not count:
                continue
            w = plot * count / most
            parts.append(
                f'<rect class="seg {key}" x="{x:.1f}" y="{y + 4}" width="{max(w, 2):.1f}" '
                f'height="{row - 10}" rx="3"><title>{count} {key}</title></rect>'
            )
            x += w
        total = sum(bar.counts.values())
        parts.append(f'<text class="value" x="{x + 6:.1f}" y="{y + 16}">{total}</text></g>')
    parts.append("</svg>")
    more = len(bars) - len(shown)
    legend = _legend() + (f'<p class="note">… and {more} more</p>' if more > 0 else "")
    return "".join(parts) + legend


def _legend() -> str:
    items = "".join(
        f'<span class="key"><svg width="10" height="10"><rect class="seg {key}" width="10" '
        f'height="10" rx="2"/></svg> {e(key)}</span>'
        for _severity, key, _plural in SEVERITIES
    )
    return f'<p class="legend">{items}</p>'


# -- skills per layer --------------------------------------------------------------------
def _layers(skills: Sequence[SkillRow]) -> str:
    order = [*LAYERS, "unknown"]
    grouped: dict[str, list[SkillRow]] = {name: [] for name in order}
    for skill in skills:
        grouped[skill.layer if skill.layer in LAYERS else "unknown"].append(skill)
    if not grouped["unknown"]:
        order.remove("unknown")
    chart = _layer_columns([(name, len(grouped[name])) for name in order])
    lanes = []
    for name in order:
        members = sorted(grouped[name], key=lambda s: s.name)
        chips = "".join(_skill_chip(s) for s in members) or '<span class="empty">—</span>'
        meaning = LAYERS.get(name, "layer missing or not one of the six")
        lanes.append(
            f'<div class="lane"><div class="lane-name" title="{e(meaning)}">{e(name)}'
            f'<span class="count">{len(members)}</span></div><div class="chips">{chips}</div></div>'
        )
    return chart + '<div class="lanes">' + "".join(lanes) + "</div>"


def _layer_columns(counts: Sequence[tuple[str, int]]) -> str:
    col, gap, plot, top = 64, 18, 64, 18
    width = len(counts) * (col + gap) + gap
    height = top + plot + 26
    most = max((c for _, c in counts), default=0) or 1
    parts = [
        f'<svg class="chart layers" viewBox="0 0 {width} {height}" width="100%" '
        f'role="img" aria-label="skills per layer">'
    ]
    for i, (name, count) in enumerate(counts):
        x = gap + i * (col + gap)
        h = plot * count / most
        y = top + plot - h
        cls = "layer unknown" if name == "unknown" else "layer"
        parts.append(
            f"<g><title>{count} skills in {e(name)}</title>"
            f'<rect class="{cls}" x="{x}" y="{y:.1f}" width="{col}" height="{max(h, 1):.1f}" rx="4"/>'
            f'<text class="value" x="{x + col / 2}" y="{y - 5:.1f}" text-anchor="middle">{count}'
            f'</text><text class="label" x="{x + col / 2}" y="{top + plot + 17}" '
            f'text-anchor="middle">{e(name)}</text></g>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _skill_chip(skill: SkillRow) -> str:
    errors, warnings = skill.findings.get("error", 0), skill.findings.get("warning", 0)
    badges = ""
    if errors:
        badges += f'<span class="badge error" title="errors">{errors}</span>'
    if warnings:
        badges += f'<span class="badge warning" title="warnings">{warnings}</span>'
    if not errors and not warnings:
        badges = '<span class="badge ok" title="no errors or warnings">✓</span>'
    files = (
        f"{len(skill.scripts)} scripts · {len(skill.references)} references · "
        f"{len(skill.tests)} tests"
    )
    tip = (skill.description or "no description") + "\n" + files
    if skill.layer is None:
        tip += f"\nlayer: {skill.layer_text or 'missing'}"
    return (
        f'<a class="chip" href="{e(skill.skill_md.as_uri())}" title="{e(tip)}">'
        f"{e(skill.name)}{badges}</a>"
    )


# -- routing collisions ------------------------------------------------------------------
def _pct(share: float) -> str:
    return f"{round(share * 100)} %"


def _shade(share: float) -> str:
    """A tenth-step shade class (``sim0``…``sim10``): a per-cell colour would need a style attribute,
    which the policy forbids."""
    if share < 0.05:
        return "sim0"
    return f"sim{min(10, max(1, round(share * 10)))}"


def _collisions(view: CollisionView) -> str:
    if view.skills < 2:
        return (
            f'<p class="empty">Routing needs two skills with a description to compare; this '
            f"workspace has {view.skills}.</p>"
        )
    if not view.names and not view.pairs:
        return _matrix(view)  # nothing reaches the floor: no pair can reach the threshold either
    return _matrix(view) + _pairs(view)


def _matrix(view: CollisionView) -> str:
    floor = _pct(view.floor)
    if not view.names:
        closest = ""
        if view.closest is not None:
            a, b, share = view.closest
            closest = f" The closest: <code>{e(a)}</code> → <code>{e(b)}</code>, {_pct(share)}."
        return (
            f'<p class="empty">No two skills compete: no description gives another skill '
            f"{floor} of its own score.{closest}</p>"
        )
    names = list(view.names)
    head = "".join(
        f'<th class="col" scope="col"><span>{e(_short(n, 24))}</span></th>' for n in names
    )
    rows = []
    for i, row in enumerate(names):
        cells = []
        for j, col in enumerate(names):
            if i == j:
                cells.append(f'<td class="self" title="{e(row)}"></td>')
                continue
            share = view.similarity[i][j]
            back = view.similarity[j][i]
            words = "、".join(view.shared[i][j])
            tip = (
                f"{row} → {col}: {_pct(share)} (a request made of {row}'s description gives "
                f"{col} {_pct(share)} of {row}'s own score)"
            )
            if words:
                tip += f"\nshared: {words}"
            cls = _shade(share)
            if share >= view.threshold and back >= view.threshold:
                cls += " clash"  # both ways over the threshold: the pair RT002 is about
            text = str(round(share * 100)) if share >= view.floor else ""
            cells.append(f'<td class="{cls}" title="{e(tip)}">{text}</td>')
        rows.append(
            f'<tr><th class="row" scope="row" title="{e(row)}">{e(_short(row, 28))}</th>'
            + "".join(cells)
            + "</tr>"
        )
    more = (
        f'<p class="note">… and {view.left_out} more competing skills, left out of the matrix</p>'
        if view.left_out > 0
        else ""
    )
    scale = "".join(
        f'<span class="swatch sim{k}" title="{k * 10} %"></span>' for k in range(0, 11, 2)
    )
    legend = (
        f'<p class="legend"><span class="scale">0 % {scale} 100 %</span>'
        f'<span class="key"><span class="swatch clash"></span> both ways ≥ '
        f"{_pct(view.threshold)}</span></p>"
    )
    competing = len(names) + view.left_out
    shown = (
        f"the {len(names)} most competing shown" if view.left_out else "the most competing first"
    )
    return (
        f'<p class="note">{competing} of {view.skills} skills share a request with another '
        f"at {floor} or more; {shown}. Row: the skill whose description is the request; "
        f"column: the skill that scores for it, as a share of the row's own score (the number "
        f"from {floor} on).</p>"
        '<div class="matrix-wrap"><table class="matrix" aria-label="routing similarity">'
        f'<thead><tr><th class="corner"></th>{head}</tr></thead><tbody>{"".join(rows)}'
        f"</tbody></table></div>{legend}{more}"
    )


def _pairs(view: CollisionView) -> str:
    threshold = _pct(view.threshold)
    if not view.pairs:
        return (
            f'<p class="note">No pair reaches {threshold} in both directions '
            "(<code>routing-collision-threshold</code>).</p>"
        )
    items = []
    for pair in view.pairs:
        a, b = e(pair.first), e(pair.second)
        if pair.first_names_second and pair.second_names_first:
            verdict, cls = "each names the other", "ok"
        elif pair.first_names_second:
            verdict, cls = f"{a} names {b}", "ok"
        elif pair.second_names_first:
            verdict, cls = f"{b} names {a}", "ok"
        else:
            verdict, cls = "neither names the other (RT002)", "warning"
        words = "、".join(pair.shared) or "—"
        items.append(
            f'<li><span class="pair"><code>{a}</code> ↔ <code>{b}</code></span>'
            f'<span class="shares" title="{a} → {b} / {b} → {a}">'
            f"{_pct(pair.first_to_second)} / {_pct(pair.second_to_first)}</span>"
            f'<span class="badge {cls}">{verdict}</span>'
            f'<span class="shared">shared: {e(words)}</span></li>'
        )
    more = f'<li class="note">… and {view.pairs_left_out} more</li>' if view.pairs_left_out else ""
    return (
        f'<h3>Colliding pairs <span class="count">both ways ≥ {threshold}</span></h3>'
        f'<ul class="pairs">{"".join(items)}{more}</ul>'
    )


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- token cost --------------------------------------------------------------------------
COST_PARTS = (
    ("resident", "resident", "name + description, in every request"),
    ("body", "body", "SKILL.md, once triggered"),
    ("references", "references", "loaded on demand"),
    ("scripts", "scripts", "read on demand"),
)


def _cost_heading(view: CostView) -> str:
    if view.unavailable or not view.costs:
        return "Token cost"
    return (
        f"Token cost · every request pays {format_tokens(view.resident_total)} resident tokens "
        f"({len(view.costs)} skills)"
    )


def _cost_values(cost: CostRow) -> tuple[int, int, int, int]:
    return cost.resident, cost.body, cost.references_total, cost.scripts_total


def _costs(view: CostView) -> str:
    if view.unavailable:
        return f'<p class="note">Token counts unavailable: {e(view.unavailable)}</p>'
    if not view.costs:
        return '<p class="empty">No skills.</p>'
    shown = list(view.costs[:MAX_COST_ROWS])
    left, plot, row, top = 190, 760, 22, 4
    width = left + plot + 130  # room after the longest bar for its total and resident share
    height = top + row * len(shown) + 2
    most = max(sum(_cost_values(c)) for c in shown) or 1
    parts = [
        f'<svg class="cost-chart" viewBox="0 0 {width} {height}" width="100%" role="img" '
        'aria-label="tokens per skill and loading layer">'
    ]
    for i, cost in enumerate(shown):
        y = top + i * row
        values = _cost_values(cost)
        total = sum(values)
        tip = f"{cost.name}: {total} tokens\n" + "\n".join(
            f"{label} {value}"
            for (_key, label, _what), value in zip(COST_PARTS, values, strict=True)
        )
        parts.append(
            f'<g class="cost-row"><title>{e(tip)}</title>'
            f'<text class="label" x="{left - 8}" y="{y + 15}" text-anchor="end">'
            f"{e(_short(cost.name, 26))}</text>"
        )
        x = float(left)
        for (key, label, what), value in zip(COST_PARTS, values, strict=True):
            if not value:
                continue
            w = plot * value / most
            parts.append(
                f'<rect class="cost {key}" x="{x:.1f}" y="{y + 3}" width="{max(w, 2):.1f}" '
                f'height="{row - 7}"><title>{label}: {value} tokens ({what})</title></rect>'
            )
            x += max(w, 2)
        parts.append(
            f'<text x="{x + 6:.1f}" y="{y + 15}"><tspan class="value">{format_tokens(total)}'
            f'</tspan><tspan class="label"> · {cost.resident} resident</tspan></text></g>'
        )
    parts.append("</svg>")
    items = "".join(
        f'<span class="key"><span class="swatch cost {key}"></span> {label} '
        f'<span class="what">({what})</span></span>'
        for key, label, what in COST_PARTS
    )
    more = len(view.costs) - len(shown)
    note = ""
    if more > 0:
        # The ones left out still cost every request their resident share: say how much.
        rest = sum(c.resident for c in view.costs[MAX_COST_ROWS:])
        note = (
            f'<p class="note">… and {more} more skills, {format_tokens(rest)} resident tokens '
            "between them</p>"
        )
    return "".join(parts) + f'<p class="legend">{items}</p>' + note


# -- projects ----------------------------------------------------------------------------
def _projects(projects: Sequence[ProjectRow]) -> str:
    if not projects:
        return (
            '<p class="empty">No projects: no <code>outputs/&lt;topic&gt;/.easel.json</code>.</p>'
        )
    return '<div class="projects">' + "".join(_project(p) for p in projects) + "</div>"


def _project(project: ProjectRow) -> str:
    status = project.status or "no status"
    facts = [f'<span class="status {e(_word(status))}">{e(status)}</span>']
    for value in (project.kind, project.platform):
        if value:
            facts.append(f'<span class="fact">{e(value)}</span>')
    if project.updated:
        facts.append(f'<span class="fact when">updated {e(project.updated)}</span>')
    missing = sum(1 for d in project.deliverables if not d.exists)
    delivered = f"{len(project.deliverables)} deliverables"
    if missing:
        delivered += f' · <span class="bad">{missing} missing</span>'
    title = project.title or project.topic
    parts = [
        f'<article class="project">{_cover(project.cover)}<div class="info">',
        f'<h3>{e(title)}</h3><p class="topic"><code>outputs/{e(project.topic)}</code></p>',
        f'<p class="facts">{"".join(facts)}</p>',
    ]
    if project.summary:
        parts.append(f'<p class="summary">{e(project.summary)}</p>')
    parts.append(f'<p class="delivered">{delivered}</p>')
    if project.error:
        parts.append(f'<p class="problem">⚠ {e(project.error)}</p>')
    parts.append("</div>")
    parts.append(pipeline_svg(project.steps))
    parts.append("</article>")
    return "".join(parts)


def _word(text: str) -> str:
    return re.sub(r"[^a-z0-9-]", "", text.lower()) or "other"


def _cover(cover: FileRow | None) -> str:
    if cover is None or not cover.exists or not cover.image:
        label = "no cover" if cover is None else f"cover {cover.path} missing"
        return f'<div class="cover none" title="{e(label)}">∅</div>'
    mime = _IMAGE_TYPES.get(cover.file.suffix.lower())
    try:
        size = cover.file.stat().st_size
        data = cover.file.read_bytes() if mime and size <= MAX_EMBEDDED_IMAGE else None
    except OSError:
        data = None
    if data is None or mime is None:
        return f'<div class="cover none" title="{e(cover.path)} (too large to embed)">▣</div>'
    encoded = base64.b64encode(data).decode("ascii")
    return (
        f'<img class="cover" alt="{e(cover.path)}" title="{e(cover.path)}" '
        f'src="data:{mime};base64,{encoded}">'
    )


def pipeline_svg(steps: Sequence[StepRow]) -> str:
    """The steps in order across the layer lanes: done green, failed red and marked ✗."""
    if not steps:
        return '<p class="empty pipeline">No steps recorded yet.</p>'
    lanes = list(PIPELINE_LANES)
    extra = sorted({s.layer or "?" for s in steps} - set(lanes))
    lanes += extra  # general, or a layer the spec does not know, gets a lane of its own
    label_w, step_w, node_w, lane_h, top = 84, 112, 100, 30, 6
    width = label_w + step_w * len(steps) + 8
    height = top + lane_h * len(lanes) + 4
    parts = [
        f'<svg class="pipeline" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" role="img" aria-label="pipeline of {len(steps)} steps">'
    ]
    for i, lane in enumerate(lanes):
        y = top + i * lane_h
        parts.append(
            f'<rect class="lane-bg{" alt" if i % 2 else ""}" x="0" y="{y}" width="{width}" '
            f'height="{lane_h}"/><text class="lane-label" x="8" y="{y + 19}">{e(lane)}</text>'
        )
    centers = []
    for position, step in enumerate(steps):
        row = lanes.index(step.layer if step.layer in lanes else (step.layer or "?"))
        centers.append((label_w + position * step_w, top + row * lane_h))
    for (x1, y1), (x2, y2) in itertools.pairwise(centers):
        parts.append(
            f'<path class="link" d="M{x1 + node_w} {y1 + lane_h / 2} '
            f"C{x1 + node_w + 8} {y1 + lane_h / 2} {x2 - 8} {y2 + lane_h / 2} "
            f'{x2} {y2 + lane_h / 2}"/>'
        )
    for step, (x, y) in zip(steps, centers, strict=False):
        failed = step.status == "failed"
        name = step.skill or "?"
        name = name if len(name) <= 13 else name[:12] + "…"
        mark = "✗ " if failed else ""
        tip = f"{step.index + 1}. {step.layer or '?'} · {step.skill or '?'} · {step.status}"
        if step.summary:
            tip += f"\n{step.summary}"
        if step.outputs:
            tip += "\n" + ", ".join(o.path for o in step.outputs)
        parts.append(
            f'<g class="step {"failed" if failed else "done"}"><title>{e(tip)}</title>'
            f'<rect x="{x}" y="{y + 4}" width="{node_w}" height="{lane_h - 8}" rx="11"/>'
            f'<text x="{x + node_w / 2}" y="{y + 19}" text-anchor="middle">{e(mark + name)}'
            "</text></g>"
        )
    parts.append("</svg>")
    return '<div class="pipeline-wrap">' + "".join(parts) + "</div>"


# -- top rules ---------------------------------------------------------------------------
def _top_rules(findings: Sequence[Finding]) -> str:
    counts = Counter(f.code for f in findings)
    if not counts:
        return '<p class="empty">No rule fired.</p>'
    rows = []
    for code, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_RULES]:
        rule = RULES.get(code)
        name = rule.name if rule else ""
        severity = rule.default_severity if rule else ""
        summary = markdown_inline(rule.summary) if rule else ""
        doc = markdown_blocks(rule.doc) if rule and rule.doc else "<p>No documentation.</p>"
        rows.append(
            f'<details class="rule"><summary><span class="code">{e(code)}</span>'
            f'<span class="name">{e(name)}</span>'
            f'<span class="badge {e(_severity_class(severity))}">{e(severity)}</span>'
            f'<span class="times">{count}×</span><span class="what">{summary}</span></summary>'
            f'<div class="doc">{doc}</div></details>'
        )
    return "".join(rows)


def _severity_class(severity: str) -> str:
    return {"info": "information"}.get(severity, severity)


_INLINE_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*([^*]+)\*\*")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")


def markdown_inline(text: str) -> str:
    """Escaped text with code spans and bold; links keep their text only (no remote URLs)."""
    text = _LINK.sub(r"\1", text)
    pieces = _INLINE_CODE.split(text)
    out = []
    for i, piece in enumerate(pieces):
        if i % 2:
            out.append(f"<code>{e(piece)}</code>")
        else:
            out.append(_BOLD.sub(r"<strong>\1</strong>", e(piece)))
    return "".join(out)


def markdown_blocks(text: str) -> str:
    """The subset of Markdown the rule docs use: paragraphs, fences, lists, bold, code."""
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    paragraph: list[str] = []
    items: list[str] = []

    def flush() -> None:
        if paragraph:
            out.append(f"<p>{markdown_inline(' '.join(paragraph))}</p>")
            paragraph.clear()
        if items:
            out.append("<ul>" + "".join(f"<li>{markdown_inline(t)}</li>" for t in items) + "</ul>")
            items.clear()

    while i < len(lines):
        line = lines[i]
        fence = re.match(r"^(`{3,}|~{3,})", line)
        if fence:
            flush()
            marker = fence.group(1)
            code = []
            i += 1
            while i < len(lines) and not lines[i].startswith(marker):
                code.append(lines[i])
                i += 1
            out.append(f"<pre><code>{e(chr(10).join(code))}</code></pre>")
        elif not line.strip():
            flush()
        elif re.match(r"^\s*[-*] ", line):
            if paragraph:
                flush()
            items.append(re.sub(r"^\s*[-*] ", "", line))
        elif line.startswith("#"):
            flush()
            out.append(f"<h4>{markdown_inline(line.lstrip('#').strip())}</h4>")
        elif items and line.startswith("  "):
            items[-1] += " " + line.strip()
        else:
            if items:
                flush()
            paragraph.append(line.strip())
        i += 1
    flush()
    return "".join(out)


STYLE = """
:root{--bg:#f6f7f9;--card:#fff;--ink:#1f2328;--mute:#656d76;--line:#d8dee4;--lane:#f3f5f7;
--error:#d1242f;--warning:#bf8700;--information:#0969da;--ok:#1a7f37;--accent:#8250df;
color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--card:#161b22;--ink:#e6edf3;
--mute:#8d96a0;--line:#30363d;--lane:#1c2129;--error:#f85149;--warning:#d29922;
--information:#4493f8;--ok:#3fb950;--accent:#a371f7}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);
font:14px/1.5 system-ui,-apple-system,"Segoe UI","Noto Sans","PingFang SC","Microsoft YaHei",
sans-serif}
main{max-width:1180px;margin:0 auto;padding:28px 24px 40px}
h1{font-size:26px;margin:0 0 4px}h2{font-size:17px;margin:0 0 14px}h3{font-size:16px;margin:0}
code{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;
background:var(--lane);padding:1px 5px;border-radius:4px}
.sub{color:var(--mute);margin:0 0 16px}
h1 .root{color:var(--accent);font-weight:600}
.tiles{display:flex;gap:12px;flex-wrap:wrap}
.tile{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:10px 18px;
min-width:112px;display:flex;flex-direction:column}
.tile .num{font-size:26px;font-weight:650}.tile .what{color:var(--mute);font-size:12px}
.tile.error .num{color:var(--error)}.tile.warning .num{color:var(--warning)}
.tile.ok .num{color:var(--ok)}
.card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:18px 20px;
margin-top:18px}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:0 18px}
svg text{fill:var(--ink);font-size:12px}
svg .label{fill:var(--mute)}svg .value{font-weight:600}
.seg.error{fill:var(--error)}.seg.warning{fill:var(--warning)}
.seg.information{fill:var(--information)}
.legend{color:var(--mute);font-size:12px;margin:6px 0 0}.key{margin-right:14px}
.note,.empty{color:var(--mute)}
rect.layer{fill:var(--accent);opacity:.85}rect.layer.unknown{fill:var(--error)}
.chart.layers{max-width:640px;display:block;margin-bottom:10px}
.lanes{display:flex;flex-direction:column;gap:6px}
.lane{display:flex;gap:12px;align-items:flex-start;border-top:1px solid var(--line);
padding-top:6px}
.lane-name{width:118px;flex:none;font-weight:600}
.count{color:var(--mute);font-weight:400;margin-left:6px}
.chips{display:flex;flex-wrap:wrap;gap:6px}
.chip{display:inline-flex;align-items:center;gap:6px;border:1px solid var(--line);
border-radius:999px;padding:2px 6px 2px 10px;color:var(--ink);text-decoration:none;
background:var(--lane)}
.chip:hover{border-color:var(--accent)}
.badge{border-radius:999px;padding:0 7px;font-size:11px;font-weight:600;color:#fff;
background:var(--mute)}
.badge.error{background:var(--error)}.badge.warning{background:var(--warning)}
.badge.information{background:var(--information)}.badge.ok{background:var(--ok)}
.projects{display:flex;flex-direction:column;gap:14px}
.project{display:grid;grid-template-columns:96px minmax(220px,330px) 1fr;gap:16px;
align-items:center;border-top:1px solid var(--line);padding-top:14px}
.project:first-child{border-top:0;padding-top:0}
.cover{width:96px;height:96px;border-radius:8px;object-fit:cover;border:1px solid var(--line);
background:var(--lane)}
.cover.none{display:flex;align-items:center;justify-content:center;color:var(--mute);
font-size:28px}
.info p{margin:4px 0}.topic{color:var(--mute)}
.facts{display:flex;gap:6px;flex-wrap:wrap}
.status,.fact{border-radius:999px;padding:0 8px;font-size:12px;border:1px solid var(--line)}
.status{font-weight:600}.status.ready{color:var(--ok);border-color:var(--ok)}
.status.published{color:#fff;background:var(--ok);border-color:var(--ok)}
.status.draft{color:var(--warning);border-color:var(--warning)}
.when{color:var(--mute)}.bad{color:var(--error);font-weight:600}
.problem{color:var(--error);background:color-mix(in srgb,var(--error) 10%,transparent);
border-radius:6px;padding:4px 8px}
.pipeline-wrap{overflow-x:auto}
.lane-bg{fill:var(--lane)}.lane-bg.alt{fill:var(--card)}
.lane-label{fill:var(--mute);font-size:11px}
.link{fill:none;stroke:var(--mute);stroke-width:1.5;opacity:.7}
.step rect{fill:var(--ok)}.step text{fill:#fff;font-size:11px;font-weight:600}
.step.failed rect{fill:var(--error)}
.rule{border-top:1px solid var(--line);padding:8px 0}
.rule summary{cursor:pointer;display:flex;gap:10px;align-items:baseline;flex-wrap:wrap}
.rule .code{font-weight:700;font-family:ui-monospace,Menlo,Consolas,monospace}
.rule .name{color:var(--mute)}.rule .times{font-weight:600}
.doc{padding:4px 0 0 18px;max-width:860px}
.doc pre{background:var(--lane);padding:10px;border-radius:6px;overflow-x:auto}
.doc pre code{background:none;padding:0}
footer{color:var(--mute);font-size:12px;margin-top:22px;text-align:center}
@media (max-width:760px){.project{grid-template-columns:72px 1fr}.pipeline-wrap{grid-column:1/-1}
.cover{width:72px;height:72px}}
"""
STYLE += """.matrix-wrap{overflow-x:auto;margin:4px 0 6px}
.matrix{border-collapse:separate;border-spacing:2px;font-size:11px}
.matrix th{font-weight:500;color:var(--mute)}
.matrix th.row{text-align:right;padding-right:6px;white-space:nowrap}
.matrix th.col{vertical-align:bottom;padding:0 0 4px}
.matrix th.col span{writing-mode:vertical-rl;transform:rotate(180deg);white-space:nowrap}
.matrix td{width:26px;min-width:26px;height:22px;text-align:center;border-radius:3px;
font-variant-numeric:tabular-nums}
.matrix td.self{background:var(--line)}
.matrix td.clash,.swatch.clash{outline:2px solid var(--error);outline-offset:-2px}
.swatch{display:inline-block;width:12px;height:12px;border-radius:2px;vertical-align:-2px;
background:var(--lane)}
.scale{margin:0 16px 0 0;white-space:nowrap}.scale .swatch{margin:0 1px}
.card h3{font-size:14px;margin:14px 0 4px}
.pairs{list-style:none;padding:0;margin:0}
.pairs li{display:flex;gap:10px;align-items:baseline;flex-wrap:wrap;border-top:1px solid
var(--line);padding:5px 0}
.pairs .shares{font-weight:600;font-variant-numeric:tabular-nums}
.pairs .shared{color:var(--mute)}
.cost-chart{display:block}
rect.cost.resident{fill:var(--accent)}rect.cost.body{fill:var(--information)}
rect.cost.references{fill:var(--ok)}rect.cost.scripts{fill:var(--mute)}
.swatch.cost.resident{background:var(--accent)}.swatch.cost.body{background:var(--information)}
.swatch.cost.references{background:var(--ok)}.swatch.cost.scripts{background:var(--mute)}
.legend .what{opacity:.8}
"""
# Tenth-step shades of the similarity matrix: classes, since the policy allows no style attribute.
STYLE += (
    "".join(
        f".sim{k}{{background:color-mix(in srgb,var(--accent) {k * 9}%,var(--lane))"
        + (";color:#fff" if k >= 5 else "")
        + "}"
        for k in range(11)
    )
    + "\n"
)
