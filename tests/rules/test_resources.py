"""RS — links, mentioned paths, orphans, cross-skill use and paths escaping the workspace."""

from __future__ import annotations

import os
from pathlib import Path

from easel_ls.findings import Position
from easel_ls.fixes import FixPlan, plan_changes

FRONT = """---
name: {name}
description: >-
  把策划稿渲染成小红书卡片图。当用户说"做卡片"或需要出图时使用；只负责出图，不负责发布，
  发布请用 `xhs-publish`。适用场景：图文笔记、知识卡片、清单类内容的成品制作与登记。
layer: produce
---
# 卡片

## 输入
策划稿。

## 输出
卡片。

## 执行步骤
{steps}

## Profile 感知
无画像时用默认配色。
"""


def skill(name: str = "card-maker", steps: str = "1. 出图。") -> str:
    return FRONT.format(name=name, steps=steps)


def codes(findings, code):  # type: ignore[no-untyped-def]
    return [f for f in findings if f.code == code]


def base_files(steps: str, **extra: str) -> dict[str, str]:
    files = {
        "skills/openclaw/card-maker/SKILL.md": skill(steps=steps),
        "skills/openclaw/xhs-publish/SKILL.md": skill("xhs-publish"),
    }
    files.update(extra)
    return files


def test_rs001_broken_link_points_at_the_target_with_create_fix(make_workspace, check) -> None:
    steps = "1. 看😀[设计规范](references/desing.md)。\n2. 看[存在的](references/style.md)。"
    ws = make_workspace(
        base_files(steps, **{"skills/openclaw/card-maker/references/style.md": "# s\n"})
    )
    findings = check(ws, "skills/openclaw/card-maker/SKILL.md")
    (finding,) = codes(findings, "RS001")
    line = skill(steps=steps).splitlines().index("1. 看😀[设计规范](references/desing.md)。")
    assert finding.range.start == Position(line, len("1. 看😀[设计规范]("))
    assert finding.fixes[0].title == "Create references/desing.md"
    assert (
        finding.fixes[0].creates[0].path
        == ws.root / "skills/openclaw/card-maker/references/desing.md"
    )


def test_rs001_does_not_flag_urls_anchors_placeholders_or_existing_files(
    make_workspace, check
) -> None:
    steps = (
        "1. [官网](https://www.xiaohongshu.com/explore) [本节](#输入) [信](mailto:a@b.c)\n"
        "2. [项目](outputs/<主题>/note.md) [空格](<references/a b.md>) [带锚](references/style.md#配色)"
    )
    ws = make_workspace(
        base_files(
            steps,
            **{
                "skills/openclaw/card-maker/references/style.md": "# s\nsee `references/a b.md`\n",
                "skills/openclaw/card-maker/references/a b.md": "# ab\n",
            },
        )
    )
    assert codes(check(ws, "skills/openclaw/card-maker/SKILL.md"), "RS001") == []


def test_rs002_missing_mentioned_path_but_not_globs_placeholders_or_links(
    make_workspace, check
) -> None:
    steps = (
        "1. 读 `references/palette.md` 和 references/fonts.md。\n"
        "2. 所有 `references/*.md`、`scripts/<name>.py`、`skills/shared/scripts/manifest.py` 都行。\n"
        "3. [链接](references/linked.md) 不归 RS002 管。"
    )
    ws = make_workspace(base_files(steps, **{"skills/shared/scripts/manifest.py": "print()\n"}))
    findings = check(ws, "skills/openclaw/card-maker/SKILL.md")
    flagged = sorted(f.message for f in codes(findings, "RS002"))
    assert flagged == [
        "`references/fonts.md` does not exist",
        "`references/palette.md` does not exist",
    ]
    assert len(codes(findings, "RS001")) == 1  # the link is RS001 only, never both


def test_rs002_reads_a_path_after_a_skill_name_in_that_skill(make_workspace, check) -> None:
    # `xhs-publish / references/tags.md`, `xhs-publish 的 references/…`: the neighbour's file.
    steps = (
        "1. 标签规则见 xhs-publish / references/tags.md。\n"
        "2. 封面尺寸见xhs-publish 的 references/sizes.md。\n"
        "3. 字体见 references/fonts.md。"
    )
    ws = make_workspace(
        base_files(
            steps,
            **{
                "skills/openclaw/xhs-publish/SKILL.md": skill("xhs-publish"),
                "skills/openclaw/xhs-publish/references/tags.md": "# 标签\n",
            },
        )
    )
    flagged = sorted(
        (f.message, f.fixes[0].title if f.fixes else "")
        for f in codes(check(ws, "skills/openclaw/card-maker/SKILL.md"), "RS002")
    )
    # sizes.md is missing in xhs-publish (where it is looked for: no stub offered here);
    # fonts.md in this skill (a stub offered).
    assert [(message, bool(title)) for message, title in flagged] == [
        ("`references/fonts.md` does not exist", True),
        ("`references/sizes.md` does not exist in `xhs-publish`", False),
    ]


def test_rs003_orphan_reference_and_script_on_line_one(make_workspace, check) -> None:
    ws = make_workspace(
        base_files(
            "1. 看 `references/used.md`，运行 `scripts/render.py`。",
            **{
                "skills/openclaw/card-maker/references/used.md": "# used, see orphan-too? no\n",
                "skills/openclaw/card-maker/references/unused.md": "# nobody links me\n",
                "skills/openclaw/card-maker/scripts/render.py": "import _helpers\n",
                "skills/openclaw/card-maker/scripts/_helpers.py": "X = 1\n",
                "skills/openclaw/card-maker/scripts/stray.py": "print('x')\n",
                "skills/openclaw/card-maker/scripts/imported.py": "Y = 2\n",
            },
        )
    )
    (ws.root / "skills/openclaw/card-maker/scripts/render.py").write_text(
        "import _helpers\nfrom imported import Y\n", encoding="utf-8"
    )
    unused = codes(check(ws, "skills/openclaw/card-maker/references/unused.md"), "RS003")
    assert [f.range.start for f in unused] == [Position(0, 0)]
    assert codes(check(ws, "skills/openclaw/card-maker/references/used.md"), "RS003") == []
    assert codes(check(ws, "skills/openclaw/card-maker/scripts/stray.py"), "RS003")
    assert codes(check(ws, "skills/openclaw/card-maker/scripts/render.py"), "RS003") == []
    assert codes(check(ws, "skills/openclaw/card-maker/scripts/_helpers.py"), "RS003") == []
    assert codes(check(ws, "skills/openclaw/card-maker/scripts/imported.py"), "RS003") == []


def test_rs004_link_into_another_skill_but_shared_is_fine(make_workspace, check) -> None:
    steps = "1. 看[发布](../xhs-publish/SKILL.md)，工具见[共享](../../shared/README.md)。"
    ws = make_workspace(base_files(steps, **{"skills/shared/README.md": "# shared\n"}))
    findings = check(ws, "skills/openclaw/card-maker/SKILL.md")
    (finding,) = codes(findings, "RS004")
    assert "xhs-publish" in finding.message


def test_rs005_escaping_links_are_reported_and_never_read(
    make_workspace, check, tmp_path: Path
) -> None:
    outside = tmp_path.parent / f"{tmp_path.name}-outside.md"
    outside.write_text("# secret\n", encoding="utf-8")
    steps = (
        f"1. [上面](../../../../../etc/passwd)\n2. [绝对]({outside})\n3. [软链](references/out.md)"
    )
    ws = make_workspace(base_files(steps))
    refs = ws.root / "skills/openclaw/card-maker/references"
    refs.mkdir(parents=True, exist_ok=True)
    os.symlink(outside, refs / "out.md")
    findings = check(ws, "skills/openclaw/card-maker/SKILL.md")
    assert len(codes(findings, "RS005")) == 3
    assert not codes(findings, "RS001")
    assert outside not in ws._texts  # never read


def test_create_fix_writes_the_reference(make_workspace, check) -> None:
    ws = make_workspace(base_files("1. [缺](references/missing.md)"))
    (finding,) = codes(check(ws, "skills/openclaw/card-maker/SKILL.md"), "RS001")
    plan = FixPlan()
    assert plan.add(finding.fixes[0])
    (change,) = plan_changes(plan, ws.text_of)
    assert change.before is None and change.after == "# missing\n\n"
