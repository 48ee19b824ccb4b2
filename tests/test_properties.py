"""Property tests: arbitrary text as SKILL.md, frontmatter, references and command lines never
raises, always yields ranges inside the document, and is deterministic."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from easel_ls.config import ConfigResolver
from easel_ls.engine import check_document
from easel_ls.model.text import TextDocument
from easel_ls.workspace import Workspace

ALPHABET = st.characters(blacklist_categories=("Cs",))
FRAGMENTS = st.sampled_from(
    [
        "---\n",
        "name: x\n",
        "description: >-\n  中文描述😀\n",
        "layer: plan\n",
        "## 输入\n",
        "```bash\n",
        "```\n",
        "python skills/shared/scripts/tool.py run --topic <主题> \\\n",
        "  --mode fast && echo ok\n",
        "`python scripts/a.py --x`",
        "[a](references/x.md)",
        "<!-- easel-ls-disable-next-line CM002 -->\n",
        "> - ```sh\n",
        "\r\n",
        "\t",
        "metadata:\n",
        "  openclaw:\n    os: [beos]\n",
        "&a [*a, *a]\n",
        "key: : bad\n",
        "- list\n",
        "# easel-ls: ignore[XX1]\n",
    ]
)
TEXTS = st.one_of(
    st.text(ALPHABET, max_size=400),
    st.lists(st.one_of(FRAGMENTS, st.text(ALPHABET, max_size=20)), max_size=40).map("".join),
)

TOOL = """import argparse
p = argparse.ArgumentParser()
s = p.add_subparsers(dest="cmd", required=True)
r = s.add_parser("run")
r.add_argument("--topic", required=True)
r.add_argument("--mode", choices=["fast", "slow"])
p.parse_args()
"""


def _workspace(tmp: Path) -> Workspace:
    skill = tmp / "skills/openclaw/x"
    (skill / "references").mkdir(parents=True, exist_ok=True)
    (tmp / "skills/shared/scripts").mkdir(parents=True, exist_ok=True)
    (tmp / "skills/shared/scripts/tool.py").write_text(TOOL, encoding="utf-8")
    (skill / "SKILL.md").write_text("---\nname: x\n---\n", encoding="utf-8")
    return Workspace(root=tmp.resolve(), config=ConfigResolver(stop_at=tmp.resolve()))


def _assert_sound(ws: Workspace, doc: TextDocument) -> None:
    first = check_document(ws, doc)
    second = check_document(ws, TextDocument(doc.path, doc.text))
    assert [(f.code, f.range, f.message) for f in first] == [
        (f.code, f.range, f.message) for f in second
    ]
    for finding in first:
        assert finding.code != "EZ003", finding.message
        if finding.path == doc.path:
            assert doc.contains(finding.range), (finding.code, finding.range)
        for fix in finding.fixes:
            for edit in fix.edits:
                if edit.path == doc.path:
                    assert doc.contains(edit.range), (finding.code, edit.range)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=TEXTS)
def test_any_skill_md_is_analysed_soundly(tmp_path_factory, text: str) -> None:  # type: ignore[no-untyped-def]
    ws = _workspace(tmp_path_factory.mktemp("ws"))
    _assert_sound(ws, TextDocument(ws.root / "skills/openclaw/x/SKILL.md", text))


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=TEXTS)
def test_any_reference_is_analysed_soundly(tmp_path_factory, text: str) -> None:  # type: ignore[no-untyped-def]
    ws = _workspace(tmp_path_factory.mktemp("ws"))
    _assert_sound(ws, TextDocument(ws.root / "skills/openclaw/x/references/r.md", text))


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    args=st.lists(
        st.one_of(
            st.sampled_from(
                [
                    "run",
                    "--topic",
                    "--mode",
                    "fast",
                    "<主题>",
                    "--",
                    "-h",
                    "--mo=slow",
                    "[--mode",
                    "x]",
                    "'a b'",
                    '"',
                    "\\",
                ]
            ),
            st.text(ALPHABET, max_size=8),
        ),
        max_size=10,
    )
)
def test_any_command_line_is_analysed_soundly(tmp_path_factory, args: list[str]) -> None:  # type: ignore[no-untyped-def]
    ws = _workspace(tmp_path_factory.mktemp("ws"))
    line = "python skills/shared/scripts/tool.py " + " ".join(args)
    text = (
        ws.root / "skills/openclaw/x/SKILL.md"
    ).read_text() + f"```bash\n{line}\n```\n`{line}`\n"
    _assert_sound(ws, TextDocument(ws.root / "skills/openclaw/x/SKILL.md", text))
