"""Each merge method against values computed by hand on small tensors, and the engine's
methods (median, trimmed mean, Krum, DARE) end to end on toy model dirs."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch
from mergefamily import read
from safetensors.torch import save_file

from jupiter.merge import methods
from jupiter.merge.engine import merge_models
from jupiter.merge.recipe import parse_recipe

T = torch.tensor


def test_linear_is_the_normalised_weighted_mean() -> None:
    out = methods.linear([T([1.0, 2.0]), T([3.0, 6.0])], [1.0, 3.0])
    assert out.tolist() == [2.5, 5.0]  # (1*1 + 3*3)/4, (1*2 + 3*6)/4
    assert methods.linear([T([1.0]), T([3.0])], [1.0, 1.0]).tolist() == [2.0]  # uniform soup


def test_task_arithmetic_by_hand() -> None:
    base = T([1.0, 1.0])
    # deltas [1, -1] and [0, 2]; 1*[1, -1] + 0.5*[0, 2] = [1, 0]; base + 2*[1, 0]
    out = methods.task_vectors(base, [T([2.0, 0.0]), T([1.0, 3.0])], [1.0, 0.5], lam=2.0)
    assert out.tolist() == [3.0, 1.0]
    # normalised: [1, 0] / 1.5
    norm = methods.task_vectors(base, [T([2.0, 0.0]), T([1.0, 3.0])], [1.0, 0.5], normalize=True)
    assert torch.allclose(norm, T([1 + 1 / 1.5, 1.0]))


TIES_INPUTS = [T([3.0, -1.0, 0.5, -2.0]), T([-1.5, -2.0, 1.0, 0.1]), T([2.0, 1.0, -3.0, 0.2])]


def test_ties_trims_elects_and_averages_by_hand() -> None:
    base = torch.zeros(4)
    # density 0.5 keeps 2 of 4 per input: [3, 0, 0, -2], [-1.5, -2, 0, 0], [2, 0, -3, 0];
    # sums [3.5, -2, -3, -2] elect signs [+, -, -, -]; the agreeing entries' mean:
    # (3 + 2)/2, -2 (only input 2), -3 (only input 3), -2 (only input 1)
    out = methods.task_vectors(
        base,
        TIES_INPUTS,
        [1.0, 1.0, 1.0],
        normalize=True,
        sparsify="magnitude",
        density=0.5,
        elect_sign=True,
    )
    assert out.tolist() == [2.5, -2.0, -3.0, -2.0]
    summed = methods.task_vectors(
        base, TIES_INPUTS, [1.0, 1.0, 1.0], sparsify="magnitude", density=0.5, elect_sign=True
    )
    assert summed.tolist() == [5.0, -2.0, -3.0, -2.0]
    # weights enter the election and the mean: 3*[3,..] + 1*[-1.5,..] + 1*[2,..]
    weighted = methods.task_vectors(
        base,
        TIES_INPUTS,
        [3.0, 1.0, 1.0],
        normalize=True,
        sparsify="magnitude",
        density=0.5,
        elect_sign=True,
    )
    assert weighted[0].item() == pytest.approx((9.0 + 2.0) / 4.0)


def test_magnitude_mask_keeps_at_least_one() -> None:
    assert methods.magnitude_mask(T([0.1, -5.0, 2.0]), 0.1).tolist() == [0.0, 1.0, 0.0]


def test_magnitude_ties_at_the_kth_place_are_broken_as_mergekit_does() -> None:
    x = T([1.0, -2.0, 2.0, 3.0, 2.0, 0.5])  # k = 3: the 3, and two of the three 2s
    got = methods.magnitude_mask(x, 0.5)
    assert got.sum() == 3 and got[3] == 1 and got[0] == got[5] == 0
    want = torch.zeros(6)
    want[torch.argsort(x.abs(), descending=True)[:3]] = 1  # mergekit's sparsify.magnitude
    assert torch.equal(got, want)


def test_dare_drops_and_rescales_seeded() -> None:
    base = torch.zeros(20_000)
    x = torch.ones(20_000)
    a = methods.task_vectors(base, [x], [1.0], sparsify="random", density=0.25, seeds=[7])
    b = methods.task_vectors(base, [x], [1.0], sparsify="random", density=0.25, seeds=[7])
    c = methods.task_vectors(base, [x], [1.0], sparsify="random", density=0.25, seeds=[8])
    assert torch.equal(a, b) and not torch.equal(a, c)
    assert set(a.unique().tolist()) == {0.0, 4.0}  # dropped, or kept and scaled by 1/0.25
    assert abs(float((a > 0).float().mean()) - 0.25) < 0.02
    assert abs(float(a.mean()) - 1.0) < 0.1  # the rescale keeps the delta's expectation
    # DARE-TIES: the election runs on the dropped-and-rescaled deltas
    xs = [T([1.0, -1.0, 2.0, 0.5]), T([-2.0, 1.0, 1.0, 1.0])]
    got = methods.task_vectors(
        torch.zeros(4),
        xs,
        [1.0, 1.0],
        sparsify="random",
        density=0.5,
        elect_sign=True,
        seeds=[1, 2],
    )
    d = [x * methods.random_mask(x, 0.5, s) for x, s in zip(xs, [1, 2], strict=True)]
    sign = torch.where(d[0] + d[1] >= 0, 1.0, -1.0)
    want = sum(di * (di.sign() == sign) for di in d)
    assert torch.equal(got, want)
    assert (
        methods.entry_seed(0, "w", 1)
        == methods.entry_seed(0, "w", 1)
        != methods.entry_seed(0, "w", 2)
    )


def test_slerp_by_hand_and_its_linear_fallback() -> None:
    h = math.sqrt(0.5)
    assert torch.allclose(methods.slerp(T([1.0, 0.0]), T([0.0, 1.0]), 0.5), T([h, h]))
    # the angle is the directions'; the tensors themselves are interpolated (norm 2 stays 2)
    assert torch.allclose(methods.slerp(T([2.0, 0.0]), T([0.0, 2.0]), 0.5), T([2 * h, 2 * h]))
    t = 1 / 3  # 30 degrees of 90
    assert torch.allclose(
        methods.slerp(T([[1.0, 0.0]]), T([[0.0, 1.0]]), t),
        T([[math.cos(math.pi / 6), math.sin(math.pi / 6)]]),
    )
    # parallel and antiparallel: no great circle, linear interpolation
    a, b = T([1.0, 2.0]), T([2.0, 4.0])
    assert torch.allclose(methods.slerp(a, b, 0.25), 0.75 * a + 0.25 * b)
    assert torch.allclose(methods.slerp(T([1.0, 0.0]), T([-1.0, 0.0]), 0.5), T([0.0, 0.0]))
    assert methods.slerp(a, b, 0.0).tolist() == a.tolist()


def test_slerp_angle_is_summed_in_fp64() -> None:
    """Two close tensors of 4M entries (fine-tunes are a few degrees apart): the fp32 result
    stays within 1e-7 of an all-fp64 SLERP."""
    gen = torch.Generator().manual_seed(0)
    a = 0.02 * torch.randn(4000, 1000, generator=gen)
    b = a + 0.002 * torch.randn(4000, 1000, generator=gen)
    ref = methods.slerp(a.double(), b.double(), 0.3)
    assert float((methods.slerp(a, b, 0.3).double() - ref).abs().max()) < 1e-7


def test_median_and_trimmed_mean() -> None:
    xs = [T([1.0, 9.0]), T([5.0, 2.0]), T([3.0, 4.0])]
    assert methods.coordinate_median(xs).tolist() == [3.0, 4.0]
    five = [T([v]) for v in (1.0, 2.0, 3.0, 4.0, 100.0)]
    assert methods.coordinate_trimmed_mean(five, 0.2).tolist() == [3.0]  # mean of 2, 3, 4


def toy_model(path: Path, tensors: dict[str, torch.Tensor]) -> Path:
    """A model dir of named tensors (config.json marks it as a model for the resolver)."""
    path.mkdir(parents=True)
    (path / "config.json").write_text(json.dumps({"model_type": "toy"}))
    save_file(tensors, str(path / "model.safetensors"))
    return path


def run(tmp_path: Path, recipe: dict) -> tuple[dict[str, torch.Tensor], dict]:
    out = tmp_path / "out"
    info = merge_models(
        parse_recipe({**recipe, "out": str(out)}), base_dir=None, cache_dir=tmp_path / "cache"
    )
    assert json.loads((out / "merge.json").read_text())["weights"] == info["weights"]
    return read(out), info


@pytest.fixture
def toys(tmp_path: Path) -> list[Path]:
    """Five toy models: four near [1, 2, 3], one attacker at 100x."""
    vals = [[1.0, 2.0, 3.0], [1.1, 2.1, 2.9], [0.9, 1.9, 3.1], [1.0, 2.2, 3.0], [100, 200, 300]]
    return [
        toy_model(tmp_path / f"m{i}", {"w": T(v), "n": T([i], dtype=torch.int64)})
        for i, v in enumerate(vals)
    ]


def test_robust_methods_end_to_end(toys: list[Path], tmp_path: Path) -> None:
    models = [{"model": str(p)} for p in toys]
    med, _ = run(tmp_path / "med", {"method": "median", "models": models})
    assert torch.allclose(med["w"], T([1.0, 2.1, 3.0]))  # the middle of 5 per coordinate
    assert med["n"].tolist() == [0]  # integer tensors are copied from the first input
    tm, _ = run(
        tmp_path / "tm",
        {"method": "trimmed_mean", "models": models, "params": {"trim_fraction": 0.2}},
    )
    # per coordinate, the lowest and highest dropped: (1 + 1 + 1.1)/3, (2 + 2.1 + 2.2)/3, ...
    assert torch.allclose(tm["w"], T([3.1 / 3, 2.1, 9.1 / 3]), atol=1e-6)
    kr, info = run(
        tmp_path / "kr",
        {"method": "krum", "models": models, "params": {"byzantine": 1, "multi": 2}},
    )
    assert info["weights"][4] == 0.0 and sum(info["weights"]) == pytest.approx(1.0)
    chosen = info["selection"]["selected"]
    assert 4 not in chosen and len(chosen) == 2
    want = sum(read(toys[i])["w"] for i in chosen) / 2
    assert torch.allclose(kr["w"], want)


def test_dare_end_to_end_is_seeded(toys: list[Path], tmp_path: Path) -> None:
    recipe = {
        "method": "dare_linear",
        "base": str(toys[0]),
        "models": [{"model": str(toys[1])}, {"model": str(toys[2])}],
        "params": {"density": 0.5, "seed": 3},
    }
    a, _ = run(tmp_path / "a", recipe)
    b, _ = run(tmp_path / "b", recipe)
    assert torch.equal(a["w"], b["w"])
