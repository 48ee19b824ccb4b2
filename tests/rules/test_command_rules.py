"""CM — documented commands checked against the scripts' argparse, read statically."""

from __future__ import annotations

from easel_ls.findings import Position
from easel_ls.fixes import apply_edits
from easel_ls.model.text import TextDocument

TOOL = '''"""Render cards."""
import argparse

THEMES = ("paper", "mint", "night")


def build_parser():
    parser = argparse.ArgumentParser(prog="render_cards.py")
    parser.add_argument("--root", default="outputs")
    sub = parser.add_subparsers(dest="cmd", required=True)
    render = sub.add_parser("render", aliases=["r"])
    render.add_argument("--topic", required=True)
    render.add_argument("--theme", choices=sorted(THEMES))
    render.add_argument("--footer")
    group = render.add_mutually_exclusive_group()
    group.add_argument("--dry-run", action="store_true")
    group.add_argument("--exec", action="store_true")
    sub.add_parser("themes")
    return parser


if __name__ == "__main__":
    build_parser().parse_args()
'''

DYNAMIC = """import argparse
p = argparse.ArgumentParser()
for flag in load_flags():
    p.add_argument(flag)
p.parse_args()
"""

HEAD = """---
name: card-maker
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

## Profile 感知
无画像时用默认配色。

## 执行步骤
"""
S = "skills/openclaw/card-maker/scripts/render_cards.py"


def workspace(make_workspace, body: str):  # type: ignore[no-untyped-def]
    return make_workspace(
        {
            "skills/openclaw/card-maker/SKILL.md": HEAD + body,
            f"{S}": TOOL,
            "skills/openclaw/card-maker/scripts/dynamic.py": DYNAMIC,
            "skills/openclaw/card-maker/scripts/broken.py": "def (:\n",
            "skills/openclaw/xhs-publish/SKILL.md": HEAD.replace("card-maker", "xhs-publish"),
            "skills/openclaw/xhs-publish/scripts/post.py": TOOL,
        }
    )


def findings(make_workspace, check, body: str, code: str):  # type: ignore[no-untyped-def]
    ws = workspace(make_workspace, body)
    found = check(ws, "skills/openclaw/card-maker/SKILL.md")
    return ws, [f for f in found if f.code == code], found


LINE = HEAD.count("\n") + 1  # first line inside the fence


def test_cm002_unknown_option_after_cjk_with_did_you_mean_fix(make_workspace, check) -> None:
    body = f"```bash\n# 渲染😀\npython {S} render --topic <主题> --thme paper\n```\n"
    _ws, (f,), _ = findings(make_workspace, check, body, "CM002")
    line_text = f"python {S} render --topic <主题> --thme paper"
    assert f.range.start == Position(LINE + 1, line_text.index("--thme"))
    assert f.help == "did you mean `--theme`?"
    assert f.related and f.related[0].path.name == "render_cards.py"
    doc = TextDocument(f.path, HEAD + body)
    assert "--theme paper" in apply_edits(doc, f.fixes[0].edits)


def test_cm002_look_alikes_are_not_flagged(make_workspace, check) -> None:
    body = (
        "```bash\n"
        f"python {S} render --topic <主题> --the paper        # prefix abbreviation\n"
        f"python {S} render --topic=<主题> --theme=mint\n"
        f"python {S} --root outputs r --topic x [--footer <署名>]\n"
        f'python {S} render --topic x \\\n  --footer "a b" && echo done\n'
        f"$ python3 {S} themes\n"
        "```\n"
        f"行内：`python {S} render --topic <主题>`。\n"
    )
    _, _, found = findings(make_workspace, check, body, "CM002")
    assert [f.code for f in found if f.code.startswith("CM")] == []


def test_cm001_missing_script_with_closest_existing_path(make_workspace, check) -> None:
    body = "```bash\npython skills/openclaw/card-maker/scripts/render_card.py themes\n```\n"
    _, (f,), _ = findings(make_workspace, check, body, "CM001")
    assert f.range.start == Position(LINE, len("python "))
    assert f.fixes[0].title == f"Use `{S}`"


def test_cm003_unknown_subcommand(make_workspace, check) -> None:
    body = f"```bash\npython {S} rendr --topic x\n```\n"
    _, (f,), _ = findings(make_workspace, check, body, "CM003")
    assert f.help == "did you mean `render`?"


def test_cm004_cm005_missing_subcommand_and_required(make_workspace, check) -> None:
    body = f"```bash\npython {S}\npython {S} render --theme mint\n```\n"
    _, cm004, found = findings(make_workspace, check, body, "CM004")
    assert len(cm004) == 1
    (cm005,) = [f for f in found if f.code == "CM005"]
    assert "--topic" in cm005.message


def test_cm006_invalid_choice_from_module_constant(make_workspace, check) -> None:
    body = f"```bash\npython {S} render --topic x --theme pape\n```\n"
    _, (f,), _ = findings(make_workspace, check, body, "CM006")
    assert next(fix.title for fix in f.fixes) == "Use `paper`"
    placeholder = f"```bash\npython {S} render --topic x --theme <配色>\n```\n"
    assert findings(make_workspace, check, placeholder, "CM006")[1] == []


def test_cm007_parent_option_after_subcommand_with_move_fix(make_workspace, check) -> None:
    body = f"```bash\npython {S} render --topic x --root out\n```\n"
    _, (f,), _ = findings(make_workspace, check, body, "CM007")
    doc = TextDocument(f.path, HEAD + body)
    fixed = apply_edits(doc, f.fixes[0].edits)
    assert f"python {S} --root out render --topic x\n" in fixed


def test_cm008_mutually_exclusive(make_workspace, check) -> None:
    body = f"```bash\npython {S} render --topic x --dry-run --exec\n```\n"
    _, (f,), _ = findings(make_workspace, check, body, "CM008")
    assert f.range.start.character == len(f"python {S} render --topic x --dry-run ")


def test_cm009_flag_given_a_value_and_option_without_value(make_workspace, check) -> None:
    body = f"```bash\npython {S} render --topic x --exec=1\npython {S} render --topic\n```\n"
    _, cm009, _ = findings(make_workspace, check, body, "CM009")
    assert len(cm009) == 2


def test_cm010_once_per_script_and_no_other_cm(make_workspace, check) -> None:
    dyn = "skills/openclaw/card-maker/scripts/dynamic.py"
    body = (
        f"```bash\npython {dyn} --anything\npython {dyn} --else\n"
        "python skills/openclaw/card-maker/scripts/broken.py --x\n```\n"
    )
    _, cm010, found = findings(make_workspace, check, body, "CM010")
    assert len(cm010) == 2
    assert [f for f in found if f.code in ("CM002", "CM003", "CM005")] == []


def test_cm010_says_once_that_commands_are_not_checked(make_workspace, check) -> None:
    plain = "skills/openclaw/card-maker/scripts/plain.py"
    ws = make_workspace(
        {
            "skills/openclaw/card-maker/SKILL.md": HEAD + f"```bash\npython {plain} go\n```\n",
            plain: "import sys\nprint(sys.argv[1:])\n",
        }
    )
    (f,) = [f for f in check(ws, "skills/openclaw/card-maker/SKILL.md") if f.code == "CM010"]
    assert f.message == (
        f"`{plain}` cannot be analysed statically (does not use argparse); "
        "its commands are not checked"
    )


def test_cm011_missing_shell_script(make_workspace, check) -> None:
    body = "```bash\nbash skills/openclaw/card-maker/scripts/setup.sh\n```\n"
    assert len(findings(make_workspace, check, body, "CM011")[1]) == 1


def test_rs004_command_into_another_skill(make_workspace, check) -> None:
    body = "```bash\npython skills/openclaw/xhs-publish/scripts/post.py themes\n```\n"
    assert len(findings(make_workspace, check, body, "RS004")[1]) == 1


def test_inline_ignore_suppresses_that_command_only(make_workspace, check) -> None:
    body = (
        f"```bash\npython {S} render --topic x --thme a  # easel-ls: ignore[CM002]\n"
        f"python {S} render --topic x --thme b\n```\n"
    )
    _, cm002, found = findings(make_workspace, check, body, "CM002")
    assert len(cm002) == 1 and cm002[0].range.start.line == LINE + 1
    assert [f for f in found if f.code == "EZ001"] == []


def test_editing_the_script_changes_the_verdict(make_workspace, check) -> None:
    body = f"```bash\npython {S} render --topic x --style fancy\n```\n"
    ws, cm002, _ = findings(make_workspace, check, body, "CM002")
    assert len(cm002) == 1
    script = ws.root / S
    script.write_text(
        TOOL.replace(
            'render.add_argument("--footer")',
            'render.add_argument("--footer")\n    render.add_argument("--style")',
        ),
        encoding="utf-8",
    )
    ws.forget(script)
    again = [f for f in check(ws, "skills/openclaw/card-maker/SKILL.md") if f.code == "CM002"]
    assert again == []
