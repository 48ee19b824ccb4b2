"""What a rule sees, and how a rule is registered: ``Context``, ``FileKind``, ``classify``,
``script_model`` and the ``checker`` registry.

Rule modules import this module; the engine (which runs them) imports the rule modules. This
module never imports the engine, the batch runner or an adapter: imports flow one way, from the
adapters (cli, server) to ``batch``, ``engine``, the rules and the model.
"""

from __future__ import annotations

import contextlib
import enum
import gc
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from easel_ls.config import Settings
from easel_ls.findings import Finding, Fix, Location, Range, Severity
from easel_ls.model.text import TextDocument
from easel_ls.rules import RULES
from easel_ls.workspace import SKILL_FILE, Skill, Workspace, is_within

if TYPE_CHECKING:
    from easel_ls.model.argparse_model import ScriptModel
    from easel_ls.model.commands import Invocation
    from easel_ls.model.frontmatter import Frontmatter
    from easel_ls.model.markdown import MarkdownModel
    from easel_ls.model.placeholders import PlaceholderNouns


class FileKind(str, enum.Enum):
    SKILL = "skill"  # SKILL.md
    REFERENCE = "reference"  # <skill>/references/**/*.md
    SCRIPT = "script"  # <skill>/scripts/* and shared scripts (.py, .sh)
    TEST = "test"  # <skill>/tests/*.prompt|*.expected
    MANIFEST = "manifest"  # outputs/<topic>/.easel.json
    OUTPUT = "output"  # other files under outputs/
    OTHER = "other"


def classify(workspace: Workspace, path: Path) -> tuple[FileKind, Skill | None]:
    # Asked several times per file (the walk, the check, rules); within a batch run the answer
    # cannot change, and forked workers inherit the walk's answers.
    return workspace.remembered(("kind", path), lambda: _classify(workspace, path))


def _classify(workspace: Workspace, path: Path) -> tuple[FileKind, Skill | None]:
    if path.name == ".easel.json":
        return FileKind.MANIFEST, None
    outputs = workspace.outputs_dir()
    if _is_under(path, outputs):
        return FileKind.OUTPUT, None
    skill = workspace.skill_of(path)
    if skill is not None:
        rel = _parts_below(path, skill.folder)
        if rel == (SKILL_FILE,):
            return FileKind.SKILL, skill
        if rel[0] == "references" and path.suffix.lower() == ".md":
            return FileKind.REFERENCE, skill
        if rel[0] == "scripts" and path.suffix in (".py", ".sh"):
            return FileKind.SCRIPT, skill
        if rel[0] == "tests" and path.suffix in (".prompt", ".expected") and len(rel) == 2:
            return FileKind.TEST, skill
        return FileKind.OTHER, skill
    if path.suffix in (".py", ".sh") and _is_under(path, workspace.shared_scripts_dir()):
        return FileKind.SCRIPT, None
    return FileKind.OTHER, None


def _is_under(path: Path, folder: Path) -> bool:
    return is_within(str(path), str(folder))  # Path.relative_to, without building paths


def _parts_below(path: Path, folder: Path) -> tuple[str, ...]:
    """``path.relative_to(folder).parts``; string slicing in the common case."""
    text, base = str(path), str(folder)
    if text != base and is_within(text, base):
        return tuple(text[len(base) :].lstrip(os.sep).split(os.sep))
    return path.relative_to(folder).parts


@dataclass
class Context:
    """What a rule sees: one document, its kind, its skill, the workspace and settings."""

    workspace: Workspace
    doc: TextDocument
    kind: FileKind
    skill: Skill | None
    settings: Settings
    findings: list[Finding] = field(default_factory=list)
    # What one rule worked out about this document that another needs too (by rule's key).
    shared: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def path(self) -> Path:
        return self.doc.path

    @property
    def root(self) -> Path:
        return self.workspace.root

    def option(self, key: str) -> Any:
        return self.settings.option(key)

    def report(
        self,
        code: str,
        rng: Range,
        message: str,
        *,
        fixes: Iterable[Fix] = (),
        related: Iterable[Location] = (),
        help: str | None = None,
        severity: Severity | None = None,
    ) -> None:
        self.findings.append(
            self.finding(
                code, rng, message, fixes=fixes, related=related, help=help, severity=severity
            )
        )

    def finding(
        self,
        code: str,
        rng: Range,
        message: str,
        *,
        fixes: Iterable[Fix] = (),
        related: Iterable[Location] = (),
        help: str | None = None,
        severity: Severity | None = None,
    ) -> Finding:
        """``severity`` overrides the rule's default for this finding (e.g. by file kind)."""
        rule = RULES[code]
        return Finding(
            code=code,
            name=rule.name,
            severity=rule.severity if severity is None else severity,
            message=message,
            path=self.path,
            range=rng,
            fixes=list(fixes),
            related=list(related),
            help=help,
        )

    # Parsed artefacts come from the workspace cache (keyed by path + content hash).
    @cached_property
    def frontmatter(self) -> Frontmatter:
        from easel_ls.model.frontmatter import Frontmatter, parse_frontmatter

        if self.kind is not FileKind.SKILL:
            return Frontmatter(present=False, closed=False, end_line=0, body_start_line=0)
        return self.workspace.artefact("frontmatter", self.doc, lambda: parse_frontmatter(self.doc))

    @cached_property
    def markdown(self) -> MarkdownModel:
        from easel_ls.model.markdown import parse_markdown

        start = self.frontmatter.body_start_line if self.frontmatter.closed else 0
        return self.workspace.artefact(
            "markdown", self.doc, lambda: parse_markdown(self.doc, start)
        )

    @cached_property
    def placeholder_nouns(self) -> PlaceholderNouns:
        from easel_ls.model.placeholders import nouns_for

        return nouns_for(tuple(self.option("placeholder-words")))

    @cached_property
    def invocations(self) -> list[Invocation]:
        from easel_ls.model.commands import extract_invocations
        from easel_ls.model.placeholders import DEFAULT_NOUNS

        nouns = self.placeholder_nouns
        # Configured nouns change which words are values: they are part of the cache key.
        kind = "invocations" if nouns is DEFAULT_NOUNS else "invocations:" + "|".join(nouns.words)
        return self.workspace.artefact(
            kind, self.doc, lambda: extract_invocations(self.doc, self.markdown, nouns)
        )

    def script_model(self, path: Path) -> ScriptModel | None:
        return script_model(self.workspace, path)


def script_model(workspace: Workspace, path: Path) -> ScriptModel | None:
    """The static argparse model of a script, cached by path + content hash; None if unreadable."""
    text = workspace.read(path)
    if text.doc is None:
        return None
    doc = text.doc
    return workspace.artefact("argparse", doc, lambda: _analyse_script(workspace, doc, str(path)))


def _analyse_script(workspace: Workspace, doc: TextDocument, path: str) -> ScriptModel:
    """The argparse model, and the PB rules' script facts from the same parse: parsing is most
    of the cost of either, and a script called from many documents is analysed once."""
    # The syntax tree (tens of thousands of nodes, no cycles) is freed before collection
    # resumes: collecting meanwhile would only walk it again and again, making this a third
    # slower, and collecting as it resumes would walk it once more.
    with _collector_paused():
        return _analyse_parsed(workspace, doc, path)


def _analyse_parsed(workspace: Workspace, doc: TextDocument, path: str) -> ScriptModel:
    from easel_ls.model.argparse_model import analyse_script
    from easel_ls.model.script_facts import parse_python, script_facts

    tree = parse_python(doc.text, path)
    if tree is not None:
        workspace.artefact("script-facts", doc, lambda: script_facts(tree))
    return analyse_script(doc.text, path, tree)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


Checker = Callable[[Context], None]


@dataclass(frozen=True)
class RegisteredChecker:
    name: str
    kinds: frozenset[FileKind]
    codes: tuple[str, ...]
    func: Checker


_CHECKERS: list[RegisteredChecker] = []


def checker(*kinds: FileKind, codes: Sequence[str]) -> Callable[[Checker], Checker]:
    """Register a rule function for some file kinds; ``codes`` are the codes it may report."""

    def register(func: Checker) -> Checker:
        _CHECKERS.append(
            RegisteredChecker(
                f"{func.__module__.rsplit('.', 1)[-1]}.{func.__name__}",
                frozenset(kinds),
                tuple(codes),
                func,
            )
        )
        return func

    return register


def registered_checkers() -> list[RegisteredChecker]:
    """Every checker registered so far (the engine imports every rule module first)."""
    return _CHECKERS
