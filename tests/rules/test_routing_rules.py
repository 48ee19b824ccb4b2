"""RT — routing: a request a skill says it serves must reach it on the resident metadata."""

from __future__ import annotations

from pathlib import Path

import pytest

from easel_ls.config import ConfigResolver
from easel_ls.findings import Finding
from easel_ls.workspace import Workspace


def skill(name: str, description: str, layer: str = "produce") -> str:
    return f"---\nname: {name}\ndescription: >-\n  {description}\nlayer: {layer}\n---\n\n# {name}\n"


CARD = skill(
    "card-maker",
    "把写好的卡片脚本渲染成图文卡片，自动分页、排版和配色。适用场景：用户说“换个配色重新渲染”"
    "“把这篇笔记做成图文”。不写文案，文案交给 `note-writer`。",
)
NOTE = skill(
    "note-writer",
    "为小红书笔记写标题、正文和话题标签。适用场景：用户说“帮我写一篇小红书笔记”。"
    "出图请用 `card-maker`。",
    "plan",
)
REVIEW = skill(
    "review-desk",
    "发布后复盘：读曝光、阅读、点赞和涨粉数据，找出流量问题并给改进建议。"
    "用户说“帮我复盘一下”时使用。",
    "attribute",
)


# A writer whose every clause is about writing notes, and a review skill that quotes the
# writer's request in a long description about something else.
WRITER = skill(
    "note-writer",
    "写小红书笔记：写标题、写正文、写话题标签，一篇笔记从选题到成稿。"
    "用户说“帮我写小红书笔记”“写篇笔记”时使用。出图请用 `card-maker`。",
    "plan",
)
STRAY_REVIEW = (
    "发布后复盘：读曝光、阅读、点赞、收藏、评论和涨粉数据，对比同类账号，找出流量问题并给出"
    "封面、标题、发布时间的改进建议。用户说“帮我复盘一下”“帮我写小红书笔记”时使用。"
)


# RT001 is opt-in (see its doc): every workspace here selects it.
SELECT = 'extend-select = ["RT001"]\n'


@pytest.fixture
def make_workspace(tmp_path):
    """The rules' workspace builder, with RT001 selected unless the files bring a config."""

    def build(files):
        for rel, text in {"easel-ls.toml": SELECT, **files}.items():
            path = tmp_path / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        root = Path(tmp_path).resolve()
        return Workspace(root=root, config=ConfigResolver(stop_at=root))

    return build


def codes(findings: list[Finding], code: str) -> list[Finding]:
    return [f for f in findings if f.code == code]


def test_phrases_each_skill_wins_are_quiet(make_workspace, check):
    ws = make_workspace(
        {
            "skills/openclaw/card-maker/SKILL.md": CARD,
            "skills/openclaw/note-writer/SKILL.md": NOTE,
            "skills/openclaw/review-desk/SKILL.md": REVIEW,
        }
    )
    for name in ("card-maker", "note-writer", "review-desk"):
        assert codes(check(ws, f"skills/openclaw/{name}/SKILL.md"), "RT") == []
        assert codes(check(ws, f"skills/openclaw/{name}/SKILL.md"), "RT001") == []


def test_a_quoted_request_another_skill_wins_is_flagged_at_the_phrase(make_workspace, check):
    # review-desk quotes a request that is all about writing a note.
    stray = skill("review-desk", STRAY_REVIEW, "attribute")
    ws = make_workspace(
        {
            "skills/openclaw/note-writer/SKILL.md": WRITER,
            "skills/openclaw/review-desk/SKILL.md": stray,
            "skills/openclaw/card-maker/SKILL.md": CARD,
        }
    )
    found = codes(check(ws, "skills/openclaw/review-desk/SKILL.md"), "RT001")
    assert len(found) == 1
    finding = found[0]
    assert "`note-writer`" in finding.message and "not `review-desk`" in finding.message
    line = ws.read(ws.root / "skills/openclaw/review-desk/SKILL.md").doc.line_text(
        finding.range.start.line
    )
    assert line[finding.range.start.character :].startswith("帮我写小红书笔记”")
    assert finding.related and finding.related[0].path.parent.name == "note-writer"


def test_a_test_prompt_that_reaches_another_skill_is_flagged(make_workspace, check):
    ws = make_workspace(
        {
            "skills/openclaw/card-maker/SKILL.md": CARD,
            "skills/openclaw/note-writer/SKILL.md": NOTE,
            "skills/openclaw/review-desk/SKILL.md": REVIEW,
            "skills/openclaw/card-maker/tests/1.prompt": "帮我写一篇小红书笔记，要有标题和话题标签。\n",
            "skills/openclaw/card-maker/tests/1.expected": "标题\n",
            "skills/openclaw/card-maker/tests/2.prompt": "把这篇笔记做成图文，换个配色。\n",
            "skills/openclaw/card-maker/tests/2.expected": "配色\n",
        }
    )
    misrouted = codes(check(ws, "skills/openclaw/card-maker/tests/1.prompt"), "RT001")
    assert len(misrouted) == 1 and "`note-writer` first" in misrouted[0].message
    assert codes(check(ws, "skills/openclaw/card-maker/tests/2.prompt"), "RT001") == []
    assert codes(check(ws, "skills/openclaw/card-maker/tests/1.expected"), "RT001") == []


def test_two_copies_of_one_description_tie(make_workspace, check):
    copy = CARD.replace("name: card-maker", "name: card-maker-2")
    ws = make_workspace(
        {
            "skills/openclaw/card-maker/SKILL.md": CARD,
            "skills/openclaw/card-maker-2/SKILL.md": copy,
            "skills/openclaw/note-writer/SKILL.md": NOTE,
        }
    )
    found = codes(check(ws, "skills/openclaw/card-maker/SKILL.md"), "RT001")
    assert found and all("may pick either" in f.message or "first" in f.message for f in found)


def test_look_alikes_stay_quiet(make_workspace, check):
    # Quoted names and terms (no cue before them), a lone skill, boundary clauses that quote
    # the neighbour's request: none is a request this skill claims.
    lone = skill("solo", "把成品放进“内容库”，按“主题”归档。用户说“归档一下”时使用。")
    ws = make_workspace({"skills/openclaw/solo/SKILL.md": lone})
    assert codes(check(ws, "skills/openclaw/solo/SKILL.md"), "RT001") == []
    handing = skill(
        "card-maker",
        "把卡片脚本渲染成图文卡片。用户说“做成图文”时使用；"
        "不负责用户说“帮我写一篇小红书笔记”这类写作，交给 `note-writer`。",
    )
    ws = make_workspace(
        {
            "skills/openclaw/solo/SKILL.md": "",
            "skills/openclaw/card-maker/SKILL.md": handing,
            "skills/openclaw/note-writer/SKILL.md": NOTE,
        }
    )
    assert codes(check(ws, "skills/openclaw/card-maker/SKILL.md"), "RT001") == []
    # The same quote outside the boundary clause is claimed, and lost.
    claiming = handing.replace(
        "不负责用户说“帮我写一篇小红书笔记”这类写作，交给 `note-writer`",
        "用户说“帮我写一篇小红书笔记”",
    )
    ws = make_workspace({"skills/openclaw/card-maker/SKILL.md": claiming})
    found = codes(check(ws, "skills/openclaw/card-maker/SKILL.md"), "RT001")
    assert [f.message for f in found if "帮我写一篇小红书笔记" in f.message]


def test_collisions_are_opt_in_and_need_no_boundary(make_workspace, check):
    cut = skill("video-cut", "把长视频剪成短视频片段，自动加字幕和转场。用户说“剪个短视频”时使用。")
    clip = skill("video-clip", "把长视频剪成短视频片段，自动加字幕和封面。用户说“剪短视频”时使用。")
    files = {
        "skills/openclaw/video-cut/SKILL.md": cut,
        "skills/openclaw/video-clip/SKILL.md": clip,
        "skills/openclaw/review-desk/SKILL.md": REVIEW,
    }
    ws = make_workspace(files)
    assert codes(check(ws, "skills/openclaw/video-cut/SKILL.md"), "RT002") == []
    ws = make_workspace(
        {
            **files,
            "easel-ls.toml": 'extend-select = ["RT001", "RT002"]\nrouting-collision-threshold = 0.4\n',
        }
    )
    found = codes(check(ws, "skills/openclaw/video-cut/SKILL.md"), "RT002")
    assert len(found) == 1 and "`video-clip`" in found[0].message
    assert "shared:" in found[0].message
    # Naming the neighbour draws the boundary.
    bounded = cut.replace("时使用。", "时使用；加封面交给 `video-clip`。")
    ws = make_workspace(
        {
            "skills/openclaw/video-cut/SKILL.md": bounded,
            "easel-ls.toml": 'extend-select = ["RT002"]\nrouting-collision-threshold = 0.4\n',
        }
    )
    assert codes(check(ws, "skills/openclaw/video-cut/SKILL.md"), "RT002") == []
    assert codes(check(ws, "skills/openclaw/video-clip/SKILL.md"), "RT002") == []


def test_resident_cost_is_opt_in_and_counted_in_tokens(make_workspace, check):
    long_text = "把卡片脚本渲染成图文卡片，" * 40 + "用户说“做成图文”时使用。"
    files = {
        "skills/openclaw/card-maker/SKILL.md": skill("card-maker", long_text),
        "skills/openclaw/note-writer/SKILL.md": NOTE,
    }
    ws = make_workspace(files)
    assert codes(check(ws, "skills/openclaw/card-maker/SKILL.md"), "RT003") == []
    ws = make_workspace(
        {
            **files,
            "easel-ls.toml": 'extend-select = ["RT001", "RT003"]\nresident-token-budget = 300\n',
        }
    )
    found = codes(check(ws, "skills/openclaw/card-maker/SKILL.md"), "RT003")
    messages = " | ".join(f.message for f in found)
    assert "over the 200-token budget" in messages
    assert "the workspace's resident metadata" in messages  # on the largest description only
    assert codes(check(ws, "skills/openclaw/note-writer/SKILL.md"), "RT003") == []


def test_configured_quotes_and_cues(make_workspace, check):
    text = STRAY_REVIEW.replace(
        "用户说“帮我复盘一下”“帮我写小红书笔记”时使用", "客户讲《帮我写小红书笔记》"
    )
    stray = skill("review-desk", text, "attribute")
    files = {
        "skills/openclaw/note-writer/SKILL.md": WRITER,
        "skills/openclaw/review-desk/SKILL.md": stray,
    }
    ws = make_workspace(files)
    assert codes(check(ws, "skills/openclaw/review-desk/SKILL.md"), "RT001") == []
    ws = make_workspace(
        {
            **files,
            "easel-ls.toml": SELECT + 'trigger-quotes = ["《》"]\ntrigger-phrase-cues = ["讲"]\n',
        }
    )
    assert len(codes(check(ws, "skills/openclaw/review-desk/SKILL.md"), "RT001")) == 1
