"""LoRA adapters as merge inputs: read as weight deltas, or concatenated to a higher rank.

An adapter changes each target weight W (out x in) by s * B @ A, with A (r x in), B
(out x r) and s = lora_alpha / r (lora_alpha / sqrt(r) with rsLoRA; Hu et al. 2021,
Kalajdzievski 2023). In delta space an adapter reads as the full model base + s B A, so
every merge method applies to adapters unchanged and the result is a full model.

Concatenation: the adapters' A stacked along the rank, and their B side by side, each
scaled by its coefficient c_i s_i, give one adapter of rank sum r_i whose delta is
sum_i c_i s_i B_i A_i exactly (with lora_alpha = rank, so its own scale is 1).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import save_file

from jupiter.errors import JupiterError
from jupiter.merge.shards import ModelWeights, TensorInfo, read_header, read_tensor
from jupiter.models.folder import ADAPTER_CONFIG

ADAPTER_WEIGHTS = "adapter_model.safetensors"
PREFIX = "base_model.model."


@dataclass(frozen=True)
class LoraTarget:
    """One adapted weight: its A and B in the adapter file and its scale."""

    module: str  # e.g. model.layers.0.self_attn.q_proj
    a: TensorInfo
    b: TensorInfo
    scale: float

    @property
    def rank(self) -> int:
        return self.a.shape[0]


def read_adapter_config(adapter_dir: Path) -> dict[str, Any]:
    path = adapter_dir / ADAPTER_CONFIG
    try:
        cfg: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise JupiterError(f"unreadable adapter config {path}: {e}") from None
    if cfg.get("peft_type", "LORA") != "LORA":
        raise JupiterError(
            f"{adapter_dir} is a {cfg.get('peft_type')} adapter: only LoRA "
            "adapters merge; merge it into its base first"
        )
    if cfg.get("use_dora") or cfg.get("alpha_pattern") or cfg.get("fan_in_fan_out"):
        raise JupiterError(
            f"{adapter_dir} uses DoRA, alpha_pattern or fan_in_fan_out, which "
            "jupiter merge does not read: merge it into its base first"
        )
    return cfg


def _targets(adapter_dir: Path, cfg: dict[str, Any]) -> dict[str, LoraTarget]:
    path = adapter_dir / ADAPTER_WEIGHTS
    if not path.is_file():
        raise JupiterError(
            f"{adapter_dir} has no {ADAPTER_WEIGHTS}: re-save the adapter "
            "with save_pretrained(safe_serialization=True)"
        )
    pairs: dict[str, dict[str, TensorInfo]] = {}
    for key, info in read_header(path).items():
        module, sep, part = key.removeprefix(PREFIX).rpartition(".lora_")
        if not sep or part not in ("A.weight", "B.weight"):
            raise JupiterError(
                f"{path}: tensor {key} is not a LoRA A/B weight (modules_to_save,"
                " embeddings and biases do not merge): merge it into its base "
                "first"
            )
        pairs.setdefault(module, {})[part[0]] = info
    alpha = float(cfg.get("lora_alpha", cfg.get("r", 8)))
    out: dict[str, LoraTarget] = {}
    for module, ab in pairs.items():
        if set(ab) != {"A", "B"}:
            raise JupiterError(f"{path}: {module} has lora_{next(iter(ab))} without its pair")
        r = ab["A"].shape[0]
        scale = alpha / math.sqrt(r) if cfg.get("use_rslora") else alpha / r
        out[f"{module}.weight"] = LoraTarget(module, ab["A"], ab["B"], scale)
    return out


class AdapterWeights:
    """An adapter read as the full model base + s B A, one tensor at a time."""

    def __init__(self, adapter_dir: Path, base: ModelWeights, label: str | None = None) -> None:
        self.dir = Path(adapter_dir)
        self.label = label or self.dir.name
        self.base = base
        self.config = read_adapter_config(self.dir)
        self.targets = _targets(self.dir, self.config)
        self.files = [self.dir / ADAPTER_WEIGHTS]
        for name, t in self.targets.items():
            if name not in base.tensors:
                raise JupiterError(
                    f"adapter {self.dir} adapts {name}, which the base "
                    f"{base.dir} lacks: give the base it was trained on"
                )
            want = base.shape(name)
            if (t.b.shape[0], t.a.shape[1]) != want or t.b.shape[1] != t.rank:
                raise JupiterError(
                    f"adapter {self.dir}: {t.module} has A {t.a.shape}, B "
                    f"{t.b.shape}, which do not fit the base weight {want}: "
                    "give the base it was trained on"
                )
        self.tensors = base.tensors

    def names(self) -> list[str]:
        return self.base.names()

    def shape(self, name: str) -> tuple[int, ...]:
        return self.base.shape(name)

    def dtype(self, name: str) -> torch.dtype:
        return self.base.dtype(name)

    def delta(self, name: str) -> torch.Tensor | None:
        """s B A in fp32, or None where the adapter leaves the weight alone."""
        t = self.targets.get(name)
        if t is None:
            return None
        a, b = read_tensor(t.a).to(torch.float32), read_tensor(t.b).to(torch.float32)
        return (b @ a).mul_(t.scale)

    def read(self, name: str) -> torch.Tensor:
        base = self.base.read(name)
        d = self.delta(name)
        return base if d is None else base.to(torch.float32) + d


def concat_adapters(
    adapters: Sequence[AdapterWeights], coefs: Sequence[float], base_path: Path, out: Path
) -> dict[str, int]:
    """Write one adapter of rank sum(r_i) whose delta is sum_i coefs[i] s_i B_i A_i, into
    `out` (adapter_config.json + adapter_model.safetensors). Targets an adapter lacks get
    zero blocks, so every target has the same rank. Returns the rank of each target."""
    targets = sorted({n for ad in adapters for n in ad.targets})
    ranks = [max((t.rank for t in ad.targets.values()), default=0) for ad in adapters]
    rank = sum(ranks)
    tensors: dict[str, torch.Tensor] = {}
    for name in targets:
        out_dim, in_dim = adapters[0].base.shape(name)
        a_parts, b_parts = [], []
        for ad, c, r in zip(adapters, coefs, ranks, strict=True):
            t = ad.targets.get(name)
            if t is None or t.rank != r:  # absent, or a smaller rank_pattern rank: pad
                a = torch.zeros(r, in_dim)
                b = torch.zeros(out_dim, r)
                if t is not None:
                    a[: t.rank] = read_tensor(t.a).to(torch.float32)
                    b[:, : t.rank] = read_tensor(t.b).to(torch.float32) * (c * t.scale)
            else:
                a = read_tensor(t.a).to(torch.float32)
                b = read_tensor(t.b).to(torch.float32) * (c * t.scale)
            a_parts.append(a)
            b_parts.append(b)
        module = name.removesuffix(".weight")
        tensors[f"{PREFIX}{module}.lora_A.weight"] = torch.cat(a_parts, dim=0).contiguous()
        tensors[f"{PREFIX}{module}.lora_B.weight"] = torch.cat(b_parts, dim=1).contiguous()
    cfg = dict(adapters[0].config)
    cfg.update(
        r=rank,
        lora_alpha=rank,
        use_rslora=False,
        rank_pattern={},
        alpha_pattern={},
        target_modules=[n.removesuffix(".weight") for n in targets],
        layers_to_transform=None,
        layers_pattern=None,
        base_model_name_or_path=str(base_path),
    )
    out.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(out / ADAPTER_WEIGHTS), metadata={"format": "pt"})
    (out / ADAPTER_CONFIG).write_text(json.dumps(cfg, indent=2), encoding="utf-8")
    return {n.removesuffix(".weight"): rank for n in targets}
