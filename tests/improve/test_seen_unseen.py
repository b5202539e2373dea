"""benchmarks/quality/seen_unseen.py: a student's gain split by whether the item's quote was
in its training documents; the figures are the paired means and intervals of the parts."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location(
    "seen_unseen_bench", ROOT / "benchmarks" / "quality" / "seen_unseen.py"
)
assert spec is not None and spec.loader is not None
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def test_each_part_pairs_the_same_items() -> None:
    base = {"a": 0.0, "b": 1.0, "c": 0.0, "d": 1.0}
    student = {"a": 1.0, "b": 1.0, "c": 0.0, "d": 0.0}
    row = bench.part_row("seen", ["a", "b", "c"], base, student)
    assert row["n"] == 3 and row["gained"] == 1 and row["lost"] == 0
    assert row["base"] == 1 / 3 and row["student"] == 2 / 3 and row["gain"] == 1 / 3
    lo, hi = row["ci"]
    assert 0.0 <= lo <= 1 / 3 <= hi <= 1.0
    whole = bench.part_row("all", sorted(base), base, student)
    assert whole["gain"] == 0.0 and (whole["gained"], whole["lost"]) == (1, 1)


def test_the_gap_interval_holds_its_gap_and_excludes_0_when_the_parts_differ() -> None:
    seen = np.array([1.0] * 40 + [0.0] * 60)  # gain 0.4 on every resample's average
    unseen = np.array([0.0] * 100)
    lo, hi = bench.gain_gap_ci(seen, unseen)
    assert 0.25 < lo < 0.4 < hi < 0.55
    same = np.array([1.0, 0.0] * 50)
    lo, hi = bench.gain_gap_ci(same, same.copy())
    assert lo < 0.0 < hi
    assert bench.gain_gap_ci(seen[:1], unseen) is None
