"""Rules, one module per family. ``RULES`` maps every code to its metadata."""

from __future__ import annotations

from easel_ls.rules.base import Rule
from easel_ls.rules.catalogue import CATALOGUE

RULES: dict[str, Rule] = {rule.code: rule for rule in CATALOGUE}
RULES_BY_NAME: dict[str, Rule] = {rule.name: rule for rule in CATALOGUE}
# Off by default: enabled only by their exact code in `select` or `extend-select`.
OPT_IN_CODES: frozenset[str] = frozenset(rule.code for rule in CATALOGUE if rule.opt_in)

__all__ = ["OPT_IN_CODES", "RULES", "RULES_BY_NAME", "Rule"]
