#!/usr/bin/env python3
"""Soak the language server: replay many didChange edits over stdio and watch its memory.

    python benchmarks/soak_lsp.py [--size 100] [--edits 50000] [--batch 25] [--debounce-ms 20]

Starts `python -m easel_ls` on `benchmarks/workspaces/ws-N` (generated with `gen_workspace.py N`
when missing), opens one SKILL.md, waits for the background index, then replays ``--edits``
incremental edits (typing a word into a command line and deleting it again, with a full-text
resync every 1000 edits). After every ``--batch`` edits it waits for the diagnostics of the last
version, so the server really checks throughout. Reports the server's RSS (VmRSS from /proc) at
the start, every tenth of the run and at the end, its peak (VmHWM), and the didChange ->
publishDiagnostics latency of the batches (p50/p95). A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

BENCHMARKS_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHMARKS_DIR.parent / "tests/robustness"))
sys.path.insert(0, str(BENCHMARKS_DIR))

from lsp_wire import RawServer  # noqa: E402


def workspace(size: int) -> Path:
    root = BENCHMARKS_DIR / "workspaces" / f"ws-{size}"
    if not root.is_dir():
        from gen_workspace import generate

        generate(size, root)
    return root


def status_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--size", type=int, default=100, help="skills in the workspace")
    parser.add_argument("--edits", type=int, default=50_000)
    parser.add_argument("--batch", type=int, default=25, help="edits between two waits")
    parser.add_argument("--debounce-ms", type=int, default=20)
    parser.add_argument(
        "--type-during-index",
        action="store_true",
        help="first type into the open file until the background index ends, timing each edit",
    )
    args = parser.parse_args(argv)

    root = workspace(args.size)
    skill = sorted((root / "skills/openclaw").iterdir())[0] / "SKILL.md"
    text = skill.read_text(encoding="utf-8")
    lines = text.split("\n")
    target_line = next(i for i, line in enumerate(lines) if line.startswith("python "))
    column = len(lines[target_line])
    uri = skill.as_uri()

    server = RawServer(root)
    started = time.perf_counter()
    try:
        capabilities = {"window": {"workDoneProgress": True}}
        result = server.call(
            "initialize",
            {
                "processId": None,
                "rootUri": root.as_uri(),
                "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
                "capabilities": capabilities,
                "initializationOptions": {"debounceMs": args.debounce_ms},
            },
            timeout=120,
        )
        assert "result" in result, result
        server.notify("initialized", {})
        server.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}},
        )
        server.wait_for(lambda: server.published(uri), timeout=120, what="first diagnostics")

        def index_ended() -> bool:
            return any(
                n["method"] == "$/progress" and n["params"]["value"].get("kind") == "end"
                for n in list(server.notifications)
            )

        # Typing while the background index runs: one edit at a time, each waited for.
        typing_latencies: list[float] = []
        typing_version = 1
        while args.type_during_index and not index_ended():
            typing_version += 1
            at = {"line": target_line, "character": column}
            body = {"range": {"start": at, "end": at}, "text": "x" if typing_version % 2 else ""}
            if typing_version % 2 == 0:  # delete what the previous edit typed
                body = {"range": {"start": at, "end": {**at, "character": column + 1}}, "text": ""}
            sent = time.perf_counter()
            server.notify(
                "textDocument/didChange",
                {"textDocument": {"uri": uri, "version": typing_version}, "contentChanges": [body]},
            )
            server.wait_for(
                lambda v=typing_version: any(p.get("version") == v for p in server.published(uri)),
                timeout=60,
                what=f"diagnostics for version {typing_version}",
            )
            typing_latencies.append((time.perf_counter() - sent) * 1000)

        try:
            server.wait_for(index_ended, timeout=600, what="the background index")
            index_s = time.perf_counter() - started
        except AssertionError:
            index_s = float("nan")  # no work-done progress reported
        pid = server.process.pid
        rss = [(0, status_kb(pid, "VmRSS"))]
        latencies: list[float] = []
        version = typing_version
        if version % 2:  # an odd count left an `x` typed: remove it so the text is the original
            version += 1
            server.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"text": text}],
                },
            )
        word = " --soak"
        typed = 0  # characters of ``word`` currently in the line
        for edit in range(1, args.edits + 1):
            version += 1
            if edit % 1000 == 0:
                typed = 0
                change: dict[str, object] = {"text": text}
            elif typed < len(word) and (edit // len(word)) % 2 == 0:
                at = {"line": target_line, "character": column + typed}
                change = {"range": {"start": at, "end": at}, "text": word[typed]}
                typed += 1
            elif typed > 0:
                typed -= 1
                start = {"line": target_line, "character": column + typed}
                end = {"line": target_line, "character": column + typed + 1}
                change = {"range": {"start": start, "end": end}, "text": ""}
            else:
                at = {"line": target_line, "character": column}
                change = {"range": {"start": at, "end": at}, "text": word[0]}
                typed = 1
            sent = time.perf_counter()
            server.notify(
                "textDocument/didChange",
                {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
            )
            if edit % args.batch == 0 or edit == args.edits:
                wanted = version
                server.wait_for(
                    lambda wanted=wanted: any(
                        p.get("version") == wanted for p in server.published(uri)[-3:]
                    ),
                    timeout=60,
                    what=f"diagnostics for version {wanted}",
                )
                latencies.append((time.perf_counter() - sent) * 1000)
                # Keep the client's own record small over a long run.
                server.notifications[:] = server.notifications[-50:]
            if edit % max(1, args.edits // 10) == 0:
                rss.append((edit, status_kb(pid, "VmRSS")))
        peak = status_kb(pid, "VmHWM")
        total_s = time.perf_counter() - started
        exit_code = server.shutdown(timeout=60)
    finally:
        server.close()
    report = {
        "workspace": root.name,
        "edits": args.edits,
        "checks_waited_for": len(latencies),
        "debounce_ms": args.debounce_ms,
        "index_s": round(index_s, 1),
        "run_s": round(total_s, 1),
        "rss_mb": [(edit, round(kb / 1024, 1)) for edit, kb in rss],
        "rss_start_mb": round(rss[0][1] / 1024, 1),
        "rss_end_mb": round(rss[-1][1] / 1024, 1),
        "peak_rss_mb": round(peak / 1024, 1),
        "latency_ms_p50": round(statistics.median(latencies), 1),
        "latency_ms_p95": round(percentile(latencies, 0.95), 1),
        "exit_code": exit_code,
    }
    if typing_latencies:
        report["edits_while_indexing"] = len(typing_latencies)
        report["while_indexing_ms_p50"] = round(statistics.median(typing_latencies), 1)
        report["while_indexing_ms_p95"] = round(percentile(typing_latencies, 0.95), 1)
    print(json.dumps(report, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
