"""How fast routing is: the index over N skills, one request's ranking, and what RT adds to a
cold `easel-ls check` — each beside a peer measured in the same run (machines here are shared
and noisy, so ratios mean more than seconds).

    python benchmarks/bench_routing.py [--sizes 100,1000] [--repeat 7] [--no-check]

- **index build** and **rank one request** over the descriptions of a generated workspace
  (`gen_workspace.py`, reused when present), every request being a quoted trigger phrase or a
  `tests/N.prompt`; beside them `rank_bm25.BM25Okapi` (installed into /tmp/rank-bm25-venv when
  missing) on the same terms: build, and `get_scores` for the same requests.
- **cold check**: `easel-ls check` on ws-80-real and ws-1000 with RT on (the default) and with
  `--ignore RT`, interleaved, cache deleted before each run; the ratio is what RT costs.

Targets (issue #21): rank ≤ 5 ms p95 and build ≤ 200 ms over 1000 skills; cold check ≤ +5 %.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
WORKSPACES = REPO / "benchmarks" / "workspaces"
PEER_VENV = Path("/tmp/rank-bm25-venv")


def ensure_workspace(size: int) -> Path:
    root = WORKSPACES / f"ws-{size}"
    if not (root / "skills").is_dir():
        subprocess.run(
            [sys.executable, str(REPO / "benchmarks" / "gen_workspace.py"), str(size)], check=True
        )
    return root


def ensure_real_shaped() -> Path:
    root = WORKSPACES / "ws-80-real"
    if not (root / "skills").is_dir():
        subprocess.run(
            [
                sys.executable,
                str(REPO / "benchmarks" / "gen_workspace.py"),
                "80",
                "--shared-scripts",
                "8",
                "--script-lines",
                "200-800",
                "--out",
                str(root),
            ],
            check=True,
        )
    return root


def requests_of(root: Path) -> tuple[list[object], list[tuple[str, str]]]:
    """The skills' cards and every (request, skill) their descriptions and tests claim."""
    from easel_ls.model.routing import trigger_phrases
    from easel_ls.rules.routing import routing_state
    from easel_ls.workspace import Workspace

    ws = Workspace.at(root)
    ws.memoise_disk(True)
    state = routing_state(ws, (tuple(ws.settings_for(root).option("boundary-words")),))
    cards = [m.card for m in state.metas.values()]
    requests: list[tuple[str, str]] = []
    for name, meta in state.metas.items():
        requests += [(p.text, name) for p in trigger_phrases(meta.card.description)]
        for prompt in sorted((meta.skill.folder / "tests").glob("*.prompt")):
            requests.append((prompt.read_text("utf-8").strip(), name))
    return cards, requests


def peer_python() -> Path | None:
    python = PEER_VENV / "bin" / "python"
    if not python.exists():
        done = subprocess.run([sys.executable, "-m", "venv", str(PEER_VENV)], check=False)
        if done.returncode == 0:
            subprocess.run([str(python), "-m", "pip", "install", "-q", "rank-bm25"], check=False)
    probe = subprocess.run([str(python), "-c", "import rank_bm25"], check=False)
    return python if probe.returncode == 0 else None


PEER_SCRIPT = r"""
import json, sys, time, statistics
from rank_bm25 import BM25Okapi
data = json.load(sys.stdin)
docs, queries, repeat = data["docs"], data["queries"], data["repeat"]
builds = []
for _ in range(repeat):
    t = time.perf_counter(); bm = BM25Okapi(docs); builds.append(time.perf_counter() - t)
times = []
for q in queries:
    t = time.perf_counter(); bm.get_scores(q); times.append(time.perf_counter() - t)
times.sort()
print(json.dumps({"build": statistics.median(builds),
                  "p50": times[len(times) // 2], "p95": times[int(len(times) * 0.95)]}))
"""


def bench_model(size: int, repeat: int, peer: Path | None) -> dict[str, object]:
    from easel_ls.model.routing import RoutingIndex, normalise, term_texts

    cards, requests = requests_of(ensure_workspace(size))
    builds = []
    for _ in range(repeat):
        start = time.perf_counter()
        index = RoutingIndex.build(cards, boundary_cues=("不负责", "交给", "请用"))  # type: ignore[arg-type]
        builds.append(time.perf_counter() - start)
    rank_times = []
    rival_times = []
    for text, own in requests:
        start = time.perf_counter()
        index.rank(text)
        rank_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        index.best_rival(text, own, 0.9)
        rival_times.append(time.perf_counter() - start)
    rank_times.sort()
    rival_times.sort()
    row: dict[str, object] = {
        "skills": len(cards),
        "requests": len(requests),
        "build_s": statistics.median(builds),
        "rank_p50_ms": rank_times[len(rank_times) // 2] * 1000,
        "rank_p95_ms": rank_times[int(len(rank_times) * 0.95)] * 1000,
        "rival_p95_ms": rival_times[int(len(rival_times) * 0.95)] * 1000,
    }
    if peer is not None:
        docs = [term_texts(normalise(f"{c.name}\n{c.description}")) for c in cards]  # type: ignore[attr-defined]
        queries = [term_texts(normalise(text)) for text, _ in requests]
        done = subprocess.run(
            [str(peer), "-c", PEER_SCRIPT],
            input=json.dumps({"docs": docs, "queries": queries, "repeat": repeat}),
            capture_output=True,
            text=True,
            check=True,
        )
        theirs = json.loads(done.stdout)
        row["peer_build_s"] = theirs["build"]
        row["peer_p95_ms"] = theirs["p95"] * 1000
    return row


def cold_check(root: Path, extra: list[str]) -> float:
    shutil.rmtree(root / ".easel-ls-cache", ignore_errors=True)
    start = time.perf_counter()
    subprocess.run(
        [
            str(Path(sys.executable).parent / "easel-ls"),
            "check",
            str(root),
            "--output-format",
            "concise",
            "--exit-zero",
            *extra,
        ],
        stdout=subprocess.DEVNULL,
        check=True,
    )
    return time.perf_counter() - start


def bench_check(root: Path, repeat: int) -> dict[str, float]:
    on: list[float] = []
    off: list[float] = []
    cold_check(root, [])  # page cache and bytecode warm for both
    for _ in range(repeat):
        on.append(cold_check(root, []))
        off.append(cold_check(root, ["--ignore", "RT"]))
    return {"rt_on_s": statistics.median(on), "rt_off_s": statistics.median(off)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100,1000")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--no-check", action="store_true", help="skip the cold-check runs")
    parser.add_argument("--no-peer", action="store_true", help="skip rank_bm25")
    args = parser.parse_args()
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "")
    peer = None if args.no_peer else peer_python()
    print(
        "| skills | requests | build | rank p50 | rank p95 | RT001 test p95 | rank_bm25 build | rank_bm25 p95 |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for size in [int(s) for s in args.sizes.split(",") if s]:
        row = bench_model(size, args.repeat, peer)
        peer_cells = (
            f"{row['peer_build_s'] * 1000:.0f} ms | {row['peer_p95_ms']:.2f} ms"  # type: ignore[operator]
            if "peer_build_s" in row
            else "— | —"
        )
        print(
            f"| {row['skills']} | {row['requests']} | {row['build_s'] * 1000:.0f} ms "  # type: ignore[operator]
            f"| {row['rank_p50_ms']:.2f} ms | {row['rank_p95_ms']:.2f} ms "
            f"| {row['rival_p95_ms']:.2f} ms | {peer_cells} |"
        )
    if not args.no_check:
        print()
        print("| tree | check, RT on | check, --ignore RT | RT adds |")
        print("|---|---:|---:|---:|")
        for root in (ensure_real_shaped(), ensure_workspace(1000)):
            row2 = bench_check(root, args.repeat)
            ratio = row2["rt_on_s"] / row2["rt_off_s"] - 1
            print(
                f"| {root.name} | {row2['rt_on_s']:.3f} s | {row2['rt_off_s']:.3f} s "
                f"| {ratio * 100:+.1f} % |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
