"""The content_guard corpus: every leak blocks with its category, every ordinary post passes
with no finding at all. The strings live in tests/shared/corpus/ (written for this test); the
module's ``selftest`` carries a subset of both sides."""

from __future__ import annotations

import re
from pathlib import Path

import content_guard
import pytest
from content_guard import scan

CORPUS = Path(__file__).resolve().parent / "corpus"
ENV_FILE = CORPUS / "publisher.env"
SCANNER_BREAK = "«»"  # keeps invented vendor keys from looking real to secret scanners
LEAK_LINE = re.compile(r"\[(?P<category>\w+)\] (?P<text>.+)")


def _lines(name: str) -> list[tuple[int, str]]:
    """Numbered lines without blanks and comments (``# …``; a hashtag line is ``#话题#``)."""
    numbered = enumerate((CORPUS / name).read_text(encoding="utf-8").splitlines(), start=1)
    return [(number, line) for number, line in numbered if line and not line.startswith("# ")]


def _leaks() -> list[tuple[int, str, str]]:
    leaks = []
    for number, line in _lines("leaks.txt"):
        match = LEAK_LINE.fullmatch(line)
        assert match is not None, f"leaks.txt:{number}: not `[category] text`"
        leaks.append((number, match["category"], match["text"].replace(SCANNER_BREAK, "")))
    return leaks


LEAKS = _leaks()
CLEAN = _lines("clean.txt")


def _found(text: str) -> list[tuple[str, str, str]]:
    return [(f.category, f.level, text[f.start : f.end]) for f in scan(text, env_file=ENV_FILE)]


@pytest.mark.parametrize(
    ("category", "text"),
    [(category, text) for _, category, text in LEAKS],
    ids=[f"leaks.txt:{number}" for number, _, _ in LEAKS],
)
def test_every_leak_blocks_with_its_category(category: str, text: str) -> None:
    found = _found(text)
    assert category in {found_category for found_category, level, _ in found if level == "BLOCK"}
    assert content_guard.has_block(scan(text, env_file=ENV_FILE))


@pytest.mark.parametrize(
    "text", [text for _, text in CLEAN], ids=[f"clean.txt:{n}" for n, _ in CLEAN]
)
def test_every_ordinary_post_passes_without_any_finding(text: str) -> None:
    assert _found(text) == []


def test_the_corpus_is_large_and_covers_every_block_category() -> None:
    assert len(LEAKS) >= 200 and len(CLEAN) >= 200
    assert {category for _, category, _ in LEAKS} == set(content_guard.BLOCK_CATEGORIES)
    assert len({text for _, _, text in LEAKS}) == len(LEAKS), "a leak is listed twice"
    assert len({text for _, text in CLEAN}) == len(CLEAN), "a clean line is listed twice"


def test_the_corpus_holds_the_shapes_leaks_come_in() -> None:
    texts = [text for _, _, text in LEAKS]
    shapes = {
        "CJK around it": r"[\u4e00-\u9fff]",
        "full-width punctuation": r"[，。：（）《》「」【】]",
        "a URL": r"https?://",
        "Markdown": r"`|\*\*|\]\(|^\|",
        "JSON": r'^\{".+":',
    }
    for shape, pattern in shapes.items():
        assert sum(bool(re.search(pattern, text)) for text in texts) >= 5, shape


def test_clean_posts_hold_the_look_alikes_that_once_caused_false_alarms() -> None:
    clean = "\n".join(text for _, text in CLEAN)
    for look_alike in (
        "SK-II", "iPhone 16 Pro", "RTX 4090", "小米14", "1080P", "19:30", "138-0013-8000",
        "v1.2.3.4", "#好物分享#", "2025-03-08", "https://www.lanzou.com/", "corporate.com",
        "planet.com", "国产大模型", "AIGC", "system prompt",
    ):  # fmt: skip
        assert look_alike in clean, look_alike


def test_the_selftest_samples_come_from_the_corpus() -> None:
    assert set(content_guard.SELFTEST_LEAKS) <= {(category, text) for _, category, text in LEAKS}
    assert set(content_guard.SELFTEST_CLEAN) <= {text for _, text in CLEAN}
    # the selftest's .env holds the corpus .env's value its env_secret sample uses
    selftest_env = dict(line.split("=", 1) for line in content_guard._SELFTEST_ENV.splitlines())
    corpus_env = content_guard.read_env_file(ENV_FILE)
    assert selftest_env.items() <= corpus_env.items()
