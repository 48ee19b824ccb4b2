#!/usr/bin/env python3
"""easel-ls beside agnix (a Rust linter for agent skills) on the same trees, in one run.

    python benchmarks/bench_peers.py [--repeat 5] [--trees ws-80-real,ws-1000] [--extra PATH ...]

Trees: `ws-80-real`, generated like a real repository (80 skills, 8 shared scripts of 200-800
lines, references, tests, outputs projects, a few planted findings:
`gen_workspace.py 80 --shared-scripts 8 --script-lines 200-800`), and `ws-1000` (the 1000-skill
workspace of bench_check.py); `--extra` adds any folder (a real repository). Each round runs, in
this order: agnix, easel-ls cold (its cache folder deleted first), easel-ls warm (the next run,
cache hot). agnix keeps no cache, so its one figure is compared with both. Every figure is the
median of `--repeat` rounds of wall time of a fresh process, output to a file; the OS page cache
is never dropped. easel-ls is byte-compiled first, as installing it does.

agnix is taken from `--agnix`, else PATH, else the venv `--agnix-venv` (default
/tmp/agnix-venv), into which it is installed with pip when missing. When it cannot be found or
installed, the easel-ls figures are still measured and the ratios say why they are missing.

Prints a Markdown table with the ratios and the targets, and with `--write` (default) replaces
the side-by-side section of benchmarks/results.md.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import bench_check
import gen_workspace

BENCHMARKS_DIR = Path(__file__).resolve().parent
RESULTS_FILE = BENCHMARKS_DIR / "results.md"
SECTION_START = "<!-- bench_peers:start -->"
SECTION_END = "<!-- bench_peers:end -->"
DEFAULT_AGNIX_VENV = Path("/tmp/agnix-venv")

# name -> (skills, shared scripts, script lines) of a generated tree
GENERATED = {
    "ws-80-real": (80, 8, (200, 800)),
    "ws-1000": (1000, gen_workspace.SHARED_SCRIPT_COUNT, gen_workspace.DEFAULT_SCRIPT_LINES),
}
# name -> (cold / agnix, warm / agnix): the targets of issue 14
TARGETS: dict[str, tuple[float | None, float | None]] = {
    "ws-80-real": (4.0, None),
    "ws-1000": (2.5, 1.0),
}


@dataclass
class TreeResult:
    name: str
    path: Path
    files: int
    agnix: list[float] = field(default_factory=list)
    cold: list[float] = field(default_factory=list)
    warm: list[float] = field(default_factory=list)
    easel_findings: int = 0
    agnix_summary: str = ""


def ensure_generated(name: str) -> Path:
    skills, scripts, lines = GENERATED[name]
    out = gen_workspace.BENCHMARKS_DIR / "workspaces" / name
    stamp = out.with_name(out.name + ".json")
    options = {"skills": skills, "shared_scripts": scripts, "script_lines": list(lines)}
    if out.is_dir() and stamp.is_file():
        summary = json.loads(stamp.read_text("utf-8"))
        if (
            summary.get("generator_digest") == gen_workspace.generator_digest()
            and summary.get("options", options) == options
        ):
            return out
    result = gen_workspace.generate(skills, out, shared_scripts=scripts, script_lines=lines)
    summary = {**gen_workspace.summary_of(result), "options": options}
    stamp.write_text(json.dumps(summary, ensure_ascii=False, indent=2) + "\n", "utf-8")
    print(f"  generated {name}: {result.files} files", flush=True)
    return out


def find_agnix(explicit: str | None, venv: Path) -> tuple[str | None, str]:
    """(the agnix executable or None, what happened)."""
    if explicit:
        return (explicit, "given") if Path(explicit).is_file() else (None, f"{explicit} missing")
    on_path = shutil.which("agnix")
    if on_path:
        return on_path, "on PATH"
    binary = venv / "bin" / "agnix"
    if binary.is_file():
        return str(binary), f"from {venv}"
    print(f"  installing agnix into {venv} (pip install agnix) …", flush=True)
    try:
        if not (venv / "bin" / "python").is_file():
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run(
            [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "agnix"],
            check=True,
            capture_output=True,
            text=True,
        )
    except (OSError, subprocess.CalledProcessError) as exc:
        detail = getattr(exc, "stderr", "") or str(exc)
        return None, f"agnix could not be installed: {detail.strip().splitlines()[-1:]}"
    return (str(binary), f"installed into {venv}") if binary.is_file() else (None, "no binary")


def agnix_version(agnix: str) -> str:
    done = subprocess.run([agnix, "--version"], capture_output=True, text=True, check=False)
    return done.stdout.strip() or "?"


def timed(argv: list[str], cwd: Path) -> tuple[float, list[str]]:
    with tempfile.TemporaryFile("w+", encoding="utf-8") as out:
        start = time.perf_counter()
        subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT, cwd=cwd, check=False)
        wall = time.perf_counter() - start
        out.seek(0)
        return wall, out.read().splitlines()


def easel_argv(command: list[str], tree: Path) -> list[str]:
    return [
        *command,
        "check",
        str(tree),
        "--output-format",
        "concise",
        "--exit-zero",
        "--no-progress",
    ]


def bench_tree(
    name: str, tree: Path, command: list[str], agnix: str | None, repeat: int
) -> TreeResult:
    files = sum(1 for p in tree.rglob("*") if p.is_file() and ".easel-ls-cache" not in p.parts)
    result = TreeResult(name, tree, files)
    for _ in range(repeat):
        bench_check.drop_cache(tree)
        if agnix is not None:
            wall, lines = timed([agnix, str(tree)], tree)
            result.agnix.append(wall)
            result.agnix_summary = next(
                (line.strip() for line in reversed(lines) if line.strip().startswith("Found")), ""
            )
        wall, lines = timed(easel_argv(command, tree), tree)
        result.cold.append(wall)
        result.easel_findings = sum(bench_check.finding_codes(lines).values())
        result.warm.append(timed(easel_argv(command, tree), tree)[0])
    bench_check.drop_cache(tree)
    return result


def verdict(ratio: float | None, limit: float | None) -> str:
    if ratio is None or limit is None:
        return ""
    return f" ({'ok' if ratio <= limit else 'MISS'} ≤ {limit:g}×)"


def table(results: Sequence[TreeResult], why_no_agnix: str) -> str:
    rows = [
        "| tree | files | agnix s | easel-ls cold s | easel-ls warm s | cold / agnix "
        "| warm / agnix | easel-ls findings | agnix says |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in results:
        agnix = statistics.median(r.agnix) if r.agnix else None
        cold, warm = statistics.median(r.cold), statistics.median(r.warm)
        cold_target, warm_target = TARGETS.get(r.name, (None, None))
        if agnix:
            cold_ratio = f"{cold / agnix:.1f}×{verdict(cold / agnix, cold_target)}"
            warm_ratio = f"{warm / agnix:.1f}×{verdict(warm / agnix, warm_target)}"
        else:
            cold_ratio = warm_ratio = f"n/a ({why_no_agnix})"
        rows.append(
            f"| {r.name} | {r.files} | {f'{agnix:.3f}' if agnix else 'n/a'} | {cold:.3f} "
            f"| {warm:.3f} | {cold_ratio} | {warm_ratio} | {r.easel_findings} "
            f"| {r.agnix_summary or '—'} |"
        )
    return "\n".join(rows)


def write_section(text: str) -> None:
    """Replace (or append) the side-by-side section of results.md; bench_check.py keeps it."""
    current = RESULTS_FILE.read_text("utf-8") if RESULTS_FILE.is_file() else ""
    block = f"{SECTION_START}\n{text.rstrip()}\n{SECTION_END}\n"
    if SECTION_START in current and SECTION_END in current:
        before, _, rest = current.partition(SECTION_START)
        _, _, after = rest.partition(SECTION_END)
        after = after.lstrip("\n")
        current = before + block + ("\n" + after if after else "")
    else:
        current = current.rstrip("\n") + ("\n\n" if current else "") + block
    RESULTS_FILE.write_text(current, "utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(description="easel-ls beside agnix on the same trees.")
    parser.add_argument("--repeat", type=int, default=5, help="rounds per tree (median)")
    parser.add_argument(
        "--trees", default="ws-80-real,ws-1000", help=f"generated trees: {', '.join(GENERATED)}"
    )
    parser.add_argument("--extra", action="append", default=[], metavar="PATH", help="a folder")
    parser.add_argument("--python", default=sys.executable, help="interpreter with easel-ls")
    parser.add_argument("--agnix", help="the agnix executable (default: PATH, then the venv)")
    parser.add_argument("--agnix-venv", type=Path, default=DEFAULT_AGNIX_VENV)
    parser.add_argument("--no-write", action="store_true", help="leave results.md alone")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.trees.split(",") if n.strip()]
    unknown = [n for n in names if n not in GENERATED]
    if unknown or args.repeat < 1:
        parser.error(f"unknown trees {unknown}" if unknown else "--repeat must be positive")
    agnix, how = find_agnix(args.agnix, args.agnix_venv)
    if agnix is None:
        print(f"  agnix is not available: {how}; measuring easel-ls alone", flush=True)
    command = bench_check.checker_command(args.python)
    bench_check.ensure_bytecode(args.python)
    facts = bench_check.machine_facts(args.python)
    facts["agnix"] = agnix_version(agnix) if agnix else f"n/a ({how})"
    trees = [(name, ensure_generated(name)) for name in names]
    trees += [(Path(p).name, Path(p).resolve()) for p in args.extra]
    results = []
    for name, tree in trees:
        print(f"{name} …", flush=True)
        result = bench_tree(name, tree, command, agnix, args.repeat)
        print(
            f"  agnix {statistics.median(result.agnix) if result.agnix else float('nan'):.3f} s, "
            f"easel-ls cold {statistics.median(result.cold):.3f} s, "
            f"warm {statistics.median(result.warm):.3f} s",
            flush=True,
        )
        results.append(result)
    shown = " ".join(["python benchmarks/bench_peers.py", *argv])
    lines = [
        "## Side by side with agnix",
        "",
        f"Reproduce: `{shown}` (median of {args.repeat} rounds; each round: agnix, easel-ls "
        "cold, easel-ls warm, fresh processes).",
        "",
        "| fact | value |",
        "|---|---|",
        *[f"| {key} | {value} |" for key, value in facts.items()],
        "",
        table(results, how),
        "",
        "Targets (issue 14): ws-80-real cold ≤ 4× agnix; ws-1000 cold ≤ 2.5× and warm ≤ 1× "
        "agnix. agnix validates SKILL.md files against its own rules (no argparse analysis of "
        "scripts, no cache); its count is of its own findings, not comparable with easel-ls's.",
    ]
    text = "\n".join(lines) + "\n"
    if not args.no_write:
        write_section(text)
    print()
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
