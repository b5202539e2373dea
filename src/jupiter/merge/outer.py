"""DiLoCo's outer optimizer (Douillard et al. 2023): the aggregated pseudo-gradient
(global minus local weights) is treated as a gradient and applied to the global weights with
SGD + Nesterov momentum, lr 0.7, momentum 0.9 (the paper's values). Plain weight averaging
is the same step with lr 1 and no momentum: w - mean(w - local_i) = mean(local_i).

The state is a dict of fp32 momentum buffers by parameter name, so it persists through
safetensors like any weights (no pickle).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load as st_load
from safetensors.torch import save as st_save

from jupiter.atomic import write_bytes
from jupiter.config import SyncConfig
from jupiter.errors import JupiterError


def pseudo_gradient(
    global_weights: Mapping[str, torch.Tensor], local_weights: Mapping[str, torch.Tensor]
) -> dict[str, torch.Tensor]:
    """global - local, in fp32: what an island publishes after its inner steps."""
    _same_names(global_weights, local_weights, "local weights")
    return {
        k: global_weights[k].to(torch.float32) - local_weights[k].to(torch.float32)
        for k in global_weights
    }


def _same_names(a: Mapping[str, torch.Tensor], b: Mapping[str, torch.Tensor], what: str) -> None:
    if set(a) != set(b):
        missing, extra = sorted(set(a) - set(b))[:3], sorted(set(b) - set(a))[:3]
        raise JupiterError(
            f"outer step: {what} do not match the global weights (missing {missing}, "
            f"extra {extra}); every island must train the same model"
        )


def outer_step(
    global_weights: Mapping[str, torch.Tensor],
    pseudo_grad: Mapping[str, torch.Tensor],
    momentum: Mapping[str, torch.Tensor] | None,
    lr: float,
    mu: float,
    nesterov: bool = True,
) -> tuple[dict[str, torch.Tensor], dict[str, torch.Tensor]]:
    """One outer SGD step, op for op what torch.optim.SGD(lr, momentum=mu, nesterov) does
    with `pseudo_grad` as the gradient: v = g on the first step, then v = mu*v + g;
    update = g + mu*v (Nesterov) or v; w -= lr * update. Inputs are left untouched.
    Returns (new global weights, new momentum buffers); with mu = 0 there are no buffers."""
    _same_names(global_weights, pseudo_grad, "pseudo-gradient names")
    momentum = momentum or {}
    new_w: dict[str, torch.Tensor] = {}
    new_v: dict[str, torch.Tensor] = {}
    for name, w in global_weights.items():
        g = pseudo_grad[name].to(torch.float32)
        if mu != 0:
            prev = momentum.get(name)
            v = g.clone() if prev is None else prev.to(torch.float32).mul(mu).add_(g)
            new_v[name] = v
            g = g.add(v, alpha=mu) if nesterov else v
        new_w[name] = w.to(torch.float32).clone().add_(g, alpha=-lr)
    return new_w, new_v


@dataclass
class OuterOptimizer:
    """The outer loop's state across rounds: hyper-parameters, momentum buffers, step count."""

    lr: float = 0.7
    momentum: float = 0.9
    nesterov: bool = True
    buffers: dict[str, torch.Tensor] = field(default_factory=dict)
    steps: int = 0

    @classmethod
    def from_config(cls, sync: SyncConfig) -> OuterOptimizer:
        if sync.outer == "average":
            return cls(lr=1.0, momentum=0.0, nesterov=False)
        return cls(lr=sync.outer_lr, momentum=sync.outer_momentum, nesterov=True)

    def step(
        self, global_weights: Mapping[str, torch.Tensor], pseudo_grad: Mapping[str, torch.Tensor]
    ) -> dict[str, torch.Tensor]:
        """Apply one aggregated pseudo-gradient; returns the next global weights."""
        new_w, self.buffers = outer_step(
            global_weights, pseudo_grad, self.buffers, self.lr, self.momentum, self.nesterov
        )
        self.steps += 1
        return new_w

    def to_bytes(self) -> bytes:
        """safetensors bytes: the buffers as tensors, the rest as metadata."""
        meta = {
            "format": "jupiter-outer-v1",
            "lr": repr(self.lr),
            "momentum": repr(self.momentum),
            "nesterov": str(self.nesterov).lower(),
            "steps": str(self.steps),
        }
        return st_save({k: v.contiguous() for k, v in self.buffers.items()}, metadata=meta)

    @classmethod
    def from_bytes(cls, data: bytes, source: str = "outer state") -> OuterOptimizer:
        try:
            buffers = st_load(data)
            meta = _metadata(data)
            return cls(
                lr=float(meta["lr"]),
                momentum=float(meta["momentum"]),
                nesterov=meta["nesterov"] == "true",
                buffers=buffers,
                steps=int(meta["steps"]),
            )
        except (SafetensorError, KeyError, ValueError) as e:
            raise JupiterError(
                f"{source} is not a Jupiter outer-optimizer state ({e}); delete it to restart "
                "the outer momentum from zero"
            ) from e


def _metadata(data: bytes) -> dict[str, str]:
    """The safetensors header's __metadata__ (safetensors.torch.load drops it)."""
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8 : 8 + n])
    meta: dict[str, str] = header.get("__metadata__") or {}
    return meta


def save_outer_state(path: Path, optimizer: OuterOptimizer) -> Path:
    """Written whole or not at all (temp file + rename)."""
    return write_bytes(Path(path), optimizer.to_bytes())


def load_outer_state(path: Path) -> OuterOptimizer:
    path = Path(path)
    if not path.is_file():
        raise JupiterError(f"no outer-optimizer state at {path}; start without --resume")
    return OuterOptimizer.from_bytes(path.read_bytes(), source=str(path))
