"""What the MLX loop decides before its first step, by setup.py's rules: the model for the
method (a seeded preset, an HF dir trained fully, LoRA on a frozen base, a LoRA adapter
continued) and the plan (micro-batch, accumulation, steps, activation checkpointing)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np

from jupiter.config import TrainConfig
from jupiter.data.dataset import PackedDataset
from jupiter.errors import JupiterError
from jupiter.train.mlx_model import (
    ModelSpec,
    add_lora,
    build_preset,
    flat,
    load_adapter,
    load_hf_dir,
)
from jupiter.train.plan import DataSize, Overrides, plan_training
from jupiter.train.setup import Plan


def build_model_for(
    cfg: TrainConfig, model_config: Any, model_dir: Path | None
) -> tuple[Any, ModelSpec]:
    """(model, spec): a seeded preset, or an HF dir / adapter dir loaded for cfg.method."""
    from jupiter.train.setup import split_adapter

    if (model_config is None) == (model_dir is None):
        raise JupiterError("a training run needs exactly one of model_config or model_dir")
    if cfg.method == "qlora":
        raise JupiterError(
            "train.method qlora is not supported by the MLX backend yet: use train.method"
            " lora, or train on the torch backend"
        )
    if model_config is not None:
        if cfg.method != "full":
            raise JupiterError(
                f"train.method {cfg.method} needs a base model: set model.base to an HF model "
                "dir (LoRA adapts a trained model; a from-scratch preset trains fully)"
            )
        return build_preset(model_config, cfg.seed)
    import mlx.core as mx

    assert model_dir is not None
    base, adapter = split_adapter(Path(model_dir), cfg.method)
    # Full fine-tuning keeps fp32 master weights; a frozen LoRA base stays in its stored
    # dtype (bf16 halves its memory on a Mac; adapters are fp32 either way).
    model, spec = load_hf_dir(base, mx.float32 if cfg.method == "full" else None)
    if cfg.method == "lora":
        add_lora(model, spec, cfg.lora, cfg.seed)
        if adapter is not None:
            load_adapter(model, adapter)
    return model, spec


def make_plan(
    cfg: TrainConfig,
    data: PackedDataset,
    model: Any,
    spec: ModelSpec,
    world: int,
    memory_gb: float | None,
    over: Overrides | None = None,
) -> Plan:
    """setup.make_plan's rules on the MLX model's counts (fp32, plain data parallel): the
    auto micro-batch from memory, then plan.py's plan."""
    from jupiter.models.memory import auto_batch, device_memory_gb

    over = over or Overrides()
    micro, grad_ckpt = over.micro_batch or cfg.micro_batch_size, cfg.gradient_checkpointing
    if micro == "auto" or grad_ckpt == "auto":
        import torch

        total = sum(v.size for v in flat(model.parameters()).values())
        trainable = sum(v.size for v in flat(model.trainable_parameters()).values())
        # the machine's RAM: Apple silicon's GPU shares it (unified memory)
        mem = cfg.memory_gb or memory_gb or device_memory_gb(torch.device("cpu"))
        c = spec.hf_config
        auto_micro, auto_ckpt = auto_batch(
            mem,
            total,
            trainable,
            cfg.method,
            context_length=data.context_length,
            hidden_size=c["hidden_size"],
            num_layers=c["num_hidden_layers"],
            vocab_size=c["vocab_size"],
            precision="fp32",
            grad_ckpt=None if grad_ckpt == "auto" else grad_ckpt,
        )
        micro = auto_micro if micro == "auto" else micro
        grad_ckpt = auto_ckpt if grad_ckpt == "auto" else grad_ckpt
    assert isinstance(micro, int) and isinstance(grad_ckpt, bool)
    steps = plan_training(
        cfg, DataSize.of(data), micro_batch=micro, world=world, launcher="mlx", over=over
    )
    return Plan(steps=steps, grad_ckpt=grad_ckpt, amp=None)


def seed_everything(seed: int) -> None:
    import mlx.core as mx

    random.seed(seed)
    np.random.seed(seed)
    mx.random.seed(seed)
