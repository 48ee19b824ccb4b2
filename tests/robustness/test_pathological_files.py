"""Pathological files get a clear diagnostic in bounded time, and nothing outside the workspace
is ever read (each file is generated in a temporary folder; nothing big is committed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from robustness_inputs import SHARED_TOOL, SKILL, TOOL, make_workspace

from easel_ls.batch import check_paths
from easel_ls.engine import check_path
from easel_ls.findings import Finding
from easel_ls.model.text import TextDocument
from easel_ls.workspace import Workspace

# Generous bound for one file on this machine; measured times are in docs/robustness.md.
BOUND_S = 10.0

HEAD = "---\nname: x\ndescription: d\nlayer: plan\n---\n# x\n"


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return make_workspace(tmp_path / "ws")


def timed_check(ws: Workspace, relpath: str, content: str | bytes) -> tuple[list[Finding], float]:
    path = ws.root / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", newline="")
    ws.forget(path)
    started = time.perf_counter()
    findings = check_path(ws, path)
    took = time.perf_counter() - started
    assert took < BOUND_S, f"{relpath}: {took:.1f}s"
    for finding in findings:
        assert finding.code != "EZ003", finding.message
    return findings, took


def codes(findings: list[Finding]) -> set[str]:
    return {f.code for f in findings}


def test_a_50_mb_skill_md_is_skipped_with_ez004_without_being_read(ws: Workspace) -> None:
    path = ws.root / SKILL
    with path.open("w", encoding="utf-8") as handle:
        handle.write(HEAD)
        chunk = "长文本 long text\n" * 4096
        while handle.tell() < 50 * 1024 * 1024:
            handle.write(chunk)
    ws.forget(path)
    started = time.perf_counter()
    findings = check_path(ws, path)
    assert time.perf_counter() - started < 1.0  # the size is checked before reading
    [finding] = findings
    assert finding.code == "EZ004"
    assert "over the 5242880-byte limit" in finding.message
    assert finding.range.start.line == 0


def test_a_100_000_line_script_is_analysed_in_bounded_time(ws: Workspace) -> None:
    lines = ["import argparse", "parser = argparse.ArgumentParser()"]
    lines += [f'parser.add_argument("--option-{i}", help="第 {i} 个")' for i in range(50_000)]
    lines += [f"value_{i} = {i}  # padding" for i in range(50_000)]
    lines += ["parser.parse_args()"]
    script = "skills/openclaw/x/scripts/huge.py"
    findings, _ = timed_check(ws, script, "\n".join(lines) + "\n")
    assert "EZ004" not in codes(findings)  # about 4 MB: under the limit, so really analysed
    skill = HEAD + f"```bash\npython {script} --option-49999 x --option-5000O y\n```\n"
    calling, _ = timed_check(ws, SKILL, skill)
    assert [f.message for f in calling if f.code == "CM002"], codes(calling)


def test_deeply_nested_flow_yaml_is_a_frontmatter_error(ws: Workspace) -> None:
    findings, _ = timed_check(ws, SKILL, "---\nname: x\nmetadata: " + "[" * 50_000 + "\n---\n")
    assert "FM002" in codes(findings)


def test_deeply_nested_block_yaml_is_analysed(ws: Workspace) -> None:
    nested = "".join("  " * (i + 1) + f"k{i}:\n" for i in range(2_000))
    findings, _ = timed_check(ws, SKILL, f"---\nname: x\nmetadata:\n{nested}---\n")
    assert "EZ004" not in codes(findings)


def test_a_billion_laughs_alias_bomb_is_not_expanded(ws: Workspace) -> None:
    levels = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        levels.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
    bomb = "---\nname: x\n" + "\n".join(levels) + "\ndescription: *i\n---\n"
    findings, took = timed_check(ws, SKILL, bomb)
    assert took < 2.0  # 9**9 nodes if expanded
    assert {"FM004", "FM006"} & codes(findings)


def test_deeply_nested_easel_json_is_a_syntax_error(ws: Workspace) -> None:
    findings, _ = timed_check(ws, "outputs/topic/.easel.json", "[" * 100_000 + "]" * 100_000)
    assert findings and all(f.code.startswith("MF") for f in findings), codes(findings)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"---\nname: x\n---\n\xff\xfe broken", "not valid UTF-8 (byte offset 16)"),
        (b"---\nname: x\n---\n\x00\x00", "contains NUL bytes"),
        ("---\nname: x\n---\n".encode("utf-16"), "NUL bytes"),
    ],
    ids=["invalid utf-8", "nul bytes", "utf-16"],
)
def test_undecodable_files_are_skipped_with_ez004(
    ws: Workspace, content: bytes, reason: str
) -> None:
    findings, _ = timed_check(ws, SKILL, content)
    [finding] = findings
    assert finding.code == "EZ004"
    assert reason in finding.message


@pytest.mark.parametrize(
    "newline", ["\r\n", "\r", "mixed"], ids=["crlf", "cr", "mixed line endings"]
)
def test_line_endings_keep_diagnostics_on_the_right_line(ws: Workspace, newline: str) -> None:
    lines = [*HEAD.splitlines(), "", "[broken](references/missing.md)", "", "end"]
    if newline == "mixed":
        text = "".join(line + ("\r\n", "\n", "\r")[i % 3] for i, line in enumerate(lines))
    else:
        text = newline.join(lines) + newline
    findings, _ = timed_check(ws, SKILL, text)
    doc = TextDocument(ws.root / SKILL, text)
    [broken] = [f for f in findings if f.code == "RS001"]
    assert broken.range.start.line == lines.index("[broken](references/missing.md)")
    for finding in findings:
        assert doc.contains(finding.range)


def test_a_bom_is_ignored(ws: Workspace) -> None:
    plain, _ = timed_check(ws, SKILL, HEAD + "[broken](references/missing.md)\n")
    with_bom, _ = timed_check(ws, SKILL, "\ufeff" + HEAD + "[broken](references/missing.md)\n")
    assert [(f.code, f.range) for f in with_bom] == [(f.code, f.range) for f in plain]
    assert "FM001" not in codes(with_bom)


def test_symlink_loops_end_with_a_clear_result(ws: Workspace) -> None:
    folder = ws.root / "skills/openclaw/x"
    (folder / "references/self.md").symlink_to("self.md")
    (folder / "references/a.md").symlink_to("b.md")
    (folder / "references/b.md").symlink_to("a.md")
    (folder / "loop").symlink_to(".", target_is_directory=True)
    (folder / "scripts/looped.py").symlink_to("looped.py")
    text = (
        HEAD
        + "[s](references/self.md) [a](references/a.md)\n```bash\npython scripts/looped.py\n```\n"
    )
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    started = time.perf_counter()
    findings = list(check_paths(ws, [ws.root]))
    assert time.perf_counter() - started < BOUND_S
    by_file = {(ws.rel(f.path), f.code) for f in findings}
    for name in ("self.md", "a.md", "b.md"):
        assert (f"skills/openclaw/x/references/{name}", "EZ004") in by_file, by_file
    assert ("skills/openclaw/x/scripts/looped.py", "EZ004") in by_file, by_file
    assert not [f for f in findings if f.code == "EZ003"]


OUTSIDE_READS = """
import json, sys
from pathlib import Path
outside = str(Path(sys.argv[2]).resolve())
reads = []
def hook(event, args):
    if event == "open" and args and isinstance(args[0], (str, bytes)):
        name = args[0].decode() if isinstance(args[0], bytes) else args[0]
        if str(Path(name).resolve()).startswith(outside):
            reads.append(name)
sys.addaudithook(hook)
from easel_ls.batch import check_paths
from easel_ls.config import ConfigResolver
from easel_ls.workspace import Workspace
root = Path(sys.argv[1]).resolve()
ws = Workspace(root=root, config=ConfigResolver(stop_at=root))
findings = [(ws.rel(f.path), f.code, f.message) for f in check_paths(ws, [root])]
print(json.dumps({"reads": reads, "findings": findings}))
"""


def test_paths_that_escape_the_workspace_are_reported_and_never_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# secret\n", encoding="utf-8")
    (outside / "secret.py").write_text(TOOL, encoding="utf-8")
    ws = make_workspace(tmp_path / "ws")
    folder = ws.root / "skills/openclaw/x"
    (folder / "references/leak.md").symlink_to(outside / "secret.md")
    (folder / "scripts/leak.py").symlink_to(outside / "secret.py")
    (folder / "references/leakdir").symlink_to(outside, target_is_directory=True)
    (folder / "SKILL.md").write_text(
        HEAD
        + "[up](../../../../outside/secret.md) [abs]("
        + str(outside / "secret.md")
        + ") [sym](references/leak.md) [dir](references/leakdir/secret.md)\n"
        + "```bash\n"
        + "python ../../../../outside/secret.py run\n"
        + f"python {outside / 'secret.py'} run\n"
        + "python scripts/leak.py run\n"
        + f"python {SHARED_TOOL} run --topic t\n"
        + "```\n",
        encoding="utf-8",
    )
    result = subprocess.run(
        [sys.executable, "-c", OUTSIDE_READS, str(ws.root), str(outside)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["reads"] == []
    escapes = [m for rel, code, m in report["findings"] if code == "RS005"]
    for target in (
        "../../../../outside/secret.md",
        str(outside / "secret.md"),
        "references/leak.md",
        "references/leakdir/secret.md",
        "../../../../outside/secret.py",
        str(outside / "secret.py"),
        "scripts/leak.py",
    ):
        assert any(f"`{target}`" in m for m in escapes), (target, escapes)
