"""LoRA's dropout on the CPU (models/lora_dropout.py): the same Bernoulli dropout, the
adapter input's dtype as PEFT gave it, and the model unchanged where dropout is off."""

from __future__ import annotations

from pathlib import Path

import torch

from jupiter.config import LoraConfig
from jupiter.models.loading import load_for_training
from jupiter.models.lora_dropout import AdapterDropout


def test_drops_a_share_p_and_scales_the_rest_so_the_mean_is_kept() -> None:
    torch.manual_seed(0)
    d = AdapterDropout(0.25, torch.float32).train()
    x = torch.ones(400_000, requires_grad=True)
    y = d(x)
    dropped = (y == 0).float().mean().item()
    assert abs(dropped - 0.25) < 0.004  # 400k draws: 3 sd of the share is 0.002
    kept = y[y != 0]
    assert torch.all(kept == d.scale) and d.scale == 2**15 / (2**15 - 8192)
    assert abs(y.mean().item() - 1.0) < 0.01
    y.sum().backward()  # the gradient is the same mask, scaled
    assert torch.equal(x.grad, (y != 0).float() * d.scale)


def test_the_mask_follows_the_seed_and_eval_mode_drops_nothing() -> None:
    d = AdapterDropout(0.1, torch.float32).train()
    x = torch.randn(3, 50, 64)
    torch.manual_seed(7)
    a = d(x)
    torch.manual_seed(7)
    b = d(x)
    torch.manual_seed(8)
    c = d(x)
    assert torch.equal(a, b) and not torch.equal(a, c)
    assert torch.equal(d.eval()(x), x)


def test_the_input_keeps_autocasts_dtype_and_takes_the_adapters_without_it() -> None:
    d = AdapterDropout(0.05, torch.float32).train()
    x = torch.randn(8, 32, dtype=torch.bfloat16)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert d(x).dtype == torch.bfloat16  # the adapter's matmul casts to bf16 anyway
    assert d(x).dtype == torch.float32  # as PEFT's cast gave it, outside autocast
    assert AdapterDropout(0.0, torch.float32).train()(x).dtype == torch.float32


def test_a_lora_model_takes_it_everywhere_and_computes_the_same(
    tiny_model_dirs: dict[str, Path],
) -> None:
    torch.manual_seed(0)
    model = load_for_training(
        tiny_model_dirs["llama"],
        "lora",
        LoraConfig(r=4, alpha=8, dropout=0.1),
        device=torch.device("cpu"),
    )
    layers = [m for m in model.modules() if hasattr(m, "lora_dropout")]
    assert layers
    for m in layers:
        assert isinstance(m.lora_dropout["default"], AdapterDropout)
        assert m.lora_dropout["default"].p == 0.1 and not m.cast_input_dtype_enabled
    # B starts at zero: give the adapters weight, then the eval-mode output (no dropout)
    # equals the plain sum base + B A x * scaling computed by hand on one projection
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.normal_(0, 0.1)
    model.eval()
    proj = layers[0]
    x = torch.randn(2, 5, proj.in_features)
    lora_a, lora_b = proj.lora_A["default"].weight, proj.lora_B["default"].weight
    want = proj.base_layer(x) + x @ lora_a.t() @ lora_b.t() * proj.scaling["default"]
    assert torch.allclose(proj(x), want, atol=1e-6)
    # and a training step runs in bf16 autocast with the adapters' grads in fp32
    model.train()
    ids = torch.randint(0, 100, (2, 16))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    grads = [p.grad for n, p in model.named_parameters() if "lora_" in n and p.requires_grad]
    assert grads and all(g is not None and g.dtype == torch.float32 for g in grads)
    assert any(g.abs().sum() > 0 for g in grads)
