"""Analysis is static: neither `easel-ls --check` (every format, every fix) nor a full LSP session
with every request type the server advertises ever imports or runs workspace code."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from lsp_wire import RawServer
from lsprotocol import converters
from pytest_lsp import client_capabilities

SENTINEL_CODE = """\
import pathlib
pathlib.Path({sentinel!r}).write_text("executed")
import argparse
parser = argparse.ArgumentParser()
sub = parser.add_subparsers(dest="cmd", required=True)
run = sub.add_parser("run")
run.add_argument("--topic", required=True)
if __name__ == "__main__":
    parser.parse_args()
"""

SKILL = """---
name: trap
description: >-
  用于验证静态分析。当用户说"检查"时使用；不负责发布，发布交给别的 SKILL。适用场景：测试语言服务器不会执行任何脚本，
  也不会导入任何模块，保证编辑器里打开仓库是安全的。
layer: general
---
# 陷阱

## 输入
见 [说明](references/notes.md) 与 [缺失](references/missing.md)。

## 输出
无。

## 执行步骤
```bash
python skills/openclaw/trap/scripts/tool.py run --topic <主题>
python skills/openclaw/trap/scripts/tool.py run --tpoic x
python skills/openclaw/trap/scripts/missing_tool.py run
python skills/shared/scripts/manifest.py meta --topic t --deliverables a.png
bash skills/openclaw/trap/scripts/run.sh
```

## Profile 感知
无。
"""

MANIFEST = {"schema": "easel/1", "topic": "t", "title": "t", "steps": [], "deliverables": ["x"]}


def build_trap(root: Path, sentinels: Path) -> list[Path]:
    """The workspace; returns the files to open in the editor."""
    skill = root / "skills/openclaw/trap"
    scripts = skill / "scripts"
    shared = root / "skills/shared/scripts"
    for folder in (scripts, shared, skill / "references", skill / "tests", root / "outputs/t"):
        folder.mkdir(parents=True, exist_ok=True)
    (skill / "SKILL.md").write_text(SKILL, encoding="utf-8")
    (skill / "references/notes.md").write_text("# 说明\n\n[回到](../SKILL.md)\n", encoding="utf-8")
    (skill / "tests/basic.prompt").write_text("做卡片\n", encoding="utf-8")
    for folder, name in [
        (scripts, "tool.py"),
        (scripts, "conftest.py"),
        (scripts, "setup.py"),
        (scripts, "sitecustomize.py"),
        (scripts, "__init__.py"),
        (shared, "manifest.py"),  # the workspace copies differ from the packaged ones:
        (shared, "content_guard.py"),  # untrusted, so they must never be imported
        (shared, "output_paths.py"),
        (root, "conftest.py"),
        (root, "setup.py"),
    ]:
        code = SENTINEL_CODE.format(sentinel=str(sentinels / f"{folder.name}-{name}"))
        (folder / name).write_text(code, encoding="utf-8")
    (scripts / "run.sh").write_text(f"#!/bin/sh\ntouch {sentinels / 'run.sh'}\n", encoding="utf-8")
    (scripts / "run.sh").chmod(0o755)
    (scripts / "evil.pth").write_text(
        f"import pathlib; pathlib.Path({str(sentinels / 'pth')!r}).touch()\n", encoding="utf-8"
    )
    (root / "pyproject.toml").write_text(
        "[build-system]\nrequires=[]\nbuild-backend='backend'\nbackend-path=['skills']\n"
        "[tool.easel-ls]\n",
        encoding="utf-8",
    )
    (root / "outputs/t/.easel.json").write_text(json.dumps(MANIFEST), encoding="utf-8")
    return [
        skill / "SKILL.md",
        skill / "references/notes.md",
        scripts / "tool.py",
        shared / "manifest.py",
        skill / "tests/basic.prompt",
        root / "outputs/t/.easel.json",
    ]


LANGUAGE = {".md": "markdown", ".py": "python", ".json": "json", ".prompt": "plaintext"}


def positions(text: str) -> list[dict[str, int]]:
    """Every line start, plus a few points inside each non-empty line."""
    found = []
    for line, content in enumerate(text.splitlines()):
        for character in sorted({0, len(content) // 3, len(content) // 2, len(content)}):
            found.append({"line": line, "character": character})
    return found


def document_requests(capabilities: dict[str, Any]) -> list[str]:
    """Position or document requests the server advertises (from its capabilities)."""
    positional = {
        "hoverProvider": "textDocument/hover",
        "completionProvider": "textDocument/completion",
        "definitionProvider": "textDocument/definition",
        "referencesProvider": "textDocument/references",
        "declarationProvider": "textDocument/declaration",
        "typeDefinitionProvider": "textDocument/typeDefinition",
        "implementationProvider": "textDocument/implementation",
        "signatureHelpProvider": "textDocument/signatureHelp",
        "documentHighlightProvider": "textDocument/documentHighlight",
        "renameProvider": "textDocument/prepareRename",
    }
    return [method for key, method in positional.items() if capabilities.get(key)]


def whole_document_requests(capabilities: dict[str, Any]) -> list[str]:
    whole = {
        "documentSymbolProvider": "textDocument/documentSymbol",
        "documentLinkProvider": "textDocument/documentLink",
        "foldingRangeProvider": "textDocument/foldingRange",
        "codeLensProvider": "textDocument/codeLens",
        "diagnosticProvider": "textDocument/diagnostic",
        "documentFormattingProvider": "textDocument/formatting",
        "semanticTokensProvider": "textDocument/semanticTokens/full",
        "inlayHintProvider": "textDocument/inlayHint",
    }
    return [method for key, method in whole.items() if capabilities.get(key)]


def params_for(method: str, uri: str, position: dict[str, int]) -> dict[str, Any]:
    params: dict[str, Any] = {"textDocument": {"uri": uri}, "position": position}
    if method == "textDocument/references":
        params["context"] = {"includeDeclaration": True}
    return params


def whole_params(method: str, uri: str, line_count: int) -> dict[str, Any]:
    params: dict[str, Any] = {"textDocument": {"uri": uri}}
    if method == "textDocument/formatting":
        params["options"] = {"tabSize": 2, "insertSpaces": True}
    if method == "textDocument/inlayHint":
        params["range"] = {
            "start": {"line": 0, "character": 0},
            "end": {"line": line_count, "character": 0},
        }
    return params


def test_a_full_lsp_session_never_runs_workspace_code(tmp_path: Path) -> None:
    sentinels = tmp_path / "sentinels"
    sentinels.mkdir()
    root = tmp_path / "ws"
    opened = build_trap(root, sentinels)
    editor = converters.get_converter().unstructure(client_capabilities("visual-studio-code"))
    server = RawServer(root)
    try:
        capabilities = server.initialize(root, editor)["capabilities"]
        asked: dict[str, int] = {}

        def ask(method: str, params: Any) -> dict[str, Any]:
            asked[method] = asked.get(method, 0) + 1
            response = server.call(method, params, timeout=60)
            assert "error" not in response or response["error"]["code"] != -32603, response
            return response

        for path in opened:
            text = path.read_text(encoding="utf-8")
            uri = path.as_uri()
            server.notify(
                "textDocument/didOpen",
                {
                    "textDocument": {
                        "uri": uri,
                        "languageId": LANGUAGE[path.suffix],
                        "version": 1,
                        "text": text,
                    }
                },
            )
            for method in document_requests(capabilities):
                for position in positions(text):
                    ask(method, params_for(method, uri, position))
            for method in whole_document_requests(capabilities):
                ask(method, whole_params(method, uri, len(text.splitlines()) + 1))
            server.wait_for(
                lambda uri=uri: server.published(uri), what=f"diagnostics for {path.name}"
            )
            if capabilities.get("codeActionProvider"):
                diagnostics = server.published(uri)[-1]["diagnostics"]
                whole = {
                    "start": {"line": 0, "character": 0},
                    "end": {"line": len(text.splitlines()) + 1, "character": 0},
                }
                actions = (
                    ask(
                        "textDocument/codeAction",
                        {
                            "textDocument": {"uri": uri},
                            "range": whole,
                            "context": {"diagnostics": diagnostics},
                        },
                    ).get("result")
                    or []
                )
                for action in actions:
                    provider = capabilities["codeActionProvider"]
                    if (
                        isinstance(provider, dict)
                        and provider.get("resolveProvider")
                        and "edit" not in action
                    ):
                        action = ask("codeAction/resolve", action).get("result") or action
                    command = action.get("command")
                    if isinstance(command, dict):
                        ask(
                            "workspace/executeCommand",
                            {
                                "command": command["command"],
                                "arguments": command.get("arguments", []),
                            },
                        )
        if capabilities.get("workspaceSymbolProvider"):
            for query in ("", "trap", "tool", "说明"):
                ask("workspace/symbol", {"query": query})
        for command in (capabilities.get("executeCommandProvider") or {}).get("commands", []):
            for arguments in ([], [(root / "outputs/t").as_uri()], [opened[0].as_uri()]):
                ask("workspace/executeCommand", {"command": command, "arguments": arguments})
        assert server.shutdown() == 0
    finally:
        server.close()
    assert "textDocument/hover" in asked and "workspace/executeCommand" in asked, asked
    assert "textDocument/codeAction" in asked, asked
    assert sorted(p.name for p in sentinels.iterdir()) == [], server.stderr()


PACKAGE = Path(__file__).resolve().parents[2] / "easel_ls"


def process_calls() -> list[tuple[str, int, str, ast.Call]]:
    """Every call in easel_ls that starts a process: (file, line, name, call)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name = ast.unparse(node.func)
                if name.startswith(
                    ("subprocess.", "os.system", "os.popen", "os.exec", "os.spawn")
                ) or (
                    name in {"Popen", "run", "check_output", "call"} and _imports_subprocess(tree)
                ):
                    found.append((path.name, node.lineno, name, node))
    return found


def _imports_subprocess(tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.ImportFrom) and node.module == "subprocess" for node in ast.walk(tree)
    )


def test_any_process_easel_ls_starts_has_no_shell_a_timeout_and_an_argument_list() -> None:
    for where, line, name, call in process_calls():
        label = f"{where}:{line} {name}"
        assert not name.startswith(("os.system", "os.popen", "os.exec", "os.spawn")), label
        keywords = {k.arg: k.value for k in call.keywords}
        shell = keywords.get("shell")
        assert shell is None or (isinstance(shell, ast.Constant) and shell.value is False), label
        assert "timeout" in keywords or name.endswith("Popen"), label
        assert call.args and isinstance(call.args[0], (ast.List, ast.Tuple, ast.Name)), label


def test_check_and_fix_never_run_workspace_code(tmp_path: Path) -> None:
    sentinels = tmp_path / "sentinels"
    sentinels.mkdir()
    root = tmp_path / "ws"
    build_trap(root, sentinels)
    for args in (
        ["--output-format", "full"],
        ["--output-format", "json"],
        ["--output-format", "sarif"],
        ["--fix", "--unsafe-fixes"],
    ):
        result = subprocess.run(
            [sys.executable, "-m", "easel_ls", "--check", "--no-cache", *args],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert "Traceback" not in result.stderr, result.stderr
        if "--fix" not in args:
            assert result.returncode == 1
            assert "CM002" in result.stdout  # the scripts were analysed, statically
    assert sorted(p.name for p in sentinels.iterdir()) == []
