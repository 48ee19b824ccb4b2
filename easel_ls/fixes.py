"""Applying fixes to text and files. Every write is atomic (temp file + os.replace in the same
folder), so a crash mid-write leaves the original intact."""

from __future__ import annotations

import contextlib
import difflib
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from easel_ls.findings import Fix, Range, TextEdit
from easel_ls.model.text import TextDocument


def atomic_write(path: Path, text: str, *, durable: bool = True) -> None:
    """Replace ``path`` with ``text`` all at once. ``durable=False`` skips the fsync: for data
    that may be lost in a power cut (a cache), never for what the user wrote."""
    atomic_write_bytes(path, text.encode("utf-8"), durable=durable)


def atomic_write_bytes(
    path: Path, data: bytes, *, mode: int | None = None, durable: bool = True
) -> None:
    """Replace ``path`` with ``data`` in one rename. ``mode``: the permission bits the file gets;
    by default the ones it already has."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        with contextlib.suppress(OSError):
            mode = path.stat().st_mode & 0o7777
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def apply_edits(doc: TextDocument, edits: Iterable[TextEdit]) -> str:
    """Apply non-overlapping edits to a document's text (edits are in document positions)."""
    spans = sorted(
        ((doc.offset_at(e.range.start), doc.offset_at(e.range.end), e.new_text) for e in edits),
        key=lambda s: (s[0], s[1]),
    )
    return splice(doc.text, spans)


def splice(text: str, spans: Iterable[tuple[int, int, str]]) -> str:
    """``text`` with each ``(start, end, new)`` offset span replaced, spans in order; overlapping
    spans are an error."""
    out = []
    cursor = 0
    for start, end, new in spans:
        if start < cursor:
            raise ValueError("overlapping edits")
        out.append(text[cursor:start])
        out.append(new)
        cursor = end
    out.append(text[cursor:])
    return "".join(out)


def _overlaps(a: Range, b: Range) -> bool:
    return not (a.end <= b.start or b.end <= a.start) or a.start == b.start


@dataclass
class FixPlan:
    """Fixes chosen for one pass: non-overlapping per file, the rest wait for the next pass."""

    edits: dict[Path, list[TextEdit]] = field(default_factory=dict)
    creates: dict[Path, str] = field(default_factory=dict)
    renames: list[tuple[Path, Path]] = field(default_factory=list)
    applied: int = 0

    def add(self, fix: Fix) -> bool:
        for edit in fix.edits:
            for other in self.edits.get(edit.path, []):
                if _overlaps(edit.range, other.range):
                    return False
        if any(c.path in self.creates for c in fix.creates):
            return False
        for edit in fix.edits:
            self.edits.setdefault(edit.path, []).append(edit)
        for create in fix.creates:
            self.creates[create.path] = create.content
        self.renames.extend((r.old_path, r.new_path) for r in fix.renames)
        self.applied += 1
        return True


@dataclass
class FileChange:
    path: Path
    before: str | None  # None: the file is created
    after: str | None  # None: the file is removed (renamed away)
    rename_to: Path | None = None  # a file or folder moved as a whole (one atomic rename)


def plan_changes(plan: FixPlan, read: Callable[[Path], str | None]) -> list[FileChange]:
    changes: list[FileChange] = []
    for path, edits in plan.edits.items():
        before = read(path)
        if before is None:
            before_text = plan.creates.get(path, "")
            doc = TextDocument(path, before_text)
            changes.append(FileChange(path, None, apply_edits(doc, edits)))
            plan.creates.pop(path, None)
            continue
        doc = TextDocument(path, before)
        changes.append(FileChange(path, before, apply_edits(doc, edits)))
    for path, content in plan.creates.items():
        if read(path) is None:
            changes.append(FileChange(path, None, content))
    for old, new in plan.renames:
        if old.exists() and not new.exists():
            changes.append(FileChange(old, None, None, rename_to=new))
    return changes


MANIFEST_NAME = ".easel.json"


def _text_on_disk(path: Path) -> str | None:
    """The file's text as the workspace decodes it (BOM dropped); None if unreadable."""
    try:
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return text[1:] if text.startswith("\ufeff") else text


@contextlib.contextmanager
def _writer_lock(path: Path) -> Iterator[None]:
    """A manifest is written under manifest.py's own lock, so its writers and a fix serialise."""
    if path.name != MANIFEST_NAME:
        yield
        return
    from easel_ls.vendor import load_shared

    with load_shared(None).manifest.locked(path):
        yield


def write_changes(changes: list[FileChange]) -> list[Path]:
    """Write the changes; returns the files left alone because they changed on disk after
    they were read (writing would lose that change; the caller re-checks them)."""
    conflicts: list[Path] = []
    for change in changes:
        if change.rename_to is not None:
            # os.rename is atomic within a file system: the content is never copied or lost.
            if change.path.exists() and not change.rename_to.exists():
                change.rename_to.parent.mkdir(parents=True, exist_ok=True)
                os.rename(change.path, change.rename_to)
            continue
        if change.after is None:
            with contextlib.suppress(FileNotFoundError):
                change.path.unlink()
        elif change.before is None:
            # Never clobber a file that appeared meanwhile.
            if change.path.exists():
                continue
            atomic_write(change.path, change.after)
        else:
            with _writer_lock(change.path):
                if _text_on_disk(change.path) != change.before:
                    conflicts.append(change.path)
                    continue
                atomic_write(change.path, change.after)
    return conflicts


def unified_diff(change: FileChange, label: str, new_label: str | None = None) -> str:
    if change.rename_to is not None:
        return f"rename from {label}\nrename to {new_label or change.rename_to}\n"
    before = (change.before or "").splitlines(keepends=True)
    after = (change.after or "").splitlines(keepends=True)
    old = "/dev/null" if change.before is None else f"a/{label}"
    new = "/dev/null" if change.after is None else f"b/{label}"
    lines = list(difflib.unified_diff(before, after, old, new))
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )
