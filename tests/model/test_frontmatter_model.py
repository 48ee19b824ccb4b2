"""The frontmatter model: every key and value has the range where it is written, aliases too."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from easel_ls.model.frontmatter import Frontmatter, parse_frontmatter
from easel_ls.model.text import TextDocument


def written(text: str) -> tuple[Frontmatter, dict[str, Any], Any]:
    """The frontmatter, its values by key, and a function giving a node's source text."""
    doc = TextDocument(Path("SKILL.md"), text)
    fm = parse_frontmatter(doc)
    assert fm.error is None
    return fm, {k.value: v for k, v in fm.items()}, lambda node: doc.slice(fm.node_range(node))


def test_each_alias_is_placed_where_it_is_written_in_document_order() -> None:
    fm, values, at = written(
        "---\n"
        "name: 卡片 🎨\n"
        "x: &l prodcue\n"
        "layer: *l\n"
        "meta:\n"
        "  c: *l\n"
        "  base: &m {k: v}\n"
        "d: *l\n"
        "again: *m\n"
        "lst: [*l, 2, *m]\n"
        "---\n"
    )
    assert at(values["x"]) == "&l prodcue"  # the anchor keeps its own place
    assert at(values["layer"]) == "*l" and fm.node_range(values["layer"]).start.line == 3
    assert at(values["d"]) == "*l" and fm.node_range(values["d"]).start.line == 7
    c, base = (v for _, v in values["meta"].value)
    assert at(c) == "*l" and fm.node_range(c).start.line == 5
    assert at(base) == "&m {k: v}"
    # An aliased mapping: the alias is placed, its (shared) entries stay where they are written.
    assert at(values["again"]) == "*m" and values["again"].value is base.value
    assert [at(item) for item in values["lst"].value] == ["*l", "2", "*m"]
    # The values are the anchored ones.
    assert values["layer"].value == values["d"].value == c.value == "prodcue"


def test_without_aliases_the_composed_nodes_are_untouched() -> None:
    _, values, at = written("---\nname: demo\nlayer: '*not-an-alias*'\ntags: [a, b]\n---\n")
    assert values["layer"].value == "*not-an-alias*"
    assert at(values["layer"]) == "'*not-an-alias*'"


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["plain", "anchor", "alias", "nested", "list"]), st.integers(0, 3)
        ),
        max_size=12,
    )
)
def test_random_aliases_are_each_placed_at_their_own_text(plan: list[tuple[str, int]]) -> None:
    lines, expected, anchors = ["---"], {}, 0
    for i, (kind, pick) in enumerate(plan):
        key = f"k{i}"
        if kind == "anchor" or (kind != "plain" and anchors == 0):
            lines.append(f"{key}: &a{anchors} 值{i} 🎨")
            expected[key] = f"&a{anchors} 值{i} 🎨"
            anchors += 1
        elif kind == "plain":
            lines.append(f"{key}: 值{i}")
            expected[key] = f"值{i}"
        elif kind == "alias":
            lines.append(f"{key}: *a{pick % anchors}")
            expected[key] = f"*a{pick % anchors}"
        elif kind == "nested":
            lines += [f"{key}:", f"  inner: *a{pick % anchors}"]
            expected[key] = ("inner", f"*a{pick % anchors}")
        else:
            lines.append(f"{key}: [*a{pick % anchors}, x]")
            expected[key] = [f"*a{pick % anchors}", "x"]
    _, values, at = written("\n".join([*lines, "---", ""]))
    for key, want in expected.items():
        node = values[key]
        if isinstance(want, tuple):
            [(inner_key, inner)] = node.value
            assert (inner_key.value, at(inner)) == want
        elif isinstance(want, list):
            assert [at(item) for item in node.value] == want
        else:
            assert at(node) == want
