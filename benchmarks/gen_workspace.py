#!/usr/bin/env python3
"""Generate a realistic Easel workspace for benchmarking `easel-ls --check`.

    python benchmarks/gen_workspace.py N [--out DIR] [--shared-scripts N] [--script-lines A-B]

The workspace holds N skills under `skills/openclaw/` (about 150-line SKILL.md files with Chinese
frontmatter, the four required sections, 5 commands each, 2-3 linked references and paired
tests), 40 shared argparse CLIs under `skills/shared/scripts/` (10-20 subcommands, 500-1500
lines, choices from module constants, a helper that adds options, `parents=`, literal-tuple
loops, aliases, a mutually exclusive group), the repository's real `manifest.py`,
`output_paths.py` and `content_guard.py`, and `outputs/<主题>/` projects (note.md +
`.easel.json`).

Everything is seeded per item, so ws-100 is exactly the first 100 skills of ws-1000. About 4 % of
the gen_tool commands carry planted drift (an unknown option, a bad choice or an unknown
subcommand); their locations are returned by `generate()` and written beside the workspace as
`<DIR>.json`, so a benchmark can also tell whether the checker found what was planted.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import shutil
import sys
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

GENERATOR_VERSION = 1
SEED = 20250601
SHARED_SCRIPT_COUNT = 40
TOOL_COMMANDS_PER_SKILL = 4  # plus one `manifest.py record`: 5 commands per skill
DRIFT_RATE = 0.04
PROJECTS_PER_SKILL = 0.1
BENCHMARKS_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCHMARKS_DIR.parent
REAL_SHARED_SCRIPTS = ("manifest.py", "output_paths.py", "content_guard.py")

# ---------------------------------------------------------------------------------------------
# Script model: what each generated CLI accepts, so SKILL commands can be written against it.
# ---------------------------------------------------------------------------------------------

CONSTANTS: dict[str, tuple[str, ...]] = {
    "MODES": ("fast", "balanced", "deep"),
    "PLATFORMS": ("xhs", "douyin", "wechat", "zhihu", "bilibili"),
    "TONES": ("casual", "warm", "expert", "playful"),
    "SIZES": ("3x4", "1x1", "16x9", "9x16"),
    "LAYERS": ("discover", "plan", "produce", "publish", "attribute", "general"),
    "SORT_KEYS": ("score", "date", "title", "views"),
    "LANGUAGES": ("zh", "en", "ja"),
    "STAGES": ("draft", "review", "final"),
    "THEMES": ("paper", "mint", "night", "sunset"),
}
OUTPUT_FORMATS = ("json", "markdown", "text")
# A plausible value that the constant does not hold: the planted `invalid-choice` drift.
WRONG_CHOICES = {
    "MODES": "turbo",
    "PLATFORMS": "weibo",
    "TONES": "angry",
    "SIZES": "4x3",
    "LAYERS": "review",
    "SORT_KEYS": "likes",
    "LANGUAGES": "fr",
    "STAGES": "archived",
    "THEMES": "neon",
}
CHOICE_OPTIONS = {
    "--mode": "MODES",
    "--platform": "PLATFORMS",
    "--tone": "TONES",
    "--size": "SIZES",
    "--layer": "LAYERS",
    "--sort": "SORT_KEYS",
    "--lang": "LANGUAGES",
    "--stage": "STAGES",
    "--theme": "THEMES",
}
VALUE_OPTIONS = {
    "--source": ("outputs/<主题>/assets/draft.md", "输入文件路径"),
    "--title": ('"<标题>"', "人类可读标题"),
    "--profile": ("<画像>", "画像名"),
    "--keyword": ("<关键词>", "只保留含该关键词的条目"),
    "--footer": ('"<账号名>"', "页脚署名"),
    "--note": ('"<备注>"', "写进结果的备注"),
}
INT_OPTIONS = {
    "--limit": (10, 50),
    "--max-chars": (300, 1000),
    "--count": (3, 9),
    "--days": (7, 30),
    "--top": (3, 10),
}
FLAG_OPTIONS = ("--dry-run", "--force", "--strict", "--no-cache", "--include-drafts")
EXCLUSIVE_PAIRS = (("--append", "--overwrite"), ("--only-new", "--all"))
SUBCOMMAND_VERBS = (
    "render", "check", "plan", "draft", "polish", "score", "export", "list", "show", "sync",
    "merge", "split", "clean", "index", "diff", "stats", "collect", "rank", "preview", "archive",
    "tag", "outline", "review", "summarize",
)  # fmt: skip
ALIASES = {"list": "ls", "show": "cat", "stats": "st"}
SHARED_OPTION_STYLES = ("helper", "parents", "loop")


@dataclass(frozen=True)
class Option:
    flag: str
    kind: str  # "value" | "int" | "choice" | "flag"
    required: bool = False
    constant: str | None = None
    help: str = ""

    @property
    def dest(self) -> str:
        return self.flag[2:].replace("-", "_")


@dataclass(frozen=True)
class Subcommand:
    name: str
    help: str
    options: tuple[Option, ...]
    exclusive: tuple[str, str] | None = None
    alias: str | None = None

    def all_flags(self) -> list[str]:
        flags = [o.flag for o in self.options] + ["--format", "--quiet", "--help"]
        return flags + list(self.exclusive or ())


@dataclass(frozen=True)
class ScriptSpec:
    index: int
    purpose: str
    constants: tuple[str, ...]
    subcommands: tuple[Subcommand, ...]
    shared_style: str
    target_lines: int

    @property
    def filename(self) -> str:
        return f"gen_tool_{self.index:02d}.py"

    @property
    def workspace_path(self) -> str:
        return f"skills/shared/scripts/{self.filename}"


SCRIPT_PURPOSES = (
    "卡片文案排版与渲染", "选题信号汇总与打分", "标题候选生成与筛选", "正文结构检查",
    "话题标签整理", "封面文案排版", "视频脚本分镜", "评论区回复草稿", "发布排期管理",
    "数据复盘汇总", "素材库索引", "多平台改写",
)  # fmt: skip
SUBCOMMAND_HELP = {
    "render": "按配置渲染成品并写入项目",
    "check": "只检查，不写文件",
    "plan": "生成执行计划",
    "draft": "起草初稿",
    "polish": "按基调润色",
    "score": "给候选打分",
    "export": "导出为目标格式",
    "list": "列出项目中的条目",
    "show": "显示单个条目",
    "sync": "与上游产物同步",
    "merge": "合并多份草稿",
    "split": "把长文拆成多段",
    "clean": "清理过期中间件",
    "index": "重建素材索引",
    "diff": "比较两个版本",
    "stats": "统计字数与条目",
    "collect": "收集信号",
    "rank": "按指标排序",
    "preview": "预览排版结果",
    "archive": "归档旧版本",
    "tag": "整理话题标签",
    "outline": "生成大纲",
    "review": "复盘数据",
    "summarize": "写一行摘要",
}


def _subcommand(rng: random.Random, name: str, constants: Sequence[str]) -> Subcommand:
    options = [Option("--topic", "value", required=rng.random() < 0.7, help="项目主题")]
    choice_flags = [f for f, c in CHOICE_OPTIONS.items() if c in constants]
    for flag in rng.sample(choice_flags, k=min(len(choice_flags), rng.randint(1, 2))):
        options.append(Option(flag, "choice", constant=CHOICE_OPTIONS[flag], help="可选值见常量"))
    for flag in rng.sample(sorted(INT_OPTIONS), k=rng.randint(0, 2)):
        options.append(Option(flag, "int", help="数量上限"))
    for flag in rng.sample(sorted(VALUE_OPTIONS), k=rng.randint(0, 2)):
        options.append(Option(flag, "value", help=VALUE_OPTIONS[flag][1]))
    for flag in rng.sample(FLAG_OPTIONS, k=rng.randint(0, 2)):
        options.append(Option(flag, "flag", help="开关"))
    exclusive = rng.choice(EXCLUSIVE_PAIRS) if rng.random() < 0.25 else None
    alias = ALIASES.get(name) if rng.random() < 0.5 else None
    return Subcommand(name, SUBCOMMAND_HELP[name], tuple(options), exclusive, alias)


DEFAULT_SCRIPT_LINES = (520, 1480)
# A script's fixed part (imports, helpers, parser, main) and what one subcommand adds, in lines:
# how many subcommands fit a smaller script (--script-lines).
SCRIPT_BASE_LINES, LINES_PER_SUBCOMMAND = 170, 40


def script_spec(index: int, lines: tuple[int, int] = DEFAULT_SCRIPT_LINES) -> ScriptSpec:
    """The spec of gen_tool_<index>: 10-20 subcommands and 520-1480 lines by default; with other
    ``lines`` (e.g. (200, 800), like the shared scripts of real repositories) as many
    subcommands as fit the drawn length, from 1 to 20."""
    rng = random.Random(f"{SEED}:script:{index}")
    constants = tuple(sorted(rng.sample(sorted(CONSTANTS), k=rng.randint(3, 5))))
    target = None
    if lines == DEFAULT_SCRIPT_LINES:
        count = rng.randint(10, 20)
    else:
        target = random.Random(f"{SEED}:script-lines:{index}").randint(*lines)
        fits = (target - SCRIPT_BASE_LINES) // LINES_PER_SUBCOMMAND
        count = max(1, min(20, fits))
    verbs = rng.sample(SUBCOMMAND_VERBS, k=count)
    subcommands = tuple(_subcommand(rng, verb, constants) for verb in verbs)
    return ScriptSpec(
        index=index,
        purpose=SCRIPT_PURPOSES[index % len(SCRIPT_PURPOSES)],
        constants=constants,
        subcommands=subcommands,
        shared_style=SHARED_OPTION_STYLES[index % len(SHARED_OPTION_STYLES)],
        target_lines=rng.randint(*lines) if target is None else target,
    )


# ---------------------------------------------------------------------------------------------
# Script text
# ---------------------------------------------------------------------------------------------

SCRIPT_HEAD = '''#!/usr/bin/env python3
"""{filename}：{purpose}。

CLI（``--root DIR`` 写在子命令之前；默认 ``$EASEL_OUTPUTS``，再退回 ``outputs``）::

{usage}

输出为 stdout 上的 JSON 或 Markdown；退出码 0 成功，1 找不到输入，2 参数错误。
只用标准库；写文件前一律经过 ``output_paths.validate_output_path``。
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path

try:
    import output_paths
except ModuleNotFoundError:  # run from another folder: the sibling is not on sys.path yet
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import output_paths

'''

SCRIPT_CORE_HELPERS = '''
EXIT_OK, EXIT_NOT_FOUND, EXIT_BAD_INPUT = 0, 1, 2
DEFAULT_ROOT = os.environ.get("EASEL_OUTPUTS", "outputs")
WORD_PATTERN = re.compile(r"[\\u4e00-\\u9fff]|[A-Za-z0-9]+")
BULLET_PATTERN = re.compile(r"^\\s*(?:[-*+]|\\d+[.、])\\s+")


def _fail(message: str, code: int) -> int:
    print(json.dumps({{"ok": False, "error": message}}, ensure_ascii=False), file=sys.stderr)
    return code


def _project_dir(root: str, topic: str | None) -> Path:
    """The project folder ``<root>/<topic>``; the topic is one folder name."""
    name = (topic or "").strip()
    if not name or "/" in name or name.startswith("."):
        raise SystemExit(_fail(f"主题不是合法的目录名：{{topic!r}}", EXIT_BAD_INPUT))
    return Path(root) / name


def _read_items(path: Path) -> list[str]:
    """Non-empty lines of a Markdown list, without their bullets."""
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return []
    items = []
    for line in text.splitlines():
        stripped = BULLET_PATTERN.sub("", line).strip()
        if stripped and not stripped.startswith("#"):
            items.append(stripped)
    return items


def _write_json(path: Path, payload: dict[str, object]) -> Path:
    target = output_paths.validate_output_path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(payload, ensure_ascii=False, indent=2) + "\\n"
    target.write_text(text, "utf-8")
    return target


def _emit(payload: dict[str, object], fmt: str, quiet: bool = False) -> int:
    if quiet:
        return EXIT_OK
    if fmt == "json":
        print(json.dumps(payload, ensure_ascii=False, indent=2))
    elif fmt == "markdown":
        for key, value in payload.items():
            print(f"- **{{key}}**：{{value}}")
    else:
        for key, value in payload.items():
            print(f"{{key}}: {{value}}")
    return EXIT_OK


def _words(text: str) -> list[str]:
    return WORD_PATTERN.findall(text)


def _score(item: str) -> float:
    """Short, dense items first: CJK characters count once, Latin words once."""
    words = _words(item)
    if not words:
        return 0.0
    unique = len(set(words))
    return round(unique / (1 + len(item) / 40), 3)


def _rank(items: list[str]) -> list[str]:
    return [item for _, item in sorted(((_score(i), i) for i in items), reverse=True)]


def _expand(items: list[str]) -> list[str]:
    expanded = []
    for item in items:
        expanded.append(item)
        for part in re.split(r"[，,；;]", item):
            part = part.strip()
            if part and part != item:
                expanded.append(part)
    return expanded


def _clip(item: str, max_chars: int) -> str:
    return item if len(item) <= max_chars else item[: max(max_chars - 1, 0)] + "…"


def _now() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


def _top_words(items: list[str], count: int = 10) -> list[tuple[str, int]]:
    counter: Counter[str] = Counter()
    for item in items:
        counter.update(word for word in _words(item) if len(word) > 1 or "\\u4e00" <= word)
    return counter.most_common(count)
'''

PADDING_TEMPLATES = (
    '''

def _dedupe_{noun}(items: list[str], width: int = {number}) -> list[str]:
    """{cn}：按前 {number} 个字去重，保留先出现的条目。"""
    picked: list[str] = []
    seen: set[str] = set()
    for item in items:
        key = "".join(_words(item))[:width]
        if key in seen:
            continue
        seen.add(key)
        picked.append(item)
    return picked
''',
    '''

def _group_{noun}(items: list[str], size: int = {number}) -> list[list[str]]:
    """{cn}：每 {number} 条一组，最后一组可以更短。"""
    groups: list[list[str]] = []
    current: list[str] = []
    for item in items:
        current.append(item)
        if len(current) >= size:
            groups.append(current)
            current = []
    if current:
        groups.append(current)
    return groups
''',
    '''

def _load_{noun}_table(path: Path) -> list[dict[str, str]]:
    """{cn}：读取 Markdown 表格，表头做键；没有文件时返回空表。"""
    try:
        lines = path.read_text("utf-8").splitlines()
    except FileNotFoundError:
        return []
    rows = [line.strip().strip("|").split("|") for line in lines if line.startswith("|")]
    if len(rows) < 2:
        return []
    header = [cell.strip() for cell in rows[0]]
    table = []
    for cells in rows[2:]:
        values = [cell.strip() for cell in cells]
        table.append(dict(zip(header, values)))
    return table
''',
    '''

def _summarise_{noun}(items: list[str], limit: int = {number}) -> dict[str, object]:
    """{cn}：条目数、平均长度和最常见的词，供 manifest 的一行摘要使用。"""
    if not items:
        return {{"count": 0, "average_chars": 0, "top_words": []}}
    total = sum(len(item) for item in items)
    return {{
        "count": len(items),
        "average_chars": round(total / len(items), 1),
        "top_words": [word for word, _ in _top_words(items, limit)],
    }}
''',
    '''

def _normalise_{noun}(text: str, max_blank: int = {number}) -> str:
    """{cn}：统一换行和全角空格，压缩连续空行。"""
    lines = text.replace("\\r\\n", "\\n").replace("\\u3000", " ").split("\\n")
    kept: list[str] = []
    blank = 0
    for line in lines:
        if line.strip():
            blank = 0
            kept.append(line.rstrip())
            continue
        blank += 1
        if blank <= max_blank:
            kept.append("")
    return "\\n".join(kept).strip() + "\\n"
''',
)
PADDING_NOUNS = (
    "titles", "tags", "cards", "comments", "signals", "drafts", "hooks", "scenes", "covers",
    "captions", "outlines", "notes", "metrics", "topics", "assets", "clips", "quotes", "briefs",
)  # fmt: skip
PADDING_CN = (
    "标题", "标签", "卡片", "评论", "信号", "草稿", "钩子", "分镜", "封面", "配文", "大纲",
    "笔记", "指标", "选题", "素材", "片段", "金句", "简报",
)  # fmt: skip


def _usage(spec: ScriptSpec) -> str:
    lines = []
    for sub in spec.subcommands:
        parts = [f"    {spec.filename} {sub.name}"]
        for option in sub.options:
            shown = option.flag if option.kind == "flag" else f"{option.flag} X"
            parts.append(shown if option.required else f"[{shown}]")
        lines.append(" ".join(parts))
    return "\n".join(lines)


def _handler(sub: Subcommand) -> list[str]:
    func = sub.name.replace("-", "_")
    body = [
        "",
        "",
        f"def command_{func}(args: argparse.Namespace) -> int:",
        f'    """{sub.help}。"""',
    ]
    has_topic_required = any(o.flag == "--topic" and o.required for o in sub.options)
    topic = "args.topic" if has_topic_required else '(args.topic or "_scratch")'
    body += [
        f"    project = _project_dir(args.root, {topic})",
        f'    items = _read_items(project / "assets" / "{sub.name}.md")',
        f'    settings: dict[str, object] = {{"command": "{sub.name}", "at": _now()}}',
    ]
    has_dry_run = False
    for option in sub.options:
        dest = option.dest
        if option.flag == "--topic":
            continue
        if option.kind == "choice":
            body += [
                f"    if args.{dest} not in {option.constant}:",
                f'        return _fail(f"未知的 {dest}：{{args.{dest}}}", EXIT_BAD_INPUT)',
                f'    settings["{dest}"] = args.{dest}',
            ]
            if option.constant == "MODES":
                body += ['    if args.mode == "deep":', "        items = _expand(items)"]
        elif option.kind == "int":
            if dest == "max_chars":
                body.append(f"    items = [_clip(item, args.{dest}) for item in items]")
            else:
                body.append(f"    items = items[: max(args.{dest}, 0)]")
            body.append(f'    settings["{dest}"] = args.{dest}')
        elif option.kind == "value":
            if dest == "keyword":
                body += [
                    "    if args.keyword:",
                    "        items = [item for item in items if args.keyword in item]",
                ]
            body.append(f'    settings["{dest}"] = args.{dest}')
        else:
            has_dry_run = has_dry_run or dest == "dry_run"
            body.append(f'    settings["{dest}"] = bool(args.{dest})')
    for flag in sub.exclusive or ():
        dest = flag[2:].replace("-", "_")
        body.append(f'    settings["{dest}"] = bool(args.{dest})')
    body += [
        "    ranked = _rank(items)",
        '    result = {"settings": settings, "count": len(ranked), "top": ranked[:5]}',
        '    result["words"] = _top_words(ranked, 5)',
    ]
    if has_dry_run:
        body += ["    if args.dry_run:", "        return _emit(result, args.format, args.quiet)"]
    body += [
        f'    _write_json(project / "assets" / "{sub.name}.json", result)',
        "    return _emit(result, args.format, args.quiet)",
    ]
    return body


def _add_argument_line(target: str, option: Option) -> str:
    parts = [f'"{option.flag}"']
    if option.kind == "flag":
        parts.append('action="store_true"')
    elif option.kind == "int":
        low, high = INT_OPTIONS[option.flag]
        parts += ["type=int", f"default={(low + high) // 2}"]
    elif option.kind == "choice":
        parts += [f"choices={option.constant}", f"default={option.constant}[0]"]
    if option.required:
        parts.append("required=True")
    parts.append(f'help="{option.help}"')
    line = f"    {target}.add_argument({', '.join(parts)})"
    if len(line) <= 100:
        return line
    inner = ",\n        ".join(parts)
    return f"    {target}.add_argument(\n        {inner},\n    )"


def _build_parser(spec: ScriptSpec) -> list[str]:
    lines = ["", ""]
    if spec.shared_style == "helper":
        lines += [
            "def _add_output_options(parser: argparse.ArgumentParser) -> None:",
            '    """Every subcommand prints the same way."""',
            '    parser.add_argument("--format", choices=OUTPUT_FORMATS, default="json")',
            '    parser.add_argument("--quiet", action="store_true", help="不打印结果")',
            "",
            "",
        ]
    lines += [
        "def build_parser() -> argparse.ArgumentParser:",
        f'    parser = argparse.ArgumentParser(prog="{spec.filename}", description="{spec.purpose}")',
        '    parser.add_argument("--root", default=DEFAULT_ROOT, help="outputs 目录")',
    ]
    if spec.shared_style == "parents":
        lines += [
            "    shared = argparse.ArgumentParser(add_help=False)",
            '    shared.add_argument("--format", choices=OUTPUT_FORMATS, default="json")',
            '    shared.add_argument("--quiet", action="store_true", help="不打印结果")',
        ]
    lines.append('    commands = parser.add_subparsers(dest="command", required=True)')
    for sub in spec.subcommands:
        var = f"{sub.name}_parser"
        extra = ", parents=[shared]" if spec.shared_style == "parents" else ""
        alias = f', aliases=["{sub.alias}"]' if sub.alias else ""
        lines += [
            "",
            f'    {var} = commands.add_parser("{sub.name}"{alias}{extra}, help="{sub.help}")',
        ]
        lines += [_add_argument_line(var, option) for option in sub.options]
        if sub.exclusive:
            first, second = sub.exclusive
            lines += [
                f"    {sub.name}_group = {var}.add_mutually_exclusive_group()",
                f'    {sub.name}_group.add_argument("{first}", action="store_true")',
                f'    {sub.name}_group.add_argument("{second}", action="store_true")',
            ]
        if spec.shared_style == "helper":
            lines.append(f"    _add_output_options({var})")
        elif spec.shared_style == "loop":
            lines += [
                f'    {var}.add_argument("--format", choices=OUTPUT_FORMATS, default="json")',
                '    for flag in ("--quiet",):',
                f'        {var}.add_argument(flag, action="store_true", help="不打印结果")',
            ]
        lines.append(f"    {var}.set_defaults(handler=command_{sub.name.replace('-', '_')})")
    lines += ["    return parser"]
    return lines


SCRIPT_MAIN = """

def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except output_paths.OutputPathError as exc:
        return _fail(str(exc), EXIT_BAD_INPUT)


if __name__ == "__main__":
    raise SystemExit(main())
"""


def script_text(spec: ScriptSpec) -> str:
    head = SCRIPT_HEAD.format(filename=spec.filename, purpose=spec.purpose, usage=_usage(spec))
    constants = [f"{name} = {CONSTANTS[name]!r}" for name in spec.constants]
    constants.append(f"OUTPUT_FORMATS = {OUTPUT_FORMATS!r}")
    parts = [head + "\n".join(constants) + "\n" + SCRIPT_CORE_HELPERS.format()]
    for sub in spec.subcommands:
        parts.append("\n".join(_handler(sub)) + "\n")
    parser_text = "\n".join(_build_parser(spec)) + "\n"
    core_lines = sum(p.count("\n") for p in parts) + parser_text.count("\n") + 12
    rng = random.Random(f"{SEED}:padding:{spec.index}")
    padding_index = 0
    while core_lines < spec.target_lines - 10:
        template = PADDING_TEMPLATES[padding_index % len(PADDING_TEMPLATES)]
        word = padding_index % len(PADDING_NOUNS)
        noun = PADDING_NOUNS[word]
        suffix = padding_index // len(PADDING_NOUNS)
        name = noun if suffix == 0 else f"{noun}_v{suffix + 1}"
        chunk = template.format(noun=name, cn=PADDING_CN[word], number=rng.randint(2, 12))
        parts.append(chunk)
        core_lines += chunk.count("\n")
        padding_index += 1
    return "".join(parts) + parser_text + SCRIPT_MAIN


# ---------------------------------------------------------------------------------------------
# Skills
# ---------------------------------------------------------------------------------------------

DOMAINS = (
    ("xhs", "小红书"), ("douyin", "抖音"), ("wechat", "公众号"), ("zhihu", "知乎"),
    ("bili", "B站"), ("video", "短视频"), ("podcast", "播客"), ("blog", "博客"),
)  # fmt: skip
ACTIONS = (
    ("plan", "策划", "plan"), ("draft", "起草", "plan"), ("polish", "润色", "produce"),
    ("score", "评分", "discover"), ("export", "导出", "produce"), ("audit", "检查", "general"),
    ("trend", "趋势分析", "discover"), ("digest", "数据汇总", "attribute"),
    ("review", "复盘", "attribute"), ("schedule", "排期", "publish"),
)  # fmt: skip
SUBJECTS = (
    ("选题", "topic.md"), ("标题", "titles.md"), ("封面文案", "cover.md"), ("正文", "note.md"),
    ("视频脚本", "script.md"), ("卡片脚本", "cards.md"), ("评论回复", "replies.md"),
    ("话题标签", "tags.md"), ("摘要", "summary.md"), ("发布计划", "schedule.md"),
)  # fmt: skip
USER_THEMES = (
    "第一次租房", "通勤穿搭", "周末露营", "家庭记账", "新手健身", "手冲咖啡", "职场汇报",
    "考研复习", "旧物改造", "城市骑行", "早餐食谱", "宠物训练", "亲子阅读", "副业起步",
)  # fmt: skip
REFERENCE_KINDS = (
    ("checklist", "检查清单"), ("style-guide", "风格规范"), ("scoring", "评分标准"),
    ("platform-limits", "平台限制"), ("structure", "结构模板"), ("glossary", "术语表"),
    ("tone", "语气指南"), ("examples-pattern", "常见模式"),
)  # fmt: skip
CHECK_ITEMS = (
    "标题不超过 20 字，且包含一个具体的数字或场景",
    "开头三行内交代读者能得到什么",
    "每段只讲一个点，段落不超过 4 行",
    "没有绝对化用语（最、第一、100%）和夸大承诺",
    "涉及价格、数据时写明来源和时间",
    "话题标签 3～8 个，和正文内容直接相关",
    "结尾有一个可回答的问题引导评论",
    "产物文件名与输出一节列出的一致",
    "manifest 步骤已登记，summary 一句话说清结论",
    "中间件都在 assets/ 下，项目根只有成品",
    "没有出现账号后台、内部链接或联系方式",
    "卡片与正文的要点一一对应，没有遗漏",
    "专有名词写法前后一致",
    "段落之间有过渡，不是要点的堆砌",
    "引用的经验写清适用前提",
    "表情符号不超过每段一个",
    "列表项的句式保持一致",
    "数字统一用阿拉伯数字",
)  # fmt: skip
DELIVERABLE_FIELDS = (
    ("标题", "不超过 20 字"), ("钩子", "读者为什么要点开"), ("目标人群", "一句话画像"),
    ("基调", "口吻和情绪"), ("核心信息", "必须出现的事实"), ("禁用表达", "画像和平台禁止的词"),
    ("结构", "段落或分镜顺序"), ("证据", "数据与来源"), ("行动号召", "希望读者做什么"),
    ("话题标签", "3～8 个"), ("封面文案", "大字标题加一行副标题"), ("备选方案", "两个备选及适用场景"),
    ("风险提示", "时效、争议、合规"), ("下游说明", "交给下一层时要注意的点"),
)  # fmt: skip
STEP_NOTES = (
    "挑一条作为推荐，另外两条留作备选。",
    "和上游产物对照，删掉重复的条目。",
    "条目太少时换 deep 模式重跑一次。",
    "把不符合画像口吻的条目先剔除。",
    "保留原始顺序的编号，便于回溯。",
)  # fmt: skip
FAQ = (
    ("上游产物不全怎么办？", "先用 manifest 的 latest 看最近一步，缺什么就向用户要什么，不要编造。"),
    ("用户只给了一句话怎么办？", "按输入一节的必填项逐项确认，其余用默认值并在简报里写明。"),
    ("脚本报参数错误怎么办？", "读错误信息里的可选值，改正后重跑，不要换成别的子命令硬凑。"),
    ("产物已经存在怎么办？", "先读旧产物，和用户确认是覆盖还是另存为新版本。"),
    ("平台规则变了怎么办？", "以平台限制参考文件为准；发现过时就在回复里提醒维护者。"),
    ("需要多个版本吗？", "默认给一个推荐版本，另附两个备选，说明各自适合的场景。"),
    ("用户要求加急怎么办？", "用 fast 模式先交付可用版本，在简报里记下待补的部分。"),
    ("用户不认可推荐版本怎么办？", "问清不满意的具体点，只改那一处，不要整体推翻。"),
    ("上游和用户说法冲突怎么办？", "以用户最新的说法为准，并在简报里记下冲突点。"),
    ("素材涉及他人隐私怎么办？", "去掉可识别个人的信息，拿不准时先问用户。"),
)  # fmt: skip


@dataclass(frozen=True)
class SkillIdentity:
    index: int
    name: str
    domain_cn: str
    action_cn: str
    subject_cn: str
    deliverable: str
    layer: str


def skill_identity(index: int) -> SkillIdentity:
    rng = random.Random(f"{SEED}:identity:{index}")
    domain, domain_cn = rng.choice(DOMAINS)
    action, action_cn, layer = rng.choice(ACTIONS)
    subject_cn, deliverable = rng.choice(SUBJECTS)
    return SkillIdentity(
        index=index,
        name=f"{domain}-{action}-{index:04d}",
        domain_cn=domain_cn,
        action_cn=action_cn,
        subject_cn=subject_cn,
        deliverable=deliverable,
        layer=layer,
    )


@dataclass
class PlantedDrift:
    """A command written wrong on purpose, and what the checker should say about it."""

    path: str  # workspace-relative, POSIX
    line: int  # 0-based line of the offending token
    code: str  # CM002 unknown-option, CM003 unknown-subcommand, CM006 invalid-choice
    token: str
    part: str  # the broken option (with its value) or subcommand, as written
    script: str
    argv: list[str]


@dataclass
class DocumentedCommand:
    path: str
    line: int  # 0-based line where the command starts
    script: str
    argv: list[str]  # as the shell would pass it, placeholders left in
    drift: str | None = None


@dataclass
class GeneratedWorkspace:
    root: Path
    skills: int
    scripts: int
    files: int
    projects: int
    commands: list[DocumentedCommand] = field(default_factory=list)
    drift: list[PlantedDrift] = field(default_factory=list)


def _is_abbreviation_of_any(token: str, flags: Iterable[str]) -> bool:
    return any(flag.startswith(token) for flag in flags)


def _typo(word: str, rng: random.Random) -> str:
    """Swap two neighbouring letters (never the first); a single-letter change looks real."""
    if len(word) < 3:
        return word + word[-1]
    position = rng.randint(1, len(word) - 2)
    swapped = word[:position] + word[position + 1] + word[position] + word[position + 2 :]
    return swapped if swapped != word else word + word[-1]


def _command_tokens(
    rng: random.Random, spec: ScriptSpec, sub: Subcommand
) -> tuple[list[str], list[str]]:
    """(tokens before the subcommand, tokens after it) of a valid command."""
    before = ['--root "$EASEL_OUTPUTS"'] if rng.random() < 0.1 else []
    after: list[str] = []
    optional = [o for o in sub.options if not o.required]
    chosen = {o.flag for o in rng.sample(optional, k=min(len(optional), rng.randint(0, 3)))}
    for option in sub.options:
        if not (option.required or option.flag in chosen or option.kind == "choice"):
            continue
        if option.kind == "flag":
            after.append(option.flag)
            continue
        if option.kind == "choice":
            assert option.constant is not None
            value = rng.choice(CONSTANTS[option.constant])
        elif option.kind == "int":
            value = str(rng.randint(*INT_OPTIONS[option.flag]))
        elif option.flag == "--topic":
            value = "<主题>"
        else:
            value = VALUE_OPTIONS[option.flag][0]
        joined = rng.random() < 0.15 and not value.startswith('"')
        after.append(f"{option.flag}={value}" if joined else f"{option.flag} {value}")
    if sub.exclusive and rng.random() < 0.5:
        after.append(rng.choice(sub.exclusive))
    if rng.random() < 0.3:
        after.append(f"--format {rng.choice(OUTPUT_FORMATS)}")
    return before, after


def _plant_drift(
    rng: random.Random, sub: Subcommand, subcommand_word: str, after: list[str]
) -> tuple[str, str, str, list[str]]:
    """Break one part of a valid command: (code, broken part, subcommand word, new after).

    Each break yields exactly one finding: required options are never misspelt (that would
    also make them missing).
    """
    choices = [i for i, part in enumerate(after) if _flag_of(part) in CHOICE_OPTIONS]
    kinds = ["CM002", "CM003"] + (["CM006", "CM006"] if choices else [])
    code = rng.choice(kinds)
    if code == "CM006":
        position = rng.choice(choices)
        flag = _flag_of(after[position])
        wrong = WRONG_CHOICES[CHOICE_OPTIONS[flag]]
        broken = f"{flag} {wrong}"
        after = [*after[:position], broken, *after[position + 1 :]]
        return code, broken, subcommand_word, after
    if code == "CM003":
        taken = {s for s in (sub.name, sub.alias) if s}
        wrong = _typo(sub.name, rng)
        while wrong in taken or wrong in SUBCOMMAND_VERBS:
            wrong += "s"
        return code, wrong, wrong, after
    # CM002: a misspelt option, not a prefix of any real one (argparse accepts abbreviations).
    known = [*sub.all_flags(), "--root"]
    required = {o.flag for o in sub.options if o.required}
    optional = [i for i, part in enumerate(after) if _flag_of(part) not in required]
    position = rng.choice(optional) if optional else len(after)
    source = after[position] if optional else "--format json"
    flag, sep, rest = (
        source.partition("=") if "=" in source.split(" ")[0] else source.partition(" ")
    )
    wrong = "--" + _typo(flag[2:], rng)
    while wrong in known or _is_abbreviation_of_any(wrong, known):
        wrong += "x"
    replaced = f"{wrong}{sep}{rest}"
    after = [*after[:position], replaced, *after[position + 1 :]]
    return code, replaced, subcommand_word, after


def _flag_of(part: str) -> str:
    return part.split("=")[0].split(" ")[0]


def _layout_command(script_path: str, before: list[str], word: str, after: list[str]) -> list[str]:
    """The command as Markdown lines, wrapped with `\\` continuations like the real skills."""
    head = " ".join(["python", script_path, *before, word])
    lines: list[str] = []
    current = head
    for part in after:
        if len(current) + 1 + len(part) > 96:
            lines.append(current + " \\")
            current = "  " + part
        else:
            current += " " + part
    lines.append(current)
    return lines


def _wrap_description(text: str) -> list[str]:
    """Break after full stops, like the hand-written skills (a folded scalar joins with spaces)."""
    sentences = [part + "。" for part in text.split("。") if part]
    return ["  " + sentence for sentence in sentences]


def _description(skill: SkillIdentity, neighbour: SkillIdentity) -> str:
    return (
        f"为{skill.domain_cn}内容做{skill.subject_cn}{skill.action_cn}：读取项目里的上游产物，"
        f"按参考规范给出一个推荐版本和两个备选，写入项目目录并登记 manifest 步骤。"
        f"适用场景：用户说“帮我{skill.action_cn}一下{skill.subject_cn}”"
        f"“这个{skill.subject_cn}怎么改更好”“{skill.domain_cn}{skill.subject_cn}没人看”。"
        f"不负责{neighbour.subject_cn}{neighbour.action_cn}，那部分交给 `{neighbour.name}`。"
    )


@dataclass
class _SkillFiles:
    files: dict[str, str]
    commands: list[DocumentedCommand]
    drift: list[PlantedDrift]


def _reference_text(skill: SkillIdentity, kind_cn: str, rng: random.Random) -> str:
    theme = rng.choice(USER_THEMES)
    rows = [
        f"| {item[:10]} | {rng.randint(1, 3)} 分 | {rng.randint(4, 5)} 分 |"
        for item in rng.sample(CHECK_ITEMS, k=rng.randint(4, 7))
    ]
    bullets = [f"- {item}。" for item in rng.sample(CHECK_ITEMS, k=rng.randint(5, 9))]
    paragraphs = [
        f"# {skill.subject_cn}{kind_cn}",
        "",
        f"本文件是 {skill.domain_cn}{skill.subject_cn}{skill.action_cn}的{kind_cn}，"
        "执行步骤需要时再读，不常驻上下文。",
        f"以“{theme}”这类生活方式话题为例说明判断方法，换到别的话题时只替换场景，不替换标准。",
        "",
        "## 判断标准",
        "",
        "| 维度 | 不合格 | 合格 |",
        "|---|---|---|",
        *rows,
        "",
        "## 要点",
        "",
        *bullets,
        "",
        "## 取舍",
        "",
        "标准之间冲突时，先保证信息准确，再保证读者能在三秒内看懂，最后才考虑修辞。",
        "拿不准的地方写进简报，交给用户决定，不要替用户做价值判断。",
    ]
    return "\n".join(paragraphs) + "\n"


def skill_files(
    skill: SkillIdentity, neighbour: SkillIdentity, specs: Sequence[ScriptSpec]
) -> _SkillFiles:
    rng = random.Random(f"{SEED}:skill:{skill.index}")
    folder = f"skills/openclaw/{skill.name}"
    files: dict[str, str] = {}
    references = rng.sample(REFERENCE_KINDS, k=rng.randint(2, 3))
    for slug, kind_cn in references:
        files[f"{folder}/references/{slug}.md"] = _reference_text(skill, kind_cn, rng)

    lines = ["---", f"name: {skill.name}", "description: >-"]
    lines += _wrap_description(_description(skill, neighbour))
    lines += [f"layer: {skill.layer}", "---", ""]
    title = f"{skill.domain_cn}{skill.subject_cn}{skill.action_cn}"
    lines += [
        f"# {title}",
        "",
        f"> 把上游产物变成一份可交接的{skill.subject_cn}，并登记到项目 manifest。",
        "",
    ]
    lines += [
        "## 输入",
        "",
        "- 主题（必填）：即项目目录名 `outputs/<主题>/`。",
        f"- 上游产物（可选）：manifest 最近一步列出的文件；没有时用用户对{skill.subject_cn}的描述。",
        "- 用户素材（可选）：亲身经历、数据、想强调或回避的点。",
        f"- 目标平台（可选）：默认{skill.domain_cn}，其它平台按平台限制参考调整。",
        "",
        "## 输出（写入 outputs/<主题>/）",
        "",
        f"- `outputs/<主题>/{skill.deliverable}`：{skill.subject_cn}成品，放项目根。",
        f"- `outputs/<主题>/assets/{skill.name}.json`：中间结果，供下游读取。",
        "- manifest 步骤：本层一步，outputs 为上面的成品。",
        "",
        "## 产物格式",
        "",
        f"`{skill.deliverable}` 第一行是 `# 标题`，之后按下表的字段顺序各写一节；字段缺失时写“待补”。",
        "",
        "| 字段 | 说明 | 必填 |",
        "|---|---|---|",
        *[
            f"| {name} | {meaning} | {'是' if rng.random() < 0.5 else '否'} |"
            for name, meaning in rng.sample(DELIVERABLE_FIELDS, k=rng.randint(8, 12))
        ],
        "",
        "## 执行步骤",
        "",
    ]
    commands: list[DocumentedCommand] = []
    drift: list[PlantedDrift] = []
    step = 1
    scripts = [specs[(skill.index * 7 + k * 13) % len(specs)] for k in range(2)]
    for k in range(TOOL_COMMANDS_PER_SKILL):
        slug, kind_cn = references[k % len(references)]
        spec = scripts[k % len(scripts)]
        sub = rng.choice(spec.subcommands)
        lines.append(
            f"{step}. {sub.help}：按 [{kind_cn}](references/{slug}.md) 处理{skill.subject_cn}，"
            "结果写进项目 assets/："
        )
        lines.append("")
        word = sub.alias if sub.alias and rng.random() < 0.5 else sub.name
        before, after = _command_tokens(rng, spec, sub)
        code = None
        if rng.random() < DRIFT_RATE:
            code, broken, word, after = _plant_drift(rng, sub, word, after)
        lines.append("```bash")
        start = len(lines)
        command_lines = _layout_command(spec.workspace_path, before, word, after)
        lines += command_lines
        lines += ["```", ""]
        argv = _shell_words(" ".join(line.rstrip(" \\") for line in command_lines))
        commands.append(
            DocumentedCommand(f"{folder}/SKILL.md", start, spec.workspace_path, argv, code)
        )
        if code is not None:
            # The broken part never spans lines; its first word (or the value) is the token.
            offset = next(i for i, text in enumerate(command_lines) if _has_part(text, broken))
            bad = broken.split(" ")[-1] if code == "CM006" else broken.split("=")[0].split(" ")[0]
            drift.append(
                PlantedDrift(
                    f"{folder}/SKILL.md",
                    start + offset,
                    code,
                    bad,
                    broken,
                    spec.workspace_path,
                    argv,
                )
            )
        lines.append(
            f"   命令失败时先读错误信息；{rng.choice(CHECK_ITEMS)}，不合格就改，不要带病交付。"
        )
        lines.append(f"   结果里的 top 是排好序的前五条，{rng.choice(STEP_NOTES)}")
        lines.append("")
        step += 1
    lines += [f"{step}. 登记步骤（有上游产物时再加 `--upstream`）：", "", "```bash"]
    record = [
        "python skills/shared/scripts/manifest.py record --topic <主题> \\",
        f"  --layer {skill.layer} --skill {skill.name} \\",
        f'  --outputs {skill.deliverable} --summary "<一句话结论>"',
    ]
    start = len(lines)
    lines += [*record, "```", ""]
    commands.append(
        DocumentedCommand(
            f"{folder}/SKILL.md",
            start,
            "skills/shared/scripts/manifest.py",
            _shell_words(" ".join(line.rstrip(" \\") for line in record)),
        )
    )
    lines += [
        f"{step + 1}. 告诉用户{skill.subject_cn}已就绪，下游可以从 manifest 读取。",
        "",
        "## Profile 感知",
        "",
        "- 上下文里有 `=== EASEL ACCOUNT PROFILE ===` 标记块时，按画像里的人设口吻、称呼和常用句式写，",
        "  避开画像列出的禁区话题和禁用词；登记时加 `--profile <画像>`。",
        "- 画像给了固定栏目或签名档时，按栏目格式收尾。",
        "- 没有画像时用中性、真诚的第一人称口吻，并在简报里写明“未使用画像”。",
        "",
        "## 质量自查",
        "",
    ]
    target = rng.randint(140, 160)
    tail = [
        "",
        "## 边界",
        "",
        f"- 不负责{neighbour.subject_cn}{neighbour.action_cn}（交给 `{neighbour.name}`）。",
        "- 不直接发布；发布前的安全检查由发布层负责。",
    ]
    checks = list(CHECK_ITEMS)
    rng.shuffle(checks)
    faq = list(FAQ)
    rng.shuffle(faq)
    room = target - len(lines) - len(tail) - 4
    check_count = max(4, min(len(checks), room // 2))
    lines += [f"- [ ] {item}" for item in checks[:check_count]]
    lines += ["", "## 常见问题", ""]
    for question, answer in faq:
        if len(lines) + len(tail) + 2 > target:
            break
        lines += [f"- {question}", f"  {answer}"]
    lines += tail
    files[f"{folder}/SKILL.md"] = "\n".join(lines) + "\n"

    for number in range(1, rng.randint(1, 2) + 1):
        theme = rng.choice(USER_THEMES)
        files[f"{folder}/tests/test{number}.prompt"] = (
            f"主题是“{theme}”，帮我{skill.action_cn}一下{skill.domain_cn}的{skill.subject_cn}，"
            "目标读者是刚工作的年轻人。\n"
        )
        files[f"{folder}/tests/test{number}.expected"] = (
            f"# {skill.subject_cn}{skill.action_cn}的关键字\n{skill.subject_cn}\n"
            f"re:{theme}|{skill.domain_cn}\nre:(推荐|备选)\n"
        )
    return _SkillFiles(files, commands, drift)


def _has_part(line: str, part: str) -> bool:
    """Whether the words of `part` occur in order, side by side, among the words of `line`."""
    words, wanted = _shell_words(line.rstrip(" \\")), _shell_words(part)
    return any(words[i : i + len(wanted)] == wanted for i in range(len(words)))


def _shell_words(text: str) -> list[str]:
    import shlex

    return shlex.split(text)


# ---------------------------------------------------------------------------------------------
# outputs/
# ---------------------------------------------------------------------------------------------


def project_files(index: int, skills: Sequence[SkillIdentity]) -> dict[str, str]:
    rng = random.Random(f"{SEED}:project:{index}")
    topic = f"{USER_THEMES[index % len(USER_THEMES)]}-{index + 1:03d}"
    steps_skills = rng.sample(list(skills), k=min(len(skills), rng.randint(1, 3)))
    day = 1 + index % 28
    created = f"2025-05-{day:02d}T09:00:00+08:00"
    steps = []
    previous_outputs: list[str] = []
    for number, skill in enumerate(steps_skills):
        outputs = ["note.md"] if number == 0 else [f"assets/{skill.name}.md"]
        steps.append(
            {
                "layer": skill.layer,
                "skill": skill.name,
                "at": f"2025-05-{day:02d}T{10 + number:02d}:00:00+08:00",
                "status": "done",
                "outputs": outputs,
                "upstream": previous_outputs,
                "summary": f"{skill.subject_cn}{skill.action_cn}完成",
            }
        )
        previous_outputs = outputs
    manifest = {
        "topic": topic,
        "created": created,
        "updated": steps[-1]["at"] if steps else created,
        "title": f"{topic.split('-')[0]}：我踩过的坑和做对的事",
        "platform": "小红书",
        "kind": "xhs-note",
        "status": rng.choice(("draft", "ready")),
        "tags": [topic.split("-")[0], "经验分享"],
        "deliverables": ["note.md"],
        "steps": steps,
    }
    base = f"outputs/{topic}"
    files = {f"{base}/.easel.json": json.dumps(manifest, ensure_ascii=False, indent=2) + "\n"}
    body = [f"# {manifest['title']}", ""]
    for item in rng.sample(CHECK_ITEMS, k=8):
        body += [f"{item}。这是我在{topic.split('-')[0]}里反复验证过的做法，供你参考。", ""]
    body.append(f"#{topic.split('-')[0]} #经验分享")
    files[f"{base}/note.md"] = "\n".join(body) + "\n"
    for step in steps[1:]:
        for output in step["outputs"]:
            files[f"{base}/{output}"] = f"# {step['summary']}\n\n- {step['skill']} 的中间稿。\n"
    return files


# ---------------------------------------------------------------------------------------------
# Putting it together
# ---------------------------------------------------------------------------------------------

WORKSPACE_CONFIG = """# easel-ls settings of a generated benchmark workspace (defaults made explicit).
max-body-lines = 200
"""


def generate(
    count: int,
    out: Path,
    *,
    force: bool = True,
    shared_scripts: int = SHARED_SCRIPT_COUNT,
    script_lines: tuple[int, int] = DEFAULT_SCRIPT_LINES,
) -> GeneratedWorkspace:
    """Write a workspace of `count` skills to `out` (replaced when `force`), with
    `shared_scripts` generated CLIs of about `script_lines` lines."""
    if count < 1:
        raise ValueError("the workspace needs at least one skill")
    if out.exists():
        generated = (out / "easel-ls.toml").is_file() and (
            (out / "easel-ls.toml").read_text("utf-8").startswith(WORKSPACE_CONFIG.splitlines()[0])
        )
        if not force or not generated:
            raise FileExistsError(
                f"{out} exists and is not a generated workspace; not replacing it"
            )
        shutil.rmtree(out)
    if shared_scripts < 1 or not 1 <= script_lines[0] <= script_lines[1]:
        raise ValueError("at least one shared script, and script lines A-B with 1 <= A <= B")
    specs = [script_spec(i, script_lines) for i in range(1, shared_scripts + 1)]
    identities = [skill_identity(i) for i in range(count)]
    result = GeneratedWorkspace(root=out, skills=count, scripts=len(specs), files=0, projects=0)
    files: dict[str, str] = {"easel-ls.toml": WORKSPACE_CONFIG}
    for spec in specs:
        files[spec.workspace_path] = script_text(spec)
    for identity in identities:
        # The previous skill (the next one for the first), so ws-N is a prefix of ws-M.
        neighbour = identities[identity.index - 1 if identity.index else min(1, count - 1)]
        made = skill_files(identity, neighbour, specs)
        files.update(made.files)
        result.commands += made.commands
        result.drift += made.drift
    result.projects = max(2, int(count * PROJECTS_PER_SKILL))
    for index in range(result.projects):
        files.update(project_files(index, identities))
    for relative, text in files.items():
        target = out / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, "utf-8")
    shared = out / "skills" / "shared" / "scripts"
    for name in REAL_SHARED_SCRIPTS:
        source = REPO_ROOT / "skills" / "shared" / "scripts" / name
        if source.is_file():
            shutil.copyfile(source, shared / name)
            result.files += 1
    result.files += len(files)
    return result


def generator_digest() -> str:
    """Changes whenever this generator or the real shared scripts it copies change, so stale
    benchmark workspaces get rebuilt."""
    digest = hashlib.sha256(Path(__file__).read_bytes())
    for name in REAL_SHARED_SCRIPTS:
        source = REPO_ROOT / "skills" / "shared" / "scripts" / name
        digest.update(source.read_bytes() if source.is_file() else b"")
    return digest.hexdigest()[:16]


def summary_of(result: GeneratedWorkspace) -> dict[str, object]:
    return {
        "generator_version": GENERATOR_VERSION,
        "generator_digest": generator_digest(),
        "root": str(result.root),
        "skills": result.skills,
        "scripts": result.scripts,
        "files": result.files,
        "projects": result.projects,
        "commands": len(result.commands),
        "drift": [asdict(d) for d in result.drift],
    }


def _line_range(text: str) -> tuple[int, int]:
    low, sep, high = text.partition("-")
    try:
        bounds = (int(low), int(high if sep else low))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected A-B, got {text!r}") from None
    if not 1 <= bounds[0] <= bounds[1]:
        raise argparse.ArgumentTypeError(f"expected 1 <= A <= B, got {text!r}")
    return bounds


def default_out(count: int) -> Path:
    return BENCHMARKS_DIR / "workspaces" / f"ws-{count}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("count", type=int, metavar="N", help="number of skills")
    parser.add_argument(
        "--out", type=Path, help="target folder (default benchmarks/workspaces/ws-N)"
    )
    parser.add_argument(
        "--shared-scripts",
        type=int,
        default=SHARED_SCRIPT_COUNT,
        metavar="N",
        help=f"generated shared argparse CLIs (default {SHARED_SCRIPT_COUNT})",
    )
    parser.add_argument(
        "--script-lines",
        type=_line_range,
        default=DEFAULT_SCRIPT_LINES,
        metavar="A-B",
        help="their length in lines (default 520-1480, with 10-20 subcommands; shorter "
        "scripts get as many subcommands as fit)",
    )
    args = parser.parse_args(argv)
    if args.count < 1 or args.shared_scripts < 1:
        parser.error("N and --shared-scripts must be at least 1")
    out = (args.out or default_out(args.count)).resolve()
    result = generate(
        args.count, out, shared_scripts=args.shared_scripts, script_lines=args.script_lines
    )
    summary = summary_of(result)
    stamp = out.with_name(out.name + ".json")
    stamp.write_text(json.dumps(summary, ensure_ascii=False, indent=2) + "\n", "utf-8")
    print(
        f"{out}: {result.skills} skills, {result.scripts} shared scripts, {result.projects} "
        f"projects, {result.files} files, {len(result.commands)} commands "
        f"({len(result.drift)} with planted drift); ground truth in {stamp.name}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
