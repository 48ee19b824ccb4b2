"""Render a Markdown card script into SVG image cards under outputs/<topic>/.

The card script is plain Markdown: cards are separated by a line holding only `---`; the first
heading of a card is its title, the rest is its body (paragraphs and `-` / `1.` list items). The
first card is the cover. Cards are 1080 px wide SVG files named `card_1.svg`, `card_2.svg`, ...
and are registered as deliverables of the project with `skills/shared/scripts/manifest.py`.

Stdlib only. Exit codes: 0 ok, 2 bad arguments or output path, 3 a card does not fit or the
script is empty, other codes are passed through from manifest.py.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn
from xml.sax.saxutils import escape

SHARED_SCRIPTS = Path(__file__).resolve().parents[3] / "shared" / "scripts"
MANIFEST_CLI = SHARED_SCRIPTS / "manifest.py"
sys.path.insert(0, str(SHARED_SCRIPTS))

import output_paths  # noqa: E402

THEME_NAMES = ("paper", "mint", "night")
THEMES = {
    "paper": {
        "label": "米白纸感，适合干货清单",
        "background": "#FBF7EF",
        "title": "#2B2B2B",
        "text": "#3C3C3C",
        "accent": "#E8604C",
        "muted": "#9A9184",
    },
    "mint": {
        "label": "薄荷清爽，适合生活方式与好物",
        "background": "#EEF7F2",
        "title": "#1F3B33",
        "text": "#2F4A42",
        "accent": "#2E9E7A",
        "muted": "#7FA396",
    },
    "night": {
        "label": "深色高对比，适合科技与观点",
        "background": "#1E2230",
        "title": "#F5F3EE",
        "text": "#DCDDE3",
        "accent": "#F2B84B",
        "muted": "#8A8FA3",
    },
}
SIZE_NAMES = ("3x4", "1x1")
SIZES = {"3x4": (1080, 1440), "1x1": (1080, 1080)}
FONT_FAMILY = "PingFang SC, Noto Sans CJK SC, Source Han Sans SC, Microsoft YaHei, sans-serif"

MARGIN = 96
LINE_HEIGHT = 1.6
BODY_FONT_SIZES = (44, 40, 36, 32)
COVER_TITLE_SIZES = (92, 80, 68)
PAGE_TITLE_SIZES = (64, 56, 48)
FOOTER_FONT_SIZE = 28
# Punctuation that must not start a line (Chinese typesetting rule).
NO_LINE_START = set("，。、；：！？）】」』》”’,.;:!?)%")

EXIT_BAD_INPUT = 2
EXIT_DOES_NOT_FIT = 3


@dataclass
class Card:
    title: str
    blocks: list[tuple[str, str]] = field(default_factory=list)  # (kind, text): para | item


@dataclass
class Line:
    text: str
    size: int
    color_key: str
    bold: bool = False
    gap_before: float = 0.0


class CardDoesNotFit(Exception):
    pass


def parse_card_script(text: str) -> list[Card]:
    chunks = re.split(r"^[ \t]*---[ \t]*$", text, flags=re.MULTILINE)
    cards = []
    for chunk in chunks:
        card = _parse_card(chunk)
        if card.title or card.blocks:
            cards.append(card)
    return cards


def _parse_card(chunk: str) -> Card:
    card = Card(title="")
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            card.blocks.append(("para", "".join(paragraph)))
            paragraph.clear()

    for raw in chunk.splitlines():
        line = _strip_inline_markup(raw.strip())
        heading = re.match(r"^#{1,6}\s+(.*)$", line)
        item = re.match(r"^(?:[-*+]|\d+[.)、])\s+(.*)$", line)
        if not line:
            flush()
        elif heading and not card.title:
            flush()
            card.title = heading.group(1).strip()
        elif heading:
            flush()
            card.blocks.append(("para", heading.group(1).strip()))
        elif item:
            flush()
            card.blocks.append(("item", item.group(1).strip()))
        else:
            paragraph.append(line)
    flush()
    return card


def _strip_inline_markup(line: str) -> str:
    line = re.sub(r"\*\*(.+?)\*\*|__(.+?)__", lambda m: m.group(1) or m.group(2), line)
    line = re.sub(r"`([^`]*)`", r"\1", line)
    return re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", line)


def char_width(char: str) -> float:
    """Width in em: CJK and full-width characters are square, Latin is about half."""
    if char == " ":
        return 0.3
    if unicodedata.east_asian_width(char) in ("W", "F"):
        return 1.0
    return 0.58


def wrap(text: str, max_em: float) -> list[str]:
    # Latin words stay whole; CJK breaks between any two characters.
    tokens = re.findall(r"[A-Za-z0-9_@#&%+\-./:']+|\s+|.", text)
    lines: list[str] = []
    current = ""
    width = 0.0
    for token in tokens:
        token_width = sum(char_width(c) for c in token)
        if token.isspace() and not current:
            continue
        fits = width + token_width <= max_em
        if not fits and current and token[0] not in NO_LINE_START:
            lines.append(current.rstrip())
            current, width = ("", 0.0) if token.isspace() else (token, token_width)
        else:
            current += token
            width += token_width
    if current.strip():
        lines.append(current.rstrip())
    return lines


def layout_card(card: Card, index: int, total: int, size: str) -> list[Line]:
    """Pick the largest font sizes at which the card fits; raise CardDoesNotFit otherwise."""
    width, height = SIZES[size]
    text_width = width - 2 * MARGIN
    available = height - 2 * MARGIN - FOOTER_FONT_SIZE * 2
    title_sizes = COVER_TITLE_SIZES if index == 1 else PAGE_TITLE_SIZES
    for step, body_size in enumerate(BODY_FONT_SIZES):
        title_size = title_sizes[min(step, len(title_sizes) - 1)]
        lines = _lines_for(card, title_size, body_size, text_width)
        if _height_of(lines) <= available:
            return lines
    needed = _height_of(_lines_for(card, title_sizes[-1], BODY_FONT_SIZES[-1], text_width))
    raise CardDoesNotFit(
        f"第 {index}/{total} 张卡片「{card.title or '无标题'}」文字过多："
        f"最小字号下需要 {needed:.0f}px 高，可用 {available}px。请拆成两张或精简文字。"
    )


def _lines_for(card: Card, title_size: int, body_size: int, text_width: int) -> list[Line]:
    lines: list[Line] = []
    for part in wrap(card.title, text_width / title_size) if card.title else []:
        lines.append(Line(part, title_size, "title", bold=True))
    first_block_gap = body_size * 1.2 if lines else 0.0
    for block_number, (kind, text) in enumerate(card.blocks):
        gap = first_block_gap if block_number == 0 else body_size * 0.6
        prefix = "• " if kind == "item" else ""
        indent_em = 1.2 if kind == "item" else 0.0
        wrapped = wrap(text, text_width / body_size - indent_em)
        for line_number, part in enumerate(wrapped):
            shown = (prefix if line_number == 0 else "\u3000" if prefix else "") + part
            lines.append(Line(shown, body_size, "text", gap_before=gap if line_number == 0 else 0))
    return lines


def _height_of(lines: list[Line]) -> float:
    return sum(line.size * LINE_HEIGHT + line.gap_before for line in lines)


def render_svg(
    lines: list[Line], index: int, total: int, theme: str, size: str, footer: str
) -> str:
    colors = THEMES[theme]
    width, height = SIZES[size]
    body_height = _height_of(lines)
    # The cover is centred vertically; content cards start under the top margin.
    y = (height - body_height) / 2 if index == 1 else MARGIN + 24
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">',
        f'<rect width="{width}" height="{height}" fill="{colors["background"]}"/>',
        f'<rect x="{MARGIN}" y="{MARGIN - 40}" width="72" height="10" rx="5" '
        f'fill="{colors["accent"]}"/>',
    ]
    for line in lines:
        y += line.gap_before + line.size * LINE_HEIGHT
        weight = ' font-weight="700"' if line.bold else ""
        parts.append(
            f'<text x="{MARGIN}" y="{y - line.size * (LINE_HEIGHT - 1) / 2:.1f}" '
            f'font-family="{FONT_FAMILY}" font-size="{line.size}"{weight} '
            f'fill="{colors[line.color_key]}">{escape(line.text)}</text>'
        )
    footer_y = height - MARGIN + FOOTER_FONT_SIZE
    if footer:
        parts.append(
            f'<text x="{MARGIN}" y="{footer_y}" font-family="{FONT_FAMILY}" '
            f'font-size="{FOOTER_FONT_SIZE}" fill="{colors["muted"]}">{escape(footer)}</text>'
        )
    parts.append(
        f'<text x="{width - MARGIN}" y="{footer_y}" text-anchor="end" font-family="{FONT_FAMILY}" '
        f'font-size="{FOOTER_FONT_SIZE}" fill="{colors["muted"]}">{index} / {total}</text>'
    )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def read_card_script(source: Path) -> list[Card]:
    try:
        text = source.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        fail(f"读不到卡片脚本 {source}：{error}", EXIT_BAD_INPUT)
    cards = parse_card_script(text)
    if not cards:
        fail(f"卡片脚本 {source} 里没有内容：用单独一行 --- 分隔每张卡片。", EXIT_DOES_NOT_FIT)
    return cards


def layout_all(cards: list[Card], size: str) -> list[list[Line]]:
    try:
        return [layout_card(card, i, len(cards), size) for i, card in enumerate(cards, 1)]
    except CardDoesNotFit as error:
        fail(str(error), EXIT_DOES_NOT_FIT)


def command_render(args: argparse.Namespace) -> int:
    root = Path(args.root)
    cards = read_card_script(Path(args.source))
    layouts = layout_all(cards, args.size)
    project = root / args.topic
    targets = []
    try:
        for index in range(1, len(cards) + 1):
            targets.append(
                output_paths.validate_output_path(project / f"card_{index}.svg", root=root)
            )
    except output_paths.OutputPathError as error:
        fail(str(error), EXIT_BAD_INPUT)

    project.mkdir(parents=True, exist_ok=True)
    for index, (target, lines) in enumerate(zip(targets, layouts, strict=True), 1):
        svg = render_svg(lines, index, len(cards), args.theme, args.size, args.footer)
        target.write_text(svg, encoding="utf-8")
    stale = remove_stale_cards(project, len(cards))

    card_names = [target.name for target in targets]
    existing = read_manifest(root, args.topic)
    deliverables = [d for d in existing.get("deliverables", []) if d not in stale]
    deliverables += [name for name in card_names if name not in deliverables]
    meta = ["meta", "--topic", args.topic, "--cover", card_names[0]]
    meta += ["--deliverables", ",".join(deliverables)]
    if not existing.get("kind"):
        meta += ["--kind", "cards"]
    run_manifest(root, meta)

    record = ["record", "--topic", args.topic, "--layer", "produce", "--skill", "card-maker"]
    record += ["--outputs", ",".join(card_names)]
    record += ["--summary", f"{len(cards)} 张卡片，主题 {args.theme}，尺寸 {args.size}"]
    upstream = relative_to_project(Path(args.source), project)
    if upstream:
        record += ["--upstream", upstream]
    run_manifest(root, record)

    report = {"topic": args.topic, "cards": card_names, "removed": stale, "theme": args.theme}
    print(json.dumps(report, ensure_ascii=False, indent=2))
    return 0


def command_check(args: argparse.Namespace) -> int:
    cards = read_card_script(Path(args.source))
    layouts = layout_all(cards, args.size)
    summary = [
        {"card": i, "title": card.title, "lines": len(lines), "body_font": body_font_of(lines)}
        for i, (card, lines) in enumerate(zip(cards, layouts, strict=True), 1)
    ]
    print(json.dumps({"cards": len(cards), "layout": summary}, ensure_ascii=False, indent=2))
    return 0


def body_font_of(lines: list[Line]) -> int | None:
    return next((line.size for line in lines if line.color_key == "text"), None)


def command_themes(args: argparse.Namespace) -> int:
    for name in THEME_NAMES:
        print(f"{name}\t{THEMES[name]['label']}")
    return 0


def remove_stale_cards(project: Path, count: int) -> list[str]:
    """Cards left over from an earlier, longer render would otherwise look current."""
    removed = []
    for path in sorted(project.glob("card_*.svg")):
        number = path.stem.removeprefix("card_")
        if number.isdigit() and int(number) > count:
            path.unlink()
            removed.append(path.name)
    return removed


def relative_to_project(source: Path, project: Path) -> str:
    try:
        return source.resolve().relative_to(project.resolve()).as_posix()
    except ValueError:
        return ""


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
    print(f"render_cards: {message}", file=sys.stderr)
    sys.exit(code)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="render_cards.py", description="把 Markdown 卡片脚本渲染成 SVG 图片卡片"
    )
    parser.add_argument(
        "--root",
        default=os.environ.get("EASEL_OUTPUTS", "outputs"),
        help="outputs 目录（默认 outputs，或环境变量 EASEL_OUTPUTS）",
    )
    subparsers = parser.add_subparsers(dest="command", required=True)

    render = subparsers.add_parser("render", help="渲染卡片并登记到项目 manifest")
    render.add_argument("--topic", required=True, help="项目主题，即 outputs/<主题>/ 的目录名")
    render.add_argument("--source", required=True, help="Markdown 卡片脚本路径")
    render.add_argument("--theme", choices=THEME_NAMES, default="paper", help="配色主题")
    render.add_argument("--size", choices=SIZE_NAMES, default="3x4", help="画幅：3x4 或 1x1")
    render.add_argument("--footer", default="", help="页脚署名，例如账号名")
    render.set_defaults(handler=command_render)

    check = subparsers.add_parser("check", help="只排版检查，不写文件")
    check.add_argument("--source", required=True, help="Markdown 卡片脚本路径")
    check.add_argument("--size", choices=SIZE_NAMES, default="3x4", help="画幅：3x4 或 1x1")
    check.set_defaults(handler=command_check)

    themes = subparsers.add_parser("themes", help="列出可用配色主题")
    themes.set_defaults(handler=command_themes)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
