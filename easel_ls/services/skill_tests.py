"""The spec's skill tests against a model: `tests/N.prompt` + `tests/N.expected`, in two stages.

- **routing**: the model sees what the agent sees at routing time (every skill's resident
  metadata, one ``name: description`` line each) and the request, and names one skill. The
  test passes when that is the skill the test belongs to.
- **execution**: the model gets the skill's SKILL.md as its system prompt (what is loaded once
  the skill is triggered) and the request; the test passes when the answer matches every line
  of ``N.expected`` (a keyword: case-insensitive substring; ``re:``: ``re.search``, multiline).

Protocol-free: the CLI adapter (``easel_ls.skill_test_cli``) parses options and prints. A
transport is a small class with one ``complete(messages) -> Answer`` method: the chat
completions API over HTTP (urllib, nothing else), or a command reading the prompt on stdin.
Answers are cached as JSON files keyed by a hash of the transport and the messages, so an
unchanged test costs nothing on the next run.
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import unicodedata
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from easel_ls import __version__
from easel_ls.model.frontmatter import parse_frontmatter, scalar_text
from easel_ls.model.text import blake2b
from easel_ls.workspace import Skill, Workspace, is_within

ROUTING, EXECUTION = "routing", "execution"
STAGES = (ROUTING, EXECUTION)
PASS, FAIL, ERROR = "pass", "fail", "error"

CACHE_FOLDER = "skill-tests"  # below the workspace's .easel-ls-cache/
_CACHE_FORMAT = 1
# An answer larger than this is no chat completion but a misdirected download.
MAX_RESPONSE_BYTES = 16 * 1024 * 1024
# A server's Retry-After is obeyed up to this many seconds, so a run never stalls for minutes.
MAX_RETRY_DELAY = 30.0

ROUTING_INSTRUCTIONS = (
    "You route a user's request to one of the skills listed below. Each skill is listed as "
    "`name: description`; the descriptions are all you know about the skills.\n"
    "Answer with the name of the one skill that should handle the request, exactly as listed, "
    "and nothing else."
)


# -- tests ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Message:
    role: str  # "system" or "user"
    content: str

    def to_json(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True)
class Expected:
    """One meaningful line of an ``.expected`` file."""

    line: int  # 1-based
    text: str  # as written (stripped), ``re:`` included
    pattern: re.Pattern[str] | None = None  # for a ``re:`` line, else a keyword

    def matches(self, output: str) -> bool:
        if self.pattern is not None:
            return self.pattern.search(output) is not None
        return self.text.casefold() in output.casefold()


def parse_expected(lines: Iterable[str]) -> tuple[list[Expected], list[str]]:
    """The keywords and patterns of an ``.expected`` file (TS003's format), and a problem per
    pattern that does not compile."""
    expected: list[Expected] = []
    problems: list[str] = []
    for number, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        if not text.startswith("re:"):
            expected.append(Expected(number, text))
            continue
        source = text[3:].strip()
        try:
            pattern = re.compile(source, re.MULTILINE)
        except (re.error, RecursionError, OverflowError) as exc:
            message = exc.msg if isinstance(exc, re.error) else str(exc)
            problems.append(f"line {number}: pattern `{source}` does not compile: {message}")
            continue
        expected.append(Expected(number, text, pattern))
    return expected, problems


@dataclass(frozen=True)
class SkillMetadata:
    """A skill as the agent sees it at routing time."""

    name: str  # the frontmatter's `name` (the folder's name when it has none)
    description: str  # on one line: YAML folds it, newlines inside are only layout
    folder: Path

    def line(self) -> str:
        return f"{self.name}: {self.description}" if self.description else self.name


@dataclass(frozen=True)
class SkillTest:
    skill: str  # the name the routing list gives the skill
    folder: Path
    name: str  # the pair's stem: `1` for tests/1.prompt
    prompt_path: Path
    expected_path: Path
    prompt: str
    expected: tuple[Expected, ...]
    skill_text: str  # the whole SKILL.md, the execution stage's system prompt

    @property
    def id(self) -> str:
        return f"{self.skill}/{self.name}"


@dataclass(frozen=True)
class Notice:
    """Something said about the tests: a test skipped (``skipped``) or a warning."""

    path: Path
    message: str
    skipped: bool = True
    skill: str | None = None


@dataclass
class Collection:
    metadata: list[SkillMetadata]
    tests: list[SkillTest]
    notices: list[Notice] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        return [m.name for m in self.metadata]


class SelectionError(Exception):
    """A path that names no skill, test or workspace folder."""


def _natural(text: str) -> list[Any]:
    """`2` before `10`."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def skill_metadata(ws: Workspace, notices: list[Notice]) -> dict[str, SkillMetadata]:
    """Folder name -> the resident metadata, for every skill of the workspace."""
    found: dict[str, SkillMetadata] = {}
    for key in sorted(ws.skills):
        skill = ws.skills[key]
        read = ws.read(skill.skill_md)
        if read.doc is None:
            notices.append(
                Notice(
                    skill.skill_md,
                    f"{read.error or 'cannot be read'}; left out of the routing list",
                    skipped=False,
                    skill=key,
                )
            )
            continue
        fm = parse_frontmatter(read.doc)
        name_item, description_item = fm.get("name"), fm.get("description")
        name = (scalar_text(name_item[1]) if name_item else None) or ""
        description = (scalar_text(description_item[1]) if description_item else None) or ""
        found[key] = SkillMetadata(name.strip() or key, " ".join(description.split()), skill.folder)
    return found


def collect(ws: Workspace, paths: Sequence[Path]) -> Collection:
    """The tests ``paths`` name: a workspace or any folder holding skills (their tests), a skill
    folder or anything in it (the skill's tests), or one test's ``.prompt``/``.expected``."""
    notices: list[Notice] = []
    metadata = skill_metadata(ws, notices)
    selected: dict[str, set[str] | None] = {}  # skill key -> stems (None: all)
    for path in paths:
        resolved = path.resolve()
        if not ws.contains(resolved):
            raise SelectionError(f"{path} is outside the workspace at {ws.root}")
        holding = [
            key
            for key, skill in ws.skills.items()
            if skill.folder == resolved or is_within(str(skill.folder), str(resolved))
        ]
        if holding or resolved == ws.root:  # a workspace without skills has no tests either
            selected.update(dict.fromkeys(holding))
            continue
        skill = ws.indexed_skill_holding(resolved)
        if skill is None:
            raise SelectionError(
                f"{path} holds no skill of the workspace at {ws.root} "
                "(skills are the folders of skills/openclaw/ that have a SKILL.md)"
            )
        parts = resolved.relative_to(skill.folder).parts
        is_test = len(parts) == 2 and parts[0] == "tests"
        if is_test and resolved.suffix in (".prompt", ".expected"):
            stems = selected.setdefault(skill.name, set())
            if stems is not None:
                stems.add(resolved.stem)
        else:
            selected[skill.name] = None
    tests: list[SkillTest] = []
    for key in sorted(selected):
        skill = ws.skills[key]
        meta = metadata.get(key)
        if meta is None:  # its SKILL.md cannot be read (said above)
            continue
        tests.extend(_skill_tests(ws, skill, meta, selected[key], notices))
    return Collection(list(metadata.values()), tests, notices)


def _skill_tests(
    ws: Workspace,
    skill: Skill,
    meta: SkillMetadata,
    stems: set[str] | None,
    notices: list[Notice],
) -> list[SkillTest]:
    folder = skill.folder / "tests"
    pairs: dict[str, dict[str, Path]] = {}
    for entry in ws.list_dir(folder):
        if entry.suffix not in (".prompt", ".expected") or entry.name.startswith("."):
            continue
        if entry.is_file() and (stems is None or entry.stem in stems):
            pairs.setdefault(entry.stem, {})[entry.suffix] = entry
    for stem in sorted((stems or set()) - set(pairs), key=_natural):
        notices.append(Notice(folder / f"{stem}.prompt", "no such test", skill=meta.name))
    skill_doc = ws.read(skill.skill_md).doc
    tests = []
    for stem in sorted(pairs, key=_natural):
        files = pairs[stem]
        prompt_path = files.get(".prompt", folder / f"{stem}.prompt")
        expected_path = files.get(".expected", folder / f"{stem}.expected")
        if ".prompt" not in files or ".expected" not in files:
            present, absent = (
                (prompt_path, expected_path) if ".prompt" in files else (expected_path, prompt_path)
            )
            notices.append(
                Notice(present, f"has no `{absent.name}` beside it (TS001)", skill=meta.name)
            )
            continue
        prompt_read, expected_read = ws.read(prompt_path), ws.read(expected_path)
        unreadable = next((r for r in (prompt_read, expected_read) if r.doc is None), None)
        if unreadable is not None:
            reason = unreadable.error or "cannot be read"
            notices.append(Notice(unreadable.path, reason, skill=meta.name))
            continue
        assert prompt_read.doc is not None and expected_read.doc is not None
        prompt = prompt_read.doc.text.strip()
        if not prompt:
            notices.append(Notice(prompt_path, "is empty: no request to send", skill=meta.name))
            continue
        expected, problems = parse_expected(expected_read.doc.lines)
        if problems:
            for problem in problems:
                notices.append(Notice(expected_path, f"{problem} (TS003)", skill=meta.name))
            continue
        if not expected:
            notices.append(
                Notice(
                    expected_path,
                    "lists no keyword or pattern, so execution always passes (TS002)",
                    skipped=False,
                    skill=meta.name,
                )
            )
        text = skill_doc.text if skill_doc is not None else ""
        tests.append(
            SkillTest(
                meta.name,
                skill.folder,
                stem,
                prompt_path,
                expected_path,
                prompt,
                tuple(expected),
                text,
            )
        )
    return tests


# -- messages and answers ---------------------------------------------------------------------


def routing_messages(metadata: Sequence[SkillMetadata], request: str) -> tuple[Message, ...]:
    listing = "\n".join(f"- {meta.line()}" for meta in metadata)
    system = f"{ROUTING_INSTRUCTIONS}\n\nSkills:\n{listing}"
    return (Message("system", system), Message("user", request))


def execution_messages(test: SkillTest) -> tuple[Message, ...]:
    return (Message("system", test.skill_text), Message("user", test.prompt))


def messages_for(collection: Collection, test: SkillTest, stage: str) -> tuple[Message, ...]:
    if stage == ROUTING:
        return routing_messages(collection.metadata, test.prompt)
    return execution_messages(test)


def plain_text_prompt(messages: Sequence[Message]) -> str:
    """What ``--model-cmd`` gets on stdin: each message as a line ``[SYSTEM]`` / ``[USER]``
    followed by its text, messages separated by a blank line."""
    return "\n\n".join(f"[{m.role.upper()}]\n{m.content}" for m in messages) + "\n"


_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL | re.IGNORECASE)


def visible_answer(text: str) -> str:
    """The answer without a reasoning model's ``<think>…</think>`` (qwen3, deepseek-r1 think
    aloud first, and the skill names they weigh there are not their answer)."""
    return _THINK.sub("", text)


def pick_skill(answer: str, names: Iterable[str]) -> str | None:
    """The first listed skill name the answer mentions (case-insensitive, as a whole name:
    `card-maker` is not found in `card-maker-pro`); at one place the longest name wins."""
    text = visible_answer(answer)
    best: tuple[tuple[int, int], str] | None = None
    for name in names:
        if not name:
            continue
        pattern = rf"(?<![A-Za-z0-9_-]){re.escape(name)}(?![A-Za-z0-9_-])"
        match = re.search(pattern, text, re.IGNORECASE)
        if match is None:
            continue
        key = (match.start(), -len(name))
        if best is None or key < best[0]:
            best = (key, name)
    return best[1] if best else None


def missing_expected(expected: Iterable[Expected], answer: str) -> list[Expected]:
    text = visible_answer(answer)
    return [line for line in expected if not line.matches(text)]


# -- transports -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    text: str
    prompt_tokens: int | None = None  # as the server reported them (usage)
    completion_tokens: int | None = None
    cached: bool = False


class CallError(Exception):
    """A call that gave no answer. ``retryable``: a timeout, a dropped connection, HTTP 429 or
    5xx, which may go away; anything else would fail the same way again."""

    def __init__(
        self, message: str, *, retryable: bool = False, retry_after: float | None = None
    ) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.retry_after = retry_after
        self.attempts = 1


class Transport(Protocol):
    @property
    def identity(self) -> str:
        """What the answers depend on besides the messages (part of the cache key)."""
        ...

    def complete(self, messages: Sequence[Message]) -> Answer: ...


def chat_endpoint(url: str) -> str:
    """``{url}/chat/completions``, unless ``url`` already is the endpoint."""
    parts = urllib.parse.urlsplit(url)
    path = parts.path.rstrip("/")
    if not path.endswith("/chat/completions"):
        path += "/chat/completions"
    return urllib.parse.urlunsplit(parts._replace(path=path))  # a query (?api-version=) stays


def _is_loopback(host: str | None) -> bool:
    if not host:
        return False
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _clip(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _error_detail(raw: bytes) -> str:
    """The message of an error body: OpenAI's ``{"error": {"message": …}}``, ollama's and
    llama.cpp's ``{"error": "…"}``, or the text itself."""
    text = raw.decode("utf-8", "replace")
    try:
        data = json.loads(text)
    except ValueError:
        return _clip(text) or "(no body)"
    if isinstance(data, dict):
        error = data.get("error", data.get("detail", data.get("message")))
        if isinstance(error, dict):
            error = error.get("message", error)
        if isinstance(error, str) and error.strip():
            return _clip(error)
        if error is not None:
            return _clip(json.dumps(error, ensure_ascii=False))
    return _clip(text)


def parse_chat_response(raw: bytes, endpoint: str) -> Answer:
    """``choices[0].message.content`` and the usage of a chat completions answer."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        snippet = _clip(raw.decode("utf-8", "replace"), 120)
        hint = ""
        if snippet.lstrip().startswith("<"):
            hint = " (a web page: is the URL the API's base, such as http://127.0.0.1:11434/v1?)"
        raise CallError(f"the answer from {endpoint} is not JSON{hint}: {snippet!r}") from None
    if not isinstance(data, dict):
        raise CallError(f"the answer from {endpoint} is JSON but not an object")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        if "error" in data:
            raise CallError(f"{endpoint} answered with an error: {_error_detail(raw)}")
        raise CallError(f"the answer from {endpoint} has no `choices`: {_clip(repr(data), 200)}")
    first = choices[0] if isinstance(choices[0], dict) else {}
    message = first.get("message")
    content = message.get("content") if isinstance(message, dict) else first.get("text")
    if isinstance(content, list):  # content parts: [{"type": "text", "text": …}, …]
        texts = [part.get("text") for part in content if isinstance(part, dict)]
        content = "".join(text for text in texts if isinstance(text, str))
    if content is None:
        content = ""
    if not isinstance(content, str):
        raise CallError(f"the answer from {endpoint} has no text in `choices[0].message`")
    usage = data.get("usage")
    if not isinstance(usage, dict):
        usage = {}
    return Answer(
        content, _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens"))
    )


class ChatCompletions:
    """The OpenAI-compatible chat completions API (OpenAI, ollama, llama.cpp, vLLM …)."""

    def __init__(
        self, url: str, model: str, *, api_key: str | None = None, timeout: float = 60.0
    ) -> None:
        self.endpoint = chat_endpoint(url)
        self.model = model
        self.api_key = api_key
        self.timeout = timeout
        host = urllib.parse.urlsplit(self.endpoint).hostname
        # A local server is never reached through the proxy the environment names for the web.
        handlers = [urllib.request.ProxyHandler({})] if _is_loopback(host) else []
        self._opener = urllib.request.build_opener(*handlers)

    @property
    def identity(self) -> str:
        return f"chat-completions {self.endpoint} {self.model}"

    def complete(self, messages: Sequence[Message]) -> Answer:
        body = {"model": self.model, "messages": [m.to_json() for m in messages], "temperature": 0}
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": f"easel-ls/{__version__}",
        }
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        # ASCII JSON: a lone surrogate in a file's text is escaped, never an encoding error.
        data = json.dumps(body).encode("ascii")
        request = urllib.request.Request(self.endpoint, data=data, headers=headers, method="POST")
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                raw = response.read(MAX_RESPONSE_BYTES + 1)
        except urllib.error.HTTPError as exc:
            raise self._http_error(exc) from None
        except TimeoutError:
            raise self._timeout() from None
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                raise self._timeout() from None
            reason = exc.reason
            text = reason.strerror if isinstance(reason, OSError) and reason.strerror else reason
            raise CallError(f"cannot reach {self.endpoint}: {text}", retryable=True) from None
        except (OSError, http.client.HTTPException) as exc:
            detail = str(exc) or type(exc).__name__
            raise CallError(
                f"the connection to {self.endpoint} failed: {detail}", retryable=True
            ) from None
        if len(raw) > MAX_RESPONSE_BYTES:
            raise CallError(f"the answer from {self.endpoint} is over {MAX_RESPONSE_BYTES} bytes")
        return parse_chat_response(raw, self.endpoint)

    def _timeout(self) -> CallError:
        return CallError(
            f"no answer from {self.endpoint} within {self.timeout:g} s", retryable=True
        )

    def _http_error(self, exc: urllib.error.HTTPError) -> CallError:
        raw = b""
        with contextlib.suppress(OSError, http.client.HTTPException):
            raw = exc.read(64 * 1024)
        code = exc.code
        message = f"HTTP {code} {exc.reason} from {self.endpoint}: {_error_detail(raw)}"
        if code == 404:
            message += " (is the URL the API's base, such as http://127.0.0.1:11434/v1, "
            message += "and the model one the server has?)"
        elif code in (401, 403):
            message += " (the key: --api-key-env names the variable that holds it)"
        retry_after = None
        with contextlib.suppress(TypeError, ValueError):
            retry_after = min(float(exc.headers.get("Retry-After", "")), MAX_RETRY_DELAY)
        return CallError(message, retryable=code == 429 or code >= 500, retry_after=retry_after)


class Command:
    """A command that reads the prompt (``plain_text_prompt``) on stdin and prints the answer:
    ``ollama run qwen2.5:7b``, ``llm -m …``, a script."""

    def __init__(self, argv: Sequence[str], *, timeout: float = 60.0) -> None:
        self.argv = list(argv)
        self.timeout = timeout
        self._running: set[subprocess.Popen[bytes]] = set()
        self._lock = threading.Lock()

    @property
    def identity(self) -> str:
        return "command " + json.dumps(self.argv, ensure_ascii=False)

    @property
    def display(self) -> str:
        import shlex

        return shlex.join(self.argv)

    def complete(self, messages: Sequence[Message]) -> Answer:
        stdin = plain_text_prompt(messages).encode("utf-8", "replace")
        posix = os.name == "posix"
        argv = list(self.argv)
        try:
            process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=posix,  # a timeout ends what the command started, too
            )
        except FileNotFoundError:
            raise CallError(f"command not found: {self.argv[0]}") from None
        except OSError as exc:
            raise CallError(f"cannot run {self.argv[0]}: {exc.strerror or exc}") from None
        with self._lock:
            self._running.add(process)
        try:
            out, err = process.communicate(stdin, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            self._kill(process)
            raise CallError(
                f"`{self.display}` gave no answer within {self.timeout:g} s", retryable=True
            ) from None
        except BaseException:
            self._kill(process)
            raise
        finally:
            with self._lock:
                self._running.discard(process)
        if process.returncode != 0:
            code = process.returncode
            how = f"was killed by signal {-code}" if code < 0 else f"exited with {code}"
            detail = err.decode("utf-8", "replace").strip()
            detail = detail[-2000:] if len(detail) > 2000 else detail
            raise CallError(f"`{self.display}` {how}" + (f":\n{detail}" if detail else ""))
        return Answer(out.decode("utf-8", "replace").strip())

    def cancel(self) -> None:
        """End the commands still running (Ctrl-C): in their own session, the terminal's
        interrupt never reaches them."""
        with self._lock:
            running = [p for p in self._running if p.returncode is None]
        for process in running:
            self._signal(process)  # the worker thread waiting on it reaps it

    @classmethod
    def _kill(cls, process: subprocess.Popen[bytes]) -> None:
        cls._signal(process)
        with contextlib.suppress(subprocess.TimeoutExpired, OSError, ValueError):
            process.communicate(timeout=5)

    @staticmethod
    def _signal(process: subprocess.Popen[bytes]) -> None:
        with contextlib.suppress(OSError):
            if os.name == "posix":
                os.killpg(process.pid, signal.SIGKILL)
            else:
                process.kill()


def call_with_retries(
    transport: Transport,
    messages: Sequence[Message],
    *,
    retries: int = 2,
    backoff: float = 0.5,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[Answer, int]:
    """The answer and how many attempts it took; a retryable error is tried again up to
    ``retries`` times, waiting ``backoff`` s, then twice that … (or the server's Retry-After)."""
    attempt = 0
    while True:
        attempt += 1
        try:
            return transport.complete(messages), attempt
        except CallError as exc:
            if not exc.retryable or attempt > retries:
                exc.attempts = attempt
                raise
            delay = exc.retry_after if exc.retry_after is not None else backoff * 2 ** (attempt - 1)
            sleep(min(max(delay, 0.0), MAX_RETRY_DELAY))


# -- cache ------------------------------------------------------------------------------------


class AnswerCache:
    """One JSON file per answer (never pickle: the folder sits in the user's workspace), named by
    the blake2b of the transport's identity and the full messages."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @classmethod
    def of_workspace(cls, root: Path) -> AnswerCache:
        from easel_ls.cache import CACHE_DIR

        return cls(root / CACHE_DIR / CACHE_FOLDER)

    @staticmethod
    def key(identity: str, messages: Sequence[Message]) -> str:
        payload = json.dumps(
            {"transport": identity, "messages": [m.to_json() for m in messages]},
            ensure_ascii=False,
            sort_keys=True,
            separators=(",", ":"),
        )
        return blake2b(payload.encode("utf-8", "surrogatepass"), digest_size=20).hexdigest()

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def get(self, key: str) -> Answer | None:
        try:
            data = json.loads(self._path(key).read_bytes().decode("utf-8", "surrogatepass"))
        except (OSError, ValueError):  # absent, unreadable or corrupt: a miss
            return None
        if not isinstance(data, dict) or data.get("format") != _CACHE_FORMAT:
            return None
        text = data.get("answer")
        if not isinstance(text, str):
            return None
        prompt, completion = (
            _count(data.get("prompt_tokens")),
            _count(data.get("completion_tokens")),
        )
        return Answer(text, prompt, completion, cached=True)

    def put(self, key: str, identity: str, answer: Answer) -> bool:
        """Store an answer; False when the folder cannot be written (the run goes on)."""
        from easel_ls.fixes import atomic_write_bytes

        entry = {
            "format": _CACHE_FORMAT,
            "transport": identity,
            "answer": answer.text,
            "prompt_tokens": answer.prompt_tokens,
            "completion_tokens": answer.completion_tokens,
            "created": int(time.time()),
        }
        data = json.dumps(entry, ensure_ascii=False, indent=1).encode("utf-8", "surrogatepass")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            ignore = self.folder.parent / ".gitignore"
            if not ignore.exists():  # the same guard `check`'s cache writes
                atomic_write_bytes(ignore, b"# Created by easel-ls\n*\n", durable=False)
            # No fsync: a lost entry costs one call; the rename never leaves half a file.
            atomic_write_bytes(self._path(key), data, durable=False)
        except OSError:
            return False
        return True


# -- running ----------------------------------------------------------------------------------


@dataclass
class StageResult:
    stage: str
    status: str  # PASS, FAIL or ERROR
    answer: str = ""
    picked: str | None = None  # routing: the skill the answer names
    missing: tuple[Expected, ...] = ()  # execution: the lines the answer does not match
    error: str | None = None
    cached: bool = False
    attempts: int = 0  # calls made (0: from the cache)
    seconds: float = 0.0
    tokens_sent: int | None = None  # None: nothing spent (cached) or not countable
    tokens_received: int | None = None
    token_source: str | None = None  # "usage" (the server's) or "counted" (cl100k_base)


@dataclass
class SkillTestResult:
    test: SkillTest
    stages: dict[str, StageResult]

    @property
    def status(self) -> str:
        statuses = {result.status for result in self.stages.values()}
        if FAIL in statuses:
            return FAIL
        if ERROR in statuses:
            return ERROR
        return PASS


@dataclass
class Totals:
    tests: int = 0
    passed: int = 0
    failed: int = 0
    errors: int = 0
    calls: int = 0  # stage results (cached ones included)
    cached: int = 0
    errored_calls: int = 0
    tokens_sent: int = 0
    tokens_received: int = 0
    usage_calls: int = 0  # calls whose tokens the server reported
    counted_calls: int = 0  # calls whose tokens were counted here
    uncounted_calls: int = 0  # live calls with no usage and no tokenizer

    @property
    def every_call_errored(self) -> bool:
        return self.calls > 0 and self.errored_calls == self.calls


def totals_of(results: Iterable[SkillTestResult]) -> Totals:
    totals = Totals()
    for result in results:
        totals.tests += 1
        status = result.status
        totals.passed += status == PASS
        totals.failed += status == FAIL
        totals.errors += status == ERROR
        for stage in result.stages.values():
            totals.calls += 1
            totals.cached += stage.cached
            totals.errored_calls += stage.status == ERROR
            if stage.cached or stage.status == ERROR:
                continue
            if stage.token_source is None:
                totals.uncounted_calls += 1
                continue
            totals.tokens_sent += stage.tokens_sent or 0
            totals.tokens_received += stage.tokens_received or 0
            if stage.token_source == "usage":
                totals.usage_calls += 1
            else:
                totals.counted_calls += 1
    return totals


def _token_counts(
    messages: Sequence[Message], answer: Answer
) -> tuple[int | None, int | None, str | None]:
    if answer.prompt_tokens is not None and answer.completion_tokens is not None:
        return answer.prompt_tokens, answer.completion_tokens, "usage"
    from easel_ls.model.tokens import TokenizerUnavailable, count_tokens

    try:
        sent = sum(count_tokens(m.content) for m in messages)
        return sent, count_tokens(answer.text), "counted"
    except TokenizerUnavailable:
        return None, None, None


@dataclass
class Runner:
    transport: Transport
    collection: Collection
    stages: tuple[str, ...] = STAGES
    jobs: int = 4
    retries: int = 2
    backoff: float = 0.5
    cache: AnswerCache | None = None
    sleep: Callable[[float], None] = time.sleep

    def run_stage(self, test: SkillTest, stage: str) -> StageResult:
        start = time.monotonic()
        messages = messages_for(self.collection, test, stage)
        key = self.cache.key(self.transport.identity, messages) if self.cache else ""
        answer = self.cache.get(key) if self.cache else None
        attempts = 0
        if answer is None:
            try:
                answer, attempts = call_with_retries(
                    self.transport,
                    messages,
                    retries=self.retries,
                    backoff=self.backoff,
                    sleep=self.sleep,
                )
            except CallError as exc:
                error = str(exc)
                if exc.attempts > 1:
                    error += f" (after {exc.attempts} attempts)"
                seconds = time.monotonic() - start
                return StageResult(
                    stage, ERROR, error=error, attempts=exc.attempts, seconds=seconds
                )
            if self.cache is not None:
                self.cache.put(key, self.transport.identity, answer)
        sent = received = source = None
        if not answer.cached:
            sent, received, source = _token_counts(messages, answer)
        result = StageResult(
            stage,
            PASS,
            answer=answer.text,
            cached=answer.cached,
            attempts=attempts,
            tokens_sent=sent,
            tokens_received=received,
            token_source=source,
        )
        if stage == ROUTING:
            result.picked = pick_skill(answer.text, self.collection.names)
            same = result.picked is not None and result.picked.casefold() == test.skill.casefold()
            result.status = PASS if same else FAIL
        else:
            result.missing = tuple(missing_expected(test.expected, answer.text))
            result.status = FAIL if result.missing else PASS
        result.seconds = time.monotonic() - start
        return result

    def run(self, progress: Callable[[int, int], None] | None = None) -> list[SkillTestResult]:
        """Every test through every stage, ``jobs`` calls at a time; results in test order."""
        tests = self.collection.tests
        work = [(index, stage) for index, _test in enumerate(tests) for stage in self.stages]
        done: dict[tuple[int, str], StageResult] = {}
        if progress is not None:
            progress(0, len(work))
        pool = ThreadPoolExecutor(max_workers=max(1, self.jobs), thread_name_prefix="skill-test")
        try:
            futures = {
                pool.submit(self.run_stage, tests[i], stage): (i, stage) for i, stage in work
            }
            for count, future in enumerate(as_completed(futures), start=1):
                done[futures[future]] = future.result()
                if progress is not None:
                    progress(count, len(work))
        except BaseException:
            # Ctrl-C: calls not started are dropped, running commands ended.
            pool.shutdown(wait=False, cancel_futures=True)
            cancel = getattr(self.transport, "cancel", None)
            if callable(cancel):
                cancel()
            raise
        pool.shutdown()
        return [
            SkillTestResult(test, {stage: done[(i, stage)] for stage in self.stages})
            for i, test in enumerate(tests)
        ]


class ProgressBar:
    """``testing [#######-----] 7/12 calls`` on stderr, redrawn in place (a terminal only)."""

    WIDTH = 24

    def __init__(self, enabled: bool, stream: Any = None) -> None:
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        self.shown = False
        self._lock = threading.Lock()

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total == 0:
            return
        filled = self.WIDTH * done // total
        bar = "#" * filled + "-" * (self.WIDTH - filled)
        with self._lock:
            self.shown = True
            self.stream.write(f"\r\x1b[Ktesting [{bar}] {done}/{total} calls")
            self.stream.flush()

    def done(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def display_width(text: str) -> int:
    """Columns on a terminal: a CJK character takes two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
