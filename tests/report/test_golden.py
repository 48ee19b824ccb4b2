"""Golden outputs: every format on the fixed findings of ``conftest.py``.

Each format's output must equal its file under ``tests/report/golden/``. After an intended
change of output, regenerate the files and review the diff:

    UPDATE_GOLDEN=1 /work/venv/bin/python -m pytest tests/report/test_golden.py

The SARIF golden leaves out ``tool.driver.rules`` and the version (they follow the catalogue
and the release; ``test_sarif.py`` checks them against ``easel_ls.rules.RULES``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from easel_ls.findings import Finding
from easel_ls.report import ReportContext, render, render_statistics, render_summary

GOLDEN = Path(__file__).parent / "golden"


def _sarif_without_catalogue(text: str) -> str:
    log = json.loads(text)
    driver = log["runs"][0]["tool"]["driver"]
    driver["rules"] = f"<{len(driver['rules'])} rules: see test_sarif.py>"
    driver["version"] = "<version>"
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _check_golden(name: str, actual: str) -> None:
    golden = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(actual, encoding="utf-8", newline="")
    assert golden.exists(), f"{golden} is missing: run with UPDATE_GOLDEN=1"
    assert actual == golden.read_text(encoding="utf-8")


Producer = Callable[[list[Finding], ReportContext], str]


def _format(fmt: str) -> Producer:
    return lambda findings, ctx: render(findings, fmt, ctx)


def _sarif(findings: list[Finding], ctx: ReportContext) -> str:
    return _sarif_without_catalogue(render(findings, "sarif", ctx))


def _statistics(findings: list[Finding], ctx: ReportContext) -> str:
    # Two codes twice, so the table has an order by count to show.
    return render_statistics(findings + findings[:2], ctx)


# (golden file, producer, context options)
CASES: list[tuple[str, Producer, dict[str, bool]]] = [
    ("concise.txt", _format("concise"), {}),
    ("concise-unsafe-fixes.txt", _format("concise"), {"unsafe_fixes": True}),
    ("full.txt", _format("full"), {}),
    ("full-color.txt", _format("full"), {"color": True}),
    ("json.json", _format("json"), {}),
    ("json-lines.jsonl", _format("json-lines"), {}),
    ("github.txt", _format("github"), {}),
    ("sarif.json", _sarif, {}),
    ("sarif-unsafe-fixes.json", _sarif, {"unsafe_fixes": True}),
    ("junit.xml", _format("junit"), {}),
    ("summary.txt", render_summary, {}),
    ("summary-unsafe-fixes.txt", render_summary, {"unsafe_fixes": True}),
    ("summary-after-fix.txt", lambda f, c: render_summary(f, c, fixed=2), {}),
    ("statistics.txt", _statistics, {}),
]


@pytest.mark.parametrize(("name", "produce", "options"), CASES, ids=[case[0] for case in CASES])
def test_output_matches_golden(
    name: str,
    produce: Producer,
    options: dict[str, bool],
    findings: list[Finding],
    make_ctx: Callable[..., ReportContext],
) -> None:
    _check_golden(name, produce(findings, make_ctx(**options)))
