"""A JSON document whose values carry their source offsets, so diagnostics can point at a key or
value instead of line 1.

Validity and error positions come from the standard ``json`` module (the same parser and
messages ``manifest.py`` uses); a small structural scanner then records where every key and value
sits. Written here rather than taken from a library: ``json-source-map`` (PyPI) is unmaintained
and drops duplicate keys, ``tree-sitter-json`` needs a compiled wheel per platform, and the scan
of already validated JSON is about a hundred lines.

Duplicate keys are kept in ``members`` (``data`` follows ``json.loads``: the last one wins).
Nesting deeper than :data:`MAX_DEPTH` is a syntax error, never a ``RecursionError``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

MAX_DEPTH = 64

_WHITESPACE = " \t\n\r"
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_LITERALS = {"true": True, "false": False, "null": None}

PathStep = str | int


@dataclass
class JsonSyntaxError:
    message: str
    offset: int


@dataclass
class JsonMember:
    key: str
    key_start: int
    key_end: int
    value: JsonNode


@dataclass
class JsonNode:
    """One value: ``kind`` is object, array, string, number, boolean or null."""

    kind: str
    start: int
    end: int
    value: Any = None  # the Python value of a scalar
    members: list[JsonMember] = field(default_factory=list)
    items: list[JsonNode] = field(default_factory=list)

    def member(self, key: str) -> JsonMember | None:
        """The member that ``json.loads`` keeps for ``key`` (the last one)."""
        for candidate in reversed(self.members):
            if candidate.key == key:
                return candidate
        return None

    def child(self, step: PathStep) -> JsonNode | None:
        if self.kind == "object" and isinstance(step, str):
            found = self.member(step)
            return found.value if found is not None else None
        if self.kind == "array" and isinstance(step, int) and 0 <= step < len(self.items):
            return self.items[step]
        return None


@dataclass
class JsonDocument:
    text: str
    root: JsonNode | None
    data: Any = None
    error: JsonSyntaxError | None = None

    def node_at(self, path: Sequence[PathStep]) -> JsonNode | None:
        node = self.root
        for step in path:
            if node is None:
                return None
            node = node.child(step)
        return node

    def member_at(self, path: Sequence[PathStep]) -> JsonMember | None:
        """The object member named by the last step of ``path`` (for key ranges)."""
        if not path or not isinstance(path[-1], str):
            return None
        parent = self.node_at(path[:-1])
        if parent is None or parent.kind != "object":
            return None
        return parent.member(path[-1])


def json_type_name(value: Any) -> str:
    """What a JSON value is, in words for a message (`a string`, `an array`, `null`)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def parse_json(text: str) -> JsonDocument:
    """Parse ``text``; never raises. On failure ``error`` says what and where, ``root`` is None."""
    too_deep = _depth_overflow(text)
    if too_deep is not None:
        message = f"nested deeper than {MAX_DEPTH} levels"
        return JsonDocument(text, None, error=JsonSyntaxError(message, too_deep))
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        return JsonDocument(text, None, error=JsonSyntaxError(exc.msg, exc.pos))
    except _NonStandardConstant as exc:
        offset = _find_outside_strings(text, exc.word)
        return JsonDocument(text, None, error=JsonSyntaxError(str(exc), offset))
    except (RecursionError, ValueError) as exc:
        return JsonDocument(text, None, error=JsonSyntaxError(str(exc), 0))
    try:
        root, _ = _Scanner(text).value(_skip_ws(text, 0))
    except (_ScanError, IndexError, ValueError):
        # json.loads accepted it, so this is a scanner gap: keep the data, lose the ranges.
        return JsonDocument(text, None, data=data)
    return JsonDocument(text, root, data=data)


class _NonStandardConstant(ValueError):
    def __init__(self, word: str) -> None:
        super().__init__(f"{word} is not valid JSON")
        self.word = word


def _reject_constant(word: str) -> Any:
    raise _NonStandardConstant(word)


def _find_outside_strings(text: str, word: str) -> int:
    pos = 0
    while pos < len(text):
        if text[pos] == '"':
            match = _STRING.match(text, pos)
            pos = match.end() if match else len(text)
        elif text.startswith(word, pos):
            return pos
        else:
            pos += 1
    return 0


class _ScanError(Exception):
    pass


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _WHITESPACE:
        pos += 1
    return pos


def _depth_overflow(text: str) -> int | None:
    """Offset of the first bracket beyond MAX_DEPTH (strings skipped), or None."""
    depth = 0
    pos = 0
    length = len(text)
    while pos < length:
        char = text[pos]
        if char == '"':
            match = _STRING.match(text, pos)
            if match is None:
                return None  # unterminated string: json.loads reports it
            pos = match.end()
            continue
        if char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return pos
        elif char in "]}":
            depth -= 1
        pos += 1
    return None


class _Scanner:
    """Records ranges in text that ``json.loads`` has already accepted."""

    def __init__(self, text: str) -> None:
        self.text = text

    def value(self, pos: int) -> tuple[JsonNode, int]:
        char = self.text[pos]
        if char == "{":
            return self.object(pos)
        if char == "[":
            return self.array(pos)
        if char == '"':
            end = self.string_end(pos)
            return JsonNode("string", pos, end, json.loads(self.text[pos:end])), end
        for word, literal in _LITERALS.items():
            if self.text.startswith(word, pos):
                kind = "null" if literal is None else "boolean"
                return JsonNode(kind, pos, pos + len(word), literal), pos + len(word)
        match = _NUMBER.match(self.text, pos)
        if match is None:
            raise _ScanError(pos)
        return JsonNode("number", pos, match.end(), json.loads(match.group())), match.end()

    def string_end(self, pos: int) -> int:
        match = _STRING.match(self.text, pos)
        if match is None:
            raise _ScanError(pos)
        return match.end()

    def object(self, start: int) -> tuple[JsonNode, int]:
        node = JsonNode("object", start, start)
        pos = _skip_ws(self.text, start + 1)
        if self.text[pos] == "}":
            node.end = pos + 1
            return node, node.end
        while True:
            key_end = self.string_end(pos)
            key = json.loads(self.text[pos:key_end])
            colon = _skip_ws(self.text, key_end)
            if self.text[colon] != ":":
                raise _ScanError(colon)
            value, after = self.value(_skip_ws(self.text, colon + 1))
            node.members.append(JsonMember(key, pos, key_end, value))
            pos = _skip_ws(self.text, after)
            if self.text[pos] == "}":
                node.end = pos + 1
                return node, node.end
            if self.text[pos] != ",":
                raise _ScanError(pos)
            pos = _skip_ws(self.text, pos + 1)

    def array(self, start: int) -> tuple[JsonNode, int]:
        node = JsonNode("array", start, start)
        pos = _skip_ws(self.text, start + 1)
        if self.text[pos] == "]":
            node.end = pos + 1
            return node, node.end
        while True:
            item, after = self.value(pos)
            node.items.append(item)
            pos = _skip_ws(self.text, after)
            if self.text[pos] == "]":
                node.end = pos + 1
                return node, node.end
            if self.text[pos] != ",":
                raise _ScanError(pos)
            pos = _skip_ws(self.text, pos + 1)
