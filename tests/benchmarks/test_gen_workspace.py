"""The benchmark workspace generator: a small workspace looks like the real thing, its commands
are right (or wrong) exactly as planted, and `easel-ls --check` runs on it.

Generated scripts are executed here on purpose: real argparse is the referee of the generator's
ground truth. The checker itself never runs workspace code.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

import gen_workspace  # noqa: E402

SAMPLE_VALUES = {"<主题>": "周末露营", "<画像>": "默认画像", "$EASEL_OUTPUTS": "outputs"}


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> gen_workspace.GeneratedWorkspace:
    return gen_workspace.generate(3, tmp_path_factory.mktemp("bench") / "ws-3")


@pytest.fixture(scope="module")
def drifted(tmp_path_factory: pytest.TempPathFactory) -> gen_workspace.GeneratedWorkspace:
    # 60 skills = 240 tool commands: enough for every drift kind to be planted at least once.
    return gen_workspace.generate(60, tmp_path_factory.mktemp("bench") / "ws-60")


def _frontmatter(skill_md: Path) -> dict[str, object]:
    text = skill_md.read_text("utf-8")
    assert text.startswith("---\n")
    block = text.split("\n---\n", 1)[0][4:]
    data = yaml.safe_load(block)
    assert isinstance(data, dict)
    return data


def _load_script(path: Path) -> ModuleType:
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)  # the scripts import their sibling output_paths
    spec = importlib.util.spec_from_file_location(f"bench_{path.stem}_{id(path)}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _argparse_accepts(module: ModuleType, argv: list[str]) -> bool:
    words = [SAMPLE_VALUES.get(word, word) for word in argv]
    words = [re.sub(r"<[^>]+>", "样例", word) for word in words]
    parser = module.build_parser()
    with contextlib.redirect_stderr(io.StringIO()):
        try:
            parser.parse_args(words)
        except SystemExit:
            return False
    return True


def test_small_workspace_has_the_easel_layout(small: gen_workspace.GeneratedWorkspace) -> None:
    root = small.root
    skills = sorted((root / "skills" / "openclaw").iterdir())
    assert [s.name for s in skills] == sorted(
        gen_workspace.skill_identity(i).name for i in range(3)
    )
    for skill in skills:
        meta = _frontmatter(skill / "SKILL.md")
        assert set(meta) == {"name", "description", "layer"}
        assert meta["name"] == skill.name
        assert meta["layer"] in {"discover", "plan", "produce", "publish", "attribute", "general"}
        description = str(meta["description"])
        assert 80 <= len(description) <= 300
        assert "适用场景" in description and "交给" in description
        body = (skill / "SKILL.md").read_text("utf-8")
        for heading in ("## 输入", "## 输出", "## 执行步骤", "## Profile 感知"):
            assert f"\n{heading}" in body
        assert 130 <= body.count("\n") <= 200
        assert body.count("```bash") == 5
        for link in re.findall(r"\]\((references/[^)]+)\)", body):
            assert (skill / link).is_file()
        for prompt in (skill / "tests").glob("*.prompt"):
            assert prompt.with_suffix(".expected").is_file()
    scripts = sorted((root / "skills" / "shared" / "scripts").glob("gen_tool_*.py"))
    assert len(scripts) == gen_workspace.SHARED_SCRIPT_COUNT
    projects = [p for p in (root / "outputs").iterdir() if p.is_dir()]
    assert projects
    for project in projects:
        manifest = json.loads((project / ".easel.json").read_text("utf-8"))
        assert manifest["topic"] == project.name
        assert all((project / d).is_file() for d in manifest["deliverables"])


def test_shared_scripts_are_argparse_clis_of_the_asked_size(
    small: gen_workspace.GeneratedWorkspace,
) -> None:
    for index in (1, 2, 3, 17, 40):  # one of each option style and the extremes
        path = small.root / "skills" / "shared" / "scripts" / f"gen_tool_{index:02d}.py"
        lines = path.read_text("utf-8").count("\n")
        assert 500 <= lines <= 1500, (path.name, lines)
        module = _load_script(path)
        commands = module.build_parser()._subparsers._group_actions[0].choices
        names = {name for name, parser in commands.items() if parser.prog.endswith(name)}
        assert 10 <= len(names) <= 20


def test_generation_is_deterministic_and_prefix_stable(
    small: gen_workspace.GeneratedWorkspace, tmp_path: Path
) -> None:
    again = gen_workspace.generate(4, tmp_path / "ws-4")
    for skill_md in (small.root / "skills" / "openclaw").glob("*/SKILL.md"):
        twin = again.root / skill_md.relative_to(small.root)
        assert twin.read_text("utf-8") == skill_md.read_text("utf-8")


def test_valid_commands_parse_and_planted_drift_does_not(
    drifted: gen_workspace.GeneratedWorkspace,
) -> None:
    assert {d.code for d in drifted.drift} == {"CM002", "CM003", "CM006"}
    assert 0 < len(drifted.drift) < len(drifted.commands) * 0.1
    modules: dict[str, ModuleType] = {}
    for command in drifted.commands:
        if command.script.endswith("manifest.py"):
            continue
        if command.script not in modules:
            modules[command.script] = _load_script(drifted.root / command.script)
        argv = command.argv[2:]  # drop `python <script>`
        accepted = _argparse_accepts(modules[command.script], argv)
        assert accepted == (command.drift is None), (command.path, command.line, argv)


def test_planted_drift_sits_on_the_line_of_its_broken_part(
    drifted: gen_workspace.GeneratedWorkspace,
) -> None:
    for drift in drifted.drift:
        line = (drifted.root / drift.path).read_text("utf-8").splitlines()[drift.line]
        assert drift.token in drift.part
        assert gen_workspace._has_part(line, drift.part), (drift.path, drift.line, drift.part)


def _check(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "easel_ls", "--check", str(root), "--output-format", "json"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )


def _findings(completed: subprocess.CompletedProcess[str]) -> list[dict[str, object]]:
    assert completed.returncode in (0, 1), completed.stderr
    assert "Traceback" not in completed.stderr
    payload = json.loads(completed.stdout)
    assert isinstance(payload, list)
    return payload


def _row(finding: dict[str, object]) -> int:
    location = finding["location"]
    assert isinstance(location, dict)
    return int(location["row"])


def test_check_runs_on_a_small_workspace(small: gen_workspace.GeneratedWorkspace) -> None:
    findings = _findings(_check(small.root))
    crashes = [f for f in findings if f.get("code") == "EZ003"]
    assert crashes == []


def test_check_reports_the_planted_drift(drifted: gen_workspace.GeneratedWorkspace) -> None:
    findings = _findings(_check(drifted.root))
    found = {
        ((drifted.root / str(f["filename"])).resolve(), _row(f) - 1, f["code"])
        for f in findings
        if str(f["code"]) in {"CM002", "CM003", "CM006"}
    }
    planted = {((drifted.root / d.path).resolve(), d.line, d.code) for d in drifted.drift}
    assert planted - found == set(), "planted drift the checker missed"
    assert found - planted == set(), "argparse drift reported on commands argparse accepts"


def test_fewer_and_shorter_shared_scripts_on_request(tmp_path: Path) -> None:
    # bench_peers.py's tree shaped like a real repository: 8 scripts of 200-800 lines.
    ws = gen_workspace.generate(6, tmp_path / "ws-6", shared_scripts=8, script_lines=(200, 800))
    scripts = sorted((ws.root / "skills" / "shared" / "scripts").glob("gen_tool_*.py"))
    assert len(scripts) == ws.scripts == 8
    for path in scripts:
        lines = path.read_text("utf-8").count("\n")
        assert 180 <= lines <= 850, (path.name, lines)
        commands = _load_script(path).build_parser()._subparsers._group_actions[0].choices
        assert 1 <= len(commands) <= 20
    for skill_md in (ws.root / "skills" / "openclaw").glob("*/SKILL.md"):
        named = set(re.findall(r"gen_tool_(\d+)\.py", skill_md.read_text("utf-8")))
        assert named and all(1 <= int(n) <= 8 for n in named)


def test_the_default_scripts_do_not_change_with_the_options() -> None:
    assert gen_workspace.script_spec(7) == gen_workspace.script_spec(
        7, gen_workspace.DEFAULT_SCRIPT_LINES
    )
    assert (
        gen_workspace.script_spec(7).target_lines
        != gen_workspace.script_spec(7, (200, 800)).target_lines
    )
