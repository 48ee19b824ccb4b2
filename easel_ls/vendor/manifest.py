#!/usr/bin/env python3
"""The ``.easel.json`` contract: one manifest per content project, ``outputs/<主题>/.easel.json``.

Schema: ``{topic, profile, created, updated, title, summary, platform, kind, status, tags[],
cover, deliverables[], steps:[{layer, skill, at, status, outputs[], upstream[], summary}]}``.

CLI (``--root DIR`` before the subcommand; default ``$EASEL_OUTPUTS`` or ``outputs``)::

    manifest.py meta   --topic T [--title] [--summary] [--platform] [--kind] [--status]
                       [--tags a,b] [--cover] [--deliverables a,b] [--profile]
    manifest.py record --topic T --layer L --skill S [--profile P] [--status done|failed]
                       [--outputs a,b] [--upstream a,b] [--summary S]
    manifest.py read   --topic T
    manifest.py latest --topic T [--layer L]
    manifest.py selftest

Output is JSON on stdout (``meta``/``read``: the manifest; ``record``/``latest``: the step).
Exit codes: 0 ok; 1 missing or corrupt manifest, no matching step (``{"found": false}``), lock
timeout; 2 bad arguments (unknown enum value, invalid topic).

Importable API (``root`` is the outputs folder, ``topic`` the project folder name):
``load(root, topic)``, ``upsert_meta(root, topic, *, now=None, **fields)``,
``record_step(root, topic, layer, skill, *, status="done", outputs=(), upstream=(), summary="",
profile=None, now=None)``, ``latest_step(root, topic, layer=None)``; pure variants that touch no
disk: ``apply_meta(data, topic, fields, *, now=None)``, ``apply_step(...)`` and ``dumps(data)``,
the exact text the CLI writes.

Decisions where the spec is silent:

- Writes go to a temp file in the project folder, then ``os.replace``; a failure leaves the old
  manifest and no temp file. Writers hold an exclusive lock on ``.easel.json.lock`` beside the
  manifest (``fcntl.flock``; an ``O_EXCL`` lock file where fcntl is missing). The lock file is
  removed on release, so no hidden file stays behind in the project.
- A manifest that is not a JSON object (or whose ``steps`` is not a list when recording) is
  corrupt: it is never rewritten, the command fails with exit 1 and says where.
- Unknown keys, top-level or in a step (e.g. ``persona_check``), are kept. Known keys are written
  in schema order, unknown ones after them in their existing order.
- ``title`` defaults to the topic and ``cover`` to the first image/video among ``deliverables``,
  only while they are absent or empty; an explicit value always wins.
- List options (``--tags``, ``--deliverables``, ``--outputs``, ``--upstream``) are split on
  commas (also ``，``), stripped, emptied of blanks and duplicates; an empty string clears.
- ``record --profile`` sets the project's top-level ``profile`` (steps carry no profile).
- ``topic`` is set when the manifest is created and never rewritten afterwards.
- The topic is one folder name, validated by ``output_paths`` (no generic or ``_`` system names).
- Timestamps are ISO 8601 with the local UTC offset, to the second; ``updated`` changes on every
  write. ``now=`` makes them reproducible.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import errno
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, NoReturn

try:
    import output_paths
except ModuleNotFoundError:  # imported from another folder: the sibling is not on sys.path yet
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import output_paths

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

MANIFEST_NAME = ".easel.json"
LOCK_SUFFIX = ".lock"
LAYERS = ("discover", "plan", "produce", "publish", "attribute", "general")
KINDS = ("article", "xhs-note", "video", "cards", "poster", "audio", "other")
PROJECT_STATUSES = ("draft", "ready", "published")
STEP_STATUSES = ("done", "failed")

TOP_LEVEL_KEYS = (
    "topic",
    "profile",
    "created",
    "updated",
    "title",
    "summary",
    "platform",
    "kind",
    "status",
    "tags",
    "cover",
    "deliverables",
    "steps",
)
STEP_KEYS = ("layer", "skill", "at", "status", "outputs", "upstream", "summary")
META_FIELDS = (
    "title",
    "summary",
    "platform",
    "kind",
    "status",
    "tags",
    "cover",
    "deliverables",
    "profile",
)
LIST_FIELDS = ("tags", "deliverables")
MEDIA_SUFFIXES = frozenset(
    [
        ".png",
        ".jpg",
        ".jpeg",
        ".gif",
        ".webp",
        ".bmp",
        ".svg",
        ".heic",
        ".avif",
        ".mp4",
        ".mov",
        ".m4v",
        ".webm",
        ".avi",
        ".mkv",
    ]
)
LOCK_TIMEOUT_SECONDS = 30.0


class ManifestError(Exception):
    """Base of every manifest failure; ``exit_code`` is what the CLI returns."""

    exit_code = 1


class ManifestNotFound(ManifestError):
    pass


class ManifestCorrupt(ManifestError):
    pass


class ManifestLockTimeout(ManifestError):
    pass


class InvalidArgument(ManifestError, ValueError):
    exit_code = 2


# --- pure part: dict in, dict out ------------------------------------------------------------


def timestamp(now: datetime | None = None) -> str:
    """ISO 8601 to the second with a UTC offset; a naive ``now`` is taken as local time."""
    moment = datetime.now() if now is None else now
    if moment.tzinfo is None:
        moment = moment.astimezone()
    return moment.isoformat(timespec="seconds")


def dumps(data: Mapping[str, Any]) -> str:
    """Exactly the text written to ``.easel.json``."""
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def split_list(value: str | Iterable[str] | None) -> list[str]:
    """``"a, b,,a"`` -> ``["a", "b"]``: order kept, blanks and repeats dropped."""
    if value is None:
        return []
    items = value.replace("，", ",").split(",") if isinstance(value, str) else list(value)
    result: list[str] = []
    for item in items:
        cleaned = str(item).strip()
        if cleaned and cleaned not in result:
            result.append(cleaned)
    return result


def check_choice(field: str, value: str, valid: tuple[str, ...]) -> str:
    if value not in valid:
        raise InvalidArgument(f"{field} 取值无效：{value!r}（可选：{', '.join(valid)}）")
    return value


def first_media(paths: Iterable[str]) -> str | None:
    for path in paths:
        if Path(path).suffix.lower() in MEDIA_SUFFIXES:
            return path
    return None


def new_manifest(topic: str, *, now: datetime | None = None) -> dict[str, Any]:
    stamp = timestamp(now)
    return {"topic": topic, "created": stamp, "updated": stamp, "title": topic, "steps": []}


def apply_meta(
    data: Mapping[str, Any],
    topic: str,
    fields: Mapping[str, Any],
    *,
    now: datetime | None = None,
) -> dict[str, Any]:
    """The manifest after ``meta``: only the given (non-None) fields change; ``data`` is untouched.

    ``data`` may be empty (no manifest yet). Raises InvalidArgument for unknown fields or enum
    values.
    """
    unknown = sorted(set(fields) - set(META_FIELDS))
    if unknown:
        raise InvalidArgument(
            f"未知的 meta 字段：{', '.join(unknown)}（可选：{', '.join(META_FIELDS)}）"
        )
    updated = _start_write(data, topic, now)
    for field, value in fields.items():
        if value is None:
            continue
        if field in LIST_FIELDS:
            updated[field] = split_list(value)
            continue
        text = str(value)
        if field == "kind":
            check_choice("kind", text, KINDS)
        elif field == "status":
            check_choice("status", text, PROJECT_STATUSES)
        updated[field] = text
    if not updated.get("title"):
        updated["title"] = topic
    if not updated.get("cover"):
        cover = first_media(_string_items(updated.get("deliverables")))
        if cover is not None:
            updated["cover"] = cover
    return _in_schema_order(updated)


def new_step(
    layer: str,
    skill: str,
    *,
    status: str = "done",
    outputs: str | Iterable[str] | None = (),
    upstream: str | Iterable[str] | None = (),
    summary: str | None = "",
    now: datetime | None = None,
) -> dict[str, Any]:
    check_choice("layer", layer, LAYERS)
    check_choice("step status", status, STEP_STATUSES)
    if not skill or not skill.strip():
        raise InvalidArgument("skill 不能为空")
    return {
        "layer": layer,
        "skill": skill.strip(),
        "at": timestamp(now),
        "status": status,
        "outputs": split_list(outputs),
        "upstream": split_list(upstream),
        "summary": summary or "",
    }


def apply_step(
    data: Mapping[str, Any],
    topic: str,
    step: Mapping[str, Any],
    *,
    profile: str | None = None,
    now: datetime | None = None,
) -> dict[str, Any]:
    """The manifest with ``step`` appended (and ``profile`` set when given)."""
    steps = data.get("steps", [])
    if not isinstance(steps, list):
        raise ManifestCorrupt(f"steps 不是数组（是 {type(steps).__name__}），拒绝覆盖")
    updated = _start_write(data, topic, now)
    updated["steps"] = [*updated["steps"], copy.deepcopy(dict(step))]
    if profile is not None:
        updated["profile"] = profile
    return _in_schema_order(updated)


def find_latest_step(data: Mapping[str, Any], layer: str | None = None) -> dict[str, Any] | None:
    if layer is not None:
        check_choice("layer", layer, LAYERS)
    steps = data.get("steps")
    if not isinstance(steps, list):
        return None
    for step in reversed(steps):
        if isinstance(step, dict) and (layer is None or step.get("layer") == layer):
            return step
    return None


def _start_write(data: Mapping[str, Any], topic: str, now: datetime | None) -> dict[str, Any]:
    if not data:
        return new_manifest(topic, now=now)
    updated = copy.deepcopy(dict(data))
    stamp = timestamp(now)
    updated.setdefault("topic", topic)
    updated.setdefault("created", stamp)
    updated["updated"] = stamp
    updated.setdefault("steps", [])
    return updated


def _in_schema_order(data: Mapping[str, Any]) -> dict[str, Any]:
    ordered = {key: data[key] for key in TOP_LEVEL_KEYS if key in data}
    ordered.update((key, value) for key, value in data.items() if key not in ordered)
    return ordered


def _string_items(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


# --- disk part: paths, lock, atomic write ----------------------------------------------------


def project_dir(root: str | os.PathLike[str], topic: str) -> Path:
    """``root/topic`` after checking the topic is a valid project name (InvalidArgument if not)."""
    if not topic or topic != topic.strip() or any(sep in topic for sep in ("/", "\\")):
        raise InvalidArgument(f"topic 必须是单个目录名（不含 / 或首尾空白）：{topic!r}")
    if topic in (".", ".."):
        raise InvalidArgument(f"topic 无效：{topic!r}")
    candidate = Path(root) / topic
    try:
        output_paths.validate_output_path(candidate, root=root)
    except output_paths.OutputPathError as error:
        raise InvalidArgument(f"topic 无效：{error}") from None
    return candidate


def manifest_path(root: str | os.PathLike[str], topic: str) -> Path:
    return project_dir(root, topic) / MANIFEST_NAME


def read_manifest_file(path: Path) -> dict[str, Any]:
    """Parse one manifest file; ManifestNotFound / ManifestCorrupt with a clear message."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ManifestNotFound(f"manifest 不存在：{path}") from None
    except OSError as error:
        raise ManifestCorrupt(f"manifest 无法读取：{path}（{error.strerror}）") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ManifestCorrupt(
            f"manifest 不是 UTF-8：{path}（第 {error.start} 字节），已保留原文件未改动"
        ) from None
    except json.JSONDecodeError as error:
        raise ManifestCorrupt(
            f"manifest 不是合法 JSON：{path} 第 {error.lineno} 行第 {error.colno} 列：{error.msg}"
            "，已保留原文件未改动"
        ) from None
    if not isinstance(data, dict):
        raise ManifestCorrupt(
            f"manifest 顶层不是 JSON 对象（是 {type(data).__name__}）：{path}，已保留原文件未改动"
        )
    return data


def load(root: str | os.PathLike[str], topic: str) -> dict[str, Any]:
    return read_manifest_file(manifest_path(root, topic))


def upsert_meta(
    root: str | os.PathLike[str],
    topic: str,
    *,
    now: datetime | None = None,
    **fields: Any,
) -> dict[str, Any]:
    """Upsert the display header of ``root/topic``; creates folder and manifest when absent."""
    apply_meta({}, topic, fields, now=now)  # reject bad fields before touching disk
    return _update(root, topic, lambda data: apply_meta(data, topic, fields, now=now))


def record_step(
    root: str | os.PathLike[str],
    topic: str,
    layer: str,
    skill: str,
    *,
    status: str = "done",
    outputs: str | Iterable[str] | None = (),
    upstream: str | Iterable[str] | None = (),
    summary: str | None = "",
    profile: str | None = None,
    now: datetime | None = None,
) -> dict[str, Any]:
    """Append a step to ``root/topic`` (created when absent); returns the step written."""
    step = new_step(
        layer, skill, status=status, outputs=outputs, upstream=upstream, summary=summary, now=now
    )
    _update(root, topic, lambda data: apply_step(data, topic, step, profile=profile, now=now))
    return step


def latest_step(
    root: str | os.PathLike[str], topic: str, layer: str | None = None
) -> dict[str, Any] | None:
    """The last recorded step (of ``layer``) or None; ManifestNotFound without a manifest."""
    if layer is not None:
        check_choice("layer", layer, LAYERS)
    return find_latest_step(load(root, topic), layer)


def _update(
    root: str | os.PathLike[str],
    topic: str,
    change: Callable[[dict[str, Any]], dict[str, Any]],
) -> dict[str, Any]:
    folder = project_dir(root, topic)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / MANIFEST_NAME
    with locked(path):
        try:
            current = read_manifest_file(path)
        except ManifestNotFound:
            current = {}
        updated: dict[str, Any] = change(current)
        write_atomic(path, dumps(updated))
    return updated


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` in one step; on any failure the old file stays as it was."""
    try:
        mode = path.stat().st_mode & 0o777
    except FileNotFoundError:
        mode = 0o644
    handle, temp_name = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as temp_file:
            temp_file.write(text)
            temp_file.flush()
            os.fsync(temp_file.fileno())
        os.chmod(temp_name, mode)
        os.replace(temp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        raise


@contextlib.contextmanager
def locked(manifest: Path, timeout: float | None = None) -> Iterator[None]:
    """Hold the exclusive writer lock of ``manifest`` (ManifestLockTimeout after ``timeout``)."""
    timeout = LOCK_TIMEOUT_SECONDS if timeout is None else timeout
    lock_path = manifest.with_name(manifest.name + LOCK_SUFFIX)
    if fcntl is not None:
        descriptor = _acquire_flock(lock_path, timeout)
        try:
            yield
        finally:
            # Unlink while still holding the lock: waiters then notice the inode changed.
            with contextlib.suppress(FileNotFoundError):
                os.unlink(lock_path)
            os.close(descriptor)
    else:
        _acquire_exclusive_file(lock_path, timeout)
        try:
            yield
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(lock_path)


def _acquire_flock(lock_path: Path, timeout: float) -> int:
    deadline = time.monotonic() + timeout
    while True:
        descriptor = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            os.close(descriptor)
            if error.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise
            _wait_or_give_up(lock_path, deadline)
            continue
        try:
            same_file = os.fstat(descriptor).st_ino == os.stat(lock_path).st_ino
        except FileNotFoundError:
            same_file = False
        if same_file:
            return descriptor
        os.close(descriptor)  # the previous holder removed this lock file; take the new one


def _acquire_exclusive_file(lock_path: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            descriptor = os.open(lock_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            _wait_or_give_up(lock_path, deadline)
            continue
        os.write(descriptor, str(os.getpid()).encode())
        os.close(descriptor)
        return


def _wait_or_give_up(lock_path: Path, deadline: float) -> None:
    if time.monotonic() >= deadline:
        raise ManifestLockTimeout(
            f"等待 manifest 锁超时：{lock_path}（若无其他进程在写，删除该锁文件后重试）"
        )
    time.sleep(0.005)


# --- CLI -------------------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """argparse, but errors are one line on stderr (exit 2) instead of usage + error."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: 参数错误：{message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="manifest.py", description="读写 outputs/<主题>/.easel.json")
    parser.add_argument(
        "--root",
        default=os.environ.get("EASEL_OUTPUTS") or "outputs",
        help="outputs 目录（默认 $EASEL_OUTPUTS 或 outputs）",
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    meta = commands.add_parser("meta", help="登记/更新展示头（upsert，只改传入字段）")
    meta.add_argument("--topic", required=True, help="项目目录名（主题）")
    meta.add_argument("--title", help="人类可读标题（缺省为主题）")
    meta.add_argument("--summary", help="一句话摘要")
    meta.add_argument("--platform", help="发布平台，如 小红书")
    meta.add_argument("--kind", choices=KINDS, help="内容形态")
    meta.add_argument("--status", choices=PROJECT_STATUSES, help="项目状态")
    meta.add_argument("--tags", help="标签，逗号分隔")
    meta.add_argument("--cover", help="封面文件（缺省为首个图片/视频成品）")
    meta.add_argument("--deliverables", help="成品文件，逗号分隔")
    meta.add_argument("--profile", help="画像名")

    record = commands.add_parser("record", help="登记一步层间产物（失败也登记）")
    record.add_argument("--topic", required=True, help="项目目录名（主题）")
    record.add_argument("--layer", required=True, choices=LAYERS, help="所属层")
    record.add_argument("--skill", required=True, help="执行的 SKILL 名")
    record.add_argument("--profile", help="画像名（写入项目顶层 profile）")
    record.add_argument("--status", choices=STEP_STATUSES, default="done", help="步骤状态")
    record.add_argument("--outputs", help="产物路径，逗号分隔")
    record.add_argument("--upstream", help="上游产物或步骤，逗号分隔")
    record.add_argument("--summary", help="一行关键结论，供下游路由")

    read = commands.add_parser("read", help="打印整个 manifest")
    read.add_argument("--topic", required=True, help="项目目录名（主题）")

    latest = commands.add_parser("latest", help="打印最近一步（可按层过滤）")
    latest.add_argument("--topic", required=True, help="项目目录名（主题）")
    latest.add_argument("--layer", choices=LAYERS, help="只看该层")

    commands.add_parser("selftest", help="自测")
    return parser


def _print_json(value: Any) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2))


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "selftest":
            _selftest()
            print("manifest selftest: OK")
        elif args.command == "meta":
            fields = {name: getattr(args, name) for name in META_FIELDS}
            _print_json(upsert_meta(args.root, args.topic, **fields))
        elif args.command == "record":
            step = record_step(
                args.root,
                args.topic,
                args.layer,
                args.skill,
                status=args.status,
                outputs=args.outputs,
                upstream=args.upstream,
                summary=args.summary,
                profile=args.profile,
            )
            _print_json(step)
        elif args.command == "read":
            _print_json(load(args.root, args.topic))
        elif args.command == "latest":
            found = latest_step(args.root, args.topic, args.layer)
            if found is None:
                _print_json({"found": False})
                return 1
            _print_json(found)
    except ManifestError as error:
        print(f"manifest.py: {error}", file=sys.stderr)
        return error.exit_code
    return 0


def _selftest() -> None:
    fixed = datetime.fromisoformat("2024-05-01T09:30:00+08:00")
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "outputs"
        header = upsert_meta(root, "春日穿搭", deliverables="card_1.png,card_2.png", now=fixed)
        _expect(header["title"] == "春日穿搭" and header["cover"] == "card_1.png", "meta defaults")
        _expect(header["created"] == "2024-05-01T09:30:00+08:00", "injected clock")
        upsert_meta(root, "春日穿搭", kind="cards", tags="春天, 穿搭")
        reread = load(root, "春日穿搭")
        _expect(reread["deliverables"] == ["card_1.png", "card_2.png"], "upsert keeps fields")
        _expect(reread["tags"] == ["春天", "穿搭"] and reread["kind"] == "cards", "upsert sets")
        record_step(root, "春日穿搭", "plan", "xhs-note-plan", outputs="brief.md")
        record_step(root, "春日穿搭", "produce", "card-maker", status="failed")
        latest_plan = latest_step(root, "春日穿搭", "plan")
        _expect(latest_plan is not None and latest_plan["outputs"] == ["brief.md"], "latest")
        _expect(latest_step(root, "春日穿搭", "publish") is None, "no publish step yet")
        path = manifest_path(root, "春日穿搭")
        text = path.read_text(encoding="utf-8")
        _expect(text == dumps(json.loads(text)), "written text is dumps()")
        path.write_text('{"topic": "春日穿搭",', encoding="utf-8")
        try:
            upsert_meta(root, "春日穿搭", title="x")
        except ManifestCorrupt:
            pass
        else:
            raise AssertionError("overwrote a corrupt manifest")
        _expect(path.read_text(encoding="utf-8") == '{"topic": "春日穿搭",', "corrupt kept")
        bad_fields: list[dict[str, Any]] = [{"kind": "essay"}, {"colour": "red"}]
        for bad in bad_fields:
            try:
                upsert_meta(root, "别的主题", **bad)
            except InvalidArgument:
                pass
            else:
                raise AssertionError(f"accepted {bad}")
        _expect(not (root / "别的主题").exists(), "bad arguments create nothing")
        try:
            upsert_meta(root, "xhs")
        except InvalidArgument:
            pass
        else:
            raise AssertionError("accepted a generic topic")
        leftovers = [p.name for p in path.parent.iterdir() if p.name != MANIFEST_NAME]
        _expect(not leftovers, f"no temp or lock files left: {leftovers}")


def _expect(condition: bool, what: str) -> None:
    if not condition:
        raise AssertionError(f"manifest selftest failed: {what}")


if __name__ == "__main__":
    sys.exit(main())
