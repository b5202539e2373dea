"""lr_at: linear warmup, cosine decay, min_lr at the end."""

from __future__ import annotations

import math

import pytest

from jupiter.train.schedule import lr_at


def test_warmup_peak_and_end() -> None:
    kw = {"max_steps": 100, "lr": 1e-3, "min_lr": 1e-4, "warmup_steps": 10}
    assert lr_at(0, **kw) == pytest.approx(1e-4)  # lr * 1/10: the first step moves
    assert lr_at(4, **kw) == pytest.approx(5e-4)
    assert lr_at(9, **kw) == pytest.approx(1e-3)
    assert lr_at(10, **kw) == pytest.approx(1e-3)  # warmup end: the peak
    assert lr_at(55, **kw) == pytest.approx(1e-4 + 0.5 * 9e-4)  # cosine midpoint
    assert lr_at(100, **kw) == pytest.approx(1e-4)
    assert lr_at(1000, **kw) == pytest.approx(1e-4)
    values = [lr_at(s, **kw) for s in range(10, 101)]
    assert all(a >= b for a, b in zip(values, values[1:], strict=False))  # monotone decay


def test_no_warmup_and_pure() -> None:
    assert lr_at(0, 50, 2.0, 0.0, 0) == 2.0
    assert lr_at(25, 50, 2.0, 0.0, 0) == pytest.approx(1.0)
    assert lr_at(49, 50, 2.0, 0.0, 0) == pytest.approx(1.0 - math.cos(math.pi / 50), abs=1e-12)
    assert lr_at(7, 50, 2.0, 0.5, 3) == lr_at(7, 50, 2.0, 0.5, 3)
