"""Judge easel-ls on a real repository: every finding, grouped by code, with its source line.

    python benchmarks/triage.py realworld/owner__repo                  # list findings to judge
    python benchmarks/triage.py realworld/owner__repo --verdicts V.json  # with recorded verdicts
    python benchmarks/triage.py realworld/owner__repo --verdicts V.json --record  # add new ones
    python benchmarks/triage.py realworld/owner__repo --verdicts V.json --table   # counts only

A verdict file holds one judgement per finding, keyed by ``path:line:column:CODE`` and a
hash of the first backticked word of the message (several findings may share a place):
``real`` (a defect its author would fix), ``false`` (a false alarm: a bug in easel-ls) or
``artefact`` (the finding is about a file the partial mirror lacks). ``--record`` adds every
finding not judged yet with the verdict ``?`` for a person to fill in; nothing else is
changed. Keys of findings that are no longer reported are kept: they are what a fix removed,
so a verdict file judged before a change still reads right after it.

``--table`` prints, per code, how many findings are real, false alarms, artefacts and not yet
judged, and the precision ``real / (real + false)`` (what docs/accuracy.md reports). Opt-in
rules are enabled for the run (``--extend-select``), so their precision is measured too.

``--easel-ls`` names another checker to run (e.g. an older checkout), as a command line.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shlex
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

VERDICTS = ("real", "false", "artefact")
UNJUDGED = "?"


def run_checker(folder: Path, command: list[str], extra: list[str]) -> list[dict[str, Any]]:
    args = [
        *command,
        "--check",  # the spelling every version knows (newer ones also take `check`)
        str(folder),
        "--output-format",
        "json",
        "--no-cache",
        "--exit-zero",
        "--no-progress",
        *extra,
    ]
    done = subprocess.run(args, capture_output=True, text=True, check=False, cwd=folder)
    if done.returncode != 0:
        sys.exit(f"triage: {shlex.join(args)} failed ({done.returncode}):\n{done.stderr}")
    findings: list[dict[str, Any]] = json.loads(done.stdout or "[]")
    return findings


_FIRST_QUOTED = re.compile(r"`([^`]*)`")


def finding_key(finding: dict[str, Any]) -> str:
    """Where and what: several findings of one code may share a place (BD002 per section), so
    the first quoted word of the message tells them apart."""
    location = finding["location"]
    key = f"{finding['filename']}:{location['row']}:{location['column']}:{finding['code']}"
    quoted = _FIRST_QUOTED.search(finding["message"])
    # Hashed: the quoted word is the repository's text (a path, an excerpt), which the verdict
    # files must not copy.
    return f"{key}:{_digest(quoted.group(1))}" if quoted else key


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:10]


def source_line(folder: Path, finding: dict[str, Any]) -> str:
    path = Path(finding["filename"])
    path = path if path.is_absolute() else folder / path
    try:
        lines = path.read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return ""
    row = finding["location"]["row"]
    return lines[row - 1].strip() if 0 < row <= len(lines) else ""


def load_verdicts(path: Path | None) -> dict[str, Any]:
    if path is None or not path.exists():
        return {"verdicts": {}}
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    data.setdefault("verdicts", {})
    return data


def save_verdicts(path: Path, data: dict[str, Any]) -> None:
    data["verdicts"] = dict(sorted(data["verdicts"].items()))
    temporary = path.with_suffix(path.suffix + ".tmp")
    temporary.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", "utf-8")
    temporary.replace(path)


def verdict_of(verdicts: dict[str, Any], key: str) -> str:
    entry = verdicts.get(key)
    if isinstance(entry, dict):
        return str(entry.get("verdict", UNJUDGED))
    return UNJUDGED


def print_findings(
    folder: Path, findings: list[dict[str, Any]], verdicts: dict[str, Any], only: str | None
) -> None:
    by_code: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for finding in findings:
        by_code[finding["code"]].append(finding)
    for code in sorted(by_code):
        group = by_code[code]
        print(f"== {code} {group[0]['name']} ({len(group)})")
        for finding in group:
            key = finding_key(finding)
            verdict = verdict_of(verdicts, key)
            if only is not None and verdict != only:
                continue
            why = verdicts.get(key, {}).get("why", "") if isinstance(verdicts.get(key), dict) else ""
            print(f"{key}  [{verdict}] {finding['message']}")
            line = source_line(folder, finding)
            if line:
                print(f"    | {line[:200]}")
            if why:
                print(f"    = {why}")
        print()


def table(findings: list[dict[str, Any]], verdicts: dict[str, Any]) -> str:
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for finding in findings:
        counts[finding["code"]][verdict_of(verdicts, finding_key(finding))] += 1
    rows = ["| code | findings | real | false alarm | artefact | unjudged | precision |"]
    rows.append("|---|---:|---:|---:|---:|---:|---:|")
    total: Counter[str] = Counter()
    for code in sorted(counts):
        c = counts[code]
        total.update(c)
        rows.append(_row(code, c))
    rows.append(_row("**all**", total))
    return "\n".join(rows)


def _row(label: str, c: Counter[str]) -> str:
    judged = c["real"] + c["false"]
    precision = f"{100 * c['real'] / judged:.0f} %" if judged else "—"
    return (
        f"| {label} | {sum(c.values())} | {c['real']} | {c['false']} | {c['artefact']} "
        f"| {c[UNJUDGED]} | {precision} |"
    )


def opt_in_codes() -> list[str]:
    try:
        from easel_ls.rules import RULES
    except ImportError:
        return []
    return sorted(code for code, rule in RULES.items() if getattr(rule, "opt_in", False))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("folder", type=Path, help="the mirrored repository (its root)")
    parser.add_argument("--verdicts", type=Path, help="JSON file of recorded verdicts")
    parser.add_argument("--record", action="store_true", help="add unjudged findings as `?`")
    parser.add_argument("--table", action="store_true", help="print the counts per code only")
    parser.add_argument("--only", choices=[*VERDICTS, UNJUDGED], help="list only these")
    parser.add_argument(
        "--easel-ls",
        default=f"{shlex.quote(sys.executable)} -m easel_ls",
        help="the checker to run, as a command line (default: this interpreter's easel_ls)",
    )
    parser.add_argument("--select", help="passed on to easel-ls")
    parser.add_argument("--config", type=Path, help="passed on to easel-ls (e.g. a language's words)")
    args = parser.parse_args(argv)
    folder = args.folder.resolve()
    extra: list[str] = []
    if args.config:
        extra += ["--config", str(args.config.resolve())]
    if args.select:
        extra += ["--select", args.select]
    elif opt_in_codes():
        extra += ["--extend-select", ",".join(opt_in_codes())]
    findings = run_checker(folder, shlex.split(args.easel_ls), extra)
    data = load_verdicts(args.verdicts)
    verdicts = data["verdicts"]
    if args.record:
        if args.verdicts is None:
            parser.error("--record needs --verdicts")
        for finding in findings:
            verdicts.setdefault(finding_key(finding), {"verdict": UNJUDGED})
        save_verdicts(args.verdicts, data)
    if args.table:
        print(table(findings, verdicts))
    else:
        print_findings(folder, findings, verdicts, args.only)
        print(table(findings, verdicts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
