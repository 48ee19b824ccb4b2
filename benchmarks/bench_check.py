#!/usr/bin/env python3
"""Benchmark `easel-ls --check` on generated workspaces.

    python benchmarks/bench_check.py [--sizes 100,1000,5000] [--repeat K] [--profile N]

Byte-compiles easel-ls first (as installing it does). For each size: generate
`benchmarks/workspaces/ws-N` (reused while the generator is unchanged), then run
`easel-ls --check <ws> --output-format concise --exit-zero` in fresh processes: cold = first
run after dropping `<ws>/.easel-ls-cache` (if the checker keeps one), warm = the next run, with
that cache hot. The OS page cache is never dropped, so "cold" means a cold checker, not a cold
disk. Each figure is the median of K pairs. Peak RSS is the child's own `ru_maxrss` from
`os.wait4`. Also verifies that the `--check` path never imports pygls, prints a
Markdown table and writes `benchmarks/results.md` with the machine facts.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import json
import os
import platform
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import gen_workspace

BENCHMARKS_DIR = Path(__file__).resolve().parent
RESULTS_FILE = BENCHMARKS_DIR / "results.md"
CACHE_DIR_NAME = ".easel-ls-cache"
TARGETS = {  # size -> (cold seconds, warm seconds); RSS and pygls are checked for every size
    1000: (3.0, 1.0),
    5000: (12.0, None),
}
RSS_TARGET_MB = 300.0
DRIFT_CODES = {"CM002", "CM003", "CM006"}

PYGLS_PROBE = """
import contextlib, io, sys
from easel_ls.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    main(["--check", sys.argv[1], "--output-format", "concise", "--exit-zero", "--no-progress"])
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("pygls", "lsprotocol"))
print(",".join(loaded))
"""


@dataclass
class Run:
    wall_seconds: float
    max_rss_mb: float
    exit_code: int
    report_lines: list[str]


@dataclass
class SizeResult:
    skills: int
    files: int
    cold: Run
    warm: Run
    cold_seconds: float
    warm_seconds: float
    peak_rss_mb: float
    findings: Counter[str]
    planted: int
    planted_found: int


def checker_command(python: str) -> list[str]:
    """`easel-ls` beside the interpreter when installed there, else `python -m easel_ls`."""
    script = Path(python).with_name("easel-ls")
    return [str(script)] if script.is_file() else [python, "-m", "easel_ls"]


BYTECODE_PROBE = """
import compileall, os, sys
import easel_ls
ok = compileall.compile_dir(os.path.dirname(easel_ls.__file__), quiet=1)
sys.exit(0 if ok else 1)
"""


def ensure_bytecode(python: str) -> None:
    """Byte-compile easel-ls, as installing it does. An editable install under
    PYTHONDONTWRITEBYTECODE would otherwise compile every module in every run (~60 ms)."""
    subprocess.run([python, "-c", BYTECODE_PROBE], check=True)


def run_check(command: list[str], workspace: Path) -> Run:
    argv = [*command, "--check", str(workspace), "--output-format", "concise", "--exit-zero"]
    with tempfile.TemporaryFile("w+", encoding="utf-8") as report:
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdout=report, stderr=subprocess.STDOUT, cwd=workspace)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        report.seek(0)
        lines = report.read().splitlines()
    # Linux reports ru_maxrss in KiB, macOS in bytes.
    rss_mb = usage.ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)
    return Run(wall, rss_mb, child.returncode, lines)


def drop_cache(workspace: Path) -> None:
    cache = workspace / CACHE_DIR_NAME
    if cache.is_dir():
        shutil.rmtree(cache)


def ensure_workspace(size: int) -> tuple[Path, dict[str, object]]:
    workspace = gen_workspace.default_out(size)
    stamp = workspace.with_name(workspace.name + ".json")
    if workspace.is_dir() and stamp.is_file():
        summary = json.loads(stamp.read_text("utf-8"))
        if summary.get("generator_digest") == gen_workspace.generator_digest():
            return workspace, summary
    started = time.perf_counter()
    result = gen_workspace.generate(size, workspace)
    summary = gen_workspace.summary_of(result)
    stamp.write_text(json.dumps(summary, ensure_ascii=False, indent=2) + "\n", "utf-8")
    print(f"  generated {workspace.name} in {time.perf_counter() - started:.1f} s", flush=True)
    return workspace, summary


def finding_codes(lines: list[str]) -> Counter[str]:
    """Codes of the concise report lines (`path:row:col: CODE message`)."""
    codes: Counter[str] = Counter()
    for line in lines:
        parts = line.split(": ", 2)
        if len(parts) >= 2 and parts[1][:1].isalpha() and parts[1].split(" ")[0].isalnum():
            codes[parts[1].split(" ")[0]] += 1
    return codes


def found_drift(lines: list[str], planted: list[dict[str, object]]) -> int:
    """How many planted drift locations the report names with the planted code."""
    reported = set()
    for line in lines:
        head, _, rest = line.partition(": ")
        path_and_row = head.rpartition(":")[0]  # drop the column
        path, _, row = path_and_row.rpartition(":")
        if row.isdigit() and rest.split(" ")[0] in DRIFT_CODES:
            reported.add((path, int(row) - 1, rest.split(" ")[0]))
    return sum((d["path"], d["line"], d["code"]) in reported for d in planted)


def bench_size(command: list[str], size: int, repeat: int) -> SizeResult:
    workspace, summary = ensure_workspace(size)
    colds: list[Run] = []
    warms: list[Run] = []
    for _ in range(repeat):
        drop_cache(workspace)
        colds.append(run_check(command, workspace))
        warms.append(run_check(command, workspace))
    for run in colds + warms:
        if run.exit_code != 0:
            tail = "\n".join(run.report_lines[-20:])
            raise SystemExit(f"easel-ls exited {run.exit_code} on {workspace}:\n{tail}")
    planted = list(summary.get("drift", []))  # type: ignore[call-overload]
    return SizeResult(
        skills=size,
        files=int(summary.get("files", 0)),  # type: ignore[call-overload]
        cold=colds[0],
        warm=warms[0],
        cold_seconds=statistics.median(r.wall_seconds for r in colds),
        warm_seconds=statistics.median(r.wall_seconds for r in warms),
        peak_rss_mb=max(r.max_rss_mb for r in colds + warms),
        findings=finding_codes(colds[0].report_lines),
        planted=len(planted),
        planted_found=found_drift(colds[0].report_lines, planted),
    )


def pygls_probe(python: str) -> str:
    """Modules of pygls/lsprotocol loaded by a `--check` run (empty when none)."""
    workspace, _ = ensure_workspace(100)
    completed = subprocess.run(
        [python, "-c", PYGLS_PROBE, str(workspace)], capture_output=True, text=True, check=False
    )
    if completed.returncode != 0:
        return f"probe failed: {completed.stderr.strip().splitlines()[-1:]}"
    return completed.stdout.strip()


def profile_top(python: str, size: int, top: int = 15) -> str:
    """cProfile of a cold run: wrapper frames excluded, by cumulative and by own time."""
    workspace, _ = ensure_workspace(size)
    drop_cache(workspace)
    with tempfile.TemporaryDirectory() as scratch:
        stats_file = Path(scratch) / "check.prof"
        argv = [python, "-m", "cProfile", "-o", str(stats_file), "-m", "easel_ls", "--check"]
        argv += [str(workspace), "--output-format", "concise", "--exit-zero"]
        argv += ["--output-file", os.devnull]
        completed = subprocess.run(argv, capture_output=True, text=True, check=False)
        if not stats_file.is_file():
            return f"profiling failed: {completed.stderr.strip()[-2000:]}"
        sections = []
        # About ten frames (runpy, cli, engine loop) wrap the whole run: show them and more.
        for key, title, rows in (
            ("cumulative", "cumulative time", top + 10),
            ("tottime", "own time", top),
        ):
            out = io.StringIO()
            stats = pstats.Stats(str(stats_file), stream=out)
            stats.sort_stats(key).print_stats(rows)
            body = out.getvalue()
            table_start = body.find("   ncalls")
            sections.append(f"top {rows} by {title}:\n" + body[table_start:].rstrip())
    return "\n\n".join(sections)


def machine_facts(python: str) -> dict[str, str]:
    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    checker_python = subprocess.run(
        [python, "-c", "import sys, easel_ls; print(sys.version.split()[0], easel_ls.__version__)"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split()
    return {
        "date": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "nproc": str(os.cpu_count()),
        "cpu": cpu,
        "os": f"{platform.system()} {platform.release()}",
        "python": checker_python[0] if checker_python else platform.python_version(),
        "easel-ls": checker_python[1] if len(checker_python) > 1 else "?",
    }


def verdict(value: float, limit: float | None) -> str:
    if limit is None:
        return ""
    return f" ({'ok' if value <= limit else 'MISS'} ≤ {limit:g})"


def table(results: Sequence[SizeResult]) -> str:
    rows = [
        "| skills | files | cold s | warm s | skills/s cold | skills/s warm | peak RSS MB "
        "| findings | planted drift found |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        cold_target, warm_target = TARGETS.get(r.skills, (None, None))
        rows.append(
            f"| {r.skills} | {r.files} | {r.cold_seconds:.2f}{verdict(r.cold_seconds, cold_target)}"
            f" | {r.warm_seconds:.2f}{verdict(r.warm_seconds, warm_target)}"
            f" | {r.skills / r.cold_seconds:.0f} | {r.skills / r.warm_seconds:.0f}"
            f" | {r.peak_rss_mb:.0f}{verdict(r.peak_rss_mb, RSS_TARGET_MB)}"
            f" | {sum(r.findings.values())} | {r.planted_found}/{r.planted} |"
        )
    return "\n".join(rows)


def write_results(
    results: Sequence[SizeResult],
    facts: dict[str, str],
    pygls: str,
    repeat: int,
    profile: str | None,
    argv: Sequence[str],
) -> str:
    lines = [
        "# `easel-ls --check` benchmark results",
        "",
        f"Reproduce: `{' '.join(['python benchmarks/bench_check.py', *argv])}`",
        "",
        "| fact | value |",
        "|---|---|",
        *[f"| {key} | {value} |" for key, value in facts.items()],
        f"| repeats (median) | {repeat} |",
        "",
        table(results),
        "",
        "Targets: 1000 skills cold ≤ 3 s, warm ≤ 1 s; 5000 skills cold ≤ 12 s; peak RSS ≤ 300 MB.",
        "",
        f"pygls on the `--check` path: {pygls or 'not imported'}",
        "",
        "Findings per code (cold run):",
        "",
    ]
    for r in results:
        counts = ", ".join(f"{code} {n}" for code, n in sorted(r.findings.items()))
        lines.append(f"- {r.skills} skills: {counts or 'none'}")
    if profile:
        lines += ["", "cProfile of a cold run:", "", "```", profile, "```"]
    text = "\n".join(lines) + "\n"
    RESULTS_FILE.write_text(text + _peers_section(), "utf-8")
    return text


def _peers_section() -> str:
    """The side-by-side section bench_peers.py wrote into results.md, and the notes that follow
    it, kept as they are."""
    start, end = "<!-- bench_peers:start -->", "<!-- bench_peers:end -->"
    current = RESULTS_FILE.read_text("utf-8") if RESULTS_FILE.is_file() else ""
    if start not in current or end not in current:
        return ""
    return "\n" + start + current.partition(start)[2].rstrip("\n") + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(description="Benchmark easel-ls --check.")
    parser.add_argument("--sizes", default="100,1000,5000", help="comma-separated skill counts")
    parser.add_argument("--repeat", type=int, default=1, help="cold/warm pairs per size (median)")
    parser.add_argument(
        "--python", default=sys.executable, help="interpreter that has easel-ls installed"
    )
    parser.add_argument("--profile", type=int, metavar="N", help="also cProfile a cold run at N")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    if not sizes or min(sizes) < 1 or args.repeat < 1:
        parser.error("sizes and --repeat must be positive")
    command = checker_command(args.python)
    ensure_bytecode(args.python)
    facts = machine_facts(args.python)
    results = []
    for size in sizes:
        print(f"{size} skills …", flush=True)
        result = bench_size(command, size, args.repeat)
        print(
            f"  cold {result.cold_seconds:.2f} s, warm {result.warm_seconds:.2f} s, "
            f"peak RSS {result.peak_rss_mb:.0f} MB",
            flush=True,
        )
        results.append(result)
    pygls = pygls_probe(args.python)
    profile = profile_top(args.python, args.profile) if args.profile else None
    text = write_results(results, facts, pygls, args.repeat, profile, argv)
    print()
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
