"""Media deliverables under `outputs/` are normal files (no EZ004), and OP007's folder move is a
real, atomic rename applied by `--fix --unsafe-fixes`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

FIXTURE = Path(__file__).parent / "fixtures" / "outputs"
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00" * 32


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "easel_ls", "--check", "--no-cache", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_images_in_a_project_are_not_unreadable_files(tmp_path: Path) -> None:
    project = tmp_path / "outputs" / "春日穿搭"
    project.mkdir(parents=True)
    (project / "cover.png").write_bytes(PNG)
    (project / ".easel.json").write_text(
        json.dumps({"topic": "春日穿搭", "deliverables": ["cover.png"], "cover": "cover.png"}),
        encoding="utf-8",
    )
    (tmp_path / "outputs" / "stray.png").write_bytes(PNG)
    (tmp_path / "easel-ls.toml").write_text("", encoding="utf-8")
    result = run(tmp_path, "--output-format", "json")
    codes = sorted((f["filename"], f["code"]) for f in json.loads(result.stdout))
    assert codes == [("outputs/stray.png", "OP003")], result.stdout


def test_fix_moves_an_intermediate_folder_into_assets(tmp_path: Path) -> None:
    shutil.copytree(FIXTURE, tmp_path / "ws")
    ws = tmp_path / "ws"
    project = ws / "outputs" / "春日穿搭"
    frames = sorted(p.name for p in (project / "frames").iterdir())
    run(ws, "--fix", "--unsafe-fixes", "--select", "OP007")
    assert not (project / "frames").exists()
    assert sorted(p.name for p in (project / "assets" / "frames").iterdir()) == frames
    diff = run(ws, "--diff", "--unsafe-fixes", "--select", "OP007")
    assert diff.stdout == ""  # nothing left to move
