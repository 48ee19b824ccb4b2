"""`easel-ls sync`, the spec's `openclaw/sync.sh`: `skills/openclaw/` and `skills/shared/` mirrored
into `~/.openclaw/workspace-easel/` (a temporary HOME here), `--dry-run`, `--delete` inside
the target only, atomic per file, refused while the check finds errors unless `--force`."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest
from cli_tools import environment, make_workspace, run

from easel_ls.sync import _copy

SKILL = "skills/openclaw/card-maker/SKILL.md"
SCRIPT = "skills/openclaw/card-maker/scripts/render.py"
SHARED = "skills/shared/scripts/stats.py"


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "ws").mkdir()
    root = make_workspace(tmp_path / "ws", script=True)
    shared = root / SHARED
    shared.parent.mkdir(parents=True)
    shared.write_text('"""Shared counts."""\nprint("stats")\n', encoding="utf-8")
    os.chmod(shared, 0o755)
    (root / "skills/openclaw/card-maker/scripts/__pycache__").mkdir()
    (root / "skills/openclaw/card-maker/scripts/__pycache__/render.cpython-311.pyc").write_bytes(
        b"\0"
    )
    (root / "outputs/春日").mkdir(parents=True)  # not synced
    (root / "outputs/春日/note.md").write_text("笔记\n", encoding="utf-8")
    return root


def sync(workspace: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`easel-ls sync` with HOME at ``home``: its default target is inside it."""
    return run("sync", *args, cwd=workspace, env=environment(HOME=str(home)))


def _tree(root: Path) -> dict[str, bytes]:
    if not root.exists():
        return {}
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_sync_mirrors_the_skills_into_openclaws_workspace(workspace: Path, home: Path) -> None:
    result = sync(workspace, home)
    assert result.returncode == 0, result.stdout + result.stderr
    target = home / ".openclaw/workspace-easel"
    assert result.stdout.splitlines() == [
        f"+ {SKILL}",
        f"+ {SCRIPT}",
        "+ skills/openclaw/xhs-publish/SKILL.md",
        f"+ {SHARED}",
        f"Synced skills/openclaw/ and skills/shared/ to {target}: "
        "4 added, 0 changed, 0 deleted, 0 unchanged.",
    ]
    # The same paths as in the workspace, so `python skills/shared/scripts/…` works there.
    synced = {
        name: data
        for name, data in _tree(workspace).items()
        if name.startswith("skills/") and "__pycache__" not in name
    }
    assert _tree(target) == synced
    assert stat.S_IMODE((target / SHARED).stat().st_mode) == 0o755  # still executable
    assert not (target / "outputs").exists()

    again = sync(workspace, home)
    assert again.stdout.endswith("0 added, 0 changed, 0 deleted, 4 unchanged.\n")


def test_dry_run_lists_the_changes_and_writes_nothing(workspace: Path, home: Path) -> None:
    assert sync(workspace, home).returncode == 0
    target = home / ".openclaw/workspace-easel"
    before = _tree(target)
    (workspace / SKILL).write_text((workspace / SKILL).read_text("utf-8") + "\n补充。\n", "utf-8")
    (workspace / "skills/openclaw/card-maker/references").mkdir()
    (workspace / "skills/openclaw/card-maker/references/new.md").write_text("# 新\n", "utf-8")
    result = sync(workspace, home, "--dry-run")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[:2] == [
        f"~ {SKILL}",
        "+ skills/openclaw/card-maker/references/new.md",
    ]
    assert result.stdout.splitlines()[-1].endswith(
        "1 added, 1 changed, 0 deleted, 3 unchanged. Nothing was written (--dry-run)."
    )
    assert _tree(target) == before


def test_files_only_in_the_target_are_kept_unless_delete(workspace: Path, home: Path) -> None:
    target = home / ".openclaw/workspace-easel"
    stale = target / "skills/openclaw/old-skill/SKILL.md"
    stale.parent.mkdir(parents=True)
    stale.write_text("旧\n", encoding="utf-8")
    own = target / "AGENTS.md"  # OpenClaw's own files beside the skills
    own.write_text("agents\n", encoding="utf-8")
    outside = home / "precious.txt"
    outside.write_text("keep\n", encoding="utf-8")

    kept = sync(workspace, home)
    assert "? skills/openclaw/old-skill/SKILL.md" in kept.stdout.splitlines()
    assert kept.stdout.endswith("1 only in the target (kept; --delete removes them).\n")
    assert stale.exists()

    preview = sync(workspace, home, "--delete", "--dry-run")
    assert "- skills/openclaw/old-skill/SKILL.md" in preview.stdout.splitlines()
    assert stale.exists()

    deleted = sync(workspace, home, "--delete")
    assert deleted.returncode == 0, deleted.stderr
    assert "0 added, 0 changed, 1 deleted, 4 unchanged." in deleted.stdout
    assert not stale.exists() and not stale.parent.exists()  # the emptied folder goes too
    assert own.read_text(encoding="utf-8") == "agents\n"
    assert outside.read_text(encoding="utf-8") == "keep\n"


def test_a_symbolic_link_out_of_the_target_stops_the_sync(workspace: Path, home: Path) -> None:
    elsewhere = home.parent / "elsewhere"
    elsewhere.mkdir()
    target = home / ".openclaw/workspace-easel"
    target.mkdir(parents=True)
    (target / "skills").symlink_to(elsewhere, target_is_directory=True)
    result = sync(workspace, home, "--delete")
    assert result.returncode == 2
    assert "leads outside the target through a symbolic link" in result.stderr
    assert list(elsewhere.iterdir()) == []


def test_errors_refuse_the_sync_unless_forced(workspace: Path, home: Path) -> None:
    script = workspace / SCRIPT
    script.write_text(script.read_text("utf-8").replace('"--size"', '"--sise"'), "utf-8")
    target = home / ".openclaw/workspace-easel"

    refused = sync(workspace, home)
    assert refused.returncode == 1
    assert f"{SKILL}:23:60: CM002 unknown option `--size` for `render`" in refused.stderr
    assert "refusing to sync: `easel-ls check` finds 1 error" in refused.stderr
    assert "--force" in refused.stderr
    assert refused.stdout == "" and not target.exists()

    preview = sync(workspace, home, "--dry-run")
    assert preview.returncode == 1 and f"+ {SKILL}" in preview.stdout
    assert not target.exists()

    forced = sync(workspace, home, "--force")
    assert forced.returncode == 0
    assert "syncing despite 1 error (--force)" in forced.stderr
    assert (target / SCRIPT).read_bytes() == script.read_bytes()


@pytest.mark.parametrize(
    ("target", "message"),
    [(".", "is the workspace itself"), ("skills/openclaw", "inside the workspace's own skills/")],
)
def test_a_target_inside_the_skills_is_refused(
    workspace: Path, home: Path, target: str, message: str
) -> None:
    before = _tree(workspace)
    result = sync(workspace, home, "--target", target)
    assert result.returncode == 2 and message in result.stderr
    assert _tree(workspace) == before


def test_a_custom_target(workspace: Path, home: Path, tmp_path: Path) -> None:
    result = sync(workspace, home, "--target", str(tmp_path / "elsewhere"))
    assert result.returncode == 0
    assert (tmp_path / "elsewhere" / SKILL).read_bytes() == (workspace / SKILL).read_bytes()
    assert not (home / ".openclaw").exists()


def test_each_file_is_replaced_in_one_rename(tmp_path: Path) -> None:
    source, dest = tmp_path / "a.md", tmp_path / "target" / "a.md"
    source.write_bytes("新内容\r\n".encode())
    dest.parent.mkdir()
    dest.write_bytes(b"old")
    inode = dest.stat().st_ino
    _copy(source, dest)
    assert dest.read_bytes() == source.read_bytes()
    assert dest.stat().st_ino != inode  # a new file renamed over the old one, not rewritten
    assert sorted(p.name for p in dest.parent.iterdir()) == ["a.md"]  # no temporary left
