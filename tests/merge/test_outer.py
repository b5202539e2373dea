"""The outer step equals torch.optim.SGD(nesterov) on the pseudo-gradient; average mode is the
plain mean of the local weights; the state survives a save/load."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from jupiter.config import SyncConfig
from jupiter.errors import JupiterError
from jupiter.merge.aggregate import Contribution, weighted_mean
from jupiter.merge.outer import (
    OuterOptimizer,
    load_outer_state,
    outer_step,
    pseudo_gradient,
    save_outer_state,
)


def weights(seed: int) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return {"w": torch.randn(8, 4, generator=g), "b": torch.randn(4, generator=g)}


@pytest.mark.parametrize("nesterov", [True, False])
def test_outer_step_matches_torch_sgd(nesterov: bool) -> None:
    start = weights(0)
    params = {k: torch.nn.Parameter(v.clone()) for k, v in start.items()}
    sgd = torch.optim.SGD(list(params.values()), lr=0.7, momentum=0.9, nesterov=nesterov)
    w, v = dict(start), {}
    for step in range(3):
        g = weights(10 + step)
        for k, p in params.items():
            p.grad = g[k].clone()
        sgd.step()
        w, v = outer_step(w, g, v, lr=0.7, mu=0.9, nesterov=nesterov)
        for k, p in params.items():
            assert torch.allclose(w[k], p.detach(), rtol=0, atol=1e-7)
            assert torch.allclose(v[k], sgd.state[p]["momentum_buffer"], rtol=0, atol=1e-7)
    assert torch.equal(start["w"], weights(0)["w"])  # inputs untouched


def test_average_mode_is_the_mean_of_local_weights() -> None:
    opt = OuterOptimizer.from_config(SyncConfig(outer="average"))
    assert (opt.lr, opt.momentum) == (1.0, 0.0)
    glob = weights(0)
    locals_ = [weights(s) for s in (1, 2, 3)]
    delta = weighted_mean(
        [Contribution(f"i{i}", pseudo_gradient(glob, lw)) for i, lw in enumerate(locals_)]
    )
    new = opt.step(glob, delta)
    for k in glob:
        assert torch.allclose(new[k], sum(lw[k] for lw in locals_) / 3, atol=1e-6)
    assert opt.buffers == {} and opt.steps == 1


def test_state_round_trip_equals_uninterrupted(tmp_path: Path) -> None:
    opt = OuterOptimizer.from_config(SyncConfig())
    assert (opt.lr, opt.momentum, opt.nesterov) == (0.7, 0.9, True)
    w = opt.step(weights(0), weights(1))
    save_outer_state(tmp_path / "outer.safetensors", opt)
    resumed = load_outer_state(tmp_path / "outer.safetensors")
    assert (resumed.lr, resumed.momentum, resumed.nesterov, resumed.steps) == (0.7, 0.9, True, 1)
    a, b = opt.step(w, weights(2)), resumed.step(w, weights(2))
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert b"pickle" not in (tmp_path / "outer.safetensors").read_bytes()


def test_mismatched_names_and_bad_state(tmp_path: Path) -> None:
    with pytest.raises(JupiterError, match="do not match the global weights"):
        outer_step(weights(0), {"w": torch.zeros(8, 4)}, None, 0.7, 0.9)
    with pytest.raises(JupiterError, match="no outer-optimizer state"):
        load_outer_state(tmp_path / "missing.safetensors")
    (tmp_path / "junk").write_bytes(b"not safetensors")
    with pytest.raises(JupiterError, match="not a Jupiter outer-optimizer state"):
        load_outer_state(tmp_path / "junk")
