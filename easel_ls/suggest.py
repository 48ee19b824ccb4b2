"""Did-you-mean suggestions shared by every rule."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from functools import lru_cache


def closest(word: str, candidates: Iterable[str], *, n: int = 3, cutoff: float = 0.6) -> list[str]:
    """Best matches first; case-insensitive, but returns the candidates as written."""
    pool = tuple(dict.fromkeys(candidates))
    return list(_closest(word, pool, n, cutoff))


# A run asks the same question many times (a missing script named in many commands, an unknown
# option of a shared script in many skills: two thirds of the calls on a real repository of 103
# skills repeat an earlier one), and each answer costs a SequenceMatcher per candidate.
@lru_cache(maxsize=4096)
def _closest(word: str, pool: tuple[str, ...], n: int, cutoff: float) -> tuple[str, ...]:
    lowered = {c.lower(): c for c in pool}
    matches = difflib.get_close_matches(word.lower(), list(lowered), n=n, cutoff=cutoff)
    return tuple(lowered[m] for m in matches)


def ranked(word: str, candidates: Iterable[str]) -> list[str]:
    """Every candidate, closest first (for 'each valid value' fixes)."""
    pool = list(dict.fromkeys(candidates))
    return sorted(
        pool,
        key=lambda c: -difflib.SequenceMatcher(None, word.lower(), c.lower()).ratio(),
    )


def did_you_mean(options: list[str]) -> str | None:
    if not options:
        return None
    if len(options) == 1:
        return f"did you mean `{options[0]}`?"
    return "did you mean " + " or ".join(f"`{o}`" for o in options[:3]) + "?"
