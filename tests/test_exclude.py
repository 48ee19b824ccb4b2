"""`exclude` and `extend-exclude`: gitignore patterns, relative to the workspace root, that a
walk leaves out; a path named on the command line is checked all the same unless
`--force-exclude` (ruff's rules for the same settings)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from easel_ls.config import ConfigResolver, Exclusion
from easel_ls.workspace import Workspace

BROKEN = (
    "---\nname: {name}\ndescription: 写点东西。\nlayer: produce\n---\n\n见 [缺](missing.md)。\n"
)


def test_a_pattern_without_a_slash_names_a_file_or_folder_anywhere() -> None:
    exclusion = Exclusion(["archive", "*.bak.md", "drafts/"])
    assert exclusion.excludes("archive", True)
    assert exclusion.excludes("skills/openclaw/x/archive", True)
    assert exclusion.excludes("skills/openclaw/x/references/old.bak.md", False)
    assert exclusion.excludes("notes/drafts", True)
    assert not exclusion.excludes("notes/drafts", False)  # `drafts/`: folders only
    assert not exclusion.excludes("skills/openclaw/archiver", True)
    assert not exclusion.excludes("skills/openclaw/x/SKILL.md", False)


def test_a_pattern_with_a_slash_is_anchored_at_the_workspace_root() -> None:
    exclusion = Exclusion(["tests/fixtures", "/vendor/", "docs/**/draft-*.md"])
    assert exclusion.excludes("tests/fixtures", True)
    assert not exclusion.excludes("skills/openclaw/x/tests/fixtures", True)
    assert exclusion.excludes("vendor", True)
    assert not exclusion.excludes("skills/vendor", True)
    assert exclusion.excludes("docs/a/b/draft-1.md", False)
    assert not exclusion.excludes("docs/a/b/final.md", False)


def test_an_exception_brings_a_file_back() -> None:
    exclusion = Exclusion(["*.md", "!SKILL.md"])
    assert exclusion.excludes("skills/openclaw/x/references/a.md", False)
    assert not exclusion.excludes("skills/openclaw/x/SKILL.md", False)


def test_a_path_below_an_excluded_folder_is_excluded() -> None:
    exclusion = Exclusion(["examples"])
    assert exclusion.excludes_path("docs/examples/ws/skills/openclaw/x/SKILL.md", False)
    assert not exclusion.excludes_path("docs/example.md", False)


def test_blank_lines_and_comments_are_no_patterns() -> None:
    assert Exclusion(["", "  ", "# a note"]).patterns == ()


def _workspace(root: Path, config: str = "") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "easel-ls.toml").write_text(config, "utf-8")
    for rel in (
        "skills/openclaw/kept/SKILL.md",
        "skills/openclaw/kept/references/old.bak.md",
        "archive/skills/openclaw/gone/SKILL.md",
        "tests/fixtures/ws/skills/openclaw/fixture/SKILL.md",
        "node_modules/pkg/README.md",
    ):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(BROKEN.format(name=path.parent.name), "utf-8")
    return root


def _walked(root: Path, **options: list[str]) -> list[str]:
    overrides = {"options": options} if options else None
    ws = Workspace(root=root, config=ConfigResolver(stop_at=root, overrides=overrides))
    return sorted(p.relative_to(root).as_posix() for p in ws.iter_files([root]))


def test_the_walk_leaves_out_the_defaults_and_the_configured_patterns(tmp_path: Path) -> None:
    root = _workspace(tmp_path, 'extend-exclude = ["archive", "/tests/fixtures", "*.bak.md"]\n')
    assert _walked(root) == ["easel-ls.toml", "skills/openclaw/kept/SKILL.md"]


def test_exclude_replaces_the_defaults_and_extend_exclude_adds_to_them(tmp_path: Path) -> None:
    root = _workspace(tmp_path, 'exclude = ["archive"]\n')
    walked = _walked(root)
    assert "node_modules/pkg/README.md" in walked  # no longer a default exclusion
    assert not any(rel.startswith("archive/") for rel in walked)
    # The command line's extend-exclude adds to the config's.
    root2 = _workspace(tmp_path / "second", 'extend-exclude = ["archive"]\n')
    walked = _walked(root2, **{"extend-exclude": ["/tests/"]})
    assert walked == [
        "easel-ls.toml",
        "skills/openclaw/kept/SKILL.md",
        "skills/openclaw/kept/references/old.bak.md",
    ]


def test_a_nested_config_excludes_below_its_own_folder(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    (root / "tests/fixtures/ws/easel-ls.toml").write_text('extend-exclude = ["fixture"]\n', "utf-8")
    walked = _walked(root)
    assert "tests/fixtures/ws/skills/openclaw/fixture/SKILL.md" not in walked
    assert "archive/skills/openclaw/gone/SKILL.md" in walked  # the root config excludes nothing


def _easel_check(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`easel-ls check ARGS` run in ``cwd``, as a user would."""
    return subprocess.run(
        [sys.executable, "-m", "easel_ls", "check", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


KEPT = ["skills/openclaw/kept/SKILL.md", "skills/openclaw/kept/references/old.bak.md"]


def _check(root: Path, *args: str) -> list[str]:
    result = _easel_check(root, *args, "--output-format", "json")
    assert result.returncode in (0, 1), result.stderr
    return sorted(
        {
            (root / f["filename"]).resolve().relative_to(root).as_posix()
            for f in json.loads(result.stdout)
        }
    )


def test_check_leaves_out_excluded_files_unless_named(tmp_path: Path) -> None:
    root = _workspace(tmp_path.resolve(), 'extend-exclude = ["archive", "/tests/"]\n')
    assert _check(root, ".", "--no-cache") == KEPT
    named = "archive/skills/openclaw/gone/SKILL.md"
    assert _check(root, named, "--no-cache") == [named]  # named on the command line: checked
    assert _check(root, named, "--no-cache", "--force-exclude") == []
    # A folder named although excluded (`/tests/`, a pattern naming it) is checked whole.
    fixture = "tests/fixtures/ws/skills/openclaw/fixture/SKILL.md"
    assert _check(root, "tests", "--no-cache") == [fixture]
    assert _check(root, "tests", "--no-cache", "--force-exclude") == []


def test_exclude_flags_on_the_command_line(tmp_path: Path) -> None:
    root = _workspace(tmp_path.resolve())
    everything = _check(root, ".", "--no-cache")
    assert "archive/skills/openclaw/gone/SKILL.md" in everything
    assert _check(root, ".", "--no-cache", "--extend-exclude", "archive, tests") == KEPT
    assert _check(root, "--no-cache", "--exclude=/skills/", ".") == [
        "archive/skills/openclaw/gone/SKILL.md",
        "tests/fixtures/ws/skills/openclaw/fixture/SKILL.md",
    ]


def test_show_settings_lists_the_patterns(tmp_path: Path) -> None:
    root = _workspace(tmp_path, 'extend-exclude = ["archive"]\n')
    result = _easel_check(root, ".", "--show-settings")
    options = json.loads(result.stdout)["options"]
    assert options["extend-exclude"] == ["archive"]
    assert ".git" in options["exclude"]


@pytest.mark.parametrize("value", ["3", "[1, 2]", "true"])
def test_a_pattern_list_of_the_wrong_type_is_a_config_error(tmp_path: Path, value: str) -> None:
    (tmp_path / "easel-ls.toml").write_text(f"extend-exclude = {value}\n", "utf-8")
    result = _easel_check(tmp_path, ".")
    assert result.returncode == 2
    assert "`extend-exclude` must be a list of strings" in result.stderr


@pytest.mark.parametrize("pattern", ["!", "[z-a]", "a\\"])
def test_a_pattern_that_is_no_gitignore_pattern_is_a_clear_error(
    tmp_path: Path, pattern: str
) -> None:
    (tmp_path / "easel-ls.toml").write_text(f"extend-exclude = [{json.dumps(pattern)}]\n", "utf-8")
    configured = _easel_check(tmp_path, ".")
    assert configured.returncode == 2
    assert f"`extend-exclude`: `{pattern}` is not a .gitignore pattern" in configured.stderr
    assert "Traceback" not in configured.stderr
    (tmp_path / "easel-ls.toml").write_text("", "utf-8")
    flag = _easel_check(tmp_path, ".", "--exclude", f"ok,{pattern}")
    assert flag.returncode == 2
    assert f"`{pattern}` is not a .gitignore pattern" in flag.stderr
    assert "Traceback" not in flag.stderr
