"""`easel-ls test [PATH ...]`: the skills' `tests/N.prompt` + `tests/N.expected` pairs against a
model, in the routing and the execution stage (see ``easel_ls.services.skill_tests``).

Nothing is sent unless a model is named: ``--model-url URL --model NAME`` (an OpenAI-compatible
chat completions server) or ``--model-cmd CMD`` (a command reading the prompt on stdin). Exit 0
when every test passes, 1 when one fails or errs, 2 on a usage or config error or when every
call failed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import sys
import urllib.parse
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from easel_ls.services.skill_tests import (
        Collection,
        Notice,
        SkillTestResult,
        StageResult,
        Totals,
        Transport,
    )
    from easel_ls.workspace import Workspace

PROG = "easel-ls test"

NO_MODEL = f"""\
{PROG}: no model named, so nothing was sent. Name one:
  --model-url URL --model NAME   an OpenAI-compatible chat completions server, e.g.
                                 --model-url http://127.0.0.1:11434/v1 --model qwen2.5:7b (ollama)
  --model-cmd CMD                a command that reads the prompt on stdin and prints the answer
"""


class UsageError(Exception):
    """Exit 2 with this message."""


def _positive_int(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {number}")
    return number


def _count(value: str) -> int:
    number = int(value)
    if number < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {number}")
    return number


def _seconds(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {value!r}") from None
    if not number > 0 or number == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {value}")
    return number


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Run the skills' tests (tests/N.prompt + tests/N.expected) against a model: "
        "routing (does the model pick this skill from every skill's name and description?) and "
        "execution (with SKILL.md as the system prompt, does the answer hold every expected "
        "keyword and pattern?). Nothing is sent unless a model is named.",
        epilog="ollama: --model-url http://127.0.0.1:11434/v1 --model qwen2.5:7b; llama.cpp: "
        "--model-url http://127.0.0.1:8080/v1 --model local. See docs/skill-tests.md.",
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="a workspace, a skill folder or one tests/N.prompt (default: the current workspace)",
    )
    model = parser.add_argument_group("model (one of)")
    model.add_argument(
        "--model-url", metavar="URL", help="an OpenAI-compatible API base, e.g. http://…/v1"
    )
    model.add_argument("--model", metavar="NAME", help="the model the server runs (--model-url)")
    model.add_argument(
        "--api-key-env",
        metavar="NAME",
        help="the environment variable holding the API key (sent as a bearer token)",
    )
    model.add_argument(
        "--model-cmd",
        metavar="CMD",
        help="a command (split as a shell would, run without one) given the prompt on stdin",
    )
    run = parser.add_argument_group("running")
    run.add_argument(
        "--stage",
        choices=("routing", "execution", "both"),
        default="both",
        help="which stages to run (default both)",
    )
    run.add_argument(
        "--jobs", type=_positive_int, default=4, metavar="N", help="parallel calls (default 4)"
    )
    run.add_argument(
        "--timeout", type=_seconds, default=60.0, metavar="S", help="seconds per call (default 60)"
    )
    run.add_argument(
        "--retries",
        type=_count,
        default=2,
        metavar="N",
        help="retries of a call that timed out, lost its connection or got HTTP 429/5xx (default 2)",
    )
    run.add_argument(
        "--no-cache", action="store_true", help="ask the model again instead of reusing answers"
    )
    run.add_argument("--no-progress", action="store_true", help="never print a progress bar")
    run.add_argument(
        "--config", type=Path, metavar="FILE", help="use this config file instead of discovery"
    )
    output = parser.add_argument_group("output")
    output.add_argument("--output-format", choices=("text", "json", "junit"), default="text")
    output.add_argument("--output-file", type=Path, metavar="F", help="write the report here")
    return parser


def test_main(argv: Sequence[str]) -> int:
    from easel_ls.cli import EXIT_ERROR

    args = build_parser().parse_intermixed_args(list(argv))
    try:
        return _run(args)
    except UsageError as exc:
        text = str(exc)
        sys.stderr.write(text if text.endswith("\n") else f"{PROG}: {text}\n")
        return EXIT_ERROR


def make_transport(args: argparse.Namespace) -> Transport:
    from easel_ls.services.skill_tests import ChatCompletions, Command

    if args.model_url is not None and args.model_cmd is not None:
        raise UsageError("give either --model-url or --model-cmd, not both")
    if args.model_cmd is not None:
        for option in ("model", "api_key_env"):
            if getattr(args, option) is not None:
                flag = "--" + option.replace("_", "-")
                raise UsageError(f"{flag} goes with --model-url; --model-cmd runs its own model")
        try:
            words = shlex.split(args.model_cmd)
        except ValueError as exc:
            raise UsageError(f"--model-cmd: cannot split {args.model_cmd!r}: {exc}") from None
        if not words:
            raise UsageError("--model-cmd is empty")
        return Command(words, timeout=args.timeout)
    if args.model_url is None:
        if args.model is not None:
            raise UsageError(
                "--model names a model on a server: give --model-url URL too (or --model-cmd CMD)"
            )
        raise UsageError(NO_MODEL)
    if not args.model:
        raise UsageError(
            "--model-url needs --model NAME, the model the server should run (e.g. qwen2.5:7b)"
        )
    parts = urllib.parse.urlsplit(args.model_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(
            f"--model-url {args.model_url!r} is not an http(s) URL (e.g. http://127.0.0.1:11434/v1)"
        )
    key = None
    if args.api_key_env is not None:
        key = os.environ.get(args.api_key_env)
        if key is None:
            raise UsageError(
                f"the environment variable {args.api_key_env} (--api-key-env) is not set"
            )
        if not key.strip():
            raise UsageError(
                f"the environment variable {args.api_key_env} (--api-key-env) is empty"
            )
        key = key.strip()
        if not key.isprintable():  # a line break would end the header (http.client refuses)
            raise UsageError(
                f"the environment variable {args.api_key_env} (--api-key-env) holds control "
                "characters; a key is one line of printable text"
            )
    return ChatCompletions(args.model_url, args.model, api_key=key, timeout=args.timeout)


def _open(args: argparse.Namespace) -> tuple[Workspace, Collection]:
    from easel_ls.config import ConfigError
    from easel_ls.services.skill_tests import SelectionError, collect
    from easel_ls.workspace import Workspace, find_root

    paths = [Path(p) for p in args.paths] or [Path.cwd()]
    for path in paths:
        if not path.exists():
            raise UsageError(f"no such file or folder: {path}")
    if args.config is not None and not args.config.is_file():
        raise UsageError(f"no such config file: {args.config}")
    try:
        ws = Workspace.at(find_root(paths[0]), args.config)
        return ws, collect(ws, paths)
    except (ConfigError, SelectionError) as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"cannot read the workspace: {exc}") from None


def _run(args: argparse.Namespace) -> int:
    from easel_ls.cli import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS
    from easel_ls.services.skill_tests import (
        EXECUTION,
        ROUTING,
        STAGES,
        AnswerCache,
        ProgressBar,
        Runner,
        totals_of,
    )

    transport = make_transport(args)
    ws, collection = _open(args)
    for notice in collection.notices:
        what = "skipped: " if notice.skipped else ""
        sys.stderr.write(f"{PROG}: {ws.rel(notice.path)}: {what}{notice.message}\n")
    if not collection.tests:
        skipped = any(n.skipped for n in collection.notices)
        sys.stderr.write(
            f"{PROG}: no tests to run (a test is a pair tests/N.prompt + tests/N.expected "
            "in a skill folder)\n"
        )
        return EXIT_ERROR if skipped else EXIT_CLEAN
    stages = (
        STAGES if args.stage == "both" else ((ROUTING,) if args.stage == ROUTING else (EXECUTION,))
    )
    cache = None if args.no_cache else AnswerCache.of_workspace(ws.root)
    runner = Runner(
        transport, collection, stages=stages, jobs=args.jobs, retries=args.retries, cache=cache
    )
    progress = ProgressBar(enabled=_stderr_is_terminal() and not args.no_progress)
    try:
        results = runner.run(progress)
    finally:
        progress.done()
    totals = totals_of(results)
    if args.output_format == "json":
        out = render_json(ws, transport, stages, results, collection.notices, totals)
    elif args.output_format == "junit":
        out = render_junit(ws, results, collection.notices)
    else:
        out = render_text(stages, results, totals)
    _emit(out, args)
    if totals.every_call_errored:
        first = next(s.error for r in results for s in r.stages.values() if s.error)
        sys.stderr.write(f"{PROG}: every call failed; the first: {first}\n")
        return EXIT_ERROR
    return EXIT_CLEAN if totals.passed == totals.tests else EXIT_FINDINGS


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _emit(out: str, args: argparse.Namespace) -> None:
    if args.output_file is None:
        sys.stdout.write(out)
        sys.stdout.flush()
        return
    from easel_ls.fixes import atomic_write

    try:
        atomic_write(args.output_file, out)
    except OSError as exc:
        raise UsageError(f"cannot write {args.output_file}: {exc.strerror or exc}") from None


# -- text -------------------------------------------------------------------------------------


def _one_line(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _status_word(stage: StageResult) -> str:
    return {"pass": "pass", "fail": "FAIL", "error": "ERROR"}[stage.status]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _table(rows: list[list[str]]) -> list[str]:
    from easel_ls.services.skill_tests import display_width

    widths = [max(display_width(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [cell + " " * (widths[i] - display_width(cell)) for i, cell in enumerate(row)]
        lines.append("  ".join(cells).rstrip())
    return lines


def render_text(stages: Sequence[str], results: list[SkillTestResult], totals: Totals) -> str:
    from easel_ls.services.skill_tests import EXECUTION, ROUTING

    header = ["skill", "test"]
    if ROUTING in stages:
        header += ["routing", "picked"]
    if EXECUTION in stages:
        header += ["execution", "missing"]
    rows = [header]
    details: list[str] = []
    for result in results:
        test = result.test
        row = [test.skill, test.name]
        routing = result.stages.get(ROUTING)
        if routing is not None:
            picked = routing.picked or ("-" if routing.status == "error" else "(none)")
            row += [_status_word(routing), picked]
        execution = result.stages.get(EXECUTION)
        if execution is not None:
            missing = ", ".join(line.text for line in execution.missing)
            row += [_status_word(execution), missing]
        rows.append(row)
        for stage in result.stages.values():
            if stage.status == "error":
                details.append(f"  {test.id} {stage.stage}: error: {stage.error}")
            elif stage.status == "fail":
                if stage.stage == ROUTING:
                    why = f"picked {stage.picked}" if stage.picked else "named no listed skill"
                else:
                    why = "missing " + ", ".join(
                        f"line {line.line} `{line.text}`" for line in stage.missing
                    )
                details.append(
                    f"  {test.id} {stage.stage}: {why}; answer: {_one_line(stage.answer)!r}"
                )
    lines = _table(rows)
    if details:
        lines += ["", "Failures and errors:", *details]
    lines += ["", *summary_lines(totals)]
    return "\n".join(lines) + "\n"


def summary_lines(totals: Totals) -> list[str]:
    outcome = f"{_plural(totals.tests, 'test')}: {totals.passed} passed, {totals.failed} failed, "
    outcome += _plural(totals.errors, "error")
    cached = f"{_plural(totals.calls, 'call')}: {totals.cached} answered from the cache"
    if totals.errored_calls:
        cached += f", {totals.errored_calls} failed"
    return [outcome + ".", cached + ".", token_line(totals)]


def token_line(totals: Totals) -> str:
    if not totals.usage_calls and not totals.counted_calls:
        if totals.uncounted_calls:
            return "Tokens: not known (no usage from the model and no tokenizer installed)."
        return "Tokens: none spent (every answer came from the cache or failed)."
    amounts = f"Tokens: {totals.tokens_sent} sent, {totals.tokens_received} received"
    if not totals.counted_calls:
        source = "as the server reported them"
    elif not totals.usage_calls:
        source = "counted with the cl100k_base tokenizer: the model reported no usage"
    else:
        source = (
            f"the server's usage for {_plural(totals.usage_calls, 'call')}, counted with "
            f"cl100k_base for {totals.counted_calls}"
        )
    if totals.uncounted_calls:
        source += f"; {totals.uncounted_calls} not counted"
    return f"{amounts} ({source})."


# -- json -------------------------------------------------------------------------------------


def _transport_json(transport: Transport) -> dict[str, Any]:
    from easel_ls.services.skill_tests import ChatCompletions, Command

    if isinstance(transport, ChatCompletions):
        return {
            "transport": "chat-completions",
            "url": transport.endpoint,
            "model": transport.model,
        }
    if isinstance(transport, Command):
        return {"transport": "command", "command": transport.argv}
    return {"transport": transport.identity}


def _stage_json(stage: StageResult) -> dict[str, Any]:
    entry: dict[str, Any] = {"status": stage.status}
    if stage.stage == "routing":
        entry["picked"] = stage.picked
    else:
        entry["missing"] = [{"line": line.line, "text": line.text} for line in stage.missing]
    entry.update(
        {
            "answer": stage.answer if stage.status != "error" else None,
            "error": stage.error,
            "cached": stage.cached,
            "attempts": stage.attempts,
            "seconds": round(stage.seconds, 3),
            "tokens_sent": stage.tokens_sent,
            "tokens_received": stage.tokens_received,
            "token_source": stage.token_source,
        }
    )
    return entry


def render_json(
    ws: Workspace,
    transport: Transport,
    stages: Sequence[str],
    results: list[SkillTestResult],
    notices: list[Notice],
    totals: Totals,
) -> str:
    from dataclasses import asdict

    payload = {
        "version": 1,
        "model": _transport_json(transport),
        "stages": list(stages),
        "tests": [
            {
                "skill": r.test.skill,
                "test": r.test.name,
                "prompt": ws.rel(r.test.prompt_path),
                "expected": ws.rel(r.test.expected_path),
                "status": r.status,
                **{name: _stage_json(stage) for name, stage in r.stages.items()},
            }
            for r in results
        ],
        "notices": [
            {"path": ws.rel(n.path), "skill": n.skill, "message": n.message, "skipped": n.skipped}
            for n in notices
        ],
        "totals": asdict(totals),
    }
    return json.dumps(payload, ensure_ascii=False, indent=2) + "\n"


# -- junit ------------------------------------------------------------------------------------


# Characters XML 1.0 cannot carry even escaped (a model may well answer with them).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def render_junit(ws: Workspace, results: list[SkillTestResult], notices: list[Notice]) -> str:
    """A test suite per skill, a test case per test and stage; skipped tests as skipped cases."""
    suites: dict[str, list[ET.Element]] = {}
    counts: dict[str, list[int]] = {}  # skill -> [tests, failures, errors, skipped]
    for result in results:
        test = result.test
        for stage in result.stages.values():
            case = ET.Element(
                "testcase",
                {
                    "classname": _xml(f"easel-ls.{test.skill}"),
                    "name": _xml(f"{test.name} {stage.stage}"),
                    "file": _xml(ws.rel(test.prompt_path)),
                    "time": f"{stage.seconds:.3f}",
                },
            )
            count = counts.setdefault(test.skill, [0, 0, 0, 0])
            count[0] += 1
            if stage.status == "error":
                count[2] += 1
                element = ET.SubElement(case, "error", {"message": _xml(stage.error or "")})
                element.text = _xml(stage.error or "")
            elif stage.status == "fail":
                count[1] += 1
                if stage.stage == "routing":
                    message = f"picked {stage.picked}" if stage.picked else "named no listed skill"
                else:
                    message = "missing: " + ", ".join(line.text for line in stage.missing)
                element = ET.SubElement(case, "failure", {"message": _xml(message)})
                element.text = _xml(stage.answer)
            suites.setdefault(test.skill, []).append(case)
    for notice in notices:
        if not notice.skipped:
            continue
        skill = notice.skill or "easel-ls"
        case = ET.Element(
            "testcase",
            {
                "classname": _xml(f"easel-ls.{skill}"),
                "name": _xml(notice.path.stem),
                "file": _xml(ws.rel(notice.path)),
            },
        )
        ET.SubElement(case, "skipped", {"message": _xml(notice.message)})
        count = counts.setdefault(skill, [0, 0, 0, 0])
        count[0] += 1
        count[3] += 1
        suites.setdefault(skill, []).append(case)
    grand = [sum(c[i] for c in counts.values()) for i in range(4)]
    root = ET.Element(
        "testsuites",
        {
            "name": "easel-ls test",
            "tests": str(grand[0]),
            "failures": str(grand[1]),
            "errors": str(grand[2]),
            "skipped": str(grand[3]),
        },
    )
    for skill, cases in suites.items():
        tests, failures, errors, skipped = counts[skill]
        suite = ET.SubElement(
            root,
            "testsuite",
            {
                "name": _xml(skill),
                "tests": str(tests),
                "failures": str(failures),
                "errors": str(errors),
                "skipped": str(skipped),
            },
        )
        suite.extend(cases)
    ET.indent(root, space="  ")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{ET.tostring(root, encoding="unicode")}\n'
