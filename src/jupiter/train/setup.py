"""Everything decided before the first step: the model (scratch preset, fine-tuned base,
LoRA/QLoRA), the optimizer, precision, and the plan (micro-batch, accumulation, steps,
gradient checkpointing) from the config, the data and the device's memory."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from transformers import PreTrainedModel

from jupiter.config import TrainConfig
from jupiter.data.dataset import PackedDataset
from jupiter.errors import JupiterError
from jupiter.models.decode import cpu_runs_bf16
from jupiter.models.presets import build_model
from jupiter.train.dist import Dist
from jupiter.train.plan import DataSize, Overrides, TrainPlan, plan_training


def autocast_dtype(precision: str, device: torch.device) -> torch.dtype | None:
    """The autocast dtype: bf16 where the hardware does it natively, fp16 when asked, or
    None for fp32."""
    if precision == "fp32":
        return None
    if precision == "bf16":
        return torch.bfloat16
    if precision == "fp16":
        return torch.float16
    if device.type == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    if device.type == "cpu":
        return torch.bfloat16 if cpu_runs_bf16() else None
    return None


@dataclass(frozen=True)
class Plan:
    """The run's shape: the training plan (plan.py) and what the device decides."""

    steps: TrainPlan  # micro-batch, accumulation, steps, epochs, tokens and their notes
    grad_ckpt: bool
    amp: torch.dtype | None

    @property
    def micro_batch(self) -> int:
        return self.steps.micro_batch

    @property
    def grad_accum(self) -> int:
        return self.steps.grad_accum

    @property
    def world(self) -> int:
        return self.steps.world

    @property
    def max_steps(self) -> int:
        return self.steps.max_steps

    @property
    def epochs(self) -> float:
        return self.steps.epochs

    @property
    def global_micro(self) -> int:
        return self.steps.global_micro

    @property
    def global_batch(self) -> int:
        return self.steps.global_batch


def shape_of(model: PreTrainedModel) -> dict[str, int]:
    c = model.config
    text = getattr(c, "text_config", None) or c
    return {
        "hidden_size": int(text.hidden_size),
        "num_layers": int(text.num_hidden_layers),
        "vocab_size": int(text.vocab_size),
    }


def make_plan(
    cfg: TrainConfig,
    data: PackedDataset,
    model: PreTrainedModel,
    d: Dist,
    memory_gb: float | None,
    over: Overrides | None = None,
) -> Plan:
    """The auto micro-batch and checkpointing from the device's memory, then plan.py's
    plan over `data` on d.world processes."""
    from jupiter.models.loading import trainable_parameters
    from jupiter.models.memory import auto_batch, device_memory_gb

    over = over or Overrides()
    precision = over.precision or cfg.precision
    amp = autocast_dtype(precision, d.device)
    trainable, total = trainable_parameters(model)
    shards = d.world if cfg.distributed in ("fsdp", "deepspeed") else 1
    micro = over.micro_batch or cfg.micro_batch_size
    ckpt = cfg.gradient_checkpointing
    if micro == "auto" or ckpt == "auto":
        mem = cfg.memory_gb or memory_gb or device_memory_gb(d.device)
        auto_micro, auto_ckpt = auto_batch(
            mem,
            total,
            trainable,
            cfg.method,
            context_length=data.context_length,
            shards=shards,
            precision="fp32" if amp is None else "bf16",
            grad_ckpt=None if ckpt == "auto" else ckpt,
            **shape_of(model),
        )
        micro = auto_micro if micro == "auto" else micro
        ckpt = auto_ckpt if ckpt == "auto" else ckpt
    assert isinstance(micro, int) and isinstance(ckpt, bool)
    steps = plan_training(
        cfg,
        DataSize.of(data),
        micro_batch=micro,
        world=d.world,
        launcher="local" if d.world == 1 else "torchrun",
        over=over,
    )
    return Plan(steps=steps, grad_ckpt=ckpt, amp=amp)


def split_adapter(model_dir: Path, method: str) -> tuple[Path, Path | None]:
    """(base dir, adapter dir or None): a LoRA adapter dir continues on its base, with its
    adapter weights; full training refuses one (both backends)."""
    from jupiter.models.folder import is_adapter_dir
    from jupiter.models.loading import adapter_base

    if not is_adapter_dir(model_dir):
        return model_dir, None
    if method == "full":
        raise JupiterError(
            f"{model_dir} is a LoRA adapter: continue it with train.method lora, or merge "
            "it first (jupiter export) to train fully"
        )
    return adapter_base(model_dir), model_dir


def build_model_for(
    cfg: TrainConfig,
    model_config: Any,
    model_dir: Path | None,
    d: Dist,
    attention: str,
    precision: str | None = None,
) -> PreTrainedModel:
    """A fresh preset (fp32, seeded) or an HF dir / adapter dir loaded for `cfg.method`
    (`precision`: the run's, when a device fallback replaced the config's)."""
    if (model_config is None) == (model_dir is None):
        raise JupiterError("a training run needs exactly one of model_config or model_dir")
    if model_config is not None:
        if cfg.method != "full":
            raise JupiterError(
                f"train.method {cfg.method} needs a base model: set model.base to an HF model "
                "dir (LoRA adapts a trained model; a from-scratch preset trains fully)"
            )
        fresh: PreTrainedModel = build_model(model_config, cfg.seed)
        return fresh.to(d.device)  # type: ignore[arg-type,no-any-return]
    from jupiter.models.loading import load_adapter_weights, load_for_training

    assert model_dir is not None
    base_dir, adapter = split_adapter(Path(model_dir), cfg.method)
    # A frozen base is stored in bf16 wherever the steps compute in bf16 anyway (CUDA, and
    # CPUs with native bf16): half the memory and no per-step casts of the weights. The
    # adapters stay fp32. With precision fp32 the base stays fp32 (exact).
    amp = autocast_dtype(precision or cfg.precision, d.device)
    frozen_bf16 = cfg.method != "full" and amp == torch.bfloat16
    base_dtype = torch.bfloat16 if frozen_bf16 else torch.float32
    torch.manual_seed(cfg.seed)  # LoRA's A matrices start from the global generator
    model = load_for_training(
        base_dir,
        cfg.method,
        cfg.lora,
        attention=attention,
        device=d.device,
        base_dtype=base_dtype,
        seed=cfg.seed,
    )
    if adapter is not None:
        load_adapter_weights(model, adapter)
    return model


def enable_checkpointing(model: PreTrainedModel) -> None:
    """Recompute each layer's activations in the backward (non-reentrant, so frozen inputs
    under LoRA still get gradients)."""
    kwargs = {"use_reentrant": False}
    if hasattr(model, "activation_checkpointing_enable"):  # the name in transformers 5
        model.activation_checkpointing_enable(activation_checkpointing_kwargs=kwargs)
    else:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs=kwargs)
    if hasattr(model, "enable_input_require_grads"):
        model.enable_input_require_grads()


def build_optimizer(
    model: torch.nn.Module, cfg: TrainConfig, device: torch.device, lr: float | None = None
) -> Any:
    """AdamW; weight decay on matrices only, not on norms, biases or embeddings (`lr`: the
    run's, when a curriculum level sets its own)."""
    decay: list[torch.nn.Parameter] = []
    no_decay: list[torch.nn.Parameter] = []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        (decay if p.dim() >= 2 and "embed" not in name else no_decay).append(p)
    if not decay and not no_decay:
        raise JupiterError("the model has no trainable parameters")
    groups = [
        {"params": decay, "weight_decay": cfg.weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]
    fused = device.type == "cuda"  # one kernel for the whole update on GPU
    betas = (cfg.beta1, cfg.beta2)
    return torch.optim.AdamW(groups, lr=lr or cfg.lr, betas=betas, eps=1e-8, fused=fused)
