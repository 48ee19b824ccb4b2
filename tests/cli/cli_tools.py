"""Workspaces and a runner for the command-line tests: every test runs `easel-ls` as a user
does, in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

GOOD_SKILL = textwrap.dedent(
    """\
    ---
    name: {name}
    description: >-
      为小红书笔记生成封面与卡片图。当用户说"做卡片""出图"或需要把策划稿变成图片时使用；
      只负责出图，不负责发布，发布请用 `{neighbour}`。适用场景：图文笔记、知识卡片、清单类内容。
    layer: produce
    ---
    # 卡片制作

    > 把策划稿变成卡片图。

    ## 输入
    策划稿路径。

    ## 输出（写入 outputs/<主题>/）
    卡片图片。

    ## 执行步骤
    1. 读取策划稿。
    {steps}
    ## Profile 感知
    有画像时沿用画像配色，没有时用默认配色。
    """
)

RENDER_STEP = """\
2. 渲染卡片：

```bash
python skills/openclaw/card-maker/scripts/render.py render --size 3x4
```
"""

RENDER_SCRIPT = textwrap.dedent(
    '''\
    """Render the cards of a note."""
    import argparse


    def main() -> None:
        parser = argparse.ArgumentParser(description="render cards")
        sub = parser.add_subparsers(dest="cmd", required=True)
        render = sub.add_parser("render", help="render the cards")
        render.add_argument("--size", default="3x4", help="card size")
        parser.parse_args()


    if __name__ == "__main__":
        main()
    '''
)


def make_workspace(
    root: Path, *, name: str = "card-maker", folder: str | None = None, script: bool = False
) -> Path:
    """Two clean skills, `card-maker` (folder ``folder``, frontmatter ``name``) and its
    neighbour `xhs-publish`; with ``script``, card-maker calls `scripts/render.py render
    --size 3x4`, which defines `--size`."""
    (root / "pyproject.toml").write_text("[tool.easel-ls]\n", encoding="utf-8")
    folder = folder or name
    for skill, neighbour in ((folder, "xhs-publish"), ("xhs-publish", folder)):
        path = root / "skills" / "openclaw" / skill / "SKILL.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        steps = RENDER_STEP if script and skill == folder else ""
        text = GOOD_SKILL.format(
            name=name if skill == folder else skill, neighbour=neighbour, steps=steps
        )
        path.write_text(text, encoding="utf-8")
    if script:
        path = root / "skills" / "openclaw" / folder / "scripts" / "render.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(RENDER_SCRIPT, encoding="utf-8")
    return root


def environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(extra)
    return env


def run(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "easel_ls", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env if env is not None else environment(),
    )
