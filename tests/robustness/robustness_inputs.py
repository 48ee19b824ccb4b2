"""Hostile inputs and the invariants every analysis must keep, shared by the bounded tests
(tests/robustness) and the long fuzz runs (tests/fuzz).

Invariants for any input: no exception escapes, no rule fails (EZ003), every range lies inside
its document, the same input gives the same findings, and one document takes bounded time.
"""

from __future__ import annotations

import time
from pathlib import Path

from hypothesis import strategies as st

from easel_ls.config import ConfigError, ConfigResolver, load_config_file
from easel_ls.engine import check_document
from easel_ls.findings import Finding
from easel_ls.model.argparse_model import analyse_script
from easel_ls.model.text import TextDocument
from easel_ls.workspace import Workspace

# Generous: a fuzz example is a few KB; real documents take milliseconds.
SECONDS_PER_DOCUMENT = 5.0

SKILL = "skills/openclaw/x/SKILL.md"
REFERENCE = "skills/openclaw/x/references/r.md"
SCRIPT = "skills/openclaw/x/scripts/fuzzed.py"
SHARED_TOOL = "skills/shared/scripts/tool.py"
MANIFEST = "outputs/topic/.easel.json"

TOOL = """import argparse
p = argparse.ArgumentParser()
s = p.add_subparsers(dest="cmd", required=True)
r = s.add_parser("run")
r.add_argument("--topic", required=True)
r.add_argument("--mode", choices=["fast", "slow"])
p.parse_args()
"""

ALPHABET = st.characters(blacklist_categories=["Cs"])
SHORT_TEXT = st.text(ALPHABET, max_size=20)


def joined(fragments: list[str]) -> st.SearchStrategy[str]:
    """Text built from meaningful fragments mixed with arbitrary short text."""
    return st.lists(st.one_of(st.sampled_from(fragments), SHORT_TEXT), max_size=40).map("".join)


# -- frontmatter YAML --------------------------------------------------------------------------
YAML_FRAGMENTS = [
    "name: x\n",
    "name: [a, b]\n",
    "description: >-\n  中文描述，当用户说“做”时使用；不负责发布。\n",
    "description: |\n  a\n  b\n",
    "layer: plan\n",
    "layer: nonsense\n",
    "metadata:\n",
    "  openclaw:\n",
    "    os: [beos, linux]\n",
    "    requires:\n      bins: [python3]\n",
    "&a [*a, *a]\n",
    "x: &x {a: *x}\n",
    "? complex\n: key\n",
    "key: : bad\n",
    "- list\n",
    "!!python/object:os.system ls\n",
    "!!binary aGk=\n",
    "'unterminated\n",
    '"\\u0000\\uffff"\n',
    "\t",
    "  ",
    "%YAML 1.1\n",
    "...\n",
    "---\n",
    "# easel-ls: ignore[FM001]\n",
    "name: x  # easel-ls: ignore[FM002, XX9]\n",
    "{",
    "}",
    "[",
    "]",
    ": ",
    "\r\n",
]
FRONTMATTER_YAML = joined(YAML_FRAGMENTS)
SKILL_WITH_FRONTMATTER = FRONTMATTER_YAML.map(lambda yaml: f"---\n{yaml}\n---\n# x\n")

# -- Markdown bodies ---------------------------------------------------------------------------
MARKDOWN_FRAGMENTS = [
    "---\n",
    "## 输入\n",
    "## 执行步骤\n",
    "```bash\n",
    "```\n",
    "~~~\n",
    "    indented code\n",
    "> - ```sh\n",
    "[a](references/x.md)",
    "[b](../../../../etc/passwd)",
    "[c](/etc/passwd)",
    "![img](scripts/../../x.png)",
    "<https://example.com>",
    "[ref]: references/r.md\n",
    "`python scripts/a.py --x`",
    "python skills/shared/scripts/tool.py run --topic <主题> \\\n",
    "<!-- ",
    " -->",
    "<!-- easel-ls-disable-next-line CM002 -->\n",
    "| a | b |\n|---|---|\n",
    "* ",
    "1. ",
    "\\",
    "`",
    "[",
    "](",
    "\r",
    "\r\n",
    "\u2028",
    "\ufeff",
    "😀",
]
MARKDOWN = st.one_of(st.text(ALPHABET, max_size=400), joined(MARKDOWN_FRAGMENTS))

# -- command lines -----------------------------------------------------------------------------
COMMAND_WORDS = st.lists(
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
                "$(echo hi)",
                "${VAR:-x}",
                "&&",
                "|",
                ";",
                "2>&1",
                "> out.txt",
                "# easel-ls: ignore[CM002]",
                "cd ..",
            ]
        ),
        st.text(ALPHABET, max_size=8),
    ),
    max_size=12,
)
COMMAND_LINE = COMMAND_WORDS.map(lambda words: f"python {SHARED_TOOL} " + " ".join(words))


def skill_calling(line: str) -> str:
    return f"---\nname: x\n---\n```bash\n{line}\n```\n`{line}`\n"


# -- argparse scripts as generated Python source -----------------------------------------------
_NAMES = st.sampled_from(["parser", "p", "sub", "grp", "args", "x"])
_FLAGS = st.sampled_from(['"--topic"', '"-t"', '"name"', '"--mode"', '"--a-b"', "FLAG", '""'])
_VALUES = st.sampled_from(
    [
        "True",
        "None",
        '"x"',
        "1",
        '["fast", "slow"]',
        "range(3)",
        "int",
        '"store_true"',
        '"append"',
        '"+"',
        "lambda s: s",
        "CHOICES",
        "{**k}",
        "*rest",
        "f'{x}'",
    ]
)
_KEYWORDS = st.sampled_from(
    ["required", "choices", "default", "type", "action", "nargs", "help", "dest", "metavar"]
)
_ARGUMENTS = st.lists(
    st.one_of(_FLAGS, st.tuples(_KEYWORDS, _VALUES).map(lambda kv: f"{kv[0]}={kv[1]}")),
    max_size=4,
).map(", ".join)
_STATEMENTS = st.one_of(
    _NAMES.map(lambda n: f"{n} = argparse.ArgumentParser()"),
    st.tuples(_NAMES, _ARGUMENTS).map(lambda t: f"{t[0]}.add_argument({t[1]})"),
    st.tuples(_NAMES, _NAMES).map(lambda t: f'{t[0]} = {t[1]}.add_subparsers(dest="cmd")'),
    st.tuples(_NAMES, _NAMES, _FLAGS).map(lambda t: f"{t[0]} = {t[1]}.add_parser({t[2]})"),
    st.tuples(_NAMES, _NAMES).map(lambda t: f"{t[0]} = {t[1]}.add_argument_group()"),
    st.tuples(_NAMES, _NAMES).map(
        lambda t: f"{t[0]} = {t[1]}.add_mutually_exclusive_group(required=True)"
    ),
    _NAMES.map(lambda n: f"{n}.parse_args()"),
    _NAMES.map(lambda n: f"def build_{n}(x=None):\n    return {n}"),
    _NAMES.map(lambda n: f"for flag in FLAGS:\n    {n}.add_argument(flag)"),
    _NAMES.map(lambda n: f"if __name__ == '__main__':\n    {n}.parse_args()"),
    _NAMES.map(lambda n: f"{n}.set_defaults(func=main)"),
    st.just('FLAGS = ["--a", "--b"]'),
    st.just('CHOICES = ("x", "y")'),
    st.just("k = {'required': True}"),
    st.just("import argparse as ap"),
    st.just("from argparse import ArgumentParser as AP"),
    st.just("exec('import os')"),
    st.just("def f(:"),
    st.just("x = x"),
    st.just("def rec(n):\n    return rec(n)"),
    SHORT_TEXT,
)
PYTHON_SOURCE = st.lists(_STATEMENTS, max_size=25).map(
    lambda lines: "import argparse\n" + "\n".join(lines) + "\n"
)

# -- .easel.json manifests ---------------------------------------------------------------------
_JSON_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(ALPHABET, max_size=12),
    st.sampled_from(["plan", "produce", "done", "2026-01-01T00:00:00+08:00", "xhs", "图文"]),
)
_JSON_KEYS = st.one_of(
    st.sampled_from(
        [
            "schema",
            "topic",
            "title",
            "status",
            "kind",
            "cover",
            "deliverables",
            "steps",
            "layer",
            "skill",
            "outputs",
            "created",
            "updated",
            "profile",
            "tags",
        ]
    ),
    st.text(ALPHABET, max_size=6),
)
JSON_VALUES = st.recursive(
    _JSON_LEAVES,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(_JSON_KEYS, children, max_size=6)
    ),
    max_leaves=30,
)
JSON_FRAGMENTS = ['{"', '":', ",", "[", "]", "{", "}", "NaN", "Infinity", "\\u", '"', "\n", "//"]


def _dump(value: object) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, indent=2)


MANIFEST_TEXT = st.one_of(
    JSON_VALUES.map(_dump),
    st.tuples(JSON_VALUES.map(_dump), st.integers(0, 400), joined(JSON_FRAGMENTS)).map(
        lambda t: t[0][: t[1]] + t[2] + t[0][t[1] :]
    ),
    st.text(ALPHABET, max_size=200),
)

# -- suppression comments ----------------------------------------------------------------------
_CODES = st.one_of(
    st.sampled_from(["CM002", "RS001", "FM011", "BD002", "EZ001", "XX999", "cm002", "EZ003"]),
    st.text(st.sampled_from("ACEFMRSZ0123456789,[] "), max_size=8),
)
SUPPRESSION = st.one_of(
    st.tuples(
        st.sampled_from(
            [
                "<!-- easel-ls-disable-next-line {} -->\n",
                "<!-- easel-ls-disable {} -->\n",
                "<!-- easel-ls-enable {} -->\n",
                "<!-- easel-ls-disable-file {} -->\n",
                "<!--easel-ls-disable-next-line{}-->",
                "<!-- easel-ls-disable-next-line {}",
                "# easel-ls: ignore[{}]\n",
                "`python scripts/a.py --x  # easel-ls: ignore[{}]`\n",
            ]
        ),
        st.lists(_CODES, max_size=4).map(", ".join),
    ).map(lambda t: t[0].format(t[1])),
    st.sampled_from(["[a](references/missing.md)\n", "## 输入\n", "```bash\n", "```\n", "\n"]),
)
SUPPRESSED_SKILL = st.lists(SUPPRESSION, max_size=15).map(
    lambda parts: "---\nname: x  # easel-ls: ignore[FM011]\n---\n" + "".join(parts)
)

# -- config files ------------------------------------------------------------------------------
_TOML_VALUES = st.sampled_from(
    [
        '["CM"]',
        '["XX9"]',
        '"CM002"',
        "1",
        "-1",
        "1e400",
        "true",
        '{ "CM002" = "error" }',
        '{ "CM002" = "loud" }',
        '{ "skills/**" = ["CM002"] }',
        "[1, 2]",
        '["skills"]',
        '"../../.."',
        '"/etc"',
        "[[]]",
        "{",
    ]
)
_TOML_KEYS = st.sampled_from(
    [
        "select",
        "ignore",
        "extend-select",
        "per-file-ignores",
        "severity",
        "max-file-size",
        "skill-roots",
        "shared-scripts",
        "outputs-dir",
        "description-length",
        "trusted-workspace",
        "unknown-key",
    ]
)
CONFIG_TEXT = st.one_of(
    st.lists(st.tuples(_TOML_KEYS, _TOML_VALUES), max_size=8).map(
        lambda pairs: "".join(f"{k} = {v}\n" for k, v in pairs)
    ),
    st.text(ALPHABET, max_size=200),
)

# -- adversarial strings for regex backtracking ------------------------------------------------
ADVERSARIAL_UNITS = [
    "`",
    "``",
    "[",
    "](",
    "<",
    "<!--",
    "\\",
    "-",
    " ",
    "\t",
    "a",
    "a ",
    "--",
    "--x=",
    "$(",
    "${",
    "'",
    '"',
    "# easel-ls: ignore[",
    "easel-ls-disable ",
    "*",
    "_",
    "|",
    "#",
    ":",
    "- ",
    "> ",
    "&a ",
    "*a ",
]


def adversarial_documents(repeat: int) -> list[tuple[str, str]]:
    """(label, text) pairs: each unit repeated ``repeat`` times, alone and without its close."""
    docs = []
    for unit in ADVERSARIAL_UNITS:
        run = unit * repeat
        docs.append((f"{unit!r} x{repeat} in body", f"---\nname: x\n---\n{run}!\n"))
        docs.append((f"{unit!r} x{repeat} in a fence", f"```bash\npython {SHARED_TOOL} {run}\n"))
        docs.append((f"{unit!r} x{repeat} in frontmatter", f"---\ndescription: {run}\n---\n"))
    return docs


# -- the harness -------------------------------------------------------------------------------
def make_workspace(root: Path) -> Workspace:
    (root / "skills/openclaw/x/references").mkdir(parents=True, exist_ok=True)
    (root / "skills/openclaw/x/scripts").mkdir(parents=True, exist_ok=True)
    (root / "skills/shared/scripts").mkdir(parents=True, exist_ok=True)
    (root / "outputs/topic").mkdir(parents=True, exist_ok=True)
    (root / SHARED_TOOL).write_text(TOOL, encoding="utf-8")
    (root / SKILL).write_text("---\nname: x\n---\n", encoding="utf-8")
    resolved = root.resolve()
    return Workspace(root=resolved, config=ConfigResolver(stop_at=resolved))


def _signature(findings: list[Finding]) -> list[tuple[object, ...]]:
    return [(f.code, str(f.path), f.range, f.message, f.severity) for f in findings]


def assert_sound(ws: Workspace, relpath: str, text: str) -> list[Finding]:
    """Check ``text`` as the document at ``relpath`` twice and assert every invariant."""
    doc = TextDocument(ws.root / relpath, text)
    started = time.perf_counter()
    first = check_document(ws, doc)
    elapsed = time.perf_counter() - started
    assert elapsed < SECONDS_PER_DOCUMENT, f"{relpath} took {elapsed:.2f}s"
    # A fresh workspace view: nothing cached may change the answer.
    second = check_document(ws, TextDocument(doc.path, text))
    assert _signature(first) == _signature(second), "findings differ between two runs"
    for finding in first:
        assert finding.code != "EZ003", finding.message
        if finding.path == doc.path:
            assert doc.contains(finding.range), (finding.code, finding.range, finding.message)
        for fix in finding.fixes:
            for edit in fix.edits:
                if edit.path == doc.path:
                    assert doc.contains(edit.range), (finding.code, edit.range)
    return first


def assert_script_sound(ws: Workspace, source: str) -> None:
    """A generated script: its model builds without raising, and both the script and a
    SKILL.md calling it with assorted arguments are analysed soundly."""
    analyse_script(source, SCRIPT)
    (ws.root / SCRIPT).write_text(source, encoding="utf-8")
    ws.forget(ws.root / SCRIPT)
    assert_sound(ws, SCRIPT, source)
    line = f"python {SCRIPT} --topic t --mode fast name -t x --a-b 1 -- y"
    assert_sound(ws, SKILL, skill_calling(line))


def assert_config_sound(folder: Path, text: str) -> None:
    """A config file either loads or fails with a ConfigError naming the file."""
    path = folder / "easel-ls.toml"
    path.write_text(text, encoding="utf-8")
    try:
        settings = load_config_file(path)
    except ConfigError as error:
        assert str(path) in str(error)
        return
    assert settings is not None
    for key in ("max-file-size", "skill-roots", "outputs-dir", "description-length"):
        settings.option(key)
    settings.is_enabled("CM002", "skills/x/SKILL.md")
