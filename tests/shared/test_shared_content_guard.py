"""content_guard: BLOCK real secrets and internal details, only WARN about AI wording."""

from __future__ import annotations

import gc
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
        "api_key", "internal_url", "proxy_ip", "internal_path", "env_name", "env_secret",
    }  # fmt: skip
    assert set(content_guard.WARN_CATEGORIES) == {"ai_wording", "model_name", "env_name_public"}
    for description in (*content_guard.BLOCK_CATEGORIES.values(), *content_guard.WARN_CATEGORIES.values()):  # fmt: skip
        assert any("\u4e00" <= char <= "\u9fff" for char in description)


def test_finding_carries_exact_offsets_and_level() -> None:
    text = f"配置好了：key={OPENAI_KEY}\n下一步"
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


@pytest.mark.parametrize(
    "key",
    [
        "sk-Qm7abcdefgh2Lp90Zt",  # an embedded alphabet run
        "sk-1234567890abcdefghijklmn",  # a digit run and a letter run
        "sk-proj-FAKEFAKEFAKEFAKEFAKE1234",  # a word that says it is fake
        "sk-" + "a" * 24,  # no entropy at all
        "sk-ant-api03-test-Kq2Lm7Zx4PwR8Tn3Lp",
        "ghp_" + "0123456789" * 3 + "abcdef",
        "AKIA" + "TESTTESTTEST1234",
        "AIza" + "Sy" + "0" * 33,
        "xoxb-" + "1234567890-1234567890",
        "hf_" + "abcdefghijklmnopqrstuvwxyz123456",
        "sk_live_" + "0000000000000000",
        "glpat-" + "example-example-1234",
    ],
)
def test_a_vendor_prefixed_token_blocks_however_unrandom_its_body(key: str) -> None:
    text = f"测试用 key：{key}，用完就删"
    assert spans(text, "api_key") == [key]


@pytest.mark.parametrize(
    "text",
    [
        "sk-xxxxxxxxxxxxxxxxxxxxxxxx",
        "sk-proj-XXXXXXXXXXXXXXXXXXXXXXXX",
        "sk-proj-XXXX-XXXX-XXXX-XXXX-XXXX",
        "sk-Qm7axxxxxxxxxxxxxxxxxxZt",  # masked in the middle
        "sk-your-openai-key-goes-here",
        "sk-YOUR_API_KEY_HERE_12345678",
        "ghp_YOUR_GITHUB_TOKEN_GOES_HERE_0000",
        "sk-<your key>",
        "sk-${OPENAI_KEY_SUFFIX}",
        "sk-{{ key }}",
        "sk-Qm7a****************Zt90",
        "sk-Qm7a…Zt90",
        "sk-....................",
        "AKIAIOSFODNN7EXAMPLE",  # the example key of the AWS documentation
        "https://shop.example.com/sk-ii-pitera-essence-230ml",  # a product slug
    ],
)
def test_only_unmistakable_placeholders_of_vendor_keys_pass(text: str) -> None:
    assert spans(f"示例：{text}", "api_key") == []


@pytest.mark.parametrize(
    "text",
    ["task_id 与 sk_test_helpers", "desk-lamp-for-bedroom-2024-new", "hf_hub_download_helper"],
)
def test_identifiers_that_merely_contain_a_prefix_are_not_keys(text: str) -> None:
    assert spans(text, "api_key") == []


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
        "api_key=abcdefgh12345678",  # generic assignments keep the entropy test
        "secret: example-secret-123",
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
        ("本机 http://[::1]:8000/ 起的", "http://[::1]:8000/"),
        ("指标 http://[fd00:1234::8]/metrics", "http://[fd00:1234::8]/metrics"),
        ("家里的 nas.home.arpa 存照片", "nas.home.arpa"),
        ("路由器 router.localdomain 后台", "router.localdomain"),
        ("脚本 src=//cdn.corp.acme.io/a.js", "cdn.corp.acme.io"),  # a protocol-relative link
    ],
)
def test_internal_urls_and_domains_block(text: str, leaked: str) -> None:
    assert spans(text, "internal_url") == [leaked]


@pytest.mark.parametrize(
    ("text", "leaked"),
    [
        ("https://llm.internal.acme.io/v1", "https://llm.internal.acme.io/v1"),
        (
            "素材 http://assets.intranet.acme-media.cn/raw.png",
            "http://assets.intranet.acme-media.cn/raw.png",
        ),
        ("接口 http://jobs.corp.acme-media.cn/api", "http://jobs.corp.acme-media.cn/api"),
        ("图床 https://img.lan.acme.cn/a.png", "https://img.lan.acme.cn/a.png"),
        ("大写 HTTPS://LLM.INTERNAL.ACME.IO/V1", "HTTPS://LLM.INTERNAL.ACME.IO/V1"),
        ("网关 gateway.internal.acme-media.cn，走专线", "gateway.internal.acme-media.cn"),
        ("登录 vpn.corp.acme.com 后", "vpn.corp.acme.com"),
        ("面板 grafana.corp.acme-media.cn/d/x", "grafana.corp.acme-media.cn"),
    ],
)
def test_an_internal_label_anywhere_below_the_registrable_domain_blocks(
    text: str, leaked: str
) -> None:
    assert spans(text, "internal_url") == [leaked]


@pytest.mark.parametrize(
    "text",
    [
        "https://www.corporate.com/news 与 corporate.com",  # labels match whole
        "网盘 https://www.lanzou.com/ 与 lanzou.com",
        "卫星图 https://www.planet.com 与 planet.com",
        "域名 corp.com、www.corp.com、corp.com.cn 的主人就叫 corp",
        "https://internal.com/ 是一家公司的官网",
        "文件 notes.internal.v2.md 与 app.corp.config.yaml",  # files, not hosts
        "配置 settings.local.py 与 .env.local",
        "Acme Corp. 发布了新品，e.g. lan.",
        "邮件 hr@corp.acme.com",  # a mailbox, not a host we link to
    ],
)
def test_public_hosts_and_look_alikes_of_internal_labels_pass(text: str) -> None:
    assert spans(text, "internal_url") == []


@pytest.mark.parametrize(
    ("text", "leaked"),
    [
        ("用 ?api-version=2025-01 调", "api-version=2025-01"),
        ("参数 api-version=2024-06-01-preview 才行", "api-version=2024-06-01-preview"),
        (
            "请求 https://acme.openai.azure.com/openai/chat?api-version=2024-10-21 即可",
            "https://acme.openai.azure.com/openai/chat?api-version=2024-10-21",
        ),
    ],
)
def test_an_api_version_query_is_an_internal_endpoint(text: str, leaked: str) -> None:
    assert spans(text, "internal_url") == [leaked]


@pytest.mark.parametrize(
    "text",
    [
        "代理参数写成 --proxy http://host:port 即可",  # found in a real skill's reference
        "格式 https://hostname/path 或 http://server:8080/",
        "换成你的 https://your-server:8443/ 或 http://yourdomain.internal/",
    ],
)
def test_url_templates_with_slot_names_are_not_hosts(text: str) -> None:
    assert spans(text, "internal_url") == []


def test_a_url_template_with_a_real_internal_host_still_blocks() -> None:
    text = "构建机 http://jenkins:port/job/a 与 http://yourtown.corp.acme.io/"
    assert spans(text, "internal_url") == [
        "http://jenkins:port/job/a",
        "http://yourtown.corp.acme.io/",
    ]


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
        ("代理地址 https://vps.example.com:7890", "https://vps.example.com:7890"),
        ("节点 hk.relay-node.net:7890 很稳", "hk.relay-node.net:7890"),
    ],
)
def test_proxy_addresses_block(text: str, leaked: str) -> None:
    assert spans(text, "proxy_ip") == [leaked]


@pytest.mark.parametrize(
    ("text", "leaked"),
    [
        ("走 :3128 出网", ":3128"),
        ("本地开 :1080 就行", ":1080"),
        ("开 privoxy（:8118）", ":8118"),
        ("小猫咪 `:7890`", ":7890"),
        ("代理端口：7890", "7890"),
        ("端口 7891 是 socks 的", "7891"),
        ("proxy port 10808", "10808"),
    ],
)
def test_a_well_known_proxy_port_standing_alone_blocks(text: str, leaked: str) -> None:
    assert spans(text, "proxy_ip") == [leaked]


@pytest.mark.parametrize(
    "text",
    [
        "售价:1080元，比去年便宜",  # an ASCII colon after a word is a label, not a port
        "分辨率 1080P，会员 3128 积分",
        "比分 10:1080 不可能",
        "代理 1080 元一年",  # a reseller's price
        "report 1080 与 export 7890 与 passport 8118",
        "Type-C 端口支持 PD 快充",
        "https://www.example.com:8443/a",
    ],
)
def test_numbers_that_only_look_like_proxy_ports_pass(text: str) -> None:
    assert spans(text, "proxy_ip") == []


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
        ("/mnt/nas/素材/咖啡/", "/mnt/nas/素材/咖啡/"),
        ("原图在 /mnt/disk2/raw/0312/ 里", "/mnt/disk2/raw/0312/"),
        ("服务放在 /srv/easel/publish/。", "/srv/easel/publish/"),
        ("profile 在 ~/.xhs-private/profile", "~/.xhs-private/profile"),
        ("`~/.openclaw-private/tokens/`", "~/.openclaw-private/tokens/"),
        ("$HOME/.easel_private/session 里", "$HOME/.easel_private/session"),
        ("看 ~/.config/easel-private/keys", "~/.config/easel-private/keys"),
    ],
)
def test_internal_absolute_paths_block(text: str, leaked: str) -> None:
    assert spans(text, "internal_path") == [leaked]


@pytest.mark.parametrize(
    "text",
    [
        "写到 outputs/<主题>/note.md",
        "调用 skills/shared/scripts/manifest.py",
        "同步到 ~/.openclaw/workspace-easel/",  # the spec's runtime folder
        "配置在 ~/.config/easel/ 与 ~/.privatebin/",  # "private" only as a whole name part
        "挂载 mnt/ 与 srv 目录的区别",
        "链接 https://example.com/home/alice 与 https://example.com/data/x",
        "相对路径 data/raw.csv 和 ./home/readme",
        "/home 目录与 /data 目录的区别",
    ],
)
def test_relative_paths_and_url_paths_are_not_internal(text: str) -> None:
    assert spans(text, "internal_path") == []


# --- env_name and env_secret -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("先在 .env 配好 DOUYIN_OPEN_API_KEY", "DOUYIN_OPEN_API_KEY"),
        ("导出 ANTHROPIC_BASE_URL 后再跑", "ANTHROPIC_BASE_URL"),
        ("`ANTHROPIC_MODEL` 设成最新的", "ANTHROPIC_MODEL"),
        ("把 XHS_ACCESS_TOKEN 填上", "XHS_ACCESS_TOKEN"),
        ("WEIBO_SECRET 别提交", "WEIBO_SECRET"),
        ("KUAISHOU_ACCESS_KEY 要重新申请", "KUAISHOU_ACCESS_KEY"),
        ("用 $FEISHU_APP_SECRET 签名", "FEISHU_APP_SECRET"),
        ('读取 os.environ["XHS_COOKIE"]', "XHS_COOKIE"),
        ("数据库密码放 MYSQL_PASSWORD", "MYSQL_PASSWORD"),
        ("LLM_API_BASE 指向中转", "LLM_API_BASE"),
        ("把 AZURE_OPENAI_API_KEY 换掉", "AZURE_OPENAI_API_KEY"),
    ],
)
def test_names_of_secret_variables_block(text: str, name: str) -> None:
    assert spans(text, "env_name") == [name]


@pytest.mark.parametrize(
    "text",
    [
        "xhs_access_token 是小写的 Python 变量",
        "类名 MyApiToken 与 Douyin_API_KEY",  # not UPPER_SNAKE
        "ANTHROPIC_ 后面要接名字，ANTHROPIC_Client 是个类",
        "TOKEN 和 SECRET 单独出现只是单词",
        "OPENAI_API_KEY_2024_PROD 不以密钥后缀结尾",
    ],
)
def test_words_that_are_not_secret_variable_names_pass(text: str) -> None:
    assert [f for f in scan(text) if f.category.startswith("env_name")] == []


@pytest.mark.parametrize("name", sorted(content_guard.PUBLIC_ENV_NAMES))
def test_well_known_public_names_only_warn(name: str) -> None:
    text = f"教程第一步：设置 {name}。"
    assert [(f.category, f.level, text[f.start : f.end]) for f in scan(text)] == [
        ("env_name_public", "WARN", name)
    ]


def test_names_defined_in_the_env_file_block(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text(
        "RELAY_ENDPOINT=https://relay.example.net\nDOUYIN_CLIENT_KEY=k\nGITHUB_TOKEN=t\n"
        "DEBUG=true\nPORT=8080\n",
        encoding="utf-8",
    )
    text = "RELAY_ENDPOINT 与 DOUYIN_CLIENT_KEY 要改，GITHUB_TOKEN 照旧，DEBUG 与 PORT 是单词"
    assert spans(text, "env_name", env_file=env) == ["RELAY_ENDPOINT", "DOUYIN_CLIENT_KEY"]
    assert spans(text, "env_name_public", env_file=env) == ["GITHUB_TOKEN"]
    assert spans(text, "env_name") == []  # scan reads no .env unless told
    assert spans("MY_RELAY_ENDPOINT_2 不是它", "env_name", env_file=env) == []


def test_redact_hides_secret_variable_names() -> None:
    assert redact("先在 .env 配好 DOUYIN_OPEN_API_KEY 再跑") == "先在 .env 配好 [已隐藏] 再跑"
    assert redact("设置 OPENAI_API_KEY 即可") == "设置 OPENAI_API_KEY 即可"  # WARN stays


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
        ("本文由 AI 自动生成", "由 AI 自动生成"),
        ("本文为AI生成，请甄别", "为AI生成"),
        ("图片均为 AI 生成", "为 AI 生成"),
        ("作为一个大模型，我建议…", "作为一个大模型"),
        ("作为 AI，我无法回答", "作为 AI"),
        ("作为一个AI语言模型，我", "作为一个AI语言模型"),
        ("我是 AI 助手", "我是 AI 助手"),
        ("你好，我是一个人工智能。", "我是一个人工智能"),
        ("以下是为您生成的小红书文案", "以下是为您生成的"),
        ("As an AI language model, I", "As an AI language model"),
        ("<|im_start|>system", "<|im_start|>"),
        ("我用 OpenClaw 写的", "OpenClaw"),
        ("问了 Claude 之后", "Claude"),
        ("ChatGPT 说", "ChatGPT"),
    ],
)
def test_ai_self_disclosure_warns(text: str, wording: str) -> None:
    findings = scan(text)
    assert [(f.category, f.level, text[f.start : f.end]) for f in findings] == [
        ("ai_wording", "WARN", wording)
    ]


@pytest.mark.parametrize(
    "text",
    [
        "这一期聊聊国产大模型的推理速度",
        "大模型时代，普通人该学点什么？",
        "大语言模型的幻觉问题到底能不能解决",
        "AIGC 会不会取代设计师？",
        "LLM 相关的岗位今年翻了一倍",
        "system prompt 写得好不好，直接决定回答质量",
        "OpenAI 的发布会你看了吗",
        "AI 生成的图片越来越真，怎么分辨？",
        "小红书正在成为 AI 生成内容的重灾区吗",
        "作为 AI 从业者，我说几句实在话",
        "我是 AI 产品经理，每天的工作很琐碎",
        "我是 AI 助手的重度用户",
        "教你用 AI 生成头像",
        "As an AI researcher I think so",
    ],
)
def test_ai_as_the_topic_gets_no_finding(text: str) -> None:
    assert scan(text) == []


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


# --- context="skill": what SKILL.md and references legitimately say --------------------------


SKILL_TEXT = (
    "先把 DOUYIN_OPEN_API_KEY、ANTHROPIC_BASE_URL 和 OPENAI_API_KEY 写进 .env；"
    "本地代理一般是 :7890，Azure 要带 ?api-version=2024-10-21，"
    "代理端口：7890，https://vps.example.com:3128 只是示例。"
    "运行时目录是 ~/.openclaw/workspace-easel/。"
)


def test_a_skill_naming_variables_ports_and_runtime_folders_is_not_reported() -> None:
    assert {f.level for f in scan(SKILL_TEXT)} >= {"BLOCK"}  # outbound, all of it blocks
    assert scan(SKILL_TEXT, context="skill", warnings=False) == []


def test_a_skill_still_reports_keys_internal_hosts_private_ips_and_paths(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text("XHS_COOKIE=a1=19f2c8e4d7b6\n", encoding="utf-8")
    text = (
        f"key {OPENAI_KEY}，接口 https://llm.internal.acme.io/v1，后台 10.0.3.12，"
        "代理 http://10.0.3.9:7890，日志 /mnt/nas/logs/，cookie a1=19f2c8e4d7b6，"
        "profile ~/.xhs-private/profile"
    )
    found = scan(text, env_file=env, context="skill", warnings=False)
    assert [f.category for f in found] == [
        "api_key", "internal_url", "internal_url", "proxy_ip", "internal_path", "env_secret",
        "internal_path",
    ]  # fmt: skip


@pytest.mark.parametrize(
    "local",
    [
        "打开 http://127.0.0.1:8501 查看生成进度",
        "本机接口 http://localhost:3000/api/render",
        "浏览器指纹服务监听 127.0.0.1:54345",
        "代理 socks5://127.0.0.1:1080 记得开",
        "服务绑定 http://0.0.0.0:8080/",
        "IPv6 回环 http://[::1]:8000/",
    ],
)
def test_a_skill_pointing_at_the_users_own_machine_is_not_reported(local: str) -> None:
    # The same address on every machine: nothing about the author's network leaks.
    assert scan(local, context="skill", warnings=False) == []
    assert {f.level for f in scan(local)} == {"BLOCK"}  # published, it still blocks


def test_an_unknown_context_is_an_error() -> None:
    with pytest.raises(ValueError, match="context"):
        scan("x", context="publish")


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
    # the patterns of the fail-closed rules, each repeated or left unfinished
    "vendor heads": "github_" * (MEGABYTE // 7),
    "aws heads": "AKIA" * (MEGABYTE // 4),
    "slack heads": "xoxb-" * (MEGABYTE // 5),
    "slug keys": "sk-ii-" * (MEGABYTE // 6),
    "underscores": "_" * MEGABYTE,
    "dashes": "-" * MEGABYTE,
    "internal labels": "a.internal." * (MEGABYTE // 11),
    "corp labels": "corp." * (MEGABYTE // 5),
    "lan suffixes": ".lan" * (MEGABYTE // 4),
    "a long host run": ("a-" * 200 + ".internal") * (MEGABYTE // 409),
    "internal hosts": "x.corp.acme.io " * (MEGABYTE // 15),
    "localhosts": "localhost" * (MEGABYTE // 9),
    "dots": "." * MEGABYTE,
    "ipv6 urls": "http://[::" * (MEGABYTE // 10),
    "colons": ":" * MEGABYTE,
    "proxy ports": " :7890" * (MEGABYTE // 6),
    "host proxy ports": "a.b.com:7890" * (MEGABYTE // 12),
    "port words": "端口 " * (MEGABYTE // 3),
    "proxy port words": "代理端口：7890" * (MEGABYTE // 9),
    "api versions": "?api-version=" * (MEGABYTE // 13),
    "mounts": "/mnt/" * (MEGABYTE // 5),
    "private homes": "~/.x-private/" * (MEGABYTE // 13),
    "home variables": "$HOME/" * (MEGABYTE // 6),
    "env suffixes": "A_TOKEN " * (MEGABYTE // 8),
    "a long env name": "A" * (MEGABYTE - 6) + "_TOKEN",
    "suffix chain": "_TOKEN" * (MEGABYTE // 6),
    "anthropic heads": "ANTHROPIC_" * (MEGABYTE // 10),
    "self disclosure": "作为我是一个AI" * (MEGABYTE // 8),
    "made by": "由 AI 自动" * (MEGABYTE // 7),
}  # fmt: skip


@pytest.mark.parametrize("context", content_guard.CONTEXTS)
@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_a_megabyte_of_adversarial_text_scans_in_half_a_second(name: str, context: str) -> None:
    text = ADVERSARIAL[name][:MEGABYTE]
    # CPU time, so other jobs on the machine do not count; no collection while timing, so the
    # objects the rest of the suite left alive do not count either (some inputs make 150 000
    # findings, and every collection walks the whole heap).
    gc.collect()
    gc.disable()
    try:
        started = time.process_time()
        scan(text, context=context, extra_domains=["team.example"])
        elapsed = time.process_time() - started
    finally:
        gc.enable()
    assert elapsed < 0.5


@pytest.mark.parametrize("odd", [b"key=\xff\xfe", None, 42, ""])
def test_odd_input_never_raises(odd: object) -> None:
    assert isinstance(scan(odd), list)  # type: ignore[arg-type]
    assert redact("") == ""


# --- prechecks: a pattern that tries every offset is skipped only when it cannot match --------

_GUARD_PIECES = [
    *list("aZ0179.:/\\-_=@ \n中~$"),
    "localhost", ".internal", ".LOCAL", "corp", ".lan", "intranet", ".home.arpa", "team.example",
    "internal.", "acme", ".io", ".md", "llm.Internal.acme.io",
    "/home/", "/Users/", "/root/", "/data/", "/mnt/", "/srv/", "C:", "Documents and Settings",
    "\\\\", "~/", "HOME", "-private", "_private", "PRIVATE KEY-----", "-----BEGIN RSA ",
    "api_key", "APIKEY", "Secret", "token", "access-key", "passwd", "pwd", "credential",
    "密钥", "令牌", "口令", "密码", "：", "Q7fK2mXw9LpR4tZa8VbN",
    "10.", "192.168.", "127.0.0.1", "192.168.10.1", "100.64.0.1:8080", "8080", "١", "1١٢.",
    "10.١.1.1", ":7890", "7890", "端口", "Port", "代理", "api-version=", "2025-01",
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
    with monkeypatch.context() as patched:
        patched.setattr(content_guard, "_may_match", lambda haystack, hint: True)
        return scan(text, extra_domains=["Team.Example"])


@settings(
    max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.sampled_from(_GUARD_PIECES), max_size=25).map("".join))
def test_prechecks_never_change_the_findings(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    assert scan(text, extra_domains=["Team.Example"]) == _scan_without_prechecks(monkeypatch, text)


_WARNING_PIECES = [
    *_GUARD_PIECES, "Claude", "claude-3-5-sonnet", "GPT-4o", "由AI生成", "ai 写作", "大模型",
    "openai", "system prompt", "qwen2.5-72b", "llama3", "-", "openclaw", "作为", "我是", "，",
    "_API_KEY", "OPENAI_API_KEY", "HF_TOKEN", "ANTHROPIC_", "XHS", "_BASE_URL",
]  # fmt: skip


@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(_WARNING_PIECES), max_size=25).map("".join))
def test_leaving_out_warnings_keeps_every_block(text: str) -> None:
    everything = scan(text, extra_domains=["Team.Example"])
    blocks_only = scan(text, extra_domains=["Team.Example"], warnings=False)
    assert [f for f in blocks_only if f.level == "BLOCK"] == [
        f for f in everything if f.level == "BLOCK"
    ]
    assert not {f.level for f in blocks_only} & {"WARN"}


@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(_WARNING_PIECES), max_size=25).map("".join))
def test_the_skill_context_only_leaves_findings_out(text: str) -> None:
    outbound = [f for f in scan(text, extra_domains=["Team.Example"]) if f.level == "BLOCK"]
    in_skill = scan(text, extra_domains=["Team.Example"], context="skill", warnings=False)
    for finding in in_skill:  # each is reported outbound too, or inside a wider outbound block
        assert any(f.start <= finding.start and finding.end <= f.end for f in outbound), finding
    assert not {f.category for f in in_skill} & {"env_name", "env_name_public"}


def test_leaving_out_warnings_leaves_out_model_names_and_ai_wording() -> None:
    text = f"由 Claude 3.5 生成，key {OPENAI_KEY}"
    assert {f.category for f in scan(text)} >= {"ai_wording", "api_key"}
    assert [f.category for f in scan(text, warnings=False)] == ["api_key"]
