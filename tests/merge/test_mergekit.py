"""Agreement with mergekit (installed with the dev extra): the same recipe on the same tiny
Llama family gives the same tensors, max abs difference <= 1e-6 in fp32 (the weights are
~0.02-1 in size, so this is fp32 rounding: the two sum in different orders).

mergekit runs through its Python API (run_merge) on CPU, on local dirs only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
from mergefamily import read

from jupiter.merge.engine import merge_models
from jupiter.merge.recipe import parse_recipe

TOL = 1e-6


def run_mergekit(config: dict[str, Any], out: Path) -> dict[str, torch.Tensor]:
    pytest.importorskip("mergekit")
    from mergekit.config import MergeConfiguration
    from mergekit.merge import run_merge
    from mergekit.options import MergeOptions

    opts = MergeOptions(quiet=True, copy_tokenizer=False, write_model_card=False, device="cpu")
    run_merge(MergeConfiguration.model_validate({**config, "dtype": "float32"}), str(out), opts)
    return read(out)


def run_jupiter(recipe: dict[str, Any], out: Path) -> dict[str, torch.Tensor]:
    merge_models(
        parse_recipe({**recipe, "out": str(out)}), base_dir=None, cache_dir=out.parent / "cache"
    )
    return read(out)


def assert_same(ours: dict[str, torch.Tensor], theirs: dict[str, torch.Tensor]) -> float:
    assert set(ours) == set(theirs)
    worst = max(float((ours[k] - theirs[k]).abs().max()) for k in ours)
    assert worst <= TOL, worst
    assert all(ours[k].dtype == torch.float32 for k in ours)
    return worst


def mk_models(dirs: list[Path], weights: list[float] | None, **extra: float) -> list[dict]:
    out = []
    for i, d in enumerate(dirs):
        params = dict(extra)
        if weights is not None:
            params["weight"] = weights[i]
        out.append({"model": str(d), "parameters": params})
    return out


def our_models(dirs: list[Path], weights: list[float] | None) -> list[dict]:
    return [
        {"model": str(d), **({"weight": weights[i]} if weights else {})} for i, d in enumerate(dirs)
    ]


def test_linear_matches_mergekit(family: dict[str, Path], tmp_path: Path) -> None:
    dirs, w = [family["ft1"], family["ft2"], family["ft3"]], [0.6, 0.3, 0.1]
    theirs = run_mergekit({"merge_method": "linear", "models": mk_models(dirs, w)}, tmp_path / "mk")
    ours = run_jupiter({"method": "weighted", "models": our_models(dirs, w)}, tmp_path / "j")
    assert_same(ours, theirs)
    # and it is the weighted mean, by hand, on one tensor
    k = "model.layers.1.mlp.down_proj.weight"
    ins = [read(d)[k] for d in dirs]
    assert torch.allclose(ours[k], 0.6 * ins[0] + 0.3 * ins[1] + 0.1 * ins[2], atol=1e-6)


def test_task_arithmetic_matches_mergekit(family: dict[str, Path], tmp_path: Path) -> None:
    dirs, w = [family["ft1"], family["ft2"], family["ft3"]], [0.5, 0.3, 0.8]
    theirs = run_mergekit(
        {
            "merge_method": "task_arithmetic",
            "base_model": str(family["base"]),
            "models": mk_models(dirs, w),
            "parameters": {"lambda": 0.9},
        },
        tmp_path / "mk",
    )
    ours = run_jupiter(
        {
            "method": "task_arithmetic",
            "base": str(family["base"]),
            "models": our_models(dirs, w),
            "params": {"lambda": 0.9},
        },
        tmp_path / "j",
    )
    assert_same(ours, theirs)


def test_ties_matches_mergekit(family: dict[str, Path], tmp_path: Path) -> None:
    dirs, w = [family["ft1"], family["ft2"], family["ft3"]], [1.0, 0.5, 0.8]
    theirs = run_mergekit(
        {
            "merge_method": "ties",
            "base_model": str(family["base"]),
            "models": mk_models(dirs, w, density=0.4),
        },
        tmp_path / "mk",
    )
    ours = run_jupiter(
        {
            "method": "ties",
            "base": str(family["base"]),
            "models": our_models(dirs, w),
            "params": {"density": 0.4},
        },
        tmp_path / "j",
    )
    assert_same(ours, theirs)
    base = read(family["base"])
    k = "model.layers.0.self_attn.q_proj.weight"
    kept = (ours[k] != base[k]).float().mean()
    assert 0.4 <= kept <= 1.0  # the union of three 40% masks, less the sign disagreements


def test_slerp_matches_mergekit(family: dict[str, Path], tmp_path: Path) -> None:
    a, b = family["ft1"], family["ft2"]
    theirs = run_mergekit(
        {
            "merge_method": "slerp",
            "base_model": str(a),
            "models": [{"model": str(a)}, {"model": str(b)}],
            "parameters": {"t": 0.3},
        },
        tmp_path / "mk",
    )
    ours = run_jupiter(
        {"method": "slerp", "models": our_models([a, b], None), "params": {"t": 0.3}},
        tmp_path / "j",
    )
    assert_same(ours, theirs)
