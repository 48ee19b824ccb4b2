"""Neovim end to end: Debian's Neovim 0.7.2, headless, starts easel-ls with vim.lsp.start_client on
the fixture workspace (neovim/e2e.lua). CM002 sits on the drifted option, its code action offers
the right flag, completion in a command offers that subcommand's option, and go-to-definition
on an option lands on its add_argument line."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from e2e_tools import E2E_DIR, skip_missing

SKILL = "skills/openclaw/card-maker/SKILL.md"
# No user config, no shada file, no swap file: nothing is read from or written to $HOME.
NVIM_FLAGS = ("--headless", "-u", "NONE", "-i", "NONE", "-n")


def isolated_env(home: Path, **extra: str) -> dict[str, str]:
    """Neovim's state, cache and lsp.log go to a temporary home, not the user's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    return {**env, "HOME": str(home), **extra}


def test_neovim_diagnostics_code_action_completion_and_definition(
    workspace: Path, easel_ls_bin: Path
) -> None:
    nvim = shutil.which("nvim")
    if nvim is None:
        skip_missing("neovim")
    script = E2E_DIR / "neovim" / "e2e.lua"
    ran = subprocess.run(
        [nvim or "nvim", *NVIM_FLAGS, "-c", f"luafile {script}", SKILL],
        cwd=workspace,
        env=isolated_env(workspace.parent, EASEL_LS=str(easel_ls_bin / "easel-ls")),
        capture_output=True,
        text=True,
        timeout=120,
    )
    print(ran.stdout)
    assert ran.returncode == 0, ran.stdout + ran.stderr[-3000:]
    assert "ALL OK" in ran.stdout
    assert "FAIL" not in ran.stdout
