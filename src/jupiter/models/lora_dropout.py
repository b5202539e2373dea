"""LoRA's dropout, cheap on the CPU.

PEFT casts each adapter's input to the adapter's dtype (fp32) and runs it through the
adapter's own `nn.Dropout`. On the CPU both cost more than the adapter's matmuls: on Gemma
3 270M (LoRA r 16 on its 7 projections, 4 x 256 tokens, bf16 autocast, 2 cores) the
Bernoulli masks took 0.85 s of a 4.5 s micro-batch, dtype copies 0.57 s (PEFT's casts among
them); the low-rank matmuls about 0.1 s.

`AdapterDropout` takes the dropout's place and PEFT's cast is turned off: the input stays
in the autocast dtype while autocast is on (the adapter's matmul would cast it there
anyway) and is cast to the adapter's dtype otherwise, as PEFT did. On the CPU the mask
comes from 15 random bits an element, half of one int32 draw, kept where the bits are at
least round(p * 2^15): Bernoulli(1 - p) with p rounded to a multiple of 1/32768, the kept
values scaled by 1 / (1 - that p), so the expectation is kept exactly. Other devices take `F.dropout`, which is fast there.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

BITS = 15  # of each 16-bit half of int32 draws (random_() fills int32 with 31 bits)
MASK = 2**BITS - 1


class AdapterDropout(nn.Module):
    """Dropout with probability `p` of an adapter whose weights are in `dtype`."""

    def __init__(self, p: float, dtype: torch.dtype) -> None:
        super().__init__()
        self.p, self.dtype = p, dtype
        self.cut = round(p * 2**BITS)  # drawn values below it are dropped
        self.scale = 2**BITS / (2**BITS - self.cut)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dtype != self.dtype and not torch.is_autocast_enabled(x.device.type):
            x = x.to(self.dtype)
        if not self.training or self.cut == 0:
            return x
        if x.device.type != "cpu":
            return F.dropout(x, self.p, training=True)
        # random_() over int32's whole range is ~5x faster here than bernoulli_ or a bounded
        # random_: one draw gives two 16-bit halves, each masked to 15 uniform bits
        n = x.numel()
        draws = torch.empty((n + 1) // 2, dtype=torch.int32, device=x.device).random_()
        bits = draws.view(torch.int16)[:n].view(x.shape).bitwise_and_(MASK)
        return torch.where(bits >= self.cut, x * self.scale, 0.0)

    def extra_repr(self) -> str:
        return f"p={self.p}, dtype={self.dtype}"


def use_adapter_dropout(model: Any) -> int:
    """Every LoRA layer of PEFT model `model` with AdapterDropout and without PEFT's input
    cast (layers with a variant, DoRA's, are left as they are); how many layers."""
    n = 0
    for module in model.modules():
        drops = getattr(module, "lora_dropout", None)
        if not isinstance(drops, nn.ModuleDict) or getattr(module, "lora_variant", None):
            continue
        for name, old in list(drops.items()):
            p = float(old.p) if isinstance(old, nn.Dropout) else 0.0
            drops[name] = AdapterDropout(p, module.lora_A[name].weight.dtype)
        module.cast_input_dtype_enabled = False
        n += 1
    return n
