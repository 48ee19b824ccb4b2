"""output_paths: products go to outputs/<主题>/…, system state to registered _ folders."""

from __future__ import annotations

from pathlib import Path

import output_paths
import pytest
from output_paths import OutputPathError, validate_output_path
from shared_script_runner import run_script


def test_constants_follow_the_spec() -> None:
    assert output_paths.SYSTEM_DIRS == (
        "_login",
        "_publish",
        "_analytics",
        "_profile_build",
        "_scratch",
    )
    assert set(output_paths.GENERIC_PROJECT_NAMES) == {
        "xhs", "test", "tmp", "temp", "demo", "output", "outputs", "result", "results", "主题名",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("path", "allow_system"),
    [
        ("outputs/春日穿搭/note.md", False),
        ("outputs/春日穿搭", False),
        ("outputs/春日穿搭/assets/frames/f_001.png", False),
        ("outputs/春日穿搭/.easel.json", False),
        ("outputs/Python 3.12 新特性/note.md", False),
        ("/srv/easel/outputs/咖啡测评/card_1.png", False),
        ("outputs/_scratch/try.md", True),
        ("outputs/_analytics/2024-05.json", True),
        ("outputs/_login", True),
    ],
)
def test_valid_output_paths_are_returned_normalised(path: str, allow_system: bool) -> None:
    assert validate_output_path(path, allow_system) == Path(path)


def test_dot_segments_are_resolved_before_checking() -> None:
    assert validate_output_path("outputs/春日穿搭/assets/../note.md") == Path(
        "outputs/春日穿搭/note.md"
    )


@pytest.mark.parametrize(
    ("path", "allow_system", "reason"),
    [
        ("notes/a.md", False, "不在 outputs/ 下"),
        ("", False, "为空"),
        ("outputs/a/../../etc/passwd", False, "不在 outputs/ 下"),
        ("outputs", False, "outputs/ 本身"),
        ("outputs/.cache/x.md", False, "隐藏"),
        ("outputs/春日穿搭/.draft.md", False, "隐藏"),
        ("outputs/春日穿搭/assets/.easel.json", False, "隐藏"),
        ("outputs/note.md", False, "根目录"),
        ("outputs/xhs/note.md", False, "太泛"),
        ("outputs/Test/note.md", False, "太泛"),
        ("outputs/results", False, "太泛"),
        ("outputs/主题名/note.md", False, "太泛"),
        ("outputs/_scratch/x.md", False, "allow_system=True"),
        ("outputs/_cache/x.md", True, "未注册"),
        ("outputs/_cache/x.md", False, "未注册"),
    ],
)
def test_invalid_output_paths_raise_a_clear_chinese_message(
    path: str, allow_system: bool, reason: str
) -> None:
    with pytest.raises(OutputPathError, match=reason):
        validate_output_path(path, allow_system)


def test_an_existing_file_directly_in_outputs_is_rejected_even_without_suffix(
    tmp_path: Path,
) -> None:
    stray = tmp_path / "outputs" / "README"
    stray.parent.mkdir()
    stray.write_text("x", encoding="utf-8")
    with pytest.raises(OutputPathError, match="根目录"):
        validate_output_path(stray)
    (tmp_path / "outputs" / "Node.md").mkdir()  # an existing folder is a project
    assert validate_output_path(tmp_path / "outputs" / "Node.md")


def test_a_custom_root_replaces_the_outputs_component(tmp_path: Path) -> None:
    library = tmp_path / "library"
    assert validate_output_path(library / "咖啡测评" / "note.md", root=library)
    with pytest.raises(OutputPathError, match="不在"):
        validate_output_path(tmp_path / "elsewhere" / "咖啡测评", root=library)
    with pytest.raises(OutputPathError, match="太泛"):
        validate_output_path(library / "demo", root=library)


def test_cli_prints_the_path_or_one_line_and_exit_1() -> None:
    ok = run_script("output_paths.py", "outputs/春日穿搭/note.md")
    assert (ok.returncode, ok.stdout.strip()) == (0, "outputs/春日穿搭/note.md")
    bad = run_script("output_paths.py", "outputs/xhs/note.md")
    assert bad.returncode == 1
    assert bad.stdout == ""
    assert len(bad.stderr.strip().splitlines()) == 1 and "太泛" in bad.stderr
    system = run_script("output_paths.py", "outputs/_publish/state.json", "--system")
    assert system.returncode == 0
    assert run_script("output_paths.py", "outputs/_publish/state.json").returncode == 1


def test_cli_rejects_bad_arguments_with_exit_2() -> None:
    assert run_script("output_paths.py").returncode == 2
    assert run_script("output_paths.py", "outputs/a/b.md", "--bogus").returncode == 2


def test_selftest_passes() -> None:
    result = run_script("output_paths.py", "selftest")
    assert (result.returncode, result.stdout.strip()) == (0, "output_paths selftest: OK")
