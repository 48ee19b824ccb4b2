"""Rule metadata shared by the engine, the reports, hover and `easel-ls rule`."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from functools import cache

from easel_ls.findings import Severity

DOCS_URL = "https://github.com/easel-ls/easel-ls/blob/main/docs/rules.md#{anchor}"


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    default_severity: str
    family: str
    summary: str
    fix: str | None = None  # "safe", "unsafe" or None
    fix_title: str = ""
    # Precision below 90 % on real repositories: off unless selected by its exact code.
    opt_in: bool = False

    @property
    def severity(self) -> Severity:
        return Severity.parse(self.default_severity)

    @property
    def url(self) -> str:
        return DOCS_URL.format(anchor=f"{self.code.lower()}-{self.name}")

    @property
    def doc(self) -> str:
        """The rule's long documentation (Markdown), shared by CLI, hover and docs/rules.md."""
        return rule_doc(self.code)


@cache
def rule_doc(code: str) -> str:
    try:
        return package_text("easel_ls.rules", "docs", f"{code}.md")
    except (FileNotFoundError, OSError):
        return ""


def package_text(package: str, *names: str) -> str:
    """``importlib.resources.files(package).joinpath(*names).read_text("utf-8")``, read
    straight from the package's one folder when the file is there (importing and setting up
    importlib.resources, zipfile included, costs more than checking a small file)."""
    module = sys.modules.get(package)
    if module is None:
        import importlib

        module = importlib.import_module(package)
    folders = list(getattr(module, "__path__", []))
    if len(folders) == 1:
        path = os.path.join(folders[0], *names)
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as file:
                return file.read()
    from importlib import resources

    node = resources.files(package)
    for name in names:
        node = node.joinpath(name)
    return node.read_text("utf-8")
