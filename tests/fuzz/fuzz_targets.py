"""Long fuzz runs over every input target (not collected by pytest: run it directly).

    python tests/fuzz/fuzz_targets.py --examples 100000 --minutes 2 [TARGET ...]

Each target runs in chunks of fresh random examples until it reaches ``--examples`` or its time
budget; the summary (examples tried, failures, slowest example) is printed as JSON so the
figures in docs/robustness.md can be reproduced. Exit status 1 if any invariant broke.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "robustness"))

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from robustness_inputs import (
    COMMAND_LINE,
    CONFIG_TEXT,
    MANIFEST,
    MANIFEST_TEXT,
    MARKDOWN,
    PYTHON_SOURCE,
    REFERENCE,
    SKILL,
    SKILL_WITH_FRONTMATTER,
    SUPPRESSED_SKILL,
    adversarial_documents,
    assert_config_sound,
    assert_script_sound,
    assert_sound,
    make_workspace,
    skill_calling,
)

CHUNK = 500


def _target(name: str, root: Path) -> tuple[st.SearchStrategy[str], Callable[[str], object]]:
    ws = make_workspace(root)
    config_dir = root / "config"
    config_dir.mkdir(exist_ok=True)
    targets: dict[str, tuple[st.SearchStrategy[str], Callable[[str], object]]] = {
        "frontmatter": (SKILL_WITH_FRONTMATTER, lambda t: assert_sound(ws, SKILL, t)),
        "markdown-skill": (MARKDOWN, lambda t: assert_sound(ws, SKILL, t)),
        "markdown-reference": (MARKDOWN, lambda t: assert_sound(ws, REFERENCE, t)),
        "command-line": (COMMAND_LINE, lambda t: assert_sound(ws, SKILL, skill_calling(t))),
        "argparse-script": (PYTHON_SOURCE, lambda t: assert_script_sound(ws, t)),
        "easel-json": (MANIFEST_TEXT, lambda t: assert_sound(ws, MANIFEST, t)),
        "suppressions": (SUPPRESSED_SKILL, lambda t: assert_sound(ws, SKILL, t)),
        "config": (CONFIG_TEXT, lambda t: assert_config_sound(config_dir, t)),
    }
    return targets[name]


TARGETS = [
    "frontmatter",
    "markdown-skill",
    "markdown-reference",
    "command-line",
    "argparse-script",
    "easel-json",
    "suppressions",
    "config",
]


def run_target(name: str, examples: int, seconds: float) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as scratch:
        strategy, check = _target(name, Path(scratch))
        tried = 0
        slowest = 0.0
        failures: list[str] = []

        @settings(
            max_examples=CHUNK,
            deadline=None,
            database=None,
            phases=[Phase.generate, Phase.shrink],
            suppress_health_check=list(HealthCheck),
        )
        @given(text=strategy)
        def one(text: str) -> None:
            nonlocal tried, slowest
            tried += 1
            started = time.perf_counter()
            check(text)
            slowest = max(slowest, time.perf_counter() - started)

        began = time.perf_counter()
        while tried < examples and time.perf_counter() - began < seconds and len(failures) < 5:
            try:
                one()
            except Exception:
                failures.append(traceback.format_exc(limit=8)[-3000:])
        return {
            "target": name,
            "examples": tried,
            "seconds": round(time.perf_counter() - began, 1),
            "slowest_example_s": round(slowest, 3),
            "failures": failures,
        }


def run_adversarial(repeat: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as scratch:
        ws = make_workspace(Path(scratch))
        worst = ("", 0.0)
        failures = []
        docs = adversarial_documents(repeat)
        for label, text in docs:
            started = time.perf_counter()
            try:
                assert_sound(ws, SKILL, text)
            except Exception:
                failures.append(f"{label}: {traceback.format_exc(limit=4)[-1500:]}")
            elapsed = time.perf_counter() - started
            if elapsed > worst[1]:
                worst = (label, elapsed)
        return {
            "target": f"adversarial x{repeat}",
            "examples": len(docs),
            "slowest": worst[0],
            "slowest_s": round(worst[1], 3),
            "failures": failures,
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", nargs="*", help=f"default: all of {TARGETS}")
    parser.add_argument("--examples", type=int, default=100_000)
    parser.add_argument("--minutes", type=float, default=2.0, help="budget per target")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--adversarial-repeat", type=int, default=50_000)
    args = parser.parse_args(argv)
    unknown = set(args.targets) - set(TARGETS)
    if unknown:
        parser.error(f"unknown targets: {sorted(unknown)}")
    targets = args.targets or TARGETS
    with ProcessPoolExecutor(args.jobs) as pool:
        futures = [
            pool.submit(run_target, name, args.examples, args.minutes * 60) for name in targets
        ]
        futures.append(pool.submit(run_adversarial, args.adversarial_repeat))
        results = []
        for future in futures:
            result = future.result()
            results.append(result)
            print(json.dumps(result, ensure_ascii=False), flush=True)
    return 1 if any(r["failures"] for r in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
