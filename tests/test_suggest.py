"""Did-you-mean: `closest` answers exactly as difflib.get_close_matches does (remembering an
answer never changes one), on many generated inputs and on the kinds of words rules ask about."""

from __future__ import annotations

import difflib
import random

import pytest

from easel_ls.suggest import closest


def reference(word: str, candidates: list[str], n: int = 3, cutoff: float = 0.6) -> list[str]:
    pool = list(dict.fromkeys(candidates))
    lowered = {c.lower(): c for c in pool}
    return [lowered[m] for m in difflib.get_close_matches(word.lower(), list(lowered), n, cutoff)]


WORDS = [
    "--theme", "--thme", "--topic", "--topc", "render", "rendr", "produce", "prodcue",
    "design-rules.md", "design-rule.md", "skills/shared/scripts/manifest.py",
    "skills/openclaw/x/scripts/generate_image.py", "主题", "主題", "Layer", "LAYER", "", "a",
]  # fmt: skip


def _mutate(rng: random.Random, word: str) -> str:
    letters = list(word) or ["x"]
    for _ in range(rng.randint(0, 3)):
        i = rng.randrange(len(letters))
        choice = rng.random()
        if choice < 0.3:
            letters.insert(i, rng.choice("abcdefg-_./主题"))
        elif choice < 0.6 and len(letters) > 1:
            del letters[i]
        else:
            letters[i] = letters[i].upper() if rng.random() < 0.5 else rng.choice("xyz")
    return "".join(letters)


@pytest.mark.parametrize("seed", range(40))
def test_closest_is_difflib(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(100):
        pool = [_mutate(rng, rng.choice(WORDS)) for _ in range(rng.randint(0, 30))]
        word = _mutate(rng, rng.choice(WORDS + pool if pool else WORDS))
        n = rng.choice((1, 3, 5))
        cutoff = rng.choice((0.0, 0.5, 0.6, 0.8, 1.0))
        expected = reference(word, pool, n, cutoff)
        assert closest(word, pool, n=n, cutoff=cutoff) == expected
        assert closest(word, iter(pool), n=n, cutoff=cutoff) == expected  # asked again


def test_a_remembered_answer_is_a_fresh_list() -> None:
    first = closest("--thme", ["--theme", "--topic"])
    first.append("changed")
    assert closest("--thme", ["--theme", "--topic"]) == ["--theme"]
