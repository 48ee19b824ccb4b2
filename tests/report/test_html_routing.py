"""`easel-ls report --html`: the routing collisions (a similarity matrix of the skills that
compete and the pairs over the collision threshold both ways, saying whether either names the
other) and the token cost per skill and loading layer, on a workspace of four skills, two of
them near-duplicates. The page stays self-contained under its strict policy."""

from __future__ import annotations

import base64
import hashlib
import html
import re
from pathlib import Path

import pytest

from easel_ls.cli import main
from easel_ls.model import tokens
from easel_ls.model.tokens import TokenizerUnavailable, count_tokens
from easel_ls.report.html import MAX_COST_ROWS, render_html
from easel_ls.services.routing import SkillCost
from easel_ls.services.workspace_report import RoutingCollisions, TokenCosts

CARD = (
    "把写好的卡片脚本渲染成图文卡片，自动分页、排版和配色。"
    "适用场景：用户说“换个配色重新渲染”“把这篇笔记做成图文”。"
)
# card-maker said again in other words: each takes most of what the other says.
PAINTER = (
    "把卡片脚本渲染成图文卡片，自动排版、分页和配色。"
    "适用场景：用户说“把笔记做成图文卡片”“换个配色重新渲染”。"
)
NOTE = "为小红书笔记写标题、正文和话题标签。适用场景：用户说“帮我写一篇小红书笔记”。出图请用 `card-maker`。"
REVIEW = "发布后复盘：读曝光、阅读、点赞和涨粉数据，找出流量问题并给改进建议。用户说“帮我复盘一下”时使用。"
DESCRIPTIONS = {
    "card-maker": CARD,
    "card-painter": PAINTER,
    "note-writer": NOTE,
    "review-desk": REVIEW,
}


def write_skill(root: Path, name: str, description: str, body: str = "") -> Path:
    folder = root / "skills/openclaw" / name
    folder.mkdir(parents=True, exist_ok=True)
    skill_md = folder / "SKILL.md"
    skill_md.write_text(
        f"---\nname: {name}\ndescription: >-\n  {description}\nlayer: produce\n---\n\n"
        f"# {name}\n\n{body}",
        encoding="utf-8",
    )
    return skill_md


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    for name, description in DESCRIPTIONS.items():
        # note-writer's long body puts it second by total: not the order of the names.
        lines = 40 if name == "note-writer" else 5
        write_skill(root, name, description, "## 执行步骤\n\n1. 读取输入。\n" * lines)
    card = root / "skills/openclaw/card-maker"
    (card / "references").mkdir()
    (card / "references/design-rules.md").write_text("配色与排版规则。\n" * 60, encoding="utf-8")
    (card / "scripts").mkdir()
    (card / "scripts/render.py").write_text("print('render a card')\n" * 40, encoding="utf-8")
    return root


def report(ws: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> str:
    code = main(["report", str(ws), "--html", str(out), "--no-cache"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return out.read_text(encoding="utf-8")


def section(page: str, anchor: str) -> str:
    assert f'<section id="{anchor}"' in page, anchor
    return page.split(f'<section id="{anchor}"')[1].split("</section>")[0]


def cell(matrix: str, row: str, col: str) -> tuple[str, str, str]:
    """(class, title, text) of the matrix cell whose row is ``row`` and column ``col``."""
    found = re.search(
        rf'<td class="([^"]*)" title="{re.escape(row)} → {re.escape(col)}: ([^"]*)">([^<]*)</td>',
        matrix,
    )
    assert found, (row, col)
    return found.group(1), html.unescape(found.group(2)), found.group(3)


def test_the_near_duplicates_make_the_matrix_and_the_pair_list(
    ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    part = section(report(ws, tmp_path / "r.html", capsys), "routing-collisions")
    rows = re.findall(r'<th class="row" scope="row" title="([^"]+)">', part)
    # Only the two that compete: note-writer and review-desk share a word or two, no more.
    assert rows == ["card-maker", "card-painter"]
    assert re.findall(r'<th class="col" scope="col"><span>([^<]+)</span>', part) == rows
    assert part.count('<td class="self"') == 2
    cls, title, text = cell(part, "card-maker", "card-painter")
    share = int(text)
    assert 60 <= share < 100 and title.startswith(f"{share} %")
    assert "clash" in cls.split() and cls.split()[0] == f"sim{round(share / 10)}"
    assert "shared: " in title and "卡片脚本渲染成图文卡片" in title
    back = int(cell(part, "card-painter", "card-maker")[2])
    assert back >= 60
    # The pair, both shares, the words and the verdict: neither description names the other.
    pairs = part.split('<ul class="pairs">')[1]
    assert pairs.count("<li>") == 1
    assert "<code>card-maker</code> ↔ <code>card-painter</code>" in pairs
    assert f"{share} % / {back} %" in pairs
    assert "neither names the other (RT002)" in pairs and "换个配色重新渲染" in pairs


def test_the_pair_says_which_description_names_the_other(
    ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_skill(ws, "card-painter", PAINTER + "批量出图请交给 card-maker。")
    pairs = section(report(ws, tmp_path / "r.html", capsys), "routing-collisions")
    pairs = pairs.split('<ul class="pairs">')[1]
    assert '<span class="badge ok">card-painter names card-maker</span>' in pairs
    assert "neither names" not in pairs


def test_a_threshold_over_the_pair_leaves_the_matrix_and_empties_the_list(
    ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (ws / "easel-ls.toml").write_text("routing-collision-threshold = 0.95\n", encoding="utf-8")
    part = section(report(ws, tmp_path / "r.html", capsys), "routing-collisions")
    assert '<table class="matrix"' in part and "clash" not in part.split("</table>")[0]
    assert "No pair reaches 95 % in both directions" in part


def test_token_bars_per_skill_largest_first_with_the_resident_total(
    ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    part = section(report(ws, tmp_path / "r.html", capsys), "token-cost")
    resident = {n: count_tokens(f"{n}: {d}") for n, d in DESCRIPTIONS.items()}
    assert f"every request pays {sum(resident.values())} resident tokens (4 skills)" in part
    names = re.findall(r'<text class="label"[^>]*>([^<]+)</text>', part)
    assert names[:2] == ["card-maker", "note-writer"] and sorted(names) == sorted(DESCRIPTIONS)
    totals = [int(t) for t in re.findall(r'<tspan class="value">(\d+)</tspan>', part)]
    assert len(totals) == 4 and totals == sorted(totals, reverse=True)
    rows = part.split('<g class="cost-row">')[1:]
    card = rows[0]
    for key in ("resident", "body", "references", "scripts"):
        assert f'<rect class="cost {key}"' in card, key
    assert f"<title>resident: {resident['card-maker']} tokens" in card
    rules = count_tokens("配色与排版规则。\n" * 60)
    assert f"<title>references: {rules} tokens" in card
    # The others have no references or scripts: no empty segments for them.
    assert all(
        'class="cost references"' not in r and 'class="cost scripts"' not in r for r in rows[1:]
    )
    assert f"· {resident['review-desk']} resident</tspan>" in part


def test_the_page_keeps_its_policy(
    ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = report(ws, tmp_path / "r.html", capsys)
    assert "<script" not in page and "<link" not in page and "url(" not in page
    markup = re.sub(r"<code>.*?</code>", "", page, flags=re.DOTALL)
    assert "http://" not in markup and "https://" not in markup
    assert ' style="' not in page  # the matrix shades by class: attributes need 'unsafe-inline'
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    style = re.search(r"<style>(.*?)</style>", page, re.DOTALL)
    assert policy is not None and style is not None
    digest = base64.b64encode(hashlib.sha256(style.group(1).encode()).digest()).decode()
    assert f"style-src 'sha256-{digest}'" in html.unescape(policy.group(1))
    assert ".sim10{" in style.group(1) and "rect.cost.resident" in style.group(1)


def test_without_a_tokenizer_the_report_says_so(
    ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def unavailable(text: str) -> int:
        raise TokenizerUnavailable("cannot load the cl100k_base tokenizer (test)")

    monkeypatch.setattr(tokens, "count_tokens", unavailable)
    page = report(ws, tmp_path / "r.html", capsys)
    part = section(page, "token-cost")
    assert "<h2>Token cost</h2>" in part
    assert "Token counts unavailable: cannot load the cl100k_base tokenizer (test)" in part
    assert '<table class="matrix"' in section(page, "routing-collisions")  # no tokens needed


def test_one_skill_gets_a_note_instead_of_a_matrix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "ws"
    write_skill(root, "card-maker", CARD)
    part = section(report(root, tmp_path / "r.html", capsys), "routing-collisions")
    assert "Routing needs two skills with a description to compare; this workspace has 1." in part
    assert "<table" not in part and '<ul class="pairs">' not in part


def test_skills_that_do_not_compete_get_the_closest_pair(
    ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (ws / "skills/openclaw/card-painter/SKILL.md").unlink()
    (ws / "skills/openclaw/card-painter").rmdir()
    part = section(report(ws, tmp_path / "r.html", capsys), "routing-collisions")
    assert (
        "No two skills compete: no description gives another skill 30 % of its own score." in part
    )
    assert re.search(r"The closest: <code>[\w-]+</code> → <code>[\w-]+</code>, \d+ %\.", part)
    assert "<table" not in part
    assert "No pair reaches" not in part  # said by the line above already


def test_many_skills_are_capped_with_a_count_of_the_rest() -> None:
    names = [f"skill-{i:03d}" for i in range(MAX_COST_ROWS + 5)]
    costs = TokenCosts(
        tuple(SkillCost(n, 10 + i, 1000 - i) for i, n in enumerate(names)), sum(range(10, 55))
    )
    collisions = RoutingCollisions(
        skills=45,
        names=("a", "b"),
        similarity=((1.0, 0.7), (0.65, 1.0)),
        shared=(((), ("x",)), (("x",), ())),
        left_out=43,
        pairs=(),
        pairs_left_out=0,
        threshold=0.6,
    )
    page = render_html(Path("/ws"), [], [], [], collisions=collisions, costs=costs)
    part = section(page, "token-cost")
    assert part.count('<g class="cost-row">') == MAX_COST_ROWS
    rest = sum(10 + i for i in range(MAX_COST_ROWS, MAX_COST_ROWS + 5))
    assert f"… and 5 more skills, {rest} resident tokens between them" in part
    matrix = section(page, "routing-collisions")
    assert (
        "45 of 45 skills share a request with another at 30 % or more; the 2 most competing"
        in matrix
    )
    assert "… and 43 more competing skills, left out of the matrix" in matrix


def test_existing_callers_get_the_page_without_the_new_sections() -> None:
    page = render_html(Path("/ws"), [], [], [])
    assert 'id="routing-collisions"' not in page and 'id="token-cost"' not in page
