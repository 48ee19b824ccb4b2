"""`easel-ls check --watch`, run as a user runs it: a real file change in a subprocess, the
report printed again with what the change affects, Ctrl-C ending it cleanly."""

from __future__ import annotations

import contextlib
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from cli_tools import environment, make_workspace

SKILL = "skills/openclaw/card-maker/SKILL.md"
SCRIPT = "skills/openclaw/card-maker/scripts/render.py"
DEADLINE_S = 60  # for one report; a report normally follows a change within a second


class Watching:
    """`easel-ls check --watch` in a subprocess; its stdout and stderr read line by line."""

    def __init__(self, cwd: Path, *args: str) -> None:
        command = [sys.executable, "-m", "easel_ls", "check", "--watch", *args]
        self.process = subprocess.Popen(
            command,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=environment(),
        )
        self.stdout: queue.Queue[str] = queue.Queue()
        self.stderr: queue.Queue[str] = queue.Queue()
        self.pumps = [
            threading.Thread(target=self._pump, args=(stream, lines), daemon=True)
            for stream, lines in (
                (self.process.stdout, self.stdout),
                (self.process.stderr, self.stderr),
            )
        ]
        for pump in self.pumps:
            pump.start()

    @staticmethod
    def _pump(stream: object, lines: queue.Queue[str]) -> None:
        for line in stream:  # type: ignore[attr-defined]
            lines.put(line)

    def report(self) -> tuple[list[str], str]:
        """The next report (stdout lines up to its summary) and the status line that follows
        it on stderr (``… Watching for file changes``)."""
        lines = [self._line(self.stdout, "a report", [])]
        while not lines[-1].startswith(("All checks passed!", "Found ")):
            lines.append(self._line(self.stdout, "a report", lines))
        note = self._line(self.stderr, "a status line", [])
        while "Watching for file changes" not in note:
            note = self._line(self.stderr, "a status line", [])
        if lines[-1].startswith("Found "):
            # The fix-count line after it was written before the status line.
            with contextlib.suppress(queue.Empty):
                lines.append(self.stdout.get(timeout=2).rstrip("\n"))
        return lines, note

    def _line(self, lines: queue.Queue[str], what: str, so_far: list[str]) -> str:
        try:
            line = lines.get(timeout=DEADLINE_S)
        except queue.Empty:
            pytest.fail(f"no {what} within {DEADLINE_S}s; so far {so_far}; {self.drain()}")
        return line.rstrip("\n")

    def drain(self) -> str:
        lines = []
        while not self.stderr.empty():
            lines.append(self.stderr.get())
        return "".join(lines)

    def interrupt(self) -> int:
        """Ctrl-C; the exit code, once everything it printed has been read."""
        self.process.send_signal(signal.SIGINT)
        code = self.process.wait(timeout=DEADLINE_S)
        for pump in self.pumps:
            pump.join(timeout=DEADLINE_S)
        return code

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    return make_workspace(tmp_path, script=True)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


HINT = "1 unsafe fix available with `--fix --unsafe-fixes`."


def test_editing_a_scripts_option_re_reports_the_skill_that_calls_it(workspace: Path) -> None:
    watching = Watching(workspace, "--output-format", "concise")
    try:
        report, note = watching.report()
        assert report == ["All checks passed!"]
        assert "Checked 3 files." in note

        # Rename the option the SKILL.md command passes: the SKILL.md itself does not change.
        _edit(workspace / SCRIPT, '"--size"', '"--sise"')
        report, note = watching.report()
        assert report == [
            f"{SKILL}:23:60: CM002 unknown option `--size` for `render`",
            "Found 1 error.",
            HINT,
        ]
        # Only what the change affects: the script and the SKILL.md that calls it.
        assert f"{SCRIPT} changed; re-checked 2 files." in note

        _edit(workspace / SCRIPT, '"--sise"', '"--size"')
        assert watching.report()[0] == ["All checks passed!"]

        assert watching.interrupt() == 0  # the last report was clean
        assert "Traceback" not in watching.drain()
    finally:
        watching.close()


def test_ctrl_c_exits_one_when_the_last_report_had_findings(workspace: Path) -> None:
    _edit(workspace / SCRIPT, '"--size"', '"--sise"')
    watching = Watching(workspace, "--output-format", "concise")
    try:
        assert watching.report()[0][-2:] == ["Found 1 error.", HINT]
        assert watching.interrupt() == 1
        assert "Traceback" not in watching.drain()
    finally:
        watching.close()


def test_creating_a_linked_reference_clears_the_broken_link(workspace: Path) -> None:
    _edit(
        workspace / SKILL,
        "1. 读取策划稿。",
        "1. 读取策划稿，规范见 [设计规范](references/design.md)。",
    )
    watching = Watching(workspace, "--output-format", "concise", "skills")
    try:
        first, _ = watching.report()
        assert "RS001 broken link: `references/design.md` does not exist" in first[0]
        reference = workspace / "skills/openclaw/card-maker/references/design.md"
        reference.parent.mkdir()
        reference.write_text("# 设计规范\n\n配色与字号。\n", encoding="utf-8")
        assert watching.report()[0] == ["All checks passed!"]
        assert watching.interrupt() == 0
    finally:
        watching.close()


def test_a_config_change_re_checks_everything(workspace: Path) -> None:
    _edit(workspace / SCRIPT, '"--size"', '"--sise"')
    watching = Watching(workspace, "--output-format", "concise")
    try:
        assert "Found 1 error." in watching.report()[0]
        (workspace / "pyproject.toml").write_text(
            '[tool.easel-ls]\nignore = ["CM002"]\n', encoding="utf-8"
        )
        report, note = watching.report()
        assert report == ["All checks passed!"]
        assert "pyproject.toml changed" in note
        assert watching.interrupt() == 0
    finally:
        watching.close()
