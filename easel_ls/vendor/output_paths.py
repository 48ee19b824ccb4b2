#!/usr/bin/env python3
"""Where Easel products may be written: ``outputs/<主题>/…`` and registered ``_`` system folders.

Every script validates a path with :func:`validate_output_path` before it creates a product.
The rules (spec, 产物管理):

- the path lies under an ``outputs/`` folder (the first path component named ``outputs``; or,
  when ``root=`` is given, under that folder — ``manifest.py --root`` uses this);
- no hidden component (``.x``), except the project manifest ``outputs/<主题>/.easel.json``;
- no file directly in ``outputs/`` and not the ``outputs/`` folder itself;
- the project name is not generic (:data:`GENERIC_PROJECT_NAMES`, compared case-insensitively);
- a ``_`` system folder needs ``allow_system=True`` and must be one of :data:`SYSTEM_DIRS`.

Where the spec is silent:

- ``..`` is resolved lexically before checking, so ``outputs/a/../../etc`` is outside outputs;
  symlinks are not followed (the check is about the path a script writes to).
- ``outputs/<名字>`` is a project folder unless it is an existing file or its suffix is a
  common file extension (:data:`FILE_SUFFIXES`); so ``outputs/Python 3.12 新特性`` is a project.

CLI: ``output_paths.py PATH [--system] [--root DIR]`` prints the normalised path (exit 0) or one
clear line on stderr (exit 1); ``output_paths.py selftest`` runs the self test.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path, PurePath

OUTPUTS_DIR_NAME = "outputs"
MANIFEST_NAME = ".easel.json"
SYSTEM_DIRS = ("_login", "_publish", "_analytics", "_profile_build", "_scratch")
GENERIC_PROJECT_NAMES = (
    "xhs",
    "test",
    "tmp",
    "temp",
    "demo",
    "output",
    "outputs",
    "result",
    "results",
    "主题名",
)
# Suffixes that make ``outputs/<name>`` a stray file rather than a project folder.
FILE_SUFFIXES = frozenset(
    [
        "md",
        "txt",
        "json",
        "jsonl",
        "yaml",
        "yml",
        "csv",
        "tsv",
        "html",
        "htm",
        "pdf",
        "doc",
        "docx",
        "png",
        "jpg",
        "jpeg",
        "gif",
        "webp",
        "svg",
        "bmp",
        "mp4",
        "mov",
        "avi",
        "mkv",
        "webm",
        "mp3",
        "wav",
        "m4a",
        "aac",
        "flac",
        "srt",
        "vtt",
        "ass",
        "zip",
        "tar",
        "gz",
        "py",
        "sh",
        "log",
    ]
)


class OutputPathError(ValueError):
    """A path a script must not write to; the message says why, in Chinese."""


def validate_output_path(
    path: str | os.PathLike[str],
    allow_system: bool = False,
    *,
    root: str | os.PathLike[str] | None = None,
) -> Path:
    """Return ``path`` normalised when it is a valid output location, else raise OutputPathError."""
    raw = os.fspath(path)
    if not raw.strip():
        raise OutputPathError("输出路径为空：请写到 outputs/<主题>/ 下")
    normalised = Path(os.path.normpath(raw))
    inside = _parts_inside_outputs(normalised, root)
    shown = raw
    if inside is None:
        where = f"{os.fspath(root)}/" if root is not None else "outputs/"
        raise OutputPathError(f"输出路径不在 {where} 下：{shown}（产物一律写到 outputs/<主题>/）")
    if not inside:
        raise OutputPathError(f"不能直接写 outputs/ 本身：{shown}（请写到 outputs/<主题>/ 下）")
    for index, part in enumerate(inside):
        if part.startswith(".") and not (index == 1 and part == MANIFEST_NAME and len(inside) == 2):
            raise OutputPathError(
                f"输出路径含隐藏目录或文件 “{part}”：{shown}（隐藏路径不会被内容库展示）"
            )
    project = inside[0]
    if len(inside) == 1 and _looks_like_file(normalised, project):
        raise OutputPathError(
            f"文件不能直接放在 outputs/ 根目录：{shown}（请放进 outputs/<主题>/ 项目目录）"
        )
    if project.startswith("_"):
        registered = "、".join(SYSTEM_DIRS)
        if project not in SYSTEM_DIRS:
            raise OutputPathError(
                f"系统目录 “{project}” 未注册：{shown}（已注册的系统目录：{registered}）"
            )
        if not allow_system:
            raise OutputPathError(
                f"“{project}” 是系统目录：{shown}（系统写入需显式传 allow_system=True；"
                "测试/临时产物写 outputs/_scratch/）"
            )
    elif project.casefold() in GENERIC_PROJECT_NAMES:
        raise OutputPathError(
            f"项目名 “{project}” 太泛：{shown}"
            "（用人类可读的主题命名，测试/临时产物写 outputs/_scratch/）"
        )
    return normalised


def _parts_inside_outputs(path: Path, root: str | os.PathLike[str] | None) -> list[str] | None:
    """The components after the outputs folder, or None when the path is not inside it."""
    if root is not None:
        root_abs = Path(os.path.abspath(os.fspath(root)))
        path_abs = Path(os.path.abspath(path))
        try:
            return list(path_abs.relative_to(root_abs).parts)
        except ValueError:
            return None
    parts = PurePath(path).parts
    if OUTPUTS_DIR_NAME not in parts:
        return None
    return list(parts[parts.index(OUTPUTS_DIR_NAME) + 1 :])


def _looks_like_file(path: Path, name: str) -> bool:
    if path.is_file():
        return True
    if path.is_dir():
        return False
    stem, dot, suffix = name.rpartition(".")
    return bool(dot and stem and suffix.lower() in FILE_SUFFIXES)


def _selftest() -> None:
    accepted = [
        ("outputs/春日穿搭/note.md", False),
        ("outputs/春日穿搭/assets/frames/f1.png", False),
        ("outputs/春日穿搭/.easel.json", False),
        ("outputs/Python 3.12 新特性", False),
        ("/srv/easel/outputs/咖啡测评/card_1.png", False),
        ("outputs/_scratch/try.md", True),
        ("outputs/_publish/state.json", True),
    ]
    rejected = [
        ("notes/a.md", False),
        ("outputs", False),
        ("outputs/a/../../etc/passwd", False),
        ("outputs/.cache/x", False),
        ("outputs/春日穿搭/.draft.md", False),
        ("outputs/note.md", False),
        ("outputs/xhs/note.md", False),
        ("outputs/Test/note.md", False),
        ("outputs/主题名/note.md", False),
        ("outputs/_scratch/x.md", False),
        ("outputs/_cache/x.md", True),
    ]
    for candidate, allow_system in accepted:
        validate_output_path(candidate, allow_system)
    for candidate, allow_system in rejected:
        try:
            validate_output_path(candidate, allow_system)
        except OutputPathError:
            continue
        raise AssertionError(f"accepted an invalid output path: {candidate}")
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "library"
        validate_output_path(root / "咖啡测评", root=root)
        try:
            validate_output_path(Path(scratch) / "elsewhere" / "咖啡测评", root=root)
        except OutputPathError:
            pass
        else:
            raise AssertionError("accepted a path outside the given root")


def main(argv: list[str] | None = None) -> int:
    args_list = sys.argv[1:] if argv is None else argv
    if args_list == ["selftest"]:
        _selftest()
        print("output_paths selftest: OK")
        return 0
    parser = argparse.ArgumentParser(
        prog="output_paths.py",
        description="校验产物输出路径（outputs/<主题>/…）；`output_paths.py selftest` 运行自测",
    )
    parser.add_argument("path", help="要校验的输出路径")
    parser.add_argument("--system", action="store_true", help="系统写入（允许已注册的 _ 目录）")
    parser.add_argument("--root", help="outputs 目录（默认：路径中的 outputs/ 段）")
    args = parser.parse_args(args_list)
    try:
        valid = validate_output_path(args.path, args.system, root=args.root)
    except OutputPathError as error:
        print(f"output_paths.py: {error}", file=sys.stderr)
        return 1
    print(valid)
    return 0


if __name__ == "__main__":
    sys.exit(main())
