"""95% intervals for eval figures: percentile bootstrap over items (Efron & Tibshirani 1993,
"An Introduction to the Bootstrap", ch. 13), and the paired bootstrap for the difference of
two models scored on the same items (the same resampled items are applied to both, so the
item-to-item spread that both models share cancels; Koehn 2004, "Statistical Significance
Tests for Machine Translation Evaluation", uses it the same way).

Bits-per-byte is a ratio (total bits / total bytes), so it is resampled over documents as
(bits, bytes) pairs and each resample takes the ratio of the sums.

Every interval is seeded: the same scores give the same interval on every run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np

# Efron & Tibshirani 1993 find ~200 resamples enough for a standard error but ask for 1,000 or
# more for percentile intervals, whose 2.5 % tails rest on few resamples; 2,000 is cheap here
RESAMPLES = 2000
SEED = 0
LEVEL = 0.95
CHUNK = 250  # resamples drawn at once: bounds memory at CHUNK x n indices
MIN_ITEMS = 2  # one item has no spread to resample: its interval would be a point

Interval = tuple[float, float]
Verdict = Literal["better", "worse", "no difference (inside the noise)"]
NO_DIFFERENCE: Verdict = "no difference (inside the noise)"

# one resample statistic per row of an index matrix of shape (k, n)
Statistic = Callable[[np.ndarray], np.ndarray]


def _bootstrap(stat: Statistic, n: int, resamples: int, seed: int) -> Interval | None:
    """The central LEVEL percentile interval of `stat` over `resamples` resamples of n items."""
    if n < MIN_ITEMS:
        return None
    rng = np.random.default_rng(seed)
    values: list[np.ndarray] = []
    for start in range(0, resamples, CHUNK):
        k = min(CHUNK, resamples - start)
        values.append(stat(rng.integers(0, n, size=(k, n))))
    tail = (1.0 - LEVEL) / 2 * 100
    lo, hi = np.percentile(np.concatenate(values), [tail, 100 - tail])
    return float(lo), float(hi)


def mean_ci(
    values: Sequence[float], resamples: int = RESAMPLES, seed: int = SEED
) -> Interval | None:
    """95% percentile-bootstrap interval of the mean of per-item scores; None under 2 items."""
    x = np.asarray(values, dtype=np.float64)
    return _bootstrap(lambda idx: x[idx].mean(axis=1), len(x), resamples, seed)


def paired_diff_ci(
    a: Sequence[float], b: Sequence[float], resamples: int = RESAMPLES, seed: int = SEED
) -> Interval | None:
    """95% interval of mean(a) - mean(b), where a[i] and b[i] score the same item i."""
    if len(a) != len(b):
        raise ValueError(f"paired scores need the same items: {len(a)} vs {len(b)}")
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    return mean_ci(d.tolist(), resamples, seed)


def _ratio(num: np.ndarray, den: np.ndarray) -> Statistic:
    return lambda idx: num[idx].sum(axis=1) / den[idx].sum(axis=1)


def ratio_ci(
    num: Sequence[float], den: Sequence[float], resamples: int = RESAMPLES, seed: int = SEED
) -> Interval | None:
    """95% interval of sum(num) / sum(den), resampling (num, den) pairs (bits, bytes per doc).

    Every den must be positive, so no resample divides by zero.
    """
    n, d = _pairs(num, den)
    return _bootstrap(_ratio(n, d), len(n), resamples, seed)


def paired_ratio_diff_ci(
    num_a: Sequence[float],
    den_a: Sequence[float],
    num_b: Sequence[float],
    den_b: Sequence[float],
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> Interval | None:
    """95% interval of ratio(a) - ratio(b), the same documents resampled for both models."""
    na, da = _pairs(num_a, den_a)
    nb, db = _pairs(num_b, den_b)
    if len(na) != len(nb):
        raise ValueError(f"paired ratios need the same documents: {len(na)} vs {len(nb)}")
    ra, rb = _ratio(na, da), _ratio(nb, db)
    return _bootstrap(lambda idx: ra(idx) - rb(idx), len(na), resamples, seed)


def _pairs(num: Sequence[float], den: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    n = np.asarray(num, dtype=np.float64)
    d = np.asarray(den, dtype=np.float64)
    if n.shape != d.shape:
        raise ValueError(f"numerators and denominators differ in length: {n.shape} vs {d.shape}")
    if (d <= 0).any():
        raise ValueError("every denominator must be positive")
    return n, d


def verdict(ci: Interval | None, higher_is_better: bool = True) -> Verdict:
    """'better' / 'worse' when the interval of (model - other) excludes 0, else no difference."""
    if ci is None:
        return NO_DIFFERENCE
    lo, hi = ci
    if lo > 0:
        return "better" if higher_is_better else "worse"
    if hi < 0:
        return "worse" if higher_is_better else "better"
    return NO_DIFFERENCE
