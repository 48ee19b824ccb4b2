"""CG — outbound content judged by content_guard: BLOCK categories are CG001 (an error in a
project's text deliverables, a warning in SKILL.md and references), WARN categories are CG002
(info, deliverables only: skills talk about OpenClaw by design)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from easel_ls.config import ConfigResolver
from easel_ls.findings import Applicability, Finding, Severity
from easel_ls.fixes import apply_edits
from easel_ls.model.text import TextDocument
from easel_ls.vendor import VENDOR_DIR
from easel_ls.workspace import Workspace

KEY = "sk-proj-" + "Q7fK2mXw9LpR4tZa8VbN3cYd6HsJ1gUe"
SKILL = "skills/openclaw/card-maker/SKILL.md"
FRONT = "---\nname: card-maker\ndescription: x\nlayer: produce\n---\n"

ARTICLE = """\
# 大模型是怎么“想”的

这篇科普介绍大模型的基本原理：它从海量文本里学会预测下一个词。
我们对比了 claude-sonnet-4 与 gpt-4o 的回答风格，也聊到“由 AI 生成”的内容该如何标注。
更多资料见 https://www.xiaohongshu.com/explore/abc123 和 outputs/AI科普/note.md。
"""


def cg(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.code.startswith("CG")]


def test_a_chinese_article_about_ai_yields_only_cg002(make_workspace, check) -> None:
    ws = make_workspace(
        {
            "outputs/AI科普/.easel.json": '{"topic": "AI科普", "deliverables": ["note.md"]}',
            "outputs/AI科普/note.md": ARTICLE,
        }
    )
    findings = check(ws, "outputs/AI科普/note.md")
    assert findings, "the AI wording must be noticed"
    assert {f.code for f in findings} == {"CG002"}
    assert all(f.severity is Severity.INFO for f in findings)
    excerpts = [
        ARTICLE.splitlines()[f.range.start.line][f.range.start.character :] for f in findings
    ]
    assert any(e.startswith("claude-sonnet-4") for e in excerpts)


def test_cg001_key_in_a_deliverable_is_an_error_at_its_span(make_workspace, check) -> None:
    text = f"配置：\nOPENAI_API_KEY={KEY}\n"
    ws = make_workspace({"outputs/春日/note.md": text})
    [name, finding] = cg(check(ws, "outputs/春日/note.md"))
    assert (finding.code, finding.severity) == ("CG001", Severity.ERROR)
    r = finding.range
    assert (r.start.line, r.start.character, r.end.character) == (1, 15, 15 + len(KEY))
    assert KEY not in finding.message  # the report never repeats the secret
    # a well-known variable name every tutorial mentions only warns
    assert (name.code, name.severity, name.range.end.character) == ("CG002", Severity.INFO, 14)
    assert "env_name_public" in name.message and "tutorial" in name.message


def test_cg001_redact_fix_uses_content_guard_text(make_workspace, check, tmp_path) -> None:
    text = f"token: {KEY} 完\n代理 socks5://127.0.0.1:1080\n"
    ws = make_workspace({"outputs/春日/note.md": text})
    findings = cg(check(ws, "outputs/春日/note.md"))
    assert [f.code for f in findings] == ["CG001", "CG001"]
    edits = [edit for f in findings for edit in f.fixes[0].edits]
    assert all(f.fixes[0].applicability is Applicability.UNSAFE for f in findings)
    fixed = apply_edits(TextDocument(tmp_path / "outputs/春日/note.md", text), edits)
    assert fixed == "token: [已隐藏] 完\n代理 [已隐藏]\n"


def test_cg001_json_caption(make_workspace, check) -> None:
    ws = make_workspace({"outputs/春日/caption.json": '{"caption": "内网 http://jenkins.corp/x"}'})
    [finding] = cg(check(ws, "outputs/春日/caption.json"))
    assert finding.code == "CG001"
    assert finding.range.start.character == 16


def test_cg_skips_assets_images_system_folders_and_the_manifest(make_workspace, check) -> None:
    leak = "日志在 /home/alice/easel/run.log\n"
    files = {
        "outputs/春日/assets/draft.md": leak,
        "outputs/春日/script.py": leak,
        "outputs/_scratch/x.md": leak,
        "outputs/春日/.easel.json": '{"topic": "春日", "summary": "/home/alice/x"}',
    }
    ws = make_workspace(files)
    for rel in files:
        assert cg(check(ws, rel)) == [], rel


def test_cg001_in_a_skill_is_a_warning_and_ai_wording_is_not_judged(make_workspace, check) -> None:
    body = "OpenClaw 调用大模型前读取 http://api.team.internal/v1 的配置。\n"
    ws = make_workspace({SKILL: FRONT + body})
    [finding] = cg(check(ws, SKILL))
    assert (finding.code, finding.severity) == ("CG001", Severity.WARNING)
    assert finding.range.start.line == 5


def test_cg001_severity_from_config_wins_over_the_per_kind_default(make_workspace, check) -> None:
    ws = make_workspace(
        {
            "easel-ls.toml": '[severity]\nCG001 = "error"\n',
            "skills/openclaw/card-maker/references/api.md": "见 http://10.0.3.12:8080/\n",
            SKILL: FRONT,
        }
    )
    [finding] = cg(check(ws, "skills/openclaw/card-maker/references/api.md"))
    assert finding.severity is Severity.ERROR


def test_cg001_extra_internal_domains(make_workspace, check) -> None:
    ws = make_workspace(
        {
            "easel-ls.toml": 'extra-internal-domains = ["corp.example.com"]\n',
            "outputs/春日/note.md": "见 wiki.corp.example.com/page 与 www.example.com\n",
        }
    )
    [finding] = cg(check(ws, "outputs/春日/note.md"))
    assert finding.range.start.character == 2


def test_cg001_env_values_of_the_workspace(make_workspace, check) -> None:
    ws = make_workspace(
        {
            ".env": "XHS_COOKIE=a1b2c3d4e5f6g7h8\n",
            "outputs/春日/note.md": "cookie a1b2c3d4e5f6g7h8\n",
        }
    )
    [finding] = cg(check(ws, "outputs/春日/note.md"))
    assert "XHS_COOKIE" in finding.message


def test_clean_text_is_quiet(make_workspace, check) -> None:
    text = "把密钥设为 <API_KEY> 或 sk-xxx，DNS 用 8.8.8.8，版本 1.2.3.4，聊聊国产大模型\n"
    ws = make_workspace({"outputs/春日/note.md": text, SKILL: FRONT + text})
    assert cg(check(ws, "outputs/春日/note.md")) == []
    assert cg(check(ws, SKILL)) == []


SETUP = (
    "先在 .env 配好 DOUYIN_OPEN_API_KEY 和 ANTHROPIC_BASE_URL（变量名见 `XHS_COOKIE`），"
    "本地代理一般是 :7890，Azure 接口带 ?api-version=2024-10-21，"
    "运行时文件在 ~/.openclaw/workspace-easel/ 下。\n"
)


def test_a_skill_telling_the_user_what_to_set_up_is_not_reported(make_workspace, check) -> None:
    reference = "skills/openclaw/card-maker/references/setup.md"
    ws = make_workspace(
        {".env": "XHS_COOKIE=a1=19f2c8e4d7b6\n", SKILL: FRONT + SETUP, reference: SETUP}
    )
    assert cg(check(ws, SKILL)) == []
    assert cg(check(ws, reference)) == []


def test_a_reference_showing_a_url_template_is_not_reported(make_workspace, check) -> None:
    """Seen in a real skill: an option's help shows the URL's shape, not a machine."""
    reference = "skills/openclaw/card-maker/references/options.md"
    text = "```bash\n--proxy http://host:port   # 需要外网时指定代理\n```\n"
    ws = make_workspace({SKILL: FRONT + "见 [参数](references/options.md)\n", reference: text})
    assert cg(check(ws, reference)) == []


def test_a_skill_opening_a_local_web_ui_is_not_reported(make_workspace, check) -> None:
    """Seen in real skills: a local backend's address, the same on every machine."""
    body = "启动后在浏览器打开 http://127.0.0.1:8501 ，接口在 127.0.0.1:54345。\n"
    ws = make_workspace({SKILL: FRONT + body})
    assert cg(check(ws, SKILL)) == []


def test_the_same_setup_in_a_deliverable_blocks(make_workspace, check) -> None:
    ws = make_workspace({".env": "XHS_COOKIE=a1=19f2c8e4d7b6\n", "outputs/春日/note.md": SETUP})
    findings = cg(check(ws, "outputs/春日/note.md"))
    blocked = " ".join(f.message for f in findings if f.code == "CG001")
    for category in ("env_name", "proxy_ip", "internal_url"):
        assert f"({category})" in blocked
    assert "internal_path" not in blocked  # ~/.openclaw/ is the spec's runtime folder


def test_cg001_in_a_skill_reports_the_leaks_a_prompt_must_not_carry(make_workspace, check) -> None:
    body = (
        f"调用时带上 {KEY}，接口 https://llm.internal.acme.io/v1，"
        "素材在 /mnt/nas/素材/ 与 ~/.xhs-private/profile，后台 10.0.3.12。\n"
    )
    ws = make_workspace({SKILL: FRONT + body})
    findings = cg(check(ws, SKILL))
    assert [f.code for f in findings] == ["CG001"] * 5
    assert all(f.severity is Severity.WARNING for f in findings)


# -- which content_guard runs ---------------------------------------------------------------


def _with_shared_scripts(make_workspace, guard_source: str) -> Workspace:
    files = {"outputs/春日/note.md": "正文里没有敏感信息。\n"}
    for name in ("content_guard", "manifest", "output_paths"):
        files[f"skills/shared/scripts/{name}.py"] = (VENDOR_DIR / f"{name}.py").read_text("utf-8")
    files["skills/shared/scripts/content_guard.py"] = guard_source
    return make_workspace(files)


def _tampered_guard() -> str:
    source = (VENDOR_DIR / "content_guard.py").read_text("utf-8")
    marker = "def scan(\n"
    assert marker in source
    patched = source.replace(marker, "def _original_scan(\n", 1)
    return patched + (
        "\n\ndef scan(text, **kwargs):\n"
        "    return [Finding('api_key', 'BLOCK', 0, 2, 'workspace copy ran')]\n"
    )


def test_an_identical_workspace_copy_is_used_and_named(make_workspace, check) -> None:
    source = (VENDOR_DIR / "content_guard.py").read_text("utf-8")
    ws = _with_shared_scripts(make_workspace, source)
    (ws.root / "outputs/春日/note.md").write_text("见 http://localhost:3000\n", "utf-8")
    [finding] = cg(check(ws, "outputs/春日/note.md"))
    assert finding.help == "checked with the workspace's content_guard (skills/shared/scripts/)"


def test_an_untrusted_modified_copy_is_never_imported(make_workspace, check) -> None:
    ws = _with_shared_scripts(make_workspace, _tampered_guard())
    assert cg(check(ws, "outputs/春日/note.md")) == []


def test_a_trusted_workspace_uses_its_own_copy(make_workspace, check) -> None:
    ws = _with_shared_scripts(make_workspace, _tampered_guard())
    trusted = Workspace(
        root=ws.root,
        config=ConfigResolver(stop_at=ws.root, overrides={"options": {"trusted-workspace": True}}),
    )
    [finding] = cg(check(trusted, "outputs/春日/note.md"))
    assert "workspace copy ran" in finding.message


OLDER_SCAN_SIGNATURES = {
    "before warnings= and context=": "text, *, extra_domains=(), env_file=None",
    "before context=": "text, *, extra_domains=(), env_file=None, warnings=True",
}


@pytest.mark.parametrize(
    "signature", list(OLDER_SCAN_SIGNATURES.values()), ids=list(OLDER_SCAN_SIGNATURES)
)
def test_a_trusted_copy_with_an_older_scan_signature_still_runs(
    make_workspace, check, signature: str
) -> None:
    """In skills easel-ls asks for no warnings and the skill context; a trusted copy whose
    ``scan`` predates those keywords is called with the ones it has."""
    source = (VENDOR_DIR / "content_guard.py").read_text("utf-8")
    assert "def scan(\n" in source
    forwarded = ", ".join(
        f"{name}={name}" for name in ("extra_domains", "env_file", "warnings") if name in signature
    )
    patched = source.replace("def scan(\n", "def _newer_scan(\n", 1) + (
        f"\n\ndef scan({signature}):\n    return _newer_scan(text, {forwarded})\n"
    )
    ws = _with_shared_scripts(make_workspace, patched)
    trusted = Workspace(
        root=ws.root,
        config=ConfigResolver(stop_at=ws.root, overrides={"options": {"trusted-workspace": True}}),
    )
    skill = ws.root / "skills/openclaw/demo/SKILL.md"
    skill.parent.mkdir(parents=True, exist_ok=True)
    skill.write_text("---\nname: demo\n---\n\n内网地址 http://localhost:3000\n", "utf-8")
    found = check(trusted, "skills/openclaw/demo/SKILL.md")
    assert "EZ003" not in {f.code for f in found}
    [finding] = cg(found)
    assert finding.code == "CG001" and "workspace's content_guard" in (finding.help or "")


def test_the_fixture_article_project(tmp_path: Path, check) -> None:
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "outputs"
    shutil.copytree(fixture, tmp_path / "ws")
    ws = Workspace(root=(tmp_path / "ws").resolve(), config=ConfigResolver(stop_at=tmp_path))
    assert {f.code for f in check(ws, "outputs/AI科普/note.md")} == {"CG002"}
