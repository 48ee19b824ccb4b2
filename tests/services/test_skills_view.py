"""The skills view service: every skill with its layer from the frontmatter, its scripts,
references and tests, and finding counts by severity over those files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from easel_ls.config import ConfigResolver
from easel_ls.findings import Finding, Range, Severity
from easel_ls.services.skills_view import list_skills
from easel_ls.workspace import Workspace

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "views"


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    root = Path(shutil.copytree(FIXTURE, tmp_path / "ws")).resolve()
    return Workspace(root=root, config=ConfigResolver(stop_at=root))


def test_skills_in_pipeline_order_unknown_layers_last(ws: Workspace) -> None:
    views = list_skills(ws)
    assert [(v.name, v.layer) for v in views] == [
        ("topic-scout", "discover"),
        ("brief-writer", "plan"),
        ("card-maker", "produce"),
        ("xhs-publish", "publish"),
        ("data-review", "attribute"),
        ("profile-keeper", "general"),
        ("broken-skill", None),
    ]
    assert views[-1].layer_text == "produc"


def test_counts_come_from_the_engine_by_default(ws: Workspace) -> None:
    broken = next(v for v in list_skills(ws) if v.name == "broken-skill")
    assert broken.findings == {"error": 3, "warning": 4, "information": 0, "hint": 0}


def test_counts_cover_scripts_references_and_tests_through_the_lookup(ws: Workspace) -> None:
    asked: list[Path] = []

    def lookup(path: Path) -> list[Finding]:
        asked.append(path)
        if path.suffix == ".py":
            return [
                Finding("CM002", "x", Severity.INFO, "m", path, Range.line_start(0)),
                # A finding about another file (a related report) is not this file's.
                Finding("CM002", "x", Severity.ERROR, "m", ws.root / "x.py", Range.line_start(0)),
            ]
        return []

    card = next(v for v in list_skills(ws, lookup) if v.name == "card-maker")
    folder = ws.root / "skills/openclaw/card-maker"
    assert card.scripts == [folder / "scripts/render.py"]
    assert card.tests == [folder / "tests/test1.expected", folder / "tests/test1.prompt"]
    assert set(card.files) <= set(asked)
    assert card.findings == {"error": 0, "warning": 0, "information": 1, "hint": 0}


def test_a_missing_or_unparsable_frontmatter_has_no_layer(ws: Workspace) -> None:
    skill_md = ws.root / "skills/openclaw/topic-scout/SKILL.md"
    skill_md.write_text("---\nname: [unclosed\nlayer: discover\n---\n# x\n", encoding="utf-8")
    plain = ws.root / "skills/openclaw/no-frontmatter/SKILL.md"
    plain.parent.mkdir()
    plain.write_text("# 没有 frontmatter\n", encoding="utf-8")
    ws.forget(plain)
    views = {v.name: v for v in list_skills(ws)}
    assert views["topic-scout"].layer is None and views["topic-scout"].description is None
    assert views["no-frontmatter"].layer is None and views["no-frontmatter"].layer_text is None


def test_description_whitespace_is_folded(ws: Workspace) -> None:
    brief = next(v for v in list_skills(ws) if v.name == "brief-writer")
    assert brief.description is not None and "\n" not in brief.description
    assert brief.description.startswith("brief-writer 的示例技能")
