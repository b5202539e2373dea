"""A family of tiny random Llama models of one base: the base and perturbed "fine-tunes"
(base + small noise, each its own seed), as HF dirs on disk."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file

from tinyhf import save_tiny


def perturbed(base: Path, out: Path, seed: int, scale: float = 0.02) -> Path:
    """A copy of `base` whose every float tensor gets scale * N(0, 1) noise: a stand-in for a
    fine-tune of the base (its task vector is the noise)."""
    shutil.copytree(base, out)
    gen = torch.Generator().manual_seed(seed)
    weights = load_file(str(base / "model.safetensors"))
    new = {k: v + scale * torch.randn(v.shape, generator=gen) for k, v in weights.items()}
    save_file(new, str(out / "model.safetensors"), metadata={"format": "pt"})
    return out


@pytest.fixture(scope="session")
def family(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """base, ft1, ft2, ft3: one tiny Llama (2 layers, hidden 64) and three fine-tunes."""
    root = tmp_path_factory.mktemp("merge-family")
    base = save_tiny("llama", root / "base", seed=0)
    out = {"base": base}
    for i in (1, 2, 3):
        out[f"ft{i}"] = perturbed(base, root / f"ft{i}", seed=i)
    return out


def read(model_dir: Path) -> dict[str, torch.Tensor]:
    """Every tensor of a model dir (one or several safetensors files)."""
    out: dict[str, torch.Tensor] = {}
    for f in sorted(model_dir.glob("*.safetensors")):
        out.update(load_file(str(f)))
    return out
