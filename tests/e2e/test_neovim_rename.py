"""Neovim end to end for renaming an option: Debian's Neovim 0.7.2, headless, starts easel-ls with
vim.lsp.start_client on the note-digest script (neovim/rename.lua), lists the option's references,
runs `vim.lsp.buf.rename("--subject")` on collect's `--topic` and writes every buffer with :wall.
The files on disk must then hold exactly the renamed option: every `collect --topic` and the
`collect --top` abbreviation in SKILL.md and references/usage.md become `collect --subject`,
`summarize --topic` (another subcommand's option of the same name) stays, and nothing else in
those files changes."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from e2e_tools import E2E_DIR, skip_missing
from test_neovim import NVIM_FLAGS, isolated_env

SKILL_DIR = "skills/openclaw/note-digest"
SCRIPT = f"{SKILL_DIR}/scripts/digest.py"
SKILL = f"{SKILL_DIR}/SKILL.md"
REFERENCE = f"{SKILL_DIR}/references/usage.md"


def renamed_docs(text: str) -> str:
    """What a correct rename of collect's --topic to --subject makes of a Markdown file."""
    out = text.replace("collect --topic ", "collect --subject ").replace(
        "collect --top ", "collect --subject "
    )
    assert out != text, "the fixture no longer uses collect --topic"
    return out


def test_neovim_rename_option_updates_skill_md_on_disk(workspace: Path, easel_ls_bin: Path) -> None:
    nvim = shutil.which("nvim")
    if nvim is None:
        skip_missing("neovim")
    before = {rel: (workspace / rel).read_text(encoding="utf-8") for rel in (SKILL, REFERENCE)}
    script_before = (workspace / SCRIPT).read_text(encoding="utf-8")
    ran = subprocess.run(
        [nvim or "nvim", *NVIM_FLAGS, "-c", f"luafile {E2E_DIR / 'neovim' / 'rename.lua'}", SCRIPT],
        cwd=workspace,
        env=isolated_env(
            workspace.parent,
            EASEL_LS=str(easel_ls_bin / "easel-ls"),
            RENAME_FROM="--topic",
            RENAME_TO="--subject",
        ),
        capture_output=True,
        text=True,
        timeout=120,
    )
    print(ran.stdout)
    assert ran.returncode == 0 and "ALL OK" in ran.stdout, ran.stdout + ran.stderr[-3000:]

    for rel, text in before.items():
        assert (workspace / rel).read_text(encoding="utf-8") == renamed_docs(text), rel
    script = (workspace / SCRIPT).read_text(encoding="utf-8")
    assert 'collect.add_argument("--subject"' in script
    assert 'summarize.add_argument("--topic"' in script
    assert script.count('"--topic"') == script_before.count('"--topic"') - 1
