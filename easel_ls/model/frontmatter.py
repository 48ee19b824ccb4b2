"""SKILL.md frontmatter: the `---` block, composed with PyYAML so every key and value has a range.

Composing (not constructing) keeps node marks and never expands aliases, so a "billion laughs"
document costs nothing; duplicate keys survive as separate pairs for FM007. Each alias gets its
own (shallow) node placed where `*name` is written, so findings and fixes land there.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml

from easel_ls.findings import Position, Range
from easel_ls.model.text import TextDocument

try:  # libyaml is much faster; its marks are code points like the pure-Python loader's.
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on the PyYAML build
    _Loader = yaml.SafeLoader

_FENCE = "---"
MAX_DEPTH = 64


@dataclass
class YamlError:
    message: str
    range: Range
    hint: str | None = None


@dataclass
class Frontmatter:
    present: bool  # an opening `---` on line 1
    closed: bool  # ... and a closing `---` (or `...`)
    end_line: int  # line of the closing fence (or last line when unclosed)
    body_start_line: int
    root: yaml.Node | None = None
    error: YamlError | None = None
    line_offset: int = 1  # document line of the YAML text's first line
    comments: dict[int, str] = field(default_factory=dict)  # doc line -> trailing `#` comment
    # Offset of each YAML text line: YAML also breaks lines at U+0085/U+2028/U+2029, which the
    # document does not, so positions come from a mark's character index, not its line.
    yaml_line_starts: list[int] = field(default_factory=lambda: [0])

    def node_range(self, node: yaml.Node) -> Range:
        return Range(self._pos(node.start_mark), self._pos(node.end_mark))

    def _pos(self, mark: yaml.Mark) -> Position:
        line = bisect.bisect_right(self.yaml_line_starts, mark.index) - 1
        return Position(line + self.line_offset, mark.index - self.yaml_line_starts[line])

    @property
    def mapping(self) -> yaml.MappingNode | None:
        return self.root if isinstance(self.root, yaml.MappingNode) else None

    def items(self) -> list[tuple[yaml.ScalarNode, yaml.Node]]:
        return mapping_items(self.mapping)

    def get(self, key: str) -> tuple[yaml.ScalarNode, yaml.Node] | None:
        for k, v in self.items():
            if k.value == key:
                return k, v
        return None


def mapping_items(node: yaml.Node | None) -> list[tuple[yaml.ScalarNode, yaml.Node]]:
    """Scalar-keyed pairs of a mapping node (merge keys and complex keys are skipped)."""
    if not isinstance(node, yaml.MappingNode):
        return []
    return [(k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode)]


def scalar_text(node: yaml.Node | None) -> str | None:
    """The resolved string of a scalar node, or None for anything else / null."""
    if not isinstance(node, yaml.ScalarNode):
        return None
    if node.tag == "tag:yaml.org,2002:null":
        return None
    return str(node.value)


def is_empty(node: yaml.Node | None) -> bool:
    if node is None:
        return True
    if isinstance(node, yaml.ScalarNode):
        return node.tag == "tag:yaml.org,2002:null" or not str(node.value).strip()
    return not node.value


def parse_frontmatter(doc: TextDocument) -> Frontmatter:
    first = doc.line_text(0).rstrip()
    if first != _FENCE:
        return Frontmatter(present=False, closed=False, end_line=0, body_start_line=0)
    end = None
    for line in range(1, doc.line_count):
        if doc.line_text(line).rstrip() in (_FENCE, "..."):
            end = line
            break
    if end is None:
        last = doc.line_count - 1
        return Frontmatter(present=True, closed=False, end_line=last, body_start_line=last + 1)
    fm = Frontmatter(present=True, closed=True, end_line=end, body_start_line=end + 1)
    yaml_lines = [doc.line_text(i) for i in range(1, end)]
    yaml_text = "\n".join(yaml_lines)
    fm.yaml_line_starts = list(
        itertools.accumulate((len(t) + 1 for t in yaml_lines[:-1]), initial=0)
    )
    fm.comments = _trailing_comments(doc, 1, end)
    if not yaml_text.strip():
        return fm
    try:
        fm.root = yaml.compose(yaml_text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        fm.error = _yaml_error(exc, doc, fm)
    except yaml.YAMLError as exc:
        fm.error = YamlError(str(exc), Range.line_start(1))
    except RecursionError:
        fm.error = YamlError("the YAML nests too deeply to analyse", Range.line_start(1))
    else:
        if fm.root is not None and _too_deep(fm.root):
            fm.error = YamlError(
                f"the YAML nests deeper than {MAX_DEPTH} levels", fm.node_range(fm.root)
            )
            fm.root = None
        elif fm.root is not None and "*" in yaml_text:
            _place_aliases(fm.root, _alias_marks(yaml_text))
    return fm


_Slot = tuple[yaml.Node, int, int]  # (collection, index, 0 key / 1 value / -1 sequence item)


def _alias_marks(yaml_text: str) -> list[tuple[Any, Any]]:
    """Where each alias (`*name`) is written, in document order (libyaml's or PyYAML's marks)."""
    try:
        return [
            (event.start_mark, event.end_mark)
            for event in yaml.parse(yaml_text, Loader=_Loader)
            if isinstance(event, yaml.AliasEvent)
        ]
    except (yaml.YAMLError, RecursionError):  # it composed, so it parses; never fail on it
        return []


def _place_aliases(root: yaml.Node, marks: list[tuple[Any, Any]]) -> None:
    """Composing hands every alias the anchored node itself, so a finding on `layer: *x` would
    point at the anchor (and its fix rewrite the anchor). Give each alias a shallow copy of
    that node placed where the alias is written; nothing is expanded. A depth-first walk in
    document order meets the aliases in the order the parser reported them."""
    pending = iter(marks)
    seen = {id(root)}
    stack = [_slots(root)]
    while stack:
        slot = next(stack[-1], None)
        if slot is None:
            stack.pop()
            continue
        node = _get(slot)
        if id(node) not in seen:
            seen.add(id(node))
            stack.append(_slots(node))
            continue
        mark = next(pending, None)
        if mark is None or None in mark:  # never expected: parse and composition disagree
            return
        _set(slot, _placed(node, *mark))


def _slots(node: yaml.Node) -> Iterator[_Slot]:
    if isinstance(node, yaml.MappingNode):
        for i in range(len(node.value)):
            yield node, i, 0
            yield node, i, 1
    elif isinstance(node, yaml.SequenceNode):
        for i in range(len(node.value)):
            yield node, i, -1


def _get(slot: _Slot) -> yaml.Node:
    collection, i, part = slot
    item = collection.value[i]
    return item if part < 0 else item[part]


def _set(slot: _Slot, node: yaml.Node) -> None:
    collection, i, part = slot
    if part < 0:
        collection.value[i] = node
    else:
        key, value = collection.value[i]
        collection.value[i] = (node, value) if part == 0 else (key, node)


def _placed(node: yaml.Node, start: Any, end: Any) -> yaml.Node:
    """``node`` as written at an alias: the same tag, value (children shared) and style."""
    if isinstance(node, yaml.ScalarNode):
        return yaml.ScalarNode(node.tag, node.value, start, end, node.style)
    if isinstance(node, yaml.MappingNode):
        return yaml.MappingNode(node.tag, node.value, start, end, node.flow_style)
    if isinstance(node, yaml.SequenceNode):
        return yaml.SequenceNode(node.tag, node.value, start, end, node.flow_style)
    return node


def _too_deep(root: yaml.Node) -> bool:
    stack: list[tuple[yaml.Node, int]] = [(root, 0)]
    seen: set[int] = set()
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        if id(node) in seen:  # aliases share nodes; never walk one twice
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                stack.append((k, depth + 1))
                stack.append((v, depth + 1))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((c, depth + 1) for c in node.value)
    return False


def _yaml_error(exc: yaml.MarkedYAMLError, doc: TextDocument, fm: Frontmatter) -> YamlError:
    mark = exc.problem_mark or exc.context_mark
    problem = exc.problem or str(exc)
    if mark is None:
        return YamlError(problem, Range.line_start(fm.line_offset))
    at = fm._pos(mark)
    line = min(at.line, doc.line_count - 1)
    col = min(at.character, len(doc.line_text(line)))
    rng = Range(Position(line, col), Position(line, min(col + 1, len(doc.line_text(line)))))
    message = problem
    if exc.context:
        message = f"{problem} ({exc.context})"
    hint = None
    if "mapping values are not allowed" in problem:
        hint = (
            "an unquoted value contains `: `, which YAML reads as a new key; quote the value "
            "or use a block scalar (`description: >-` and the text on the next lines)"
        )
    return YamlError(message, rng, hint)


def _trailing_comments(doc: TextDocument, start: int, end: int) -> dict[int, str]:
    found = {}
    for line in range(start, end):
        text = doc.line_text(line)
        idx = text.find(" #")
        if idx != -1 and "easel-ls" in text[idx:]:
            found[line] = text[idx + 2 :]
    return found
