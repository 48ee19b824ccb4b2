"""PB — publish and output safety contracts, read from scripts (never run) and documented commands."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from easel_ls.findings import Finding

PUBLISH_DIR = "skills/openclaw/xhs-publish"
CARDS_DIR = "skills/openclaw/card-maker"


def skill_md(name: str, layer: str, body: str = "# 技能\n") -> str:
    return (
        f"---\nname: {name}\ndescription: >-\n"
        "  把已完成的小红书图文笔记安全地发布出去，适用场景：用户说“发布”“发到小红书”。\n"
        "  不负责改文案或出图，发布后的数据复盘交给 `publish-review`，改文案请用 `xhs-note-plan`。\n"
        f"layer: {layer}\n---\n\n{body}"
    )


Lint = Callable[..., list[Finding]]


@pytest.fixture
def lint(make_workspace, check) -> Lint:
    """PB findings for ``target`` in a workspace with a publish-layer and a produce-layer skill."""

    def run(files: dict[str, str], target: str) -> list[Finding]:
        base = {
            f"{PUBLISH_DIR}/SKILL.md": skill_md("xhs-publish", "publish"),
            f"{CARDS_DIR}/SKILL.md": skill_md("card-maker", "produce"),
        }
        ws = make_workspace({**base, **files})
        return [f for f in check(ws, target) if f.code.startswith("PB")]

    return run


def where(finding: Finding) -> tuple[int, int, int, int]:
    r = finding.range
    return (r.start.line, r.start.character, r.end.line, r.end.character)


# -- PB001 publish-unguarded -----------------------------------------------------------------

EXEC_SCRIPT = """\
import argparse

from xhs_client import post_note


def main() -> None:
    parser = argparse.ArgumentParser(description="发布小红书笔记 🚀")
    parser.add_argument("--topic", required=True)
    parser.add_argument("--exec", action="store_true", help="真发")
    args = parser.parse_args()
    print(args.topic)
"""

GUARDED = EXEC_SCRIPT.replace(
    "import argparse\n", "import argparse\n\nfrom content_guard import guard_or_die\n"
).replace("    print(args.topic)\n", "    guard_or_die([args.topic], exec_mode=args.exec)\n")


def test_pb001_script_with_exec_option_and_no_guard(lint: Lint) -> None:
    path = f"{CARDS_DIR}/scripts/share.py"
    [finding] = lint({path: EXEC_SCRIPT}, path)
    assert finding.code == "PB001"
    line = '    parser.add_argument("--exec", action="store_true", help="真发")'
    assert where(finding) == (8, 4, 8, len(line))
    assert "--exec" in finding.message


def test_pb001_spares_an_exec_script_that_cannot_send_anything(lint: Lint) -> None:
    """Seen in a real skill: a queue whose `--exec` marks items and prints the plan; the
    platform skills it hands them to publish (and guard) themselves."""
    script = EXEC_SCRIPT.replace("from xhs_client import post_note\n", "import json\n")
    path = f"{CARDS_DIR}/scripts/queue.py"
    assert lint({path: script}, path) == []


@pytest.mark.parametrize(
    "sender",
    [
        "import requests",
        "from playwright.sync_api import sync_playwright",
        "import subprocess",
        "from . import client",
    ],
)
def test_pb001_an_exec_script_that_can_send_needs_the_guard(lint: Lint, sender: str) -> None:
    script = EXEC_SCRIPT.replace("from xhs_client import post_note", sender)
    path = f"{CARDS_DIR}/scripts/share.py"
    assert [f.code for f in lint({path: script}, path)] == ["PB001"]


def test_pb001_spares_a_script_that_calls_guard_or_die(lint: Lint) -> None:
    path = f"{PUBLISH_DIR}/scripts/publish.py"
    assert lint({path: GUARDED}, path) == []


def test_pb001_spares_exec_mentioned_only_in_help_text(lint: Lint) -> None:
    script = EXEC_SCRIPT.replace(
        'parser.add_argument("--exec", action="store_true", help="真发")',
        'parser.add_argument("--dry-run", action="store_true", help="不加 --exec 时只预览")',
    )
    path = f"{CARDS_DIR}/scripts/share.py"
    assert lint({path: script}, path) == []


POSTING_SCRIPT = """\
import requests


def publish(note: dict) -> None:
    print("🚀发布中"); requests.post("https://api.example.com/notes", json=note)
"""


def test_pb001_publish_layer_script_that_posts_without_guard(lint: Lint) -> None:
    path = f"{PUBLISH_DIR}/scripts/upload.py"
    [finding] = lint({path: POSTING_SCRIPT}, path)
    assert finding.code == "PB001"
    line = POSTING_SCRIPT.splitlines()[4]
    start = line.index("requests.post")
    assert where(finding) == (4, start, 4, len(line))  # the call ends the line


def test_pb001_reading_a_url_is_not_posting(lint: Lint) -> None:
    """Seen in a real skill: a short-link helper that only GETs a public shortener."""
    script = (
        "import urllib.request\n\n\n"
        "def shorten(url: str) -> str:\n"
        '    request = urllib.request.Request("https://short.example/api?url=" + url)\n'
        "    with urllib.request.urlopen(request) as response:\n"
        '        return response.read().decode("utf-8")\n'
    )
    path = f"{PUBLISH_DIR}/scripts/shorten.py"
    assert lint({path: script}, path) == []
    sending = script.replace("+ url)", '+ url, data=b"x", method="POST")')
    assert [f.code for f in lint({path: sending}, path)] == ["PB001"]


def test_pb001_spares_posting_from_a_skill_outside_the_publish_layer(lint: Lint) -> None:
    path = f"{CARDS_DIR}/scripts/upload.py"
    assert lint({path: POSTING_SCRIPT}, path) == []


def test_pb001_spares_a_publish_layer_script_that_never_posts(lint: Lint) -> None:
    path = f"{PUBLISH_DIR}/scripts/check.py"
    script = "import json\n\n\ndef check(note: dict) -> str:\n    return json.dumps(note)\n"
    assert lint({path: script}, path) == []


def test_pb001_spares_a_script_that_does_not_parse(lint: Lint) -> None:
    path = f"{CARDS_DIR}/scripts/broken.py"
    assert lint({path: EXEC_SCRIPT + "def (:\n"}, path) == []


# -- PB002 allow-unsafe-documented -----------------------------------------------------------

PUBLISH_PY = f"{PUBLISH_DIR}/scripts/publish.py"
PUBLISH_CLI = """\
import argparse

from content_guard import guard_or_die


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--topic", required=True)
    parser.add_argument("--exec", action="store_true")
    parser.add_argument("--allow-unsafe", action="store_true")
    args = parser.parse_args()
    guard_or_die([args.topic], exec_mode=args.exec, allow_unsafe=args.allow_unsafe)


if __name__ == "__main__":
    main()
"""


def test_pb002_documented_command_passing_allow_unsafe(lint: Lint) -> None:
    line = (
        "python skills/openclaw/xhs-publish/scripts/publish.py --topic <主题> --exec --allow-unsafe"
    )
    body = f"# 发布\n\n3. 真发 🚀：\n\n```bash\n{line}\n```\n"
    files = {
        f"{PUBLISH_DIR}/SKILL.md": skill_md("xhs-publish", "publish", body),
        PUBLISH_PY: PUBLISH_CLI,
    }
    [finding] = lint(files, f"{PUBLISH_DIR}/SKILL.md")
    assert finding.code == "PB002"
    row = files[f"{PUBLISH_DIR}/SKILL.md"].splitlines().index(line)
    col = line.index("--allow-unsafe")
    assert where(finding) == (row, col, row, col + len("--allow-unsafe"))


def test_pb002_in_a_reference_and_in_an_inline_command(lint: Lint) -> None:
    ref = f"{PUBLISH_DIR}/references/outbound-safety.md"
    text = (
        "# 出站内容安全\n\n"
        "放行：`python skills/openclaw/xhs-publish/scripts/publish.py --topic x --allow-unsafe`\n"
    )
    [finding] = lint({ref: text, PUBLISH_PY: PUBLISH_CLI}, ref)
    assert finding.code == "PB002"
    assert finding.range.start.line == 2


def test_pb002_spares_prose_that_names_the_option(lint: Lint) -> None:
    body = "# 发布\n\n不要替用户加 `--allow-unsafe`，也不要把放行参数写进命令。\n"
    files = {
        f"{PUBLISH_DIR}/SKILL.md": skill_md("xhs-publish", "publish", body),
        PUBLISH_PY: PUBLISH_CLI,
    }
    assert lint(files, f"{PUBLISH_DIR}/SKILL.md") == []


# -- PB003 output-write-unvalidated ----------------------------------------------------------

WRITER = """\
from pathlib import Path


def save(topic: str, text: str) -> None:
    卡片目录 = Path("outputs/") / topic
    (卡片目录 / "note.md").write_text(text, encoding="utf-8")
"""


def test_pb003_write_under_outputs_without_validation_points_at_the_literal(lint: Lint) -> None:
    path = f"{CARDS_DIR}/scripts/save.py"
    [finding] = lint({path: WRITER}, path)
    assert finding.code == "PB003"
    line = WRITER.splitlines()[4]
    col = line.index('"outputs/"')  # in code points, after a CJK identifier
    assert where(finding) == (4, col, 4, col + len('"outputs/"'))


def test_pb003_spares_a_script_that_validates(lint: Lint) -> None:
    path = f"{CARDS_DIR}/scripts/save.py"
    script = WRITER.replace(
        "from pathlib import Path\n",
        "from pathlib import Path\n\nfrom output_paths import validate_output_path\n",
    ).replace("    (卡片目录", "    validate_output_path(卡片目录)\n    (卡片目录")
    assert lint({path: script}, path) == []


def test_pb003_spares_a_script_that_only_reads_outputs(lint: Lint) -> None:
    path = f"{CARDS_DIR}/scripts/read.py"
    script = (
        "from pathlib import Path\n\n\n"
        "def load(topic: str) -> str:\n"
        '    return (Path("outputs") / topic / "note.md").read_text(encoding="utf-8")\n'
    )
    assert lint({path: script}, path) == []


def test_pb003_spares_writes_that_never_mention_outputs(lint: Lint) -> None:
    path = f"{CARDS_DIR}/scripts/cache.py"
    script = 'from pathlib import Path\n\nPath("/tmp/cards").mkdir(exist_ok=True)\n'
    assert lint({path: script}, path) == []


def test_pb003_spares_the_shared_modules_that_define_the_outputs_contract(lint: Lint) -> None:
    # A workspace's own manifest.py writes `.easel.json` under outputs/ by design.
    path = "skills/shared/scripts/manifest.py"
    assert lint({path: WRITER}, path) == []


def test_pb003_still_judges_other_shared_scripts(lint: Lint) -> None:
    path = "skills/shared/scripts/calendar_store.py"
    [finding] = lint({path: WRITER}, path)
    assert finding.code == "PB003"


def test_pb003_spares_an_outputs_path_that_only_a_selftest_asserts_on(lint: Lint) -> None:
    path = f"{CARDS_DIR}/scripts/post.py"
    script = (
        "import tempfile\nfrom pathlib import Path\n\n\n"
        "def selftest() -> int:\n"
        "    with tempfile.TemporaryDirectory() as folder:\n"
        '        (Path(folder) / "a.md").write_text("x", encoding="utf-8")\n'
        '    assert Path("outputs/sample/answer.md").parts[0] == "outputs"\n'
        "    return 0\n"
    )
    assert lint({path: script}, path) == []


def test_pb003_an_outputs_write_outside_the_selftest_is_still_reported(lint: Lint) -> None:
    path = f"{CARDS_DIR}/scripts/post.py"
    script = (
        "from pathlib import Path\n\n\n"
        "def selftest() -> int:\n"
        "    return 0\n\n\n"
        "def save(text: str) -> None:\n"
        '    Path("outputs/_login/qr.png").write_text(text)\n'
    )
    [finding] = lint({path: script}, path)
    assert finding.code == "PB003"
