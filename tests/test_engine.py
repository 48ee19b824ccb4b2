"""The engine: file classification, checking a document or a path, a failing rule isolated as
EZ003, and unreadable files reported as EZ004 and skipped."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from easel_ls import engine
from easel_ls.batch import check_paths
from easel_ls.config import ConfigResolver
from easel_ls.engine import check_document, check_path
from easel_ls.findings import Finding
from easel_ls.model.text import TextDocument
from easel_ls.rules import context
from easel_ls.rules.context import FileKind, classify
from easel_ls.workspace import Workspace

SKILL_DIR = "skills/openclaw/card-maker"
SKILL = f"{SKILL_DIR}/SKILL.md"
TYPO = "=== EASEL ACCOUNT PROFLE ==="
SKILL_TEXT = """\
---
name: card-maker
description: >-
  把小红书笔记文案做成一组图文卡片 🎨：按画像配色排版封面和内页，导出 PNG 到项目根目录。
  适用场景：用户说“做卡片”“出图”。导出前先预览排版效果。不负责写文案，也不处理发布。
layer: produce
---

# 卡片制作

## 输入

- 主题

## 输出（写入 outputs/<主题>/）

- 卡片

## 执行步骤

1. 排版

## Profile 感知

- 有 `=== EASEL ACCOUNT PROFILE ===` 时按画像配色。
"""


def build(tmp_path: Path, files: dict[str, str | bytes]) -> Workspace:
    for rel, content in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    root = tmp_path.resolve()
    return Workspace(root=root, config=ConfigResolver(stop_at=root))


def where(finding: Finding) -> tuple[str, int, int]:
    return (finding.code, finding.range.start.line, finding.range.start.character)


# -- classify --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rel", "kind", "in_skill"),
    [
        (SKILL, FileKind.SKILL, True),
        (f"{SKILL_DIR}/references/配色.md", FileKind.REFERENCE, True),
        (f"{SKILL_DIR}/references/deep/layout.md", FileKind.REFERENCE, True),
        (f"{SKILL_DIR}/scripts/render.py", FileKind.SCRIPT, True),
        (f"{SKILL_DIR}/scripts/setup.sh", FileKind.SCRIPT, True),
        (f"{SKILL_DIR}/tests/test1.prompt", FileKind.TEST, True),
        (f"{SKILL_DIR}/tests/test1.expected", FileKind.TEST, True),
        (f"{SKILL_DIR}/tests/data/x.prompt", FileKind.OTHER, True),
        (f"{SKILL_DIR}/assets/cover.png", FileKind.OTHER, True),
        (f"{SKILL_DIR}/EASEL-META.md", FileKind.OTHER, True),
        ("skills/shared/scripts/content_guard.py", FileKind.SCRIPT, False),
        ("outputs/春日穿搭/.easel.json", FileKind.MANIFEST, False),
        ("outputs/春日穿搭/note.md", FileKind.OUTPUT, False),
        ("README.md", FileKind.OTHER, False),
    ],
)
def test_classify(tmp_path: Path, rel: str, kind: FileKind, in_skill: bool) -> None:
    ws = build(tmp_path, {SKILL: SKILL_TEXT, rel: "x\n"} if rel != SKILL else {SKILL: SKILL_TEXT})
    found_kind, skill = classify(ws, ws.root / rel)
    assert found_kind is kind
    assert (skill is not None and skill.name == "card-maker") is in_skill


# -- check_document / check_path -------------------------------------------------------------


def test_clean_skill_has_no_findings(tmp_path: Path) -> None:
    ws = build(tmp_path, {SKILL: SKILL_TEXT})
    assert check_path(ws, ws.root / SKILL) == []


def test_check_document_reads_the_unsaved_buffer_not_the_disk(tmp_path: Path) -> None:
    ws = build(tmp_path, {SKILL: SKILL_TEXT})
    buffer = SKILL_TEXT + f"\n🎨 {TYPO}\n"
    findings = check_document(ws, TextDocument(ws.root / SKILL, buffer))
    assert [where(f) for f in findings] == [("BD003", buffer.count("\n") - 1, 2)]
    assert check_path(ws, ws.root / SKILL) == []


def test_findings_are_sorted_by_position(tmp_path: Path) -> None:
    text = SKILL_TEXT.replace("layer: produce", "layer: prodcue") + f"\n{TYPO}\n"
    ws = build(tmp_path, {SKILL: text})
    findings = check_path(ws, ws.root / SKILL)
    assert [f.code for f in findings] == ["FM008", "BD003"]
    assert findings == sorted(findings, key=lambda f: f.sort_key)


def test_check_paths_walks_a_folder_and_skips_files_of_no_kind(tmp_path: Path) -> None:
    ws = build(
        tmp_path,
        {
            SKILL: SKILL_TEXT,
            f"{SKILL_DIR}/tests/1.prompt": "做卡片\n",
            f"{SKILL_DIR}/assets/cover.png": b"\x89PNG\r\n\x1a\n\x00\x00",
        },
    )
    findings = list(check_paths(ws, [ws.root / "skills"]))
    assert [(f.code, f.path.name) for f in findings] == [("TS001", "1.prompt")]


# -- EZ003 internal-error --------------------------------------------------------------------


def test_ez003_a_failing_rule_is_isolated_and_the_others_still_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkers = engine.load_rules()
    index = next(i for i, c in enumerate(checkers) if c.name == "frontmatter.layer_value")

    def explode(ctx: context.Context) -> None:
        raise ZeroDivisionError("division by zero")

    patched = list(checkers)
    patched[index] = dataclasses.replace(checkers[index], func=explode)
    monkeypatch.setattr(context, "_CHECKERS", patched)
    ws = build(tmp_path, {SKILL: SKILL_TEXT + f"\n{TYPO}\n"})
    findings = check_path(ws, ws.root / SKILL)
    assert [where(f) for f in findings] == [
        ("EZ003", 0, 0),
        ("BD003", SKILL_TEXT.count("\n") + 1, 0),
    ]
    message = findings[0].message
    assert "frontmatter.layer_value" in message
    assert "ZeroDivisionError: division by zero" in message
    assert "other rules still ran" in message
    assert findings[0].severity.word == "error"


def test_ez003_is_not_produced_when_every_rule_succeeds(tmp_path: Path) -> None:
    ws = build(tmp_path, {SKILL: SKILL_TEXT})
    assert "EZ003" not in [f.code for f in check_path(ws, ws.root / SKILL)]


# -- EZ004 file-unreadable -------------------------------------------------------------------


def test_ez004_not_utf8(tmp_path: Path) -> None:
    ws = build(tmp_path, {SKILL: SKILL_TEXT.replace(" 🎨", "").encode("gbk")})
    [finding] = check_path(ws, ws.root / SKILL)
    assert where(finding) == ("EZ004", 0, 0)
    assert "not valid UTF-8" in finding.message and "skipped" in finding.message


def test_ez004_binary(tmp_path: Path) -> None:
    ref = f"{SKILL_DIR}/references/图表.md"
    ws = build(tmp_path, {SKILL: SKILL_TEXT, ref: b"# \xe5\x9b\xbe\x00\x01\x02"})
    [finding] = check_path(ws, ws.root / ref)
    assert where(finding) == ("EZ004", 0, 0)
    assert "binary" in finding.message


def test_ez004_oversized_per_the_max_file_size_option(tmp_path: Path) -> None:
    ws = build(tmp_path, {"easel-ls.toml": "max-file-size = 200\n", SKILL: SKILL_TEXT})
    [finding] = check_path(ws, ws.root / SKILL)
    assert finding.code == "EZ004"
    size = len(SKILL_TEXT.encode("utf-8"))
    assert f"is {size} bytes, over the 200-byte limit" in finding.message


@pytest.mark.skipif(os.name == "nt", reason="symbolic links need privileges on Windows")
def test_ez004_broken_symlink(tmp_path: Path) -> None:
    ws = build(tmp_path, {SKILL: SKILL_TEXT})
    link = ws.root / SKILL_DIR / "references" / "gone.md"
    link.parent.mkdir(parents=True)
    link.symlink_to(ws.root / "nowhere.md")
    [finding] = check_path(ws, link)
    assert where(finding) == ("EZ004", 0, 0)
    assert "broken symbolic link" in finding.message
    assert [f.path for f in check_paths(ws, [ws.root / SKILL_DIR]) if f.code == "EZ004"] == [link]


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(b"\xef\xbb\xbf" + SKILL_TEXT.encode("utf-8"), id="utf8-bom"),
        pytest.param(SKILL_TEXT.replace("\n", "\r\n").encode("utf-8"), id="crlf"),
    ],
)
def test_ez004_spares_readable_utf8_variants(tmp_path: Path, content: bytes) -> None:
    ws = build(tmp_path, {SKILL: content})
    assert check_path(ws, ws.root / SKILL) == []


def test_ez004_can_be_ignored_in_config(tmp_path: Path) -> None:
    ws = build(tmp_path, {"easel-ls.toml": 'ignore = ["EZ004"]\n', SKILL: b"\xff\xfe\x00"})
    assert check_path(ws, ws.root / SKILL) == []
