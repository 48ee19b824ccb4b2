"""Facts from the Easel SKILL spec v0.3 that several rules and features share."""

from __future__ import annotations

LAYERS: dict[str, str] = {
    "discover": "发现层：找选题、热点与素材线索。",
    "plan": "策划层：选题策划、结构与创作简报（brief.md）。",
    "produce": "制作层：生成成品文件（文案、卡片、视频等），成品放项目根、中间件进 assets/。",
    "publish": "发布层：把成品发到公开平台；真发（--exec）前必须过 content_guard.guard_or_die。",
    "attribute": "归因层：发布后的数据复盘与归因分析。",
    "general": "通用层：跨切面基础设施（画像管理、产物管理、模板库），不属于任一流水线阶段。",
}

REQUIRED_KEYS = ("name", "description", "layer")
ALLOWED_TOP_KEYS = ("name", "description", "layer", "metadata")
FORBIDDEN_KEYS = ("version", "profile_aware", "self_developed", "allowed-tools", "tags")
FORBIDDEN_METADATA_KEYS = ("trigger", "impl", "source")

KEY_DOCS: dict[str, str] = {
    "name": "SKILL 名，必须与目录名一致，小写 kebab-case（≤ 64 字符）。",
    "description": (
        "Agent 路由的主要依据：用中文写清能力、触发场景/用户说法和相邻 SKILL 边界"
        "（80–300 字符，可用 `>-` 块标量）。"
    ),
    "layer": "所属层：discover / plan / produce / publish / attribute / general。",
    "metadata": "只允许 `metadata.openclaw`：OpenClaw 需要判断操作系统、二进制、环境变量或安装方式时的运行时清单。",
}

PROFILE_MARKER = "=== EASEL ACCOUNT PROFILE ==="
