"""`easel-ls route "REQUEST" [PATH]`: which skills a request reaches on the resident metadata
alone (the ranking of ``services/routing.py``, the one the RT rules use)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

EXIT_CLEAN, EXIT_ERROR = 0, 2


def build_route_parser(prog: str = "easel-ls route") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Rank the workspace's skills for a request the way the agent routes: on "
        "every skill's name and description alone (BM25 over CJK character n-grams and words).",
    )
    parser.add_argument("request", help="the user's request, e.g. “把这篇笔记做成图文”")
    parser.add_argument("path", nargs="?", default=".", help="the workspace (default: here)")
    parser.add_argument("--top", type=int, default=5, help="how many skills to show (default 5)")
    parser.add_argument(
        "--output-format", choices=("text", "json"), default="text", help="text or json"
    )
    parser.add_argument("--config", type=Path, help="a config file to use instead of the closest")
    return parser


def route_main(argv: Sequence[str]) -> int:
    args = build_route_parser().parse_args(list(argv))
    from easel_ls.config import ConfigError
    from easel_ls.services.routing import route
    from easel_ls.workspace import Workspace, find_root

    start = Path(args.path).resolve()
    if not start.exists():
        sys.stderr.write(f"easel-ls route: `{args.path}` does not exist\n")
        return EXIT_ERROR
    if not args.request.strip():
        sys.stderr.write("easel-ls route: the request is empty\n")
        return EXIT_ERROR
    try:
        ws = Workspace.at(find_root(start), args.config)
        ws.memoise_disk(True)
        result = route(ws, args.request, top=max(1, args.top))
    except ConfigError as exc:
        sys.stderr.write(f"easel-ls route: {exc}\n")
        return EXIT_ERROR
    if args.output_format == "json":
        sys.stdout.write(json.dumps(result.to_json(ws.root), ensure_ascii=False, indent=2) + "\n")
        return EXIT_CLEAN
    if result.skills == 0:
        sys.stdout.write(f"No skills with a description under {ws.root}.\n")
        return EXIT_CLEAN
    out = [f"Request: {result.request}", f"Ranked {result.skills} skills on name + description:"]
    if not result.ranking:
        out.append("  no skill shares a word with this request")
    width = max((len(r.name) for r in result.ranking), default=0)
    for r in result.ranking:
        layer = f"[{r.layer}]" if r.layer else ""
        words = "、".join(r.matched[:6]) or "—"
        out.append(f"  {r.rank}. {r.name:<{width}}  {r.score:7.2f}  {layer:<11} {words}")
    if len(result.ranking) > 1:
        first, second = result.ranking[0], result.ranking[1]
        share = second.score / first.score if first.score else 0.0
        verdict = " (a near tie: the agent may pick either)" if share >= 0.9 else ""
        out.append(
            f"Margin: {result.margin:.2f} (`{first.name}` over `{second.name}`, "
            f"{round(share * 100)} % of its score){verdict}"
        )
    sys.stdout.write("\n".join(out) + "\n")
    return EXIT_CLEAN
