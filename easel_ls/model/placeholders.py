"""Placeholders: what documentation writes where a real value will go.

Skills write `outputs/<主题>/`, `--topic {topic}`, `$OUT` and `...`, and just as often a word
that names the *kind* of value: `outputs/主题名/note.md`, `outputs/书名/chapters/`, `-p 画像名`,
`--paper 论文简称`. Such a word is a placeholder, never a literal value; every rule asks here, so
commands, paths and output folders agree on what is one.

The nouns are the `placeholder-words` option (a team writing in another language lists its own).
A CJK word is a placeholder when it contains one of them or ends in 名 (主题名, 书名, 剧名,
账号名); a word in another script when it equals one (case-insensitive), since a Latin word
inside another (`topic` in `topics-weekly`) says nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

PLACEHOLDER_WORDS: tuple[str, ...] = (
    "主题", "内容", "画像", "标题", "路径", "文件", "名称", "名字", "简称", "关键词", "链接",
    "文本", "描述", "话题", "账号", "目录", "图片", "视频", "编号", "序号", "日期", "时间",
    "参数", "数值", "项目", "作品", "平台", "类型",
    "topic", "topic_name", "topic-name", "project_name", "project-name",
)  # fmt: skip

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_CJK_WORD = re.compile(r"[\u3400-\u9fff\uf900-\ufaff0-9_\-]+")
# Bracketed and shell forms: `<主题>`, `{topic}`, `${OUT}`, `$OUT`, `...`, `…`.
_MARKED = re.compile(r"<[^<>]*>|\{[^{}]*\}|\$\{?\w+|\.\.\.|…")


class PlaceholderNouns:
    """A prepared `placeholder-words` list (asked for every word of every command)."""

    __slots__ = ("cjk", "other", "words")

    def __init__(self, words: Iterable[str]) -> None:
        self.words = tuple(words)
        self.cjk = tuple(w for w in self.words if _CJK.search(w))
        self.other = frozenset(w.lower() for w in self.words if not _CJK.search(w))

    def match(self, text: str) -> bool:
        """Whether a whole word (a path segment, an argument) names a kind of value."""
        if not text:
            return False
        if _CJK.search(text):
            if _CJK_WORD.fullmatch(text) is None:
                return False
            return text.endswith("名") or any(noun in text for noun in self.cjk)
        return bool(self.other) and text.lower() in self.other


DEFAULT_NOUNS = PlaceholderNouns(PLACEHOLDER_WORDS)


@lru_cache(maxsize=32)
def nouns_for(words: tuple[str, ...]) -> PlaceholderNouns:
    return DEFAULT_NOUNS if words == PLACEHOLDER_WORDS else PlaceholderNouns(words)


def has_marked_placeholder(text: str) -> bool:
    """`<…>`, `{…}`, `$VAR`, `...` or `…` anywhere in ``text``."""
    return _MARKED.search(text) is not None


def is_placeholder_segment(segment: str, nouns: PlaceholderNouns = DEFAULT_NOUNS) -> bool:
    """A path segment that stands for a value: marked (`<主题>`) or a placeholder noun."""
    return has_marked_placeholder(segment) or nouns.match(segment)


def path_has_placeholder(path: str, nouns: PlaceholderNouns = DEFAULT_NOUNS) -> bool:
    """Whether any segment of a `/`-separated path is a placeholder."""
    if has_marked_placeholder(path):
        return True
    return any(nouns.match(part) for part in path.split("/") if part)
