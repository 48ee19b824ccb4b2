"""Configuration: discovery (closest config wins), selection, per-file ignores, severity
overrides, rule options, EZ002 for unknown codes, and ConfigError for unusable files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from easel_ls import cli
from easel_ls.config import ConfigError, ConfigResolver, Settings, load_config_file
from easel_ls.engine import check_path
from easel_ls.findings import Finding, Severity
from easel_ls.workspace import Workspace


def skill_md(name: str, body_lines: int = 0, description: str | None = None) -> str:
    description = description or (
        "把小红书笔记文案做成一组图文卡片 🎨：按画像配色排版封面和内页，导出 PNG 到项目根目录。"
        "适用场景：用户说“做卡片”“出图”。导出前先预览排版效果并请用户确认。不负责写文案，也不处理发布。"
    )
    sections = [
        "# 技能",
        "## 输入",
        "- 主题",
        "## 输出（写入 outputs/<主题>/）",
        "- 卡片",
        "## 执行步骤",
        "1. 排版",
        "## Profile 感知",
        "- 按画像配色。",
    ]
    filler = [f"- 说明 {i}" for i in range(max(0, body_lines - len(sections)))]
    body = "\n".join(sections + filler)
    return f"---\nname: {name}\ndescription: >-\n  {description}\nlayer: produce\n---\n{body}\n"


def build(tmp_path: Path, files: dict[str, str]) -> Workspace:
    for rel, content in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(content, encoding="utf-8")
    root = tmp_path.resolve()
    return Workspace(root=root, config=ConfigResolver(stop_at=root))


def lint(ws: Workspace, rel: str) -> list[Finding]:
    return check_path(ws, ws.root / rel)


def codes(findings: list[Finding]) -> list[str]:
    return [f.code for f in findings if not f.code.startswith(("CM", "RS"))]


A = "skills/openclaw/card-a/SKILL.md"
B = "skills/openclaw/card-b/SKILL.md"


# -- discovery -------------------------------------------------------------------------------


def test_no_config_uses_the_defaults(tmp_path: Path) -> None:
    ws = build(tmp_path, {A: skill_md("card-a", body_lines=201)})
    assert codes(lint(ws, A)) == ["BD001"]
    assert ws.settings_for(ws.root / A).config_path is None


def test_closest_config_wins_nested_toml_over_root_pyproject(tmp_path: Path) -> None:
    ws = build(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "x"\n\n[tool.easel-ls]\nmax-body-lines = 20\n',
            "skills/openclaw/card-b/easel-ls.toml": "max-body-lines = 300\n",
            A: skill_md("card-a", body_lines=50),
            B: skill_md("card-b", body_lines=250),
        },
    )
    assert codes(lint(ws, A)) == ["BD001"]
    assert lint(ws, A)[0].range.start.line == 6 + 20  # body starts on line 6
    assert codes(lint(ws, B)) == []
    assert (
        ws.settings_for(ws.root / B).config_path == ws.root / "skills/openclaw/card-b/easel-ls.toml"
    )


def test_a_pyproject_without_the_tool_section_is_passed_over(tmp_path: Path) -> None:
    ws = build(
        tmp_path,
        {
            "easel-ls.toml": "max-body-lines = 20\n",
            "skills/pyproject.toml": "[tool.ruff]\nline-length = 100\n",
            A: skill_md("card-a", body_lines=50),
        },
    )
    assert codes(lint(ws, A)) == ["BD001"]


def test_dot_easel_ls_toml_is_a_config_file(tmp_path: Path) -> None:
    ws = build(tmp_path, {".easel-ls.toml": 'ignore = ["BD"]\n', A: skill_md("card-a", 201)})
    assert codes(lint(ws, A)) == []


# -- selection -------------------------------------------------------------------------------


def test_select_replaces_the_default_selection(tmp_path: Path) -> None:
    text = skill_md("card-a", body_lines=201).replace("name: card-a", "name: card-x")
    ws = build(tmp_path, {"easel-ls.toml": 'select = ["BD"]\n', A: text})
    assert codes(lint(ws, A)) == ["BD001"]


def test_ignore_by_prefix_and_extend_select(tmp_path: Path) -> None:
    text = skill_md("card-a", body_lines=201).replace("name: card-a", "name: card-x")
    config = 'select = ["BD"]\nextend-select = ["FM009"]\nignore = ["BD0"]\n'
    ws = build(tmp_path, {"easel-ls.toml": config, A: text})
    assert codes(lint(ws, A)) == ["FM009"]


@pytest.mark.parametrize(
    ("settings", "code", "enabled"),
    [
        (Settings(ignore=("FM",)), "FM013", False),
        (Settings(ignore=("FM",), extend_select=("FM013",)), "FM013", True),  # more specific
        (Settings(select=("FM013",), ignore=("FM013",)), "FM013", False),  # a tie: ignore wins
        (Settings(select=("BD",)), "FM001", False),
        (Settings(), "EZ001", True),
    ],
)
def test_the_more_specific_prefix_wins(settings: Settings, code: str, enabled: bool) -> None:
    assert settings.is_enabled(code) is enabled


def test_per_file_ignores_by_glob(tmp_path: Path) -> None:
    config = '[per-file-ignores]\n"skills/openclaw/card-b/**" = ["BD001"]\n'
    ws = build(
        tmp_path,
        {"easel-ls.toml": config, A: skill_md("card-a", 201), B: skill_md("card-b", 201)},
    )
    assert codes(lint(ws, A)) == ["BD001"]
    assert codes(lint(ws, B)) == []


def test_severity_override(tmp_path: Path) -> None:
    text = skill_md("card-a", body_lines=201)
    ws = build(tmp_path, {"easel-ls.toml": '[severity]\nBD001 = "info"\n', A: text})
    [finding] = [f for f in lint(ws, A) if f.code == "BD001"]
    assert finding.severity is Severity.INFO


def test_a_suppression_of_a_disabled_code_is_not_unused(tmp_path: Path) -> None:
    text = skill_md("card-a") + "<!-- easel-ls-disable-next-line BD003 -->\n正文。\n"
    ws = build(tmp_path, {"easel-ls.toml": 'ignore = ["BD003"]\n', A: text})
    assert codes(lint(ws, A)) == []
    ws = build(tmp_path, {"easel-ls.toml": "", A: text})
    assert codes(lint(ws, A)) == ["EZ001"]


# -- rule options ----------------------------------------------------------------------------


def test_max_body_lines_option(tmp_path: Path) -> None:
    ws = build(tmp_path, {"easel-ls.toml": "max-body-lines = 30\n", A: skill_md("card-a", 31)})
    [finding] = [f for f in lint(ws, A) if f.code == "BD001"]
    assert finding.range.start.line == 6 + 30
    assert "31 lines" in finding.message


def test_description_length_option(tmp_path: Path) -> None:
    text = skill_md("card-a")
    ws = build(tmp_path, {"easel-ls.toml": "description-length = [10, 40]\n", A: text})
    [finding] = [f for f in lint(ws, A) if f.code == "FM014"]
    assert "10..40" in finding.message


def test_trigger_words_option(tmp_path: Path) -> None:
    text = skill_md(
        "card-a", description="灵感来了就做卡片，" + "配色排版导出。" * 12 + "不负责写文案。"
    )
    ws = build(tmp_path, {A: text})
    assert codes(lint(ws, A)) == ["FM012"]
    ws = build(tmp_path, {"easel-ls.toml": 'trigger-words = ["灵感来了"]\n', A: text})
    assert codes(lint(ws, A)) == []


# -- EZ002 and invalid config ----------------------------------------------------------------


def test_unknown_codes_in_config_are_recorded(tmp_path: Path) -> None:
    config = tmp_path / "easel-ls.toml"
    config.write_text('ignore = ["FM999", "BD"]\n[severity]\nXX001 = "info"\n', "utf-8")
    settings = load_config_file(config)
    assert settings is not None
    assert {(u.key, u.code) for u in settings.unknown_codes} == {
        ("ignore", "FM999"),
        ("severity", "XX001"),
    }


def test_ez002_for_a_config_code_in_the_check_report(tmp_path: Path) -> None:
    build(
        tmp_path, {"easel-ls.toml": 'ignore = [\n  "BD",\n  "FM999",\n]\n', A: skill_md("card-a")}
    )
    report = tmp_path / "report.json"
    cli.main(
        ["--check", str(tmp_path), "--output-format", "json", "--output-file", str(report),
         "--exit-zero", "--no-progress"]
    )  # fmt: skip
    entries = json.loads(report.read_text("utf-8"))
    [ez002] = [e for e in entries if e["code"] == "EZ002"]
    assert ez002["filename"].endswith("easel-ls.toml")
    assert ez002["location"]["row"] == 3  # 1-based in reports
    assert "FM999" in ez002["message"]


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("max-body-lines = \n", "invalid TOML"),
        ('max-body-lines = "many"\n', "`max-body-lines` must be a number"),
        ("description-length = [80]\n", "`description-length` must be a list of two integers"),
        ('trigger-words = "触发"\nselect = 3\n', "`select` must be a list of rule codes"),
        ('[severity]\nBD001 = "fatal"\n', "severity for BD001 must be error, warning or info"),
        ("max-body-line = 10\n", "unknown option `max-body-line`"),
        ('per-file-ignores = ["x"]\n', "`per-file-ignores` must be a table"),
    ],
)
def test_invalid_config_raises_a_clear_config_error(
    tmp_path: Path, toml: str, message: str
) -> None:
    ws = build(tmp_path, {"easel-ls.toml": toml, A: skill_md("card-a")})
    with pytest.raises(ConfigError) as caught:
        ws.settings_for(ws.root / A)
    assert message in str(caught.value)
    assert str(ws.root / "easel-ls.toml") in str(caught.value)


def test_invalid_config_makes_the_check_exit_2(tmp_path: Path, capsys) -> None:
    build(tmp_path, {"easel-ls.toml": "max-body-lines = \n", A: skill_md("card-a")})
    assert cli.main(["--check", str(tmp_path), "--no-progress"]) == 2
    assert "invalid TOML" in capsys.readouterr().err


def test_command_line_overrides_give_one_settings_object_per_config_file(tmp_path: Path) -> None:
    # Memos keyed on a Settings (cache key, rule selection) must be shared by its files.
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "easel-ls.toml").write_text('ignore = ["BD"]\n', encoding="utf-8")
    resolver = ConfigResolver(overrides={"ignore": ["CM002"]})
    one, two = (
        resolver.for_path(tmp_path / "a" / "1.md"),
        resolver.for_path(tmp_path / "a" / "2.md"),
    )
    own = resolver.for_path(tmp_path / "b" / "3.md")
    assert one is two
    assert own is not one
    assert not one.is_enabled("CM002") and one.is_enabled("BD001")
    assert not own.is_enabled("CM002") and not own.is_enabled("BD001")


# --- opt-in rules ----------------------------------------------------------------------------


def test_an_opt_in_rule_runs_only_when_its_exact_code_is_selected(monkeypatch) -> None:
    import easel_ls.config as config

    monkeypatch.setattr(config, "OPT_IN_CODES", frozenset({"FM013"}))
    default = config.Settings()
    assert not default.is_enabled("FM013")
    assert default.is_enabled("FM012")
    assert not config.Settings(select=("FM",)).is_enabled("FM013")
    assert config.Settings(extend_select=("FM013",)).is_enabled("FM013")
    assert config.Settings(select=("FM013",)).is_enabled("FM013")
    assert not config.Settings(extend_select=("FM013",), ignore=("FM013",)).is_enabled("FM013")


def test_section_synonyms_must_be_a_table_of_lists(tmp_path) -> None:
    import pytest

    from easel_ls.config import ConfigError, settings_from_table

    with pytest.raises(ConfigError, match="section-synonyms"):
        settings_from_table({"section-synonyms": ["输出"]}, tmp_path / "easel-ls.toml")
    ok = settings_from_table({"section-synonyms": {"输出": ["产物"]}}, tmp_path / "easel-ls.toml")
    assert ok.option("section-synonyms") == {"输出": ["产物"]}
