"""Code lenses, protocol-free: one entry point that asks the service owning each file kind.

Scripts and skill Markdown get the script ↔ docs graph's lenses (``services/graph.py``);
``.easel.json`` gets the project pipeline lens (``services/projects.py``). Lenses are computed
from the index, never by running workspace code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from easel_ls.findings import Range
from easel_ls.model.text import TextDocument
from easel_ls.rules.context import FileKind, classify
from easel_ls.workspace import Workspace


@dataclass(frozen=True)
class Lens:
    """A line of text above ``range``; ``command`` (a client command id) runs on click."""

    range: Range
    title: str
    command: str = ""  # "" = a lens that only informs
    arguments: tuple[Any, ...] = field(default=())


@dataclass(frozen=True)
class LocationArg:
    """A location inside a lens argument (the adapter turns it into an LSP Location)."""

    path: Path
    range: Range


def code_lenses(ws: Workspace, doc: TextDocument) -> list[Lens]:
    kind, _skill = classify(ws, doc.path)
    if kind is FileKind.MANIFEST:
        from easel_ls.services.projects import manifest_lenses

        return manifest_lenses(ws, doc)
    if kind in (FileKind.SCRIPT, FileKind.SKILL, FileKind.REFERENCE):
        from easel_ls.services.graph import code_lenses as graph_lenses

        found = graph_lenses(ws, doc)
        if kind is FileKind.SKILL:
            from easel_ls.services.routing import cost_lens

            cost = cost_lens(ws, doc)
            if cost is not None:  # above the frontmatter: what the skill costs, layer by layer
                found = [*found, Lens(cost[0], cost[1])]
        return found
    return []
