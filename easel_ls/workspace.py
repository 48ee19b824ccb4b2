"""The workspace: its root, the skills index, a content-hash cache of parsed artefacts, and the
dependency map (which documents call which script, link to which file).

Rules never read files themselves; they ask the workspace, so caching and re-check targeting stay
true. Open editor buffers are overlays that shadow the disk.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from easel_ls.config import CONFIG_FILES, DEFAULT_OPTIONS, ConfigResolver, Exclusion, Settings
from easel_ls.model.text import TextDocument, blake2b

T = TypeVar("T")
_UNKNOWN = object()  # not remembered yet (None is a possible answer)

SKILL_FILE = "SKILL.md"
# Outside the workspace (a second path elsewhere) no settings apply: the default exclusions do.
_DEFAULT_EXCLUSION = Exclusion(DEFAULT_OPTIONS["exclude"])
_CONFIG_NAMES = frozenset(CONFIG_FILES)


def find_root(start: Path) -> Path:
    """Nearest ancestor with a config file, else one holding a `skills/` folder, else `.git`."""
    start = start.resolve()
    folder = start if start.is_dir() else start.parent
    chain = [folder, *folder.parents]
    for candidate in chain:
        for name in CONFIG_FILES:
            cfg = candidate / name
            if cfg.is_file() and (name != "pyproject.toml" or _has_tool_section(cfg)):
                return candidate
    for candidate in chain:
        if candidate.name == "skills" and (candidate.parent / "skills").is_dir():
            return candidate.parent
        if (candidate / "skills").is_dir():
            return candidate
    for candidate in chain:
        if (candidate / ".git").exists():
            return candidate
    return folder


def resolve_path(path: str) -> str:
    """``str(Path(path).resolve())`` without the Path objects: symlinks resolved (a missing part
    is kept as written); a symlink loop raises RuntimeError, as ``Path.resolve`` does."""
    resolved = os.path.realpath(path)
    try:
        os.stat(resolved)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise RuntimeError(f"Symlink loop from {exc.filename!r}") from None
    return resolved


def is_within(path: str, folder: str) -> bool:
    """``Path(path).relative_to(folder)`` succeeds, for normalised absolute strings."""
    if path == folder:
        return True
    return path.startswith(folder if folder.endswith(os.sep) else folder + os.sep)


def path_escapes(root: str, target: str, resolve: Callable[[str], str] = resolve_path) -> bool:
    """True when ``target`` lies outside ``root``, lexically or through a symlink."""
    lexical = os.path.normpath(target)
    if not os.path.isabs(lexical) or not is_within(lexical, root):
        return True
    try:
        resolved = resolve(lexical)
    except (OSError, RuntimeError):
        return False
    if is_within(resolved, root):
        return False
    lexical_path = Path(lexical)
    return lexical_path.is_symlink() or any(p.is_symlink() for p in lexical_path.parents)


def _has_tool_section(path: Path) -> bool:
    try:
        return "[tool.easel-ls" in path.read_text("utf-8", errors="replace")
    except OSError:
        return False


@dataclass
class FileText:
    """A file's text, or why it could not be read (EZ004)."""

    path: Path
    doc: TextDocument | None
    error: str | None = None


class UnreadableFile(Exception):
    pass


@dataclass
class Skill:
    name: str
    folder: Path

    @property
    def skill_md(self) -> Path:
        return self.folder / SKILL_FILE


@dataclass
class _CacheEntry:
    key: tuple[Any, ...]
    value: Any


@dataclass
class _DiskMemo:
    """What a batch run remembers about the disk, taken as unchanging while it runs: resolving
    every link target and read path part by part, and listing a skill's references once per
    reference, were the largest costs of a cold run."""

    # path -> True when none of its parts is a symbolic link (so it is its own resolution)
    plain: dict[str, bool] = field(default_factory=dict)
    # (folder, pattern, recursive) -> (the folders to record as dependencies, the entries)
    listings: dict[tuple[Path, str, bool], tuple[list[Path], list[Path]]] = field(
        default_factory=dict
    )
    # Workspace-wide answers rules ask for on every file (see ``Workspace.remembered``)
    answers: dict[Hashable, Any] = field(default_factory=dict)
    # path -> (mtime_ns, size) of a readable file: a script is read for every command calling it
    stamps: dict[Path, tuple[int, int]] = field(default_factory=dict)
    # path -> whether it exists (scripts and link targets are probed once per mention)
    exists: dict[Path, bool] = field(default_factory=dict)
    # folder -> the names of the files (not folders) it holds, as the walk listed them
    files_in: dict[str, frozenset[str]] = field(default_factory=dict)


@dataclass
class Workspace:
    root: Path
    config: ConfigResolver = field(default_factory=ConfigResolver)
    overlays: dict[Path, TextDocument] = field(default_factory=dict)
    _texts: dict[Path, tuple[tuple[int, int], FileText]] = field(default_factory=dict)
    _artefacts: dict[Path, dict[str, _CacheEntry]] = field(default_factory=dict)
    _skills: dict[str, Skill] | None = None
    _skill_folders: dict[str, Skill] | None = None  # str(folder) -> skill
    # skills/<group>/ folders that are not skill roots (their SKILL.md files are no Easel skills)
    _foreign_groups: frozenset[str] | None = None
    # Dependency map: a target file -> the documents whose analysis read it.
    dependents: dict[Path, set[Path]] = field(default_factory=dict)
    # Paths read, probed or listed while one document is checked (its dependencies).
    _recording: set[Path] | None = None
    # RT rules (rules.routing): the last routing state built, the generation it is current
    # with, and the files whose findings depend on every skill's metadata.
    routing_memo: Any = None
    routing_generation: int = -1
    routing_dependents: set[Path] = field(default_factory=set)
    # Facts about the disk remembered during a batch run (see ``memoise_disk``); None in the
    # editor, where the disk changes under us.
    _disk_memo: _DiskMemo | None = None
    _folders_below_root: dict[tuple[Path, str], Path] = field(default_factory=dict)
    _held_skill_text: Path | None = None  # see ``release``
    # What may have changed, by a counter: long-lived indexes (the graph) ask what changed
    # since they last looked instead of re-reading every file.
    generation: int = 0
    _changed_at: dict[Path, int] = field(default_factory=dict)

    @classmethod
    def at(cls, root: Path, config_path: Path | None = None) -> Workspace:
        root = root.resolve()
        return cls(root=root, config=ConfigResolver(config_path))

    # -- settings -------------------------------------------------------------------------
    def settings_for(self, path: Path) -> Settings:
        memo = self._disk_memo
        return self.config.for_path(path, memo.files_in if memo is not None else None)

    def rel(self, path: Path) -> str:
        root = str(self.root)
        try:
            resolved = self.resolve(str(path))
        except (OSError, RuntimeError):  # a symlink loop cannot resolve: keep the lexical path
            resolved = str(path)
        if resolved == root:
            return "."
        if is_within(resolved, root):
            return resolved[len(root) :].lstrip(os.sep)
        return path.as_posix()

    def contains(self, path: Path) -> bool:
        try:
            return is_within(self.resolve(str(path)), str(self.root))
        except (OSError, RuntimeError):
            return False

    def escapes(self, target: Path) -> bool:
        """True when ``target`` lies outside the root, lexically or through a symlink."""
        return path_escapes(str(self.root), str(target), self.resolve)

    # -- symlink resolution ----------------------------------------------------------------
    def memoise_disk(self, enabled: bool) -> None:
        """Within a batch run the disk is taken as unchanging: remember which paths hold no
        symbolic link and what folders list (a fresh memo each time it is enabled)."""
        self._disk_memo = _DiskMemo() if enabled else None

    @property
    def memoising_disk(self) -> bool:
        return self._disk_memo is not None

    def remembered(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()``, remembered for the rest of a batch run (``key`` names the question);
        outside one, computed afresh every time."""
        memo = self._disk_memo
        if memo is None:
            return compute()
        value = memo.answers.get(key, _UNKNOWN)
        if value is _UNKNOWN:
            value = memo.answers[key] = compute()
        return value

    def resolve(self, path: str) -> str:
        """``resolve_path(path)``; a path whose parts are all plain (memoised) is its own
        resolution, so it costs one ``lstat`` per new path instead of one per part."""
        return path if self._known_plain(path) else resolve_path(path)

    def _known_plain(self, path: str) -> bool:
        """The batch memo says no part of ``path`` is a symbolic link (False: not known)."""
        memo = self._disk_memo
        if memo is None or not os.path.isabs(path) or os.path.normpath(path) != path:
            return False
        return self._plain(path, memo.plain)

    def _plain(self, path: str, memo: dict[str, bool]) -> bool:
        known = memo.get(path)
        if known is None:
            parent = os.path.dirname(path)
            known = (parent == path or self._plain(parent, memo)) and not os.path.islink(path)
            memo[path] = known
        return known

    # -- files ----------------------------------------------------------------------------
    def begin_recording(self) -> None:
        self._recording = set()

    def end_recording(self) -> set[Path]:
        recorded, self._recording = self._recording or set(), None
        return recorded

    def _record(self, path: Path) -> None:
        if self._recording is not None:
            self._recording.add(path)

    def read(self, path: Path, max_size: int | None = None) -> FileText:
        """Text of a file (overlay first), cached by mtime and size."""
        self._record(path)
        overlay = self.overlays.get(path)
        if overlay is not None:
            return FileText(path, overlay)
        memo = self._disk_memo
        stamp = memo.stamps.get(path) if memo is not None else None
        if stamp is None:
            try:
                if not self._known_plain(str(path)):  # a path with no symlink on the way: neither
                    if path.is_symlink() and not path.exists():
                        return FileText(
                            path, None, "a broken symbolic link or a symbolic link loop"
                        )
                    if self._links_outside(path):
                        return FileText(
                            path, None, "is a symbolic link to outside the workspace, never read"
                        )
                st = os.stat(path)
            except OSError as exc:
                return FileText(path, None, f"cannot be read: {exc.strerror or exc}")
            except RuntimeError:  # symlink loop on some Pythons
                return FileText(path, None, "a symbolic link loop")
            stamp = (st.st_mtime_ns, st.st_size)
            if memo is not None:
                memo.stamps[path] = stamp
        cached = self._texts.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        limit = (
            max_size if max_size is not None else self.settings_for(path).option("max-file-size")
        )
        size = stamp[1]
        if size > int(limit):
            result = FileText(path, None, f"is {size} bytes, over the {int(limit)}-byte limit")
        else:
            result = _decode(path, size)
        self._texts[path] = (stamp, result)
        return result

    def known_stamp(self, path: Path) -> tuple[int, int] | None:
        """(mtime_ns, size) of a file this batch run has read (None otherwise)."""
        memo = self._disk_memo
        return memo.stamps.get(path) if memo is not None else None

    def _links_outside(self, path: Path) -> bool:
        """Inside the root by name but outside once symlinks resolve: such files are not read."""
        return is_within(str(path), str(self.root)) and not self.contains(path)

    def text_of(self, path: Path) -> str | None:
        doc = self.read(path).doc
        return doc.text if doc is not None else None

    def exists(self, path: Path) -> bool:
        self._record(path)
        if path in self.overlays:
            return True
        memo = self._disk_memo
        if memo is None:
            return path.exists()
        known = memo.exists.get(path)
        if known is None:
            text = str(path)
            listed = memo.files_in.get(os.path.dirname(text))
            # The walk saw a file here with no symbolic link on the way: no need to stat it.
            seen = listed is not None and path.name in listed and memo.plain.get(text) is True
            known = memo.exists[path] = seen or path.exists()
        return known

    def list_dir(self, folder: Path, pattern: str = "*", *, recursive: bool = False) -> list[Path]:
        """Sorted entries of a folder matching ``pattern`` ([] when it is not a folder)."""
        self._record(folder)
        memo = self._disk_memo
        key = (folder, pattern, recursive)
        listed = memo.listings.get(key) if memo is not None else None
        if listed is None:
            listed = _list_dir(folder, pattern, recursive)
            if memo is not None:
                memo.listings[key] = listed
        subfolders, entries = listed
        for sub in subfolders:
            self._record(sub)
        return list(entries)

    def set_overlay(self, doc: TextDocument) -> None:
        known = self.overlays.get(doc.path)
        if known is None or known.text != doc.text:
            self.note_changed(doc.path)
        self.overlays[doc.path] = doc

    def drop_overlay(self, path: Path) -> None:
        if self.overlays.pop(path, None) is not None:
            self.note_changed(path)  # the disk's text may differ from the closed buffer's

    def note_changed(self, path: Path) -> None:
        self.generation += 1
        self._changed_at[path] = self.generation

    def changed_since(self, generation: int) -> list[Path]:
        """Paths changed (or forgotten) after ``generation``."""
        if generation >= self.generation:
            return []
        return [p for p, g in self._changed_at.items() if g > generation]

    def forget(self, path: Path) -> None:
        self.note_changed(path)
        self._texts.pop(path, None)
        self._artefacts.pop(path, None)
        if path.name == SKILL_FILE or path.is_dir():
            self._skills = None
            self._skill_folders = None
            self._foreign_groups = None

    def release(self, path: Path, keep: frozenset[str] = frozenset({"argparse"})) -> None:
        """Drop what a batch run no longer needs for ``path`` (bounded memory on huge trees);
        script models stay, since many documents call the same script."""
        if keep & self._artefacts.get(path, {}).keys():
            return
        self._artefacts.pop(path, None)
        if path.name == SKILL_FILE:
            # The skill's references and scripts, checked next, read it again: its text stays
            # until the next skill's SKILL.md is released (one at a time, so memory is bounded).
            held = self._held_skill_text
            if held is not None and held != path:
                self._texts.pop(held, None)
            self._held_skill_text = path
            return
        self._texts.pop(path, None)

    # -- parsed artefacts -----------------------------------------------------------------
    def artefact(self, kind: str, doc: TextDocument, build: Callable[[], T]) -> T:
        """Cache a parse of ``doc`` keyed by its path and content hash."""
        key = (doc.content_hash,)
        per_path = self._artefacts.setdefault(doc.path, {})
        entry = per_path.get(kind)
        if entry is not None and entry.key == key:
            return entry.value  # type: ignore[no-any-return,unused-ignore]
        value = build()
        per_path[kind] = _CacheEntry(key, value)
        return value

    def artefacts_of(self, path: Path) -> dict[str, Any]:
        """The cached artefacts of ``path`` by kind (to hand to another process)."""
        return {kind: entry.value for kind, entry in self._artefacts.get(path, {}).items()}

    def adopt_artefacts(self, path: Path, content_hash: str, artefacts: dict[str, Any]) -> None:
        """Artefacts another process built for ``path`` when its text had ``content_hash``: used
        only while the text read here still has that hash."""
        per_path = self._artefacts.setdefault(path, {})
        for kind, value in artefacts.items():
            per_path.setdefault(kind, _CacheEntry((content_hash,), value))

    def note_dependency(self, target: Path, dependent: Path) -> None:
        self._record(target)
        self.dependents.setdefault(target, set()).add(dependent)

    def note_routing_dependent(self, path: Path) -> None:
        """``path``'s findings depend on every skill's metadata (see ``routing_digest``)."""
        self.routing_dependents.add(path)

    def routing_digest(self) -> str:
        """A digest of every skill's frontmatter text: what a routing finding depends on. One
        cached entry carries it instead of a dependency per SKILL.md."""

        def compute() -> str:
            parts = []
            for name in sorted(self.skills):
                path = self.skills[name].skill_md
                doc = self.read(path).doc
                text = doc.text if doc is not None else ""
                end = text.find("\n---", 3) if text.startswith("---") else -1
                parts.append(f"{name}\0{text[: end if end >= 0 else 0]}")
            return blake2b("\0\0".join(parts).encode(), digest_size=12).hexdigest()

        return self.remembered("routing-digest", compute)

    # -- skills ---------------------------------------------------------------------------
    def skill_roots(self) -> list[Path]:
        configured = self.settings_for(self.root).option("skill-roots")
        if configured:
            return [(self.root / p).resolve() for p in configured]
        skills_dir = self.root / "skills"
        roots = []
        if skills_dir.is_dir():
            for group in sorted(skills_dir.iterdir()):
                if not group.is_dir():
                    continue
                skill_files = [c / SKILL_FILE for c in _subdirs(group)]
                skill_files = [f for f in skill_files if f.is_file()]
                # The spec's skills live in skills/openclaw/; another group (skills/ripple/)
                # holds Easel skills when one of them says which layer it is in. A folder of
                # skills kept in their upstream form (skills/extensions/) is no Easel group.
                if skill_files and (
                    group.name == "openclaw" or any(_declares_layer(f) for f in skill_files)
                ):
                    roots.append(group)
        return roots

    def _foreign_skill_groups(self) -> frozenset[str]:
        """skills/<group>/ folders that are not skill roots (built with the skills index)."""
        if self._foreign_groups is None:
            _ = self.skills
        return self._foreign_groups or frozenset()

    @property
    def skills(self) -> dict[str, Skill]:
        if self._skills is None:
            found: dict[str, Skill] = {}
            roots = self.skill_roots()
            for group in roots:
                for child in _subdirs(group):
                    if (child / SKILL_FILE).is_file():
                        found.setdefault(child.name, Skill(child.name, child))
            self._skills = found
            self._skill_folders = {str(skill.folder): skill for skill in found.values()}
            skills_dir = self.root / "skills"
            kept = {str(root) for root in roots}
            self._foreign_groups = frozenset(
                str(group) for group in _subdirs(skills_dir) if str(group) not in kept
            )
        return self._skills

    def indexed_skill_holding(self, path: Path) -> Skill | None:
        """The indexed skill whose folder holds ``path`` (a dict lookup per ancestor)."""
        if self._skill_folders is None:
            _ = self.skills
        folders = self._skill_folders or {}
        root = str(self.root)
        folder = str(path)
        while True:  # the parents, as strings: Path objects per ancestor cost more than lookups
            parent = os.path.dirname(folder)
            if not parent or parent == folder:
                return None
            folder = parent
            skill = folders.get(folder)
            if skill is not None:
                return skill
            if folder == root:
                return None

    def skill_of(self, path: Path) -> Skill | None:
        """The skill folder that holds ``path`` (nearest ancestor with a SKILL.md)."""
        path = path if path.is_absolute() else (self.root / path)
        indexed = self.indexed_skill_holding(path)
        if indexed is not None:
            return indexed
        for folder in [path.parent, *path.parent.parents]:
            if (folder / SKILL_FILE).is_file() or (folder / SKILL_FILE) in self.overlays:
                indexed_skill = self.skills.get(folder.name)
                # A nested workspace (a test fixture) may hold a skill of the same name.
                if indexed_skill is not None and indexed_skill.folder == folder:
                    return indexed_skill
                if str(folder.parent) in self._foreign_skill_groups():
                    return None  # skills/extensions/x/: kept in its upstream form, not Easel
                return Skill(folder.name, folder)
            if folder == self.root or folder == folder.parent:
                break
        return None

    def shared_scripts_dir(self) -> Path:
        return self._below_root(self.settings_for(self.root).option("shared-scripts"))

    def outputs_dir(self) -> Path:
        return self._below_root(self.settings_for(self.root).option("outputs-dir"))

    def _below_root(self, name: str) -> Path:
        # Asked for every file (classify): build each such Path once.
        key = (self.root, name)
        folder = self._folders_below_root.get(key)
        if folder is None:
            folder = self._folders_below_root[key] = self.root / name
        return folder

    # -- discovery ------------------------------------------------------------------------
    def iter_files(self, paths: list[Path], *, force_exclude: bool = False) -> Iterator[Path]:
        """The files under ``paths`` (files named there are yielded as they are), leaving out
        what the ``exclude`` settings name below them; ``force_exclude``: the named paths too
        (a hook passing staged files, an editor asking about one document)."""
        seen: set[str] = set()  # as strings: hashing a Path costs more than a lookup
        for start in paths:
            start = start if start.is_absolute() else (Path.cwd() / start)
            if start.is_file() or (start.is_symlink() and not start.is_dir()):
                if str(start) not in seen and not (force_exclude and self.is_excluded(start)):
                    seen.add(str(start))
                    yield start
                continue
            if force_exclude and self.is_excluded(start, is_dir=True):
                continue
            for folder, names in self._walk(str(start)):
                here = Path(folder)
                for name in names:
                    text = os.path.join(folder, name)
                    if text not in seen:
                        seen.add(text)
                        yield here / name

    def is_excluded(self, path: Path, *, is_dir: bool | None = None) -> bool:
        """Whether ``path`` or a folder above it (below the root) is left out by the
        ``exclude`` settings of its folder."""
        rel = self._rel_below_root(str(path))
        if not rel:
            return False
        if is_dir is None:
            is_dir = path.is_dir()
        folder = self.root / rel if is_dir else (self.root / rel).parent
        return self.settings_for_folder(folder).exclusion().excludes_path(rel, is_dir)

    def _rel_below_root(self, path: str) -> str | None:
        """``path`` relative to the root with ``/`` (symbolic links resolved), "" for the root
        itself, None outside it."""
        root = str(self.root)
        try:
            resolved = path if path == root or is_within(path, root) else self.resolve(path)
        except (OSError, RuntimeError):
            return None
        if resolved == root:
            return ""
        if not is_within(resolved, root):
            return None
        return resolved[len(root) + 1 :].replace(os.sep, "/")

    def settings_for_folder(self, folder: Path) -> Settings:
        memo = self._disk_memo
        return self.config.for_folder(folder, memo.files_in if memo is not None else None)

    def _exclusion_of(self, rel: str | None) -> Exclusion:
        """The exclusion for the entries of the folder at ``rel`` (see ``_rel_below_root``)."""
        if rel is None:
            return _DEFAULT_EXCLUSION
        return self.settings_for_folder(self.root / rel if rel else self.root).exclusion()

    def _walk(self, top: str) -> Iterator[tuple[str, list[str]]]:
        """(folder, sorted file names) top-down like ``os.walk(top, followlinks=False)`` with
        sorted folders, leaving out what the ``exclude`` settings name below ``top``. In a
        batch run the listing is also remembered: which paths hold no symbolic link (so reading
        them needs no ``lstat`` per part) and which files each folder holds (so config lookups
        need no ``stat``)."""
        memo = self._disk_memo
        top_plain = memo is not None and self._known_plain(top)
        top_rel = self._rel_below_root(top)
        exclusion = self._exclusion_of(top_rel)
        if top_rel and not exclusion.by_name_only and exclusion.excludes_path(top_rel, True):
            # A folder named although excluded is walked: only plain names are left out in it
            # (a pattern naming the folder would otherwise name everything inside).
            exclusion = exclusion.names_only()
        # Each folder: its path, whether it holds no symbolic link, its path relative to the
        # root ("" the root, None outside it) and its exclusion (its parent's unless it holds
        # a config file of its own).
        todo = [(top, top_plain, top_rel, exclusion)]
        while todo:
            folder, plain, rel, exclusion = todo.pop()
            try:
                with os.scandir(folder) as listing:
                    entries = list(listing)
            except OSError:  # unreadable or gone: skipped, as os.walk does
                continue
            files: list[str] = []
            folders: list[tuple[str, bool]] = []
            for entry in entries:
                try:
                    is_dir = entry.is_dir()
                except OSError:  # as os.path.isdir: not a folder
                    is_dir = False
                try:
                    is_link = entry.is_symlink()
                except OSError:
                    is_link = False
                if is_dir:
                    # A symbolic link to a folder is listed but never entered.
                    if not is_link:
                        folders.append((entry.name, plain))
                else:
                    files.append(entry.name)
                    if plain and memo is not None:
                        memo.plain[entry.path] = not is_link
            files.sort()
            if memo is not None:
                # Every file, excluded or not: config discovery reads this listing.
                memo.files_in[folder] = frozenset(files)
            if folder != top and not _CONFIG_NAMES.isdisjoint(files):
                exclusion = self._exclusion_of(rel)
            if exclusion.by_name_only:
                names, folder_names = exclusion.names, exclusion.folder_names
                files = [name for name in files if name not in names]
                folders = [entry for entry in folders if entry[0] not in folder_names]
            elif rel is not None:
                prefix = f"{rel}/" if rel else ""
                files = [name for name in files if not exclusion.excludes(prefix + name, False)]
                folders = [e for e in folders if not exclusion.excludes(prefix + e[0], True)]
            yield folder, files
            for name, parent_plain in sorted(folders, reverse=True):
                sub = os.path.join(folder, name)
                if parent_plain and memo is not None:
                    memo.plain[sub] = True
                sub_rel = None if rel is None else (f"{rel}/{name}" if rel else name)
                todo.append((sub, parent_plain, sub_rel, exclusion))


_LAYER_KEY = re.compile(r"layer[ \t]*:")
_FRONTMATTER_HEAD = 16 * 1024  # the frontmatter of a SKILL.md fits in this many bytes


def _declares_layer(skill_md: Path) -> bool:
    """Whether the SKILL.md's frontmatter has a top-level `layer` key (the Easel key)."""
    try:
        with open(skill_md, "rb") as handle:
            head = handle.read(_FRONTMATTER_HEAD).decode("utf-8", "ignore")
    except OSError:
        return False
    lines = head.removeprefix("\ufeff").splitlines()
    if not lines or lines[0].rstrip() != "---":
        return False
    for line in lines[1:]:
        if line.rstrip() in ("---", "..."):
            return False
        if _LAYER_KEY.match(line):
            return True
    return False


def _list_dir(folder: Path, pattern: str, recursive: bool) -> tuple[list[Path], list[Path]]:
    """(the subfolders a recursive listing depends on, the sorted entries)."""
    try:
        if not folder.is_dir():
            return [], []
        if recursive:
            # A new file deep inside changes only its own folder's mtime: record them all.
            subfolders = [sub for sub in folder.rglob("*") if sub.is_dir()]
            return subfolders, sorted(folder.rglob(pattern))
        return [], sorted(folder.glob(pattern))
    except OSError:
        return [], []


def _subdirs(folder: Path) -> list[Path]:
    try:
        # scandir: the entry knows whether it is a folder without another stat per child.
        with os.scandir(folder) as entries:
            names = sorted(e.name for e in entries if not e.name.startswith(".") and _is_dir(e))
    except OSError:
        return []
    return [folder / name for name in names]


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:  # a symlink loop, like Path.is_dir
        return False


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def _read_bytes(path: Path, size: int) -> bytes:
    """``path.read_bytes()`` in fewer system calls (no buffer object, no size queries): a cold
    check reads thousands of small files. ``size`` (from stat) sizes the first read."""
    fd = os.open(path, _READ_FLAGS)
    try:
        chunks: list[bytes] = []
        want = max(size + 1, 1 << 16)
        while True:  # to the end of the file, whatever its size is by now
            chunk = os.read(fd, want)
            if not chunk:
                return b"".join(chunks)
            if not chunks and len(chunk) == size < want:
                # The whole file in one short read of its stat size: that is the end of a
                # regular file, so no second read to learn it (one system call per file).
                return chunk
            chunks.append(chunk)
            want = 1 << 16
    finally:
        os.close(fd)


def _decode(path: Path, size: int) -> FileText:
    try:
        raw = _read_bytes(path, size)
    except OSError as exc:
        return FileText(path, None, f"cannot be read: {exc.strerror or exc}")
    if b"\x00" in raw[:8192]:
        return FileText(path, None, "looks binary (it contains NUL bytes)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return FileText(path, None, f"is not valid UTF-8 (byte offset {exc.start})")
    if text.startswith("\ufeff"):
        text = text[1:]
    return FileText(path, TextDocument(path, text))
