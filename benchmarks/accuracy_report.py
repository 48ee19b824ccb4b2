"""The tables of docs/accuracy.md: every mirrored repository, before and after, from the verdicts.

    git worktree add /tmp/easel-before 96665df        # the checker before the accuracy work
    python benchmarks/accuracy_report.py --before /tmp/easel-before > /tmp/tables.md

Each repository listed in REPOSITORIES must be mirrored under `realworld/<owner>__<name>/`
(git-ignored: other people's text is never committed) and judged in
`benchmarks/accuracy/<owner>__<name>.json` (see benchmarks/triage.py). A repository that is not
mirrored here is skipped with a note.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

import triage

ROOT = Path(__file__).resolve().parents[1]
MIRRORS = ROOT / "realworld"
VERDICTS = ROOT / "benchmarks" / "accuracy"
LANGUAGE_EXAMPLE = ROOT / "docs" / "examples" / "vi.easel-ls.toml"

# name -> config for the run after the work (the before run has no language options to take).
REPOSITORIES: dict[str, Path | None] = {
    "zichuanxu__Easel": None,
    "hwdemtv__Easel": None,
    "ZJU-REAL__Easel": None,
    "StarrySea1412__Easel": None,
    "webxia__Easel": None,
    "Gripexfc__ContentPilot": None,
    "Solaris-star__Ripple": None,
    "phuongnguyen2201__easel": LANGUAGE_EXAMPLE,
}
# Options the checker before the work already knew: the before run of a configured repository
# gets these (a Vietnamese team could set its trigger words, never its headings).
OLD_OPTIONS = ("min-cjk-ratio", "trigger-words", "boundary-words", "required-sections")


def _old_config(config: Path, out: Path) -> Path:
    import tomllib

    table = tomllib.loads(config.read_text("utf-8"))
    lines = []
    for key in OLD_OPTIONS:
        if key in table:
            value = table[key]
            rendered = (
                "[" + ", ".join(f'"{v}"' for v in value) + "]" if isinstance(value, list) else value
            )
            lines.append(f"{key} = {rendered}")
    out.write_text("\n".join(lines) + "\n", "utf-8")
    return out


def _tally(findings: list[dict[str, object]], verdicts: dict[str, object]) -> dict[str, int]:
    counts = {"real": 0, "false": 0, "artefact": 0, triage.UNJUDGED: 0}
    for finding in findings:
        counts[triage.verdict_of(verdicts, triage.finding_key(finding))] += 1
    return counts


def _counts(findings: list[dict[str, object]], verdicts: dict[str, object]) -> str:
    c = _tally(findings, verdicts)
    unjudged = f" ({c[triage.UNJUDGED]} unjudged)" if c[triage.UNJUDGED] else ""
    return f"{len(findings)} / {c['real']} / {c['false']} / {c['artefact']}{unjudged}"


def _precision(findings: list[dict[str, object]], verdicts: dict[str, object]) -> str:
    c = _tally(findings, verdicts)
    judged = c["real"] + c["false"]
    return f"{100 * c['real'] / judged:.0f} %" if judged else "—"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--before", type=Path, required=True, help="checkout of the old checker")
    args = parser.parse_args(argv)
    python = shlex.quote(sys.executable)
    summary = [
        "| repository | skills | before: findings / real / false alarm / artefact | after: findings"
        " / real / false alarm / artefact | precision before → after |",
        "|---|---:|---|---|---|",
    ]
    sections = []
    after_cmd = [sys.executable, "-m", "easel_ls"]
    before_cmd = ["env", f"PYTHONPATH={args.before.resolve()}", sys.executable, "-m", "easel_ls"]
    for name, config in REPOSITORIES.items():
        folder = MIRRORS / name
        if not folder.is_dir():
            print(f"## {name}\n\n_not mirrored here; skipped._\n")
            continue
        verdicts = triage.load_verdicts(VERDICTS / f"{name}.json")["verdicts"]
        extra = ["--config", str(config)] if config else []
        old_extra = (
            ["--config", str(_old_config(config, Path("/tmp") / f"{name}-before.toml"))]
            if config
            else []
        )
        opt_in = triage.opt_in_codes()
        if opt_in:
            extra += ["--extend-select", ",".join(opt_in)]
        before = triage.run_checker(folder, before_cmd, old_extra)
        after = triage.run_checker(folder, after_cmd, extra)
        skills = sum(1 for _ in folder.glob("skills/*/*/SKILL.md"))
        summary.append(
            f"| {name} | {skills} | {_counts(before, verdicts)} | {_counts(after, verdicts)} "
            f"| {_precision(before, verdicts)} → {_precision(after, verdicts)} |"
        )
        sections.append(
            f"### {name}\n\nBefore ({len(before)} findings):\n\n{triage.table(before, verdicts)}"
            f"\n\nAfter ({len(after)} findings):\n\n{triage.table(after, verdicts)}\n"
        )
    print("\n".join(summary) + "\n")
    print("\n".join(sections))
    print(f"<!-- made with {python} benchmarks/accuracy_report.py --before {args.before} -->")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
