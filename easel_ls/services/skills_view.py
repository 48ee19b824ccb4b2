"""Every skill of a workspace at a glance, protocol-free: its layer (from the frontmatter), its
scripts, references and tests, and how many findings its files have by severity.

Findings come from a caller-supplied lookup (the server hands over what it already published),
falling back to the engine for a file nobody checked yet.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from easel_ls.engine import check_path
from easel_ls.findings import Finding, Severity
from easel_ls.model.frontmatter import Frontmatter, parse_frontmatter, scalar_text
from easel_ls.rules.context import FileKind, classify
from easel_ls.spec import LAYERS
from easel_ls.workspace import Skill, Workspace

LAYER_ORDER: tuple[str, ...] = tuple(LAYERS)  # discover … attribute, then general
SEVERITY_KEYS = ("error", "warning", "information", "hint")
_SEVERITY_KEY = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "information"}

FindingsOf = Callable[[Path], list[Finding]]


@dataclass
class SkillView:
    name: str  # the folder name (what `.easel.json` steps and the index call it)
    folder: Path
    skill_md: Path
    layer: str | None  # one of LAYER_ORDER, else None
    layer_text: str | None  # the frontmatter value as written
    description: str | None
    scripts: list[Path] = field(default_factory=list)
    references: list[Path] = field(default_factory=list)
    tests: list[Path] = field(default_factory=list)
    findings: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SEVERITY_KEYS, 0))

    @property
    def files(self) -> list[Path]:
        """The files whose findings count for this skill."""
        return [self.skill_md, *self.references, *self.scripts, *self.tests]


def engine_findings(ws: Workspace) -> FindingsOf:
    return lambda path: check_path(ws, path)


def list_skills(ws: Workspace, findings_of: FindingsOf | None = None) -> list[SkillView]:
    """The workspace's skills in pipeline order of their layer (unknown layers last), then by
    name."""
    lookup = findings_of or engine_findings(ws)
    views = [skill_view(ws, skill, lookup) for skill in ws.skills.values()]
    views.sort(key=lambda v: (layer_rank(v.layer), v.name))
    return views


def layer_rank(layer: str | None) -> int:
    return LAYER_ORDER.index(layer) if layer in LAYER_ORDER else len(LAYER_ORDER)


def skill_view(ws: Workspace, skill: Skill, findings_of: FindingsOf) -> SkillView:
    fm = frontmatter_of(ws, skill.skill_md)
    layer_text = _scalar(fm, "layer")
    description = _scalar(fm, "description")
    view = SkillView(
        name=skill.name,
        folder=skill.folder,
        skill_md=skill.skill_md,
        layer=layer_text if layer_text in LAYERS else None,
        layer_text=layer_text,
        description=re.sub(r"\s+", " ", description).strip() if description else description,
    )
    wanted = {
        "scripts": (FileKind.SCRIPT, view.scripts),
        "references": (FileKind.REFERENCE, view.references),
        "tests": (FileKind.TEST, view.tests),
    }
    for sub, (kind, into) in wanted.items():
        for path in ws.list_dir(skill.folder / sub, recursive=True):
            if classify(ws, path)[0] is kind and path.is_file():
                into.append(path)
    for path in view.files:
        for finding in findings_of(path):
            if finding.path == path:
                view.findings[_SEVERITY_KEY.get(finding.severity, "hint")] += 1
    return view


def frontmatter_of(ws: Workspace, skill_md: Path) -> Frontmatter | None:
    doc = ws.read(skill_md).doc
    if doc is None:
        return None
    # The same artefact key as the rules' Context: one parse per text.
    return ws.artefact("frontmatter", doc, lambda: parse_frontmatter(doc))


def _scalar(fm: Frontmatter | None, key: str) -> str | None:
    if fm is None:
        return None
    found = fm.get(key)
    return scalar_text(found[1]) if found is not None else None
