"""Model FLOPs utilization: Jupiter's loop training a preset from scratch (default `1b`, the
Llama-3.2-1B shape) in bf16 autocast on one device, for a fixed number of steps.

The FLOPs are Jupiter's own `flops_per_token` (6·N + 12·L·H·T, N counting every parameter
once: with tied embeddings that is the output head's matmul) and the peak its own
`peak_flops` for the device (the datasheet's dense bf16 figure; $JUPITER_PEAK_TFLOPS
overrides it, and on a CPU nothing else gives one, so MFU prints n/a there). Tokens are
every position of the timed steps (the rows are full: padding would count as work done);
the time is the wall time of the timed steps, synchronized with the device at both ends.
Warm-up steps (where torch.compile compiles) are not timed.

    python benchmarks/speed/mfu.py [--preset 1b] [--batch 8] [--ctx 2048] [--steps 30]
        [--warmup 5] [--compile] [--grad-ckpt] [--data random|text] [--vocab 32000]
        [--loss auto|fused|liger|plain]

CPU check: python benchmarks/speed/mfu.py --preset tiny --ctx 128 --steps 5
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing here may reach the network
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import argparse
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import torch
import transformers

from jupiter.config import TrainConfig
from jupiter.data.dataset import Encoded, PackedDataset
from jupiter.models.loading import trainable_parameters
from jupiter.models.presets import ModelConfig
from jupiter.train.loop import TrainRun, run_steps, start
from jupiter.train.metrics import PEAK_ENV, flops_per_token, mfu, peak_flops, peak_memory_gb
from jupiter.train.setup import shape_of


def random_data(vocab: int, rows: int, ctx: int, seed: int) -> PackedDataset:
    """`rows` sequences of ctx + 1 uniform random tokens: each fills one row exactly."""
    rng = np.random.default_rng(seed)
    ids = rng.integers(3, vocab, size=(rows, ctx + 1)).tolist()  # 0-2: pad, bos, eos
    seqs: list[Encoded] = [(s, s) for s in ids]
    return PackedDataset(seqs, ctx, pad_id=0, seed=seed)


def text_data(vocab: int, ctx: int, seed: int, tok_dir: Path) -> tuple[PackedDataset, int]:
    """The chats of train_throughput.py (stdlib docs), encoded with a tokenizer built here
    and packed into rows of ctx; returns the data and the tokenizer's size."""
    from train_throughput import doc_chats  # benchmarks/ is on sys.path when run as a script

    from jupiter.data.chat import encode_chat
    from jupiter.data.tokenizer import train_tokenizer

    chats = doc_chats()
    tok = train_tokenizer([m["content"] for c in chats for m in c], vocab, tok_dir)
    encoded = [encode_chat(tok, c) for c in chats]
    return PackedDataset(encoded, ctx, tok.pad_token_id, seed), len(tok)


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="1b")
    ap.add_argument("--batch", type=int, default=8, help="rows per step (micro-batch)")
    ap.add_argument("--ctx", type=int, default=2048)
    ap.add_argument("--steps", type=int, default=30, help="timed steps")
    ap.add_argument("--warmup", type=int, default=5, help="untimed steps first")
    ap.add_argument("--compile", action="store_true", help="torch.compile the model")
    ap.add_argument("--grad-ckpt", action="store_true", help="gradient checkpointing")
    ap.add_argument("--data", choices=("random", "text"), default="random")
    ap.add_argument("--vocab", type=int, default=32000, help="the model's vocabulary")
    ap.add_argument("--precision", default="bf16", choices=("bf16", "fp16", "fp32", "auto"))
    ap.add_argument("--device", default="auto", choices=("auto", "cuda", "cpu"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--loss",
        default="auto",
        choices=("auto", "fused", "liger", "plain"),
        help="train.loss: plain holds the whole logits (fastest for a trained head)",
    )
    a = ap.parse_args()
    transformers.logging.set_verbosity_error()
    warnings.filterwarnings("ignore", category=FutureWarning)
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        if a.data == "random":
            data = random_data(a.vocab, a.batch * (a.warmup + a.steps), a.ctx, a.seed)
        else:
            data, n_tok = text_data(a.vocab, a.ctx, a.seed, tmp / "tok")
            a.vocab = max(a.vocab, n_tok)
        mc = ModelConfig.from_preset(a.preset, a.vocab, a.ctx, data.pad_id, 1, 2)
        cfg = TrainConfig(
            max_steps=a.warmup + a.steps,
            micro_batch_size=a.batch,
            precision=a.precision,
            gradient_checkpointing=a.grad_ckpt,
            compile=a.compile,
            metrics=[],
            seed=a.seed,
            resume="never",
            warmup_steps=min(10, a.warmup + a.steps),
            lr=3e-4,
            min_lr=3e-5,
            loss=a.loss,
        )
        run = TrainRun(
            dataset=data,
            config=cfg,
            out_dir=tmp / "run",
            tokenizer_dir=tmp / "tok",
            model_config=mc,
            device=a.device,
            progress=False,
        )
        state = start(run)
        dev = state.dist.device
        _, total = trainable_parameters(state.model)
        shape = shape_of(state.model)
        fpt = flops_per_token(total, shape["num_layers"], shape["hidden_size"], a.ctx)
        peak = peak_flops(dev, state.plan.amp)
        name = torch.cuda.get_device_name(dev) if dev.type == "cuda" else "cpu"
        run_steps(run, state, a.warmup)
        if dev.type == "cuda":
            torch.cuda.reset_peak_memory_stats(dev)  # the timed steps' peak (weights included)
        sync(dev)
        t0 = time.perf_counter()
        step0, tokens0 = state.step, state.tokens
        run_steps(run, state, a.steps)
        sync(dev)
        seconds = time.perf_counter() - t0
        steps, tokens = state.step - step0, state.tokens - tokens0
        filled = sum(int((data.row(r)[0] != data.pad_id).sum()) for r in range(data.num_rows))
        fill = filled / (data.num_rows * a.ctx)
    tps = tokens / seconds
    util = mfu(tps, fpt, peak)
    amp = {None: "fp32", torch.bfloat16: "bf16 autocast", torch.float16: "fp16 autocast"}
    print(f"device: {name}; torch {torch.__version__}, transformers {transformers.__version__}")
    print(
        f"model: preset {a.preset}, {total / 1e6:,.1f} M parameters (vocab {a.vocab}, "
        f"{shape['num_layers']} layers, hidden {shape['hidden_size']}), "
        f"attention {state.model.config._attn_implementation}"
    )
    print(
        f"run: {a.batch} rows × {a.ctx} tokens a step ({a.data} data, rows {fill:.1%} full), "
        f"{steps} timed steps after {a.warmup} warm-up; "
        f"{amp.get(state.plan.amp, str(state.plan.amp))}, compile {a.compile}, "
        f"grad ckpt {state.plan.grad_ckpt}, train.loss {a.loss}; loss {state.losses[0]:.3f} -> "
        f"{state.losses[-1]:.3f}"
    )
    print(f"FLOPs per token: {fpt / 1e9:.4g} G (6·N + 12·L·H·T)")
    print(f"tokens/s:        {tps:,.0f} ({seconds / steps * 1000:.1f} ms a step)")
    print(f"achieved:        {tps * fpt / 1e12:,.2f} TFLOP/s")
    if peak is None:
        print(f"peak:            unknown for {name} (set {PEAK_ENV} to the device's TFLOPS)")
        print("MFU:             n/a")
    else:
        src = f"${PEAK_ENV}" if os.environ.get(PEAK_ENV, "").strip() else "datasheet, dense"
        print(f"peak:            {peak / 1e12:,.1f} TFLOP/s ({src})")
        print(f"MFU:             {util:.1%}")
    print(
        f"peak memory:     {peak_memory_gb(dev):.2f} GiB "
        f"({'max allocated, timed steps' if dev.type == 'cuda' else 'process max RSS'})"
    )


if __name__ == "__main__":
    main()
