"""The on-disk `--check` cache: reused while nothing a file's analysis read has changed, and
invalidated the moment a dependency (a called script, a link target, a folder listing) changes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SKILL = """---
name: card-maker
description: >-
  把策划稿渲染成小红书卡片图。当用户说"做卡片"或需要出图时使用；只负责出图，不负责发布，
  发布交给别的 SKILL。适用场景：图文笔记、知识卡片、清单类内容的成品制作与登记。
layer: produce
---
# 卡片

## 输入
策划稿，格式见 [格式](references/format.md)。

## 输出
卡片。

## 执行步骤
```bash
python skills/openclaw/card-maker/scripts/render.py --theme paper
```

## Profile 感知
无画像时用默认配色。
"""

SCRIPT = """import argparse
p = argparse.ArgumentParser()
p.add_argument("--theme")
p.parse_args()
"""


def make(tmp_path: Path) -> Path:
    skill = tmp_path / "skills/openclaw/card-maker"
    (skill / "scripts").mkdir(parents=True)
    (skill / "references").mkdir()
    (skill / "SKILL.md").write_text(SKILL, encoding="utf-8")
    (skill / "scripts/render.py").write_text(SCRIPT, encoding="utf-8")
    (skill / "references/format.md").write_text("# 格式\n", encoding="utf-8")
    return skill


def check(root: Path, *extra: str) -> list[dict]:  # type: ignore[type-arg]
    result = subprocess.run(
        [sys.executable, "-m", "easel_ls", "--check", "--output-format", "json", *extra],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Traceback" not in result.stderr, result.stderr
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def codes(findings: list[dict]) -> list[str]:  # type: ignore[type-arg]
    return sorted(f["code"] for f in findings)


def test_second_run_reuses_the_cache_and_gives_the_same_findings(tmp_path: Path) -> None:
    make(tmp_path)
    first = check(tmp_path)
    cache_file = tmp_path / ".easel-ls-cache/check.json"
    assert cache_file.is_file()
    assert (tmp_path / ".easel-ls-cache/.gitignore").read_text().strip().endswith("*")
    assert check(tmp_path) == first


def test_editing_a_called_script_invalidates_the_skill(tmp_path: Path) -> None:
    skill = make(tmp_path)
    assert codes(check(tmp_path)) == []
    (skill / "scripts/render.py").write_text(SCRIPT.replace("--theme", "--style"), encoding="utf-8")
    assert codes(check(tmp_path)) == ["CM002"]


def test_deleting_and_recreating_a_link_target(tmp_path: Path) -> None:
    skill = make(tmp_path)
    check(tmp_path)
    (skill / "references/format.md").unlink()
    assert codes(check(tmp_path)) == ["RS001"]
    (skill / "references/format.md").write_text("# 格式\n", encoding="utf-8")
    assert codes(check(tmp_path)) == []


def test_a_new_reference_mentioning_a_file_clears_its_orphan_finding(tmp_path: Path) -> None:
    skill = make(tmp_path)
    (skill / "references/extra.md").write_text("# 额外\n", encoding="utf-8")
    assert codes(check(tmp_path)) == ["RS003"]
    (skill / "references/format.md").write_text("# 格式\n见 references/extra.md\n", encoding="utf-8")
    assert codes(check(tmp_path)) == []


def test_settings_change_invalidates(tmp_path: Path) -> None:
    make(tmp_path)
    (tmp_path / "skills/openclaw/card-maker/references/extra.md").write_text("# x\n", "utf-8")
    assert codes(check(tmp_path)) == ["RS003"]
    assert codes(check(tmp_path, "--ignore", "RS003")) == []
    (tmp_path / "easel-ls.toml").write_text('ignore = ["RS"]\n', encoding="utf-8")
    assert codes(check(tmp_path)) == []


def test_corrupt_or_foreign_cache_is_ignored_and_rewritten(tmp_path: Path) -> None:
    make(tmp_path)
    folder = tmp_path / ".easel-ls-cache"
    folder.mkdir()
    (folder / "check.json").write_bytes(b"\x80\x04\x95 not json")  # e.g. a planted pickle
    assert codes(check(tmp_path)) == []
    json.loads((folder / "check.json").read_text("utf-8"))


def test_no_cache_writes_nothing(tmp_path: Path) -> None:
    make(tmp_path)
    check(tmp_path, "--no-cache")
    assert not (tmp_path / ".easel-ls-cache").exists()


def test_entries_filed_as_json_are_saved_as_the_same_text(tmp_path: Path) -> None:
    # Workers send their entries already encoded; the file must read exactly as json.dumps
    # of the whole payload would write it, and such an entry must still be looked up.
    from easel_ls.cache import CheckCache, EntryBuilder
    from easel_ls.config import ConfigResolver
    from easel_ls.workspace import Workspace

    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.md").write_text("# a\n", "utf-8")
    (root / "b.md").write_text("# b\n", "utf-8")
    ws = Workspace(root=root, config=ConfigResolver(stop_at=root))
    cache = CheckCache(ws)
    entry_a = EntryBuilder(ws).entry(root / "a.md", set(), [])
    entry_b = EntryBuilder(ws).entry(root / "b.md", set(), [])
    cache.store_entry(root / "a.md", entry_a)
    cache.store_entry(root / "b.md", EntryBuilder.encode_entry(entry_b))
    assert cache.lookup(root / "b.md") == []
    cache.save()
    payload = {"context": cache.context_key, "entries": {str(root / "a.md"): entry_a}}
    payload["entries"][str(root / "b.md")] = entry_b
    expected = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    assert cache.path.read_text("utf-8") == expected


def test_the_code_fingerprint_lists_what_rglob_lists_in_path_order() -> None:
    from easel_ls import cache

    package = Path(cache.__file__).parent
    expected = [
        [str(p.relative_to(package)), *(cache.stamp_of(p) or [])]
        for p in sorted(package.rglob("*"))
        if p.suffix in (".py", ".json", ".md")
    ]
    assert cache._code_fingerprint() == expected
    assert [cache._suffix(n) for n in ("a.md", ".md", "a.", "a.b.json", "a")] == [
        ".md",
        "",
        "",
        ".json",
        "",
    ]
