"""Configuration: discovery (closest config wins), rule selection, per-file ignores, options.

Config lives in ``[tool.easel-ls]`` of ``pyproject.toml``, or at the top level of
``easel-ls.toml`` / ``.easel-ls.toml``. Keys are flat and kebab-case (see docs/rules.md).
"""

from __future__ import annotations

import fnmatch
import os
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from easel_ls.findings import Severity
from easel_ls.model.placeholders import PLACEHOLDER_WORDS
from easel_ls.rules import OPT_IN_CODES, RULES

CONFIG_FILES = ("easel-ls.toml", ".easel-ls.toml", "pyproject.toml")

# BD002: headings that count as a required section (a heading may add a suffix to any).
# fmt: off
SECTION_SYNONYMS: dict[str, list[str]] = {
    "输入": ["输入", "入参", "参数", "前置条件", "前置输入", "Input"],
    "输出": ["输出", "产物", "产出", "交付", "成品", "Output"],
    "执行步骤": [
        "执行步骤", "执行", "步骤", "流程", "工作流", "核心流程", "操作步骤", "Step", "Phase",
        "Workflow", "Procedure",
    ],
    "Profile 感知": ["Profile 感知", "Profile", "画像感知", "画像"],
}
# fmt: on

DEFAULT_OPTIONS: dict[str, Any] = {
    "max-file-size": 5 * 1024 * 1024,
    "skill-roots": None,  # None: skills/openclaw/ and groups whose SKILL.md files set a layer
    "shared-scripts": "skills/shared/scripts",
    "outputs-dir": "outputs",
    "min-cjk-ratio": 0.3,
    "trigger-words": [
        "当用户",
        "触发",
        "使用时机",
        "适用场景",
        "用户说",
        "用户问",
        "用户需要",
        "用于",
        "用户想",
        "用户要",
        # The situation closes the sentence: `当 Ripple 脚本发现活动但规则缺失时，使用…`.
        "时使用",
        "时，使用",
        "时触发",
        "时调用",
        "适用于",
    ],
    "boundary-words": [
        "不负责",
        "不处理",
        "不做",
        "只做",
        "只负责",
        "区别",
        "分工",
        "边界",
        "改用",
        "转",
        "交给",
        "委派",
        "请用",
        "不适用",
        "不重新",
    ],
    # FM015: a skill named right after one of these is a former skill, named on purpose.
    "former-skill-words": ["原", "旧", "已合并", "合并自", "曾", "前身"],
    "description-length": [80, 300],
    # RT: quote marks around the requests a description quotes, and the words before them
    # that say users say them (说, 例如 …).
    "trigger-quotes": ["“”", "「」", "『』", '""'],
    "trigger-phrase-cues": [
        "说",
        "问",
        "提到",
        "要求",
        "想",
        "要",
        "输入",
        "例如",
        "比如",
        "如",
        "诸如",
        "包括",
        "触发",
        "关键词",
        "用户",
        "nói",
        "hỏi",
        "yêu cầu",
        "ví dụ",
        "như",
        "says",
        "say",
        "asks",
        "ask",
        "e.g.",
        "such as",
        "like",
        "trigger",
    ],
    "routing-collision-threshold": 0.6,
    "description-token-budget": 200,
    "resident-token-budget": 8000,
    "max-body-lines": 200,
    "required-sections": ["输入", "输出", "执行步骤", "Profile 感知"],
    "section-synonyms": SECTION_SYNONYMS,
    "placeholder-words": list(PLACEHOLDER_WORDS),
    "generic-project-names": [
        "xhs",
        "test",
        "tmp",
        "temp",
        "demo",
        "output",
        "outputs",
        "result",
        "results",
    ],
    "system-dirs": ["_login", "_publish", "_analytics", "_profile_build", "_scratch"],
    "extra-internal-domains": [],
    "trusted-workspace": False,  # CG: may import the workspace's own content_guard
    # Files and folders a walk never enters (gitignore patterns, relative to the workspace
    # root); a path named on the command line is checked all the same unless --force-exclude.
    "exclude": [
        ".easel-ls-cache",
        ".git",
        ".mypy_cache",
        ".ruff_cache",
        ".venv",
        "__pycache__",
        "node_modules",
        "venv",
    ],
    "extend-exclude": [],
}

_SELECTION_KEYS = {"select", "ignore", "extend-select", "per-file-ignores", "severity"}


class ConfigError(Exception):
    """A config file that cannot be used; the CLI exits 2 with this message."""


@dataclass(frozen=True)
class UnknownCodeInConfig:
    config_path: Path
    key: str
    code: str


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] = ("FM", "BD", "RS", "CM", "MF", "OP", "PB", "CG", "TS", "RT", "EZ")
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    severity: tuple[tuple[str, Severity], ...] = ()
    options: Mapping[str, Any] = field(default_factory=lambda: dict(DEFAULT_OPTIONS))
    config_path: Path | None = None
    base_dir: Path | None = None
    unknown_codes: tuple[UnknownCodeInConfig, ...] = ()
    # code -> (longest selecting prefix, longest ignoring prefix) before per-file ignores: asked
    # for every rule on every file, and it never depends on the file.
    _prefix_lengths: dict[str, tuple[int, int]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _exclusion: list[Exclusion] = field(default_factory=list, init=False, repr=False, compare=False)

    def option(self, key: str) -> Any:
        return self.options.get(key, DEFAULT_OPTIONS.get(key))

    def is_enabled(self, code: str, rel_path: str | None = None) -> bool:
        def best(prefixes: Iterable[str]) -> int:
            return max((len(p) for p in prefixes if code.startswith(p)), default=-1)

        lengths = self._prefix_lengths.get(code)
        if lengths is None:
            selectors = self.select + self.extend_select
            if code in OPT_IN_CODES and code not in selectors:
                # Opt-in rules (precision below 90 % on real repositories) run only when
                # selected by their exact code, never through a family prefix.
                lengths = (-1, best(self.ignore))
            else:
                lengths = (max(best(self.select), best(self.extend_select)), best(self.ignore))
            self._prefix_lengths[code] = lengths
        selected, ignored = lengths
        if rel_path is not None:
            for pattern, codes in self.per_file_ignores:
                if _glob_match(rel_path, pattern):
                    ignored = max(ignored, best(codes))
        # Like ruff: the more specific prefix wins; on a tie, ignore wins.
        return selected >= 0 and selected > ignored

    def severity_of(self, code: str) -> Severity:
        for c, sev in self.severity:
            if c == code:
                return sev
        return RULES[code].severity

    def with_overrides(
        self,
        *,
        select: Iterable[str] | None = None,
        ignore: Iterable[str] | None = None,
        extend_select: Iterable[str] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Settings:
        new = self
        if select is not None:
            new = replace(new, select=tuple(select), extend_select=())
        if ignore is not None:
            new = replace(new, ignore=new.ignore + tuple(ignore))
        if extend_select is not None:
            new = replace(new, extend_select=new.extend_select + tuple(extend_select))
        if options:
            merged = dict(new.options)
            merged.update(options)
            if "extend-exclude" in options:  # the command line's patterns add to the config's
                merged["extend-exclude"] = [
                    *new.option("extend-exclude"),
                    *options["extend-exclude"],
                ]
            new = replace(new, options=merged)
        return new

    def exclusion(self) -> Exclusion:
        """The ``exclude`` and ``extend-exclude`` patterns, compiled once per settings."""
        known = self._exclusion
        if not known:
            known.append(Exclusion([*self.option("exclude"), *self.option("extend-exclude")]))
        return known[0]

    def describe(self) -> dict[str, Any]:
        return {
            "config_path": str(self.config_path) if self.config_path else None,
            "select": list(self.select),
            "extend-select": list(self.extend_select),
            "ignore": list(self.ignore),
            "per-file-ignores": {p: list(c) for p, c in self.per_file_ignores},
            "severity": {c: s.word for c, s in self.severity},
            "enabled": sorted(code for code in RULES if self.is_enabled(code)),
            "options": dict(self.options),
        }


_GLOB_CHARACTERS = frozenset("*?[]!\\")


class Exclusion:
    """Which paths a walk leaves out: gitignore patterns matched against paths relative to the
    workspace root (``build/`` a folder anywhere, ``tests/fixtures`` that folder, ``*.bak``
    any such file, ``!keep.md`` an exception). Plain names, the defaults among them, are a set
    lookup; other patterns go to pathspec, imported only when some are configured."""

    def __init__(self, patterns: Iterable[str]) -> None:
        lines = [p.strip() for p in patterns]
        lines = [p for p in lines if p and not p.startswith("#")]
        self.patterns = tuple(lines)
        names: set[str] = set()
        folder_names: set[str] = set()
        others: list[str] = []
        negated = any(p.startswith("!") for p in lines)
        for pattern in lines:
            bare = pattern[:-1] if pattern.endswith("/") else pattern
            if negated or "/" in bare or not bare or _GLOB_CHARACTERS.intersection(bare):
                others.append(pattern)
            elif bare == pattern:
                names.add(bare)
            else:
                folder_names.add(bare)
        self.names = frozenset(names)  # files and folders of these names
        self.folder_names = self.names | folder_names  # folders of these names
        self._spec: Any = None
        if others:
            import pathspec  # gitignore semantics, as black and mypy read them

            self._spec = pathspec.GitIgnoreSpec.from_lines(others)
        self.by_name_only = self._spec is None  # a set lookup per entry decides

    def names_only(self) -> Exclusion:
        """The plain-name patterns alone."""
        return Exclusion([*self.names, *(f"{name}/" for name in self.folder_names - self.names)])

    def excludes(self, rel_path: str, is_dir: bool) -> bool:
        """Whether the file or folder at ``rel_path`` (workspace-relative, with ``/``) is left
        out by itself (not by a parent folder: a walk never enters an excluded folder)."""
        name = rel_path.rpartition("/")[2]
        if name in (self.folder_names if is_dir else self.names):
            return True
        if self._spec is None:
            return False
        return bool(self._spec.match_file(f"{rel_path}/" if is_dir else rel_path))

    def excludes_path(self, rel_path: str, is_dir: bool) -> bool:
        """Whether the path or one of its parent folders (up to the root) is left out."""
        parts = rel_path.split("/")
        for depth in range(1, len(parts)):
            if self.excludes("/".join(parts[:depth]), True):
                return True
        return self.excludes(rel_path, is_dir)


def pattern_problem(patterns: Iterable[str]) -> str | None:
    """Why these ``exclude`` patterns cannot be used (None when they can)."""
    for pattern in patterns:
        try:
            Exclusion([pattern])
        except Exception as exc:  # pathspec's own error, or `re`'s for a bad `[z-a]` range
            return f"`{pattern}` is not a .gitignore pattern ({exc})"
    return None


def _glob_match(rel_path: str, pattern: str) -> bool:
    path = PurePosixPath(rel_path)
    pattern = pattern.strip("/")
    if fnmatch.fnmatch(rel_path, pattern) or path.match(pattern):
        return True
    # "dir/" style and "dir/**" patterns match everything beneath.
    base = pattern[:-3] if pattern.endswith("/**") else pattern
    return rel_path == base or rel_path.startswith(base.rstrip("/") + "/")


def _known_prefix(code: str) -> bool:
    return any(c.startswith(code) for c in RULES) if code else False


def _as_codes(value: Any, key: str, path: Path) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: `{key}` must be a list of rule codes")
    return tuple(v.strip().upper() for v in value)


def _read_toml(path: Path) -> dict[str, Any] | None:
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read config: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc
    if path.name == "pyproject.toml":
        tool = data.get("tool", {})
        section = tool.get("easel-ls") if isinstance(tool, dict) else None
        return section if isinstance(section, dict) else None
    return data


def settings_from_table(table: Mapping[str, Any], path: Path) -> Settings:
    unknown: list[UnknownCodeInConfig] = []

    def codes(key: str) -> tuple[str, ...]:
        found = _as_codes(table[key], key, path)
        unknown.extend(UnknownCodeInConfig(path, key, c) for c in found if not _known_prefix(c))
        return found

    base = Settings(config_path=path, base_dir=path.parent)
    kwargs: dict[str, Any] = {}
    if "select" in table:
        kwargs["select"] = codes("select")
    if "ignore" in table:
        kwargs["ignore"] = codes("ignore")
    if "extend-select" in table:
        kwargs["extend_select"] = codes("extend-select")
    if "per-file-ignores" in table:
        pfi = table["per-file-ignores"]
        if not isinstance(pfi, dict):
            raise ConfigError(f"{path}: `per-file-ignores` must be a table of glob = [codes]")
        entries = []
        for pattern, value in pfi.items():
            found = _as_codes(value, f"per-file-ignores.{pattern}", path)
            unknown.extend(
                UnknownCodeInConfig(path, "per-file-ignores", c)
                for c in found
                if not _known_prefix(c)
            )
            entries.append((str(pattern), found))
        kwargs["per_file_ignores"] = tuple(entries)
    if "severity" in table:
        sev = table["severity"]
        if not isinstance(sev, dict):
            raise ConfigError(f'{path}: `severity` must be a table of CODE = "error|warning|info"')
        pairs = []
        for code, word in sev.items():
            code = str(code).upper()
            if code not in RULES:
                unknown.append(UnknownCodeInConfig(path, "severity", code))
                continue
            try:
                pairs.append((code, Severity.parse(str(word))))
            except KeyError:
                raise ConfigError(
                    f"{path}: severity for {code} must be error, warning or info, not {word!r}"
                ) from None
        kwargs["severity"] = tuple(pairs)
    options = dict(DEFAULT_OPTIONS)
    for key, value in table.items():
        if key in _SELECTION_KEYS:
            continue
        if key not in DEFAULT_OPTIONS:
            raise ConfigError(
                f"{path}: unknown option `{key}` (known: {', '.join(sorted(DEFAULT_OPTIONS))})"
            )
        options[key] = _validate_option(key, value, path)
    kwargs["options"] = options
    kwargs["unknown_codes"] = tuple(unknown)
    return replace(base, **kwargs)


def _validate_option(key: str, value: Any, path: Path) -> Any:
    default = DEFAULT_OPTIONS[key]
    if key == "description-length":
        ok = (
            isinstance(value, list)
            and len(value) == 2
            and all(isinstance(v, int) and v >= 0 for v in value)
        )
        if not ok:
            raise ConfigError(f"{path}: `{key}` must be a list of two integers [min, max]")
        return value
    if isinstance(default, dict):
        ok = isinstance(value, dict) and all(
            isinstance(v, list) and all(isinstance(w, str) for w in v) for v in value.values()
        )
        if not ok:
            raise ConfigError(f"{path}: `{key}` must be a table of name = [strings]")
        return value
    if isinstance(default, list) or key == "skill-roots":
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{path}: `{key}` must be a list of strings")
        if key in ("exclude", "extend-exclude"):
            problem = pattern_problem(value)
            if problem is not None:
                raise ConfigError(f"{path}: `{key}`: {problem}")
        return value
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ConfigError(f"{path}: `{key}` must be true or false")
        return value
    if isinstance(default, (int, float)) and (
        isinstance(value, bool) or not isinstance(value, (int, float))
    ):
        raise ConfigError(f"{path}: `{key}` must be a number")
    if isinstance(default, str) and not isinstance(value, str):
        raise ConfigError(f"{path}: `{key}` must be a string")
    return value


def load_config_file(path: Path) -> Settings | None:
    table = _read_toml(path)
    if table is None:
        return None
    return settings_from_table(table, path)


class ConfigResolver:
    """Finds the closest config for a file, caching per folder."""

    def __init__(
        self,
        explicit: Path | None = None,
        stop_at: Path | None = None,
        overrides: Mapping[str, Any] | None = None,
        *,
        lenient: bool = False,
    ) -> None:
        # Command-line / editor selection and options win over every config file.
        self._overrides = dict(overrides or {})
        # How to build an equivalent resolver in a worker process.
        self.init_args = (explicit, stop_at, dict(overrides or {}), lenient)
        # lenient (the editor): a config file that cannot be used counts as one holding the
        # defaults, and its error is kept in ``errors`` to be shown; else ConfigError is raised.
        self._lenient = lenient
        self.errors: dict[Path, str] = {}
        self._explicit = load_config_file(explicit) if explicit else None
        if explicit and self._explicit is None:
            raise ConfigError(f"{explicit}: no [tool.easel-ls] section")
        self._stop_at = stop_at
        self._by_dir: dict[Path, Settings] = {}
        self._by_path: dict[Path, Settings] = {}  # memo: a stat per file adds up on big trees
        # config file settings -> the same with the overrides: one object per config file, so
        # memos keyed on a Settings (its cache key, rule selection) are shared by its files.
        self._overridden: dict[int, tuple[Settings, Settings]] = {}
        self.loaded: dict[Path, Settings] = {}

    def for_path(
        self, path: Path, files_in: Mapping[str, frozenset[str]] | None = None
    ) -> Settings:
        """``files_in``: folder -> the files it holds, where a batch walk listed it (answers
        found there save a ``stat`` per file and per config name)."""
        memo = self._by_path.get(path)
        if memo is not None:
            return memo
        settings = self._resolve(path, files_in or {})
        if len(self._by_path) < 200_000:
            self._by_path[path] = settings
        return settings

    def for_folder(
        self, folder: Path, files_in: Mapping[str, frozenset[str]] | None = None
    ) -> Settings:
        """The settings of a folder's files, with no ``stat`` to tell the folder is one."""
        if self._explicit is not None:
            return self._overridden_settings(self._explicit)
        return self._overridden_settings(self._for_dir(folder, files_in or {}))

    def _resolve(self, path: Path, files_in: Mapping[str, frozenset[str]]) -> Settings:
        if self._explicit is not None:
            settings = self._explicit
        else:
            listed = files_in.get(os.path.dirname(path))
            is_file = listed is not None and path.name in listed
            folder = path if not is_file and os.path.isdir(path) else path.parent
            settings = self._for_dir(folder, files_in)
        return self._overridden_settings(settings)

    def _overridden_settings(self, settings: Settings) -> Settings:
        if self._overrides:
            known = self._overridden.get(id(settings))
            if known is None or known[0] is not settings:
                known = (settings, settings.with_overrides(**self._overrides))
                self._overridden[id(settings)] = known
            settings = known[1]
        return settings

    def _for_dir(self, folder: Path, files_in: Mapping[str, frozenset[str]]) -> Settings:
        cached = self._by_dir.get(folder)
        if cached is not None:
            return cached
        settings: Settings | None = None
        listed = files_in.get(str(folder))
        for name in CONFIG_FILES:
            if listed is not None and name not in listed:
                continue  # the walk saw no such file here
            if not os.path.isfile(os.path.join(folder, name)):
                continue
            candidate = folder / name
            settings = self.loaded.get(candidate) or self._load(candidate)
            if settings is not None:
                self.loaded[candidate] = settings
                break
        if settings is None:
            parent = folder.parent
            at_top = parent == folder or (self._stop_at is not None and folder == self._stop_at)
            settings = Settings() if at_top else self._for_dir(parent, files_in)
        self._by_dir[folder] = settings
        return settings

    def _load(self, path: Path) -> Settings | None:
        if not self._lenient:
            return load_config_file(path)
        try:
            return load_config_file(path)
        except ConfigError as error:
            self.errors[path] = str(error)
            return Settings(config_path=path, base_dir=path.parent)

    def invalidate(self) -> None:
        self._by_path.clear()
        self._by_dir.clear()
        self._overridden.clear()
        self.loaded.clear()
        self.errors.clear()
