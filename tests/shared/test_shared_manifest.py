"""manifest: the .easel.json contract — upsert header, append steps, lose nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import manifest
import pytest
from shared_script_runner import SCRIPTS_DIR, run_script

NOW = datetime(2024, 5, 1, 9, 30, tzinfo=timezone(timedelta(hours=8)))
LATER = NOW + timedelta(hours=2)
TOPIC = "春日穿搭"


def manifest_file(root: Path, topic: str = TOPIC) -> Path:
    return root / topic / ".easel.json"


def run_manifest(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_script("manifest.py", "--root", str(root), *args)


def test_enums_are_the_spec_values_in_spec_order() -> None:
    assert manifest.LAYERS == ("discover", "plan", "produce", "publish", "attribute", "general")
    assert manifest.KINDS == ("article", "xhs-note", "video", "cards", "poster", "audio", "other")
    assert manifest.PROJECT_STATUSES == ("draft", "ready", "published")
    assert manifest.STEP_STATUSES == ("done", "failed")
    assert manifest.MANIFEST_NAME == ".easel.json"


# --- meta ------------------------------------------------------------------------------------


def test_meta_creates_folder_and_manifest_with_defaults(outputs_root: Path) -> None:
    header = manifest.upsert_meta(
        outputs_root, TOPIC, deliverables="note.md,card_1.png,final.mp4", now=NOW
    )
    assert header == {
        "topic": TOPIC,
        "created": "2024-05-01T09:30:00+08:00",
        "updated": "2024-05-01T09:30:00+08:00",
        "title": TOPIC,
        "cover": "card_1.png",
        "deliverables": ["note.md", "card_1.png", "final.mp4"],
        "steps": [],
    }
    assert json.loads(manifest_file(outputs_root).read_text(encoding="utf-8")) == header


def test_meta_changes_only_the_given_fields(outputs_root: Path) -> None:
    manifest.upsert_meta(
        outputs_root, TOPIC, title="春天怎么穿", kind="cards", tags="春天,穿搭", now=NOW
    )
    updated = manifest.upsert_meta(outputs_root, TOPIC, status="ready", now=LATER)
    assert updated["title"] == "春天怎么穿"
    assert updated["kind"] == "cards"
    assert updated["tags"] == ["春天", "穿搭"]
    assert updated["status"] == "ready"
    assert updated["created"] == "2024-05-01T09:30:00+08:00"
    assert updated["updated"] == "2024-05-01T11:30:00+08:00"


def test_an_explicit_cover_wins_and_the_default_never_overrides_it(outputs_root: Path) -> None:
    manifest.upsert_meta(outputs_root, TOPIC, cover="cover.png", deliverables="card_1.png")
    again = manifest.upsert_meta(outputs_root, TOPIC, deliverables="card_2.png")
    assert again["cover"] == "cover.png"


def test_no_cover_is_invented_without_media_deliverables(outputs_root: Path) -> None:
    header = manifest.upsert_meta(outputs_root, TOPIC, deliverables="note.md")
    assert "cover" not in header


def test_list_fields_are_split_trimmed_and_deduplicated(outputs_root: Path) -> None:
    header = manifest.upsert_meta(outputs_root, TOPIC, tags=" 春天 ，穿搭,,春天 ")
    assert header["tags"] == ["春天", "穿搭"]
    cleared = manifest.upsert_meta(outputs_root, TOPIC, tags="")
    assert cleared["tags"] == []


@pytest.mark.parametrize(
    ("field", "value", "listed"),
    [("kind", "essay", "xhs-note"), ("status", "done", "published")],
)
def test_an_invalid_enum_value_is_rejected_before_anything_is_created(
    outputs_root: Path, field: str, value: str, listed: str
) -> None:
    fields: dict[str, Any] = {field: value}
    with pytest.raises(manifest.InvalidArgument, match=listed):
        manifest.upsert_meta(outputs_root, TOPIC, **fields)
    assert not (outputs_root / TOPIC).exists()


def test_an_unknown_meta_field_is_rejected(outputs_root: Path) -> None:
    with pytest.raises(manifest.InvalidArgument, match="colour"):
        manifest.upsert_meta(outputs_root, TOPIC, colour="red")


@pytest.mark.parametrize("topic", ["xhs", "test", "_scratch", "a/b", "..", "", " 空格"])
def test_the_topic_is_validated_before_anything_is_created(outputs_root: Path, topic: str) -> None:
    with pytest.raises(manifest.InvalidArgument, match="topic"):
        manifest.upsert_meta(outputs_root, topic, title="x")
    assert list(outputs_root.iterdir()) == []


# --- record / latest -------------------------------------------------------------------------


def test_record_appends_a_step_with_defaults(outputs_root: Path) -> None:
    step = manifest.record_step(
        outputs_root, TOPIC, "plan", "xhs-note-plan", outputs="brief.md,outline.md", now=NOW
    )
    assert step == {
        "layer": "plan",
        "skill": "xhs-note-plan",
        "at": "2024-05-01T09:30:00+08:00",
        "status": "done",
        "outputs": ["brief.md", "outline.md"],
        "upstream": [],
        "summary": "",
    }
    data = manifest.load(outputs_root, TOPIC)
    assert data["steps"] == [step]
    assert data["title"] == TOPIC


def test_a_failed_step_is_recorded_too_and_profile_goes_to_the_header(outputs_root: Path) -> None:
    manifest.record_step(outputs_root, TOPIC, "plan", "xhs-note-plan", profile="咖啡店主")
    manifest.record_step(outputs_root, TOPIC, "produce", "card-maker", status="failed")
    data = manifest.load(outputs_root, TOPIC)
    assert [s["status"] for s in data["steps"]] == ["done", "failed"]
    assert data["profile"] == "咖啡店主"


def test_latest_returns_the_last_step_of_a_layer(outputs_root: Path) -> None:
    manifest.record_step(outputs_root, TOPIC, "plan", "xhs-note-plan", summary="第一版")
    manifest.record_step(outputs_root, TOPIC, "produce", "card-maker")
    manifest.record_step(outputs_root, TOPIC, "plan", "xhs-note-plan", summary="第二版")
    latest_plan = manifest.latest_step(outputs_root, TOPIC, "plan")
    assert latest_plan is not None and latest_plan["summary"] == "第二版"
    latest_any = manifest.latest_step(outputs_root, TOPIC)
    assert latest_any is not None and latest_any["skill"] == "xhs-note-plan"
    assert manifest.latest_step(outputs_root, TOPIC, "publish") is None


def test_record_rejects_bad_layer_and_status(outputs_root: Path) -> None:
    with pytest.raises(manifest.InvalidArgument, match="attribute"):
        manifest.record_step(outputs_root, TOPIC, "design", "x")
    with pytest.raises(manifest.InvalidArgument, match="failed"):
        manifest.record_step(outputs_root, TOPIC, "plan", "x", status="ok")
    assert not (outputs_root / TOPIC).exists()


# --- nothing is lost -------------------------------------------------------------------------


def test_unknown_fields_top_level_and_in_steps_are_kept(outputs_root: Path) -> None:
    manifest.record_step(outputs_root, TOPIC, "produce", "card-maker")
    path = manifest_file(outputs_root)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["x_reviewer"] = {"name": "小王"}
    data["steps"][0]["persona_check"] = {"score": 0.92, "notes": ["语气一致"]}
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")

    manifest.upsert_meta(outputs_root, TOPIC, status="ready")
    manifest.record_step(outputs_root, TOPIC, "publish", "xhs-publish")

    kept = manifest.load(outputs_root, TOPIC)
    assert kept["x_reviewer"] == {"name": "小王"}
    assert kept["steps"][0]["persona_check"] == {"score": 0.92, "notes": ["语气一致"]}
    assert list(kept)[-1] == "x_reviewer"  # known keys in schema order, unknown ones after


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ('{"topic": "春日穿搭",', "不是合法 JSON"),
        ("[1, 2]", "不是 JSON 对象"),
        ("\udcff", "不是 UTF-8"),
    ],
)
def test_a_corrupt_manifest_is_never_overwritten(
    outputs_root: Path, content: str, reason: str
) -> None:
    path = manifest_file(outputs_root)
    path.parent.mkdir()
    original = content.encode("utf-8", errors="surrogateescape")
    path.write_bytes(original)
    for write in (
        lambda: manifest.upsert_meta(outputs_root, TOPIC, title="新标题"),
        lambda: manifest.record_step(outputs_root, TOPIC, "plan", "x"),
    ):
        with pytest.raises(manifest.ManifestCorrupt, match=reason):
            write()
    assert path.read_bytes() == original
    assert sorted(p.name for p in path.parent.iterdir()) == [".easel.json"]


def test_cli_reports_a_corrupt_manifest_with_exit_1_and_leaves_it(outputs_root: Path) -> None:
    path = manifest_file(outputs_root)
    path.parent.mkdir()
    path.write_bytes(b'{"topic": "\xe6\x98\xa5",\n  "steps": [}')
    result = run_manifest(outputs_root, "meta", "--topic", TOPIC, "--title", "x")
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert "不是合法 JSON" in result.stderr and "第 2 行" in result.stderr
    assert path.read_bytes() == b'{"topic": "\xe6\x98\xa5",\n  "steps": [}'


def test_steps_that_are_not_a_list_block_recording(outputs_root: Path) -> None:
    path = manifest_file(outputs_root)
    path.parent.mkdir()
    path.write_text('{"topic": "春日穿搭", "steps": {}}', encoding="utf-8")
    with pytest.raises(manifest.ManifestCorrupt, match="steps"):
        manifest.record_step(outputs_root, TOPIC, "plan", "x")
    assert path.read_text(encoding="utf-8") == '{"topic": "春日穿搭", "steps": {}}'


def test_a_failed_write_leaves_the_original_and_no_temp_file(
    outputs_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manifest.upsert_meta(outputs_root, TOPIC, title="原标题")
    path = manifest_file(outputs_root)
    before = path.read_bytes()

    def crash_before_rename(source: str, destination: str) -> None:
        raise OSError("disk pulled out between write and rename")

    monkeypatch.setattr(manifest.os, "replace", crash_before_rename)
    with pytest.raises(OSError, match="disk pulled out"):
        manifest.upsert_meta(outputs_root, TOPIC, title="新标题")
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == [".easel.json"]


def test_writes_leave_no_lock_or_temp_files(outputs_root: Path) -> None:
    manifest.upsert_meta(outputs_root, TOPIC, title="x")
    manifest.record_step(outputs_root, TOPIC, "plan", "x")
    assert sorted(p.name for p in (outputs_root / TOPIC).iterdir()) == [".easel.json"]


# --- pure API used by easel-ls ---------------------------------------------------------------


def test_apply_meta_is_pure_and_dumps_is_what_the_cli_writes(outputs_root: Path) -> None:
    manifest.upsert_meta(outputs_root, TOPIC, title="春天怎么穿", now=NOW)
    before = manifest.load(outputs_root, TOPIC)
    snapshot = json.loads(json.dumps(before))

    result = run_manifest(
        outputs_root, "meta", "--topic", TOPIC, "--deliverables", "card_1.png,note.md"
    )
    assert result.returncode == 0, result.stderr
    written = manifest_file(outputs_root).read_text(encoding="utf-8")
    written_at = datetime.fromisoformat(json.loads(written)["updated"])

    predicted = manifest.apply_meta(
        before, TOPIC, {"deliverables": ["card_1.png", "note.md"]}, now=written_at
    )
    assert manifest.dumps(predicted) == written
    assert before == snapshot
    assert written.endswith("}\n") and "春天怎么穿" in written  # ensure_ascii=False


def test_apply_meta_on_an_empty_dict_builds_a_new_manifest() -> None:
    assert manifest.apply_meta({}, TOPIC, {"kind": "video"}, now=NOW) == {
        "topic": TOPIC,
        "created": "2024-05-01T09:30:00+08:00",
        "updated": "2024-05-01T09:30:00+08:00",
        "title": TOPIC,
        "kind": "video",
        "steps": [],
    }


def test_timestamps_are_iso_8601_with_timezone(outputs_root: Path) -> None:
    header = manifest.upsert_meta(outputs_root, TOPIC)
    for key in ("created", "updated"):
        assert datetime.fromisoformat(header[key]).tzinfo is not None


# --- CLI -------------------------------------------------------------------------------------


def test_cli_meta_record_read_latest_round_trip(outputs_root: Path) -> None:
    meta = run_manifest(
        outputs_root, "meta", "--topic", TOPIC, "--platform", "小红书", "--kind", "cards",
        "--status", "draft", "--tags", "春天,穿搭", "--deliverables", "card_1.png,card_2.png",
    )  # fmt: skip
    assert meta.returncode == 0, meta.stderr
    assert json.loads(meta.stdout)["cover"] == "card_1.png"
    assert "小红书" in meta.stdout  # ensure_ascii=False

    record = run_manifest(
        outputs_root, "record", "--topic", TOPIC, "--layer", "plan", "--skill", "xhs-note-plan",
        "--outputs", "brief.md", "--summary", "3 幕结构",
    )  # fmt: skip
    assert record.returncode == 0, record.stderr
    assert json.loads(record.stdout)["summary"] == "3 幕结构"

    latest = run_manifest(outputs_root, "latest", "--topic", TOPIC, "--layer", "plan")
    assert (latest.returncode, json.loads(latest.stdout)["outputs"]) == (0, ["brief.md"])

    read = run_manifest(outputs_root, "read", "--topic", TOPIC)
    assert json.loads(read.stdout) == manifest.load(outputs_root, TOPIC)


def test_cli_latest_without_a_matching_step_prints_found_false_and_exits_1(
    outputs_root: Path,
) -> None:
    manifest.record_step(outputs_root, TOPIC, "plan", "xhs-note-plan")
    result = run_manifest(outputs_root, "latest", "--topic", TOPIC, "--layer", "publish")
    assert result.returncode == 1
    assert json.loads(result.stdout) == {"found": False}


@pytest.mark.parametrize("command", ["read", "latest"])
def test_cli_missing_manifest_exits_1_with_a_clear_line(outputs_root: Path, command: str) -> None:
    result = run_manifest(outputs_root, command, "--topic", "不存在的主题")
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"manifest.py: manifest 不存在：{outputs_root / '不存在的主题' / '.easel.json'}"
    ]


@pytest.mark.parametrize(
    ("args", "listed"),
    [
        (["meta", "--topic", TOPIC, "--kind", "essay"], "'xhs-note'"),
        (["meta", "--topic", TOPIC, "--status", "done"], "'published'"),
        (["record", "--topic", TOPIC, "--layer", "design", "--skill", "x"], "'attribute'"),
        (["record", "--topic", TOPIC, "--layer", "plan", "--skill", "x", "--status", "ok"], "'failed'"),
        (["meta", "--topic", "xhs"], "太泛"),
        (["meta"], "--topic"),
        ([], "command"),
    ],
)  # fmt: skip
def test_cli_bad_arguments_exit_2_with_one_line_listing_valid_values(
    outputs_root: Path, args: list[str], listed: str
) -> None:
    result = run_manifest(outputs_root, *args)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert listed in result.stderr
    assert list(outputs_root.iterdir()) == []


def test_cli_root_defaults_to_the_easel_outputs_variable(tmp_path: Path) -> None:
    library = tmp_path / "library"
    result = run_script(
        "manifest.py", "meta", "--topic", TOPIC, cwd=tmp_path, env={"EASEL_OUTPUTS": str(library)}
    )
    assert result.returncode == 0, result.stderr
    assert manifest_file(library).is_file()
    plain = run_script("manifest.py", "meta", "--topic", TOPIC, cwd=tmp_path)
    assert plain.returncode == 0, plain.stderr
    assert manifest_file(tmp_path / "outputs").is_file()


def test_selftest_passes() -> None:
    result = run_script("manifest.py", "selftest")
    assert (result.returncode, result.stdout.strip()) == (0, "manifest selftest: OK")


# --- concurrency -----------------------------------------------------------------------------

META_ARGS = [
    ["--title", "春天怎么穿"],
    ["--summary", "一句话摘要"],
    ["--platform", "小红书"],
    ["--kind", "cards"],
    ["--status", "ready"],
    ["--tags", "春天,穿搭"],
    ["--cover", "cover.png"],
    ["--deliverables", "card_1.png,card_2.png"],
    ["--profile", "咖啡店主"],
]


def test_twenty_concurrent_writers_all_land(outputs_root: Path) -> None:
    script = str(SCRIPTS_DIR / "manifest.py")
    commands = [["meta", "--topic", TOPIC, *args] for args in META_ARGS]
    commands += [
        ["record", "--topic", TOPIC, "--layer", "produce", "--skill", f"writer-{index}"]
        for index in range(20 - len(commands))
    ]
    env = {k: v for k, v in os.environ.items() if k != "EASEL_OUTPUTS"}
    processes = [
        subprocess.Popen(
            [sys.executable, script, "--root", str(outputs_root), *command],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
        )
        for command in commands
    ]
    failures = [p.stderr.read() for p in processes if p.wait(timeout=60) != 0 and p.stderr]
    for process in processes:
        if process.stderr:
            process.stderr.close()
    assert failures == []

    data = manifest.load(outputs_root, TOPIC)
    assert data["title"] == "春天怎么穿"
    assert data["summary"] == "一句话摘要"
    assert data["platform"] == "小红书"
    assert data["kind"] == "cards"
    assert data["status"] == "ready"
    assert data["tags"] == ["春天", "穿搭"]
    assert data["cover"] == "cover.png"
    assert data["deliverables"] == ["card_1.png", "card_2.png"]
    assert data["profile"] == "咖啡店主"
    assert sorted(step["skill"] for step in data["steps"]) == sorted(
        f"writer-{index}" for index in range(11)
    )
    assert sorted(p.name for p in (outputs_root / TOPIC).iterdir()) == [".easel.json"]


def test_a_writer_waits_while_another_holds_the_lock(outputs_root: Path) -> None:
    manifest.upsert_meta(outputs_root, TOPIC, title="原标题")
    path = manifest_file(outputs_root)
    with manifest.locked(path):
        waiting = subprocess.Popen(
            [sys.executable, str(SCRIPTS_DIR / "manifest.py"), "--root", str(outputs_root),
             "meta", "--topic", TOPIC, "--title", "新标题"],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        time.sleep(0.8)
        assert waiting.poll() is None
        assert manifest.load(outputs_root, TOPIC)["title"] == "原标题"
    assert waiting.wait(timeout=30) == 0
    assert manifest.load(outputs_root, TOPIC)["title"] == "新标题"


def test_without_fcntl_an_exclusive_lock_file_serialises_writers(
    outputs_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(manifest, "fcntl", None)
    errors: list[BaseException] = []

    def write(index: int) -> None:
        try:
            manifest.record_step(outputs_root, TOPIC, "produce", f"writer-{index}")
        except BaseException as error:  # collected: a thread cannot fail the test itself
            errors.append(error)

    threads = [threading.Thread(target=write, args=(index,)) for index in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert len(manifest.load(outputs_root, TOPIC)["steps"]) == 20
    assert sorted(p.name for p in (outputs_root / TOPIC).iterdir()) == [".easel.json"]


def test_without_fcntl_a_stale_lock_times_out_with_a_clear_error(
    outputs_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(manifest, "fcntl", None)
    monkeypatch.setattr(manifest, "LOCK_TIMEOUT_SECONDS", 0.2)
    (outputs_root / TOPIC).mkdir()
    stale = outputs_root / TOPIC / ".easel.json.lock"
    stale.write_text("12345", encoding="utf-8")
    with pytest.raises(manifest.ManifestLockTimeout, match="锁"):
        manifest.upsert_meta(outputs_root, TOPIC, title="x")
    assert not manifest_file(outputs_root).exists()


def test_the_module_loads_by_file_path_from_another_folder(tmp_path: Path) -> None:
    """easel-ls loads manifest.py with importlib; its sibling output_paths must still resolve."""
    program = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('easel_manifest', {str(SCRIPTS_DIR / 'manifest.py')!r})\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(module)\n"
        "print(module.dumps(module.apply_meta({}, '咖啡测评', {'kind': 'video'})), end='')\n"
        "module.upsert_meta('outputs', 'xhs')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert json.loads(result.stdout)["kind"] == "video"
    assert "InvalidArgument" in result.stderr  # output_paths was found and rejected "xhs"
    assert not (tmp_path / "outputs").exists()
