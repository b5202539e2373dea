"""Memory-aware defaults: how much a training step needs, and the micro-batch that fits.

"GB" here is GiB (2**30 bytes), the unit GPU memory is sold in (a "24 GB" card has 24 GiB).

The estimate is the sum of four parts:
- weights: fp32 master weights for full (plus autocast's bf16 copy of each one), a frozen
  16-bit base for LoRA, NF4 for QLoRA;
- gradients: fp32, one per trainable parameter;
- optimizer: AdamW's two fp32 moments per trainable parameter;
- activations: what the forward keeps for the backward, per token per layer, plus the logits.
"""

from __future__ import annotations

import ctypes
import functools
import gc
import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from jupiter.errors import JupiterError

if TYPE_CHECKING:  # torch is imported only where a device is asked about: a light module
    import torch

Method = Literal["full", "lora", "qlora"]

GiB = float(1 << 30)
METHODS: tuple[Method, ...] = ("full", "lora", "qlora")

# Bytes per weight.
MASTER_BYTES = 4.0  # fp32 master weights of full fine-tuning
# torch.autocast caches its bf16 copy of every trainable weight for the whole forward, and
# the backward keeps them: 2 more bytes per weight for full fine-tuning in bf16/fp16.
AUTOCAST_COPY_BYTES = 2.0
# NF4 with double quantization costs 4.127 bits per weight (Dettmers et al. 2023, "QLoRA",
# section 3) = 0.516 B; rounded up for the bf16 copy of one layer dequantized at a time.
NF4_BYTES = 0.55
GRAD_BYTES = 4.0  # fp32 gradients
ADAM_BYTES = 8.0  # AdamW's exp_avg + exp_avg_sq in fp32

# Activations kept for the backward, in bytes per token per layer per hidden unit (x s·b·h),
# with bf16 autocast. Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large
# Transformer Models", eq. 1) count s·b·h·(34 + 5·a·s/h) for GPT; sdpa/flash attention never
# store the a·s² scores, which removes the 5·a·s/h term. Hugging Face Llama/Mistral/Qwen2 keep
# more than GPT's 34: RMSNorm computes in fp32 and SwiGLU keeps three 3.5h-wide tensors. PEFT
# casts each adapter's input to fp32 and LoRA dropout keeps one more copy. The numbers below
# were measured with torch.autograd.graph.saved_tensors_hooks on a Llama layer (h 512, MLP
# 3.5h, GQA 4:1, sdpa; transformers 5.23, peft 0.21, LoRA dropout 0.05): full 59, lora 95,
# qlora 116 (its norms are upcast to fp32), rounded up.
ACT_COEFF: dict[Method, float] = {"full": 60.0, "lora": 96.0, "qlora": 116.0}
FP32_ACT_FACTOR = 1.5  # measured the same way without autocast: full 90, lora 140
# With checkpointing only each layer's input stays (the fp32 residual stream: 4 B per
# s·b·h), and one layer at a time is recomputed with its full activations.
CKPT_INPUT_BYTES = 4.0
# Per logit (micro_batch × context × vocab): the 16-bit logits, the fp32 copy and
# log-softmax the loss keeps (10 B measured as above), plus the fp32 gradient in the backward.
LOGIT_BYTES = 14.0
BATCHES = (64, 32, 16, 8, 4, 2, 1)


@dataclass(frozen=True)
class MemoryEstimate:
    weights_gb: float
    grads_gb: float
    optimizer_gb: float
    activations_gb: float

    @property
    def total_gb(self) -> float:
        return self.weights_gb + self.grads_gb + self.optimizer_gb + self.activations_gb


def _weight_bytes(
    n_params: int, method: Method, hidden: int, vocab: int, half: bool, shards: int
) -> float:
    if method == "full":
        return n_params * (MASTER_BYTES + (AUTOCAST_COPY_BYTES if half else 0.0)) / shards
    if method == "lora":
        return n_params * (2.0 if half else 4.0)
    # bitsandbytes quantizes the linear layers only; the embeddings and the output head stay
    # unquantized and peft's prepare_model_for_kbit_training upcasts them to fp32.
    embed = min(n_params, 2 * vocab * hidden)
    return (n_params - embed) * NF4_BYTES + embed * 4.0


def estimate_memory(
    n_params: int,
    trainable: int,
    method: Method,
    *,
    micro_batch: int,
    context_length: int,
    hidden_size: int,
    num_layers: int,
    vocab_size: int,
    grad_ckpt: bool,
    precision: str = "bf16",
    shards: int = 1,
) -> MemoryEstimate:
    """Peak memory of one training step on one device. `shards` is the FSDP/ZeRO world size,
    which splits the fp32 gradients and optimizer state (and full fine-tuning's weights)."""
    if method not in METHODS:
        raise JupiterError(f"unknown train.method '{method}': choose full, lora or qlora")
    shards = max(1, shards)
    half = precision != "fp32"
    weights = _weight_bytes(n_params, method, hidden_size, vocab_size, half, shards)
    tokens_h = micro_batch * context_length * hidden_size
    per_layer = ACT_COEFF[method] * (1.0 if half else FP32_ACT_FACTOR) * tokens_h
    if grad_ckpt:
        layers = num_layers * CKPT_INPUT_BYTES * tokens_h + per_layer
    else:
        layers = num_layers * per_layer
    logits = LOGIT_BYTES * micro_batch * context_length * vocab_size
    return MemoryEstimate(
        weights_gb=weights / GiB,
        grads_gb=trainable * GRAD_BYTES / shards / GiB,
        optimizer_gb=trainable * ADAM_BYTES / shards / GiB,
        activations_gb=(layers + logits) / GiB,
    )


def auto_batch(
    memory_gb: float,
    n_params: int,
    trainable: int,
    method: Method,
    *,
    context_length: int,
    hidden_size: int,
    num_layers: int,
    vocab_size: int,
    shards: int = 1,
    headroom: float = 0.8,
    precision: str = "bf16",
    grad_ckpt: bool | None = None,
) -> tuple[int, bool]:
    """(micro_batch, gradient_checkpointing): the largest power-of-two micro-batch up to 64
    that fits in headroom × memory_gb, without checkpointing when batch 1 fits without it.

    `grad_ckpt` None decides; True or False (the user's setting) is kept as given.
    """

    def estimate(micro_batch: int, ckpt: bool) -> MemoryEstimate:
        return estimate_memory(
            n_params,
            trainable,
            method,
            micro_batch=micro_batch,
            context_length=context_length,
            hidden_size=hidden_size,
            num_layers=num_layers,
            vocab_size=vocab_size,
            grad_ckpt=ckpt,
            precision=precision,
            shards=shards,
        )

    choices = (False, True) if grad_ckpt is None else (grad_ckpt,)
    for ckpt in choices:
        for mb in BATCHES:
            if estimate(mb, ckpt).total_gb <= headroom * memory_gb:
                return mb, ckpt
    est = estimate(1, choices[-1])
    cheaper = {"full": " use train.method: lora or qlora,", "lora": " use train.method: qlora,"}
    raise JupiterError(
        f"{method} training of a {n_params / 1e9:.2f}B-parameter model does not fit: it needs"
        f" about {est.total_gb:.1f} GB at micro-batch 1"
        f"{' with gradient checkpointing' if choices[-1] else ''}, more than"
        f" {headroom:.0%} of {memory_gb:.1f} GB: pick a smaller model.preset,"
        f"{cheaper.get(method, '')} shorten model.context_length, or run more processes with"
        " train.distributed: fsdp"
    )


def device_memory_gb(device: torch.device) -> float:
    """Total memory of a CUDA device, else the machine's physical RAM (Apple unified memory)."""
    if device.type == "cuda":
        import torch

        return torch.cuda.get_device_properties(device).total_memory / GiB
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / GiB
    except (AttributeError, ValueError, OSError):
        raise JupiterError(
            "cannot read this machine's memory size: set train.memory_gb in the domain YAML"
        ) from None


@dataclass(frozen=True)
class SizePreset:
    """A published model shape, for sizing tables and recommended fine-tuning settings."""

    name: str
    n_params: int
    hidden_size: int
    num_layers: int
    vocab_size: int
    lora_r: int
    lora_alpha: int
    method: Method
    intermediate_size: int  # the SwiGLU MLP width
    kv_dim: int  # key/value heads × head dim (grouped-query attention)

    @property
    def lora_params(self) -> int:
        """Trainable LoRA parameters on q/k/v/o/gate/up/down: r × (in + out) per projection."""
        h, i, kv = self.hidden_size, self.intermediate_size, self.kv_dim
        widths = (h + h) * 2 + (h + kv) * 2 + (h + i) * 3  # q, o; k, v; gate, up, down
        return self.num_layers * self.lora_r * widths

    def trainable(self, method: Method) -> int:
        return self.n_params if method == "full" else self.lora_params


def dense_params(
    hidden: int, intermediate: int, layers: int, kv_dim: int, vocab: int, tied: bool
) -> int:
    """Parameters of a Llama-style decoder (no biases, two RMSNorms per layer)."""
    layer = 2 * hidden * hidden + 2 * hidden * kv_dim + 3 * hidden * intermediate + 2 * hidden
    return layers * layer + vocab * hidden * (1 if tied else 2) + hidden


def _preset(
    name: str, shape: tuple[int, int, int, int, int, bool], r: int, alpha: int, method: Method
) -> SizePreset:
    hidden, inter, layers, kv_dim, vocab, tied = shape
    n = dense_params(hidden, inter, layers, kv_dim, vocab, tied)
    return SizePreset(name, n, hidden, layers, vocab, r, alpha, method, inter, kv_dim)


# Shapes (hidden, MLP, layers, kv dim, vocab, tied) of published models: Llama-3.2-1B
# (1.24B), Mistral-7B-v0.1 (7.24B), InternLM2-20B (19.9B), Mistral-Large-2407 (123B dense).
# Methods: full fits a 1B on one 40 GB+ GPU; LoRA a 7B on 24-48 GB; QLoRA, whose paper
# (Dettmers et al. 2023) fits 65B on one 48 GB GPU, the two large ones. r 64, alpha 128 is
# Jupiter's LoRA default; r 16 for the 1B (full fine-tuning is its recommended path anyway) and
# for the 120B, where r 64 would be 1.1B adapter weights with 13 GB of fp32 optimizer state.
SIZE_PRESETS: dict[str, SizePreset] = {
    p.name: p
    for p in (
        _preset("1b", (2048, 8192, 16, 512, 128256, True), 16, 32, "full"),
        _preset("7b", (4096, 14336, 32, 1024, 32000, False), 64, 128, "lora"),
        _preset("20b", (6144, 16384, 48, 1024, 92544, False), 64, 128, "qlora"),
        _preset("120b", (12288, 28672, 88, 1024, 32768, False), 16, 32, "qlora"),
    )
}


def presets_table(context_length: int = 2048, micro_batch: int = 1) -> list[dict[str, object]]:
    """Estimated GB per size preset and method, without and with gradient checkpointing."""
    rows: list[dict[str, object]] = []
    for p in SIZE_PRESETS.values():
        for method in METHODS:
            gb = {
                ckpt: estimate_memory(
                    p.n_params,
                    p.trainable(method),
                    method,
                    micro_batch=micro_batch,
                    context_length=context_length,
                    hidden_size=p.hidden_size,
                    num_layers=p.num_layers,
                    vocab_size=p.vocab_size,
                    grad_ckpt=ckpt,
                ).total_gb
                for ckpt in (False, True)
            }
            rows.append(
                {
                    "size": p.name,
                    "params_b": round(p.n_params / 1e9, 2),
                    "method": method,
                    "recommended": method == p.method,
                    "gb": round(gb[False], 1),
                    "gb_ckpt": round(gb[True], 1),
                }
            )
    return rows


def oom_message(what: str, estimate: MemoryEstimate | None, memory_gb: float | None) -> str:
    """One line for an out-of-memory error: what ran out, the estimate, and every fix."""
    if estimate is not None and memory_gb is not None:
        size = f" (estimated {estimate.total_gb:.1f} GB of {memory_gb:.1f} GB)"
    elif estimate is not None:
        size = f" (estimated {estimate.total_gb:.1f} GB)"
    elif memory_gb is not None:
        size = f" ({memory_gb:.1f} GB on this device)"
    else:
        size = ""
    return (
        f"out of memory during {what}{size}: lower train.micro_batch_size, set"
        " train.gradient_checkpointing: true, pick a smaller model.preset, or use"
        " train.method: lora / qlora"
    )


@functools.lru_cache(maxsize=1)
def _malloc_trim() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None).malloc_trim  # glibc; musl has none
    except (OSError, AttributeError):
        return None


def release_heap() -> None:
    """Collect garbage and hand the C heap's free pages back to the OS (glibc malloc_trim).
    Freed memory otherwise stays in the process: after a GGUF import (1.6 GB resident for
    Gemma 3 270M, 0.5 GB after this) every later stage of `jupiter start` carried it, and
    the training's peak sat on top. A no-op where there is no malloc_trim."""
    gc.collect()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
