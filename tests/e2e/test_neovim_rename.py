"""Neovim end to end for renaming an option: Debian's Neovim 0.7.2, headless, starts easel-ls with
vim.lsp.start_client on the note-digest script (neovim/rename.lua), lists the option's references,
runs `vim.lsp.buf.rename("--subject")` on collect's `--topic` and writes every buffer with :wall.
The files on disk must then hold exactly the renamed option (rename_fixture.py says what that is)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from e2e_tools import E2E_DIR, skip_missing
from rename_fixture import NEW, OLD, SCRIPT, assert_renamed_on_disk, snapshot
from test_neovim import NVIM_FLAGS, isolated_env


def test_neovim_rename_option_updates_skill_md_on_disk(workspace: Path, easel_ls_bin: Path) -> None:
    nvim = shutil.which("nvim")
    if nvim is None:
        skip_missing("neovim")
    before = snapshot(workspace, easel_ls_bin)
    ran = subprocess.run(
        [nvim or "nvim", *NVIM_FLAGS, "-c", f"luafile {E2E_DIR / 'neovim' / 'rename.lua'}", SCRIPT],
        cwd=workspace,
        env=isolated_env(
            workspace.parent,
            EASEL_LS=str(easel_ls_bin / "easel-ls"),
            RENAME_FROM=OLD,
            RENAME_TO=NEW,
        ),
        capture_output=True,
        text=True,
        timeout=120,
    )
    print(ran.stdout)
    assert ran.returncode == 0 and "ALL OK" in ran.stdout, ran.stdout + ran.stderr[-3000:]
    assert_renamed_on_disk(workspace, easel_ls_bin, before)
