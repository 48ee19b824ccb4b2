"""Rules, one module per family. ``RULES`` maps every code to its metadata."""

from __future__ import annotations

from easel_ls.rules.base import Rule
from easel_ls.rules.catalogue import CATALOGUE

RULES: dict[str, Rule] = {rule.code: rule for rule in CATALOGUE}
RULES_BY_NAME: dict[str, Rule] = {rule.name: rule for rule in CATALOGUE}

__all__ = ["RULES", "RULES_BY_NAME", "Rule"]
