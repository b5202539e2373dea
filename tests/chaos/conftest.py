"""The chaos scenarios live in benchmarks/chaos/ (one script per scenario, with figures);
these tests run a few cases of each. Their modules are put on sys.path here."""

from __future__ import annotations

import sys
from pathlib import Path

CHAOS = Path(__file__).resolve().parents[2] / "benchmarks" / "chaos"
if str(CHAOS) not in sys.path:
    sys.path.insert(0, str(CHAOS))
