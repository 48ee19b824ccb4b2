"""What `easel-ls check` imports, read from `python -X importtime`: only the report format it
prints, jsonschema only for a manifest that is not plainly valid, never pygls, and the whole
import time within a budget (loose: a shared CI machine is slow and noisy; a regression that
imports a heavy library again still shows)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# Total import time of every module `check` loads (interpreter start-up excluded), in ms. It is
# about 60-80 ms on the project's 2-core machine.
BUDGET_MS = 400

SKILL = """\
---
name: demo
description: >-
  把笔记做成卡片。适用场景：用户说“做卡片”。不负责写文案。
layer: produce
---

# 卡片

## 输入

- 主题

## 输出

- 卡片

## 执行步骤

1. 排版

## Profile 感知

- 按画像配色。
"""
MANIFEST = {"topic": "春日", "kind": "xhs-note", "status": "draft", "deliverables": ["note.md"]}


def _workspace(root: Path, manifest: object) -> None:
    (root / "easel-ls.toml").write_text("", "utf-8")
    skill = root / "skills" / "openclaw" / "demo"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL, "utf-8")
    project = root / "outputs" / "春日"
    project.mkdir(parents=True)
    (project / "note.md").write_text("# 春日\n", "utf-8")
    (project / ".easel.json").write_text(json.dumps(manifest, ensure_ascii=False), "utf-8")


def _imports(root: Path, fmt: str, *extra: str) -> dict[str, int]:
    """Module -> its own import time in µs, for a cold `check` of ``root``."""
    argv = ["check", str(root), "--output-format", fmt, "--exit-zero", "--no-cache", *extra]
    probe = f"from easel_ls.cli import main; main({argv!r})"
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", probe],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    times: dict[str, int] = {}
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        own, _, name = line.removeprefix("import time:").split("|")
        if own.strip().isdigit():
            times[name.strip()] = int(own)
    assert "easel_ls.cli" in times, done.stderr[-2000:]
    return times


@pytest.mark.parametrize("fmt", ["concise", "json"])
def test_check_imports_little(tmp_path: Path, fmt: str) -> None:
    _workspace(tmp_path, MANIFEST)
    times = _imports(tmp_path, fmt)
    loaded = set(times)
    assert not {m for m in loaded if m.split(".")[0] in ("pygls", "lsprotocol", "jsonschema")}
    # Content hashes come from _blake2 itself: hashlib would load OpenSSL (2 ms) for nothing.
    assert not loaded & {"hashlib", "_hashlib"}
    formats = {m for m in loaded if m.startswith("easel_ls.report.")}
    expected = "easel_ls.report.concise" if fmt == "concise" else "easel_ls.report.json_format"
    assert expected in formats
    assert not formats & {
        "easel_ls.report.sarif",
        "easel_ls.report.junit",
        "easel_ls.report.github",
    }
    total_ms = sum(times.values()) / 1000
    assert total_ms < BUDGET_MS, sorted(times.items(), key=lambda kv: -kv[1])[:15]


def test_an_invalid_manifest_still_gets_jsonschema(tmp_path: Path) -> None:
    _workspace(tmp_path, {**MANIFEST, "status": "finished"})
    assert "jsonschema" in _imports(tmp_path, "concise")


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="workers are forked only here")
def test_a_parallel_check_forks_its_workers_without_multiprocessing(tmp_path: Path) -> None:
    # Forked by hand: no executor, queues or threads to import (a fifth of a small run).
    _workspace(tmp_path, MANIFEST)
    loaded = set(_imports(tmp_path, "concise", "--jobs", "2"))
    assert not {m for m in loaded if m.split(".")[0] in ("multiprocessing", "concurrent")}
    assert not {m for m in loaded if m.split(".")[0] in ("pygls", "lsprotocol", "jsonschema")}
