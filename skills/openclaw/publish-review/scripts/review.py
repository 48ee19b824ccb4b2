"""Turn a note's exported metrics (CSV or JSON) into a review report in outputs/<topic>/review.md.

Each metrics row is one day's increment (a single row is read as the running total); rows are
summed. Column names may be Chinese (曝光, 阅读, 点赞, 收藏, 评论, 分享, 涨粉) or English
(impressions, views, likes, collects, comments, shares, follows). Ratios are judged against the
rule-of-thumb ranges in `BENCHMARKS`, or against the account's own average when `--baseline`
gives a metrics file of earlier notes. The report is registered as a deliverable of the project
and the step is recorded in its manifest.

Exit codes: 0 ok, 2 bad arguments, unreadable metrics or bad output path; manifest.py failures
pass their code through.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

SHARED_SCRIPTS = Path(__file__).resolve().parents[3] / "shared" / "scripts"
MANIFEST_CLI = SHARED_SCRIPTS / "manifest.py"
sys.path.insert(0, str(SHARED_SCRIPTS))

import output_paths  # noqa: E402

METRIC_ALIASES = {
    "impressions": ("impressions", "曝光", "曝光量", "展现"),
    "views": ("views", "reads", "阅读", "阅读量", "观看", "观看量", "浏览"),
    "likes": ("likes", "点赞", "点赞数"),
    "collects": ("collects", "saves", "收藏", "收藏数"),
    "comments": ("comments", "评论", "评论数"),
    "shares": ("shares", "分享", "分享数"),
    "follows": ("follows", "new_followers", "涨粉", "新增关注"),
}
METRIC_LABELS = {
    "impressions": "曝光",
    "views": "阅读",
    "likes": "点赞",
    "collects": "收藏",
    "comments": "评论",
    "shares": "分享",
    "follows": "涨粉",
}
# (low, high) rule-of-thumb ranges for a small or mid-sized account; see references/metrics.md.
BENCHMARKS = {
    "click_rate": (0.06, 0.10),
    "engagement_rate": (0.03, 0.08),
    "collect_rate": (0.01, 0.03),
    "comment_rate": (0.002, 0.005),
    "follow_per_k": (1.0, 3.0),
}
RATIO_LABELS = {
    "click_rate": "点击率（阅读/曝光）",
    "engagement_rate": "互动率（赞藏评转/阅读）",
    "collect_rate": "收藏率（收藏/阅读）",
    "comment_rate": "评论率（评论/阅读）",
    "follow_per_k": "千次阅读涨粉",
    "collect_like_ratio": "藏赞比（收藏/点赞）",
}
ADVICE = {
    "click_rate": "封面和标题没有抓住人：换更强的钩子（数字、反差、身份词），封面字更大更少。",
    "engagement_rate": "点进来但没有互动：内容兑现不了标题的承诺，或信息密度不足，检查前两张图。",
    "collect_rate": "收藏偏低：缺少可保存的干货，补清单、步骤、对比表等“以后要用”的内容。",
    "comment_rate": "评论偏低：结尾缺少可回答的问题，给出二选一或征集经验的引导。",
    "follow_per_k": "涨粉偏低：读者不知道为什么要关注，强化人设标签和系列化预告，检查主页承接。",
    "collect_like_ratio": "藏赞比下降：内容偏情绪、可保存的信息变少，干货定位的账号要补实操细节。",
}
FORMATS = ("csv", "json")
EXIT_BAD_INPUT = 2


def load_rows(path: Path) -> list[dict[str, str]]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        fail(f"读不到数据文件 {path}：{error}")
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            fail(f"{path} 不是合法 JSON（第 {error.lineno} 行）：{error.msg}")
        rows = data if isinstance(data, list) else [data]
        return [{str(k): str(v) for k, v in row.items()} for row in rows if isinstance(row, dict)]
    return list(csv.DictReader(io.StringIO(text)))


def sum_metrics(rows: list[dict[str, str]]) -> dict[str, float]:
    totals: dict[str, float] = {}
    for row in rows:
        normalised = {key.strip().lower(): value for key, value in row.items() if key}
        for metric, aliases in METRIC_ALIASES.items():
            raw = next((normalised[a] for a in aliases if a in normalised), None)
            value = parse_number(raw)
            if value is not None:
                totals[metric] = totals.get(metric, 0.0) + value
    return totals


def parse_number(raw: str | None) -> float | None:
    if raw is None:
        return None
    text = raw.strip().replace(",", "")
    multiplier = 10000.0 if text.endswith(("w", "W", "万")) else 1.0
    text = text.rstrip("wW万")
    try:
        return float(text) * multiplier
    except ValueError:
        return None


def ratios_of(totals: dict[str, float]) -> dict[str, float]:
    views = totals.get("views", 0.0)
    ratios: dict[str, float] = {}
    if totals.get("impressions"):
        ratios["click_rate"] = views / totals["impressions"]
    if views:
        interactions = sum(totals.get(k, 0.0) for k in ("likes", "collects", "comments", "shares"))
        ratios["engagement_rate"] = interactions / views
        ratios["collect_rate"] = totals.get("collects", 0.0) / views
        ratios["comment_rate"] = totals.get("comments", 0.0) / views
        if "follows" in totals:
            ratios["follow_per_k"] = totals["follows"] / views * 1000
    if totals.get("likes"):
        ratios["collect_like_ratio"] = totals.get("collects", 0.0) / totals["likes"]
    return ratios


def judge(name: str, value: float, baseline: dict[str, float]) -> str:
    if name in baseline and baseline[name] > 0:
        change = value / baseline[name] - 1
        if change <= -0.2:
            return f"低于账号基准 {abs(change):.0%}"
        if change >= 0.2:
            return f"高于账号基准 {change:.0%}"
        return "接近账号基准"
    if name == "collect_like_ratio":
        return "干货型（收藏多于点赞）" if value >= 1 else "情绪/共鸣型（点赞多于收藏）"
    low, high = BENCHMARKS[name]
    if value < low:
        return "偏低"
    if value > high:
        return "优秀"
    return "正常"


def format_ratio(name: str, value: float) -> str:
    if name == "follow_per_k":
        return f"{value:.1f}"
    if name == "collect_like_ratio":
        return f"{value:.2f}"
    return f"{value:.2%}"


def build_report(topic: str, totals: dict[str, float], ratios: dict, baseline: dict) -> str:
    lines = [f"# 发布复盘：{topic}", "", "## 数据总览", "", "| 指标 | 数值 |", "|---|---|"]
    for metric, label in METRIC_LABELS.items():
        if metric in totals:
            lines.append(f"| {label} | {totals[metric]:.0f} |")
    lines += ["", "## 关键比率", "", "| 比率 | 数值 | 判断 |", "|---|---|---|"]
    verdicts = {name: judge(name, value, baseline) for name, value in ratios.items()}
    for name, value in ratios.items():
        lines.append(f"| {RATIO_LABELS[name]} | {format_ratio(name, value)} | {verdicts[name]} |")
    weak = [name for name, verdict in verdicts.items() if verdict.startswith(("偏低", "低于"))]
    lines += ["", "## 归因与下一步", ""]
    if not ratios:
        lines.append("- 数据不足：至少需要阅读量，最好同时有曝光量，才能计算比率。")
    for name in weak:
        lines.append(f"- {RATIO_LABELS[name]}{verdicts[name]}：{ADVICE[name]}")
    if ratios and not weak:
        lines.append("- 各项比率都不低：保持选题方向，把本篇结构沉淀为模板，做同系列下一篇。")
    missing = [METRIC_LABELS[m] for m in METRIC_LABELS if m not in totals]
    if missing:
        lines += ["", f"> 缺少字段：{'、'.join(missing)}，相关比率未计算。"]
    return "\n".join(lines) + "\n"


def command_analyze(args: argparse.Namespace) -> int:
    root = Path(args.root)
    totals = sum_metrics(load_rows(Path(args.metrics)))
    if not totals:
        fail(f"{args.metrics} 里没有可识别的数据列；用 template 子命令查看表头。")
    baseline = ratios_of(sum_metrics(load_rows(Path(args.baseline)))) if args.baseline else {}
    ratios = ratios_of(totals)
    try:
        target = output_paths.validate_output_path(root / args.topic / "review.md", root=root)
    except output_paths.OutputPathError as error:
        fail(str(error))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(build_report(args.topic, totals, ratios, baseline), encoding="utf-8")

    existing = read_manifest(root, args.topic)
    deliverables = [d for d in existing.get("deliverables", []) if isinstance(d, str)]
    if target.name not in deliverables:
        deliverables.append(target.name)
    run_manifest(root, ["meta", "--topic", args.topic, "--deliverables", ",".join(deliverables)])
    weak = [n for n, v in ratios.items() if judge(n, v, baseline).startswith(("偏低", "低于"))]
    summary = "短板：" + "、".join(RATIO_LABELS[n] for n in weak) if weak else "各项比率不低"
    record = ["record", "--topic", args.topic, "--layer", "attribute", "--skill", "publish-review"]
    record += ["--outputs", target.name, "--summary", summary]
    run_manifest(root, record)
    result = {"topic": args.topic, "report": str(target), "totals": totals, "ratios": ratios}
    print(json.dumps(result, ensure_ascii=False, indent=2))
    return 0


def command_template(args: argparse.Namespace) -> int:
    headers = [METRIC_LABELS[m] for m in METRIC_LABELS]
    if args.format == "json":
        print(json.dumps([dict.fromkeys(["日期", *headers], "")], ensure_ascii=False, indent=2))
    else:
        print(",".join(["日期", *headers]))
    return 0


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
        print(f"review: manifest.py {argv[0]} 失败：{result.stderr.strip()}", file=sys.stderr)
        sys.exit(result.returncode)


def fail(message: str) -> NoReturn:
    print(f"review: {message}", file=sys.stderr)
    sys.exit(EXIT_BAD_INPUT)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="review.py", description="笔记发布数据复盘报告")
    parser.add_argument(
        "--root",
        default=os.environ.get("EASEL_OUTPUTS", "outputs"),
        help="outputs 目录（默认 outputs，或环境变量 EASEL_OUTPUTS）",
    )
    subparsers = parser.add_subparsers(dest="command", required=True)

    analyze = subparsers.add_parser("analyze", help="读数据文件，写 outputs/<主题>/review.md")
    analyze.add_argument("--topic", required=True, help="项目主题，即 outputs/<主题>/ 的目录名")
    analyze.add_argument("--metrics", required=True, help="本篇数据，CSV 或 JSON")
    analyze.add_argument("--baseline", help="账号近期笔记数据（同格式），作为对比基准")
    analyze.set_defaults(handler=command_analyze)

    template = subparsers.add_parser("template", help="打印数据文件表头模板")
    template.add_argument("--format", choices=FORMATS, default="csv", help="模板格式")
    template.set_defaults(handler=command_template)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
