"""content_guard: BLOCK real secrets and internal details, only WARN about AI wording."""

from __future__ import annotations

import json
import time
from pathlib import Path

import content_guard
import pytest
from content_guard import Finding, guard_or_die, redact, scan
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shared_script_runner import run_script

# Realistic-looking but invented credentials (random letters and digits, provider prefixes).
OPENAI_KEY = "sk-proj-Q7fK2mXw9LpR4tZa8VbN3cYd6HsJ1gUe5WqT0"
ANTHROPIC_KEY = "sk-ant-api03-x9Fq2LmZ7rT4vB8nK1cW6yH3pD5sJ0aGeU"
GITHUB_TOKEN = "ghp_4fT9kQ2mZ7xW1rB8vN3cY6hL0pD5sJaGeUiO"
AWS_KEY = "AKIA4F7Q2M9Z3X8W1R6B"
GOOGLE_KEY = "AIzaSyA4f7Q2m9Z3x8W1r6BvN0cY5hL2pD7sJkE"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk"


def spans(text: str, category: str, **options: object) -> list[str]:
    """The exact text of each finding of ``category``."""
    return [text[f.start : f.end] for f in scan(text, **options) if f.category == category]  # type: ignore[arg-type]


def test_categories_are_stable_identifiers_with_chinese_descriptions() -> None:
    assert set(content_guard.BLOCK_CATEGORIES) == {
        "api_key", "internal_url", "proxy_ip", "internal_path", "env_secret",
    }  # fmt: skip
    assert set(content_guard.WARN_CATEGORIES) == {"ai_wording", "model_name"}
    for description in (*content_guard.BLOCK_CATEGORIES.values(), *content_guard.WARN_CATEGORIES.values()):  # fmt: skip
        assert any("\u4e00" <= char <= "\u9fff" for char in description)


def test_finding_carries_exact_offsets_and_level() -> None:
    text = f"配置好了：OPENAI_API_KEY={OPENAI_KEY}\n下一步"
    (finding,) = scan(text)
    assert finding == Finding(
        "api_key", "BLOCK", text.index("sk-"), text.index("\n"), finding.excerpt
    )
    assert OPENAI_KEY not in finding.excerpt  # the report must not leak the key again
    assert finding.excerpt.startswith("sk-p")


# --- api_key ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "leaked"),
    [
        (f"key: {OPENAI_KEY}", OPENAI_KEY),
        (f"用这个 {ANTHROPIC_KEY} 调接口", ANTHROPIC_KEY),
        (f"token {GITHUB_TOKEN}", GITHUB_TOKEN),
        (f"aws_access_key_id = {AWS_KEY}", AWS_KEY),
        (f"maps?key={GOOGLE_KEY}", GOOGLE_KEY),
        (f"Authorization: Bearer {JWT}", JWT),
        ("SECRET_KEY='q8Z2xW7mK4pR9tL3vB6n'", "q8Z2xW7mK4pR9tL3vB6n"),
        ("密钥：k9Qz7Xw2Lm4Rt8Vb3Nc6", "k9Qz7Xw2Lm4Rt8Vb3Nc6"),
        ("password = Tr0ub4dor-3xK9q2", "Tr0ub4dor-3xK9q2"),
        ("Authorization: Bearer a8F3kL9qZ2xW7mR4tV6bN1cY5", "a8F3kL9qZ2xW7mR4tV6bN1cY5"),
        ("mysql://admin:Hx7q2LmZ9r@db.example.com/prod", "Hx7q2LmZ9r"),
    ],
)
def test_a_real_looking_key_blocks(text: str, leaked: str) -> None:
    assert spans(text, "api_key") == [leaked]


def test_a_private_key_block_blocks_as_a_whole() -> None:
    pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7x\n-----END RSA PRIVATE KEY-----"
    text = f"私钥如下\n{pem}\n结束"
    assert spans(text, "api_key") == [pem]


@pytest.mark.parametrize(
    "text",
    [
        "把 OPENAI_API_KEY 设为 <API_KEY>",
        "形如 sk-xxx 的字符串",
        "api_key=your-api-key-here",
        "sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "token: ${GITHUB_TOKEN}",
        "AWS 示例 AKIAIOSFODNN7EXAMPLE",
        "api_key = os.environ['OPENAI_API_KEY']",
        "token=OPENAI_API_KEY_2024_PROD",
        "password: 请在设置页修改",
        "sk-1234567890abcdefghijklmn",
        "任务 task-Q7fK2mXw9LpR4tZa8VbN3cYd6 已完成",
        "access_token 有效期 7200 秒",
    ],
)
def test_placeholders_names_and_lookalikes_are_not_keys(text: str) -> None:
    assert spans(text, "api_key") == []


# --- internal_url and proxy_ip ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "leaked"),
    [
        ("接口 http://api.team.internal/v1/users 已上线", "http://api.team.internal/v1/users"),
        ("访问 https://wiki.acme.corp/page?id=3。", "https://wiki.acme.corp/page?id=3"),
        ("打开 http://localhost:3000/admin", "http://localhost:3000/admin"),
        ("后台在 http://10.2.3.4/dashboard", "http://10.2.3.4/dashboard"),
        ("地址192.168.1.20，记得改", "192.168.1.20"),
        ("在 printer.local 打印", "printer.local"),
        ("本地 localhost:8080 起服务", "localhost:8080"),
        ("构建见 http://jenkins:8080/job/a", "http://jenkins:8080/job/a"),
        ("数据库 db01.prod.lan:5432", "db01.prod.lan:5432"),
    ],
)
def test_internal_urls_and_domains_block(text: str, leaked: str) -> None:
    assert spans(text, "internal_url") == [leaked]


def test_extra_domains_are_internal_too() -> None:
    text = "文档见 https://docs.acme-inner.cn/a 与 git.acme-inner.cn"
    assert spans(text, "internal_url") == []
    assert spans(text, "internal_url", extra_domains=["acme-inner.cn"]) == [
        "https://docs.acme-inner.cn/a",
        "git.acme-inner.cn",
    ]


@pytest.mark.parametrize(
    ("text", "leaked"),
    [
        ("代理 socks5://127.0.0.1:1080 记得开", "socks5://127.0.0.1:1080"),
        ("export https_proxy=http://10.0.0.8:7890", "http://10.0.0.8:7890"),
        ("走 47.100.12.34:3128 出口", "47.100.12.34:3128"),
        ("socks5h://user@proxy.example.com:1080", "socks5h://user@proxy.example.com:1080"),
    ],
)
def test_proxy_addresses_block(text: str, leaked: str) -> None:
    assert spans(text, "proxy_ip") == [leaked]


@pytest.mark.parametrize(
    "text",
    [
        "原文 https://www.xiaohongshu.com/explore/64a1b2c3d4e5f6 很火",
        "参考 https://github.com/openclaw/easel/blob/main/README.md",
        "DNS 用 8.8.8.8 或 1.1.1.1",
        "版本 v10.0.0.1 与 1.2.3.4.5 都是版本号，当前 1.2.3.4",
        "我们本地化（local）了界面",
        "文件 .env.local 与 settings.local.py 不是主机",
        "时间 12:30，比分 3:2",
        "邮件 hello@team.local",  # address part is a mailbox, not a host we link to
    ],
)
def test_public_urls_ips_and_lookalikes_pass(text: str) -> None:
    assert [f for f in scan(text) if f.category in ("internal_url", "proxy_ip")] == []


# --- internal_path ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "leaked"),
    [
        ("日志在 /home/alice/easel/run.log。", "/home/alice/easel/run.log"),
        ("见/Users/bob/Desktop/稿子.md", "/Users/bob/Desktop/稿子.md"),
        ("数据 /data/easel/outputs/春日/note.md", "/data/easel/outputs/春日/note.md"),
        ("root 下 /root/.openclaw/config.json", "/root/.openclaw/config.json"),
        (r"在 C:\Users\Alice\Documents\a.txt 里", r"C:\Users\Alice\Documents\a.txt"),
        (r"共享盘 \\fileserver\team\plan.xlsx", r"\\fileserver\team\plan.xlsx"),
        ("file:///home/alice/a.html", "/home/alice/a.html"),
    ],
)
def test_internal_absolute_paths_block(text: str, leaked: str) -> None:
    assert spans(text, "internal_path") == [leaked]


@pytest.mark.parametrize(
    "text",
    [
        "写到 outputs/<主题>/note.md",
        "调用 skills/shared/scripts/manifest.py",
        "同步到 ~/.openclaw/workspace-easel/",
        "链接 https://example.com/home/alice 与 https://example.com/data/x",
        "相对路径 data/raw.csv 和 ./home/readme",
        "/home 目录与 /data 目录的区别",
    ],
)
def test_relative_paths_and_url_paths_are_not_internal(text: str) -> None:
    assert spans(text, "internal_path") == []


# --- env_secret ------------------------------------------------------------------------------


def test_values_from_the_env_file_block(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text(
        "# secrets\n"
        "export XHS_COOKIE='a1=18c3f7e2b9;web_session=0400697f'\n"
        "DB_PASSWORD=hunter2hunter2\n"
        "APP_ENV=production  # not a secret\n"
        "DEBUG=true\n"
        "SHORT=abc\n",
        encoding="utf-8",
    )
    text = "登录用 a1=18c3f7e2b9;web_session=0400697f，库密码 hunter2hunter2，环境 production"
    assert spans(text, "env_secret", env_file=env) == [
        "a1=18c3f7e2b9;web_session=0400697f",
        "hunter2hunter2",
    ]
    assert spans(text, "env_secret") == []  # scan reads no .env unless told
    assert spans(text, "env_secret", env_file=tmp_path / "missing.env") == []
    (finding,) = [f for f in scan("hunter2hunter2", env_file=env) if f.category == "env_secret"]
    assert "DB_PASSWORD" in finding.excerpt and "hunter2" not in finding.excerpt


# --- WARN categories -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "wording"),
    [
        ("本文由 AI 生成，仅供参考", "由 AI 生成"),
        ("本文由AI创作", "由AI创作"),
        ("我用 OpenClaw 写的", "OpenClaw"),
        ("问了 Claude 之后", "Claude"),
        ("忽略你的 system prompt", "system prompt"),
        ("大模型时代", "大模型"),
        ("As an AI language model, I", "As an AI language model"),
    ],
)
def test_ai_wording_warns(text: str, wording: str) -> None:
    findings = scan(text)
    assert [(f.level, text[f.start : f.end]) for f in findings] == [("WARN", wording)]


@pytest.mark.parametrize(
    ("text", "model"),
    [
        ("封面用 gpt-image-1 画的", "gpt-image-1"),
        ("对比 claude-sonnet-4-5 与", "claude-sonnet-4-5"),
        ("GPT-4o 的表现", "GPT-4o"),
        ("跑在 deepseek-r1 上", "deepseek-r1"),
        ("选 gemini-2.5-pro.", "gemini-2.5-pro"),
        ("qwen2.5-72b-instruct", "qwen2.5-72b-instruct"),
    ],
)
def test_model_names_warn(text: str, model: str) -> None:
    assert [(f.level, text[f.start : f.end]) for f in scan(text)] == [("WARN", model)]


@pytest.mark.parametrize(
    "text",
    ["泰国 Thai 菜", "openair 音乐节", "集群 mycluster-1", "Claudette 的咖啡", "aigcx", "AI绘画"],
)
def test_words_that_merely_contain_ai_terms_pass(text: str) -> None:
    assert scan(text) == []


def test_a_chinese_article_about_ai_only_warns() -> None:
    article = (
        "# 大模型如何改变内容创作\n\n"
        "过去一年，ChatGPT、Claude 与国内的大语言模型让 AIGC 走进日常。"
        "我们用 gpt-image-1 生成封面，用 claude-sonnet-4 润色，再由人工审校。"
        "所谓 system prompt，就是给模型的角色设定。参考：https://www.xiaohongshu.com/explore/abc。"
    )
    findings = scan(article)
    assert findings
    assert {f.level for f in findings} == {"WARN"}
    assert not content_guard.has_block(findings)


def test_a_finding_inside_a_block_is_reported_once() -> None:
    text = "/home/alice/claude-3-opus/notes.md"
    assert [(f.category, f.level) for f in scan(text)] == [("internal_path", "BLOCK")]


# --- redact ----------------------------------------------------------------------------------


def test_redact_hides_block_spans_and_keeps_the_rest() -> None:
    text = f"key={OPENAI_KEY}，日志 /home/alice/x.log，由 AI 生成，见 https://www.xiaohongshu.com/x"
    assert redact(text) == (
        "key=[已隐藏]，日志 [已隐藏]，由 AI 生成，见 https://www.xiaohongshu.com/x"
    )
    assert redact(redact(text)) == redact(text)
    assert redact("没有敏感信息") == "没有敏感信息"


def test_redact_merges_overlapping_spans(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text("INTERNAL_HOST=api.team.internal\n", encoding="utf-8")
    assert redact("调 http://api.team.internal/v1 吧", env_file=env) == "调 [已隐藏] 吧"


# --- guard_or_die ----------------------------------------------------------------------------


def test_exec_mode_with_a_block_finding_exits_7(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        guard_or_die({"标题": "春日穿搭", "正文": f"key={OPENAI_KEY}"}, exec_mode=True, label="xhs")
    assert stopped.value.code == 7
    err = capsys.readouterr().err
    assert "content_guard[xhs]" in err and "api_key" in err and "正文" in err
    assert OPENAI_KEY not in err


def test_allow_unsafe_lets_a_block_pass_loudly(capsys: pytest.CaptureFixture[str]) -> None:
    findings = guard_or_die([f"key={OPENAI_KEY}"], exec_mode=True, allow_unsafe=True)
    assert [f.category for f in findings] == ["api_key"]
    assert "--allow-unsafe" in capsys.readouterr().err


def test_dry_run_only_warns(capsys: pytest.CaptureFixture[str]) -> None:
    findings = guard_or_die(f"日志 /home/alice/x.log，key={OPENAI_KEY}", exec_mode=False)
    assert {f.category for f in findings} == {"api_key", "internal_path"}
    assert "dry-run" in capsys.readouterr().err


def test_warn_findings_never_block(capsys: pytest.CaptureFixture[str]) -> None:
    findings = guard_or_die(["本文由 AI 生成，用了 gpt-image-1", None], exec_mode=True)
    assert {f.level for f in findings} == {"WARN"}
    assert "WARN" in capsys.readouterr().err


def test_guard_reads_the_env_file_named_by_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = tmp_path / "publisher.env"
    env.write_text("XHS_TOKEN=Zx81kQ0pLm27\n", encoding="utf-8")
    monkeypatch.setenv("EASEL_ENV_FILE", str(env))
    with pytest.raises(SystemExit) as stopped:
        guard_or_die("正文带了 Zx81kQ0pLm27", exec_mode=True)
    assert stopped.value.code == 7


# --- CLI -------------------------------------------------------------------------------------


def test_cli_scan_exits_7_on_block_and_0_otherwise() -> None:
    blocked = run_script("content_guard.py", "scan", "--text", f"key={OPENAI_KEY}")
    assert blocked.returncode == 7 and "api_key" in blocked.stdout
    warned = run_script("content_guard.py", "scan", "--text", "本文由 AI 生成")
    assert warned.returncode == 0 and "ai_wording" in warned.stdout
    clean = run_script("content_guard.py", "scan", "--text", "春天穿什么")
    assert clean.returncode == 0


def test_cli_scan_json_from_stdin() -> None:
    text = "后台 http://10.0.0.3/admin，由 AI 生成"
    result = run_script("content_guard.py", "scan", "--json", stdin=text)
    assert result.returncode == 7
    report = json.loads(result.stdout)
    assert report["blocked"] is True
    assert [(f["category"], f["level"]) for f in report["findings"]] == [
        ("internal_url", "BLOCK"),
        ("ai_wording", "WARN"),
    ]
    first = report["findings"][0]
    assert text[first["start"] : first["end"]] == "http://10.0.0.3/admin"


def test_cli_scan_and_redact_files(tmp_path: Path) -> None:
    note = tmp_path / "note.md"
    note.write_text("日志 /home/alice/x.log\n", encoding="utf-8")
    assert run_script("content_guard.py", "scan", "--file", str(note)).returncode == 7
    out = tmp_path / "clean.md"
    result = run_script("content_guard.py", "redact", "--file", str(note), "--out", str(out))
    assert result.returncode == 0
    assert out.read_text(encoding="utf-8") == "日志 [已隐藏]\n"
    printed = run_script("content_guard.py", "redact", "--text", "日志 /home/alice/x.log")
    assert printed.stdout == "日志 [已隐藏]"


def test_cli_scan_uses_an_explicit_env_file(tmp_path: Path) -> None:
    env = tmp_path / "x.env"
    env.write_text("API_SECRET=mellon-mellon\n", encoding="utf-8")
    args = ["scan", "--text", "口令是 mellon-mellon"]
    assert run_script("content_guard.py", *args, cwd=tmp_path).returncode == 0
    assert run_script("content_guard.py", *args, "--env-file", str(env)).returncode == 7


@pytest.mark.parametrize(
    "args",
    [
        ["scan", "--file", "/nonexistent/note.md"],
        ["scan", "--text", "a", "--file", "b"],
        ["scan", "--env-file", "/nonexistent/.env", "--text", "a"],
        ["publish"],
        [],
    ],
)
def test_cli_bad_arguments_exit_2_with_one_line(args: list[str]) -> None:
    result = run_script("content_guard.py", *args)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1


def test_selftest_passes() -> None:
    result = run_script("content_guard.py", "selftest")
    assert (result.returncode, result.stdout.strip()) == (0, "content_guard selftest: OK")


# --- robustness ------------------------------------------------------------------------------

MEGABYTE = 1_000_000
ADVERSARIAL = {
    "one letter": "a" * MEGABYTE,
    "slashes": "/" * MEGABYTE,
    "dotted digits": "1." * (MEGABYTE // 2),
    "ip-like with colons": "1.1.1.1:" * (MEGABYTE // 8),
    "key prefixes": "sk-" * (MEGABYTE // 3),
    "jwt prefixes": "eyJ" * (MEGABYTE // 3),
    "assignments": "token=" * (MEGABYTE // 6),
    "schemes": "http://" * (MEGABYTE // 7),
    "labels": "a." * (MEGABYTE // 2),
    "home dirs": "/home/" * (MEGABYTE // 6),
    "pem headers": "-----BEGIN PRIVATE KEY-----" * (MEGABYTE // 27),
    "backslashes": "\\" * MEGABYTE,
    "chinese": "由AI大" * (MEGABYTE // 4),
    "near misses": (
        "sk-" + "a" * 19 + " 1.2.3.4.5 " + "a." * 30 + "http://" + "/home/" + "eyJ" + "a" * 40
        + "token=" + "-----BEGIN " + "claude" + "xx.locals" + "Bearer " + "C:\\Users" + "中文"
    ) * 3000,
}  # fmt: skip


@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_a_megabyte_of_adversarial_text_scans_well_under_a_second(name: str) -> None:
    text = ADVERSARIAL[name][:MEGABYTE]
    started = time.process_time()  # CPU time: other jobs on the machine do not count
    scan(text)
    assert time.process_time() - started < 1.0


@pytest.mark.parametrize("odd", [b"key=\xff\xfe", None, 42, ""])
def test_odd_input_never_raises(odd: object) -> None:
    assert isinstance(scan(odd), list)  # type: ignore[arg-type]
    assert redact("") == ""


# --- prechecks: a pattern that tries every offset is skipped only when it cannot match --------

_GUARD_PIECES = [
    *list("aZ0179.:/\\-_=@ \n中"),
    "localhost", ".internal", ".LOCAL", "corp", ".lan", "intranet", ".home.arpa", "team.example",
    "/home/", "/Users/", "/root/", "/data/", "C:", "Documents and Settings", "\\\\",
    "api_key", "APIKEY", "Secret", "token", "access-key", "passwd", "pwd", "credential",
    "密钥", "令牌", "口令", "密码", "：", "Q7fK2mXw9LpR4tZa8VbN",
    "10.", "192.168.", "127.0.0.1", "192.168.10.1", "100.64.0.1:8080", "8080", "١", "1١٢.",
    "10.١.1.1",
    "http://", "socks5://",
    # whole assignments for every keyword, so each keyword's precheck is exercised
    *(
        f"{keyword}{separator}Q7fK2mXw9LpR4tZa8VbN"
        for keyword in ("api-key", "APIKEY", "secret", "token", "access_key", "Password",
                        "passwd", "pwd", "credential", "密钥", "令牌", "口令", "密码")
        for separator in ("=", "：")
    ),
]  # fmt: skip


def _scan_without_prechecks(monkeypatch: pytest.MonkeyPatch, text: str) -> list[Finding]:
    import re

    with monkeypatch.context() as patched:
        patched.setattr(content_guard, "_SECRET_KEYWORDS", ("",))
        patched.setattr(content_guard, "_INTERNAL_PATH_NEEDLES", ("",))
        patched.setattr(content_guard, "_BARE_IP_HINT", re.compile(""))
        patched.setattr(content_guard, "_internal_host_needles", lambda domains: ("",))
        return scan(text, extra_domains=["Team.Example"])


@settings(
    max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.sampled_from(_GUARD_PIECES), max_size=25).map("".join))
def test_prechecks_never_change_the_findings(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    assert scan(text, extra_domains=["Team.Example"]) == _scan_without_prechecks(monkeypatch, text)


_WARNING_PIECES = [
    *_GUARD_PIECES, "Claude", "claude-3-5-sonnet", "GPT-4o", "由AI生成", "ai 写作", "大模型",
    "openai", "system prompt", "qwen2.5-72b", "llama3", "-", "openclaw",
]  # fmt: skip


@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(_WARNING_PIECES), max_size=25).map("".join))
def test_leaving_out_warnings_keeps_every_block(text: str) -> None:
    everything = scan(text, extra_domains=["Team.Example"])
    blocks_only = scan(text, extra_domains=["Team.Example"], warnings=False)
    assert [f for f in blocks_only if f.level == "BLOCK"] == [
        f for f in everything if f.level == "BLOCK"
    ]
    assert not {f.category for f in blocks_only} & {"model_name", "ai_wording"}


def test_leaving_out_warnings_leaves_out_model_names_and_ai_wording() -> None:
    text = f"由 Claude 3.5 生成，key {OPENAI_KEY}"
    assert {f.category for f in scan(text)} >= {"ai_wording", "api_key"}
    assert [f.category for f in scan(text, warnings=False)] == ["api_key"]
