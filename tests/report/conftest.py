"""A fixed workspace and findings that exercise every corner of the output formats.

The files live in memory: ``ReportContext.source`` reads them from ``SOURCES``; a path
missing there (the file outside the root) stands for a file whose text is unavailable.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from easel_ls.findings import (
    Applicability,
    CreateFile,
    Finding,
    Fix,
    Location,
    Range,
    Severity,
    TextEdit,
)
from easel_ls.report import ReportContext

ROOT = Path("/ws")
POSTER = ROOT / "skills/openclaw/poster/SKILL.md"
RENDER = ROOT / "skills/openclaw/x/SKILL.md"
MANIFEST = ROOT / "projects/spring-sale/.easel.json"
EMPTY = ROOT / "skills/openclaw/empty/SKILL.md"
OUTSIDE = Path("/elsewhere/skills/y/SKILL.md")
GUIDE = ROOT / "skills/openclaw/poster/references/guide.md"

POSTER_TEXT = """---
name: postr
description: 生成海报 🎨 的技能，用户说"做海报"时触发
layer: produce
layer: plan
nmae: poster
---
# 海报 🎨
见 🎨 [指南](references/guide.md) 了解细节。
"""

RENDER_TEXT = (
    "---\nname: x\n---\n# 渲染\n\n## 执行步骤\n\n1. 运行：\n\n"
    "   注意 参数\n"
    "```bash\n"
    "python skills/openclaw/x/scripts/a.py render --ouput <主题>\n"
    "```\n"
)

MANIFEST_TEXT = """{
  "topic": "spring-sale",
  "steps": [
    {"name": "draft",
     "outputs": 3}
  ]
}
"""

SOURCES: dict[Path, str] = {
    POSTER: POSTER_TEXT,
    RENDER: RENDER_TEXT,
    MANIFEST: MANIFEST_TEXT,
    EMPTY: "",
}


def _span(text: str, line: int, needle: str) -> Range:
    """The range of ``needle`` on 0-based ``line`` of ``text``, in code points."""
    line_text = text.splitlines()[line]
    start = line_text.index(needle)
    return Range.of(line, start, line, start + len(needle))


def build_findings() -> list[Finding]:
    guide_range = _span(POSTER_TEXT, 8, "references/guide.md")
    option_range = _span(RENDER_TEXT, 11, "--ouput")
    return [
        # Listed out of order on purpose: every format prints them sorted.
        Finding(
            "CM002",
            "unknown-option",
            Severity.ERROR,
            "unknown option `--ouput` for `render`",
            RENDER,
            option_range,
            fixes=[
                Fix(
                    "Replace with `--output`",
                    Applicability.UNSAFE,
                    (TextEdit(RENDER, option_range, "--output"),),
                )
            ],
            help="did you mean `--output`?",
        ),
        Finding(
            "FM009",
            "name-mismatch",
            Severity.ERROR,
            "`name` is `postr` but the folder is `poster`",
            POSTER,
            _span(POSTER_TEXT, 1, "postr"),
            fixes=[
                Fix(
                    "Set `name` to `poster`",
                    Applicability.SAFE,
                    (TextEdit(POSTER, _span(POSTER_TEXT, 1, "postr"), "poster"),),
                )
            ],
        ),
        Finding(
            "FM007",
            "duplicate-key",
            Severity.ERROR,
            "key `layer` appears twice",
            POSTER,
            _span(POSTER_TEXT, 4, "layer"),
            related=[Location(POSTER, _span(POSTER_TEXT, 3, "layer"), "first `layer` here")],
            help="keep one `layer` key",
        ),
        Finding(
            "FM006",
            "unknown-key",
            Severity.WARNING,
            "unknown key `nmae`",
            POSTER,
            _span(POSTER_TEXT, 5, "nmae"),
            fixes=[
                Fix(
                    "Rename to `name`",
                    Applicability.UNSAFE,
                    (TextEdit(POSTER, _span(POSTER_TEXT, 5, "nmae"), "name"),),
                )
            ],
            help="did you mean `name`?",
        ),
        Finding(
            "RS001",
            "broken-link",
            Severity.ERROR,
            "link target `references/guide.md` does not exist",
            POSTER,
            guide_range,
            fixes=[
                Fix(
                    "Create `references/guide.md`",
                    Applicability.UNSAFE,
                    creates=(CreateFile(GUIDE, "# 指南\n"),),
                )
            ],
        ),
        Finding(
            "MF002",
            "manifest-schema",
            Severity.ERROR,
            "`steps[0].outputs` must be an array of paths",
            MANIFEST,
            Range.of(3, 4, 4, 17),
        ),
        Finding(
            "FM001",
            "frontmatter-missing",
            Severity.ERROR,
            "no frontmatter: SKILL.md must start with a `---` block",
            EMPTY,
            Range.line_start(0),
        ),
        Finding(
            "FM017",
            "openclaw-metadata-unneeded",
            Severity.INFO,
            "`metadata.openclaw` declares no os, requires or install",
            OUTSIDE,
            Range.of(2, 2, 2, 10),
        ),
    ]


def make_context(*, color: bool = False, unsafe_fixes: bool = False) -> ReportContext:
    return ReportContext(root=ROOT, source=SOURCES.get, color=color, unsafe_fixes=unsafe_fixes)


@pytest.fixture
def findings() -> list[Finding]:
    """The sample findings, deliberately out of order."""
    return build_findings()


@pytest.fixture
def make_ctx() -> Callable[..., ReportContext]:
    """``make_ctx(color=…, unsafe_fixes=…)``: a context over the sample workspace."""
    return make_context
