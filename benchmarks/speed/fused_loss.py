"""The next-token loss alone, forward + backward: whole logits against Jupiter's torch chunks
(at several chunk sizes) against Liger's fused linear cross-entropy kernel, on real heads'
shapes, in one process.

Shapes: Gemma 3 270M's head (hidden 640, vocabulary 262,144, tied: the weight is frozen
under LoRA) and Llama 3.1 8B's (4,096 x 128,256), `--rows` target positions (a micro-batch
of 4 x 2048 by default), bf16 hidden states and weights, as under bf16 autocast. Each case
runs `--warmup` untimed then `--repeats` timed forward + backward passes, synchronized at
both ends; the table gives the median time, the peak memory the pass added above its inputs
(CUDA's max allocated; on a CPU the figure is n/a), and the loss's difference from the whole
logits' (relative). `--train-head` also takes the head weight's gradient (full fine-tuning).

    python benchmarks/speed/fused_loss.py [--rows 8192] [--repeats 10] [--train-head]

CPU check (seconds; the times mean little there): python benchmarks/speed/fused_loss.py --quick
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import torch
import torch.nn.functional as F

from jupiter.data.chat import IGNORE
from jupiter.models import loss as loss_mod

HEADS = {"gemma3-270m": (640, 262144), "llama-8b": (4096, 128256)}
CHUNKS = (16, 64, 256)  # Jupiter's chunk sizes tried, in M logit elements


def sync(dev: torch.device) -> None:
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def plain(h: torch.Tensor, w: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    logits = (h @ w.t()).float()
    return F.cross_entropy(logits.flatten(0, 1), y.flatten(), ignore_index=IGNORE, reduction="sum")


def chunks(elements_m: int) -> Callable[..., torch.Tensor]:
    def fn(h: torch.Tensor, w: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        loss_mod.CHUNK_ELEMENTS = loss_mod.CUDA_CHUNK_ELEMENTS = elements_m * 1024 * 1024
        return loss_mod.fused_linear_ce(h, w, y, compute_dtype=h.dtype, kernel="torch")

    return fn


def liger(h: torch.Tensor, w: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return loss_mod.fused_linear_ce(h, w, y, compute_dtype=h.dtype, kernel="liger")


def inputs(
    a: argparse.Namespace, dim: int, vocab: int, dev: torch.device
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator(device=dev).manual_seed(0)  # made on the device: fast on a GPU
    h = torch.randn(1, a.rows, dim, generator=g, device=dev).to(torch.bfloat16)
    w = (torch.randn(vocab, dim, generator=g, device=dev) * dim**-0.5).to(torch.bfloat16)
    y = torch.randint(0, vocab, (1, a.rows), generator=g, device=dev)
    y[0, : a.rows // 8] = IGNORE  # prompts carry no loss
    return h.requires_grad_(), w.requires_grad_(a.train_head), y


def measure(
    fn: Callable[..., torch.Tensor], a: argparse.Namespace, dim: int, vocab: int, dev: torch.device
) -> tuple[float, float, float]:
    """(median seconds, added peak GiB, loss) of forward + backward."""
    h, w, y = inputs(a, dim, vocab, dev)
    times, loss = [], 0.0
    for i in range(a.warmup + a.repeats):
        h.grad = w.grad = None
        if dev.type == "cuda":
            sync(dev)
            torch.cuda.reset_peak_memory_stats(dev)
            base = torch.cuda.memory_allocated(dev)
        t0 = time.perf_counter()
        out = fn(h, w, y)
        out.backward()
        sync(dev)
        if i >= a.warmup:
            times.append(time.perf_counter() - t0)
        loss = float(out.detach())
    added = (torch.cuda.max_memory_allocated(dev) - base) / 2**30 if dev.type == "cuda" else -1
    return statistics.median(times), added, loss


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=8192, help="positions (batch x context)")
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--train-head", action="store_true", help="the head weight's gradient too")
    ap.add_argument("--quick", action="store_true", help="CPU check: small shapes, 2 repeats")
    a = ap.parse_args()
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    heads = HEADS
    if a.quick:
        a.rows, a.repeats, a.warmup, heads = 256, 2, 1, {"quick": (64, 32000)}
    cases: list[tuple[str, Callable[..., torch.Tensor]]] = [("whole logits", plain)]
    default = (
        loss_mod.CUDA_CHUNK_ELEMENTS if dev.type == "cuda" else loss_mod.CHUNK_ELEMENTS
    ) >> 20
    cases += [
        (f"torch chunks {c}M" + (" (default)" if c == default else ""), chunks(c)) for c in CHUNKS
    ]
    if dev.type == "cuda" and loss_mod._liger() is not None:
        cases.append(("Liger", liger))
    name = torch.cuda.get_device_name(dev) if dev.type == "cuda" else "cpu"
    print(
        f"{name}, torch {torch.__version__}, {a.rows} positions, bf16, head weight "
        f"{'trained' if a.train_head else 'frozen'}; median of {a.repeats} after {a.warmup}"
    )
    defaults = (loss_mod.CHUNK_ELEMENTS, loss_mod.CUDA_CHUNK_ELEMENTS)
    for head, (dim, vocab) in heads.items():
        print(f"\n{head}: hidden {dim}, vocabulary {vocab:,}")
        print(f"{'loss':26s} {'ms':>8s} {'vs whole':>8s} {'+peak GiB':>9s} {'loss rel diff':>13s}")
        ref_t = ref_loss = None
        for label, fn in cases:
            try:
                t, mem, loss = measure(fn, a, dim, vocab, dev)
            except torch.OutOfMemoryError:
                print(f"{label:26s} out of memory")
                continue
            finally:
                loss_mod.CHUNK_ELEMENTS, loss_mod.CUDA_CHUNK_ELEMENTS = defaults
            ref_t, ref_loss = (t, loss) if ref_t is None else (ref_t, ref_loss)
            assert ref_loss is not None
            memo = f"{mem:9.2f}" if mem >= 0 else f"{'n/a':>9s}"
            print(
                f"{label:26s} {t * 1e3:8.2f} {ref_t / t:7.2f}x {memo} "
                f"{abs(loss - ref_loss) / abs(ref_loss):13.1e}"
            )


if __name__ == "__main__":
    main()
