"""A repository holding a second workspace inside it (a test fixture with a skill of the same
name as one of the repository's): checking from the top must not mix the two skills up."""

from __future__ import annotations

from pathlib import Path

from easel_ls.batch import check_paths
from easel_ls.config import ConfigResolver
from easel_ls.rules.context import FileKind, classify
from easel_ls.workspace import Workspace

SKILL = """---
name: card-maker
description: 做卡片。当用户说"做卡片"时使用；只负责出图，不负责发布。
layer: produce
---
# 卡片
"""


def test_a_nested_skill_of_the_same_name_is_its_own_skill(tmp_path: Path) -> None:
    outer = tmp_path / "skills" / "openclaw" / "card-maker"
    inner = tmp_path / "tests" / "fixture" / "skills" / "openclaw" / "card-maker"
    for folder in (outer, inner):
        (folder / "references").mkdir(parents=True)
        (folder / "SKILL.md").write_text(SKILL, encoding="utf-8")
    (inner / "references" / "notes.md").write_text("# 说明\n", encoding="utf-8")
    ws = Workspace(root=tmp_path, config=ConfigResolver(stop_at=tmp_path))
    kind, skill = classify(ws, inner / "SKILL.md")
    assert kind is FileKind.SKILL and skill is not None and skill.folder == inner
    kind, skill = classify(ws, inner / "references" / "notes.md")
    assert kind is FileKind.REFERENCE and skill is not None and skill.folder == inner
    list(check_paths(ws, [tmp_path]))  # no exception from the nested tree
