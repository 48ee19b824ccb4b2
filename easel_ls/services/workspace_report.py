"""The data behind `easel-ls report --html`: the findings `check` computed, the skills view and
the projects of the workspace, rendered by ``easel_ls.report.html``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from easel_ls.findings import Finding
from easel_ls.report.html import render_html
from easel_ls.services.projects import list_projects
from easel_ls.services.skills_view import list_skills
from easel_ls.workspace import Workspace


def build_report(ws: Workspace, findings: Sequence[Finding], *, generated: str = "") -> str:
    """The HTML page; per-skill counts come from ``findings`` (no second check)."""
    by_path: dict[Path, list[Finding]] = {}
    for finding in findings:
        by_path.setdefault(finding.path, []).append(finding)
    skills = list_skills(ws, lambda path: by_path.get(path, []))
    return render_html(ws.root, findings, skills, list_projects(ws), generated=generated)
