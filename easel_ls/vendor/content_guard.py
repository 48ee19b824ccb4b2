#!/usr/bin/env python3
"""Outbound content gate: nothing secret or internal leaves for a public platform.

Two levels (spec, 出站内容安全闸门):

- BLOCK (:data:`BLOCK_CATEGORIES`, fail-closed): API keys and tokens, internal URLs and domains,
  proxy addresses, internal absolute paths, names of secret environment variables, values of a
  ``.env`` file. With ``--exec`` a publisher stops with exit code 7 unless the user passes
  ``--allow-unsafe``.
- WARN (:data:`WARN_CATEGORIES`): AI self-disclosure, model names and the well-known public
  environment variable names of AI tutorials. An article about AI may use them on purpose, so
  they are reported and never block.

API: ``scan(text, *, extra_domains=(), env_file=None, warnings=True, context="outbound") ->
list[Finding]`` (``start``/``end`` are ``str`` indices into ``text``), ``redact(text, ...) ->
str`` (BLOCK spans become ``[已隐藏]``), ``guard_or_die(parts, *, exec_mode, allow_unsafe=False,
label="", ...)``. ``context="skill"`` is for SKILL.md and references (see Decisions).

CLI::

    content_guard.py scan   [--text T | --file F] [--json] [--env-file F] [--extra-domain D]
    content_guard.py redact [--text T | --file F] [--out F] [--env-file F] [--extra-domain D]
    content_guard.py selftest

``scan`` reads stdin without ``--text``/``--file``; exit 7 when a BLOCK finding exists, else 0;
exit 2 for bad arguments or an unreadable file. Python 3.10+, standard library only.

Decisions where the spec is silent (docs/content_guard.md has the examples):

- Vendor keys fail closed. A token with a vendor prefix (``sk-``, ``sk-proj-``, ``sk-ant-``,
  ``ghp_``, ``github_pat_``, ``glpat-``, ``AKIA``, ``AIza``, ``xoxb-``, ``hf_``, ``sk_live_``,
  ``LTAI``, ``AKID``, …) and the vendor's length blocks whatever its body looks like: low
  entropy, ``12345678``, ``abcdefgh`` or ``FAKE`` inside never let it through. Only unmistakable
  placeholders pass: a body of ``x``/``X`` (or holding a run of six), a ``your``/``YOUR`` part,
  anything cut short by ``<…>``, ``${…}``, ``{…}``, ``*``, ``.`` or ``…`` (the token is then too
  short), the example key IDs of the AWS documentation, and an ``sk-`` followed by lowercase
  words joined by hyphens (``sk-ii-pitera-essence``: a product slug, no vendor's key shape).
- A generic ``key=``/``token=``/``secret:``/``密钥：`` assignment or ``Bearer`` value keeps the
  entropy test: 12+ characters, letters and digits, no placeholder word, not a variable name.
  Only the value blocks (``api_key=[已隐藏]`` stays readable).
- ``ip:port``, ``http(s)://ip:port``, any ``socks4/5://`` URL, a URL or host on a well-known
  proxy port (3128, 1080, 7890, 7891, 8118, 10808, 10809) and such a port standing alone
  (``走 :7890``, ``代理端口：7890``) are ``proxy_ip``. A private or loopback IP (10/8, 172.16/12,
  192.168/16, 127/8, 169.254/16, 100.64/10, 0/8, ``[::1]``, ``[fc…]``, ``[fe80…]``) without a
  port is ``internal_url``. Public IPs (``8.8.8.8``) and version strings (``1.2.3.4.5``) pass;
  an ASCII colon after a CJK character (``售价:1080元``) is not a port.
- Internal hosts: ``localhost``, single-label hosts in a URL (``http://jenkins/``), names ending
  in ``.local .localdomain .home.arpa .internal .intranet .corp .lan`` or an extra domain, and
  names with an ``internal``/``intranet``/``corp``/``lan`` label below the registrable domain
  (``llm.internal.acme.io``, ``jobs.corp.acme-media.cn``). Labels match whole, and the
  registrable label itself is a public name: ``corporate.com``, ``lanzou.com``, ``corp.com``
  pass. Outside URLs a dotted word counts as a host only when it ends in a top-level domain
  that is not a common file extension (``notes.internal.v2.md`` is a file), and not after ``@``
  (a mailbox). URL templates name slots, not machines: ``http://host:port``,
  ``https://your-server:8443/`` pass. An ``api-version=`` query (Azure-style internal endpoints)
  is ``internal_url``.
- Internal paths: ``/home/<user>/…``, ``/Users/<user>/…``, ``/root/…``, ``/data/…``,
  ``/mnt/…``, ``/srv/…``, ``C:\\Users\\…``, UNC ``\\\\host\\share`` and private runtime folders
  under the home (``~/.<tool>-private/…``, ``$HOME/.x_private``); only at the start of a path,
  so ``outputs/<主题>/note.md``, ``skills/shared/…``, ``~/.openclaw/`` (the spec's runtime
  folder) and URL paths pass.
- Env names block in outbound text: every name defined in the ``.env`` in use (except one-word
  names such as ``DEBUG``: ordinary words), ``ANTHROPIC_*``, and every ``UPPER_SNAKE`` name
  ending in ``_API_KEY _TOKEN _SECRET _ACCESS_KEY _SECRET_KEY _PRIVATE_KEY _PASSWORD _COOKIE
  _APP_KEY _BASE_URL _API_BASE``. The names in :data:`PUBLIC_ENV_NAMES` (``OPENAI_API_KEY``,
  ``HF_TOKEN``, ``GITHUB_TOKEN`` …: every AI tutorial names them) only warn
  (``env_name_public``), also when the ``.env`` defines them; their values still block.
- ``context="skill"`` (SKILL.md and references): a skill tells the user which variable to set
  and which port or API version a service uses, so env names, standalone proxy ports and
  ``api-version=`` are not scanned there, nor addresses on the user's own machine
  (``http://127.0.0.1:8501``, ``localhost:3000``: the same everywhere, nothing leaks); keys,
  internal hosts, private IPs, ``ip:port`` of other hosts, socks URLs to them, internal paths
  and ``.env`` values are.
- WARN is about the text disclosing how it was made, not its topic: ``由 AI 生成``, ``本文为 AI
  生成``, ``作为一个大模型，我…``, ``我是 AI 助手``, ``As an AI language model``, chat-template
  markers (``<|im_start|>``), and the names OpenClaw, ChatGPT, Claude and model ids
  (``claude-*``, ``gpt-4o``, ``deepseek-r1``…). Topic words alone (大模型, 大语言模型, AIGC, LLM,
  system prompt, AI 绘画, OpenAI) get no finding.
- ``.env`` values count when they are secret-looking (name with KEY/TOKEN/SECRET/PASS/…, or a
  random-looking value) and at least 6 characters; ``guard_or_die`` and the CLI read
  ``$EASEL_ENV_FILE`` or ``./.env`` when no file is given, ``scan`` only an explicit one.
- Excerpts of keys and ``.env`` values are masked (first 4 characters), so the report does not
  leak what it found; other excerpts show the text (cut at 80 characters).
- A finding inside another finding of the same or higher level is dropped (one report per leak).
- Every pattern runs in linear time (a megabyte of hostile text scans in under half a second):
  patterns that would try every offset start from a literal or run only after a literal
  precheck, and candidates are widened by plain scans, never by backtracking.
"""

from __future__ import annotations

import argparse
import bisect
import functools
import json
import math
import os
import re
import string
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal, NoReturn

BLOCK_CATEGORIES: dict[str, str] = {
    "api_key": "API key / 访问令牌 / 凭据",
    "internal_url": "内部 URL 或域名（内网 IP、localhost、internal/corp 等内部主机、api-version 查询）",
    "proxy_ip": "代理地址（ip:端口、http://ip:端口、socks5://…、代理端口 :7890 等）",
    "internal_path": "内部绝对路径（家目录、/data/、/mnt/、/srv/、C:\\Users\\…、~/.…-private）",
    "env_name": "环境变量名（.env 中定义的、ANTHROPIC_*、*_API_KEY、*_TOKEN、*_SECRET…）",
    "env_secret": ".env 中的变量真值",
}
WARN_CATEGORIES: dict[str, str] = {
    "ai_wording": "AI 自述措辞（由 AI 生成、作为一个大模型、我是 AI 助手、OpenClaw、Claude…）",
    "model_name": "模型名（claude-*、gpt-*、gpt-image-*…）",
    "env_name_public": "公开常见的环境变量名（OPENAI_API_KEY、HF_TOKEN、GITHUB_TOKEN…）",
}
REDACTION = "[已隐藏]"
EXIT_BLOCKED = 7
EXCERPT_LIMIT = 80
CONTEXTS = ("outbound", "skill")

Level = Literal["BLOCK", "WARN"]


@dataclass(frozen=True, slots=True)
class Finding:
    category: str
    level: Level
    start: int
    end: int
    excerpt: str

    @property
    def description(self) -> str:
        return BLOCK_CATEGORIES.get(self.category) or WARN_CATEGORIES.get(self.category, "")

    def to_dict(self) -> dict[str, object]:
        return {**asdict(self), "description": self.description}


# --- shared helpers --------------------------------------------------------------------------

# Words that make a *generic* secret value (key=…, Bearer …) a placeholder. Vendor-prefixed
# tokens never consult this list: a real key must not pass because it spells "fake".
PLACEHOLDER_MARKERS = (
    "xxxx",
    "your",
    "example",
    "placeholder",
    "dummy",
    "fake",
    "sample",
    "redacted",
    "changeme",
    "replace",
    "123456789",
    "abcdefgh",
    "****",
    "...",
)


def _entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def _looks_random(value: str, min_length: int) -> bool:
    """A credential, not a placeholder or a name: long, mixed letters and digits, high entropy."""
    if len(value) < min_length:
        return False
    lowered = value.lower()
    if any(marker in lowered for marker in PLACEHOLDER_MARKERS):
        return False
    if not (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)):
        return False
    if re.fullmatch(r"[A-Z0-9]+(?:_[A-Z0-9]+)+|[a-z0-9]+(?:_[a-z0-9]+)+", value):
        return False  # SCREAMING_SNAKE or snake_case: a variable name
    return _entropy(value) >= 3.0


def _mask(value: str) -> str:
    return f"{value[:4]}…（{len(value)} 字符，已隐藏）"


def _plain_excerpt(value: str) -> str:
    return value if len(value) <= EXCERPT_LIMIT else value[: EXCERPT_LIMIT - 1] + "…"


def _trim_trailing(text: str, start: int, end: int, chars: str = ".,;:!?'\"") -> int:
    while end > start and text[end - 1] in chars:
        end -= 1
    return end


def _plain(category: str, text: str, start: int, end: int) -> Finding:
    return Finding(category, "BLOCK", start, end, _plain_excerpt(text[start:end]))


def _secret(category: str, text: str, start: int, end: int) -> Finding:
    return Finding(category, "BLOCK", start, end, _mask(text[start:end]))


def _may_match(haystack: str, hint: str | re.Pattern[str]) -> bool:
    """Whether ``hint`` (a literal, or a pattern that starts with one) occurs: the cheap test
    that lets a scan skip a pattern which would try every offset. The tests replace it with one
    that always says yes, to show that skipping never changes a finding."""
    if isinstance(hint, str):
        return hint in haystack
    return hint.search(haystack) is not None


def _inside(offset: int, spans: list[tuple[int, int]]) -> bool:
    """Whether ``offset`` falls in one of ``spans`` (sorted and disjoint, as finditer gives)."""
    index = bisect.bisect_right(spans, (offset, sys.maxsize)) - 1
    return index >= 0 and spans[index][0] <= offset < spans[index][1]


# --- api_key ---------------------------------------------------------------------------------

_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
# Where a vendor key can start, as patterns that each begin with one literal character, so the
# regex engine skips ahead to it (an alternation of the prefixes would try every offset and
# costs several times more). A hit counts only at the start of a token run; the full vendor
# pattern is then matched there, once.
_VENDOR_HINTS = (
    re.compile(r"-(?:(?<=sk-)|(?<=glpat-)|(?<=xai-)|(?<=pplx-)|(?<=pypi-)|(?<=xox[abposr]-))"),
    re.compile(
        r"_(?:(?<=[srp]k_)|(?<=gh[pousr]_)|(?<=github_)|(?<=hf_)|(?<=gsk_)|(?<=r8_)|(?<=npm_))"
    ),
    re.compile(r"A(?:KIA|SIA|Iza|KID|KLT)"),
    re.compile(r"LTAI"),
)
_VENDOR_PREFIX_LIMIT = len("github_")  # the longest head before a hint's separator
_ALNUM = frozenset(string.ascii_letters + string.digits)
# Each vendor's body is a named group that closes its alternative (``match.lastgroup``).
_VENDOR_KEY = re.compile(
    r"""
      sk-(?P<sk_kind>ant-(?:api\d\d-|admin\d\d-)?|proj-|or-v1-|svcacct-|admin-)?
         (?P<openai>[A-Za-z0-9_-]{16,300})
    | [spr]k_(?:live|test)_(?P<stripe>[A-Za-z0-9]{10,300})
    | gh[pousr]_(?P<github>[A-Za-z0-9]{30,300})
    | github_pat_(?P<github_pat>[A-Za-z0-9_]{22,300})
    | glpat-(?P<gitlab>[A-Za-z0-9_-]{20,100})
    | xox[abposr]-(?P<slack>[A-Za-z0-9-]{10,300})
    | hf_(?P<huggingface>[A-Za-z0-9]{30,100})
    | gsk_(?P<groq>[A-Za-z0-9]{20,200})
    | xai-(?P<xai>[A-Za-z0-9]{20,200})
    | pplx-(?P<perplexity>[A-Za-z0-9]{20,200})
    | r8_(?P<replicate>[A-Za-z0-9]{20,200})
    | npm_(?P<npm>[A-Za-z0-9]{30,100})
    | pypi-(?P<pypi>AgE[A-Za-z0-9_-]{30,300})
    | (?:AKIA|ASIA)(?P<aws>[0-9A-Z]{16})(?![0-9A-Za-z])
    | AIza(?P<google>[0-9A-Za-z_-]{35})(?![0-9A-Za-z_-])
    | AKID(?P<tencent>[0-9A-Za-z]{32})(?![0-9A-Za-z])
    | AKLT(?P<volcengine>[0-9A-Za-z_-]{20,100})
    | LTAI(?P<aliyun>[0-9A-Za-z]{12,30})(?![0-9A-Za-z])
    """,
    re.VERBOSE,
)
# The example credentials of the AWS documentation: published, never valid.
_DOCUMENTED_EXAMPLE_KEYS = frozenset({"AKIAIOSFODNN7EXAMPLE", "ASIAIOSFODNN7EXAMPLE"})
# ``sk-`` then lowercase words or numbers (with a unit) joined by hyphens or underscores: a
# product slug such as ``sk-ii-pitera-essence-230ml``; no vendor issues keys of that shape.
_SLUG = re.compile(r"(?:[a-z]+|[0-9]+[a-z]{0,3})(?:[-_](?:[a-z]+|[0-9]+[a-z]{0,3}))+")
_YOUR_PART = re.compile(r"(?:^|[-_])your(?:[-_]|$)", re.IGNORECASE)

_JWT_RUN = re.compile(r"eyJ[A-Za-z0-9_.-]{30,}")
_JWT = re.compile(r"eyJ[A-Za-z0-9_-]{10,2000}\.eyJ[A-Za-z0-9_-]{10,4000}\.[A-Za-z0-9_-]{10,2000}")
_PRIVATE_KEY_BEGIN = re.compile(r"-----BEGIN (?:[A-Z]{1,12} ){0,2}PRIVATE KEY-----")
_PRIVATE_KEY_END = re.compile(r"-----END (?:[A-Z]{1,12} ){0,2}PRIVATE KEY-----")
_BEARER = re.compile(r"Bearer[ \t]{1,5}(?P<value>[A-Za-z0-9._~+/=-]{20,500})")
_SECRET_ASSIGNMENT = re.compile(  # matched on the ASCII-lowercased text, like the warnings
    r"""
    (?:
        (?:api[_-]?key|apikey|secret|token|access[_-]?key|password|passwd|pwd|credential)
        [a-z0-9_]{0,20}
      | 密钥|令牌|口令|密码
    )
    ["']?[ \t]{0,5}[:=：][ \t]{0,5}["']?
    (?P<value>[a-z0-9_\-+/=]{12,512})
    """,
    re.VERBOSE,
)
# A keyword every _SECRET_ASSIGNMENT match holds, found by one scan that skips ahead to the few
# characters the keywords start with: when none is in the text, the pattern (which tries every
# offset) cannot match and is not run.
_SECRET_KEYWORD = re.compile(r"api|secret|token|access|pass|pwd|credential|密钥|令牌|口令|密码")


def _is_vendor_placeholder(kind: str, token: str, body: str) -> bool:
    """The unmistakable placeholders; nothing else about the body lets a vendor key pass."""
    if token in _DOCUMENTED_EXAMPLE_KEYS:
        return True
    if not body.strip("xX_-") or "xxxxxx" in body.lower():
        return True  # sk-xxxxxxxx, sk-proj-XXXX-XXXX, sk-abcd…xxxxxx…: masked
    if body[:4].lower() == "your" or _YOUR_PART.search(body):
        return True  # sk-your-key-here, ghp_YOUR_TOKEN
    return kind == "openai" and _SLUG.fullmatch(body) is not None


def _vendor_key_starts(text: str) -> list[int]:
    starts = set()
    for hint in _VENDOR_HINTS:
        for match in hint.finditer(text):
            start = match.start()
            floor = max(0, start - _VENDOR_PREFIX_LIMIT)
            while start > floor and text[start - 1] in _ALNUM:
                start -= 1  # from the separator back to the head: sk-, github_, xoxb-
            starts.add(start)
    return sorted(starts)


def _vendor_keys(text: str) -> Iterator[Finding]:
    covered_until = 0
    for start in _vendor_key_starts(text):
        if start < covered_until or (start > 0 and text[start - 1] in _TOKEN_CHARS):
            continue
        match = _VENDOR_KEY.match(text, start)
        if match is None:
            continue
        end = match.end()
        kind = match.lastgroup or ""
        if not _is_vendor_placeholder(kind, match.group(), match.group(kind)):
            covered_until = end
            yield _secret("api_key", text, start, end)


def _api_keys(text: str, folded: str) -> Iterator[Finding]:
    yield from _vendor_keys(text)
    for run in _JWT_RUN.finditer(text):
        if run.start() > 0 and text[run.start() - 1] in _TOKEN_CHARS:
            continue
        match = _JWT.match(text, run.start(), run.end())
        if match is not None:
            yield _secret("api_key", text, match.start(), match.end())
    yield from _private_keys(text)
    for match in _BEARER.finditer(text):
        if _looks_random(match.group("value"), 12):
            yield _secret("api_key", text, match.start("value"), match.end("value"))
    if not _may_match(folded, _SECRET_KEYWORD):
        return
    for match in _SECRET_ASSIGNMENT.finditer(folded):
        start, end = match.span("value")
        if _looks_random(text[start:end], 12):
            yield _secret("api_key", text, start, end)


def _private_keys(text: str) -> Iterator[Finding]:
    """A PEM private key block, up to its END line when there is one."""
    if not _may_match(text, "PRIVATE KEY-----"):
        return
    ends = [match.end() for match in _PRIVATE_KEY_END.finditer(text)]
    covered_until = 0
    for begin in _PRIVATE_KEY_BEGIN.finditer(text):
        if begin.start() < covered_until:
            continue
        following = bisect.bisect_right(ends, begin.end())
        end = begin.end()
        if following < len(ends) and ends[following] - begin.end() <= 20000:
            end = ends[following]
        covered_until = end
        yield _secret("api_key", text, begin.start(), end)


# --- internal_url and proxy_ip ---------------------------------------------------------------

_URL_CHARS = (
    r"[^\s<>\"'`()\[\]{}|\\^（）【】《》「」，。、；：！？\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]"
)
# Brackets end a URL (Markdown writes ``[text](url)``) except around an IPv6 host.
_URL = re.compile(
    r"(?=[A-Za-z])(?<![A-Za-z0-9+.-])(?P<scheme>[A-Za-z][A-Za-z0-9+.-]{0,15})://(?P<rest>"
    r"\[[0-9A-Fa-f:.]{2,45}\]" + _URL_CHARS + "{0,2048}|" + _URL_CHARS + "{1,2048})"
)
_IPV4 = r"(?:\d{1,3})\.(?:\d{1,3})\.(?:\d{1,3})\.(?:\d{1,3})"
_BARE_IP = re.compile(
    r"(?=[0-9])(?<![0-9A-Za-z.])(?P<ip>"
    + _IPV4
    + r")(?![0-9]|\.[0-9])(?::(?P<port>\d{1,5})(?![0-9]))?"
)
# What every _BARE_IP match starts with; found much faster than _BARE_IP tries every offset.
_BARE_IP_HINT = re.compile(r"\.(?<=[0-9]\.)\d{1,3}\.\d{1,3}\.\d")  # from its literal dot
_PROXY_SCHEMES = ("socks4", "socks4a", "socks5", "socks5h", "socks")
# squid, socks, Clash (http and socks), Privoxy, v2rayN (socks and http).
PROXY_PORTS = frozenset({"3128", "1080", "7890", "7891", "8118", "10808", "10809"})
_PROXY_PORT = re.compile(r":(?:3128|1080|7890|7891|8118|10808|10809)(?![0-9A-Za-z])")
# "代理 1080 元" is a reseller's price: a bare number counts only after a word for a port.
_PROXY_PORT_WORD = re.compile(
    r"(?:(?:代理|proxy)\s{0,2})?(?:端口|port)\s{0,2}号?\s{0,2}[:：=]?\s{0,2}"
    r"(?P<port>3128|1080|7890|7891|8118|10808|10809)(?![0-9A-Za-z])"
)
# A proxy port "stands alone" after nothing a host, a number or a word could end with.
_PORT_OPENERS = frozenset(" \t\r\n(（[【「『<《\"'`“‘=*")
_API_VERSION = re.compile(r"api-version=[a-z0-9._-]{1,40}")

# A label that makes a host internal wherever it stands below the registrable domain, the
# pseudo top-level domains of private networks, and second-level public suffixes (``com.cn``).
INTERNAL_LABELS = frozenset({"internal", "intranet", "corp", "lan"})
INTERNAL_SUFFIXES = ("internal", "intranet", "corp", "lan", "local", "localdomain", "home.arpa")
_PRIVATE_TLDS = frozenset({*INTERNAL_SUFFIXES, "localhost"} - {"home.arpa"})
_SECOND_LEVEL_SUFFIXES = frozenset({"com", "net", "org", "gov", "edu", "co", "ac", "or", "ne"})
# Top-level domains a bare dotted word must end with to be taken for a host (two-letter country
# codes, minus the ones that are common file extensions, plus the usual generic ones).
_FILE_EXTENSION_TLDS = frozenset({"md", "py", "sh", "rs", "pl", "so", "ps", "js", "ts", "sql"})
_GENERIC_TLDS = frozenset({
    "com", "net", "org", "info", "biz", "io", "ai", "app", "dev", "co", "cloud", "tech", "xyz",
    "top", "site", "online", "vip", "shop", "store", "ltd", "work", "club", "live", "pro", "art",
    "link", "one", "group", "team", "tools", "network", "services", "systems", "company",
    "global", "asia", "mobi", "name", "space", "fun", "website", "icu", "wang", "ink", "red",
})  # fmt: skip
_HOST_RUN = re.compile(r"[a-z0-9.-]+")
# Cheap literal spots that every internal host outside a URL holds: a dot next to an internal
# label or before a private suffix. Starting with the literal dot, the scan skips ahead.
_HOST_HINT = re.compile(
    r"\.(?:(?<=internal\.)|(?<=intranet\.)|(?<=corp\.)|(?<=lan\.)"
    r"|(?=internal|intranet|corp|lan|local|home\.arpa))"
)
_PORT_SUFFIX = re.compile(r":\d{1,5}(?![0-9])")
_HOST_CHARS = frozenset(string.ascii_lowercase + string.digits + ".-")
_HOST_LIMIT = 253


@functools.lru_cache(maxsize=4096)
def _ipv4_octets(candidate: str) -> tuple[int, ...] | None:
    parts = candidate.split(".")
    if len(parts) != 4 or not all(part.isdigit() and len(part) <= 3 for part in parts):
        return None
    octets = tuple(int(part) for part in parts)
    return octets if max(octets) <= 255 else None


def is_private_ipv4(candidate: str) -> bool:
    """10/8, 172.16/12, 192.168/16 (RFC 1918), 127/8, 169.254/16, 100.64/10 (CGNAT), 0/8."""
    octets = _ipv4_octets(candidate)
    if octets is None:
        return False
    first, second = octets[0], octets[1]
    return (
        first in (0, 10, 127)
        or (first == 172 and 16 <= second <= 31)
        or (first == 192 and second == 168)
        or (first == 169 and second == 254)
        or (first == 100 and 64 <= second <= 127)
    )


def is_loopback_host(host: str) -> bool:
    """``localhost``, 127/8, ``0.0.0.0`` and ``[::1]``: the same on every machine."""
    host = host.lower().rstrip(".")
    if host in ("localhost", "[::1]", "[0:0:0:0:0:0:0:1]") or host.endswith(".localhost"):
        return True
    octets = _ipv4_octets(host)
    return octets is not None and (octets[0] == 127 or octets == (0, 0, 0, 0))


def _is_private_ipv6(bracketed: str) -> bool:
    """``[::1]``, unique local ``[fc00::/7]`` and link-local ``[fe80::/10]``."""
    address = bracketed.strip("[]").lower()
    if address in ("::1", "0:0:0:0:0:0:0:1"):
        return True
    return address[:2] in ("fc", "fd") or address[:3] in ("fe8", "fe9", "fea", "feb")


def _domains(extra_domains: Iterable[str]) -> tuple[str, ...]:
    return tuple(d.strip(".").lower() for d in extra_domains if d.strip("."))


# Single-label "hosts" that name the slot in a URL template (``http://host:port``), not a machine.
_TEMPLATE_HOSTS = frozenset({"host", "hostname", "server", "domain", "ip", "addr", "address"})
_PLACEHOLDER_HOST = re.compile(r"your(?:[-_]|domain|server|host|company|site)")  # also dotted


def is_internal_host(host: str, extra_domains: Iterable[str] = ()) -> bool:
    host = host.lower().rstrip(".")
    if not host or host in _TEMPLATE_HOSTS or _PLACEHOLDER_HOST.match(host):
        return False
    if host[0] == "[":
        return _is_private_ipv6(host)
    if host == "localhost" or host.endswith(".localhost") or is_private_ipv4(host):
        return True
    if _ipv4_octets(host) is None and "." not in host:
        return True  # a single-label name only resolves inside a network
    if any(host == domain or host.endswith("." + domain) for domain in _domains(extra_domains)):
        return True
    labels = host.split(".")
    return _has_private_suffix(labels) or _has_internal_label(labels)


def _has_private_suffix(labels: list[str]) -> bool:
    return labels[-1] in _PRIVATE_TLDS or labels[-2:] == ["home", "arpa"]


def _has_internal_label(labels: list[str]) -> bool:
    """An internal label below the registrable domain: ``llm.internal.acme.io`` but not
    ``internal.com`` or ``corp.com.cn``, whose owner merely chose that name."""
    public = 3 if len(labels) >= 3 and labels[-2] in _SECOND_LEVEL_SUFFIXES else 2
    return not INTERNAL_LABELS.isdisjoint(labels[:-public])


def _ends_in_public_tld(labels: list[str]) -> bool:
    last = labels[-1]
    if len(last) == 2 and last.isalpha():
        return last not in _FILE_EXTENSION_TLDS
    return last in _GENERIC_TLDS


def _network_findings(
    text: str, folded: str, extra_domains: tuple[str, ...], context: str
) -> list[Finding]:
    findings, url_spans = _urls(text, folded, extra_domains, context)
    bare_ips = _BARE_IP.finditer(text) if _may_match(text, _BARE_IP_HINT) else ()
    for match in bare_ips:
        start = match.start()
        ip, port = match.group("ip", "port")
        if (url_spans and _inside(start, url_spans)) or _ipv4_octets(ip) is None:
            continue
        if context == "skill" and is_loopback_host(ip):
            continue
        if port and 0 < int(port) <= 65535:
            end = match.end()
            findings.append(Finding("proxy_ip", "BLOCK", start, end, text[start:end]))
        elif is_private_ipv4(ip):
            end = match.end("ip")
            findings.append(Finding("internal_url", "BLOCK", start, end, text[start:end]))
    findings.extend(_bare_hosts(text, folded, extra_domains, url_spans))
    if context != "skill":
        findings.extend(_proxy_ports(text, folded, url_spans))
        for match in _API_VERSION.finditer(folded):  # starts with a literal: skips ahead
            if not _inside(match.start(), url_spans):
                findings.append(_plain("internal_url", text, match.start(), match.end()))
    return findings


def _urls(
    text: str, folded: str, extra_domains: tuple[str, ...], context: str
) -> tuple[list[Finding], list[tuple[int, int]]]:
    """The findings of every URL, and the spans of all URLs (bare matches inside are skipped)."""
    findings: list[Finding] = []
    url_spans: list[tuple[int, int]] = []
    if not _may_match(text, "://"):  # the pattern tries every offset
        return findings, url_spans
    outbound = context != "skill"
    for match in _URL.finditer(text):
        start = match.start()
        end = _trim_trailing(text, start, match.end())
        url_spans.append((start, end))
        scheme = match.group("scheme").lower()
        rest = text[match.start("rest") : end]
        authority, _, path = _split_authority(rest)
        userinfo, _, hostport = authority.rpartition("@")
        host, port = _split_host_port(hostport)
        if userinfo and ":" in userinfo:
            password = userinfo.split(":", 1)[1]
            if password and not any(m in password.lower() for m in PLACEHOLDER_MARKERS):
                password_start = match.start("rest") + len(userinfo) - len(password)
                findings.append(
                    _secret("api_key", text, password_start, password_start + len(password))
                )
        if scheme == "file":
            path_start = match.start("rest") + len(authority)
            local = _INTERNAL_PATH.match(text[path_start:end])
            if local is not None:
                local_end = _trim_trailing(text, path_start, path_start + local.end())
                findings.append(_plain("internal_path", text, path_start, local_end))
            continue
        if not outbound and is_loopback_host(host):
            continue  # a skill points at a service on the user's own machine: nothing leaks
        excerpt = _plain_excerpt(text[start:end])
        if (
            scheme in _PROXY_SCHEMES
            or (outbound and port in PROXY_PORTS)
            or (_ipv4_octets(host) is not None and port and path in ("", "/"))
        ):
            findings.append(Finding("proxy_ip", "BLOCK", start, end, excerpt))
        elif (host and is_internal_host(host, extra_domains)) or (
            outbound and "api-version=" in folded[start:end]  # an internal API's endpoint
        ):
            findings.append(Finding("internal_url", "BLOCK", start, end, excerpt))
    return findings, url_spans


def _split_authority(rest: str) -> tuple[str, str, str]:
    for index, char in enumerate(rest):
        if char in "/?#":
            return rest[:index], char, rest[index:]
    return rest, "", ""


def _split_host_port(hostport: str) -> tuple[str, str]:
    host, colon, port = hostport.rpartition(":")
    if colon and port.isdigit():
        return host, port
    if colon and host and not host.endswith(":") and port.isalpha():
        return host, port  # a template such as host:port; the host is judged alone
    return hostport, ""


def _host_run_start(folded: str, position: int, floor: int) -> int:
    """Where the run of host characters that holds ``position`` starts (not before ``floor``);
    -1 when it is longer than any host name."""
    start = position
    while start > floor and folded[start - 1] in _HOST_CHARS:
        start -= 1
        if position - start > _HOST_LIMIT:
            return -1
    return start


def _bare_hosts(
    text: str, folded: str, extra_domains: tuple[str, ...], url_spans: list[tuple[int, int]]
) -> Iterator[Finding]:
    """Internal host names written outside a URL (``db01.prod.lan:5432``, ``localhost``)."""
    hints = [match.start() for match in _HOST_HINT.finditer(folded)]
    for needle in ("localhost", *extra_domains):
        position = folded.find(needle)
        while position != -1:
            hints.append(position)
            position = folded.find(needle, position + len(needle))
    covered_until = 0
    for hint in sorted(hints):
        if hint < covered_until:
            continue
        start = _host_run_start(folded, hint, covered_until)
        run = _HOST_RUN.match(folded, hint)
        end = run.end() if run is not None else hint
        covered_until = end
        if start < 0 or end - start > _HOST_LIMIT:
            continue
        while start < end and folded[start] in ".-":
            if folded[start] == ".":
                start = end  # ``.env.local``, ``(.internal)``: a file name or a suffix, no host
                break
            start += 1
        end = _trim_trailing(folded, start, end, ".-")
        if start >= end:
            continue
        if start > 0 and folded[start - 1] in "@_/\\" and folded[start - 2 : start] != "//":
            continue  # a mailbox, an identifier or a path (but //host/ is a link)
        if url_spans and _inside(start, url_spans):
            continue
        host = folded[start:end]
        if not _is_bare_internal_host(host, extra_domains):
            continue
        port = _PORT_SUFFIX.match(folded, end)
        if port is not None:
            end = port.end()
        yield _plain("internal_url", text, start, end)


def _is_bare_internal_host(host: str, extra_domains: tuple[str, ...]) -> bool:
    if host == "localhost":
        return True
    labels = host.split(".")
    if len(labels) < 2 or not all(labels) or labels[-1].isdigit():
        return False
    if extra_domains and any(host == d or host.endswith("." + d) for d in extra_domains):
        return True
    return _has_private_suffix(labels) or (
        _ends_in_public_tld(labels) and _has_internal_label(labels)
    )


def _proxy_ports(text: str, folded: str, url_spans: list[tuple[int, int]]) -> Iterator[Finding]:
    """A well-known proxy port with no host before it (``走 :7890 出网``), after a host name
    (``vps.example.com:7890``) or named as the proxy's port (``代理端口：7890``)."""
    for match in _PROXY_PORT.finditer(text):  # starts with a literal colon: skips ahead
        colon = match.start()
        if url_spans and _inside(colon, url_spans):
            continue
        before = folded[colon - 1] if colon > 0 else " "
        if before in _PORT_OPENERS:
            yield _plain("proxy_ip", text, colon, match.end())
        elif before in _HOST_CHARS:
            start = _host_run_start(folded, colon, 0)
            labels = folded[start:colon].split(".") if start >= 0 else []
            if len(labels) >= 2 and all(labels) and _ends_in_public_tld(labels):
                yield _plain("proxy_ip", text, start, match.end())
    if _may_match(folded, "端口") or _may_match(folded, "port"):
        for match in _PROXY_PORT_WORD.finditer(folded):
            start = match.start()
            if start > 0 and folded[start - 1] in _WORD_CHARS and folded[start] in _WORD_CHARS:
                continue  # "report 1080", "export 7890": port inside another word
            if not (url_spans and _inside(start, url_spans)):
                yield _plain("proxy_ip", text, match.start("port"), match.end("port"))


# --- internal_path ---------------------------------------------------------------------------

_PATH_CHARS = r"[^\s\"'`<>()\[\]{}|*?（）【】《》「」，。；：！？、]"
_INTERNAL_PATH = re.compile(
    r"(?=[/A-Za-z\\])(?<![A-Za-z0-9_.~/\\:-])(?:"
    r"/(?:home|Users)/[A-Za-z0-9._-]{1,64}(?:/" + _PATH_CHARS + "{0,1024})?"
    r"|/(?:root|data|mnt|srv)/" + _PATH_CHARS + "{1,1024}"
    r"|[A-Za-z]:[\\/](?:Users|Documents and Settings)[\\/]" + _PATH_CHARS + "{1,1024}"
    r"|\\\\[A-Za-z0-9._-]{1,63}\\" + _PATH_CHARS + "{1,1024}"
    r")"
)
# Every _INTERNAL_PATH match holds one of these (the pattern tries every offset); the first is
# a pattern that starts with a literal slash, cheaper than one search per folder name.
_INTERNAL_PATH_NEEDLES = (
    re.compile(r"/(?:home|root|data|mnt|srv)/"), "Users", "Documents and Settings", "\\\\",
)  # fmt: skip
# A folder under the home whose name says it is private: ``~/.xhs-private/``, ``$HOME/.a_private``.
_HOME_PATH = re.compile(r"(?:~|\$HOME|\$\{HOME\})(?P<path>/" + _PATH_CHARS + "{1,1024})")


_PRIVATE_HINT = re.compile("private", re.IGNORECASE)  # as _is_private_folder folds the name


def _is_private_folder(name: str) -> bool:
    name = name.lstrip(".").lower()
    return name.endswith("private") and (len(name) == 7 or name[-8] in "-_.")


def _internal_paths(text: str) -> Iterator[Finding]:
    if any(_may_match(text, needle) for needle in _INTERNAL_PATH_NEEDLES):
        for match in _INTERNAL_PATH.finditer(text):
            match_end = _trim_trailing(text, match.start(), match.end())
            yield _plain("internal_path", text, match.start(), match_end)
    if not _may_match(text, _PRIVATE_HINT) or not (
        _may_match(text, "~/") or _may_match(text, "HOME")
    ):
        return
    for match in _HOME_PATH.finditer(text):
        start = match.start()
        if start > 0 and text[start - 1] in _TOKEN_CHARS:
            continue
        if any(_is_private_folder(part) for part in match.group("path").split("/")):
            yield _plain("internal_path", text, start, _trim_trailing(text, start, match.end()))


# --- env_name and env_secret -----------------------------------------------------------------

# Names every AI tutorial mentions: they reveal nothing about one setup, so they only warn.
PUBLIC_ENV_NAMES = frozenset(
    {
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "DEEPSEEK_API_KEY",
        "DASHSCOPE_API_KEY",
        "HF_TOKEN",
        "HUGGING_FACE_HUB_TOKEN",
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "REPLICATE_API_TOKEN",
    }
)
SECRET_ENV_SUFFIXES = (
    "API_KEY", "TOKEN", "SECRET", "ACCESS_KEY", "SECRET_KEY", "PRIVATE_KEY", "PASSWORD", "COOKIE",
    "APP_KEY", "BASE_URL", "API_BASE",
)  # fmt: skip
# Starts with the literal underscore; the name's head is then read backwards by a plain scan.
_SECRET_ENV_SUFFIX = re.compile(
    r"_(?:" + "|".join(sorted(SECRET_ENV_SUFFIXES, key=len, reverse=True)) + r")(?![A-Za-z0-9_])"
)
_ENV_NAME_CHARS = frozenset(string.ascii_uppercase + string.digits + "_")
# Greedy with nothing after it, so it never backtracks; the ends are checked in code.
_ANTHROPIC_NAME = re.compile(r"ANTHROPIC_[A-Z0-9_]*")
_NAME_LIMIT = 64
_SECRET_NAME = re.compile(
    r"KEY|TOKEN|SECRET|PASS|PWD|AUTH|CREDENTIAL|COOKIE|SESSION|PRIVATE|DSN|SIGNATURE",
    re.IGNORECASE,
)
_ENV_LINE = re.compile(r"^\s*(?:export\s+)?(?P<name>[A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(?P<value>.*)$")
_TRIVIAL_VALUES = frozenset({"true", "false", "yes", "no", "on", "off", "none", "null"})
_IDENTIFIER_CHARS = frozenset(string.ascii_letters + string.digits + "_")


def read_env_file(path: str | os.PathLike[str]) -> dict[str, str]:
    """``NAME=value`` pairs of a dotenv file; an unreadable file yields ``{}``."""
    try:
        content = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    values: dict[str, str] = {}
    for line in content.splitlines():
        match = _ENV_LINE.match(line)
        if match is None or line.lstrip().startswith("#"):
            continue
        value = match.group("value").strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        else:
            value = re.split(r"\s+#", value, maxsplit=1)[0].strip()
        values[match.group("name")] = value
    return values


def _secret_env_values(env: Mapping[str, str]) -> dict[str, str]:
    secrets: dict[str, str] = {}
    for name, value in env.items():
        if len(value) < 6 or value.lower() in _TRIVIAL_VALUES:
            continue
        if _SECRET_NAME.search(name) or _looks_random(value, 8):
            secrets[name] = value
    return secrets


def _env_secrets(text: str, env: Mapping[str, str]) -> Iterator[Finding]:
    for name, value in _secret_env_values(env).items():
        position = text.find(value)
        while position != -1:
            excerpt = f"{name} 的值（{len(value)} 字符，已隐藏）"
            yield Finding("env_secret", "BLOCK", position, position + len(value), excerpt)
            position = text.find(value, position + len(value))


def _env_name(text: str, start: int, end: int) -> Finding:
    name = text[start:end]
    if name in PUBLIC_ENV_NAMES:
        return Finding("env_name_public", "WARN", start, end, name)
    return Finding("env_name", "BLOCK", start, end, name)


def _env_names(text: str, env: Mapping[str, str]) -> Iterator[Finding]:
    """Names of secret environment variables: they tell how the publisher is set up."""
    for match in _SECRET_ENV_SUFFIX.finditer(text):  # starts with a literal: skips ahead
        start = suffix = match.start()
        while start > 0 and text[start - 1] in _ENV_NAME_CHARS and suffix - start <= _NAME_LIMIT:
            start -= 1
        if start > 0 and text[start - 1] in _IDENTIFIER_CHARS:
            continue  # mixed case or too long: an identifier, not an UPPER_SNAKE name
        while start < suffix and not text[start].isalpha():
            start += 1  # a name starts with a letter
        if start < suffix:
            yield _env_name(text, start, match.end())
    for match in _ANTHROPIC_NAME.finditer(text):
        start, end = match.start(), len(match.group().rstrip("_")) + match.start()
        if start > 0 and text[start - 1] in _IDENTIFIER_CHARS:
            continue
        if match.end() < len(text) and text[match.end()] in _IDENTIFIER_CHARS:
            continue  # ANTHROPIC_Client: mixed case, an identifier
        if end > start + len("ANTHROPIC_"):
            yield _env_name(text, start, end)
    for name in env:
        # A one-word name (DEBUG, PORT) is an ordinary word; a name with a part is a setting.
        if "_" not in name.strip("_") and not _SECRET_NAME.search(name):
            continue
        position = text.find(name)
        while position != -1:
            end = position + len(name)
            before = text[position - 1] if position > 0 else " "
            after = text[end] if end < len(text) else " "
            if before not in _IDENTIFIER_CHARS and after not in _IDENTIFIER_CHARS:
                yield _env_name(text, position, end)
            position = text.find(name, end)


# --- WARN: ai_wording and model_name ---------------------------------------------------------

# Matched on the ASCII-lowercased text (same offsets): case-sensitive patterns that start with
# literals let the regex engine skip ahead instead of trying every offset. Each alternative is
# the text saying how it was made (or a chat template left in it), never the topic alone:
# "聊聊国产大模型" is about models, "作为一个大模型，我建议" is one speaking.
_MADE_BY = r"(?:ai|人工智能|大模型|机器)\s?(?:自动|辅助)?\s?(?:生成|创作|撰写|写作|制作|改写|润色|整理|翻译|合成)"
_SELF_ROLE = r"(?:ai|人工智能)\s?(?:语言模型|大模型|模型|助手|助理|机器人)"
_SELF_BARE = r"(?:ai|人工智能|大语言模型|语言模型|大模型|智能助手|聊天机器人)"
_QUANTIFIER = r"(?:一个|一名|一款|一位|个)?\s?"
_SENTENCE_END = r"(?=\s?(?:[，,。.!！?？:：；;、~～…]|$))"
_AI_WORDING = re.compile(
    r"由\s?" + _MADE_BY
    + r"|(?<=[文篇容图片频案稿均皆纯部全])(?:为|系|是)\s?(?:ai|人工智能)\s?"
    r"(?:自动|辅助)?\s?(?:生成|创作|撰写|制作)"
    + r"|(?:本文|本篇|全文|此文|该文|本帖|本笔记|以下内容|以上内容)(?:内容)?\s?"
    r"(?:使用|采用|借助|经过?)\s?(?:ai|人工智能|大模型)"
    + r"|作为" + _QUANTIFIER + r"(?:" + _SELF_ROLE + "|" + _SELF_BARE + r")(?=\s?[，,]?\s?我)"
    + r"|我是" + _QUANTIFIER + r"(?:" + _SELF_ROLE + "|" + _SELF_BARE + ")" + _SENTENCE_END
    + r"|以下是(?:我)?为(?:你|您)(?:生成|撰写|创作|写)的"
    + r"|as an ai (?:language model|assistant)|as an ai(?: model)?(?=\s?[,，.。])"
    + r"|i(?: am|'m) an ai(?: language model| assistant)?(?=\s?[,，.。!]|$)"
    + r"|<\|im_(?:start|end)\|>|<\|endoftext\|>|\[/?inst\]"
    + r"|openclaw|chatgpt|claude(?![a-z0-9_-])"
)  # fmt: skip
_MODEL_NAME = re.compile(
    r"claude-[a-z0-9][a-z0-9.-]{0,40}"
    r"|gpt-image-[0-9][a-z0-9.-]{0,20}"
    r"|gpt-[0-9][a-z0-9.-]{0,20}"
    r"|gpt-oss-[0-9]{1,4}[a-z0-9.-]{0,10}"
    r"|o[134]-(?:mini|pro|preview)[a-z0-9.-]{0,20}"
    r"|gemini-[0-9][a-z0-9.-]{0,30}"
    r"|deepseek-(?:v[0-9]|r[0-9]|chat|coder|reasoner)[a-z0-9.-]{0,20}"
    r"|qwen[0-9.]{0,5}-[a-z0-9][a-z0-9.-]{0,30}"
    r"|llama-?[0-9][a-z0-9.-]{0,30}"
    r"|glm-[0-9][a-z0-9.-]{0,20}"
    r"|doubao-[a-z0-9][a-z0-9.-]{0,30}"
    r"|kimi-k[0-9][a-z0-9.-]{0,20}"
    r"|moonshot-v[0-9][a-z0-9.-]{0,20}"
    r"|mistral-[a-z][a-z0-9.-]{0,30}"
    r"|dall-e-[0-9]"
    r"|seedream-[0-9][a-z0-9.-]{0,10}"
    r"|sora-[0-9]"
)
_ASCII_LOWER = bytes.maketrans(string.ascii_uppercase.encode(), string.ascii_lowercase.encode())
_WORD_CHARS = frozenset(string.ascii_letters + string.digits + "_")


def _ascii_fold(text: str) -> str:
    """Lowercase ASCII letters only, so every offset stays valid for ``text``."""
    if text.isascii():
        return text.lower()
    # In UTF-8 the bytes A-Z only ever stand for themselves: folding the bytes is exact (and
    # many times faster than str.translate on CJK text). surrogatepass keeps lone surrogates.
    raw = text.encode("utf-8", "surrogatepass").translate(_ASCII_LOWER)
    return raw.decode("utf-8", "surrogatepass")


def _warnings(text: str, folded: str) -> Iterator[Finding]:
    for category, pattern in (("model_name", _MODEL_NAME), ("ai_wording", _AI_WORDING)):
        for match in pattern.finditer(folded):
            start, end = match.start(), _trim_trailing(text, match.start(), match.end(), ".-")
            # Latin words need word boundaries ("Thai", "openair", "mycluster-1" are fine).
            if folded[start] in _WORD_CHARS and start > 0 and folded[start - 1] in _WORD_CHARS:
                continue
            if category == "model_name" and start > 0 and folded[start - 1] == "-":
                continue
            if folded[end - 1] in _WORD_CHARS and end < len(text) and folded[end] in _WORD_CHARS:
                continue
            yield Finding(category, "WARN", start, end, _plain_excerpt(text[start:end]))


# --- public API ------------------------------------------------------------------------------


def scan(
    text: str,
    *,
    extra_domains: Iterable[str] = (),
    env_file: str | os.PathLike[str] | None = None,
    warnings: bool = True,
    context: str = "outbound",
) -> list[Finding]:
    """Every BLOCK and WARN finding in ``text``, sorted by position.

    ``warnings=False`` leaves out the scans that can only warn (model names, AI wording, public
    env names): the BLOCK findings are the same either way, and a caller that needs only those
    saves the work. ``context="skill"`` judges a SKILL.md or reference, which may name the
    environment variables, proxy ports and API versions a user sets up: those are not scanned
    there (keys, hosts, IPs, paths and ``.env`` values are).
    """
    if context not in CONTEXTS:
        raise ValueError(f"context must be one of {CONTEXTS}, not {context!r}")
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    elif not isinstance(text, str):
        text = "" if text is None else str(text)
    domains = tuple(sorted(set(_domains(d for d in extra_domains if isinstance(d, str)))))
    folded = _ascii_fold(text)
    env = read_env_file(env_file) if env_file is not None else {}
    candidates = [
        *_api_keys(text, folded),
        *_network_findings(text, folded, domains, context),
        *_internal_paths(text),
        *_env_secrets(text, env),
    ]
    if context != "skill":
        names = _env_names(text, env)
        candidates.extend(names if warnings else (f for f in names if f.level == "BLOCK"))
    if warnings:
        candidates.extend(_warnings(text, folded))
    return _drop_nested(candidates)


def _drop_nested(candidates: list[Finding]) -> list[Finding]:
    """Drop findings inside a kept finding of the same or higher level (one report per leak)."""
    rank = {"BLOCK": 1, "WARN": 0}
    # By start, widest and strongest first: a container is always seen before what it contains.
    ordered = sorted(candidates, key=lambda f: (f.start, -f.end, -rank[f.level]))
    kept: list[Finding] = []
    block_reach = warn_reach = -1  # furthest end among kept findings of each level
    for finding in ordered:
        reach = block_reach if finding.level == "BLOCK" else max(block_reach, warn_reach)
        if finding.end <= finding.start or finding.end <= reach:
            continue
        kept.append(finding)
        if finding.level == "BLOCK":
            block_reach = max(block_reach, finding.end)
        else:
            warn_reach = max(warn_reach, finding.end)
    return sorted(kept, key=lambda f: (f.start, f.end, f.category))


def has_block(findings: Iterable[Finding]) -> bool:
    return any(finding.level == "BLOCK" for finding in findings)


def redact(
    text: str,
    *,
    extra_domains: Iterable[str] = (),
    env_file: str | os.PathLike[str] | None = None,
) -> str:
    """``text`` with every BLOCK span (overlaps merged) replaced by ``[已隐藏]``."""
    findings = scan(text, extra_domains=extra_domains, env_file=env_file)
    spans = sorted((f.start, f.end) for f in findings if f.level == "BLOCK")
    merged: list[list[int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    pieces: list[str] = []
    cursor = 0
    for start, end in merged:
        pieces.append(text[cursor:start])
        pieces.append(REDACTION)
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)


def default_env_file() -> Path | None:
    configured = os.environ.get("EASEL_ENV_FILE")
    if configured:
        return Path(configured)
    local = Path(".env")
    return local if local.is_file() else None


def guard_or_die(
    parts: str | Mapping[str, str | None] | Iterable[str | None],
    *,
    exec_mode: bool,
    allow_unsafe: bool = False,
    label: str = "",
    extra_domains: Iterable[str] = (),
    env_file: str | os.PathLike[str] | None = None,
) -> list[Finding]:
    """Scan what is about to be published; report on stderr; exit 7 on BLOCK in exec mode.

    ``parts`` is one text, several texts, or ``{name: text}`` (names appear in the report;
    offsets of the returned findings are relative to their own part). WARN never blocks; a dry
    run (``exec_mode=False``) only reports; ``allow_unsafe`` lets a BLOCK pass, loudly.
    """
    named = _named_parts(parts)
    env = env_file if env_file is not None else default_env_file()
    prefix = f"content_guard[{label}]" if label else "content_guard"
    everything: list[Finding] = []
    for name, text in named:
        findings = scan(text, extra_domains=extra_domains, env_file=env)
        everything.extend(findings)
        for finding in findings:
            print(f"{prefix}: {_describe(finding, text, name)}", file=sys.stderr)
    if not has_block(everything):
        return everything
    if not exec_mode:
        print(f"{prefix}: dry-run 只提示；真发（--exec）时以上 BLOCK 项会阻止发布", file=sys.stderr)
        return everything
    if allow_unsafe:
        print(f"{prefix}: 已按 --allow-unsafe 放行 BLOCK 项，请确认内容可公开", file=sys.stderr)
        return everything
    print(
        f"{prefix}: 发现敏感信息，已阻止发布（退出码 {EXIT_BLOCKED}）；"
        "删改后重试，确认无误可加 --allow-unsafe",
        file=sys.stderr,
    )
    sys.exit(EXIT_BLOCKED)


def _named_parts(
    parts: str | Mapping[str, str | None] | Iterable[str | None],
) -> list[tuple[str, str]]:
    if isinstance(parts, str):
        return [("", parts)]
    if isinstance(parts, Mapping):
        return [(str(name), text) for name, text in parts.items() if isinstance(text, str)]
    return [(f"#{index + 1}", text) for index, text in enumerate(parts) if isinstance(text, str)]


def _describe(finding: Finding, text: str, part_name: str = "") -> str:
    line = text.count("\n", 0, finding.start) + 1
    column = finding.start - (text.rfind("\n", 0, finding.start) + 1) + 1
    where = f"{part_name} " if part_name else ""
    return (
        f"[{finding.level}] {finding.category}（{finding.description}）"
        f" {where}第 {line} 行第 {column} 列：{finding.excerpt}"
    )


# --- CLI -------------------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: 参数错误：{message}\n")


class _InputError(Exception):
    pass


def _add_input_options(command: argparse.ArgumentParser) -> None:
    source = command.add_mutually_exclusive_group()
    source.add_argument("--text", help="要检查的文本（缺省读 stdin）")
    source.add_argument("--file", help="要检查的文件（UTF-8）")
    command.add_argument("--env-file", help=".env 文件（缺省 $EASEL_ENV_FILE 或 ./.env）")
    command.add_argument(
        "--extra-domain", action="append", default=[], help="额外的内部域名，可重复"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="content_guard.py", description="出站内容安全闸门")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    scan_command = commands.add_parser("scan", help="扫描文本（有 BLOCK 项时退出码 7）")
    _add_input_options(scan_command)
    scan_command.add_argument("--json", action="store_true", help="输出 JSON")
    redact_command = commands.add_parser("redact", help="把 BLOCK 项替换为 [已隐藏]")
    _add_input_options(redact_command)
    redact_command.add_argument("--out", help="写入该文件（缺省打印到 stdout）")
    commands.add_parser("selftest", help="自测")
    return parser


def _read_input(args: argparse.Namespace) -> str:
    if args.text is not None:
        return str(args.text)
    if args.file is not None:
        try:
            return Path(args.file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise _InputError(f"无法读取 {args.file}：{error}") from None
    return sys.stdin.read()


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "selftest":
        _selftest()
        print("content_guard selftest: OK")
        return 0
    try:
        text = _read_input(args)
        if args.env_file is not None and not Path(args.env_file).is_file():
            raise _InputError(f".env 文件不存在：{args.env_file}")
    except _InputError as error:
        print(f"content_guard.py: {error}", file=sys.stderr)
        return 2
    env_file = args.env_file if args.env_file is not None else default_env_file()
    if args.command == "redact":
        cleaned = redact(text, extra_domains=args.extra_domain, env_file=env_file)
        if args.out:
            Path(args.out).write_text(cleaned, encoding="utf-8")
        else:
            sys.stdout.write(cleaned)
        return 0
    findings = scan(text, extra_domains=args.extra_domain, env_file=env_file)
    blocked = has_block(findings)
    if args.json:
        report = {"blocked": blocked, "findings": [f.to_dict() for f in findings]}
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        for finding in findings:
            print(_describe(finding, text))
        warn_count = sum(finding.level == "WARN" for finding in findings)
        print(f"BLOCK {len(findings) - warn_count} 项，WARN {warn_count} 项")
    return EXIT_BLOCKED if blocked else 0


# A representative subset of the corpus in tests/shared/corpus/ (a test checks that every line
# here is in it), so a skill's own copy can prove itself without the repository. Vendor keys
# are split in two so that secret scanners do not take these invented keys for real ones.
SELFTEST_LEAKS: tuple[tuple[str, str], ...] = (
    ("api_key", "测试用 key：sk-Qm7abcdefgh2Lp90Zt"),
    ("api_key", "临时 key：sk-" + "12345678Qz7Lm2Xw9Rt4（用完就删）"),
    ("api_key", "密钥是sk-" + "FAKE7Kq2mZ9xW4rL8vN3测试用的"),
    ("api_key", "GitHub token：ghp_" + "5TMpUFn3NcLSLcwLUKvlsmkYRJh5okeBPMJZ"),
    ("api_key", "AWS：AKIA" + "SCHGTZY4YRJJ2TA7"),
    ("api_key", "密钥：B73cojFZS1COqkUAV3q4"),
    ("internal_url", "https://llm.internal.acme.io/v1"),
    ("internal_url", "素材图在 http://assets.intranet.acme-media.cn/raw.png"),
    ("internal_url", "接口 http://jobs.corp.acme-media.cn/api 今晚上线"),
    ("internal_url", "数据库 db01.prod.lan:5432"),
    ("internal_url", "用 ?api-version=2025-01 调"),
    ("internal_url", "地址：172.20.1.5，记得改"),
    ("proxy_ip", "走 :3128 出网"),
    ("proxy_ip", "代理 socks5://127.0.0.1:1080 记得开"),
    ("proxy_ip", "代理端口：7890"),
    ("proxy_ip", "出口 47.100.12.34:3128"),
    ("internal_path", "/mnt/nas/素材/咖啡/"),
    ("internal_path", "原图在 /mnt/disk2/raw/0312/"),
    ("internal_path", "浏览器 profile 在 ~/.xhs-private/profile"),
    ("internal_path", "日志在 /home/alice/easel/run.log。"),
    ("internal_path", "C:\\Users\\Xiaoyu\\Documents\\选题.xlsx"),
    ("env_name", "先在 .env 配好 DOUYIN_OPEN_API_KEY"),
    ("env_name", "导出 ANTHROPIC_BASE_URL 后再跑"),
    ("env_secret", "微博：Zt4pQ9mW2xL7vR3c"),
)
SELFTEST_CLEAN: tuple[str, ...] = (
    "SK-II 神仙水 230ml 专柜价 1540 元，免税店便宜了快三百",
    "iPhone 16 Pro 256G 到手价 7999，比官网便宜 500",
    "RTX 4090 跑 4K 光追稳定 100 帧以上",
    "小米14 Ultra 的长焦拍演唱会真的香",
    "有问题打 138-0013-8000 找店长",
    "原文链接 https://www.xiaohongshu.com/explore/64a1b2c3d4e5f6a7b8c9d0e1",
    "版本 v1.2.3.4 发布了，修了几个小 bug",
    "#好物分享# #平价好物# #学生党必备#",
    "2025-03-08 妇女节活动，全场 8 折",
    "直播时间 19:30，准时开播",
    "售价:7890元，比去年便宜",
    "网盘分享在 https://www.lanzou.com/ 上，提取码在评论区",
    "这篇英文报道来自 https://www.corporate.com/news/2025",
    "星球的官网 https://www.planet.com 上有很多卫星图",
    "这一期聊聊国产大模型的推理速度",
    "AIGC 会不会取代设计师？说说我的看法",
    "路由器重启后 DNS 改成了 223.5.5.5，网速快多了",
    "拍视频用 4K 60 帧，剪辑时导出 1080P 30 帧",
    "corp 这个缩写在财报里很常见",
)
SELFTEST_WARNINGS: tuple[tuple[str, str], ...] = (
    ("ai_wording", "作为一个大模型，我建议…"),
    ("ai_wording", "本文由 AI 自动生成"),
    ("ai_wording", "我是 AI 助手"),
    ("model_name", "对比 claude-sonnet-4-5 与 gpt-4o"),
    ("env_name_public", "把 OPENAI_API_KEY 设好"),
)
_SELFTEST_ENV = "WEIBO_APP_SECRET=Zt4pQ9mW2xL7vR3c\n"


def _selftest() -> None:
    import tempfile

    def fail(what: str, sample: str, findings: list[Finding]) -> NoReturn:
        got = [(f.category, f.level) for f in findings]
        raise AssertionError(f"content_guard selftest: {what} in {sample!r}: {got}")

    with tempfile.TemporaryDirectory() as folder:
        env = Path(folder, ".env")
        env.write_text(_SELFTEST_ENV, encoding="utf-8")
        for category, sample in SELFTEST_LEAKS:
            findings = scan(sample, env_file=env)
            if category not in {f.category for f in findings if f.level == "BLOCK"}:
                fail(f"{category} missed", sample, findings)
        for sample in SELFTEST_CLEAN:
            if findings := scan(sample, env_file=env):
                fail("false finding", sample, findings)
    for category, sample in SELFTEST_WARNINGS:
        findings = scan(sample)
        if {(f.category, f.level) for f in findings} != {(category, "WARN")}:
            fail(f"{category} should only warn", sample, findings)
    skill_text = "把 DOUYIN_OPEN_API_KEY 写进 .env，配置在 ~/.openclaw/workspace-easel/"
    if findings := scan(skill_text, context="skill", warnings=False):
        fail("a skill naming its variable and runtime folder is reported", skill_text, findings)
    key = SELFTEST_LEAKS[0][1].split("：")[1]
    redacted = redact(f"token: {key} 完")
    if key in redacted or REDACTION not in redacted:
        raise AssertionError("content_guard selftest: redact left the key")


if __name__ == "__main__":
    sys.exit(main())
