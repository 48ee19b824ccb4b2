"""`surely_valid` never disagrees with jsonschema: True only for what Draft202012Validator accepts,
on the manifest schema (generated valid manifests and thousands of mutations of them) and on
schemas using keywords it leaves to jsonschema."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from easel_ls.rules.manifest import manifest_schema
from easel_ls.schema_precheck import surely_valid

FIXTURES = Path(__file__).parent / "fixtures" / "outputs" / "outputs"

VALID: dict[str, Any] = {
    "topic": "春日穿搭",
    "created": "2025-05-03T09:00:00+08:00",
    "updated": "2025-05-03T10:00:00+08:00",
    "title": "春日穿搭：三套通勤搭配",
    "platform": "小红书",
    "kind": "xhs-note",
    "status": "draft",
    "tags": ["春日", "穿搭"],
    "deliverables": ["note.md"],
    "cover": "card_1.svg",
    "steps": [
        {
            "layer": "plan",
            "skill": "xhs-note-plan",
            "at": "2025-05-03T10:00:00+08:00",
            "status": "done",
            "outputs": ["note.md"],
            "upstream": [],
            "summary": "写好了",
        }
    ],
}
ODD_VALUES: list[object] = [
    None, True, False, 0, 1, 1.0, 2.5, -3, "", "x", "draft", "plan", "done", "note.md", [], ["x"],
    [1], {}, {"a": 1}, {"layer": "plan"}, "2025-13-45", "xhs-note", "published",
]  # fmt: skip


def _paths(value: object, prefix: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


def _mutate(rng: random.Random, manifest: dict[str, Any]) -> object:
    doc: Any = copy.deepcopy(manifest)
    for _ in range(rng.randint(1, 3)):
        path = rng.choice(_paths(doc))
        parent: Any = doc
        for step in path[:-1]:
            parent = parent[step]
        action = rng.random()
        if not path:
            doc = rng.choice(ODD_VALUES) if action < 0.1 else doc
            continue
        last = path[-1]
        if action < 0.45:
            parent[last] = copy.deepcopy(rng.choice(ODD_VALUES))
        elif action < 0.7 and isinstance(parent, dict):
            del parent[last]
        elif isinstance(parent, dict):
            parent[rng.choice(["extra", "layer", "status", "kind", "tags", "topic"])] = (
                copy.deepcopy(rng.choice(ODD_VALUES))
            )
        elif isinstance(parent, list):
            parent.append(copy.deepcopy(rng.choice([*ODD_VALUES, VALID["steps"][0]])))
        if not isinstance(doc, (dict, list)):
            break
    return doc


def _is_valid(schema: dict[str, Any], instance: object) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(instance)


def test_valid_manifests_are_surely_valid() -> None:
    schema = manifest_schema()
    examples = [VALID, {"topic": "x"}]
    examples += [json.loads(p.read_text("utf-8")) for p in FIXTURES.glob("*/.easel.json")
                 if p.parent.name != "坏清单"]  # fmt: skip
    for example in examples:
        if _is_valid(schema, example):
            assert surely_valid(schema, example) is True, example


@pytest.mark.parametrize("seed", range(20))
def test_never_disagrees_with_jsonschema(seed: int) -> None:
    schema = manifest_schema()
    rng = random.Random(seed)
    answers = set()
    for _ in range(150):
        instance = _mutate(rng, VALID)
        quick = surely_valid(schema, instance)
        answers.add(quick)
        if quick is not None:
            assert quick == _is_valid(schema, instance), instance
        if _is_valid(schema, instance) and quick is not True:
            # Unsure is allowed only where the schema or value needs jsonschema's judgement.
            assert quick is None
    assert False in answers  # mutations do break manifests


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "integer"},  # 1.0 counts as an integer to jsonschema
        {"enum": [1, 2]},
        {"pattern": "^a"},
        {"$ref": "https://example.com/x.json"},
        {"properties": {"a": {"$id": "https://example.com/a", "type": "string"}}},
    ],
)
def test_what_it_does_not_know_is_left_to_jsonschema(schema: dict[str, Any]) -> None:
    instance: object = {"a": "x"} if "properties" in schema else 1.0
    assert surely_valid(schema, instance) is None
