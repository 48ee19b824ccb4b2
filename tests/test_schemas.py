"""The shipped JSON Schemas, the packaged shared modules, and the position-aware JSON model."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from easel_ls.model.json_doc import MAX_DEPTH, JsonNode, parse_json
from easel_ls.spec import LAYERS
from easel_ls.vendor import SHARED_MODULE_NAMES, VENDOR_DIR, load_shared

REPO = Path(__file__).resolve().parents[1]
SHARED_SCRIPTS = REPO / "skills" / "shared" / "scripts"


def schema(name: str) -> dict[str, Any]:
    text = resources.files("easel_ls.schemas").joinpath(name).read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@pytest.mark.parametrize("name", ["easel.schema.json", "openclaw-metadata.schema.json"])
def test_schema_is_a_valid_draft_2020_12_schema(name: str) -> None:
    document = schema(name)
    assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(document)


def _properties(node: Any, where: str = "") -> list[tuple[str, dict[str, Any]]]:
    found = []
    if isinstance(node, dict):
        for key, value in node.get("properties", {}).items():
            found.append((f"{where}.{key}", value))
        for key, value in node.items():
            if key not in ("allOf", "anyOf", "if", "then"):  # conditions, not definitions
                found.extend(_properties(value, f"{where}/{key}"))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found.extend(_properties(value, f"{where}[{index}]"))
    return found


def _has_cjk(text: str) -> bool:
    return any("\u4e00" <= c <= "\u9fff" for c in text)


@pytest.mark.parametrize("name", ["easel.schema.json", "openclaw-metadata.schema.json"])
def test_every_property_is_described_in_chinese_and_english(name: str) -> None:
    for where, prop in _properties(schema(name)):
        assert "description" in prop and "markdownDescription" in prop, where
        assert _has_cjk(prop["description"]), where
        assert any(c.isascii() and c.isalpha() for c in prop["description"]), where
        if "enum" in prop:
            assert len(prop.get("markdownEnumDescriptions", [])) == len(prop["enum"]), where


def test_manifest_schema_enums_equal_manifest_py() -> None:
    manifest = load_shared(SHARED_SCRIPTS, trusted=True).manifest
    document = schema("easel.schema.json")
    props = document["properties"]
    step = document["$defs"]["step"]["properties"]
    assert tuple(props["kind"]["enum"]) == manifest.KINDS
    assert tuple(props["status"]["enum"]) == manifest.PROJECT_STATUSES
    assert tuple(step["status"]["enum"]) == manifest.STEP_STATUSES
    assert tuple(step["layer"]["enum"]) == manifest.LAYERS
    assert tuple(manifest.LAYERS) == tuple(LAYERS)
    assert tuple(props) == manifest.TOP_LEVEL_KEYS
    assert tuple(step) == manifest.STEP_KEYS


def test_what_manifest_py_writes_is_valid() -> None:
    manifest = load_shared(SHARED_SCRIPTS, trusted=True).manifest
    data = manifest.apply_meta({}, "春日穿搭", {"kind": "cards", "deliverables": "a.png,b.md"})
    step = manifest.new_step("plan", "video-script", outputs="brief.md", upstream="x")
    data = manifest.apply_step(data, "春日穿搭", step, profile="p")
    jsonschema.Draft202012Validator(schema("easel.schema.json")).validate(data)


def test_vendored_modules_match_the_shared_scripts_byte_for_byte() -> None:
    for name in SHARED_MODULE_NAMES:
        packaged = (VENDOR_DIR / f"{name}.py").read_bytes()
        assert packaged == (SHARED_SCRIPTS / f"{name}.py").read_bytes(), (
            f"easel_ls/vendor/{name}.py drifted: copy skills/shared/scripts/{name}.py over it"
        )


def test_loading_the_packaged_manifest_leaves_sys_path_alone() -> None:
    import sys

    before = list(sys.path)
    modules = load_shared(None)
    assert modules.source == "packaged"
    assert modules.manifest.output_paths is modules.output_paths
    assert sys.path == before
    assert (
        "output_paths" not in sys.modules or sys.modules["output_paths"] is not modules.output_paths
    )


# -- json_doc --------------------------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=20,
)


def _check_ranges(text: str, node: JsonNode) -> None:
    assert json.loads(text[node.start : node.end]) == node.value or node.kind in ("object", "array")
    for member in node.members:
        assert json.loads(text[member.key_start : member.key_end]) == member.key
        _check_ranges(text, member.value)
    for item in node.items:
        _check_ranges(text, item)


@settings(max_examples=150, deadline=None)
@given(json_values, st.sampled_from([None, 2]), st.booleans())
def test_every_node_range_holds_its_own_text(value: Any, indent: int | None, ascii_: bool) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_)
    parsed = parse_json(text)
    assert parsed.error is None and parsed.root is not None
    assert parsed.data == value
    _check_ranges(text, parsed.root)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=40))
def test_any_text_parses_without_raising(text: str) -> None:
    parsed = parse_json(text)
    assert (parsed.error is None) == (parsed.root is not None)


def test_duplicate_keys_are_kept_and_the_last_wins() -> None:
    parsed = parse_json('{"a": 1, "a": 2}')
    assert parsed.root is not None
    assert [m.key for m in parsed.root.members] == ["a", "a"]
    assert parsed.data == {"a": 2}
    node = parsed.node_at(["a"])
    assert node is not None and (node.start, node.end) == (14, 15)


def test_depth_is_bounded() -> None:
    inside = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert parse_json(inside).error is None
    too_deep = parse_json("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    assert too_deep.error is not None and too_deep.error.offset == MAX_DEPTH
    assert parse_json("[" * 100_000).error is not None


def test_brackets_inside_strings_do_not_count_as_depth() -> None:
    text = json.dumps({"s": "[" * 500})
    assert parse_json(text).error is None
