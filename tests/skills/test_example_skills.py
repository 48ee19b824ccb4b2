"""The example skills in skills/openclaw/: written to the spec, and their script CLIs really work.

The script tests run each CLI as a subprocess inside a temporary folder with `--root` pointing at
a temporary `outputs/`, so nothing is written into the repository.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
SKILLS = REPO / "skills" / "openclaw"
SKILL_DIRS = sorted(path.parent for path in SKILLS.glob("*/SKILL.md"))
SKILL_NAMES = {path.name for path in SKILL_DIRS}
RENDER_CARDS = SKILLS / "card-maker" / "scripts" / "render_cards.py"
PUBLISH = SKILLS / "xhs-publish" / "scripts" / "publish.py"
REVIEW = SKILLS / "publish-review" / "scripts" / "review.py"
MANIFEST = REPO / "skills" / "shared" / "scripts" / "manifest.py"
SCRIPTS = (RENDER_CARDS, PUBLISH, REVIEW)
MANIFEST_META = (sys.executable, str(MANIFEST), "--root", "outputs", "meta", "--topic")

PIPELINE_LAYERS = ("discover", "plan", "produce", "publish", "attribute")
REQUIRED_SECTIONS = ("输入", "输出", "执行步骤", "Profile 感知")
TRIGGER_WORDS = ("当用户", "触发", "使用时机", "适用场景", "用户说", "用户问", "用户需要", "用于")
BOUNDARY_WORDS = ("不负责", "不处理", "区别于", "边界", "转", "交给", "请用")
PROFILE_MARKER = "=== EASEL ACCOUNT PROFILE ==="
PLACEHOLDER = re.compile(r"<[^>]*>")


def split_skill(skill_dir: Path) -> tuple[dict, list[str]]:
    text = (skill_dir / "SKILL.md").read_text(encoding="utf-8")
    _, frontmatter, body = text.split("---\n", 2)
    return yaml.safe_load(frontmatter), body.splitlines()


def cjk_share(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    cjk = [c for c in letters if unicodedata.east_asian_width(c) in ("W", "F")]
    return len(cjk) / len(letters)


def documented_commands(skill_dir: Path) -> list[list[str]]:
    """argv lists of every `python skills/...` command in the skill's bash fences."""
    commands = []
    for doc in [skill_dir / "SKILL.md", *sorted((skill_dir / "references").glob("*.md"))]:
        text = doc.read_text(encoding="utf-8")
        for block in re.findall(r"^```bash\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL):
            for line in block.replace("\\\n", " ").splitlines():
                tokens = shlex.split(PLACEHOLDER.sub("X", line), comments=True)
                if tokens[:1] == ["python"]:
                    commands.append(tokens[1:])
    return commands


def load_script(path: Path):
    spec = importlib.util.spec_from_file_location(f"skill_script_{path.stem}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being built
    writes_bytecode = sys.dont_write_bytecode
    sys.dont_write_bytecode = True  # a __pycache__ in scripts/ would be an orphan resource
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = writes_bytecode
    return module


def run(script: Path, *argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "EASEL_OUTPUTS": str(cwd / "outputs")}
    return subprocess.run(
        [sys.executable, str(script), *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


# ---- the skills are written to the spec ----


def test_there_is_a_skill_for_every_pipeline_layer() -> None:
    layers = {split_skill(skill_dir)[0]["layer"] for skill_dir in SKILL_DIRS}
    assert set(PIPELINE_LAYERS) <= layers
    assert len(SKILL_DIRS) >= 5


@pytest.mark.parametrize("skill_dir", SKILL_DIRS, ids=lambda p: p.name)
def test_frontmatter_has_only_name_description_layer(skill_dir: Path) -> None:
    frontmatter, _ = split_skill(skill_dir)
    assert set(frontmatter) == {"name", "description", "layer"}
    assert frontmatter["name"] == skill_dir.name
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", frontmatter["name"])


@pytest.mark.parametrize("skill_dir", SKILL_DIRS, ids=lambda p: p.name)
def test_description_is_chinese_with_trigger_and_an_existing_neighbour(skill_dir: Path) -> None:
    description = split_skill(skill_dir)[0]["description"]
    assert 80 <= len(description) <= 300
    assert cjk_share(description) >= 0.3
    assert any(word in description for word in TRIGGER_WORDS)
    named = re.findall(r"`([^`]+)`", description)
    assert named or any(word in description for word in BOUNDARY_WORDS)
    assert set(named) <= SKILL_NAMES - {skill_dir.name}, "only neighbours that exist"


@pytest.mark.parametrize("skill_dir", SKILL_DIRS, ids=lambda p: p.name)
def test_body_is_short_with_the_required_sections(skill_dir: Path) -> None:
    _, body = split_skill(skill_dir)
    assert len(body) <= 200
    headings = [line[3:] for line in body if line.startswith("## ")]
    for section in REQUIRED_SECTIONS:
        assert any(heading.startswith(section) for heading in headings), section
    for line in body:
        if "EASEL ACCOUNT" in line:
            assert PROFILE_MARKER in line


@pytest.mark.parametrize("skill_dir", SKILL_DIRS, ids=lambda p: p.name)
def test_every_resource_is_mentioned_and_every_mention_exists(skill_dir: Path) -> None:
    docs = [skill_dir / "SKILL.md", *sorted((skill_dir / "references").glob("*.md"))]
    text = "\n".join(doc.read_text(encoding="utf-8") for doc in docs)
    for folder in ("references", "scripts"):
        for resource in sorted((skill_dir / folder).glob("*")):
            assert f"{folder}/{resource.name}" in text, f"orphan {resource}"
    for target in re.findall(r"\]\(([^)]+)\)", text):
        assert (skill_dir / target).is_file(), target
    for path in re.findall(r"`((?:references|scripts)/[^`\s]+)`", text):
        assert (skill_dir / path).exists(), path
    for path in re.findall(r"\b(skills/[\w./-]+\.py)", text):
        assert (REPO / path).is_file(), path


@pytest.mark.parametrize("skill_dir", SKILL_DIRS, ids=lambda p: p.name)
def test_documented_commands_parse_with_the_real_argparse(skill_dir: Path) -> None:
    commands = documented_commands(skill_dir)
    for argv in commands:
        script = REPO / argv[0]
        assert script.is_file(), argv[0]
        assert script.parent.parent in (skill_dir, MANIFEST.parent.parent), "no cross-skill calls"
        assert "--allow-unsafe" not in argv
        try:
            load_script(script).build_parser().parse_args(argv[1:])
        except SystemExit as error:
            pytest.fail(f"{' '.join(argv)} is rejected by argparse (exit {error.code})")


def test_the_scripted_skills_document_their_scripts() -> None:
    scripted = {REPO / argv[0] for d in SKILL_DIRS for argv in documented_commands(d)}
    assert set(SCRIPTS) <= scripted


@pytest.mark.parametrize("skill_dir", SKILL_DIRS, ids=lambda p: p.name)
def test_prompt_and_expected_files_come_in_pairs_with_valid_patterns(skill_dir: Path) -> None:
    prompts = {p.stem for p in (skill_dir / "tests").glob("*.prompt")}
    expected = {p.stem for p in (skill_dir / "tests").glob("*.expected")}
    assert prompts and prompts == expected
    for name in expected:
        lines = (skill_dir / "tests" / f"{name}.expected").read_text(encoding="utf-8").splitlines()
        keywords = [line for line in lines if line.strip() and not line.startswith("#")]
        assert keywords
        for line in keywords:
            if line.startswith("re:"):
                re.compile(line[3:])


# ---- the script CLIs ----


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_every_script_has_help(script: Path, tmp_path: Path) -> None:
    result = run(script, "--help", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "--root" in result.stdout


CARD_SCRIPT = """# 换季护肤 5 个关键动作
敏感肌也能稳住的一套思路

---

## 1. 先做减法
换季时皮肤屏障最脆弱，先停掉**刷酸**、去角质和高浓度 VC，只保留清洁、保湿、防晒三步。

---

## 2. 保湿要分层
- 化妆水少量多次拍
- 精华选含神经酰胺、泛醇的
- 面霜按 T 区和两颊分区用量
"""


def make_project(tmp_path: Path, topic: str) -> Path:
    project = tmp_path / "outputs" / topic
    (project / "assets").mkdir(parents=True)
    (project / "assets" / "cards.md").write_text(CARD_SCRIPT, encoding="utf-8")
    return project


def read_manifest(project: Path) -> dict:
    return json.loads((project / ".easel.json").read_text(encoding="utf-8"))


def test_card_maker_renders_into_the_project_and_registers_the_cards(tmp_path: Path) -> None:
    project = make_project(tmp_path, "换季护肤")
    (project / "note.md").write_text("# 换季护肤\n正文\n", encoding="utf-8")
    subprocess.run(
        [*MANIFEST_META, "换季护肤", "--kind", "xhs-note", "--deliverables", "note.md"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )

    result = run(
        RENDER_CARDS,
        *("--root", "outputs", "render", "--topic", "换季护肤"),
        *("--source", "outputs/换季护肤/assets/cards.md", "--theme", "mint"),
        *("--footer", "@小林的护肤笔记"),
        cwd=tmp_path,
    )

    assert result.returncode == 0, result.stderr
    cards = ["card_1.svg", "card_2.svg", "card_3.svg"]
    assert json.loads(result.stdout)["cards"] == cards
    for card in cards:
        svg = (project / card).read_text(encoding="utf-8")
        assert svg.startswith("<svg") and "@小林的护肤笔记" in svg
    assert "2. 保湿要分层" in (project / "card_3.svg").read_text(encoding="utf-8")
    manifest = read_manifest(project)
    assert manifest["deliverables"] == ["note.md", *cards]
    assert manifest["cover"] == "card_1.svg"
    assert manifest["kind"] == "xhs-note", "an existing kind is kept"
    step = manifest["steps"][-1]
    assert (step["layer"], step["skill"], step["outputs"]) == ("produce", "card-maker", cards)
    assert step["upstream"] == ["assets/cards.md"]
    assert sorted(p.name for p in (tmp_path / "outputs").iterdir()) == ["换季护肤"]


def test_card_maker_rerender_with_fewer_cards_drops_the_stale_ones(tmp_path: Path) -> None:
    project = make_project(tmp_path, "换季护肤")
    source = "outputs/换季护肤/assets/cards.md"
    first = run(RENDER_CARDS, "render", "--topic", "换季护肤", "--source", source, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    (project / "assets" / "cards.md").write_text("# 只剩封面\n", encoding="utf-8")

    result = run(RENDER_CARDS, "render", "--topic", "换季护肤", "--source", source, cwd=tmp_path)

    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in project.glob("card_*")) == ["card_1.svg"]
    assert read_manifest(project)["deliverables"] == ["card_1.svg"]
    assert read_manifest(project)["kind"] == "cards"


def test_card_maker_refuses_a_card_that_does_not_fit(tmp_path: Path) -> None:
    make_project(tmp_path, "长文卡片")
    crowded = "# 封面\n\n---\n\n## 太多字\n" + "这一段话非常长。" * 200 + "\n"
    (tmp_path / "crowded.md").write_text(crowded, encoding="utf-8")

    check = run(RENDER_CARDS, "check", "--source", "crowded.md", cwd=tmp_path)
    render = run(
        RENDER_CARDS, "render", "--topic", "长文卡片", "--source", "crowded.md", cwd=tmp_path
    )

    assert check.returncode == 3 and "第 2/2 张" in check.stderr
    assert render.returncode == 3
    assert not list((tmp_path / "outputs" / "长文卡片").glob("card_*"))


def test_card_maker_rejects_a_generic_project_name(tmp_path: Path) -> None:
    make_project(tmp_path, "换季护肤")
    source = "outputs/换季护肤/assets/cards.md"

    result = run(RENDER_CARDS, "render", "--topic", "test", "--source", source, cwd=tmp_path)

    assert result.returncode == 2
    assert "test" in result.stderr
    assert not (tmp_path / "outputs" / "test").exists()


def test_card_maker_wraps_chinese_without_a_line_starting_with_punctuation() -> None:
    module = load_script(RENDER_CARDS)
    lines = module.wrap("先停掉刷酸、去角质和高浓度 VC，只保留清洁、保湿、防晒三步。" * 3, 20)
    assert len(lines) > 1
    assert all(line[0] not in "，。、；：！？" for line in lines)
    assert "".join(lines).replace(" ", "") == (
        "先停掉刷酸、去角质和高浓度VC，只保留清洁、保湿、防晒三步。" * 3
    )


NOTE = """# 换季护肤 5 个关键动作
换季时皮肤屏障最脆弱，先做减法，只保留清洁、保湿、防晒三步。
你换季最困扰的是什么？
#换季护肤 #敏感肌
"""


DELIVERABLES = "note.md,card_2.png,card_1.png"


def make_note_project(tmp_path: Path, note: str) -> Path:
    project = tmp_path / "outputs" / "换季护肤"
    project.mkdir(parents=True)
    (project / "note.md").write_text(note, encoding="utf-8")
    (project / "card_1.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (project / "card_2.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    subprocess.run(
        [*MANIFEST_META, "换季护肤", "--cover", "card_1.png", "--deliverables", DELIVERABLES],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    return project


def test_publisher_check_passes_a_note_within_the_platform_limits(tmp_path: Path) -> None:
    make_note_project(tmp_path, NOTE)

    result = run(PUBLISH, "check", "--topic", "换季护肤", cwd=tmp_path)

    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] and report["problems"] == []
    assert report["images"] == ["card_1.png", "card_2.png"], "cover first"
    assert report["note"]["tags"] == ["换季护肤", "敏感肌"]


def test_publisher_check_reports_a_long_title_and_an_svg_image(tmp_path: Path) -> None:
    make_note_project(tmp_path, "# " + "标" * 21 + "\n正文\n")
    (tmp_path / "outputs" / "换季护肤" / "card_3.svg").write_text("<svg/>", encoding="utf-8")

    result = run(
        PUBLISH, "check", "--topic", "换季护肤", "--images", "card_1.png,card_3.svg", cwd=tmp_path
    )

    assert result.returncode == 3
    problems = "\n".join(json.loads(result.stdout)["problems"])
    assert "21 字" in problems and "card_3.svg" in problems


def test_publisher_dry_run_writes_nothing(tmp_path: Path) -> None:
    make_note_project(tmp_path, NOTE)

    result = run(PUBLISH, "post", "--topic", "换季护肤", cwd=tmp_path)

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["would_post"]["title"] == "换季护肤 5 个关键动作"
    assert not (tmp_path / "outputs" / "_publish").exists()


def test_publisher_exec_writes_a_publish_package_and_records_the_step(tmp_path: Path) -> None:
    project = make_note_project(tmp_path, NOTE)

    result = run(PUBLISH, "post", "--topic", "换季护肤", "--exec", cwd=tmp_path)

    assert result.returncode == 0, result.stderr
    packages = list((tmp_path / "outputs" / "_publish" / "换季护肤").glob("*.json"))
    assert len(packages) == 1
    package = json.loads(packages[0].read_text(encoding="utf-8"))
    assert package["images"] == ["换季护肤/card_1.png", "换季护肤/card_2.png"]
    assert package["state"] == "queued"
    step = read_manifest(project)["steps"][-1]
    assert (step["layer"], step["skill"]) == ("publish", "xhs-publish")


LEAKY_NOTE = (
    NOTE + "内部后台见 http://10.0.3.7:8080/admin ，密钥 sk-ant-api03-" + "Ab3dE" * 12 + "\n"
)


def test_publisher_exec_is_blocked_by_the_content_guard(tmp_path: Path) -> None:
    make_note_project(tmp_path, LEAKY_NOTE)

    result = run(PUBLISH, "post", "--topic", "换季护肤", "--exec", cwd=tmp_path)

    assert result.returncode == 7
    assert not (tmp_path / "outputs" / "_publish").exists()


def test_publisher_dry_run_only_warns_about_the_same_content(tmp_path: Path) -> None:
    make_note_project(tmp_path, LEAKY_NOTE)

    result = run(PUBLISH, "post", "--topic", "换季护肤", cwd=tmp_path)

    assert result.returncode == 0
    assert "10.0.3.7" in result.stderr, "the findings are still shown"


METRICS = (
    "日期,曝光,阅读,点赞,收藏,评论,分享,涨粉\n1,8000,400,25,30,2,3,1\n2,4000,200,15,25,1,2,1\n"
)


def test_review_writes_a_report_and_registers_it(tmp_path: Path) -> None:
    project = make_project(tmp_path, "换季护肤")
    (project / "assets" / "metrics.csv").write_text(METRICS, encoding="utf-8")

    result = run(
        REVIEW,
        *("analyze", "--topic", "换季护肤", "--metrics", "outputs/换季护肤/assets/metrics.csv"),
        cwd=tmp_path,
    )

    assert result.returncode == 0, result.stderr
    ratios = json.loads(result.stdout)["ratios"]
    assert ratios["click_rate"] == pytest.approx(600 / 12000)
    assert ratios["engagement_rate"] == pytest.approx(103 / 600)
    report = (project / "review.md").read_text(encoding="utf-8")
    assert "| 点击率（阅读/曝光） | 5.00% | 偏低 |" in report
    assert "封面和标题" in report
    manifest = read_manifest(project)
    assert manifest["deliverables"] == ["review.md"]
    assert manifest["steps"][-1]["skill"] == "publish-review"
    assert "点击率" in manifest["steps"][-1]["summary"]


def test_review_compares_with_the_account_baseline(tmp_path: Path) -> None:
    make_project(tmp_path, "换季护肤")
    (tmp_path / "now.json").write_text(
        json.dumps({"views": "1.2万", "likes": 600, "collects": 300}), encoding="utf-8"
    )
    (tmp_path / "base.csv").write_text("views,likes,collects\n1000,20,30\n", encoding="utf-8")

    result = run(
        REVIEW,
        *("analyze", "--topic", "换季护肤", "--metrics", "now.json", "--baseline", "base.csv"),
        cwd=tmp_path,
    )

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["totals"]["views"] == 12000
    report = (tmp_path / "outputs" / "换季护肤" / "review.md").read_text(encoding="utf-8")
    assert "高于账号基准" in report and "低于账号基准" in report


def test_review_rejects_metrics_without_known_columns(tmp_path: Path) -> None:
    (tmp_path / "odd.csv").write_text("a,b\n1,2\n", encoding="utf-8")

    result = run(REVIEW, "analyze", "--topic", "换季护肤", "--metrics", "odd.csv", cwd=tmp_path)

    assert result.returncode == 2
    assert "template" in result.stderr
    assert not (tmp_path / "outputs").exists()


def test_review_template_lists_the_columns(tmp_path: Path) -> None:
    result = run(REVIEW, "template", "--format", "csv", cwd=tmp_path)

    assert result.returncode == 0
    assert result.stdout.strip() == "日期,曝光,阅读,点赞,收藏,评论,分享,涨粉"
