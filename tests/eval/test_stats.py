"""Bootstrap intervals (eval/stats.py) and paired comparisons of reports (eval/compare.py)."""

from __future__ import annotations

import math
import random

import pytest

from jupiter.eval.compare import compare_reports, items_of, without_items
from jupiter.eval.stats import (
    NO_DIFFERENCE,
    mean_ci,
    paired_diff_ci,
    paired_ratio_diff_ci,
    ratio_ci,
    verdict,
)


def bernoulli(n: int, p: float, seed: int) -> list[float]:
    rng = random.Random(seed)
    return [float(rng.random() < p) for _ in range(n)]


def test_mean_ci_matches_the_normal_approximation_for_400_coin_flips() -> None:
    x = [1.0] * 200 + [0.0] * 200
    random.Random(3).shuffle(x)
    ci = mean_ci(x)
    assert ci is not None
    lo, hi = ci
    assert lo < 0.5 < hi
    normal = 1.96 * math.sqrt(0.25 / 400)  # 0.049
    assert (hi - lo) / 2 == pytest.approx(normal, abs=0.01)
    assert (lo + hi) / 2 == pytest.approx(0.5, abs=0.01)


def test_width_shrinks_with_more_items() -> None:
    widths = []
    for n in (25, 100, 400):
        ci = mean_ci(bernoulli(n, 0.5, seed=n))
        assert ci is not None
        widths.append(ci[1] - ci[0])
    # about 1/sqrt(n): each step of 4x the items halves the width
    assert widths[0] > widths[1] > widths[2]
    assert widths[0] / widths[2] == pytest.approx(4.0, rel=0.35)


def test_same_seed_same_interval_other_seed_close() -> None:
    rng = random.Random(1)
    x = [rng.random() for _ in range(200)]  # F1-like scores: continuous, so seeds differ
    assert mean_ci(x, seed=7) == mean_ci(x, seed=7)
    a, b = mean_ci(x, seed=7), mean_ci(x, seed=8)
    assert a is not None and b is not None and a != b
    assert a == pytest.approx(b, abs=0.02)


def test_too_few_items_give_no_interval() -> None:
    assert mean_ci([]) is None and mean_ci([1.0]) is None
    assert mean_ci([1.0, 0.0]) is not None
    assert verdict(None) == NO_DIFFERENCE


def test_paired_ci_of_identical_models_is_zero() -> None:
    x = bernoulli(50, 0.5, seed=2)
    assert paired_diff_ci(x, x) == (0.0, 0.0)
    assert verdict((0.0, 0.0)) == NO_DIFFERENCE


def test_clearly_better_model_is_better_and_the_other_worse() -> None:
    strong, weak = bernoulli(100, 0.8, seed=4), bernoulli(100, 0.2, seed=5)
    ci = paired_diff_ci(strong, weak)
    assert ci is not None and ci[0] > 0.3
    assert verdict(ci) == "better"
    assert verdict(paired_diff_ci(weak, strong)) == "worse"


def test_tiny_difference_on_few_items_is_inside_the_noise() -> None:
    a = [1.0, 0.0, 1.0, 0.0, 1.0]
    b = [1.0, 0.0, 1.0, 0.0, 0.0]  # one item of five differs
    ci = paired_diff_ci(a, b)
    assert ci is not None and ci[0] <= 0 < ci[1]
    assert verdict(ci) == NO_DIFFERENCE


def test_pairing_sees_a_consistent_gain_that_separate_intervals_miss() -> None:
    # b is a with 6 of 60 wrong answers fixed: the intervals of the means overlap, the
    # paired interval of the difference does not reach 0
    a = bernoulli(60, 0.5, seed=6)
    b = list(a)
    for k in [i for i, v in enumerate(a) if v == 0.0][:6]:
        b[k] = 1.0
    ci_a, ci_b = mean_ci(a), mean_ci(b)
    assert ci_a is not None and ci_b is not None and ci_b[0] < ci_a[1]  # overlapping
    assert verdict(paired_diff_ci(b, a)) == "better"


def test_paired_needs_the_same_items() -> None:
    with pytest.raises(ValueError, match="same items"):
        paired_diff_ci([1.0, 0.0], [1.0])


def test_ratio_ci_brackets_the_ratio_of_sums() -> None:
    rng = random.Random(9)
    nbytes = [float(rng.randint(200, 2000)) for _ in range(40)]
    bits = [b * rng.uniform(1.5, 2.5) for b in nbytes]
    point = sum(bits) / sum(nbytes)
    ci = ratio_ci(bits, nbytes)
    assert ci is not None and ci[0] < point < ci[1]
    assert ci[1] - ci[0] < 0.3
    with pytest.raises(ValueError, match="positive"):
        ratio_ci([1.0, 2.0], [1.0, 0.0])


def test_paired_ratio_difference_lower_bits_is_better() -> None:
    nbytes = [float(100 + 10 * k) for k in range(30)]
    worse = [b * (2.0 + 0.1 * (k % 3)) for k, b in enumerate(nbytes)]
    good = [w * 0.9 for w in worse]  # 10 % fewer bits on every document
    ci = paired_ratio_diff_ci(good, nbytes, worse, nbytes)
    assert ci is not None and ci[1] < 0
    assert verdict(ci, higher_is_better=False) == "better"
    assert paired_ratio_diff_ci(good, nbytes, good, nbytes) == (0.0, 0.0)


def _report(
    model: str, f1: dict[str, float], hits: dict[str, float], bits: list[float], nbytes: list[float]
) -> dict:
    return {
        "model": model,
        "qa_f1": sum(f1.values()) / len(f1),
        "item_scores": {"qa_f1": f1, "mc_accuracy": hits},
        "bpb_docs": {"bits": bits, "bytes": nbytes},
    }


def test_compare_reports_pairs_by_item_id_and_documents() -> None:
    ids = [f"q{k}" for k in range(40)]
    student = _report(
        "student",
        {i: 1.0 for i in ids},
        {i: float(k % 2) for k, i in enumerate(ids)},
        [150.0] * 10,
        [100.0] * 10,
    )
    # the other model lists the same items in another order: pairing goes by id
    base = _report(
        "base",
        {i: 0.0 for i in reversed(ids)},
        {i: float(k % 2) for k, i in enumerate(ids)},
        [300.0] * 10,
        [100.0] * 10,
    )
    comp = compare_reports(student, base)
    assert comp["model"] == "student" and comp["against"] == "base"
    f1 = comp["metrics"]["qa_f1"]
    assert f1["difference"] == 1.0 and f1["ci"] == [1.0, 1.0] and f1["verdict"] == "better"
    assert f1["n"] == 40 and f1["model"] == 1.0 and f1["against"] == 0.0
    assert comp["metrics"]["mc_accuracy"]["verdict"] == NO_DIFFERENCE
    bpb = comp["metrics"]["bpb"]
    assert bpb["model"] == 1.5 and bpb["against"] == 3.0 and bpb["difference"] == -1.5
    assert bpb["higher_is_better"] is False and bpb["verdict"] == "better"
    assert "qa_exact" not in comp["metrics"]  # neither report scored it


def test_compare_reports_skips_what_cannot_be_paired() -> None:
    a = _report("a", {"q1": 1.0, "q2": 0.0}, {}, [10.0, 20.0], [5.0, 5.0])
    b = _report("b", {"q3": 1.0}, {}, [10.0, 20.0], [5.0, 6.0])  # other items, other docs
    assert compare_reports(a, b)["metrics"] == {}
    old = {"model": "old", "qa_f1": 0.5}  # a report from before per-item scores were kept
    assert compare_reports(a, old)["metrics"] == {}


def test_items_split_from_the_report() -> None:
    rep = _report("a", {"q1": 1.0}, {}, [1.0], [1.0])
    assert set(items_of(rep)) == {"item_scores", "bpb_docs"}
    assert without_items(rep) == {"model": "a", "qa_f1": 1.0}
