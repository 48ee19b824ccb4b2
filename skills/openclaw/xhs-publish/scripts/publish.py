"""Pre-flight and publish package for a Xiaohongshu (小红书) note in outputs/<topic>/.

`check` validates the note against the platform limits and runs the outbound content guard in
warn-only mode. `post` does the same and, without `--exec`, prints what would be published (dry
run, nothing is written). With `--exec` the text must first pass
`content_guard.guard_or_die(..., exec_mode=True)` (exit 7 on sensitive content); only then is a
publish package written to `outputs/_publish/<topic>/<timestamp>.json` and the step recorded in
the project manifest. This script never touches the network: the package is what the browser
session posts from.

The note file is Markdown: the first `# ` heading is the title, the rest is the body, and
`#话题` tokens in the body are the topic tags.

Exit codes: 0 ok, 2 bad arguments or paths, 3 the note breaks a platform limit, 7 blocked by the
content guard; manifest.py failures pass their code through.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import NoReturn

SHARED_SCRIPTS = Path(__file__).resolve().parents[3] / "shared" / "scripts"
MANIFEST_CLI = SHARED_SCRIPTS / "manifest.py"
sys.path.insert(0, str(SHARED_SCRIPTS))

import content_guard  # noqa: E402
import output_paths  # noqa: E402

TITLE_MAX_CHARS = 20
BODY_MAX_CHARS = 1000
TAGS_MAX = 10
IMAGES_MAX = 18
POSTABLE_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp")
IMAGE_SUFFIXES = (*POSTABLE_IMAGE_SUFFIXES, ".svg", ".gif", ".heic")
VISIBILITIES = ("public", "private")

EXIT_BAD_INPUT = 2
EXIT_BREAKS_LIMITS = 3

TAG_PATTERN = re.compile(r"(?<![\w#&])#([^\s#，。！？、,.!?]{1,30})")


@dataclass
class Note:
    title: str
    body: str
    tags: list[str]


@dataclass
class Preflight:
    topic: str
    note: Note
    images: list[str]
    problems: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)


def parse_note(text: str) -> Note:
    title = ""
    body_lines = []
    for line in text.splitlines():
        heading = re.match(r"^#\s+(.+)$", line.strip())
        if heading and not title:
            title = heading.group(1).strip()
        else:
            body_lines.append(line)
    body = "\n".join(body_lines).strip()
    tags = list(dict.fromkeys(TAG_PATTERN.findall(body)))
    return Note(title=title, body=body, tags=tags)


def preflight(root: Path, topic: str, note_name: str, images_arg: str) -> Preflight:
    project = root / topic
    note_path = project / note_name
    try:
        note = parse_note(note_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        fail(f"读不到笔记 {note_path}：{error}", EXIT_BAD_INPUT)
    images = split_list(images_arg) if images_arg else images_from_manifest(root, topic)
    result = Preflight(topic=topic, note=note, images=images)
    problems = result.problems

    if not note.title:
        problems.append(f"{note_name} 缺少标题：第一行写 `# 标题`。")
    elif len(note.title) > TITLE_MAX_CHARS:
        problems.append(f"标题 {len(note.title)} 字，超过 {TITLE_MAX_CHARS} 字上限。")
    if not note.body:
        problems.append("正文为空。")
    elif len(note.body) > BODY_MAX_CHARS:
        problems.append(f"正文 {len(note.body)} 字，超过 {BODY_MAX_CHARS} 字上限。")
    if len(note.tags) > TAGS_MAX:
        problems.append(f"话题标签 {len(note.tags)} 个，超过 {TAGS_MAX} 个。")
    elif not note.tags:
        result.hints.append("没有话题标签：建议加 3~8 个 #话题 提升分发。")

    if not images:
        problems.append("没有图片：图文笔记至少 1 张图，可用 --images 指定或先登记 deliverables。")
    if len(images) > IMAGES_MAX:
        problems.append(f"图片 {len(images)} 张，超过 {IMAGES_MAX} 张上限。")
    for image in images:
        suffix = Path(image).suffix.lower()
        if not (project / image).is_file():
            problems.append(f"图片不存在：{image}")
        elif suffix not in POSTABLE_IMAGE_SUFFIXES:
            problems.append(f"{image} 是 {suffix} 格式，平台只接受 PNG/JPG/WEBP，请先导出。")
    return result


def images_from_manifest(root: Path, topic: str) -> list[str]:
    manifest = read_manifest(root, topic)
    deliverables = [d for d in manifest.get("deliverables", []) if isinstance(d, str)]
    images = [d for d in deliverables if Path(d).suffix.lower() in IMAGE_SUFFIXES]
    cover = manifest.get("cover")
    if cover in images:
        images.remove(cover)
        images.insert(0, cover)
    return images


def guard_note(pre: Preflight, *, exec_mode: bool, allow_unsafe: bool) -> None:
    """Every text that leaves the machine goes through the guard; exits 7 on BLOCK in exec."""
    parts = [pre.note.title, pre.note.body, " ".join(pre.note.tags)]
    content_guard.guard_or_die(
        parts, exec_mode=exec_mode, allow_unsafe=allow_unsafe, label=f"xhs-publish {pre.topic}"
    )


def command_check(args: argparse.Namespace) -> int:
    pre = preflight(Path(args.root), args.topic, args.note, args.images)
    guard_note(pre, exec_mode=False, allow_unsafe=False)
    print(json.dumps(summary_of(pre), ensure_ascii=False, indent=2))
    return EXIT_BREAKS_LIMITS if pre.problems else 0


def command_post(args: argparse.Namespace) -> int:
    root = Path(args.root)
    pre = preflight(root, args.topic, args.note, args.images)
    if pre.problems:
        print(json.dumps(summary_of(pre), ensure_ascii=False, indent=2))
        print("publish: 笔记不满足平台限制，未发布。", file=sys.stderr)
        return EXIT_BREAKS_LIMITS

    guard_note(pre, exec_mode=args.exec, allow_unsafe=args.allow_unsafe)
    package = {
        "platform": "小红书",
        "topic": pre.topic,
        "visibility": args.visibility,
        "title": pre.note.title,
        "body": pre.note.body,
        "tags": pre.note.tags,
        "images": [f"{pre.topic}/{image}" for image in pre.images],
    }
    if not args.exec:
        print(json.dumps({"dry_run": True, "would_post": package}, ensure_ascii=False, indent=2))
        print("publish: dry-run，没有写入发布包；确认后加 --exec。", file=sys.stderr)
        return 0

    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    try:
        target = output_paths.validate_output_path(
            root / "_publish" / pre.topic / f"{stamp}.json", allow_system=True, root=root
        )
    except output_paths.OutputPathError as error:
        fail(str(error), EXIT_BAD_INPUT)
    package["created"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    package["state"] = "queued"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(package, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")

    run_manifest(
        root,
        [
            "record",
            "--topic",
            pre.topic,
            "--layer",
            "publish",
            "--skill",
            "xhs-publish",
            "--summary",
            f"发布包已入队 _publish/{pre.topic}/{target.name}，{len(pre.images)} 张图",
        ],
    )
    print(json.dumps({"dry_run": False, "package": str(target)}, ensure_ascii=False, indent=2))
    return 0


def summary_of(pre: Preflight) -> dict:
    return {
        "topic": pre.topic,
        "ok": not pre.problems,
        "problems": pre.problems,
        "hints": pre.hints,
        "title_chars": len(pre.note.title),
        "body_chars": len(pre.note.body),
        "note": asdict(pre.note) | {"body": pre.note.body[:80]},
        "images": pre.images,
    }


def split_list(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def read_manifest(root: Path, topic: str) -> dict:
    result = subprocess.run(
        [sys.executable, str(MANIFEST_CLI), "--root", str(root), "read", "--topic", topic],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        return {}
    try:
        data = json.loads(result.stdout)
    except json.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


def run_manifest(root: Path, argv: list[str]) -> None:
    result = subprocess.run(
        [sys.executable, str(MANIFEST_CLI), "--root", str(root), *argv],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        fail(f"manifest.py {argv[0]} 失败：{result.stderr.strip()}", result.returncode)


def fail(message: str, code: int) -> NoReturn:
    print(f"publish: {message}", file=sys.stderr)
    sys.exit(code)


def add_note_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--topic", required=True, help="项目主题，即 outputs/<主题>/ 的目录名")
    parser.add_argument("--note", default="note.md", help="项目内的笔记文件（默认 note.md）")
    parser.add_argument(
        "--images", default="", help="逗号分隔的图片（相对项目目录）；缺省取 manifest 的成品图片"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="publish.py", description="小红书图文发布预检与发布包")
    parser.add_argument(
        "--root",
        default=os.environ.get("EASEL_OUTPUTS", "outputs"),
        help="outputs 目录（默认 outputs，或环境变量 EASEL_OUTPUTS）",
    )
    subparsers = parser.add_subparsers(dest="command", required=True)

    check = subparsers.add_parser("check", help="平台限制预检 + 内容安全提示，不写文件")
    add_note_options(check)
    check.set_defaults(handler=command_check)

    post = subparsers.add_parser("post", help="默认 dry-run；--exec 过安全闸门后写发布包")
    add_note_options(post)
    post.add_argument("--visibility", choices=VISIBILITIES, default="public", help="可见范围")
    post.add_argument("--exec", action="store_true", help="真发：过 content_guard 后写发布包")
    post.add_argument("--allow-unsafe", action="store_true", help="仅限人工确认后放行 BLOCK 级内容")
    post.set_defaults(handler=command_post)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
