"""Aggregation: exact values for the mean, robustness of median / trimmed mean / Krum against
a scaled attacker and a NaN, and the checks that keep bad contributions out."""

from __future__ import annotations

import pytest
import torch

from jupiter.errors import JupiterError
from jupiter.merge.aggregate import (
    Contribution,
    aggregate,
    check_contributions,
    krum,
    median,
    trim_count,
    trimmed_mean,
    weighted_mean,
)


def contrib(name: str, weight: float = 1.0, **tensors: list[float]) -> Contribution:
    return Contribution(name, {k: torch.tensor(v) for k, v in tensors.items()}, weight)


def rel_err(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> float:
    num = sum(float((a[k] - b[k]).norm() ** 2) for k in a)
    den = sum(float(b[k].norm() ** 2) for k in b)
    return (num / den) ** 0.5


@pytest.fixture
def attacked() -> tuple[list[Contribution], dict[str, torch.Tensor]]:
    """4 honest islands: one shared pseudo-gradient direction plus island noise (their
    updates start from the same weights, so they agree to a few percent), one attacker
    scaling an honest update by 1e6, one island whose update holds a NaN."""
    g = torch.Generator().manual_seed(0)
    base = {"w": torch.randn(64, 32, generator=g), "b": torch.randn(32, generator=g)}
    honest = [
        Contribution(
            f"h{i}",
            {k: v + 0.02 * torch.randn(v.shape, generator=g) for k, v in base.items()},
            1000.0,
        )
        for i in range(4)
    ]
    attacker = Contribution("attacker", {k: v * 1e6 for k, v in honest[0].tensors.items()}, 1000.0)
    nan = {k: v.clone() for k, v in honest[1].tensors.items()}
    nan["w"][3, 5] = float("nan")
    contribs = [*honest, attacker, Contribution("nan", nan, 1000.0)]
    return contribs, weighted_mean(honest)


def test_weighted_mean_hand_computed() -> None:
    a = contrib("a", 1.0, x=[1.0, 2.0], y=[[0.0, 4.0]])
    b = contrib("b", 3.0, x=[3.0, 6.0], y=[[8.0, 0.0]])
    out = weighted_mean([a, b])
    # (1*1 + 3*3)/4 = 2.5, (1*2 + 3*6)/4 = 5; (1*0 + 3*8)/4 = 6, (1*4 + 3*0)/4 = 1
    assert torch.allclose(out["x"], torch.tensor([2.5, 5.0]))
    assert torch.allclose(out["y"], torch.tensor([[6.0, 1.0]]))
    assert out["x"].dtype == torch.float32
    # weights are normalised: scaling all of them changes nothing
    scaled = weighted_mean(
        [
            contrib("a", 10.0, x=[1.0, 2.0], y=[[0.0, 4.0]]),
            contrib("b", 30.0, x=[3.0, 6.0], y=[[8.0, 0.0]]),
        ]
    )
    assert torch.allclose(scaled["x"], out["x"]) and torch.allclose(scaled["y"], out["y"])


def test_median_odd_and_even() -> None:
    odd = median(
        [contrib("a", x=[1.0, 9.0]), contrib("b", x=[5.0, 2.0]), contrib("c", x=[3.0, 4.0])]
    )
    assert odd["x"].tolist() == [3.0, 4.0]
    even = median([contrib(n, x=[v]) for n, v in zip("abcd", [1.0, 2.0, 3.0, 10.0], strict=True)])
    assert even["x"].tolist() == [2.5]  # mean of the two middle values, not the lower one


def test_trimmed_mean_counts_and_values() -> None:
    assert trim_count(4, 0.1) == 1  # floor(0.4) = 0, but one attacker must always be cut
    assert trim_count(10, 0.25) == 2
    assert trim_count(2, 0.25) == 0 and trim_count(5, 0.0) == 0
    vals = [contrib(n, x=[v]) for n, v in zip("abcd", [1.0, 2.0, 3.0, 100.0], strict=True)]
    assert trimmed_mean(vals, 0.1)["x"].tolist() == [2.5]
    assert trimmed_mean(vals, 0.0)["x"].tolist() == [26.5]
    with pytest.raises(JupiterError, match="trim_fraction 0.5"):
        trimmed_mean(vals, 0.5)


@pytest.mark.parametrize("method", ["median", "trimmed_mean", "krum"])
def test_robust_methods_resist_attacker_and_nan(
    method: str, attacked: tuple[list[Contribution], dict[str, torch.Tensor]]
) -> None:
    contribs, honest_mean = attacked
    out, info = aggregate(contribs, method, trim_fraction=0.25, byzantine=1)  # type: ignore[arg-type]
    assert info["rejected"] == {"nan": "non_finite"}
    assert "attacker" in info["used"] and "nan" not in info["used"]
    assert all(torch.isfinite(t).all() for t in out.values())
    assert rel_err(out, honest_mean) < 0.05
    if method == "krum":
        assert info["selected"][0].startswith("h")
        assert info["scores"]["attacker"] > max(
            v for k, v in info["scores"].items() if k != "attacker"
        )


def test_plain_mean_is_not_robust(
    attacked: tuple[list[Contribution], dict[str, torch.Tensor]],
) -> None:
    """The attack is real: the mean, even without the NaN, is dragged far away."""
    contribs, honest_mean = attacked
    out, info = aggregate(contribs, "mean")
    assert info["rejected"] == {"nan": "non_finite"}
    assert rel_err(out, honest_mean) > 1e4


def test_multi_krum_averages_the_best() -> None:
    g = torch.Generator().manual_seed(1)
    honest = [
        Contribution(f"h{i}", {"x": 1.0 + 0.01 * torch.randn(100, generator=g)}) for i in range(5)
    ]
    bad = Contribution("bad", {"x": -50.0 * torch.ones(100)})
    out, selected, scores = krum([*honest, bad], byzantine=1, multi=3)
    assert len(selected) == 3 and "bad" not in selected
    picked = [c for c in honest if c.name in selected]
    assert torch.allclose(out["x"], sum(c.tensors["x"] for c in picked) / 3)
    assert len(scores) == 6 and scores[5] == max(scores)


def test_krum_needs_enough_contributions() -> None:
    four = [contrib(n, x=[float(i)]) for i, n in enumerate("abcd")]
    with pytest.raises(JupiterError, match=r"more than 2\*1\+2 = 4 contributions, got 4"):
        aggregate(four, "krum", byzantine=1)
    out, info = aggregate(four, "krum", byzantine=0)  # n=4 > 2: fine
    assert len(info["selected"]) == 1


def test_check_contributions_reasons() -> None:
    ok = [contrib(f"ok{i}", 2.0, x=[1.0, 2.0], y=[3.0]) for i in range(3)]
    bad = [
        contrib("shape", x=[1.0, 2.0, 3.0], y=[3.0]),
        contrib("names", x=[1.0, 2.0], z=[3.0]),
        contrib("zero", 0.0, x=[1.0, 2.0], y=[3.0]),
        contrib("inf", x=[1.0, float("inf")], y=[3.0]),
        contrib("ok0", x=[1.0, 2.0], y=[3.0]),
    ]
    kept, rejected = check_contributions([*ok, *bad])
    assert [c.name for c in kept] == ["ok0", "ok1", "ok2"]
    assert rejected == {
        "shape": "shape_mismatch",
        "names": "name_mismatch",
        "zero": "bad_weight",
        "inf": "non_finite",
        "ok0": "duplicate_name",
    }
    # against the global weights themselves: here every contribution has the wrong shape
    reference = {"x": torch.zeros(3), "y": torch.zeros(1)}
    kept, rejected = check_contributions(ok, reference)
    assert kept == [] and set(rejected.values()) == {"shape_mismatch"}
    kept, _ = check_contributions(ok, {"x": (2,), "y": (1,)})
    assert len(kept) == 3


def test_nothing_left_is_a_clear_error() -> None:
    with pytest.raises(JupiterError, match="no contribution left.*'a': 'non_finite'"):
        aggregate([contrib("a", x=[float("nan")])], "median")
    with pytest.raises(JupiterError, match="no contribution left"):
        aggregate([], "mean")
    with pytest.raises(JupiterError, match="unknown aggregation 'vote'"):
        aggregate([contrib("a", x=[1.0])], "vote")  # type: ignore[arg-type]
