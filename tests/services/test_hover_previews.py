"""Hover previews: in `.easel.json` a `cover` or `deliverables` entry shows the image (with its
pixel size and size on disk) or a text file's first lines, a missing file says so, a step shows
its layer, skill, status and outputs as links; in skill Markdown a link to an image shows the
image. ``‸`` marks the cursor; the project's title has CJK and an emoji before the cursor."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from easel_ls.config import ConfigResolver
from easel_ls.model.text import TextDocument
from easel_ls.services.hover import HoverInfo, hover
from easel_ls.services.previews import code_span, escape, fenced
from easel_ls.workspace import Workspace

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "views"
PICNIC = "outputs/春日野餐"
MANIFEST = f"{PICNIC}/.easel.json"
SKILL = "skills/openclaw/card-maker/SKILL.md"

HEAD = '{\n  "topic": "春日野餐",\n  "title": "春日野餐清单 🧺", "summary": "😀😀",\n'


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    root = Path(shutil.copytree(FIXTURE, tmp_path / "ws")).resolve()
    return Workspace(root=root, config=ConfigResolver(stop_at=root))


def hover_at(ws: Workspace, rel: str, marked: str) -> HoverInfo | None:
    offset = marked.index("‸")
    doc = TextDocument(ws.root / rel, marked.replace("‸", ""))
    ws.set_overlay(doc)
    return hover(ws, doc, doc.position_at(offset))


def shown(ws: Workspace, rel: str, marked: str) -> HoverInfo:
    found = hover_at(ws, rel, marked)
    assert found is not None, f"no hover at {marked!r}"
    return found


def test_cover_shows_the_image_with_format_pixels_and_bytes(ws: Workspace) -> None:
    marked = HEAD + '  "cover": "co‸ver.png"\n}\n'
    found = shown(ws, MANIFEST, marked)
    cover = ws.root / PICNIC / "cover.png"
    assert found.markdown.startswith(f"![cover.png]({cover.as_uri()})")
    assert f"PNG · 160 × 120 px · {cover.stat().st_size} bytes" in found.markdown
    lines = marked.replace("‸", "").splitlines()
    number = next(i for i, line in enumerate(lines) if '"cover"' in line)
    start = lines[number].index('"cover.png"')
    # The range is the string, in code points of its line (CJK and emoji above do not shift it).
    assert (found.range.start.line, found.range.start.character) == (number, start)
    assert found.range.end.character == start + len('"cover.png"')


def test_a_deliverable_image_and_a_text_deliverable(ws: Workspace) -> None:
    other = shown(ws, MANIFEST, HEAD + '  "deliverables": ["card_1.png", "x‸"]\n}\n')
    assert other.markdown.startswith("`x` — **missing**")  # the entry under the cursor
    image = shown(ws, MANIFEST, HEAD + '  "deliverables": ["card‸_1.png"]\n}\n')
    assert "PNG · 2 × 5 px" in image.markdown
    note = shown(ws, MANIFEST, HEAD + '  "deliverables": ["note.m‸d"]\n}\n')
    assert "```markdown\n# 春日野餐清单\n\n1. 野餐垫\n2. 水果🍓\n```" in note.markdown
    assert "4 lines" in note.markdown


def test_a_missing_deliverable_says_so(ws: Workspace) -> None:
    found = shown(ws, MANIFEST, HEAD + '  "deliverables": ["card_9.p‸ng"]\n}\n')
    assert found.markdown.startswith("`card_9.png` — **missing**")
    assert "![" not in found.markdown


def test_a_long_text_deliverable_shows_its_first_lines(ws: Workspace) -> None:
    (ws.root / PICNIC / "long.md").write_text(
        "".join(f"第 {i} 行\n" for i in range(40)), encoding="utf-8"
    )
    found = shown(ws, MANIFEST, HEAD + '  "deliverables": ["lo‸ng.md"]\n}\n')
    assert "第 11 行" in found.markdown and "第 12 行" not in found.markdown
    assert "first 12 lines" in found.markdown


def test_a_step_shows_layer_skill_status_and_outputs_as_links(ws: Workspace) -> None:
    text = (ws.root / MANIFEST).read_text(encoding="utf-8")
    # On the failed step's `summary` key: the step first, then what the field means.
    marked = text.replace('"summary": "第 3 张', '"sum‸mary": "第 3 张')
    failed = shown(ws, MANIFEST, marked)
    assert failed.markdown.startswith("**Step 3 of 4** · `produce` · [card-maker](")
    assert "**failed** ✗" in failed.markdown
    assert "第 3 张放不下" in failed.markdown and "No outputs recorded." in failed.markdown
    assert "---" in failed.markdown and "summary" in failed.markdown.split("---")[1]
    # Between the members of the last step (on no token): the step alone, its outputs linked.
    marked = text.replace('"5 张卡片"\n', '"5 张卡片"\n‸', 1)
    last = shown(ws, MANIFEST, marked)
    note = (ws.root / PICNIC / "note.md").as_uri()
    assert f"- [note.md]({note})" in last.markdown
    assert "- [card\\_1.png](" in last.markdown
    assert last.range.start.line == text.splitlines().index("    {", 40)


def test_a_step_output_entry_previews_the_file(ws: Workspace) -> None:
    text = (ws.root / MANIFEST).read_text(encoding="utf-8")
    found = shown(ws, MANIFEST, text.replace('"brief.md"', '"brief‸.md"'))
    assert "```markdown\n# 简报" in found.markdown


def test_a_skill_that_is_not_in_the_workspace_is_named_as_such(ws: Workspace) -> None:
    marked = HEAD + '  "steps": [{"layer": "plan", "skill": "gho‸st"}]\n}\n'
    found = shown(ws, MANIFEST, marked)
    assert "`ghost` (not a skill of this workspace)" in found.markdown
    assert found.markdown.split("---")[0].count("done") == 1  # the default status


def test_the_schema_hover_stays_outside_steps_and_files(ws: Workspace) -> None:
    found = shown(ws, MANIFEST, HEAD + '  "pla‸tform": "小红书"\n}\n')
    assert found.markdown.startswith("**`platform`**")


def test_an_unparsable_manifest_falls_back_to_the_schema_hover(ws: Workspace) -> None:
    found = shown(ws, MANIFEST, '{\n  "cov‸er": "cover.png",\n')
    assert found.markdown.startswith("**`cover`**")


def test_skill_markdown_image_link_shows_the_image(ws: Workspace) -> None:
    picture = ws.root / "skills/openclaw/card-maker/references/样张 (1).png"
    picture.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(ws.root / PICNIC / "card_1.png", picture)
    head = (ws.root / SKILL).read_text(encoding="utf-8")
    marked = head + "\n示例🙂：![样‸张](<references/样张 (1).png>)\n"
    found = shown(ws, SKILL, marked)
    uri = picture.as_uri().replace("(", "%28").replace(")", "%29")
    assert found.markdown.startswith(f"![样张 \\(1\\).png]({uri})")
    assert "PNG · 2 × 5 px" in found.markdown
    line = marked.replace("‸", "").splitlines()[-1]
    assert found.range.start.character == line.index("![")
    assert found.range.end.character == len(line)


def test_links_that_are_not_local_images_keep_their_usual_hover(ws: Workspace) -> None:
    head = (ws.root / SKILL).read_text(encoding="utf-8")
    assert hover_at(ws, SKILL, head + "\n见 [格式](references/fo‸rmat.md)。\n") is None
    assert hover_at(ws, SKILL, head + "\n![远程](https://example.com/a‸.png)\n") is None


def test_markdown_helpers_keep_untrusted_text_literal() -> None:
    assert escape("[x](javascript:alert(1)) *b*") == "\\[x\\]\\(javascript:alert\\(1\\)\\) \\*b\\*"
    assert code_span("a`b") == "``a`b``"
    assert fenced("```\nx", "") == "````\n```\nx\n````"
