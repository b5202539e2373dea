"""LoRA throughput: Jupiter's loop against PEFT + Hugging Face `Trainer` on a random-initialized
model, the same weights, the same data, the same LoRA, side by side in one run.

The base is built from a config (`--config mistral-7b`: Mistral-7B-v0.2's shape; `llama-8b`:
Llama-3.1-8B's; `gemma3-270m`: Gemma 3 270M's, with its 262,144-entry vocabulary and tied
head; `tiny` for CPU checks), random-initialized in bf16 and saved with save_pretrained to a
temp dir, so both sides load the same weights from disk (~15 GB for 7B: `--tmp DIR` puts it
elsewhere). On CUDA both keep the frozen base in bf16 (on CPU Jupiter keeps it in fp32, and
so does the peer here); LoRA r 64, alpha 128, dropout 0.05 on every linear layer but the
head, adapters in fp32, bf16 autocast on both sides, and the same attention kernel
(flash-attn on CUDA where it imports, else sdpa).

The data and the metric are those of train_throughput.py: the stdlib-docs chats, useful
tokens per second (n - 1 for an example of n tokens, padding never counts) over the timed
steps, after warm-up. Jupiter packs the examples into `--batch` rows of `--ctx` tokens;
`--jupiter-loss auto,fused,plain` runs one Jupiter side per `train.loss` (auto: the kernel
loss.chosen_kernel picks, named in the table; fused: Jupiter's torch chunks; plain: whole
logits).
The peer (`--peer`): `flat` (default) is its best: `DataCollatorWithFlattening`
(padding-free, as many examples a step as Jupiter's packed rows hold on average, so both
sides see the same tokens a step) and, on CUDA with liger-kernel installed,
`use_liger_kernel=True`; `padded` pads `--batch` examples to the longest (HF's default
collator). Steps are timed with the device synchronized at both ends. Peak memory is each
side's own: CUDA's max allocated (base weights included), on CPU the process's peak RSS,
reset before each side.

    python benchmarks/speed/lora_throughput.py [--config mistral-7b] [--batch 2] [--ctx 2048]
        [--steps 20] [--warmup 3] [--grad-ckpt] [--tmp DIR] [--jupiter-loss auto]
        [--peer flat|padded]

CPU check: python benchmarks/speed/lora_throughput.py --config tiny --steps 3
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing here may reach the network
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import argparse
import gc
import importlib.util
import math
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import datasets
import numpy as np
import peft
import torch
import transformers
from train_throughput import Result, doc_chats, timed_train  # benchmarks/ is on sys.path
from transformers import (
    AutoModelForCausalLM,
    DataCollatorForSeq2Seq,
    DataCollatorWithFlattening,
    Gemma3TextConfig,
    LlamaConfig,
    MistralConfig,
    PrinterCallback,
    Trainer,
    TrainerCallback,
    TrainingArguments,
)

from jupiter.config import LoraConfig, TrainConfig
from jupiter.data.chat import encode_chat, pad_id_for
from jupiter.data.dataset import Encoded, PackedDataset
from jupiter.data.tokenizer import train_tokenizer
from jupiter.models import loss as loss_mod
from jupiter.models.loading import attention_impl, trainable_parameters
from jupiter.train.loop import TrainRun, run_steps, start
from jupiter.train.metrics import peak_memory_gb, reset_peak_memory

SHAPE = (
    "hidden_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "intermediate_size",
    "vocab_size",
)
CONFIGS: dict[str, tuple[type, tuple[int, ...], float]] = {
    "mistral-7b": (MistralConfig, (4096, 32, 32, 8, 14336, 32000), 1e6),  # v0.2: no sliding window
    "llama-8b": (LlamaConfig, (4096, 32, 32, 8, 14336, 128256), 5e5),  # Llama 3.1 8B
    "gemma3-270m": (Gemma3TextConfig, (640, 18, 4, 1, 2048, 262144), 1e6),
    "tiny": (MistralConfig, (128, 2, 4, 2, 512, 32000), 1e6),
}


# ------------------------------------------------------------------------ devices
def count(n: int) -> str:
    return f"{n / 1e9:.2f} B" if n >= 1e9 else f"{n / 1e6:.2f} M"


def sync(dev: torch.device) -> None:
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


class CudaSync(TrainerCallback):
    """Added before timed_train's StepClock, so the clock reads after the device is done."""

    def on_step_begin(self, args: Any, state: Any, control: Any, **kw: Any) -> None:
        torch.cuda.synchronize()

    on_step_end = on_step_begin


# --------------------------------------------------------------------------- sides
def save_base(a: argparse.Namespace, tok: Any, path: Path, dev: torch.device) -> None:
    cls, shape, theta = CONFIGS[a.config]
    ids = {
        "pad_token_id": tok.pad_token_id,
        "bos_token_id": tok.bos_token_id,
        "eos_token_id": tok.eos_token_id,
    }
    if cls is Gemma3TextConfig:  # its own sliding window (512), local/global rope and ties
        cfg = cls(
            **dict(zip(SHAPE, shape, strict=True)),
            head_dim=256,
            sliding_window=512,
            query_pre_attn_scalar=256,
            max_position_embeddings=32768,
            **ids,
        )
    else:
        cfg = cls(
            **dict(zip(SHAPE, shape, strict=True)),
            sliding_window=None,
            rope_parameters={"rope_type": "default", "rope_theta": theta},
            max_position_embeddings=max(a.ctx, 8192),
            tie_word_embeddings=False,
            **ids,
        )
    torch.manual_seed(a.seed)
    with torch.device(dev):  # random init on the GPU takes seconds, on a CPU minutes
        model = AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16)
    n = sum(p.numel() for p in model.parameters())
    print(
        f"writing the random {a.config} base ({count(n)} parameters, {n * 2 / 1e9:.3g} GB "
        f"in bf16) to {path} (--tmp DIR to put it elsewhere)"
    )
    model.save_pretrained(path)
    tok.save_pretrained(path)
    del model


def lora_note(model: Any, extra: str) -> str:
    trainable, total = trainable_parameters(model)
    base = next(p.dtype for p in model.parameters() if not p.requires_grad)
    return (
        f"{extra}, {model.config._attn_implementation}, base {str(base)[6:]}, "
        f"trainable {count(trainable)} of {count(total)}"
    )


def run_peft(
    base: Path,
    tok: Any,
    encoded: list[Encoded],
    a: argparse.Namespace,
    out: Path,
    dev: torch.device,
) -> Result:
    dtype = torch.bfloat16 if dev.type == "cuda" else torch.float32  # as Jupiter loads it
    attn = attention_impl("auto", dev)  # the kernel Jupiter picks: flash-attn or sdpa
    model: Any = AutoModelForCausalLM.from_pretrained(base, dtype=dtype, attn_implementation=attn)
    model = model.to(dev)
    torch.manual_seed(a.seed)
    lora = peft.LoraConfig(
        r=a.r,
        lora_alpha=a.alpha,
        lora_dropout=0.05,
        target_modules="all-linear",
        task_type="CAUSAL_LM",
    )
    model = peft.get_peft_model(model, lora)  # adapters upcast to fp32 (autocast_adapter_dtype)
    data = [{"input_ids": i, "labels": lab} for i, lab in encoded]  # a map-style dataset
    flat = a.peer == "flat"
    liger = flat and dev.type == "cuda" and importlib.util.find_spec("liger_kernel") is not None
    args = TrainingArguments(
        output_dir=str(out),
        per_device_train_batch_size=a.peer_batch if flat else a.batch,
        max_steps=a.warmup + a.steps,
        seed=a.seed,
        report_to="none",
        save_strategy="no",
        logging_strategy="no",
        disable_tqdm=True,
        bf16=True,
        gradient_checkpointing=a.grad_ckpt,
        gradient_checkpointing_kwargs={"use_reentrant": False},
        use_cpu=dev.type == "cpu",
        use_liger_kernel=liger,
    )
    # padding-free: the batch's examples end to end in one row, attention per example
    collate = DataCollatorWithFlattening() if flat else DataCollatorForSeq2Seq(tok, padding=True)
    trainer = Trainer(model=model, args=args, train_dataset=data, data_collator=collate)
    trainer.remove_callback(PrinterCallback)  # the end-of-train summary
    if dev.type == "cuda":
        trainer.add_callback(CudaSync())
    optim = getattr(args.optim, "value", args.optim)
    how = f"padding-free, {a.peer_batch} examples a step" if flat else "padded"
    return timed_train(
        "PEFT + HF Trainer", trainer, a.warmup, lora_note(model, f"{optim}, {how}, liger {liger}")
    )


def run_jupiter(
    base: Path, data: PackedDataset, a: argparse.Namespace, out: Path, loss: str
) -> Result:
    cfg = TrainConfig(
        method="lora",
        lora=LoraConfig(r=a.r, alpha=a.alpha, dropout=0.05),
        max_steps=a.warmup + a.steps,
        micro_batch_size=a.batch,
        lr=2e-4,
        min_lr=2e-5,
        warmup_steps=0,
        gradient_checkpointing=a.grad_ckpt,
        metrics=[],
        seed=a.seed,
        resume="never",
        loss=loss,
    )  # type: ignore[arg-type]
    run = TrainRun(
        dataset=data,
        config=cfg,
        out_dir=out,
        tokenizer_dir=base,
        model_dir=base,
        device=a.device,
        progress=False,
    )
    per_row = np.array([int((data.row(r)[0] != data.pad_id).sum()) for r in range(data.num_rows)])
    state = start(run)
    dev = state.dist.device
    useful = raw = 0
    seconds = 0.0
    for step in range(a.warmup + a.steps):
        n = int(per_row[data.rows_of(state.epoch, state.index, a.batch)].sum())
        sync(dev)
        t0 = time.perf_counter()
        run_steps(run, state, 1)
        sync(dev)
        if step >= a.warmup:
            seconds += time.perf_counter() - t0
            useful += n
            raw += a.batch * data.context_length
    prec = {None: "fp32", torch.bfloat16: "bf16 autocast"}.get(state.plan.amp, str(state.plan.amp))
    kernel = "whole logits"
    if state.head is not None:
        chosen = loss_mod.chosen_kernel(dev, state.head[0], state.loss_kernel)
        kernel = {"liger": "Liger", "torch": "torch chunks"}[chosen]
    note = (
        f"{prec}, grad ckpt {state.plan.grad_ckpt}, adamw fused {dev.type == 'cuda'}, "
        f"packed, loss {kernel}"
    )
    return Result(f"Jupiter ({loss})", useful, raw, seconds, lora_note(state.model, note))


def side(fn: Any, dev: torch.device, *args: Any) -> tuple[Result | str, float]:
    """Run one side with its own peak memory; a failure (OOM) is reported, not raised."""
    reset_peak_memory(dev)
    try:
        result: Result | str = fn(*args)
    except Exception as err:  # OOM, a JupiterError, a peer's option this install lacks
        first = (str(err).splitlines() or [""])[0][:200]
        result = f"failed: {type(err).__name__}: {first}"
    mem = peak_memory_gb(dev)
    gc.collect()  # the trainer and model go before the next side loads its own
    return result, mem


# ---------------------------------------------------------------------------- main
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="mistral-7b", choices=tuple(CONFIGS))
    ap.add_argument("--batch", type=int, default=2, help="sequences per step, both sides")
    ap.add_argument("--ctx", type=int, default=2048)
    ap.add_argument("--steps", type=int, default=20, help="timed steps")
    ap.add_argument("--warmup", type=int, default=3, help="untimed steps first")
    ap.add_argument("--grad-ckpt", action="store_true", help="gradient checkpointing, both sides")
    ap.add_argument("--r", type=int, default=64)
    ap.add_argument("--alpha", type=int, default=128)
    ap.add_argument("--vocab", type=int, default=4096, help="the data's tokenizer")
    ap.add_argument("--tmp", default=None, help="where the random base is written")
    ap.add_argument("--device", default="auto", choices=("auto", "cuda", "cpu"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--jupiter-loss",
        default="auto",
        help="comma-separated train.loss values, one Jupiter side each",
    )
    ap.add_argument("--peer", choices=("flat", "padded"), default="flat")
    a = ap.parse_args()
    use_cuda = a.device == "cuda" or (a.device == "auto" and torch.cuda.is_available())
    dev = torch.device("cuda" if use_cuda else "cpu")
    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()  # shard writing and loading bars
    warnings.filterwarnings("ignore", category=FutureWarning)
    datasets.disable_progress_bars()
    with tempfile.TemporaryDirectory(dir=a.tmp) as tmp_dir:
        tmp = Path(tmp_dir)
        chats = doc_chats()
        tok = train_tokenizer([m["content"] for c in chats for m in c], a.vocab, tmp / "tok")
        encoded = [e for e in (encode_chat(tok, c) for c in chats) if len(e[0]) <= a.ctx]
        packed = PackedDataset(encoded, a.ctx, pad_id_for(tok), a.seed)
        print(
            f"data: {len(encoded)} chats; Jupiter packs them into {packed.num_rows} rows of "
            f"{a.ctx} ({packed.tokens / (packed.num_rows * a.ctx):.1%} full)"
        )
        # the peer's examples a step: as many as Jupiter's packed rows hold on average
        a.peer_batch = max(1, math.ceil(len(encoded) * a.batch / packed.num_rows))
        save_base(a, tok, tmp / "base", dev)
        names = ["PEFT + HF Trainer"]
        results = [side(run_peft, dev, tmp / "base", tok, encoded, a, tmp / "hf", dev)]
        for loss in a.jupiter_loss.split(","):
            names.append(f"Jupiter ({loss})")
            results.append(side(run_jupiter, dev, tmp / "base", packed, a, tmp / loss, loss))
    print(
        f"\n{a.config}, {dev.type}"
        f"{' (' + torch.cuda.get_device_name(dev) + ')' if use_cuda else ''}, {a.batch} "
        f"sequences a step, ctx {a.ctx}, {a.steps} timed steps after {a.warmup} warm-up, "
        f"LoRA r {a.r} alpha {a.alpha}; torch {torch.__version__}, transformers "
        f"{transformers.__version__}, peft {peft.__version__}"
    )
    print("rates are totals over the timed steps; ratio = useful tok/s / the peer's\n")
    ok = [r for r, _ in results if isinstance(r, Result)]
    base = ok[0].useful / ok[0].seconds if ok and ok[0].name.startswith("PEFT") else None
    print(
        f"{'side':18s} {'useful tok/s':>12s} {'raw tok/s':>10s} {'useful':>7s} {'ratio':>6s} "
        f"{'peak GiB':>8s}  setup"
    )
    for (r, mem), name in zip(results, names, strict=True):
        if not isinstance(r, Result):
            print(f"{name:18s} {r}  (peak {mem:.2f} GiB)")
            continue
        u = r.useful / r.seconds
        ratio = f"{u / base:5.2f}x" if base else "   n/a"
        print(
            f"{r.name:18s} {u:12,.0f} {r.raw / r.seconds:10,.0f} {r.useful / r.raw:7.1%} "
            f"{ratio} {mem:8.2f}  {r.note}"
        )


if __name__ == "__main__":
    main()
