#!/usr/bin/env python3
"""Outbound content gate: nothing secret or internal leaves for a public platform.

Two levels (spec, 出站内容安全闸门):

- BLOCK (:data:`BLOCK_CATEGORIES`, fail-closed): API keys and tokens, internal URLs and domains,
  proxy addresses, internal absolute paths, values of a ``.env`` file. With ``--exec`` a publisher
  stops with exit code 7 unless the user passes ``--allow-unsafe``.
- WARN (:data:`WARN_CATEGORIES`): AI wording and model names. An article about AI may use them
  on purpose, so they are reported and never block.

API: ``scan(text, *, extra_domains=(), env_file=None) -> list[Finding]`` (``start``/``end`` are
``str`` indices into ``text``), ``redact(text, ...) -> str`` (BLOCK spans become ``[已隐藏]``),
``guard_or_die(parts, *, exec_mode, allow_unsafe=False, label="", ...)``.

CLI::

    content_guard.py scan   [--text T | --file F] [--json] [--env-file F] [--extra-domain D]
    content_guard.py redact [--text T | --file F] [--out F] [--env-file F] [--extra-domain D]
    content_guard.py selftest

``scan`` reads stdin without ``--text``/``--file``; exit 7 when a BLOCK finding exists, else 0;
exit 2 for bad arguments or an unreadable file.

Decisions where the spec is silent:

- Placeholders are not keys: ``<API_KEY>``, ``sk-xxx``, ``your-api-key``, ``${TOKEN}``, values
  with ``example``/``dummy``/``xxxx``, sequences such as ``123456789``, and values without both
  letters and digits or with low character entropy.
- A generic ``key=``/``token=``/``secret:``/``密钥：`` assignment blocks only its value (so
  ``api_key=[已隐藏]`` stays readable); the value needs 12+ characters and must look random.
- ``ip:port``, ``http(s)://ip:port`` and any ``socks4/5://`` URL are ``proxy_ip``; a private or
  loopback IP (10/8, 172.16/12, 192.168/16, 127/8, 169.254/16, 100.64/10, 0/8) without a port
  is ``internal_url``. Public IPs (``8.8.8.8``) and version strings (``v1.2.3.4``,
  ``1.2.3.4.5``) pass.
- Internal hosts: ``localhost``, single-label hosts in a URL (``http://jenkins/``), and names
  ending in ``.internal .local .corp .lan .intranet .localdomain .home.arpa`` or an extra domain.
- Internal paths: ``/home/<user>/…``, ``/Users/<user>/…``, ``/root/…``, ``/data/…``,
  ``C:\\Users\\…`` and UNC ``\\\\host\\share``; only at the start of a path, so
  ``outputs/<主题>/note.md``, ``skills/shared/…``, ``~/.openclaw/`` and URL paths pass.
- ``.env`` values count when they are secret-looking (name with KEY/TOKEN/SECRET/PASS/…, or a
  random-looking value) and at least 6 characters; ``guard_or_die`` and the CLI read
  ``$EASEL_ENV_FILE`` or ``./.env`` when no file is given, ``scan`` only an explicit one.
- Excerpts of keys and ``.env`` values are masked (first 4 characters), so the report does not
  leak what it found; other excerpts show the text (cut at 80 characters).
- A finding inside another finding of the same or higher level is dropped (one report per leak).
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
    "internal_url": "内部 URL 或域名（内网 IP、localhost、.internal/.local/.corp 等）",
    "proxy_ip": "代理地址（ip:端口、http://ip:端口、socks5://…）",
    "internal_path": "内部绝对路径（家目录、/data/…、C:\\Users\\…）",
    "env_secret": ".env 中的变量真值",
}
WARN_CATEGORIES: dict[str, str] = {
    "ai_wording": "AI 措辞（由 AI 生成、OpenClaw、Claude、system prompt、大模型…）",
    "model_name": "模型名（claude-*、gpt-*、gpt-image-*…）",
}
REDACTION = "[已隐藏]"
EXIT_BLOCKED = 7
EXCERPT_LIMIT = 80

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


# --- api_key ---------------------------------------------------------------------------------

# Linear time matters (a megabyte of hostile text must scan fast): provider keys are matched only
# at the start of a maximal token run, found by one greedy pass, never at every offset.
_KEY_RUN = re.compile(r"[A-Za-z0-9_-]{16,}")
_JWT_RUN = re.compile(r"eyJ[A-Za-z0-9_.-]{30,}")
_PROVIDER_KEY = re.compile(
    r"""
      sk-(?:ant-(?:api\d\d-)?|proj-|or-v1-|svcacct-)?(?P<openai>[A-Za-z0-9_-]{20,200})
    | [sr]k_(?:live|test)_(?P<stripe>[A-Za-z0-9]{16,200})
    | gh[pousr]_(?P<github>[A-Za-z0-9]{30,200})
    | github_pat_(?P<github_pat>[A-Za-z0-9_]{22,200})
    | glpat-(?P<gitlab>[A-Za-z0-9_-]{20,100})
    | (?:AKIA|ASIA)(?P<aws>[0-9A-Z]{16})(?![0-9A-Za-z])
    | AIza(?P<google>[0-9A-Za-z_-]{35})(?![0-9A-Za-z_-])
    | xox[abposr]-(?P<slack>[A-Za-z0-9-]{10,200})
    | hf_(?P<huggingface>[A-Za-z0-9]{30,100})
    """,
    re.VERBOSE,
)
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
# A keyword every _SECRET_ASSIGNMENT match holds: when none is in the text, the pattern (which
# tries every offset) cannot match and is not run.
_SECRET_KEYWORDS = (
    "api",
    "secret",
    "token",
    "access",
    "pass",
    "pwd",
    "credential",
    "密钥",
    "令牌",
    "口令",
    "密码",
)
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def _api_keys(text: str, folded: str) -> Iterator[Finding]:
    for run in _KEY_RUN.finditer(text):
        match = _PROVIDER_KEY.match(text, run.start(), run.end())
        if match is not None:
            body = next(group for group in match.groups() if group is not None)
            if _looks_random(body, 16):
                yield _secret("api_key", text, match.start(), match.end())
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
    if not any(keyword in folded for keyword in _SECRET_KEYWORDS):
        return
    for match in _SECRET_ASSIGNMENT.finditer(folded):
        start, end = match.span("value")
        if _looks_random(text[start:end], 12):
            yield _secret("api_key", text, start, end)


def _private_keys(text: str) -> Iterator[Finding]:
    """A PEM private key block, up to its END line when there is one."""
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


def _secret(category: str, text: str, start: int, end: int) -> Finding:
    return Finding(category, "BLOCK", start, end, _mask(text[start:end]))


# --- internal_url and proxy_ip ---------------------------------------------------------------

_URL_CHARS = (
    r"[^\s<>\"'`()\[\]{}|\\^（）【】《》「」，。、；：！？\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]"
)
_URL = re.compile(
    r"(?=[A-Za-z])(?<![A-Za-z0-9+.-])(?P<scheme>[A-Za-z][A-Za-z0-9+.-]{0,15})://(?P<rest>"
    + _URL_CHARS
    + "{1,2048})"
)
_IPV4 = r"(?:\d{1,3})\.(?:\d{1,3})\.(?:\d{1,3})\.(?:\d{1,3})"
_BARE_IP = re.compile(
    r"(?=[0-9])(?<![0-9A-Za-z.])(?P<ip>"
    + _IPV4
    + r")(?![0-9]|\.[0-9])(?::(?P<port>\d{1,5})(?![0-9]))?"
)
# What every _BARE_IP match starts with; found much faster than _BARE_IP tries every offset.
_BARE_IP_HINT = re.compile(r"[0-9]\d{0,2}\.\d{1,3}\.\d{1,3}\.\d")
INTERNAL_SUFFIXES = ("internal", "local", "corp", "lan", "intranet", "localdomain", "home.arpa")
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_PROXY_SCHEMES = ("socks4", "socks4a", "socks5", "socks5h", "socks")


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


@functools.lru_cache(maxsize=32)
def _internal_host_pattern(extra_domains: tuple[str, ...]) -> re.Pattern[str]:
    suffixes = [re.escape(suffix) for suffix in INTERNAL_SUFFIXES]
    extras = [re.escape(domain.strip(".").lower()) for domain in extra_domains if domain.strip(".")]
    named = f"(?:{_LABEL}\\.){{1,10}}(?:{'|'.join(suffixes)})"
    if extras:
        named += f"|(?:{_LABEL}\\.){{0,10}}(?:{'|'.join(extras)})"
    return re.compile(
        rf"(?=[a-z0-9])(?<![a-z0-9.@-])(?:localhost|{named})(?!\.?[a-z0-9-])(?::\d{{1,5}}(?![0-9]))?"
    )


@functools.lru_cache(maxsize=32)
def _internal_host_needles(extra_domains: tuple[str, ...]) -> tuple[str, ...]:
    """A literal that every match of ``_internal_host_pattern(extra_domains)`` holds."""
    extras = [domain.strip(".").lower() for domain in extra_domains if domain.strip(".")]
    return ("localhost", *("." + suffix for suffix in INTERNAL_SUFFIXES), *extras)


def is_internal_host(host: str, extra_domains: Iterable[str] = ()) -> bool:
    host = host.lower().rstrip(".")
    if host == "localhost" or host.endswith(".localhost") or is_private_ipv4(host):
        return True
    if _ipv4_octets(host) is None and "." not in host and host and host[0] != "[":
        return True  # a single-label name only resolves inside a network
    domains = (*INTERNAL_SUFFIXES, *(d.strip(".").lower() for d in extra_domains if d.strip(".")))
    return any(host == domain or host.endswith("." + domain) for domain in domains)


def _network_findings(
    text: str, folded: str, extra_domains: tuple[str, ...]
) -> tuple[list[Finding], list[tuple[int, int]]]:
    """URL-based findings plus the spans of every URL (bare matches inside them are skipped)."""
    findings: list[Finding] = []
    url_spans: list[tuple[int, int]] = []
    urls = _URL.finditer(text) if "://" in text else ()  # the pattern tries every offset
    for match in urls:
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
        plain = Finding("internal_url", "BLOCK", start, end, _plain_excerpt(text[start:end]))
        if scheme in _PROXY_SCHEMES or (
            _ipv4_octets(host) is not None and port and path in ("", "/")
        ):
            findings.append(Finding("proxy_ip", "BLOCK", start, end, plain.excerpt))
        elif host and is_internal_host(host, extra_domains):
            findings.append(plain)
    bare_ips = _BARE_IP.finditer(text) if _BARE_IP_HINT.search(text) else ()
    for match in bare_ips:
        start = match.start()
        ip, port = match.group("ip", "port")
        if (url_spans and _inside(start, url_spans)) or _ipv4_octets(ip) is None:
            continue
        if port and 0 < int(port) <= 65535:
            end = match.end()
            findings.append(Finding("proxy_ip", "BLOCK", start, end, text[start:end]))
        elif is_private_ipv4(ip):
            end = match.end("ip")
            findings.append(Finding("internal_url", "BLOCK", start, end, text[start:end]))
    needles = _internal_host_needles(extra_domains)
    hosts = (
        _internal_host_pattern(extra_domains).finditer(folded)
        if any(needle in folded for needle in needles)  # the pattern tries every offset
        else ()
    )
    for match in hosts:
        if not _inside(match.start(), url_spans):
            findings.append(_plain("internal_url", text, match.start(), match.end()))
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
    return hostport, ""


def _inside(offset: int, spans: list[tuple[int, int]]) -> bool:
    """Whether ``offset`` falls in one of ``spans`` (sorted and disjoint, as finditer gives)."""
    index = bisect.bisect_right(spans, (offset, sys.maxsize)) - 1
    return index >= 0 and spans[index][0] <= offset < spans[index][1]


def _plain(category: str, text: str, start: int, end: int) -> Finding:
    return Finding(category, "BLOCK", start, end, _plain_excerpt(text[start:end]))


# --- internal_path ---------------------------------------------------------------------------

_PATH_CHARS = r"[^\s\"'`<>()\[\]{}|*?（）【】《》「」，。；：！？、]"
_INTERNAL_PATH = re.compile(
    r"(?=[/A-Za-z\\])(?<![A-Za-z0-9_.~/\\:-])(?:"
    r"/(?:home|Users)/[A-Za-z0-9._-]{1,64}(?:/" + _PATH_CHARS + "{0,1024})?"
    r"|/(?:root|data)/" + _PATH_CHARS + "{1,1024}"
    r"|[A-Za-z]:[\\/](?:Users|Documents and Settings)[\\/]" + _PATH_CHARS + "{1,1024}"
    r"|\\\\[A-Za-z0-9._-]{1,63}\\" + _PATH_CHARS + "{1,1024}"
    r")"
)


# A literal every _INTERNAL_PATH match holds (the pattern tries every offset).
_INTERNAL_PATH_NEEDLES = ("/home/", "Users", "/root/", "/data/", "Documents and Settings", "\\\\")


def _internal_paths(text: str) -> Iterator[Finding]:
    if not any(needle in text for needle in _INTERNAL_PATH_NEEDLES):
        return
    for match in _INTERNAL_PATH.finditer(text):
        match_end = _trim_trailing(text, match.start(), match.end())
        yield _plain("internal_path", text, match.start(), match_end)


# --- env_secret ------------------------------------------------------------------------------

_SECRET_NAME = re.compile(
    r"KEY|TOKEN|SECRET|PASS|PWD|AUTH|CREDENTIAL|COOKIE|SESSION|PRIVATE|DSN|SIGNATURE",
    re.IGNORECASE,
)
_ENV_LINE = re.compile(r"^\s*(?:export\s+)?(?P<name>[A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(?P<value>.*)$")
_TRIVIAL_VALUES = frozenset({"true", "false", "yes", "no", "on", "off", "none", "null"})


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


def _secret_env_values(env_file: str | os.PathLike[str] | None) -> dict[str, str]:
    if env_file is None:
        return {}
    secrets: dict[str, str] = {}
    for name, value in read_env_file(env_file).items():
        if len(value) < 6 or value.lower() in _TRIVIAL_VALUES:
            continue
        if _SECRET_NAME.search(name) or _looks_random(value, 8):
            secrets[name] = value
    return secrets


def _env_secrets(text: str, env_file: str | os.PathLike[str] | None) -> Iterator[Finding]:
    for name, value in _secret_env_values(env_file).items():
        position = text.find(value)
        while position != -1:
            excerpt = f"{name} 的值（{len(value)} 字符，已隐藏）"
            yield Finding("env_secret", "BLOCK", position, position + len(value), excerpt)
            position = text.find(value, position + len(value))


# --- WARN: ai_wording and model_name ---------------------------------------------------------

# Matched on the ASCII-lowercased text (same offsets): case-sensitive patterns that start with
# literals let the regex engine skip ahead instead of trying every offset.
_AI_WORDING = re.compile(
    r"由\s?ai\s?(?:生成|创作|撰写|写作|制作|辅助生成)"
    r"|ai\s?(?:生成|创作|代写|写作|合成|助手)"
    r"|aigc|人工智能生成|大语言模型|大模型|系统提示词"
    r"|openclaw|chatgpt|anthropic|openai|llms?|system[ _-]?prompts?"
    r"|as an ai(?: language model)?|language models?"
    r"|claude(?![a-z0-9_-])"
    r"|作为(?:一个|一名)?\s?ai"
)
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
) -> list[Finding]:
    """Every BLOCK and WARN finding in ``text``, sorted by position. ``warnings=False`` leaves
    out the scans that can only warn (model names, AI wording): the BLOCK findings are the same
    either way, and a caller that needs only those saves the work."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    elif not isinstance(text, str):
        text = "" if text is None else str(text)
    domains = tuple(sorted({d for d in extra_domains if isinstance(d, str) and d.strip(".")}))
    folded = _ascii_fold(text)
    network, _ = _network_findings(text, folded, domains)
    candidates = [
        *_api_keys(text, folded),
        *network,
        *_internal_paths(text),
        *_env_secrets(text, env_file),
        *(_warnings(text, folded) if warnings else ()),
    ]
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


def _selftest() -> None:
    key = "sk-proj-" + "Q7fK2mXw9LpR4tZa8VbN3cYd6HsJ1gUe"
    must_block = {
        "api_key": f"OPENAI_API_KEY={key}",
        "internal_url": "接口在 http://api.team.internal/v1 上",
        "proxy_ip": "代理 socks5://127.0.0.1:1080",
        "internal_path": "日志在 /home/alice/easel/run.log",
    }
    for category, sample in must_block.items():
        found = [f.category for f in scan(sample) if f.level == "BLOCK"]
        if category not in found:
            raise AssertionError(f"content_guard selftest: {category} missed in {sample!r}")
    clean = [
        "详见 https://www.xiaohongshu.com/explore/abc123 和 outputs/春日穿搭/note.md",
        "把 OPENAI_API_KEY 设为 <API_KEY> 或 sk-xxx，DNS 用 8.8.8.8，版本 1.2.3.4",
    ]
    for sample in clean:
        if scan(sample):
            raise AssertionError(f"content_guard selftest: false positive in {sample!r}")
    article = "这篇文章由 AI 生成，介绍大模型与 claude-sonnet-4 的区别。"
    levels = {f.level for f in scan(article)}
    if levels != {"WARN"}:
        raise AssertionError(f"content_guard selftest: AI article should only warn: {levels}")
    redacted = redact(f"token: {key} 完")
    if key in redacted or REDACTION not in redacted:
        raise AssertionError("content_guard selftest: redact left the key")


if __name__ == "__main__":
    sys.exit(main())
