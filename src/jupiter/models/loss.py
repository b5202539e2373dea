"""Next-token cross-entropy without the whole vocabulary's logits in memory.

With a large vocabulary the logits dominate a step: Gemma 3's 262,144 entries make a
4 × 256-token micro-batch hold 1 GiB of fp32 logits, twice over with their gradient, and
the output projection is the largest matmul of a 270M model. The fused loss here (the idea
of Liger's fused linear cross-entropy, Hsu et al. 2024, and of Wijmans et al. 2024, "Cut
your losses") takes the final hidden states instead of the logits, keeps only the positions
that have a target, and walks them in chunks: each chunk's logits are made, turned into its
loss and its gradient at once, and dropped. Backward then only scales the stored gradient,
so the head's matmul runs twice per step instead of three times (forward, and the backward
matmul of the head), and peak memory holds one chunk of logits.

On CUDA, Liger's Triton kernel does the same when liger-kernel is installed (`kernel`:
"auto" takes it there unless the vocabulary is over 64x the hidden size, where its chunks
are thin and Jupiter's are faster; "torch" never; "liger" insists on it).

Used by training and by scoring (models/scoring.py); the training-only parts (train.vocab
corpus, logits_to_keep) are in train/loss.py.
"""

from __future__ import annotations

import functools
from typing import Any, Literal

import torch

from jupiter.data.chat import IGNORE
from jupiter.errors import JupiterError

Kernel = Literal["auto", "torch", "liger"]

# Logit elements per chunk: 64 rows of a 262k vocabulary, 64 MiB in fp32 (the logits, which
# become their gradient in place, plus a half-size copy in the compute dtype). On Gemma 3 270M
# (LoRA, 4 x 256 tokens, 2 CPU cores) 128 rows cost 0.2 GB more peak memory for no speed;
# 32 rows save 0.06 GB more and start to thin the matmuls.
CHUNK_ELEMENTS = 16 * 1024 * 1024
# On CUDA 4x that: on an H100 (8,192 positions, bf16, frozen head; benchmarks/speed/fused_loss.py)
# 16M-element chunks ran at 0.67x the whole logits' speed, 64M at 1.20x (Gemma 3's head,
# +0.9 GB instead of +24 GB) and 1.15x (Llama 3.1 8B's, +1.0 GB instead of +11.7 GB).
CUDA_CHUNK_ELEMENTS = 64 * 1024 * 1024
# Liger's kernel cuts a chunk of about positions x hidden / vocabulary rows: thin when the
# vocabulary is large against the hidden size. On the H100 it was 0.57x the whole logits'
# speed on Gemma 3's head (262,144 / 640 = 410), 1.29x on Llama 3.1 8B's (128,256 / 4,096
# = 31, where Jupiter's chunks gave 1.15x): "auto" takes it up to this ratio.
LIGER_MAX_VOCAB_PER_HIDDEN = 64


def chunk_rows(vocab: int, device_type: str = "cpu") -> int:
    elements = CUDA_CHUNK_ELEMENTS if device_type == "cuda" else CHUNK_ELEMENTS
    return max(16, elements // max(1, vocab))


@functools.lru_cache(maxsize=1)
def _mask_keep() -> bool:
    """transformers 5 takes a boolean (batch, seq) mask as logits_to_keep."""
    import transformers.modeling_utils as mu

    return hasattr(mu, "slice_logits_to_keep")


def logits_at(mask: torch.Tensor) -> int | torch.Tensor:
    """A `logits_to_keep` for the True positions of a (batch, seq) mask: the mask itself
    where transformers takes one (logits of those positions only, flattened), else 0 (all
    of them: pick them with `mask` afterwards)."""
    return mask if _mask_keep() else 0


def no_logits(labels: torch.Tensor) -> int | torch.Tensor:
    """A `logits_to_keep` that makes the model compute no logits: an all-False mask where
    transformers takes one; else the last position (an int 0 would mean all of them).
    Even that one row is costly under autograd: a (B, 1, D) input that needs grad is not
    folded into one matmul, and the (V, D) head weight is copied once per row."""
    if _mask_keep():
        return torch.zeros(labels.shape, dtype=torch.bool, device=labels.device)
    return 1


def chunk_buffers(
    shape: tuple[int, int], compute_dtype: torch.dtype, device: torch.device
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """One chunk's logits in fp32, and in the compute dtype when that is lower: made once
    per call and reused by every chunk."""
    logits = torch.empty(shape, dtype=torch.float32, device=device)
    if compute_dtype == torch.float32:
        return logits, None
    return logits, torch.empty(shape, dtype=compute_dtype, device=device)


def project(
    h: torch.Tensor, w: torch.Tensor, logits: torch.Tensor, low: torch.Tensor | None
) -> torch.Tensor:
    """h @ w.T in the compute dtype, into the first rows of the fp32 buffer `logits`."""
    n = h.shape[0]
    z = logits[:n]
    if low is None:
        torch.mm(h, w.t(), out=z)
    else:
        torch.mm(h, w.t(), out=low[:n])
        z.copy_(low[:n])
    return z


class _FusedLinearCE(torch.autograd.Function):
    """sum over target rows of -log softmax(cap(h W^T) + bias)[y], with the gradients made
    in forward; rows whose label is IGNORE are skipped entirely. `bias` (one per output, or
    None) is a fixed offset of the logits: a sampled softmax's log-count correction."""

    @staticmethod
    def forward(  # type: ignore[override]
        ctx: Any,
        hidden: torch.Tensor,
        weight: torch.Tensor,
        labels: torch.Tensor,
        compute_dtype: torch.dtype,
        softcap: float | None,
        need_grad: bool,
        bias: torch.Tensor | None = None,
    ) -> torch.Tensor:
        flat_h = hidden.reshape(-1, hidden.shape[-1])
        flat_y = labels.reshape(-1)
        rows = (flat_y != IGNORE).nonzero().squeeze(1)
        grad_h = torch.zeros_like(flat_h, dtype=torch.float32) if need_grad else None
        need_w = need_grad and weight.requires_grad
        grad_w = torch.zeros_like(weight, dtype=torch.float32) if need_w else None
        w = weight.to(compute_dtype)
        total = torch.zeros((), dtype=torch.float32, device=hidden.device)
        step = chunk_rows(weight.shape[0], hidden.device.type)
        # one chunk's logits, in compute dtype and in fp32, made once and reused: a fresh
        # 64 MiB tensor a chunk costs more in page faults on the CPU than the pass that
        # fills it (glibc maps every block over 32 MiB anew and returns it on free)
        shape = (min(step, rows.numel()), weight.shape[0])
        dev = hidden.device
        logits, low = chunk_buffers(shape, compute_dtype, dev)
        capped = (
            torch.empty(shape, dtype=torch.float32, device=dev) if softcap is not None else None
        )
        with torch.autocast(hidden.device.type, enabled=False):
            for start in range(0, rows.numel(), step):
                idx = rows[start : start + step]
                n = idx.numel()
                h = flat_h.index_select(0, idx).to(compute_dtype)
                y = flat_y.index_select(0, idx)
                z = project(h, w, logits, low)
                if capped is not None and softcap is not None:
                    t = capped[:n]
                    torch.tanh(z.div_(softcap), out=t)
                    z.copy_(t).mul_(softcap)
                if bias is not None:
                    z += bias
                # -log softmax(z)[y] = log sum exp(z - max) - (z[y] - max), in place
                z.sub_(z.amax(dim=1, keepdim=True))
                target = z.gather(1, y[:, None])
                norm = z.exp_().sum(dim=1, keepdim=True)
                total += (norm.log() - target).sum()
                if grad_h is None:
                    continue
                # d loss / d z = softmax(z) - onehot(y), made in place in the logits' storage
                g = z.div_(norm)
                g[torch.arange(n, device=dev), y] -= 1.0
                if capped is not None:
                    g.mul_(t.mul_(t).neg_().add_(1.0))  # d cap·tanh(x/cap) / dx = 1 - tanh²
                gc = g if low is None else low[:n].copy_(g)
                grad_h.index_copy_(0, idx, (gc @ w).float())
                if grad_w is not None:  # the matmul in compute dtype, summed in fp32
                    grad_w.add_(gc.t() @ h)
        empty = torch.empty(0)
        ctx.save_for_backward(
            grad_h if grad_h is not None else empty, grad_w if grad_w is not None else empty
        )
        ctx.shapes = (hidden.shape, hidden.dtype, weight.dtype, need_w)
        return total

    @staticmethod
    def backward(ctx: Any, grad_out: torch.Tensor) -> tuple[Any, ...]:  # type: ignore[override]
        grad_h, grad_w = ctx.saved_tensors
        shape, h_dtype, w_dtype, need_w = ctx.shapes
        dh = (grad_h * grad_out).reshape(shape).to(h_dtype)
        dw = (grad_w * grad_out).to(w_dtype) if need_w else None
        return dh, dw, None, None, None, None, None


@torch.no_grad()
def position_nll(
    hidden: torch.Tensor,
    weight: torch.Tensor,
    labels: torch.Tensor,
    softcap: float | None = None,
    compute_dtype: torch.dtype | None = None,
) -> torch.Tensor:
    """-log softmax(cap(h W^T))[y] (fp32) of each of `hidden`'s (n, D) rows against its
    label in `labels` (n,), no IGNORE among them: fused_linear_ce's arithmetic, chunk by
    chunk, without gradients and kept per row (scoring sums them per choice or text)."""
    dtype = compute_dtype or weight.dtype
    w = weight.to(dtype)
    dev, total = hidden.device, labels.shape[0]
    out = torch.empty(total, dtype=torch.float32, device=dev)
    step = chunk_rows(weight.shape[0], dev.type)
    # one chunk's logits made once and reused, as in fused_linear_ce (page faults)
    logits, low = chunk_buffers((min(step, total), weight.shape[0]), dtype, dev)
    with torch.autocast(dev.type, enabled=False):
        for start in range(0, total, step):
            h = hidden[start : start + step].to(dtype)
            n = h.shape[0]
            z = project(h, w, logits, low)
            if softcap is not None:
                z.div_(softcap).tanh_().mul_(softcap)
            z.sub_(z.amax(dim=1, keepdim=True))
            target = z.gather(1, labels[start : start + n, None]).squeeze(1)
            out[start : start + n] = z.exp_().sum(dim=1).log_() - target
    return out


def fused_linear_ce(
    hidden: torch.Tensor,
    weight: torch.Tensor,
    labels: torch.Tensor,
    softcap: float | None = None,
    compute_dtype: torch.dtype | None = None,
    kernel: Kernel = "auto",
    bias: torch.Tensor | None = None,
) -> torch.Tensor:
    """Summed cross-entropy of the logits `cap(hidden @ weight.T)` against `labels`
    (aligned with hidden's positions, IGNORE where no loss is taken), never holding more
    than one chunk of logits. `compute_dtype` is the matmul dtype (default: the autocast
    dtype when autocast is on, else the weight's). `kernel`: see chosen_kernel; Jupiter's
    torch chunks wherever Liger's is not taken (or cannot apply the soft-cap, or a `bias`
    is given: fixed per-output offsets added to the capped logits)."""
    if compute_dtype is None:
        dev = hidden.device.type
        on = torch.is_autocast_enabled(dev)
        compute_dtype = torch.get_autocast_dtype(dev) if on else weight.dtype
    if kernel == "liger":
        require_liger(hidden.device, softcap)
    if bias is None and chosen_kernel(hidden.device, weight, kernel) == "liger":
        got = _liger_loss(hidden, weight, labels, softcap)
        if got is not None:
            return got
    need_grad = torch.is_grad_enabled() and (hidden.requires_grad or weight.requires_grad)
    result: torch.Tensor = _FusedLinearCE.apply(
        hidden, weight, labels, compute_dtype, softcap, need_grad, bias
    )
    return result


@functools.lru_cache(maxsize=1)
def _liger() -> Any:
    try:
        from liger_kernel.transformers.fused_linear_cross_entropy import (
            LigerFusedLinearCrossEntropyLoss,
        )
    except Exception:  # not installed, or no Triton for this GPU
        return None
    return LigerFusedLinearCrossEntropyLoss


def chosen_kernel(device: torch.device, weight: torch.Tensor, kernel: Kernel) -> str:
    """What fused_linear_ce runs for this head here, "liger" or "torch": "auto" takes
    Liger's kernel on CUDA when installed and the head is not too wide for it."""
    if kernel != "auto":
        return kernel
    if device.type != "cuda" or _liger() is None:
        return "torch"
    fits = weight.shape[0] <= LIGER_MAX_VOCAB_PER_HIDDEN * weight.shape[1]
    return "liger" if fits else "torch"


def require_liger(device: torch.device, softcap: float | None) -> None:
    """Raise a one-line error unless Liger's kernel can compute this loss here."""
    if device.type != "cuda":
        raise JupiterError(
            f"train.loss: liger needs a CUDA device (this run is on "
            f"{device.type}): set train.loss: auto"
        )
    cls = _liger()
    if cls is None:
        raise JupiterError(
            "train.loss: liger needs liger-kernel: pip install liger-kernel "
            "(or set train.loss: auto)"
        )
    if softcap is not None and not _takes(cls, "softcap"):
        raise JupiterError(
            "train.loss: liger: this liger-kernel cannot apply the model's "
            "logit soft-cap: pip install -U liger-kernel, or set train.loss: auto"
        )


@functools.lru_cache(maxsize=8)  # asked on every step with train.loss: liger
def _takes(cls: Any, name: str) -> bool:
    import inspect

    return name in inspect.signature(cls.__init__).parameters


def _liger_loss(
    hidden: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor, softcap: float | None
) -> torch.Tensor | None:
    """Liger's loss (its forward takes the head weight first), or None when this Liger
    cannot apply the model's logit soft-cap (releases before 0.4 have no `softcap`)."""
    loss_cls = _liger()
    kwargs: dict[str, Any] = {"ignore_index": IGNORE, "reduction": "sum"}
    if softcap is not None:
        if not _takes(loss_cls, "softcap"):
            return None
        kwargs["softcap"] = softcap
    if weight.requires_grad and _takes(loss_cls, "accum_dtype"):
        kwargs["accum_dtype"] = torch.float32  # a trained head's gradient summed in fp32
    fn = loss_cls(**kwargs)
    flat = hidden.reshape(-1, hidden.shape[-1])
    result = fn(weight, flat, labels.reshape(-1))
    if isinstance(result, torch.Tensor):
        return result
    loss = getattr(result, "loss", None)  # releases that return an output record
    return loss if isinstance(loss, torch.Tensor) else result[0]


def head_of(model: torch.nn.Module) -> tuple[torch.Tensor, float | None] | None:
    """(output projection weight, final logit softcap) when the fused loss can use them: a
    bias-free linear head whose weight is a whole local tensor (not an FSDP2 shard or a
    ZeRO-3 partition, which exist only inside the module's own forward)."""
    get = getattr(model, "get_output_embeddings", None)
    head = get() if callable(get) else None
    if not isinstance(head, torch.nn.Linear) or head.bias is not None:
        return None
    w = head.weight
    sharded = hasattr(w, "device_mesh") or hasattr(w, "ds_id")
    if type(w) is not torch.nn.Parameter or w.numel() == 0 or sharded:
        return None
    cfg = getattr(model, "config", None)
    text = getattr(cfg, "text_config", None) or cfg
    cap = getattr(text, "final_logit_softcapping", None)
    return w, (float(cap) if cap else None)
