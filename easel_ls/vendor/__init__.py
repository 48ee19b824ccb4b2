"""Packaged copies of Easel's shared reference modules (``skills/shared/scripts/``): content_guard,
manifest and output_paths, byte for byte (a test fails if they drift).

Diagnostics must never import code from a workspace they cannot trust. :func:`load_shared` uses the
workspace's own ``skills/shared/scripts/`` only when its three files are byte-identical to these
copies (the easel-ls repository's own copy) or the ``trusted-workspace`` option is set; otherwise it
uses the packaged copies. ``SharedModules.source`` says which one was used.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

VENDOR_DIR = Path(__file__).resolve().parent
SHARED_MODULE_NAMES = ("output_paths", "content_guard", "manifest")

PACKAGED = "packaged"
WORKSPACE = "workspace"


@dataclass(frozen=True)
class SharedModules:
    content_guard: ModuleType
    manifest: ModuleType
    output_paths: ModuleType
    source: str  # PACKAGED or WORKSPACE
    folder: Path
    note: str = ""  # why the workspace copy was not used, when that needs saying


_loaded: dict[tuple[Path, tuple[tuple[int, int], ...]], SharedModules] = {}
_serial = itertools.count()


# load_shared's answers, keyed by the folder, the trust and the workspace files' stamps: rules
# ask once per checked file, and deciding reads and compares six files.
_decided: dict[
    tuple[Path | None, bool, tuple[tuple[int, int, int], ...] | None], SharedModules
] = {}
_DECIDED_LIMIT = 64


def load_shared(scripts_dir: Path | None, *, trusted: bool = False) -> SharedModules:
    """The shared modules to use for a workspace whose shared scripts live in ``scripts_dir``."""
    key = (scripts_dir, trusted, _workspace_stamps(scripts_dir))
    decided = _decided.get(key)
    if decided is None:
        if len(_decided) >= _DECIDED_LIMIT:
            _decided.clear()
        decided = _decided[key] = _decide(scripts_dir, trusted)
    return decided


def _workspace_stamps(folder: Path | None) -> tuple[tuple[int, int, int], ...] | None:
    """(mtime, size, inode) of the three files, or None when one is not a regular file."""
    if folder is None:
        return None
    stamps = []
    for name in SHARED_MODULE_NAMES:
        try:
            st = os.stat(folder / f"{name}.py")
        except (OSError, ValueError):
            return None
        if not stat.S_ISREG(st.st_mode):
            return None
        stamps.append((st.st_mtime_ns, st.st_size, st.st_ino))
    return tuple(stamps)


def _decide(scripts_dir: Path | None, trusted: bool) -> SharedModules:
    note = ""
    if scripts_dir is not None and _has_all(scripts_dir):
        if _identical_to_packaged(scripts_dir):
            # The same bytes behave the same: share the packaged modules (imported once, from
            # bytecode) instead of compiling the workspace's files again.
            packaged = _load_from(VENDOR_DIR, PACKAGED)
            return SharedModules(
                packaged.content_guard,
                packaged.manifest,
                packaged.output_paths,
                WORKSPACE,
                scripts_dir,
            )
        if trusted:
            try:
                return _load_from(scripts_dir, WORKSPACE)
            except Exception as exc:  # a trusted copy that does not import: fall back, say so
                note = f"the workspace copy failed to load ({type(exc).__name__}: {exc})"
        else:
            note = "the workspace copy differs from the packaged one and is not trusted"
    packaged = _load_from(VENDOR_DIR, PACKAGED)
    return packaged if not note else _with_note(packaged, note)


def _with_note(modules: SharedModules, note: str) -> SharedModules:
    return SharedModules(
        modules.content_guard,
        modules.manifest,
        modules.output_paths,
        modules.source,
        modules.folder,
        note,
    )


def _has_all(folder: Path) -> bool:
    return all((folder / f"{name}.py").is_file() for name in SHARED_MODULE_NAMES)


def _identical_to_packaged(folder: Path) -> bool:
    try:
        return all(
            (folder / f"{name}.py").read_bytes() == (VENDOR_DIR / f"{name}.py").read_bytes()
            for name in SHARED_MODULE_NAMES
        )
    except OSError:
        return False


def _stamps(folder: Path) -> tuple[tuple[int, int], ...]:
    stamps = []
    for name in SHARED_MODULE_NAMES:
        st = (folder / f"{name}.py").stat()
        stamps.append((st.st_mtime_ns, st.st_size))
    return tuple(stamps)


def _load_from(folder: Path, source: str) -> SharedModules:
    key = (folder.resolve(), _stamps(folder))
    cached = _loaded.get(key)
    if cached is not None:
        return cached
    prefix = f"_easel_ls_shared_{next(_serial)}"
    output_paths = _exec_module(f"{prefix}.output_paths", folder / "output_paths.py")
    content_guard = _exec_module(f"{prefix}.content_guard", folder / "content_guard.py")
    # manifest.py does `import output_paths`: hand it this copy without touching sys.path.
    previous = sys.modules.get("output_paths")
    sys.modules["output_paths"] = output_paths
    try:
        manifest = _exec_module(f"{prefix}.manifest", folder / "manifest.py")
    finally:
        if previous is None:
            sys.modules.pop("output_paths", None)
        else:
            sys.modules["output_paths"] = previous
    modules = SharedModules(content_guard, manifest, output_paths, source, folder)
    _loaded[key] = modules
    return modules


def _exec_module(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module
