"""VS Code end to end for the script <-> docs graph (issue #15), in code-server with the built .vsix
(vscode/drive_rename.js) on the note-digest skill: the code lens above collect's
`add_argument("--topic")` reads "4 commands in 1 skill" and its click opens the references peek,
Shift+F12 on the option lists the SKILL.md and reference uses, F2 renames it to `--subject`, and
after File: Save All the files on disk hold exactly the renamed option (rename_fixture.py says
what that is: the `--top` abbreviation becomes `--subject` too, `summarize --topic` stays, nothing
else changes, and `easel-ls check` finds what it found before).

Screenshots go to $EASEL_E2E_SCREENSHOTS (default: the test's temp dir): vscode-codelens.png,
vscode-rename.png, and vscode-failure.png when a step fails. The extension README uses them:
`EASEL_E2E_SCREENSHOTS=vscode-extension/media pytest tests/e2e/test_vscode_rename.py`."""

from __future__ import annotations

from pathlib import Path

from rename_fixture import assert_renamed_on_disk, snapshot
from vscode_harness import profile, run_driver, vscode_url  # noqa: F401 (pytest fixtures)


def test_vscode_code_lens_references_and_rename_option_on_disk(
    vscode_url: str,  # noqa: F811
    profile: Path,  # noqa: F811
    workspace: Path,
    easel_ls_bin: Path,
) -> None:
    before = snapshot(workspace, easel_ls_bin)
    run_driver("drive_rename.js", vscode_url, profile, workspace, timeout=180)
    assert_renamed_on_disk(workspace, easel_ls_bin, before)
