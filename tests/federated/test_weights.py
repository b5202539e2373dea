"""The base fingerprint every party checks (a copy agrees, another checkpoint of the same
architecture does not) and the travelling names of a LoRA model's weights."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import torch

from jupiter.config import LoraConfig
from jupiter.errors import JupiterError
from jupiter.federated.weights import digest, fingerprint, load_into, trainable
from tinyhf import save_tiny


def test_fingerprint_tells_a_copy_from_another_checkpoint(tmp_path: Path) -> None:
    a = save_tiny("llama", tmp_path / "a", seed=0)
    shutil.copytree(a, tmp_path / "copy")
    b = save_tiny("llama", tmp_path / "b", seed=1)  # same architecture, other weights
    assert fingerprint(a) == fingerprint(tmp_path / "copy")
    assert fingerprint(a) != fingerprint(b)
    with pytest.raises(JupiterError, match="config.json"):
        fingerprint(tmp_path)


def test_lora_weights_travel_by_their_saved_names(tmp_path: Path) -> None:
    from jupiter.models.loading import load_for_training

    base = save_tiny("llama", tmp_path / "base")
    lora = LoraConfig(r=2, alpha=4, dropout=0.0)
    model = load_for_training(base, "lora", lora, device=torch.device("cpu"))
    weights = trainable(model)
    assert len(weights) == 28 and all(".default." not in k for k in weights)
    assert all(".lora_A." in k or ".lora_B." in k for k in weights)
    moved = {k: v + 1.0 for k, v in weights.items()}
    load_into(model, moved)
    assert digest(trainable(model)) == digest(moved) != digest(weights)
    with pytest.raises(JupiterError, match="do not fit"):
        load_into(model, {next(iter(weights)): torch.zeros(3)})
