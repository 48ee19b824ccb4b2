"""Whether a JSON value surely satisfies a JSON Schema, without importing jsonschema.

Importing jsonschema (referencing, rpds, attrs …) costs about as much as checking a hundred
manifests, and almost every manifest is valid. ``surely_valid`` understands the few keywords
easel-ls's own schemas use (``type``, ``enum`` of strings, ``required``, ``properties``,
``additionalProperties``, ``items``, ``minLength``, local ``$ref``; annotations, and ``format``,
which Draft202012Validator without a format checker does not assert) and answers True only when
the value satisfies every one of them. Anything else (another keyword, an enum of numbers, a
remote reference) answers None, and the caller asks jsonschema, which alone says what is wrong.
"""

from __future__ import annotations

from typing import Any

_ANNOTATIONS = frozenset(
    {
        "$schema",
        "$comment",
        "$defs",
        "title",
        "description",
        "markdownDescription",
        "markdownEnumDescriptions",
        "default",
        "examples",
        "format",
    }
)
_TYPES: dict[str, Any] = {
    "string": lambda v: isinstance(v, str),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "integer": lambda v: type(v) is int,  # 1.0 is an integer to jsonschema: left to it
    "number": lambda v: type(v) in (int, float),
}


class _Unsure(Exception):
    pass


def surely_valid(schema: dict[str, Any], instance: object) -> bool | None:
    """True when ``instance`` satisfies ``schema``; None when unsure (ask jsonschema)."""
    try:
        return _valid(schema, instance, schema, 0)
    except (_Unsure, RecursionError):
        return None


def _valid(schema: object, value: object, root: dict[str, Any], depth: int) -> bool:
    if schema is True:
        return True
    if not isinstance(schema, dict) or depth > 50:
        raise _Unsure
    for key, rule in schema.items():
        if key in _ANNOTATIONS:
            continue
        if key == "$id":
            if schema is not root:  # a nested resource: references resolve against it
                raise _Unsure
        elif key == "$ref":
            if not _valid(_resolve(rule, root), value, root, depth + 1):
                return False
        elif key == "type":
            names = [rule] if isinstance(rule, str) else rule
            if not isinstance(names, list) or any(n not in _TYPES for n in names):
                raise _Unsure
            if isinstance(value, float) and "integer" in names and value.is_integer():
                raise _Unsure
            if not any(_TYPES[n](value) for n in names):
                return False
        elif key == "enum":
            if not isinstance(rule, list) or not all(isinstance(v, str) for v in rule):
                raise _Unsure
            if not isinstance(value, str) or value not in rule:
                return False
        elif key == "minLength":
            if type(rule) is not int:
                raise _Unsure
            if isinstance(value, str) and len(value) < rule:
                return False
        elif key == "required":
            if isinstance(value, dict) and any(k not in value for k in rule):
                return False
        elif key == "properties":
            if isinstance(value, dict):
                for name, sub in rule.items():
                    if name in value and not _valid(sub, value[name], root, depth + 1):
                        return False
        elif key == "additionalProperties":
            if "patternProperties" in schema:
                raise _Unsure
            if isinstance(value, dict):
                known = schema.get("properties", {})
                extra = [k for k in value if k not in known]
                if rule is False and extra:
                    return False
                if rule is not False and not all(
                    _valid(rule, value[k], root, depth + 1) for k in extra
                ):
                    return False
        elif key == "items":
            if "prefixItems" in schema:
                raise _Unsure
            if isinstance(value, list) and not all(
                _valid(rule, item, root, depth + 1) for item in value
            ):
                return False
        else:
            raise _Unsure
    return True


def _resolve(ref: object, root: dict[str, Any]) -> object:
    if not isinstance(ref, str) or not ref.startswith("#/"):
        raise _Unsure
    node: object = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            raise _Unsure
        node = node[part]
    return node
