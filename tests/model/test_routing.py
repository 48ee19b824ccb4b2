"""The routing model: which skill a request reaches on name + description alone."""

from __future__ import annotations

import random
import time

import pytest

from easel_ls.model.routing import (
    RoutingIndex,
    SkillCard,
    analyse,
    boundary_spans,
    normalise,
    term_texts,
    trigger_phrases,
)

BOUNDARY = ("不负责", "交给", "请用", "不写")

CARDS = [
    SkillCard(
        "card-maker",
        "把写好的卡片脚本渲染成图文卡片，自动分页和配色。适用场景：用户说“做成图文”“换个配色”。"
        "不写文案，文案交给 note-writer。",
        "produce",
    ),
    SkillCard(
        "note-writer",
        "为小红书笔记写标题、正文和卡片文案。适用场景：用户说“帮我写一篇笔记”“写个种草文案”。"
        "出图请用 card-maker。",
        "plan",
    ),
    SkillCard(
        "review-desk",
        "发布后复盘数据：曝光、阅读、点赞和涨粉，找出流量问题。用户说“帮我复盘一下”时使用。",
        "attribute",
    ),
    SkillCard(
        "tao-video",
        "Tạo video ngắn từ kịch bản: cắt cảnh, thêm phụ đề. Dùng khi người dùng nói “tạo video ngắn”.",
        "produce",
    ),
    SkillCard(
        "pdf-tools",
        "Extract text and tables from PDF files. Use when the user says “extract the tables from "
        "this PDF”.",
        "general",
    ),
]


@pytest.fixture(scope="module")
def index() -> RoutingIndex:
    return RoutingIndex.build(CARDS, boundary_cues=BOUNDARY)


def test_chinese_text_becomes_character_unigrams_and_bigrams():
    assert term_texts("做成图文") == ["做", "成", "图", "文", "做成", "成图", "图文"]
    assert [t.text for t in analyse("图文")] == ["图", "文", "图文"]


def test_latin_words_keep_their_diacritics_and_pair_up():
    terms = term_texts(normalise("Tạo Video ngắn"))
    assert "tạo" in terms and "ngắn" in terms and "tạo video" in terms


def test_a_hyphenated_name_is_kept_whole_and_in_parts():
    terms = term_texts("use card-maker now")
    assert "card-maker" in terms and "card" in terms and "maker" in terms
    assert "use" not in terms  # a stop word


def test_words_pair_only_across_white_space():
    assert "tạo video" in term_texts("tạo video")
    assert "tạo video" not in term_texts("tạo, video")
    assert term_texts("tạo, video") == [t.text for t in analyse("tạo, video")]


def test_offsets_point_at_the_analysed_text():
    text = normalise("把 Card-Maker 做成图文 😀")
    for term in analyse(text):
        assert text[term.start : term.end] == term.text or " " in term.text


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        ("把这个做成图文", "card-maker"),
        ("帮我写一篇小红书笔记", "note-writer"),
        ("这篇笔记发了三天，帮我复盘一下", "review-desk"),
        ("tạo video ngắn cho kênh", "tao-video"),
        ("extract the tables from this pdf", "pdf-tools"),
        ("card maker", "card-maker"),
    ],
)
def test_each_request_reaches_its_skill(index, request_text, expected):
    assert index.rank(request_text).top.name == expected


def test_boundary_clauses_do_not_count_for_the_skill(index):
    # card-maker's description says 文案 only to hand it to note-writer.
    ranking = index.rank("写文案", top=5)
    assert ranking.top.name == "note-writer"
    card_maker = next(h for h in ranking.hits if h.name == "card-maker")
    assert "文案" not in card_maker.matched  # only 写 (of 写好的) is its own


def test_boundary_spans_find_cue_clauses_and_named_neighbours():
    text = "渲染卡片。不写文案，文案由 note-writer 负责；改配色。"
    spans = [text[s.start : s.stop] for s in boundary_spans(text, ("不写",), {"note-writer"})]
    assert spans == ["不写文案", "文案由 note-writer 负责"]


def test_ranking_reports_matched_words_and_margin(index):
    ranking = index.rank("帮我复盘一下", top=3)
    assert ranking.top.name == "review-desk"
    assert "帮我复盘一下" in ranking.top.matched
    assert ranking.margin == pytest.approx(
        ranking.hits[0].score - (ranking.hits[1].score if len(ranking.hits) > 1 else 0)
    )


def test_a_request_sharing_no_word_ranks_nothing(index):
    assert index.rank("🙂🙂").hits == ()


def test_best_rival_agrees_with_the_full_ranking():
    rng = random.Random(7)
    words = ["图文", "笔记", "复盘", "视频", "配色", "标题", "数据", "剪辑", "封面", "字幕"]
    cards = [
        SkillCard(f"s{i}", "".join(rng.choice(words) for _ in range(8)) + "。用户说“做个东西”。")
        for i in range(60)
    ]
    index = RoutingIndex.build(cards)
    for _ in range(100):
        request = "".join(rng.choice(words) for _ in range(3))
        own = rng.choice(cards).name
        ranking = index.rank(request, top=0, with_words=False)
        others = [h for h in ranking.hits if h.name != own]
        bar = 0.9 * ranking.score_of(own)
        expected = others[0].name if others and others[0].score >= bar else None
        rival = index.best_rival(request, own, 0.9)
        assert (rival[0] if rival else None) == expected, request


def test_similarity_is_high_for_near_duplicates_and_low_otherwise():
    cards = [
        SkillCard("video-cut", "把长视频剪成短视频片段，自动加字幕。用户说“剪个短视频”时使用。"),
        SkillCard("video-clip", "把长视频剪成短视频片段，配字幕和封面。用户说“剪短视频”时使用。"),
        SkillCard("review-desk", "发布后复盘曝光、阅读、点赞和涨粉。用户说“复盘一下”时使用。"),
    ]
    index = RoutingIndex.build(cards)
    assert index.similarity("video-cut", "video-clip") > 0.45
    assert index.similarity("video-cut", "review-desk") < 0.3
    assert index.neighbours("video-cut")[0][0] == "video-clip"
    assert "把长视频剪成短视频片段" in index.shared_words("video-cut", "video-clip")


@pytest.mark.parametrize(
    ("description", "phrases"),
    [
        ("适用场景：用户说“出图”“把这篇笔记做成图文”。", ["出图", "把这篇笔记做成图文"]),
        ("例如「帮我复盘」『看看数据』时触发。", ["帮我复盘", "看看数据"]),
        ('Use when the user says "extract the tables".', ["extract the tables"]),
        ("Dùng khi người dùng nói “tạo video ngắn”.", ["tạo video ngắn"]),
        # A quoted term with no cue before it is a name, not a request.
        ("把成品放进“内容库”。", []),
        # One character is no request; a quote never closed is skipped.
        ("用户说“好”。用户说“没有结尾", []),
    ],
)
def test_trigger_phrases_are_quoted_requests_after_a_cue(description, phrases):
    found = trigger_phrases(description, cues=("说", "例如", "says", "nói"))
    assert [p.text for p in found] == phrases
    for p in found:
        assert description[p.start : p.end] == p.text


def test_trigger_phrases_take_configured_quotes():
    assert [p.text for p in trigger_phrases("用户说《出图》", ("《》",), ("说",))] == ["出图"]


def test_index_of_one_thousand_skills_is_quick():
    # Loose bounds (the measured figures are in benchmarks/bench_routing.py): a regression by
    # an order of magnitude fails here, machine noise does not.
    rng = random.Random(3)
    chars = "的图文笔记视频复盘配色标题数据剪辑封面字幕选题发布账号画像脚本卡片"
    cards = [
        SkillCard(f"skill-{i:04d}", "".join(rng.choice(chars) for _ in range(120)))
        for i in range(1000)
    ]
    start = time.perf_counter()
    index = RoutingIndex.build(cards)
    assert time.perf_counter() - start < 3.0
    start = time.perf_counter()
    for _ in range(20):
        index.rank("帮我把视频剪辑成短片并配字幕")
    assert (time.perf_counter() - start) / 20 < 0.1
