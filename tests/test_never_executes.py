"""Analysis is static: a full `--check` (every rule, every format) never imports or runs a
workspace script, conftest.py or build hook. Each would write a sentinel file if it ran."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SENTINEL_CODE = """\
import pathlib
pathlib.Path({sentinel!r}).write_text("executed {label}")
import argparse
parser = argparse.ArgumentParser()
sub = parser.add_subparsers(dest="cmd", required=True)
run = sub.add_parser("run")
run.add_argument("--topic", required=True)
if __name__ == "__main__":
    parser.parse_args()
"""

SKILL = """---
name: trap
description: >-
  用于验证静态分析。当用户说"检查"时使用；不负责发布，发布交给别的 SKILL。适用场景：测试静态分析不会执行任何脚本，
  也不会导入任何模块，保证编辑器里打开仓库是安全的。
layer: general
---
# 陷阱

## 输入
无。

## 输出
无。

## 执行步骤
```bash
python skills/openclaw/trap/scripts/tool.py run --topic <主题>
python skills/openclaw/trap/scripts/tool.py run --tpoic x
bash skills/openclaw/trap/scripts/run.sh
```
也见 `scripts/conftest.py`。

## Profile 感知
无。
"""


def test_check_never_imports_or_runs_workspace_code(tmp_path: Path) -> None:
    sentinel_dir = tmp_path / "sentinels"
    sentinel_dir.mkdir()
    ws = tmp_path / "ws"
    scripts = ws / "skills/openclaw/trap/scripts"
    scripts.mkdir(parents=True)
    (ws / "skills/openclaw/trap/SKILL.md").write_text(SKILL, encoding="utf-8")
    for name in ("tool.py", "conftest.py", "setup.py", "sitecustomize.py"):
        code = SENTINEL_CODE.format(sentinel=str(sentinel_dir / name), label=name)
        (scripts / name).write_text(code, encoding="utf-8")
    (scripts / "run.sh").write_text(
        f"#!/bin/sh\ntouch {sentinel_dir / 'run.sh'}\n", encoding="utf-8"
    )
    (scripts / "evil.pth").write_text(
        f"import pathlib; pathlib.Path({str(sentinel_dir / 'pth')!r}).touch()\n", encoding="utf-8"
    )
    (ws / "pyproject.toml").write_text(
        "[build-system]\nrequires=[]\nbuild-backend='backend'\nbackend-path=['skills']\n"
        "[tool.easel-ls]\n",
        encoding="utf-8",
    )
    for fmt in ("full", "json", "sarif"):
        result = subprocess.run(
            [sys.executable, "-m", "easel_ls", "--check", "--output-format", fmt],
            cwd=ws,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 1, result.stdout + result.stderr
        assert "CM002" in result.stdout  # the scripts were analysed (statically)
    fixed = subprocess.run(
        [sys.executable, "-m", "easel_ls", "--check", "--fix", "--unsafe-fixes"],
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in fixed.stderr
    assert list(sentinel_dir.iterdir()) == []
