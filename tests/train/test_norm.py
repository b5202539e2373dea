"""The input-saving RMSNorm (train/norm.py): the same forward bit for bit, the same gradients
within rounding, less saved memory, unknown norms left alone, and the loop applies it."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import torch
from test_finetune import make_run

from jupiter.train.norm import fuse_rms_norms, rms_norm, variant_of
from jupiter.train.trainer import train
from tinyhf import tiny_config


def family_model(family: str) -> Any:
    from transformers import (
        Gemma3ForCausalLM,
        Gemma3TextConfig,
        LlamaForCausalLM,
        Qwen2ForCausalLM,
    )

    torch.manual_seed(0)
    if family == "gemma3":
        cfg = Gemma3TextConfig(
            vocab_size=97,
            hidden_size=64,
            intermediate_size=128,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            head_dim=16,
            max_position_embeddings=128,
            sliding_window=64,
            tie_word_embeddings=False,
        )
        model = Gemma3ForCausalLM(cfg)
    else:
        cls = {"llama": LlamaForCausalLM, "qwen2": Qwen2ForCausalLM}[family]
        model = cls(tiny_config(family, 97))  # type: ignore[arg-type]
    with torch.no_grad():  # norms start at 1 (llama) or 0 (gemma): make them tell apart
        for name, p in model.named_parameters():
            if "norm" in name:
                p.copy_(torch.randn_like(p) * 0.3 + (0.0 if family == "gemma3" else 1.0))
    return model.eval()


# per family: norms a layer x 2 layers + the final one (Gemma 3: 4 + query + key norms)
NORMS = {"llama": 5, "qwen2": 5, "gemma3": 13}


def grads_of(model: Any, ids: torch.Tensor) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    model.zero_grad()
    logits = model(input_ids=ids).logits
    (logits.float() * torch.linspace(-1, 1, logits.shape[-1])).sum().backward()
    return logits.detach(), {
        n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None
    }


@pytest.mark.parametrize("family", ["llama", "qwen2", "gemma3"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_same_forward_bit_for_bit_and_same_gradients(family: str, dtype: torch.dtype) -> None:
    ref = family_model(family).to(dtype)
    fused = copy.deepcopy(ref)
    assert fuse_rms_norms(fused) == NORMS[family]
    assert fuse_rms_norms(fused) == 0  # once is enough: already patched
    ids = torch.randint(0, 97, (2, 24), generator=torch.Generator().manual_seed(1))
    want_logits, want = grads_of(ref, ids)
    got_logits, got = grads_of(fused, ids)
    assert torch.equal(got_logits, want_logits)
    assert got.keys() == want.keys() and len(got) > 20  # norm weights included
    for name, g in got.items():
        ref_g = want[name].float()
        err = float((g.float() - ref_g).norm() / ref_g.norm().clamp_min(1e-12))
        # fp32: the same math in another order; bf16: the same rounding points, but
        # gradients summed in fp32 before one rounding where autograd rounds per op
        assert err <= (1e-5 if dtype == torch.float32 else 2e-2), (name, err)


def saved_bytes(fn: Any, x: torch.Tensor, weight: torch.Tensor) -> int:
    total = 0

    def pack(t: torch.Tensor) -> torch.Tensor:
        nonlocal total
        if t is not weight:
            total += t.numel() * t.element_size()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        fn(x)
    return total


def test_saves_the_bf16_input_not_fp32_copies() -> None:
    from transformers.models.gemma3.modeling_gemma3 import Gemma3RMSNorm

    norm = Gemma3RMSNorm(640).to(torch.bfloat16)
    x = torch.randn(4, 256, 640, dtype=torch.bfloat16, requires_grad=True)
    before = saved_bytes(norm, x, norm.weight)
    assert fuse_rms_norms(norm) == 1
    after = saved_bytes(norm, x, norm.weight)
    rows = 4 * 256
    assert after == rows * 640 * 2 + rows * 4  # the bf16 input and one fp32 rstd per row
    assert before >= rows * 640 * 4  # at least the fp32 copy of the input
    assert after < 0.51 * before


def test_unknown_norms_are_left_alone() -> None:
    class OddRMSNorm(torch.nn.Module):  # RMS over the mean absolute value: no convention
        def __init__(self) -> None:
            super().__init__()
            self.weight = torch.nn.Parameter(torch.ones(8))
            self.eps = 1e-6

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.weight * x / (x.abs().mean(-1, keepdim=True) + self.eps)

    class NoEpsRMSNorm(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.weight = torch.nn.Parameter(torch.ones(8))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.weight * x

    model = torch.nn.Sequential(OddRMSNorm(), NoEpsRMSNorm())
    assert variant_of(model[0]) is None and variant_of(model[1]) is None
    assert fuse_rms_norms(model) == 0
    x = torch.randn(3, 8)
    assert torch.equal(model(x), model[1](model[0](x)))
    with pytest.raises(ValueError, match="unknown RMSNorm variant"):
        rms_norm(x, model[0].weight, 1e-6, "t5")


def test_the_loop_fuses_the_norms_and_the_losses_do_not_move(
    tiny_model_dirs: dict[str, Path], tmp_path: Path
) -> None:
    from jupiter.train.loop import start

    on = make_run(tiny_model_dirs["llama"], tmp_path / "on", method="full")
    off = make_run(tiny_model_dirs["llama"], tmp_path / "off", method="full", fused_norm=False)
    patched = [m for m in start(on).model.modules() if hasattr(m, "_jupiter_norm")]
    assert len(patched) == 5
    assert not any(hasattr(m, "_jupiter_norm") for m in start(off).model.modules())
    a, b = train(on), train(off)
    assert len(a.losses) == 3
    assert a.losses == pytest.approx(b.losses, abs=1e-5)
