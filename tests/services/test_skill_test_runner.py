"""The skill-test runner without a network: expected lines, messages, answer parsing, the
answer cache, retries and the two transports' error handling."""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

import pytest

from easel_ls.services.skill_tests import (
    ERROR,
    EXECUTION,
    FAIL,
    PASS,
    ROUTING,
    Answer,
    AnswerCache,
    CallError,
    ChatCompletions,
    Command,
    Message,
    Runner,
    SelectionError,
    call_with_retries,
    chat_endpoint,
    collect,
    execution_messages,
    missing_expected,
    parse_chat_response,
    parse_expected,
    pick_skill,
    plain_text_prompt,
    routing_messages,
    totals_of,
)
from easel_ls.workspace import Workspace

SKILL = textwrap.dedent(
    """\
    ---
    name: {name}
    description: >-
      {description}
    layer: produce
    ---
    # {name}

    按步骤完成。
    """
)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _workspace(root: Path) -> Workspace:
    _write(root / "pyproject.toml", "[tool.easel-ls]\n")
    skills = root / "skills" / "openclaw"
    _write(
        skills / "card-maker" / "SKILL.md",
        SKILL.format(
            name="card-maker",
            description="为小红书笔记生成封面与卡片图。\n  当用户说“做卡片”时使用；不负责发布。",
        ),
    )
    _write(
        skills / "xhs-publish" / "SKILL.md",
        SKILL.format(name="xhs-publish", description="把笔记发布到小红书。当用户说“发布”时使用。"),
    )
    _write(skills / "card-maker" / "tests" / "1.prompt", "把这篇笔记做成卡片\n")
    _write(skills / "card-maker" / "tests" / "1.expected", "# 关键字\n\n卡片\nre:\\d+ ?张\n")
    _write(skills / "xhs-publish" / "tests" / "1.prompt", "发布这篇笔记\n")
    _write(skills / "xhs-publish" / "tests" / "1.expected", "已发布\n")
    return Workspace.at(root)


# -- expected lines ---------------------------------------------------------------------------


def test_expected_lines_skip_blanks_and_comments_and_compile_patterns() -> None:
    expected, problems = parse_expected(["# 注释", "", "  封面  ", "re:^第\\d+张$", "Cover"])
    assert problems == []
    assert [(e.line, e.text) for e in expected] == [(3, "封面"), (4, "re:^第\\d+张$"), (5, "Cover")]
    assert expected[0].pattern is None and expected[1].pattern is not None


def test_keywords_match_case_insensitively_and_patterns_per_line() -> None:
    expected, _ = parse_expected(["COVER", "re:^第\\d+张$"])
    assert missing_expected(expected, "the cover is done\n第3张\n") == []
    # `^…$` holds per line (multiline), and the keyword must be there at all.
    missing = missing_expected(expected, "done: 第3张 of 5")
    assert [e.text for e in missing] == ["COVER", "re:^第\\d+张$"]


def test_a_pattern_is_case_sensitive_unless_it_says_otherwise() -> None:
    expected, _ = parse_expected(["re:Done", "re:(?i)ready"])
    assert [e.text for e in missing_expected(expected, "done, READY")] == ["re:Done"]


def test_a_pattern_that_does_not_compile_is_a_problem_with_its_line() -> None:
    expected, problems = parse_expected(["ok", "re:(unclosed"])
    assert [e.text for e in expected] == ["ok"]
    assert len(problems) == 1 and problems[0].startswith("line 2: pattern `(unclosed`")


def test_what_a_reasoning_model_thinks_is_no_answer() -> None:
    expected, _ = parse_expected(["卡片"])
    assert [e.text for e in missing_expected(expected, "<think>卡片?</think>好的")] == ["卡片"]
    assert missing_expected(expected, "<THINK>嗯</THINK>三张卡片") == []


# -- routing answers --------------------------------------------------------------------------

NAMES = ["card-maker", "card-maker-pro", "xhs-publish"]


@pytest.mark.parametrize(
    ("answer", "picked"),
    [
        ("card-maker", "card-maker"),
        ("`xhs-publish`", "xhs-publish"),
        ("I would route this to **XHS-Publish**.", "xhs-publish"),
        ("应该用 card-maker 来做", "card-maker"),
        ("应该用card-maker。", "card-maker"),
        ("card-maker-pro, not card-maker", "card-maker-pro"),  # the longest name at one place
        ("xhs-publish first, then card-maker", "xhs-publish"),  # the first one named
        ("skills/openclaw/card-maker/SKILL.md", "card-maker"),
        ("card-makers", None),  # no listed name as a whole word
        ("none of them", None),
        ("<think>maybe card-maker?</think>xhs-publish", "xhs-publish"),
        ("<think>card-maker or xhs-publish … (cut off)", None),
    ],
)
def test_the_picked_skill_is_the_first_listed_name_in_the_answer(
    answer: str, picked: str | None
) -> None:
    assert pick_skill(answer, NAMES) == picked


# -- collection and messages ------------------------------------------------------------------


def test_collect_finds_pairs_and_the_resident_metadata(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    collection = collect(ws, [tmp_path])
    assert [t.id for t in collection.tests] == ["card-maker/1", "xhs-publish/1"]
    assert collection.notices == []
    card = collection.tests[0]
    assert card.prompt == "把这篇笔记做成卡片"
    assert [e.text for e in card.expected] == ["卡片", "re:\\d+ ?张"]
    meta = {m.name: m for m in collection.metadata}
    # The folded description is one line, as the agent's list shows it.
    assert meta["card-maker"].line() == (
        "card-maker: 为小红书笔记生成封面与卡片图。 当用户说“做卡片”时使用；不负责发布。"
    )


def test_routing_messages_list_every_skill_and_send_the_request(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    collection = collect(ws, [tmp_path / "skills/openclaw/xhs-publish"])
    assert [t.id for t in collection.tests] == ["xhs-publish/1"]  # one skill's tests …
    system, user = routing_messages(collection.metadata, collection.tests[0].prompt)
    assert system.role == "system" and user == Message("user", "发布这篇笔记")
    listing = system.content.split("Skills:\n", 1)[1].splitlines()
    assert listing == [  # … but every skill of the workspace to route between
        "- card-maker: 为小红书笔记生成封面与卡片图。 当用户说“做卡片”时使用；不负责发布。",
        "- xhs-publish: 把笔记发布到小红书。当用户说“发布”时使用。",
    ]
    assert "name of the one skill" in system.content


def test_execution_messages_are_the_whole_skill_md_and_the_request(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    test = collect(ws, [tmp_path]).tests[0]
    skill_md = (tmp_path / "skills/openclaw/card-maker/SKILL.md").read_text(encoding="utf-8")
    assert execution_messages(test) == (
        Message("system", skill_md),
        Message("user", "把这篇笔记做成卡片"),
    )


def test_one_prompt_file_selects_one_test_and_tests_sort_naturally(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    tests = tmp_path / "skills/openclaw/card-maker/tests"
    for stem in ("2", "10"):
        _write(tests / f"{stem}.prompt", f"请求 {stem}")
        _write(tests / f"{stem}.expected", "卡片")
    assert [t.name for t in collect(ws, [tests.parent]).tests] == ["1", "2", "10"]
    assert [t.id for t in collect(ws, [tests / "10.prompt"]).tests] == ["card-maker/10"]
    assert [t.id for t in collect(ws, [tests / "2.expected"]).tests] == ["card-maker/2"]


def test_unpaired_unreadable_and_broken_tests_are_skipped_with_a_reason(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    tests = tmp_path / "skills/openclaw/card-maker/tests"
    _write(tests / "2.prompt", "没有期望")
    _write(tests / "3.expected", "孤单")
    _write(tests / "4.prompt", "坏的正则")
    _write(tests / "4.expected", "re:[")
    (tests / "5.prompt").write_bytes(b"\xff\xfe not utf-8")
    _write(tests / "5.expected", "x")
    _write(tests / "6.prompt", "  \n")
    _write(tests / "6.expected", "x")
    _write(tests / "7.prompt", "可以跑")
    _write(tests / "7.expected", "# 只有注释\n")
    collection = collect(ws, [tests])
    assert [t.name for t in collection.tests] == ["1", "7"]
    said = {(n.path.name, n.skipped): n.message for n in collection.notices}
    assert said[("2.prompt", True)] == "has no `2.expected` beside it (TS001)"
    assert said[("3.expected", True)] == "has no `3.prompt` beside it (TS001)"
    assert "does not compile" in said[("4.expected", True)]
    assert ("5.prompt", True) in said
    assert "empty" in said[("6.prompt", True)]
    assert "always passes" in said[("7.expected", False)]  # run, with a warning


def test_a_path_outside_the_skills_is_refused(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    _write(tmp_path / "notes" / "a.md", "x")
    with pytest.raises(SelectionError, match="holds no skill"):
        collect(ws, [tmp_path / "notes"])
    elsewhere = tmp_path.parent / f"{tmp_path.name}-other"
    elsewhere.mkdir()
    with pytest.raises(SelectionError, match="outside the workspace"):
        collect(ws, [elsewhere])


def test_the_command_layout_marks_each_message() -> None:
    text = plain_text_prompt([Message("system", "规则\n两行"), Message("user", "请求")])
    assert text == "[SYSTEM]\n规则\n两行\n\n[USER]\n请求\n"


# -- chat completions answers -----------------------------------------------------------------


def test_chat_endpoint_is_added_once() -> None:
    assert chat_endpoint("http://h:1/v1") == "http://h:1/v1/chat/completions"
    assert chat_endpoint("http://h:1/v1/") == "http://h:1/v1/chat/completions"
    assert chat_endpoint("http://h:1/v1/chat/completions") == "http://h:1/v1/chat/completions"
    assert (
        chat_endpoint("https://h/v1?api-version=2") == "https://h/v1/chat/completions?api-version=2"
    )


def test_a_chat_answer_gives_its_content_and_usage() -> None:
    body = {
        "choices": [{"message": {"role": "assistant", "content": "card-maker"}}],
        "usage": {"prompt_tokens": 120, "completion_tokens": 3},
    }
    assert parse_chat_response(json.dumps(body).encode(), "E") == Answer("card-maker", 120, 3)
    parts = {"choices": [{"message": {"content": [{"type": "text", "text": "a"}, {"text": "b"}]}}]}
    assert parse_chat_response(json.dumps(parts).encode(), "E") == Answer("ab")
    empty = {"choices": [{"message": {"content": None}}], "usage": {"prompt_tokens": "x"}}
    assert parse_chat_response(json.dumps(empty).encode(), "E") == Answer("")


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"<html><body>Not here</body></html>", "is not JSON (a web page"),
        (b"\xff\xfe", "is not JSON"),
        (b"[1, 2]", "not an object"),
        (b'{"error": {"message": "model not loaded"}}', "answered with an error: model not loaded"),
        (b'{"error": "boom"}', "answered with an error: boom"),
        (b'{"id": "x"}', "has no `choices`"),
        (b'{"choices": [{"message": {"content": 3}}]}', "no text"),
    ],
)
def test_a_bad_chat_answer_is_a_clear_error(raw: bytes, message: str) -> None:
    with pytest.raises(CallError) as caught:
        parse_chat_response(raw, "http://h/v1/chat/completions")
    assert message in str(caught.value)
    assert not caught.value.retryable


def test_an_unreachable_server_is_a_retryable_error() -> None:
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    transport = ChatCompletions(f"http://127.0.0.1:{port}/v1", "m", timeout=5)
    with pytest.raises(CallError) as caught:
        transport.complete([Message("user", "hi")])
    assert caught.value.retryable
    assert f"cannot reach http://127.0.0.1:{port}/v1/chat/completions" in str(caught.value)


# -- commands ---------------------------------------------------------------------------------


def _script(tmp_path: Path, body: str) -> list[str]:
    path = _write(tmp_path / "model.py", textwrap.dedent(body))
    return [sys.executable, str(path)]


def test_a_command_gets_the_prompt_on_stdin_and_answers_on_stdout(tmp_path: Path) -> None:
    argv = _script(tmp_path, "import sys\nprint(sys.stdin.read().upper())\n")
    answer = Command(argv).complete([Message("system", "rules"), Message("user", "hé")])
    assert answer == Answer("[SYSTEM]\nRULES\n\n[USER]\nHÉ")


def test_a_failing_command_is_an_error_with_its_stderr(tmp_path: Path) -> None:
    argv = _script(tmp_path, "import sys\nsys.stderr.write('no model loaded')\nsys.exit(3)\n")
    with pytest.raises(CallError, match="exited with 3:\nno model loaded") as caught:
        Command(argv).complete([Message("user", "x")])
    assert not caught.value.retryable


def test_a_missing_command_and_a_slow_one(tmp_path: Path) -> None:
    with pytest.raises(CallError, match="command not found: no-such-model-xyz"):
        Command(["no-such-model-xyz"]).complete([Message("user", "x")])
    argv = _script(tmp_path, "import time\ntime.sleep(30)\n")
    with pytest.raises(CallError, match=r"no answer within 0\.3 s") as caught:
        Command(argv, timeout=0.3).complete([Message("user", "x")])
    assert caught.value.retryable


# -- retries, cache and the runner ------------------------------------------------------------


class Scripted:
    """A transport answering from a list: an Answer, or a CallError to raise."""

    identity = "scripted"

    def __init__(self, *outcomes: Answer | CallError, default: Answer | None = None) -> None:
        self.outcomes = list(outcomes)
        self.default = default
        self.calls: list[tuple[Message, ...]] = []

    def complete(self, messages: Sequence[Message]) -> Answer:
        self.calls.append(tuple(messages))
        outcome = self.outcomes.pop(0) if self.outcomes else self.default
        if isinstance(outcome, CallError):
            raise outcome
        assert outcome is not None, "more calls than scripted"
        return outcome


def test_retryable_errors_are_retried_with_backoff() -> None:
    slept: list[float] = []
    transport = Scripted(
        CallError("HTTP 500", retryable=True),
        CallError("HTTP 429", retryable=True, retry_after=3.0),
        Answer("ok"),
    )
    answer, attempts = call_with_retries(
        transport, [Message("user", "x")], retries=2, sleep=slept.append
    )
    assert (answer, attempts) == (Answer("ok"), 3)
    assert slept == [0.5, 3.0]  # backoff, then the server's Retry-After


def test_retries_stop_at_the_limit_and_never_retry_a_client_error() -> None:
    slept: list[float] = []
    transport = Scripted(*(CallError("timeout", retryable=True) for _ in range(3)))
    with pytest.raises(CallError) as caught:
        call_with_retries(transport, [Message("user", "x")], retries=2, sleep=slept.append)
    assert caught.value.attempts == 3 and slept == [0.5, 1.0]
    transport = Scripted(CallError("HTTP 400", retryable=False), Answer("never"))
    with pytest.raises(CallError, match="HTTP 400"):
        call_with_retries(transport, [Message("user", "x")], retries=2, sleep=slept.append)
    assert len(transport.calls) == 1


def test_the_cache_key_covers_the_transport_and_every_message() -> None:
    messages = [Message("system", "s"), Message("user", "u")]
    key = AnswerCache.key("a", messages)
    assert key == AnswerCache.key("a", list(messages))
    assert key != AnswerCache.key("b", messages)
    assert key != AnswerCache.key("a", [Message("system", "s"), Message("user", "u2")])
    assert key != AnswerCache.key("a", [Message("user", "s"), Message("user", "u")])


def test_the_cache_stores_json_and_ignores_a_corrupt_entry(tmp_path: Path) -> None:
    cache = AnswerCache.of_workspace(tmp_path)
    assert cache.put("k", "id", Answer("答案", 10, 2))
    stored = json.loads((tmp_path / ".easel-ls-cache/skill-tests/k.json").read_text("utf-8"))
    assert stored["answer"] == "答案" and stored["transport"] == "id"
    assert (tmp_path / ".easel-ls-cache/.gitignore").is_file()
    assert cache.get("k") == Answer("答案", 10, 2, cached=True)
    (tmp_path / ".easel-ls-cache/skill-tests/k.json").write_text("{not json", encoding="utf-8")
    assert cache.get("k") is None
    assert cache.get("absent") is None


def test_a_second_run_is_answered_from_the_cache(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    collection = collect(ws, [tmp_path])
    cache = AnswerCache.of_workspace(tmp_path)
    first = Scripted(default=Answer("card-maker: 3 张卡片", 50, 5))
    results = Runner(first, collection, cache=cache, jobs=2).run()
    assert len(first.calls) == 4
    assert not any(s.cached for r in results for s in r.stages.values())
    second = Scripted()  # any call would fail: nothing scripted
    again = Runner(second, collection, cache=cache).run()
    assert second.calls == []
    assert all(s.cached for r in again for s in r.stages.values())
    assert [r.status for r in again] == [r.status for r in results]
    totals = totals_of(again)
    assert (totals.cached, totals.tokens_sent, totals.usage_calls) == (4, 0, 0)


def test_the_runner_judges_both_stages_and_reports_errors(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    collection = collect(ws, [tmp_path])

    class ByStage(Scripted):
        def complete(self, messages: Sequence[Message]) -> Answer:
            self.calls.append(tuple(messages))
            routing = messages[0].content.startswith("You route")
            request = messages[1].content
            if request.startswith("发布"):
                if routing:
                    raise CallError("HTTP 503 busy", retryable=False)
                return Answer("已经发布")  # misses `已发布`
            return Answer("用 `card-maker`" if routing else "共 3 张卡片")

    results = Runner(ByStage(), collection, sleep=lambda _s: None).run()
    card, publish = results
    assert card.status == PASS and card.stages[ROUTING].picked == "card-maker"
    assert publish.stages[ROUTING].status == ERROR
    assert publish.stages[ROUTING].error == "HTTP 503 busy"
    assert publish.stages[EXECUTION].status == FAIL  # still run after routing failed
    assert [e.text for e in publish.stages[EXECUTION].missing] == ["已发布"]
    totals = totals_of(results)
    assert (totals.tests, totals.passed, totals.failed, totals.errors) == (2, 1, 1, 0)
    assert totals.errored_calls == 1 and not totals.every_call_errored
    # No usage from the model: the tokens were counted here.
    assert totals.counted_calls == 3 and totals.usage_calls == 0 and totals.tokens_sent > 0


def test_routing_to_another_skill_fails_and_a_stage_can_run_alone(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    collection = collect(ws, [tmp_path])
    transport = Scripted(default=Answer("xhs-publish", 9, 1))
    results = Runner(transport, collection, stages=(ROUTING,)).run()
    assert len(transport.calls) == 2
    assert [(r.status, r.stages[ROUTING].picked) for r in results] == [
        (FAIL, "xhs-publish"),
        (PASS, "xhs-publish"),
    ]
    totals = totals_of(results)
    assert (totals.usage_calls, totals.tokens_sent, totals.tokens_received) == (2, 18, 2)


def test_cancel_ends_a_running_command(tmp_path: Path) -> None:
    import threading
    import time

    argv = _script(tmp_path, "import time\ntime.sleep(30)\n")
    command = Command(argv, timeout=30)
    errors: list[CallError] = []

    def call() -> None:
        try:
            command.complete([Message("user", "x")])
        except CallError as exc:
            errors.append(exc)

    worker = threading.Thread(target=call)
    worker.start()
    deadline = time.monotonic() + 10
    while not command._running and time.monotonic() < deadline:
        time.sleep(0.01)
    command.cancel()
    worker.join(10)
    assert not worker.is_alive()
    assert len(errors) == 1 and "was killed by signal 9" in str(errors[0])
