"""What the editor rename tests (test_neovim_rename.py, test_vscode_rename.py) do to the fixture's
note-digest skill, and how they check the result on disk: collect's `--topic` becomes
`--subject`; every `collect --topic` and the `collect --top` abbreviation in SKILL.md and
references/usage.md become `collect --subject`, `summarize --topic` (another subcommand's option
of the same name) stays, nothing else in those files changes, the script still parses the docs'
commands, and `easel-ls check` finds exactly what it found before."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

SKILL_DIR = "skills/openclaw/note-digest"
SCRIPT = f"{SKILL_DIR}/scripts/digest.py"
SKILL = f"{SKILL_DIR}/SKILL.md"
REFERENCE = f"{SKILL_DIR}/references/usage.md"
OLD, NEW = "--topic", "--subject"
DOCS = (SKILL, REFERENCE)
FINDING = re.compile(r"^(?P<path>[^:\s]+):\d+:\d+: (?P<code>[A-Z]+\d+) ", re.MULTILINE)


def renamed_docs(text: str) -> str:
    """What a correct rename of collect's --topic to --subject makes of a Markdown file."""
    out = text.replace(f"collect {OLD} ", f"collect {NEW} ").replace(
        "collect --top ", f"collect {NEW} "
    )
    assert out != text, "the fixture no longer uses collect --topic"
    return out


def findings(workspace: Path, easel_ls_bin: Path) -> Counter[tuple[str, str]]:
    """(path, code) of every finding `easel-ls check` reports on the workspace."""
    ran = subprocess.run(
        [str(easel_ls_bin / "easel-ls"), "check", "--no-cache", "--output-format", "concise", "."],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode in (0, 1), ran.stdout + ran.stderr
    return Counter((m["path"], m["code"]) for m in FINDING.finditer(ran.stdout))


def snapshot(workspace: Path, easel_ls_bin: Path) -> dict[str, object]:
    """The docs' text and the workspace's findings before the editor runs."""
    return {
        "docs": {rel: (workspace / rel).read_text(encoding="utf-8") for rel in DOCS},
        "findings": findings(workspace, easel_ls_bin),
    }


def assert_renamed_on_disk(workspace: Path, easel_ls_bin: Path, before: dict[str, object]) -> None:
    docs = before["docs"]
    assert isinstance(docs, dict)
    for rel, text in docs.items():
        assert (workspace / rel).read_text(encoding="utf-8") == renamed_docs(text), rel
    script = (workspace / SCRIPT).read_text(encoding="utf-8")
    assert f'collect.add_argument("{NEW}"' in script
    assert f'summarize.add_argument("{OLD}"' in script
    # The renamed script accepts the docs' new command and no longer the old option.
    for args, code in ((["collect", NEW, "spring-picnic"], 0), (["collect", OLD, "x"], 2)):
        ran = subprocess.run(
            [sys.executable, SCRIPT, *args], cwd=workspace, capture_output=True, text=True
        )
        assert ran.returncode == code, (args, ran.stdout, ran.stderr)
    assert findings(workspace, easel_ls_bin) == before["findings"]
