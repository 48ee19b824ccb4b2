"""`easel-ls test` end to end: the command in a subprocess against a chat completions server
started here on 127.0.0.1 (scripted answers), and against a `--model-cmd` script."""

from __future__ import annotations

import json
import os
import pty
import socket
import subprocess
import sys
import textwrap
import threading
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from cli_tools import environment, run

SKILL = textwrap.dedent(
    """\
    ---
    name: {name}
    description: >-
      {description}
    layer: {layer}
    ---
    # {title}

    ## 执行步骤
    1. 按请求完成。
    """
)
SKILLS = {
    "card-maker": ("为小红书笔记生成封面与卡片图。当用户说“做卡片”时使用；不负责发布。", "produce"),
    "xhs-publish": ("把笔记发布到小红书。当用户说“发布”时使用；不负责出图。", "publish"),
}
PROMPTS = {"card-maker": "把这篇笔记做成卡片", "xhs-publish": "把笔记发布出去"}
EXPECTED = {"card-maker": "# 关键字\n卡片\nre:\\d+ ?张\n", "xhs-publish": "已发布\n"}

Reply = tuple[int, Any, float]  # status, body (a dict is sent as JSON), delay in seconds


def make_workspace(root: Path) -> Path:
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.easel-ls]\n", encoding="utf-8")
    for name, (description, layer) in SKILLS.items():
        folder = root / "skills" / "openclaw" / name
        (folder / "tests").mkdir(parents=True)
        text = SKILL.format(name=name, description=description, layer=layer, title=name)
        (folder / "SKILL.md").write_text(text, encoding="utf-8")
        (folder / "tests" / "1.prompt").write_text(PROMPTS[name] + "\n", encoding="utf-8")
        (folder / "tests" / "1.expected").write_text(EXPECTED[name], encoding="utf-8")
    return root


def good_answer(body: dict[str, Any]) -> str:
    """Routes 卡片 to card-maker and 发布 to xhs-publish; executes as the skill says."""
    system, user = body["messages"][0]["content"], body["messages"][1]["content"]
    if system.startswith("You route"):
        return "`card-maker`" if "卡片" in user else "这个请求应该交给 xhs-publish。"
    return "做好了 3 张卡片" if "name: card-maker" in system else "已发布到小红书"


def chat(text: str, usage: bool = True) -> dict[str, Any]:
    body: dict[str, Any] = {
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}}],
    }
    if usage:
        body["usage"] = {"prompt_tokens": 100, "completion_tokens": 7}
    return body


class ModelServer:
    """A chat completions server on 127.0.0.1: ``script`` answers each request."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.release = threading.Event()  # ends every pending delay at teardown
        self.script: Callable[[int, dict[str, Any]], Reply] = lambda _n, body: (
            200,
            chat(good_answer(body)),
            0.0,
        )
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length).decode("utf-8"))
                with owner.lock:
                    number = len(owner.requests)
                    owner.requests.append(
                        {"path": self.path, "headers": dict(self.headers), "body": body}
                    )
                status, reply, delay = owner.script(number, body)
                if delay:
                    owner.release.wait(delay)
                data = reply if isinstance(reply, bytes) else json.dumps(reply).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                    pass

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server() -> Iterator[ModelServer]:
    model = ModelServer()
    try:
        yield model
    finally:
        model.close()


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_workspace(tmp_path / "ws")


def easel_test(ws: Path, *args: str, env: dict[str, str] | None = None) -> Any:
    return run("test", *args, cwd=ws, env=env, timeout=60)


def via(server: ModelServer, *args: str) -> list[str]:
    return ["--model-url", server.url, "--model", "qwen2.5:7b", *args]


def test_both_stages_pass_and_the_server_gets_the_right_messages(
    ws: Path, server: ModelServer
) -> None:
    env = environment(EASEL_TEST_KEY="sekret")
    result = easel_test(ws, *via(server, "--api-key-env", "EASEL_TEST_KEY"), env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["skill", "test", "routing", "picked", "execution", "missing"]
    assert lines[1].split() == ["card-maker", "1", "pass", "card-maker", "pass"]
    assert lines[2].split() == ["xhs-publish", "1", "pass", "xhs-publish", "pass"]
    assert "2 tests: 2 passed, 0 failed, 0 errors." in result.stdout
    assert "4 calls: 0 answered from the cache." in result.stdout
    assert "Tokens: 400 sent, 28 received (as the server reported them)." in result.stdout

    assert len(server.requests) == 4
    for request in server.requests:
        assert request["path"] == "/v1/chat/completions"
        assert request["headers"]["Authorization"] == "Bearer sekret"
        assert request["body"]["model"] == "qwen2.5:7b"
        assert request["body"]["temperature"] == 0
        assert [m["role"] for m in request["body"]["messages"]] == ["system", "user"]
    bodies = [r["body"]["messages"] for r in server.requests]
    routing = [m for m in bodies if m[0]["content"].startswith("You route")]
    execution = [m for m in bodies if not m[0]["content"].startswith("You route")]
    assert len(routing) == len(execution) == 2
    for messages in routing:  # every skill's resident metadata, whichever test asks
        listing = messages[0]["content"].split("Skills:\n", 1)[1].splitlines()
        assert listing == [f"- {name}: {description}" for name, (description, _) in SKILLS.items()]
    skill_md = (ws / "skills/openclaw/card-maker/SKILL.md").read_text(encoding="utf-8")
    card = next(m for m in execution if m[1]["content"] == PROMPTS["card-maker"])
    assert card[0]["content"] == skill_md  # the whole SKILL.md as the system prompt


def test_a_second_run_is_served_from_the_cache(ws: Path, server: ModelServer) -> None:
    assert easel_test(ws, *via(server)).returncode == 0
    assert len(server.requests) == 4
    again = easel_test(ws, *via(server))
    assert again.returncode == 0, again.stderr
    assert len(server.requests) == 4  # not one request more
    assert "4 calls: 4 answered from the cache." in again.stdout
    assert "Tokens: none spent" in again.stdout
    # A changed test costs its own calls only; --no-cache asks for everything again.
    prompt = ws / "skills/openclaw/card-maker/tests/1.prompt"
    prompt.write_text("请把笔记做成卡片\n", encoding="utf-8")
    assert easel_test(ws, *via(server)).returncode == 0
    assert len(server.requests) == 6
    assert easel_test(ws, *via(server, "--no-cache")).returncode == 0
    assert len(server.requests) == 10
    entries = list((ws / ".easel-ls-cache/skill-tests").glob("*.json"))
    assert len(entries) == 6 and all(json.loads(e.read_text("utf-8"))["answer"] for e in entries)


def test_a_server_error_is_retried(ws: Path, server: ModelServer) -> None:
    def script(number: int, body: dict[str, Any]) -> Reply:
        if number == 0:
            return 500, {"error": {"message": "overloaded"}}, 0.0
        return 200, chat(good_answer(body)), 0.0

    server.script = script
    result = easel_test(ws, *via(server, "--jobs", "1"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert len(server.requests) == 5
    assert server.requests[0]["body"] == server.requests[1]["body"]  # the same call again


def test_a_client_error_is_not_retried(ws: Path, server: ModelServer) -> None:
    server.script = lambda _n, _b: (400, {"error": {"message": "unknown model"}}, 0.0)
    result = easel_test(ws, *via(server, "--output-format", "json"))
    assert result.returncode == 2
    assert len(server.requests) == 4  # one per call
    report = json.loads(result.stdout)
    errors = [t[stage]["error"] for t in report["tests"] for stage in ("routing", "execution")]
    assert all(e.startswith("HTTP 400 Bad Request from ") and "unknown model" in e for e in errors)
    assert "every call failed" in result.stderr


def test_a_call_that_times_out(ws: Path, server: ModelServer) -> None:
    server.script = lambda _n, body: (200, chat(good_answer(body)), 20.0)
    result = easel_test(ws, *via(server, "--timeout", "0.5", "--retries", "1"))
    assert result.returncode == 2, result.stdout + result.stderr
    assert len(server.requests) == 8  # each call tried twice
    assert "within 0.5 s (after 2 attempts)" in result.stdout
    assert "2 tests: 0 passed, 0 failed, 2 errors." in result.stdout
    assert "every call failed; the first: no answer from" in result.stderr


def test_failures_are_reported_in_json_and_exit_1(ws: Path, server: ModelServer) -> None:
    def script(_number: int, body: dict[str, Any]) -> Reply:
        system = body["messages"][0]["content"]
        if system.startswith("You route"):
            return 200, chat("xhs-publish"), 0.0  # routes everything to xhs-publish
        return 200, chat("卡片做好了", usage=False), 0.0  # no count of pictures

    server.script = script
    result = easel_test(ws, *via(server, "--output-format", "json"))
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["model"] == {
        "transport": "chat-completions",
        "url": server.url + "/chat/completions",
        "model": "qwen2.5:7b",
    }
    card, publish = report["tests"]
    assert (card["skill"], card["test"], card["status"]) == ("card-maker", "1", "fail")
    assert card["prompt"] == "skills/openclaw/card-maker/tests/1.prompt"
    assert card["routing"]["status"] == "fail" and card["routing"]["picked"] == "xhs-publish"
    assert card["execution"]["missing"] == [{"line": 3, "text": "re:\\d+ ?张"}]
    assert publish["routing"]["status"] == "pass"
    assert publish["execution"]["missing"] == [{"line": 1, "text": "已发布"}]
    totals = report["totals"]
    assert (totals["tests"], totals["passed"], totals["failed"]) == (2, 0, 2)
    # Routing answers came with usage, execution answers without: those were counted here.
    assert totals["usage_calls"] == 2 and totals["counted_calls"] == 2
    assert card["execution"]["token_source"] == "counted"


def test_junit_has_a_case_per_test_and_stage(ws: Path, server: ModelServer) -> None:
    def script(_number: int, body: dict[str, Any]) -> Reply:
        if "发布" in body["messages"][1]["content"] and "You route" in str(body["messages"][0]):
            return 200, chat("我不确定"), 0.0
        return 200, chat(good_answer(body)), 0.0

    server.script = script
    out = ws / "report.xml"
    result = easel_test(ws, *via(server, "--output-format", "junit", "--output-file", str(out)))
    assert result.returncode == 1, result.stderr
    assert result.stdout == ""
    root = ET.fromstring(out.read_text(encoding="utf-8"))
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("4", "1", "0")
    cases = {(c.get("classname"), c.get("name")): c for c in root.iter("testcase")}
    assert set(cases) == {
        ("easel-ls.card-maker", "1 routing"),
        ("easel-ls.card-maker", "1 execution"),
        ("easel-ls.xhs-publish", "1 routing"),
        ("easel-ls.xhs-publish", "1 execution"),
    }
    failure = cases[("easel-ls.xhs-publish", "1 routing")].find("failure")
    assert failure is not None and failure.get("message") == "named no listed skill"
    assert failure.text == "我不确定"
    assert cases[("easel-ls.card-maker", "1 routing")].find("failure") is None


def test_a_path_selects_a_skill_or_one_test_and_a_stage_runs_alone(
    ws: Path, server: ModelServer
) -> None:
    result = easel_test(ws, "skills/openclaw/xhs-publish", *via(server))
    assert result.returncode == 0, result.stderr
    assert len(server.requests) == 2 and "1 test: 1 passed" in result.stdout
    one = easel_test(ws, *via(server, "--no-cache"), "skills/openclaw/card-maker/tests/1.prompt")
    assert one.returncode == 0 and len(server.requests) == 4
    routing = easel_test(ws, *via(server, "--stage", "routing", "--no-cache"))
    assert routing.returncode == 0
    assert len(server.requests) == 6
    assert all(
        r["body"]["messages"][0]["content"].startswith("You route") for r in server.requests[4:]
    )
    assert routing.stdout.splitlines()[0].split() == ["skill", "test", "routing", "picked"]


def test_an_unpaired_test_is_said_and_skipped(ws: Path, server: ModelServer) -> None:
    (ws / "skills/openclaw/card-maker/tests/2.prompt").write_text("孤单的请求", encoding="utf-8")
    result = easel_test(ws, *via(server))
    assert result.returncode == 0
    assert result.stderr == (
        "easel-ls test: skills/openclaw/card-maker/tests/2.prompt: skipped: has no "
        "`2.expected` beside it (TS001)\n"
    )
    assert len(server.requests) == 4
    alone = easel_test(ws, *via(server), "skills/openclaw/card-maker/tests/2.prompt")
    assert alone.returncode == 2 and "no tests to run" in alone.stderr


def _model_script(folder: Path, body: str) -> str:
    path = folder / "fake_model.py"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return f"{sys.executable} {path}"


def test_a_model_command_gets_the_prompt_on_stdin(ws: Path, tmp_path: Path) -> None:
    log = tmp_path / "stdin.log"
    command = _model_script(
        tmp_path,
        f"""\
        import sys
        text = sys.stdin.read()
        with open({str(log)!r}, "a", encoding="utf-8") as log:
            log.write(text + "\\0")
        system, user = text.rsplit("\\n\\n[USER]\\n", 1)
        if system.startswith("[SYSTEM]\\nYou route"):
            print("card-maker" if "卡片" in user else "xhs-publish")
        else:
            print("做好了 3 张卡片" if "name: card-maker" in system else "没有发布")
        """,
    )
    result = easel_test(ws, "--model-cmd", command, "--output-format", "json")
    assert result.returncode == 1, result.stderr  # xhs-publish's execution misses 已发布
    report = json.loads(result.stdout)
    assert report["model"]["transport"] == "command"
    assert [t["status"] for t in report["tests"]] == ["pass", "fail"]
    prompts = [p for p in log.read_text(encoding="utf-8").split("\0") if p]
    skill_md = (ws / "skills/openclaw/card-maker/SKILL.md").read_text(encoding="utf-8")
    assert f"[SYSTEM]\n{skill_md}\n\n[USER]\n{PROMPTS['card-maker']}\n" in prompts
    assert report["totals"]["counted_calls"] == 4  # a command reports no usage
    again = easel_test(ws, "--model-cmd", command)
    assert len([p for p in log.read_text(encoding="utf-8").split("\0") if p]) == 4  # cached
    assert "4 calls: 4 answered from the cache." in again.stdout


def test_a_failing_model_command_shows_its_stderr(ws: Path, tmp_path: Path) -> None:
    command = _model_script(
        tmp_path, "import sys\nsys.stderr.write('model file missing\\n')\nsys.exit(4)\n"
    )
    result = easel_test(ws, "--model-cmd", command)
    assert result.returncode == 2
    assert "exited with 4:" in result.stdout and "model file missing" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def test_nothing_is_sent_without_a_model(ws: Path, server: ModelServer) -> None:
    result = easel_test(ws)
    assert result.returncode == 2 and result.stdout == ""
    assert "no model named, so nothing was sent" in result.stderr
    assert "--model-url URL --model NAME" in result.stderr and "--model-cmd CMD" in result.stderr
    assert server.requests == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--model-url", "URL"], "--model-url needs --model NAME"),
        (["--model", "qwen2.5:7b"], "give --model-url URL too"),
        (["--model-url", "ftp://x/v1", "--model", "m"], "is not an http(s) URL"),
        (["--model-cmd", "x", "--model-url", "http://127.0.0.1:9/v1"], "not both"),
        (["--model-cmd", "'unclosed"], "cannot split"),
        (["--model-cmd", "x", "nowhere/"], "no such file or folder: nowhere"),
        (["--model-cmd", "x", "--timeout", "0"], "must be a positive number of seconds"),
    ],
)
def test_usage_errors_exit_2_without_a_traceback(ws: Path, args: list[str], message: str) -> None:
    result = easel_test(ws, *args)
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr


def test_an_unset_key_variable_is_an_error(ws: Path, server: ModelServer) -> None:
    env = {k: v for k, v in environment().items() if k != "EASEL_NO_SUCH_KEY"}
    result = easel_test(ws, *via(server, "--api-key-env", "EASEL_NO_SUCH_KEY"), env=env)
    assert result.returncode == 2
    assert "EASEL_NO_SUCH_KEY (--api-key-env) is not set" in result.stderr
    env = environment(EASEL_TEST_KEY="two\nlines")
    broken = easel_test(ws, *via(server, "--api-key-env", "EASEL_TEST_KEY"), env=env)
    assert broken.returncode == 2 and "holds control characters" in broken.stderr
    assert server.requests == []


def test_an_unreachable_server_and_one_that_is_no_api(ws: Path, server: ModelServer) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    args = ["--model-url", f"http://127.0.0.1:{port}/v1", "--model", "m", "--retries", "0"]
    result = easel_test(ws, *args)
    assert result.returncode == 2
    assert f"cannot reach http://127.0.0.1:{port}/v1/chat/completions" in result.stdout
    server.script = lambda _n, _b: (200, b"<html><body>It works</body></html>", 0.0)
    page = easel_test(ws, *via(server))
    assert page.returncode == 2
    assert "is not JSON (a web page: is the URL the API's base" in page.stdout
    assert "Traceback" not in result.stderr + page.stderr


def test_the_command_is_listed() -> None:
    result = run("--help", cwd=Path.cwd())
    assert "  test " in result.stdout and "routing and execution" in result.stdout


def _stderr_on_a_terminal(ws: Path, *args: str) -> tuple[int, str]:
    controller, terminal = pty.openpty()
    try:
        process = subprocess.run(
            [sys.executable, "-m", "easel_ls", "test", *args],
            cwd=ws,
            stdout=subprocess.PIPE,
            stderr=terminal,
            timeout=60,
            env=environment(),
        )
        os.close(terminal)
        terminal = -1
        chunks = []
        while True:
            try:
                chunk = os.read(controller, 4096)
            except OSError:  # the terminal side is closed: everything was read
                break
            if not chunk:
                break
            chunks.append(chunk)
        return process.returncode, b"".join(chunks).decode()
    finally:
        os.close(controller)
        if terminal != -1:
            os.close(terminal)


def test_a_progress_bar_on_a_terminal_only(ws: Path, server: ModelServer) -> None:
    code, stderr = _stderr_on_a_terminal(ws, *via(server))
    assert code == 0
    assert "testing [------------------------] 0/4 calls" in stderr
    assert "testing [########################] 4/4 calls" in stderr
    assert stderr.endswith("\r\x1b[K")  # and cleared before the report
    code, stderr = _stderr_on_a_terminal(ws, *via(server, "--no-progress"))
    assert code == 0 and stderr == ""
    piped = easel_test(ws, *via(server))
    assert piped.returncode == 0 and piped.stderr == ""
