"""The `easel-ls` pre-commit hook (.pre-commit-hooks.yaml), run by pre-commit itself on a fixture
repository: it installs this project as the hook's environment, fails a commit that leaves a
SKILL.md command calling an option its script does not define, passes once the option is fixed,
and does not run when no skill file is staged."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from e2e.e2e_tools import copy_fixture_workspace

REPO = Path(__file__).resolve().parent.parent
SKILL = Path("skills/openclaw/card-maker/SKILL.md")
# What pip needs to build the project as the hook's environment.
PROJECT_FILES = ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml")

pytest.importorskip("pre_commit", reason="pre-commit is not installed (pip install pre-commit)")


def git(cwd: Path, *args: str) -> str:
    ran = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return ran.stdout.strip()


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """This project (hooks file and package) committed into a throwaway repository, since
    pre-commit installs hooks from a git revision."""
    repo = tmp_path_factory.mktemp("hook-repo")
    for name in PROJECT_FILES:
        shutil.copy2(REPO / name, repo / name)
    shutil.copytree(
        REPO / "easel_ls", repo / "easel_ls", ignore=shutil.ignore_patterns("__pycache__")
    )
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "hook")
    return repo, git(repo, "rev-parse", "HEAD")


@pytest.fixture()
def skills_repo(tmp_path: Path, hook_repo: tuple[Path, str]) -> Path:
    """A repository of skills whose card-maker SKILL.md calls `check --sise` (the script
    defines `--size`), configured to run the easel-ls hook for the commands rules only."""
    repo = tmp_path / "skills-repo"
    copy_fixture_workspace(repo)
    hook_path, rev = hook_repo
    (repo / ".pre-commit-config.yaml").write_text(
        "repos:\n"
        f"  - repo: {hook_path.as_posix()}\n"
        f"    rev: {rev}\n"
        "    hooks:\n"
        "      - id: easel-ls\n"
        "        args: [--select, CM, --no-cache, --output-format, concise]\n",
        encoding="utf-8",
    )
    git(repo, "init", "-q")
    return repo


def pre_commit(repo: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PRE_COMMIT_HOME=str(home), PRE_COMMIT_COLOR="never")
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One hook environment for the module: pre-commit builds it once per repo and rev."""
    return tmp_path_factory.mktemp("pre-commit-home")


def test_hook_fails_on_a_drifted_option_and_passes_once_fixed(
    skills_repo: Path, pre_commit_home: Path
) -> None:
    git(skills_repo, "add", "-A")
    failed = pre_commit(skills_repo, pre_commit_home, "run")
    output = failed.stdout + failed.stderr
    assert failed.returncode == 1, output
    assert "easel-ls" in output and "Failed" in output
    assert f"{SKILL.as_posix()}:47:41: CM002" in output
    assert "Found 1 error." in output  # `easel-ls check`'s summary

    skill = skills_repo / SKILL
    skill.write_text(skill.read_text(encoding="utf-8").replace("--sise", "--size"), "utf-8")
    git(skills_repo, "add", "-A")
    passed = pre_commit(skills_repo, pre_commit_home, "run")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout


def test_hook_is_skipped_when_no_skill_file_is_staged(
    skills_repo: Path, pre_commit_home: Path
) -> None:
    (skills_repo / "NOTES.txt").write_text("not a skill file\n", encoding="utf-8")
    git(skills_repo, "add", "NOTES.txt")
    skipped = pre_commit(skills_repo, pre_commit_home, "run")
    assert skipped.returncode == 0, skipped.stdout + skipped.stderr
    assert "(no files to check)Skipped" in skipped.stdout
