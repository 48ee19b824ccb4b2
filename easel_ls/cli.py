"""Command line: `easel-ls --check [PATH ...]` (headless, ruff-style), `easel-ls rule CODE`, and the
language server (stdio by default, `--tcp --port N`).

The `--check` path never imports pygls, so the CLI starts fast.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from easel_ls import __version__

if TYPE_CHECKING:
    from easel_ls.findings import Finding
    from easel_ls.workspace import Workspace

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _codes(value: str) -> list[str]:
    return [c.strip().upper() for c in value.split(",") if c.strip()]


def build_parser() -> argparse.ArgumentParser:
    from easel_ls.report import FORMATS

    parser = argparse.ArgumentParser(
        prog="easel-ls",
        description="Language server and checker for Easel skills. Without --check, serves LSP "
        "over stdio.",
        epilog="Rule docs: `easel-ls rule CODE` or `easel-ls rule --all`.",
    )
    parser.add_argument("--version", action="version", version=f"easel-ls {__version__}")
    check = parser.add_argument_group("checking")
    check.add_argument(
        "--check",
        nargs="*",
        metavar="PATH",
        help="check files or folders (default: the current workspace) and exit",
    )
    check.add_argument("--fix", action="store_true", help="apply safe fixes")
    check.add_argument(
        "--unsafe-fixes", action="store_true", help="also apply (with --fix) or show unsafe fixes"
    )
    check.add_argument("--diff", action="store_true", help="show fixes as a diff; write nothing")
    check.add_argument(
        "--output-format",
        choices=FORMATS,
        help="report format (default: full on a terminal, concise otherwise)",
    )
    check.add_argument("--output-file", type=Path, help="write the report to this file")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even with findings")
    check.add_argument("--statistics", action="store_true", help="count findings per rule")
    check.add_argument("--select", type=_codes, help="rule codes or prefixes to enable (replaces)")
    check.add_argument("--ignore", type=_codes, help="rule codes or prefixes to disable")
    check.add_argument("--extend-select", type=_codes, help="rule codes or prefixes to add")
    check.add_argument("--config", type=Path, help="use this config file instead of discovery")
    check.add_argument(
        "--show-settings", action="store_true", help="print the resolved settings and exit"
    )
    check.add_argument("--no-progress", action="store_true", help="never print a progress line")
    check.add_argument(
        "--no-cache", action="store_true", help="neither read nor write the on-disk cache"
    )
    check.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help="worker processes (default: one per CPU for large runs, else 1)",
    )
    check.add_argument(
        "--cache-dir", type=Path, help="cache folder (default: <workspace>/.easel-ls-cache)"
    )
    serve = parser.add_argument_group("language server")
    serve.add_argument("--stdio", action="store_true", help="serve LSP over stdio (the default)")
    serve.add_argument("--tcp", action="store_true", help="serve LSP over TCP")
    serve.add_argument("--host", default="127.0.0.1", help="TCP host (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=2087, help="TCP port (default 2087)")
    return parser


def rule_main(argv: Sequence[str]) -> int:
    from easel_ls.rules import RULES

    parser = argparse.ArgumentParser(prog="easel-ls rule", description="Print rule documentation.")
    parser.add_argument("code", nargs="?", help="a rule code (FM001) or name (frontmatter-missing)")
    parser.add_argument("--all", action="store_true", help="every rule")
    parser.add_argument("--output-format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)
    if args.all:
        rules = list(RULES.values())
    elif args.code:
        key = args.code.strip()
        rule = RULES.get(key.upper()) or next((r for r in RULES.values() if r.name == key), None)
        if rule is None:
            from easel_ls.suggest import closest

            guess = closest(key.upper(), RULES) or closest(key, [r.name for r in RULES.values()])
            hint = f" (did you mean {guess[0]}?)" if guess else ""
            print(f"easel-ls: unknown rule `{key}`{hint}", file=sys.stderr)
            return EXIT_ERROR
        rules = [rule]
    else:
        parser.print_usage(sys.stderr)
        print("easel-ls rule: give a CODE or --all", file=sys.stderr)
        return EXIT_ERROR
    if args.output_format == "json":
        payload = [
            {
                "code": r.code,
                "name": r.name,
                "severity": r.default_severity,
                "summary": r.summary,
                "fix": r.fix,
                "url": r.url,
                "explanation": r.doc,
            }
            for r in rules
        ]
        print(json.dumps(payload if args.all else payload[0], ensure_ascii=False, indent=2))
        return EXIT_CLEAN
    chunks = []
    for r in rules:
        fix = {
            "safe": "Fix is always available (safe).",
            "unsafe": "Fix is sometimes available (unsafe).",
        }
        head = f"# {r.name} ({r.code})\n\nDefault severity: {r.default_severity}. "
        head += fix.get(r.fix or "", "No automatic fix.") + "\n\n"
        chunks.append(head + (r.doc or r.summary).rstrip() + "\n")
    sys.stdout.write("\n".join(chunks))
    return EXIT_CLEAN


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv[:1] == ["rule"]:
            return rule_main(argv[1:])
        parser = build_parser()
        args = parser.parse_args(argv)
        checking = args.check is not None or args.show_settings or args.fix or args.diff
        if not checking:
            return serve(args)
        return check_main(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_CLEAN


def run() -> None:
    """The `easel-ls` command. After a check nothing is left to do but exit: like mypy, skip
    the interpreter's teardown (freeing every object of a large run one by one)."""
    code = main()
    if _server_started:  # it may leave threads and handlers that want a normal exit
        raise SystemExit(code)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a closed pipe: nothing more can be said
            stream.flush()
    os._exit(code)


_server_started = False


def serve(args: argparse.Namespace) -> int:
    global _server_started
    from easel_ls.server import start

    _server_started = True

    return start(tcp=args.tcp, host=args.host, port=args.port)


def check_main(args: argparse.Namespace) -> int:
    from easel_ls.config import ConfigError, ConfigResolver
    from easel_ls.engine import check_paths
    from easel_ls.report import ReportContext, render, render_statistics, render_summary
    from easel_ls.workspace import Workspace, find_root

    # A batch run allocates millions of short-lived objects (syntax trees, tokens) and makes few
    # cycles: with the default thresholds the collector costs ~10% of a cold run (mypy raises
    # them for the same reason). Worker processes are forked and inherit this.
    gc.set_threshold(200_000, 30, 30)

    paths = [Path(p) for p in (args.check or [])] or [Path.cwd()]
    missing = [p for p in paths if not p.exists() and not p.is_symlink()]
    if missing:
        print(f"easel-ls: no such file or folder: {missing[0]}", file=sys.stderr)
        return EXIT_ERROR
    root = find_root(paths[0])
    try:
        overrides = {
            key: value
            for key, value in (
                ("select", args.select),
                ("ignore", args.ignore),
                ("extend_select", args.extend_select),
            )
            if value is not None
        }
        workspace = Workspace(root=root, config=ConfigResolver(args.config, overrides=overrides))
        if args.show_settings:
            target = paths[0] if paths[0].is_dir() else paths[0].parent
            settings = workspace.settings_for(target / "_")
            payload = {"workspace_root": str(root), **settings.describe()}
            print(json.dumps(payload, ensure_ascii=False, indent=2, default=str))
            return EXIT_CLEAN
        fmt = args.output_format or ("full" if sys.stdout.isatty() else "concise")
        progress = _Progress(enabled=sys.stderr.isatty() and not args.no_progress)
        cache = None
        if not args.no_cache and not (args.fix or args.diff):
            from easel_ls.cache import CheckCache

            cache = CheckCache(workspace, args.cache_dir)
        findings = list(
            check_paths(workspace, paths, progress=progress.tick, cache=cache, jobs=args.jobs)
        )
        progress.done()
        if cache is not None:
            cache.save()
    except ConfigError as exc:
        print(f"easel-ls: {exc}", file=sys.stderr)
        return EXIT_ERROR
    findings.extend(_config_findings(workspace))

    fixed = 0
    if args.fix or args.diff:
        findings, fixed, diff_text = _fix(workspace, paths, findings, args)
        if args.diff:
            sys.stdout.write(diff_text)
            return EXIT_FINDINGS if diff_text and not args.exit_zero else EXIT_CLEAN

    def source(path: Path) -> str | None:
        return workspace.text_of(path)

    ctx = ReportContext(
        root=root,
        source=source,
        color=sys.stdout.isatty() and not os.environ.get("NO_COLOR") and args.output_file is None,
        unsafe_fixes=args.unsafe_fixes,
    )
    if args.statistics:
        out = render_statistics(findings, ctx)
    else:
        out = render(findings, fmt, ctx)
        # A clean run prints nothing at all (pre-commit and CI logs stay quiet).
        if fmt in ("full", "concise") and (findings or fixed):
            summary = render_summary(findings, ctx, fixed=fixed)
            out = out + summary if out else summary
    if args.output_file:
        from easel_ls.fixes import atomic_write

        atomic_write(args.output_file, out)
    else:
        sys.stdout.write(out)
    if findings and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _config_findings(workspace: Workspace) -> list[Finding]:
    """EZ002 for unknown codes named in the config files that were used."""
    from easel_ls.findings import Finding, Range
    from easel_ls.rules import RULES

    assert workspace is not None

    out = []
    for settings in workspace.config.loaded.values():
        text = (workspace.text_of(settings.config_path) if settings.config_path else "") or ""
        for unknown in settings.unknown_codes:
            if not settings.is_enabled("EZ002"):
                continue
            line = next((i for i, t in enumerate(text.splitlines()) if unknown.code in t), 0)
            col = text.splitlines()[line].find(unknown.code) if text else 0
            rule = RULES["EZ002"]
            out.append(
                Finding(
                    "EZ002",
                    rule.name,
                    settings.severity_of("EZ002"),
                    f"`{unknown.key}` names unknown rule code `{unknown.code}`",
                    unknown.config_path,
                    Range.of(line, max(col, 0), line, max(col, 0) + len(unknown.code)),
                )
            )
    return out


def _fix(
    workspace: Workspace, paths: list[Path], findings: list[Finding], args: argparse.Namespace
) -> tuple[list[Finding], int, str]:
    from easel_ls.engine import check_paths
    from easel_ls.fixes import FixPlan, plan_changes, unified_diff, write_changes

    applied_total = 0
    diffs: list[str] = []
    # Re-check and re-fix until nothing changes (fixes may uncover or unblock others).
    for _ in range(10):
        plan = FixPlan()
        for finding in findings:
            for fix in finding.fixes:
                if fix.is_safe or args.unsafe_fixes:
                    plan.add(fix)
                    break
        if plan.applied == 0:
            break
        changes = plan_changes(plan, workspace.text_of)
        if args.diff:
            diffs.extend(
                unified_diff(c, workspace.rel(c.path), workspace.rel(c.rename_to or c.path))
                for c in changes
            )
            applied_total += plan.applied
            break
        write_changes(changes)
        applied_total += plan.applied
        for change in changes:
            workspace.forget(change.path)
        findings = list(check_paths(workspace, paths))
    return findings, applied_total, "".join(diffs)


class _Progress:
    """A one-line progress indicator on stderr for runs that take a while (TTY only)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.start = time.monotonic()
        self.shown = False

    def tick(self, index: int, path: Path) -> None:
        if not self.enabled or index % 50:
            return
        if time.monotonic() - self.start < 2.0:
            return
        self.shown = True
        sys.stderr.write(f"\r\x1b[Kchecking {index} files… {path.name[:40]}")
        sys.stderr.flush()

    def done(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
