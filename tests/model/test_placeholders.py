"""What documentation writes in place of a value: one model for commands, paths and outputs."""

from __future__ import annotations

import pytest

from easel_ls.model.placeholders import (
    DEFAULT_NOUNS,
    PlaceholderNouns,
    is_placeholder_segment,
    nouns_for,
    path_has_placeholder,
)


@pytest.mark.parametrize(
    "word", ["主题名", "主题", "书名", "剧名", "论文简称", "项目名", "账号名", "画像", "topic"]
)
def test_words_that_name_a_kind_of_value_are_placeholders(word: str) -> None:
    assert DEFAULT_NOUNS.match(word)


@pytest.mark.parametrize(
    "word", ["春日穿搭", "咖啡", "小红书", "render", "topics", "主题.md", "", "xhs"]
)
def test_real_values_are_not(word: str) -> None:
    assert not DEFAULT_NOUNS.match(word)


def test_marked_segments_are_placeholders() -> None:
    for segment in ("<主题>", "{topic}", "$OUT", "${OUT}", "...", "…"):
        assert is_placeholder_segment(segment)
    assert path_has_placeholder("outputs/书名/chapters/")
    assert not path_has_placeholder("outputs/春日穿搭/note.md")


def test_a_configured_list_replaces_the_nouns() -> None:
    nouns = PlaceholderNouns(["chủ đề", "tên"])
    assert nouns.match("Tên") and nouns.match("chủ đề")
    assert not nouns.match("主题")  # the built-in nouns are replaced, not extended
    assert nouns.match("书名")  # a CJK word ending in 名 still names a kind of value
    assert nouns_for(tuple(DEFAULT_NOUNS.words)) is DEFAULT_NOUNS
