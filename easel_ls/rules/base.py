"""Rule metadata shared by the engine, the reports, hover and `easel-ls rule`."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources

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
        return (
            resources.files("easel_ls.rules")
            .joinpath("docs")
            .joinpath(f"{code}.md")
            .read_text("utf-8")
        )
    except (FileNotFoundError, OSError):
        return ""
