"""Which folders hold Easel skills: `skills/openclaw/` (the spec's), and any other
`skills/<group>/` where a SKILL.md says which layer it is in (a repository may name its group
after itself). A group of skills kept in the form their own projects ship them, with no
`layer` anywhere, is not checked as Easel skills; `skill-roots` names the groups outright."""

from __future__ import annotations

from pathlib import Path

from easel_ls.batch import check_paths
from easel_ls.config import ConfigResolver
from easel_ls.workspace import Workspace

EASEL = (
    "---\nname: {name}\ndescription: >-\n  把选题整理成清单。当用户说“整理选题”时使用；"
    "不负责写正文，正文交给写作技能。\nlayer: plan\n---\n\n# 清单\n\n见 [缺的](missing.md)。\n"
)
UPSTREAM = (
    "---\nname: {name}\ndescription: Queue posts from the command line.\n---\n\n"
    "# Queue\n\nSee [notes](missing.md).\n"
)


def _workspace(root: Path, config: str = "") -> Workspace:
    files = {
        "skills/openclaw/planner/SKILL.md": EASEL.format(name="planner"),
        "skills/studio/sorter/SKILL.md": EASEL.format(name="sorter"),
        "skills/vendor/queue/SKILL.md": UPSTREAM.format(name="queue"),
        "skills/vendor/queue/references/usage.md": "# Usage\n\nSee [more](gone.md).\n",
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    (root / "easel-ls.toml").write_text(config, "utf-8")
    return Workspace(root=root.resolve(), config=ConfigResolver(stop_at=root.resolve()))


def _reported(ws: Workspace) -> set[str]:
    return {
        f.path.relative_to(ws.root).parts[1]
        for f in check_paths(ws, [ws.root])
        if f.code == "RS001"
    }


def test_a_group_whose_skills_declare_a_layer_holds_easel_skills(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    assert sorted(ws.skills) == ["planner", "sorter"]
    assert _reported(ws) == {"openclaw", "studio"}  # both broken links found


def test_skills_kept_in_their_upstream_form_are_not_checked(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    assert ws.skill_of(ws.root / "skills/vendor/queue/references/usage.md") is None
    assert "vendor" not in _reported(ws)


def test_skill_roots_names_the_groups_outright(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, 'skill-roots = ["skills/openclaw", "skills/vendor"]\n')
    assert sorted(ws.skills) == ["planner", "queue"]
    assert _reported(ws) == {"openclaw", "vendor"}
