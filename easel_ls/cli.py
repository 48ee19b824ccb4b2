"""The command line, with subcommands as ruff has them:

    easel-ls check [PATH ...] [options]        check, ruff-style (exit 0 clean, 1 findings, 2 error)
    easel-ls server [--stdio | --tcp --port N] the language server (bare `easel-ls`: stdio)
    easel-ls rule CODE | --all                 rule documentation
    easel-ls sync [--target DIR]               mirror the skills into OpenClaw's workspace
    easel-ls rename-option SCRIPT OLD NEW      rename an option and every documented use
    easel-ls references FILE:LINE[:COL]        where an option or subcommand is documented

`easel-ls --check [PATH ...]` is the deprecated spelling of `check`; options and paths go in any
order in both. Checking never imports pygls, so the CLI starts fast.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from easel_ls import __version__

if TYPE_CHECKING:
    from easel_ls.findings import Finding, Fix
    from easel_ls.report import ReportContext
    from easel_ls.workspace import Workspace

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

COMMANDS = {
    "check": "check files or folders (default: the current workspace)",
    "server": "serve LSP over stdio (the default) or TCP",
    "rule": "print a rule's documentation (CODE or --all)",
    "sync": "mirror skills/openclaw/ and skills/shared/ into ~/.openclaw/workspace-easel/",
    "report": "write the workspace as one self-contained HTML page (--html OUT)",
    "rename-option": "rename a script's option or subcommand and every documented use",
    "references": "list the documented uses of the option or subcommand at FILE:LINE",
    "route": "rank the skills a request reaches on name + description (the agent's routing)",
    "test": "run the skills' tests/ pairs against a model (routing and execution)",
}

# Options of the language server, accepted without `server` for editors configured before the
# subcommands existed (`easel-ls --stdio`, `easel-ls --tcp --port N`).
_SERVER_FLAGS = frozenset({"--stdio", "--tcp"})
_SERVER_VALUED = frozenset({"--host", "--port"})
# Options that made the old single-command parser check rather than serve.
_LEGACY_CHECK_TRIGGERS = ("--check", "--fix", "--diff", "--show-settings")

DEPRECATION_NOTE = (
    "easel-ls: `--check` is deprecated; use `easel-ls check [PATH ...] [options]` instead\n"
)


def _codes(value: str) -> list[str]:
    return [c.strip().upper() for c in value.split(",") if c.strip()]


def _patterns(value: str) -> list[str]:
    from easel_ls.config import pattern_problem

    patterns = [p.strip() for p in value.split(",") if p.strip()]
    problem = pattern_problem(patterns)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return patterns


def _positive_int(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {number}")
    return number


def build_check_parser(prog: str = "easel-ls check") -> argparse.ArgumentParser:
    from easel_ls.report import FORMATS

    parser = argparse.ArgumentParser(
        prog=prog,
        description="Check Easel skills: SKILL.md, references, scripts, tests and outputs/. "
        "Exit 0 when clean, 1 with findings, 2 on a usage or config error.",
        epilog="Rule docs: `easel-ls rule CODE` or `easel-ls rule --all`.",
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="files or folders to check (default: the current folder's workspace)",
    )
    fixes = parser.add_argument_group("fixes")
    fixes.add_argument("--fix", action="store_true", help="apply safe fixes")
    fixes.add_argument(
        "--unsafe-fixes", action="store_true", help="also apply (with --fix) or show unsafe fixes"
    )
    fixes.add_argument("--diff", action="store_true", help="show fixes as a diff; write nothing")
    fixes.add_argument(
        "--show-fixes",
        action="store_true",
        help="list the fixes applied (with --fix), else the fixes available, per file",
    )
    fixes.add_argument(
        "--add-suppressions",
        action="store_true",
        help="write a suppression comment for every current finding (ruff's --add-noqa)",
    )
    output = parser.add_argument_group("output")
    output.add_argument(
        "--output-format",
        choices=FORMATS,
        help="report format (default: full on a terminal, concise otherwise)",
    )
    output.add_argument("--output-file", type=Path, help="write the report to this file")
    output.add_argument(
        "-q", "--quiet", action="store_true", help="print the findings only: no summary line"
    )
    output.add_argument("--exit-zero", action="store_true", help="exit 0 even with findings")
    output.add_argument("--statistics", action="store_true", help="count findings per rule")
    output.add_argument(
        "--show-settings", action="store_true", help="print the resolved settings and exit"
    )
    output.add_argument("--no-progress", action="store_true", help="never print a progress line")
    rules = parser.add_argument_group("rules")
    rules.add_argument("--select", type=_codes, help="rule codes or prefixes to enable (replaces)")
    rules.add_argument("--ignore", type=_codes, help="rule codes or prefixes to disable")
    rules.add_argument("--extend-select", type=_codes, help="rule codes or prefixes to add")
    rules.add_argument("--config", type=Path, help="use this config file instead of discovery")
    files = parser.add_argument_group("files")
    files.add_argument(
        "--exclude",
        type=_patterns,
        metavar="PATTERNS",
        help="gitignore patterns (comma-separated, relative to the workspace root) a walk "
        "leaves out, instead of the configured `exclude` (.git, node_modules ... by default)",
    )
    files.add_argument(
        "--extend-exclude",
        type=_patterns,
        metavar="PATTERNS",
        help="patterns to leave out as well as the configured ones",
    )
    files.add_argument(
        "--force-exclude",
        action="store_true",
        help="leave out excluded paths even when named on the command line (for hooks that "
        "pass file names)",
    )
    run = parser.add_argument_group("running")
    run.add_argument(
        "-w",
        "--watch",
        action="store_true",
        help="check, then re-check what each change affects and print the report again",
    )
    run.add_argument(
        "--no-cache", action="store_true", help="neither read nor write the on-disk cache"
    )
    run.add_argument(
        "--cache-dir", type=Path, help="cache folder (default: <workspace>/.easel-ls-cache)"
    )
    run.add_argument(
        "--jobs",
        type=_positive_int,
        metavar="N",
        help="worker processes (default: one per CPU for large runs, else 1)",
    )
    return parser


def build_server_parser(prog: str = "easel-ls server") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog, description="The easel-ls language server (LSP over stdio by default)."
    )
    transport = parser.add_mutually_exclusive_group()
    transport.add_argument(
        "--stdio", action="store_true", help="serve LSP over stdio (the default)"
    )
    transport.add_argument("--tcp", action="store_true", help="serve LSP over TCP")
    parser.add_argument("--host", default="127.0.0.1", help="TCP host (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=2087, help="TCP port (default 2087)")
    return parser


def top_level_help() -> str:
    width = max(len(name) for name in COMMANDS)
    lines = [
        "usage: easel-ls [--version] <command> [options]",
        "",
        "Language server and checker for Easel skills. Without a command, serves LSP over stdio.",
        "",
        "commands:",
        *(f"  {name:<{width}}  {summary}" for name, summary in COMMANDS.items()),
        "",
        "`easel-ls <command> --help` describes a command's options.",
    ]
    return "\n".join(lines) + "\n"


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


def report_main(argv: Sequence[str]) -> int:
    """`easel-ls report --html OUT [--open] [PATH ...]`: the findings `check` reports (same
    engine, config and cache), the skills per layer and the projects, as one HTML page."""
    from easel_ls.config import ConfigError

    parser = argparse.ArgumentParser(
        prog="easel-ls report",
        description="Write the workspace as one self-contained HTML page: findings by family "
        "and by skill, skills per layer, projects and their pipelines, the top rules.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="what to check (default: .)")
    parser.add_argument("--html", type=Path, required=True, metavar="OUT", help="file to write")
    parser.add_argument("--open", action="store_true", help="open the page in the web browser")
    parser.add_argument("--config", type=Path, help="use this config file instead of discovery")
    parser.add_argument("--no-cache", action="store_true", help="check every file afresh")
    args = parser.parse_args(argv)
    check_argv = [*args.paths, "--no-progress", *(["--no-cache"] if args.no_cache else [])]
    check_args = build_check_parser().parse_args(
        check_argv + (["--config", str(args.config)] if args.config else [])
    )
    paths = [Path(p) for p in args.paths] or [Path.cwd()]
    missing = [p for p in paths if not p.exists() and not p.is_symlink()]
    if missing:
        print(f"easel-ls: no such file or folder: {missing[0]}", file=sys.stderr)
        return EXIT_ERROR
    try:
        workspace = open_workspace(check_args, paths)
        findings = collect_findings(workspace, paths, check_args)
    except ConfigError as exc:
        print(f"easel-ls: {exc}", file=sys.stderr)
        return EXIT_ERROR
    from datetime import UTC, datetime

    from easel_ls.fixes import atomic_write_bytes
    from easel_ls.services.workspace_report import build_report

    generated = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    page = build_report(workspace, findings, generated=generated)
    # A new page gets the usual permissions (umask), not the temporary file's 0600.
    umask = os.umask(0)
    os.umask(umask)
    mode = None if args.html.exists() else 0o666 & ~umask
    try:
        atomic_write_bytes(args.html, page.encode("utf-8"), mode=mode)
    except OSError as exc:
        print(f"easel-ls: cannot write {args.html}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_ERROR
    print(f"wrote {args.html}")
    if args.open:
        import webbrowser

        webbrowser.open(args.html.resolve().as_uri())
    return EXIT_CLEAN


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return _dispatch(argv)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_CLEAN


def _dispatch(argv: list[str]) -> int:
    if not argv:
        return serve_main([])  # what editors configured before the subcommands start
    head = argv[0]
    if head == "check":
        return check_command(argv[1:])
    if head == "server":
        return serve_main(argv[1:])
    if head == "rule":
        return rule_main(argv[1:])
    if head == "report":
        return report_main(argv[1:])
    if head == "sync":
        from easel_ls.sync import sync_main

        return sync_main(argv[1:])
    if head in ("rename-option", "references"):
        from easel_ls.refactor_cli import references_main, rename_option_main

        main_of = rename_option_main if head == "rename-option" else references_main
        return main_of(argv[1:])
    if head == "route":
        from easel_ls.route_cli import route_main

        return route_main(argv[1:])
    if head == "test":
        from easel_ls.skill_test_cli import test_main

        return test_main(argv[1:])
    if head in ("-h", "--help"):
        sys.stdout.write(top_level_help())
        return EXIT_CLEAN
    if head in ("-V", "--version"):
        print(f"easel-ls {__version__}")
        return EXIT_CLEAN
    if not head.startswith("-"):
        return _unknown_command(head)
    return _legacy_main(argv)


def _unknown_command(word: str) -> int:
    from easel_ls.suggest import closest

    guess = closest(word, list(COMMANDS))
    hint = f"; did you mean `{guess[0]}`?" if guess else ""
    sys.stderr.write(
        f"easel-ls: unknown command `{word}`{hint}\n"
        f"commands: {', '.join(COMMANDS)} (`easel-ls --help` lists them)\n"
    )
    return EXIT_ERROR


def _legacy_main(argv: list[str]) -> int:
    """The spellings of the single-command parser: `--check [PATH ...]` and the other check
    options, or the server options alone (`--stdio`, `--tcp --port N`)."""
    if _only_server_options(argv):
        return serve_main(argv, prog="easel-ls")
    checking = [a for a in argv if a.split("=", 1)[0] in _LEGACY_CHECK_TRIGGERS]
    if not checking:
        sys.stderr.write(
            f"easel-ls: unrecognized arguments: {' '.join(argv)}\n"
            f"usage: easel-ls <command> [options]; commands: {', '.join(COMMANDS)} "
            "(`easel-ls --help` lists them)\n"
        )
        return EXIT_ERROR
    rest: list[str] = []
    for arg in argv:
        if arg == "--check":
            continue
        if arg.startswith("--check="):
            rest.append(arg.split("=", 1)[1])  # `--check=PATH` named a path
            continue
        rest.append(arg)
    if "--check" in (a.split("=", 1)[0] for a in argv) and _stderr_is_terminal():
        # Only on a terminal: CI logs and tests that still use the old spelling stay clean.
        sys.stderr.write(DEPRECATION_NOTE)
    return check_command(rest, prog="easel-ls --check")


def _only_server_options(argv: list[str]) -> bool:
    i = 0
    while i < len(argv):
        name = argv[i].split("=", 1)[0]
        if name in _SERVER_FLAGS:
            i += 1
        elif name in _SERVER_VALUED:
            i += 1 if "=" in argv[i] else 2
        else:
            return False
    return True


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed stream
        return False


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


def serve_main(argv: Sequence[str], prog: str = "easel-ls server") -> int:
    global _server_started
    args = build_server_parser(prog).parse_args(argv)
    if not 0 <= args.port <= 65535:
        print(f"{prog}: --port must be between 0 and 65535, not {args.port}", file=sys.stderr)
        return EXIT_ERROR
    from easel_ls.server import start

    _server_started = True
    return start(tcp=args.tcp, host=args.host, port=args.port)


def check_command(argv: Sequence[str], prog: str = "easel-ls check") -> int:
    parser = build_check_parser(prog)
    # Intermixed: `check --output-format json skills` and `check skills --fix` both work.
    args = parser.parse_intermixed_args(argv)
    conflicts = {
        "--watch": ("fix", "diff", "add_suppressions", "show_settings"),
        "--add-suppressions": ("fix", "diff", "show_settings", "statistics"),
    }
    for option, others in conflicts.items():
        if not getattr(args, option.lstrip("-").replace("-", "_")):
            continue
        for other in others:
            if getattr(args, other):
                parser.error(f"{option} cannot be combined with --{other.replace('_', '-')}")
    return check_main(args)


def check_main(args: argparse.Namespace) -> int:
    from easel_ls.config import ConfigError

    # A batch run allocates millions of short-lived objects (syntax trees, tokens) and makes few
    # cycles: with the default thresholds the collector costs ~10% of a cold run (mypy raises
    # them for the same reason). Worker processes are forked and inherit this.
    gc.set_threshold(200_000, 30, 30)

    paths = [Path(p) for p in (args.paths or [])] or [Path.cwd()]
    missing = [p for p in paths if not p.exists() and not p.is_symlink()]
    if missing:
        print(f"easel-ls: no such file or folder: {missing[0]}", file=sys.stderr)
        return EXIT_ERROR
    try:
        workspace = open_workspace(args, paths)
        if args.show_settings:
            target = paths[0] if paths[0].is_dir() else paths[0].parent
            settings = workspace.settings_for(target / "_")
            payload = {"workspace_root": str(workspace.root), **settings.describe()}
            print(json.dumps(payload, ensure_ascii=False, indent=2, default=str))
            return EXIT_CLEAN
        if args.watch:
            from easel_ls.watch import watch_main

            return watch_main(workspace, paths, args)
        if args.add_suppressions:
            from easel_ls.add_suppressions import add_suppressions_main

            return add_suppressions_main(workspace, paths, args)
        findings = collect_findings(workspace, paths, args, use_cache=not (args.fix or args.diff))
    except ConfigError as exc:
        print(f"easel-ls: {exc}", file=sys.stderr)
        return EXIT_ERROR

    fixed: dict[Path, Counter[str]] = {}
    if args.fix or args.diff:
        findings, fixed, diff_text = _fix(workspace, paths, findings, args)
        if args.diff:
            sys.stdout.write(diff_text)
            return EXIT_FINDINGS if diff_text and not args.exit_zero else EXIT_CLEAN
    ctx = report_context(workspace, args)
    try:
        emit(compose_report(findings, output_format(args), ctx, args, fixed=fixed), args)
    except BrokenPipeError:
        raise  # the reader went away (`| head`): main() ends quietly
    except OSError as exc:  # an --output-file that cannot be written
        print(f"easel-ls: cannot write the report: {exc}", file=sys.stderr)
        return EXIT_ERROR
    return exit_code(findings, args)


def open_workspace(args: argparse.Namespace, paths: list[Path]) -> Workspace:
    """The workspace of the first path, with the command line's rule selection layered over
    the config files; raises ConfigError for a bad config."""
    from easel_ls.config import ConfigResolver
    from easel_ls.workspace import Workspace, find_root

    overrides = {
        key: value
        for key, value in (
            ("select", args.select),
            ("ignore", args.ignore),
            ("extend_select", args.extend_select),
        )
        if value is not None
    }
    options = {
        key: value
        for key, value in (
            ("exclude", getattr(args, "exclude", None)),
            ("extend-exclude", getattr(args, "extend_exclude", None)),
        )
        if value is not None
    }
    if options:
        overrides["options"] = options
    root = find_root(paths[0])
    return Workspace(root=root, config=ConfigResolver(args.config, overrides=overrides))


def collect_findings(
    workspace: Workspace, paths: list[Path], args: argparse.Namespace, *, use_cache: bool = True
) -> list[Finding]:
    """Every finding under ``paths`` plus those about the config files, as `check` reports
    them (the on-disk cache unless ``--no-cache``; a progress line on a terminal)."""
    from easel_ls.batch import check_paths

    progress = _Progress(enabled=_stderr_is_terminal() and not args.no_progress)
    cache = None
    if use_cache and not args.no_cache:
        from easel_ls.cache import CheckCache

        cache = CheckCache(workspace, args.cache_dir)
    findings = list(
        check_paths(
            workspace,
            paths,
            progress=progress.tick,
            cache=cache,
            jobs=args.jobs,
            force_exclude=args.force_exclude,
        )
    )
    progress.done()
    if cache is not None:
        cache.save()
    findings.extend(config_findings(workspace))
    return findings


def output_format(args: argparse.Namespace) -> str:
    return str(args.output_format or ("full" if sys.stdout.isatty() else "concise"))


def report_context(workspace: Workspace, args: argparse.Namespace) -> ReportContext:
    from easel_ls.report import ReportContext

    def source(path: Path) -> str | None:
        return workspace.text_of(path)

    return ReportContext(
        root=workspace.root,
        source=source,
        color=sys.stdout.isatty() and not os.environ.get("NO_COLOR") and args.output_file is None,
        unsafe_fixes=args.unsafe_fixes,
    )


def compose_report(
    findings: list[Finding],
    fmt: str,
    ctx: ReportContext,
    args: argparse.Namespace,
    *,
    fixed: Mapping[Path, Mapping[str, int]] | None = None,
) -> str:
    """The report as `check` prints it. Only the formats meant for a person (full, concise)
    get the closing lines: `--show-fixes` listings and the summary (``All checks passed!`` on a
    clean run), which ``--quiet`` leaves out."""
    from easel_ls.report import (
        TEXT_FORMATS,
        render,
        render_available_fixes,
        render_fix_summary,
        render_statistics,
        render_summary,
    )

    fixed = fixed or {}
    out = render_statistics(findings, ctx) if args.statistics else render(findings, fmt, ctx)
    if fmt not in TEXT_FORMATS:
        return out
    if args.show_fixes:
        listing = (
            render_fix_summary(fixed, ctx) if args.fix else render_available_fixes(findings, ctx)
        )
        if listing:
            # ruff sets the listing apart with blank lines; `full` already ends with one.
            before = "" if not out or out.endswith("\n\n") else "\n"
            out += before + listing + "\n"
    if not args.quiet:
        fixed_count = sum(sum(per_code.values()) for per_code in fixed.values())
        out += render_summary(findings, ctx, fixed=fixed_count)
    return out


def emit(out: str, args: argparse.Namespace) -> None:
    if args.output_file:
        from easel_ls.fixes import atomic_write

        atomic_write(args.output_file, out)
    else:
        sys.stdout.write(out)
        sys.stdout.flush()


def exit_code(findings: list[Finding], args: argparse.Namespace) -> int:
    return EXIT_FINDINGS if findings and not args.exit_zero else EXIT_CLEAN


def config_findings(workspace: Workspace) -> list[Finding]:
    """EZ002 for unknown codes named in the config files that were used."""
    from easel_ls.findings import Finding, Range
    from easel_ls.rules import RULES

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
) -> tuple[list[Finding], dict[Path, Counter[str]], str]:
    """Apply (or, with --diff, show) the fixes; returns the findings left, what was fixed per
    file and rule, and the diff."""
    from easel_ls.batch import check_paths
    from easel_ls.fixes import FixPlan, plan_changes, unified_diff, write_changes

    fixed: dict[Path, Counter[str]] = {}
    diffs: list[str] = []
    # Re-check and re-fix until nothing changes (fixes may uncover or unblock others).
    for _ in range(10):
        plan = FixPlan()
        chosen: list[tuple[Finding, Fix]] = []
        for finding in findings:
            for fix in finding.fixes:
                if fix.is_safe or args.unsafe_fixes:
                    if plan.add(fix):
                        chosen.append((finding, fix))
                    break
        if plan.applied == 0:
            break
        changes = plan_changes(plan, workspace.text_of)
        if args.diff:
            diffs.extend(
                unified_diff(c, workspace.rel(c.path), workspace.rel(c.rename_to or c.path))
                for c in changes
            )
            _count_fixed(fixed, chosen, set())
            break
        conflicts = set(write_changes(changes))
        _count_fixed(fixed, chosen, conflicts)
        for change in changes:
            workspace.forget(change.path)
        findings = list(check_paths(workspace, paths))
    return findings, fixed, "".join(diffs)


def _count_fixed(
    fixed: dict[Path, Counter[str]], chosen: list[tuple[Finding, Fix]], conflicts: set[Path]
) -> None:
    """A fix counts once its edits were written: one that touches a file changed on disk
    meanwhile was left out, and the re-check reports its finding again."""
    for finding, fix in chosen:
        if any(edit.path in conflicts for edit in fix.edits):
            continue
        fixed.setdefault(finding.path, Counter())[finding.code] += 1


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
