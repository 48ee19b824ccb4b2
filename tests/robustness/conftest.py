"""Shared helpers for the bounded robustness tests live in robustness_inputs.py (also used by
the long runs in tests/fuzz); this folder must be importable as plain modules."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
