"""Imports flow one way: adapters (cli, server) → batch → engine → rules → model.

Every import in easel_ls (at module level, inside functions and under ``TYPE_CHECKING``) is read
from the syntax tree; a module may import its own layer or a lower one, never a higher one. A
new module must be given a layer here, so the rule cannot be dodged by adding a file.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "easel_ls"

# Lowest first. A name stands for a module and everything below it, a name ending in "." for
# what is below it only; the longest match wins.
LAYERS: tuple[tuple[str, ...], ...] = (
    # 0: protocol-free values and the packaged data and shared modules
    ("easel_ls", "easel_ls.findings", "easel_ls.spec", "easel_ls.suggest", "easel_ls.vendor"),
    # 1: parsed artefacts (no rule logic)
    ("easel_ls.model",),
    # 2: rule metadata: what config, reports and hover need about a code (no rule runs here)
    ("easel_ls.rules", "easel_ls.rules.base", "easel_ls.rules.catalogue", "easel_ls.rules.docgen"),
    # 3: settings, the workspace and what reads or writes it without running rules
    (
        "easel_ls.config",
        "easel_ls.workspace",
        "easel_ls.fixes",
        "easel_ls.cache",
        "easel_ls.report",
    ),
    # 4: the rules: what a rule sees and the registry (rules.context), one module per family
    ("easel_ls.rules.",),
    # 5: checking one document
    ("easel_ls.engine", "easel_ls.suppressions"),
    # 6: checking many
    ("easel_ls.batch",),
    # 7: editor services over the engine's model (protocol-free)
    ("easel_ls.services",),
    # 8: adapters
    (
        "easel_ls.__main__",
        "easel_ls.cli",
        "easel_ls.watch",
        "easel_ls.add_suppressions",
        "easel_ls.sync",
        "easel_ls.refactor_cli",
        "easel_ls.route_cli",
        "easel_ls.skill_test_cli",
        "easel_ls.server",
    ),
)
NAMES = ("model", "rule metadata", "settings", "rules", "engine", "batch", "services", "adapters")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _matches(module: str, name: str) -> bool:
    if name.endswith("."):
        return module.startswith(name)
    return module == name or module.startswith(name + ".")


def layer_of(module: str) -> int:
    found = [
        (len(name), layer)
        for layer, names in enumerate(LAYERS)
        for name in names
        if _matches(module, name)
    ]
    if not found:
        raise AssertionError(f"{module} has no layer in {__name__}.LAYERS")
    return max(found)[1]


def imported_modules(module: str) -> set[str]:
    """Every easel_ls module ``module`` imports, wherever the import statement is."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            # `from easel_ls.rules import body` imports the module easel_ls.rules.body
            found.update(
                f"{target}.{alias.name}"
                for alias in node.names
                if f"{target}.{alias.name}" in MODULES
            )
    return {name for name in found if name in MODULES and name != module}


def test_every_module_has_a_layer() -> None:
    for module in MODULES:
        layer_of(module)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_flow_one_way(module: str) -> None:
    own = layer_of(module)
    upward = sorted(
        f"{name} ({NAMES[layer_of(name) - 1] if layer_of(name) else 'base'})"
        for name in imported_modules(module)
        if layer_of(name) > own
    )
    assert not upward, f"{module} ({NAMES[own - 1] if own else 'base'}) imports {upward}"


@pytest.mark.parametrize(
    "module", sorted(m for m in MODULES if m.startswith(("easel_ls.rules", "easel_ls.model")))
)
def test_rules_and_model_never_import_the_runners_or_the_adapters(module: str) -> None:
    forbidden = ("easel_ls.engine", "easel_ls.batch", "easel_ls.server", "easel_ls.cli")
    if module.startswith("easel_ls.model"):
        forbidden += ("easel_ls.rules",)
    bad = sorted(
        name
        for name in imported_modules(module)
        if any(name == f or name.startswith(f + ".") for f in forbidden)
    )
    assert not bad, f"{module} imports {bad}"


def test_config_reaches_only_the_rule_metadata() -> None:
    """config imports ``easel_ls.rules`` (the codes), which must not pull in a rule module, the
    rule context or the engine: importing config would otherwise import every rule."""
    seen: set[str] = set()
    todo = ["easel_ls.config"]
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(imported_modules(module))
    rules = {m for m in seen if m.startswith("easel_ls.rules")}
    assert rules == {"easel_ls.rules", "easel_ls.rules.base", "easel_ls.rules.catalogue"}
    assert not {m for m in seen if m.startswith(("easel_ls.engine", "easel_ls.batch"))}
