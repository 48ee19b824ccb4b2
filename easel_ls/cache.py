"""The on-disk cache of `--check`: a file's findings are reused while the file, everything its
analysis read (recorded by the workspace), its settings and the skills index are unchanged.

Stored as JSON (never pickle: the cache folder sits in the user's workspace, and loading it must
never execute anything). A corrupt or foreign cache is ignored and rewritten.
"""

from __future__ import annotations

import contextlib
import json
import os
from functools import partial
from pathlib import Path
from typing import Any

from easel_ls import __version__
from easel_ls.findings import (
    Applicability,
    CreateFile,
    Finding,
    Fix,
    Location,
    Position,
    Range,
    RenameFile,
    Severity,
    TextEdit,
)
from easel_ls.model.text import blake2b
from easel_ls.workspace import Workspace

CACHE_DIR = ".easel-ls-cache"
_FORMAT = 1
Stamp = list[int] | None  # [mtime_ns, size] or None when the path does not exist


def stamp_of(path: Path | str) -> Stamp:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size]


def _range(r: Range) -> list[int]:
    return [r.start.line, r.start.character, r.end.line, r.end.character]


def _unrange(v: list[int]) -> Range:
    return Range(Position(v[0], v[1]), Position(v[2], v[3]))


def finding_to_json(f: Finding) -> dict[str, Any]:
    return {
        "code": f.code,
        "name": f.name,
        "severity": int(f.severity),
        "message": f.message,
        "path": str(f.path),
        "range": _range(f.range),
        "help": f.help,
        "related": [[str(loc.path), _range(loc.range), loc.message] for loc in f.related],
        "fixes": [
            {
                "title": fix.title,
                "applicability": fix.applicability.value,
                "edits": [[str(e.path), _range(e.range), e.new_text] for e in fix.edits],
                "creates": [[str(c.path), c.content] for c in fix.creates],
                "renames": [[str(r.old_path), str(r.new_path)] for r in fix.renames],
            }
            for fix in f.fixes
        ],
    }


def finding_from_json(d: dict[str, Any]) -> Finding:
    return Finding(
        code=d["code"],
        name=d["name"],
        severity=Severity(d["severity"]),
        message=d["message"],
        path=Path(d["path"]),
        range=_unrange(d["range"]),
        help=d["help"],
        related=[Location(Path(p), _unrange(r), m) for p, r, m in d["related"]],
        fixes=[
            Fix(
                title=fx["title"],
                applicability=Applicability(fx["applicability"]),
                edits=tuple(TextEdit(Path(p), _unrange(r), t) for p, r, t in fx["edits"]),
                creates=tuple(CreateFile(Path(p), c) for p, c in fx["creates"]),
                renames=tuple(RenameFile(Path(a), Path(b)) for a, b in fx["renames"]),
            )
            for fx in d["fixes"]
        ],
    )


_FINGERPRINTED = (".py", ".json", ".md")


def _code_fingerprint() -> list[list[object]]:
    """Stamps of easel-ls's own modules and data: a changed rule (even unreleased) or rule
    doc invalidates every cached result."""
    package = Path(__file__).parent
    if os.sep != "/":
        return [
            [str(p.relative_to(package)), *(stamp_of(p) or [])]
            for p in sorted(package.rglob("*"))
            if p.suffix in _FINGERPRINTED
        ]
    # The same list without a Path per file (every run, warm ones too, starts with it):
    # rglob's entries (folders too, symbolic links to folders not entered), in Path order.
    base = str(package)
    names: list[tuple[str, ...]] = []
    for folder, subfolders, files in os.walk(base):
        below = folder[len(base) + 1 :]
        for name in (*subfolders, *files):
            if _suffix(name) in _FINGERPRINTED:
                names.append((*below.split("/"), name) if below else (name,))
    names.sort()
    return [["/".join(parts), *(stamp_of(os.path.join(base, *parts)) or [])] for parts in names]


def _suffix(name: str) -> str:
    """``PurePath(name).suffix``."""
    at = name.rfind(".")
    return name[at:] if 0 < at < len(name) - 1 else ""


class EntryBuilder:
    """Builds cache entries (what `lookup` later compares) for a workspace. Workers build the
    entries of the files they check, so the parent only files them away."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self._settings_keys: dict[int, tuple[object, str]] = {}

    def settings_key(self, path: Path) -> str:
        settings = self.workspace.settings_for(path)
        known = self._settings_keys.get(id(settings))
        if known is None or known[0] is not settings:
            text = json.dumps(settings.describe(), sort_keys=True, default=str)
            known = (settings, blake2b(text.encode(), digest_size=12).hexdigest())
            self._settings_keys[id(settings)] = known
        return known[1]

    def entry(self, path: Path, deps: set[Path], findings: list[Finding]) -> dict[str, Any]:
        entry = {
            "stamp": self._stamp(path),
            "settings": self.settings_key(path),
            "deps": {str(d): self._stamp(d) for d in sorted(deps) if d != path},
            "findings": [finding_to_json(f) for f in findings],
        }
        if path in self.workspace.routing_dependents:
            entry["routing"] = self.workspace.routing_digest()
        return entry

    @staticmethod
    def encode_entry(entry: dict[str, Any]) -> str:
        """An entry as ``CheckCache.save`` writes it."""
        return json.dumps(entry, ensure_ascii=False, separators=(",", ":"))

    def _stamp(self, path: Path) -> Stamp:
        # Within a batch run (where the workspace takes the disk as unchanging) a file read for
        # the check has its stamp already, and the shared scripts hundreds of documents depend
        # on are stat'ed once.
        known = self.workspace.known_stamp(path)
        if known is not None:
            return list(known)
        return self.workspace.remembered(("cache-stamp", path), lambda: stamp_of(path))


class CheckCache:
    def __init__(self, workspace: Workspace, folder: Path | None = None) -> None:
        self.workspace = workspace
        self.folder = folder or workspace.root / CACHE_DIR
        self.path = self.folder / "check.json"
        self.entries: dict[str, dict[str, Any]] = {}
        self.dirty = False
        self.builder = EntryBuilder(workspace)
        skills = sorted((s.name, str(s.folder)) for s in workspace.skills.values())
        self.context_key = blake2b(
            json.dumps([_FORMAT, __version__, _code_fingerprint(), skills]).encode(),
            digest_size=16,
        ).hexdigest()
        self._load()

    def _load(self) -> None:
        try:
            data = json.loads(self.path.read_text("utf-8"))
        except (OSError, ValueError):
            return
        if isinstance(data, dict) and data.get("context") == self.context_key:
            entries = data.get("entries")
            if isinstance(entries, dict):
                self.entries = entries

    def _text(self) -> str:
        """``json.dumps({"context": ..., "entries": ...})`` (the same text), with the entries
        workers sent as JSON put in as they are."""
        dump = partial(json.dumps, ensure_ascii=False, separators=(",", ":"))
        entries = ",".join(
            f"{dump(key)}:{entry if isinstance(entry, str) else dump(entry)}"
            for key, entry in self.entries.items()
        )
        return f'{{"context":{dump(self.context_key)},"entries":{{{entries}}}}}'

    def lookup(self, path: Path) -> list[Finding] | None:
        entry: Any = self.entries.get(str(path))
        if entry is None:
            return None
        try:
            if isinstance(entry, str):  # filed as JSON by a worker in this run
                entry = json.loads(entry)
            if entry["stamp"] != stamp_of(path):
                return None
            if entry["settings"] != self.builder.settings_key(path):
                return None
            routing = entry.get("routing")
            if routing is not None and routing != self.workspace.routing_digest():
                return None  # RT findings: some skill's metadata changed
            # Hundreds of entries depend on the same shared scripts: within a batch run (where
            # the disk is taken as unchanging) each dependency is stat'ed once.
            remembered = self.workspace.remembered
            for dep, stamp in entry["deps"].items():
                if remembered(("dep-stamp", dep), partial(stamp_of, dep)) != stamp:
                    return None
            return [finding_from_json(f) for f in entry["findings"]]
        except (KeyError, TypeError, ValueError, IndexError):
            return None

    def store(self, path: Path, deps: set[Path], findings: list[Finding]) -> None:
        self.store_entry(path, self.builder.entry(path, deps, findings))

    def store_entry(self, path: Path, entry: dict[str, Any] | str) -> None:
        """File an entry built by ``EntryBuilder.entry`` (here or in a worker process), or
        that entry already as JSON (``encode_entry``: a worker's share of the saving)."""
        self.entries[str(path)] = entry  # type: ignore[assignment]
        self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        with contextlib.suppress(OSError):
            self.folder.mkdir(parents=True, exist_ok=True)
            ignore = self.folder / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# Created by easel-ls\n*\n", encoding="utf-8")
            from easel_ls.fixes import atomic_write

            # No fsync: after a power cut the cache may be lost (a cold run rebuilds it), but the
            # rename still never leaves a half-written file behind.
            atomic_write(self.path, self._text(), durable=False)
            os.utime(self.folder)
