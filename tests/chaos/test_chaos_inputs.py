"""The malformed-input corpus (tests/chaos/corpus*)
holds over 300 distinct cases; a few of each family run here as `jupiter` would (the
whole corpus: tests/chaos/bad_input.py), and one also as a real process."""

from __future__ import annotations

from collections import Counter

import pytest
from bad_input import FIXED_BY_THE_SUITE, all_cases, run_corpus

pytestmark = pytest.mark.slow


def test_corpus_is_large_and_distinct() -> None:
    cases = all_cases()
    assert len(cases) >= 300 and len({c.id for c in cases}) == len(cases)
    families = Counter(c.family for c in cases if not c.untouched)  # test_chaos_commands: the rest
    assert len(families) >= 12 and min(families.values()) >= 15, families
    assert sum(c.seeded for c in cases) >= 100  # an existing store whose bytes must not move


def test_a_sample_of_every_family_fails_cleanly() -> None:
    picked: list = []
    seen: Counter[str] = Counter()
    for case in all_cases():
        if seen[case.family] < 2:
            seen[case.family] += 1
            picked.append(case)
    fig = run_corpus(picked, parity=1)
    assert fig["cases"] == len(picked) == 2 * len(seen)
    assert fig["passed"] == fig["cases"], fig["failures"]
    assert fig["parity"]["same"] == fig["parity"]["checked"] == 1, fig["parity"]


def test_the_inputs_the_suite_found_fail_cleanly_now() -> None:
    """One case per fix the corpus led to: each accepted, hung, or answered with
    a traceback, several lines or a changed store before."""
    by_id = {c.id: c for c in all_cases()}
    fig = run_corpus([by_id[i] for i in FIXED_BY_THE_SUITE])
    assert fig["passed"] == fig["cases"] == len(FIXED_BY_THE_SUITE), fig["failures"]
