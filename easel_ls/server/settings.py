"""Editor settings layered over the workspace config files.

Layers, lowest first: config files (``easel-ls.toml``, ``pyproject.toml``), then
``initializationOptions``, then ``workspace/configuration`` (section ``easel-ls``, global, then
per root). The editor layers become ``ConfigResolver`` overrides, so an editor choice wins over
a config file, as a command-line flag does for ``--check``. Keys are camelCase.

Protocol-free: the feature modules pass in plain JSON values.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from easel_ls.config import DEFAULT_OPTIONS, ConfigResolver
from easel_ls.rules import RULES
from easel_ls.workspace import Workspace

SECTION = "easel-ls"
DEFAULT_DEBOUNCE_MS = 150
LOG_LEVELS = {"error": logging.ERROR, "warning": logging.WARNING, "info": logging.INFO}
LOG_LEVELS.update({"debug": logging.DEBUG, "trace": logging.DEBUG, "off": logging.CRITICAL})


@dataclass(frozen=True)
class EditorSettings:
    """One layer of editor settings; ``None`` means "not set here, use the layer below"."""

    debounce_ms: int | None = None
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] | None = None
    max_body_lines: int | None = None
    trusted_workspace: bool | None = None
    log_level: str | None = None

    def layered_over(self, below: EditorSettings) -> EditorSettings:
        mine = {f.name: getattr(self, f.name) for f in fields(self)}
        return replace(below, **{k: v for k, v in mine.items() if v is not None})

    def overrides(self) -> dict[str, Any]:
        """Keyword arguments for ``ConfigResolver(overrides=...)``."""
        result: dict[str, Any] = {}
        if self.select is not None:
            result["select"] = self.select
        if self.ignore is not None:
            result["ignore"] = self.ignore
        if self.extend_select is not None:
            result["extend_select"] = self.extend_select
        options: dict[str, Any] = {}
        if self.max_body_lines is not None:
            options["max-body-lines"] = self.max_body_lines
        # Only rules that read the option care; the config schema may not know it yet.
        if self.trusted_workspace is not None and "trusted-workspace" in DEFAULT_OPTIONS:
            options["trusted-workspace"] = self.trusted_workspace
        if options:
            result["options"] = options
        return result

    def describe(self) -> dict[str, Any]:
        return {
            "debounceMs": self.debounce_ms,
            "select": list(self.select) if self.select is not None else None,
            "ignore": list(self.ignore) if self.ignore is not None else None,
            "extendSelect": list(self.extend_select) if self.extend_select is not None else None,
            "maxBodyLines": self.max_body_lines,
            "trustedWorkspace": self.trusted_workspace,
            "logLevel": self.log_level,
        }


def parse_editor_settings(raw: Any) -> tuple[EditorSettings, list[str]]:
    """Read one layer from a JSON value. Bad values are dropped with a problem message each;
    unknown keys are reported too, so a typo in the editor config is visible."""
    if raw is None:
        return EditorSettings(), []
    if not isinstance(raw, Mapping):
        return EditorSettings(), [f"`{SECTION}` settings must be an object, not {_kind(raw)}"]
    if isinstance(raw.get(SECTION), Mapping):  # didChangeConfiguration may wrap the section
        raw = raw[SECTION]
    problems: list[str] = []
    values: dict[str, Any] = {}
    for key, value in raw.items():
        reader = _READERS.get(key)
        if reader is None:
            problems.append(f"unknown setting `{key}` (known: {', '.join(sorted(_READERS))})")
            continue
        attr, read = reader
        parsed, problem = read(value)
        if problem:
            problems.append(f"setting `{key}`: {problem}; it is ignored")
        else:
            values[attr] = parsed
    return EditorSettings(**values), problems


def _kind(value: Any) -> str:
    return type(value).__name__


def _read_non_negative_int(value: Any) -> tuple[Any, str | None]:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        return None, f"must be a number >= 0, not {value!r}"
    return int(value), None


def _read_codes(value: Any) -> tuple[Any, str | None]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None, f"must be a list of rule codes or prefixes, not {value!r}"
    codes = tuple(v.strip().upper() for v in value if v.strip())
    unknown = [c for c in codes if not any(code.startswith(c) for code in RULES)]
    if unknown:
        return None, f"unknown rule code or prefix {', '.join(unknown)}"
    return codes, None


def _read_bool(value: Any) -> tuple[Any, str | None]:
    if not isinstance(value, bool):
        return None, f"must be true or false, not {value!r}"
    return value, None


def _read_log_level(value: Any) -> tuple[Any, str | None]:
    if not isinstance(value, str) or value.lower() not in LOG_LEVELS:
        return None, f"must be one of {', '.join(LOG_LEVELS)}, not {value!r}"
    return value.lower(), None


_READERS = {
    "debounceMs": ("debounce_ms", _read_non_negative_int),
    "select": ("select", _read_codes),
    "ignore": ("ignore", _read_codes),
    "extendSelect": ("extend_select", _read_codes),
    "maxBodyLines": ("max_body_lines", _read_non_negative_int),
    "trustedWorkspace": ("trusted_workspace", _read_bool),
    "logLevel": ("log_level", _read_log_level),
}


@dataclass
class SettingsLayers:
    """Every editor layer the server has heard, and which workspaces already use them."""

    initialization: EditorSettings = field(default_factory=EditorSettings)
    global_configuration: EditorSettings = field(default_factory=EditorSettings)
    root_configuration: dict[Path, EditorSettings] = field(default_factory=dict)
    generation: int = 0
    _applied: dict[Path, int] = field(default_factory=dict)

    def changed(self) -> None:
        self.generation += 1

    def server_wide(self) -> EditorSettings:
        return self.global_configuration.layered_over(self.initialization)

    def for_root(self, root: Path) -> EditorSettings:
        scoped = self.root_configuration.get(root, EditorSettings())
        return scoped.layered_over(self.server_wide())

    def debounce_ms(self) -> int:
        value = self.server_wide().debounce_ms
        return DEFAULT_DEBOUNCE_MS if value is None else value

    def log_level(self) -> int:
        return LOG_LEVELS.get(self.server_wide().log_level or "warning", logging.WARNING)

    def configure(self, workspace: Workspace) -> bool:
        """Give ``workspace`` a resolver with the current editor overrides (once per change);
        True when it was replaced, so its findings may be stale."""
        if self._applied.get(workspace.root) == self.generation:
            return False
        overrides = self.for_root(workspace.root).overrides()
        workspace.config = ConfigResolver(stop_at=workspace.root, overrides=overrides, lenient=True)
        self._applied[workspace.root] = self.generation
        return True


def describe_settings(layers: SettingsLayers, workspace: Workspace, path: Path) -> dict[str, Any]:
    """What ``easel.showSettings`` shows: the effective settings for ``path`` and the layers."""
    layers.configure(workspace)
    effective = workspace.settings_for(path)
    return {
        "workspace_root": str(workspace.root),
        "path": str(path),
        **effective.describe(),
        "editor": layers.for_root(workspace.root).describe(),
        "debounceMs": layers.debounce_ms(),
        # Config files that could not be used (their folders get the defaults meanwhile).
        "config_errors": {str(p): message for p, message in workspace.config.errors.items()},
    }
