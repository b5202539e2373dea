"""MLX LoRA throughput: Jupiter's MLX backend (`mlx_loop.start` + `run_steps`) against
mlx-lm's own LoRA trainer (`mlx_lm.tuner.trainer.train`), in one process, alternating.

Both sides train the same tiny Llama (saved once as an fp32 HF dir and loaded by each side
its own way: `mlx_loop.start`, and `mlx_lm.utils.load_model`), with LoRA on every linear
layer but the head (q, k, v, o, gate, up, down), the same rank and scale (alpha / r),
dropout 0 and the same initial LoRA weights (Jupiter's, copied into mlx-lm's layers), and
AdamW at the same constant lr, betas, eps and weight decay (bias correction on both;
Jupiter's gradient clipping set out of reach, since mlx-lm's trainer does not clip), fp32,
no gradient checkpointing, no validation, the same batch size and number of steps.

The data are the same token sequences on both sides: the plain-text pydoc pages of some
standard-library modules, tokenized with a BPE trained on them, cut into windows of
ctx + 1 tokens. Jupiter packs each window into one row of ctx (input, target) pairs
(positions 0..ctx-1, no padding); mlx-lm gets the windows as (tokens, 0) items, which
`iterate_batches` turns into (batch, ctx + 1) arrays with `max_seq_length=ctx + 1`, so its
loss sees the very same ctx (input, target) pairs per sequence and no padding. Every
position of every batch is a real token on both sides, so both count batch × ctx tokens a
step (Jupiter's own count; for mlx-lm, the count its loss returns). The windows are ordered
so that mlx-lm's seeded shuffle reads Jupiter's batches in Jupiter's order: both sides do
the same training, and their mean step losses agree (printed). What still differs is each
side's own machinery: Jupiter's forward takes per-token positions (RoPE per token, a
block-causal bool mask, here one block a row); mlx-lm's model call uses RoPE at offset 0
and the "causal" mask; mlx-lm compiles its step (`mx.compile`), Jupiter does not.

Timing: each side runs `--warmup` untimed steps, then `--steps` timed ones, each timed
with its batch fetching. Jupiter: one `run_steps(run, state, 1)` call a step, as
`mlx_loop.train` drives it. mlx-lm: from the moment `train()` asks `iterate_batches` for a
batch to the moment it asks for the next one (after the last step: its loss report;
`steps_per_report` is the whole run, so that is its only report). Three figures per run:
tokens over the total wall time, tokens of one step over the median step (less hit when
the machine is busy for a while) and tokens over the process's CPU time. The sides
alternate `--repeats` times (the first side swaps every repeat), each from a fresh model;
the table gives medians of the repeats, and the ratio of each repeat's two runs (back to
back, so less hit by the machine's load drifting) follows.

    python benchmarks/speed/mlx_lora.py [--steps 8] [--warmup 2] [--repeats 3] [--batch 4]
        [--ctx 128] [--hidden 256] [--layers 4] [--r 8] [--alpha 16]

On Linux, the mlx[cpu] wheel links the reference (netlib) BLAS, so its matrix products run
about 15-20x slower than torch's on the same cores and dominate every step: the defaults are
sized for that (4-5 minutes on 2 cores). Preloading an optimized BLAS (OpenBLAS) into
the process makes them ~18x faster, which leaves more of each step to the framework code.
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing here may reach the network

import argparse
import contextlib
import gc
import importlib
import io
import platform
import pydoc
import statistics
import tempfile
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mlx.core as mx
import mlx.optimizers as optim
import mlx_lm
import numpy as np
import torch
import transformers
from mlx.utils import tree_unflatten
from mlx_lm.tuner.callbacks import TrainingCallback
from mlx_lm.tuner.trainer import TrainingArgs, default_loss, iterate_batches
from mlx_lm.tuner.trainer import train as mlx_lm_train
from mlx_lm.tuner.utils import linear_to_lora_layers
from mlx_lm.utils import load_model
from transformers import LlamaConfig, LlamaForCausalLM

from jupiter.config import LoraConfig, TrainConfig
from jupiter.data.dataset import PackedDataset
from jupiter.data.tokenizer import train_tokenizer
from jupiter.train import mlx_loop
from jupiter.train.loop import TrainRun
from jupiter.train.mlx_model import batch_arrays, flat, loss_sum

MODULES = (
    "os",
    "re",
    "json",
    "collections",
    "itertools",
    "functools",
    "pathlib",
    "string",
    "textwrap",
    "shutil",
    "subprocess",
    "typing",
    "datetime",
    "random",
    "statistics",
    "argparse",
    "logging",
    "inspect",
    "dataclasses",
    "enum",
    "tarfile",
    "zipfile",
    "csv",
    "threading",
    "socket",
    "sqlite3",
    "difflib",
    "decimal",
    "tempfile",
    "struct",
    "hashlib",
    "pickle",
    "contextlib",
    "operator",
    "traceback",
    "calendar",
    "configparser",
    "uuid",
)
TARGETS = (
    "self_attn.q_proj",
    "self_attn.k_proj",
    "self_attn.v_proj",
    "self_attn.o_proj",
    "mlp.gate_proj",
    "mlp.up_proj",
    "mlp.down_proj",
)
BETAS = (0.9, 0.95)  # TrainConfig's defaults, given to both sides
WEIGHT_DECAY = 0.1


# ---------------------------------------------------------------------------- data
def pydoc_texts(max_chars: int) -> list[str]:
    """The plain-text pydoc pages of MODULES, until max_chars in all."""
    out, size = [], 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated members warn when rendered
        for name in MODULES:
            text = pydoc.render_doc(importlib.import_module(name), renderer=pydoc.plaintext)
            out.append(text)
            size += len(text)
            if size >= max_chars:
                break
    return out


def windows(tok: Any, texts: list[str], ctx: int) -> list[list[int]]:
    """Consecutive, non-overlapping windows of ctx + 1 tokens of the texts joined by EOS."""
    ids: list[int] = []
    for text in texts:
        ids += tok(text, add_special_tokens=False)["input_ids"] + [tok.eos_token_id]
    n = len(ids) // (ctx + 1)
    return [ids[i * (ctx + 1) : (i + 1) * (ctx + 1)] for i in range(n)]


def save_base(a: argparse.Namespace, tok: Any, path: Path) -> int:
    """A random-initialized fp32 Llama HF dir at path; returns its parameter count."""
    cfg = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=a.hidden,
        intermediate_size=a.hidden * 4,
        num_hidden_layers=a.layers,
        num_attention_heads=a.heads,
        num_key_value_heads=a.heads // 2,
        max_position_embeddings=max(2 * a.ctx, 512),
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
        tie_word_embeddings=False,
        pad_token_id=tok.pad_token_id,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
    )
    torch.manual_seed(a.seed)
    model = LlamaForCausalLM(cfg)
    model.save_pretrained(path, safe_serialization=True)
    tok.save_pretrained(path)
    return sum(p.numel() for p in model.parameters())


# --------------------------------------------------------------------------- sides
@dataclass
class Shared:
    """What both sides start from: the base dir, the data, the LoRA init, and the order."""

    base: Path
    seqs: list[list[int]]  # windows of ctx + 1 tokens
    data: PackedDataset  # Jupiter's rows: row r holds seqs[r]
    init: dict[str, Any]  # the LoRA weights Jupiter starts from, by mlx path
    mlx_items: list[tuple[list[int], int]]  # seqs ordered so mlx-lm reads Jupiter's batches


@dataclass
class Result:
    step_tokens: int  # batch × ctx, every step
    walls: list[float]  # wall time of each timed step
    cpus: list[float]  # CPU time of the process (all its threads) in each timed step
    mean_loss: float  # the mean step loss over all steps, warm-up included

    @property
    def rate(self) -> float:
        """Tokens over the timed steps' total wall time."""
        return self.step_tokens * len(self.walls) / sum(self.walls)

    @property
    def step_rate(self) -> float:
        """Tokens of one step over the median step's wall time (less hit by a busy spell)."""
        return self.step_tokens / statistics.median(self.walls)

    @property
    def cpu_rate(self) -> float:
        """Tokens over the timed steps' total CPU time."""
        return self.step_tokens * len(self.cpus) / sum(self.cpus)


def stamp() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def laps(stamps: list[tuple[float, float]]) -> tuple[list[float], list[float]]:
    """(wall, CPU) durations between consecutive stamps."""
    pairs = list(zip(stamps, stamps[1:], strict=False))
    return [b[0] - a[0] for a, b in pairs], [b[1] - a[1] for a, b in pairs]


def jupiter_run(sh: Shared, a: argparse.Namespace, out: Path) -> TrainRun:
    # grad_clip: mlx-lm's trainer does not clip, so Jupiter's clip never bites (the norm
    # is still computed); a constant lr (min_lr = lr, no warm-up), as mlx-lm's default
    cfg = TrainConfig(
        method="lora",
        lora=LoraConfig(r=a.r, alpha=a.alpha, dropout=0.0),
        max_steps=a.warmup + a.steps,
        micro_batch_size=a.batch,
        grad_accum=1,
        lr=a.lr,
        min_lr=a.lr,
        warmup_steps=0,
        weight_decay=WEIGHT_DECAY,
        beta1=BETAS[0],
        beta2=BETAS[1],
        grad_clip=1e30,
        precision="fp32",
        gradient_checkpointing=False,
        metrics=[],
        seed=a.seed,
        resume="never",
    )
    return TrainRun(
        dataset=sh.data,
        config=cfg,
        out_dir=out,
        tokenizer_dir=sh.base,
        model_dir=sh.base,
        device="cpu",
        progress=False,
    )


def run_jupiter(sh: Shared, a: argparse.Namespace, out: Path) -> Result:
    run = jupiter_run(sh, a, out)
    state = mlx_loop.start(run)
    assert state.plan.grad_accum == 1 and not state.plan.grad_ckpt
    mlx_loop.run_steps(run, state, a.warmup)
    tokens0 = state.tokens
    stamps = [stamp()]
    for _ in range(a.steps):  # one step a call, as mlx_loop.train drives it
        mlx_loop.run_steps(run, state, 1)
        stamps.append(stamp())
    # Jupiter's count: global batch × context length
    assert state.tokens - tokens0 == a.steps * a.batch * a.ctx
    return Result(a.batch * a.ctx, *laps(stamps), float(np.mean(state.losses)))


class Clock(TrainingCallback):
    """Wraps mlx-lm's iterate_batches to stamp when the trainer asks for each batch (and to
    seed its shuffle), and stamps its loss report after the last step."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.stamps: list[tuple[float, float]] = []  # (wall, CPU) before each batch, and
        # after the last step (its loss report)
        self.report: dict[str, Any] = {}

    def batches(self, *args: Any, **kw: Any) -> Iterator[Any]:
        inner = iterate_batches(*args, **kw, seed=self.seed)
        while True:
            self.stamps.append(stamp())
            try:
                batch = next(inner)
            except StopIteration:
                return
            yield batch

    def on_train_loss_report(self, train_info: dict[str, Any]) -> None:
        self.stamps.append(stamp())
        self.report = train_info


def mlx_lm_model(sh: Shared, a: argparse.Namespace) -> Any:
    """The base loaded by mlx-lm, frozen, LoRA on TARGETS as mlx-lm's lora.py does it, then
    the LoRA weights set to Jupiter's initial ones (A random, B zero)."""
    model, _ = load_model(sh.base)
    model.freeze()
    mx.random.seed(a.seed)
    config = {"rank": a.r, "scale": a.alpha / a.r, "dropout": 0.0, "keys": list(TARGETS)}
    linear_to_lora_layers(model, len(model.layers), config)
    mine = flat(model.trainable_parameters())
    assert mine.keys() == sh.init.keys(), "LoRA on different layers"
    model.update(tree_unflatten(list(sh.init.items())))
    mx.eval(model.parameters())
    return model


def run_mlx_lm(sh: Shared, a: argparse.Namespace, out: Path) -> Result:
    model = mlx_lm_model(sh, a)
    opt = optim.AdamW(
        learning_rate=a.lr,
        betas=list(BETAS),
        eps=1e-8,
        weight_decay=WEIGHT_DECAY,
        bias_correction=True,
    )
    iters = a.warmup + a.steps
    never = 10 * iters
    args = TrainingArgs(
        batch_size=a.batch,
        iters=iters,
        val_batches=0,
        steps_per_report=never,
        steps_per_eval=never,
        steps_per_save=never,
        max_seq_length=a.ctx + 1,
        adapter_file=str(out / "adapters.safetensors"),
        grad_checkpoint=False,
        grad_accumulation_steps=1,
    )
    out.mkdir(parents=True, exist_ok=True)
    clock = Clock(a.seed)
    with contextlib.redirect_stdout(io.StringIO()):  # its progress bar and report line
        mlx_lm_train(
            model,
            opt,
            sh.mlx_items,
            None,
            args,
            iterate_batches=clock.batches,
            training_callback=clock,
        )
    # mlx-lm's count: the targets its loss masks in, here every position of every batch
    assert clock.report["trained_tokens"] == iters * a.batch * a.ctx
    assert len(clock.stamps) == iters + 1
    return Result(a.batch * a.ctx, *laps(clock.stamps[a.warmup :]), clock.report["train_loss"])


def shared(base: Path, seqs: list[list[int]], data: PackedDataset, a: argparse.Namespace) -> Shared:
    """Jupiter's LoRA init, and the data in the order that makes mlx-lm's iterate_batches
    (which sorts by length, stable here, cuts batches of `batch` in order and shuffles them
    with np.random.seed(seed)) read Jupiter's batches of its first epoch, in Jupiter's order."""
    for r in (0, len(seqs) - 1):
        assert data.row(r)[0].tolist() == seqs[r][:-1], "a row is not its window"
    state = mlx_loop.start(jupiter_run(Shared(base, seqs, data, {}, []), a, Path("unused")))
    init = {k: mx.array(v) for k, v in flat(state.model.trainable_parameters()).items()}
    n_batches = len(seqs) // a.batch
    np.random.seed(a.seed)
    theirs = np.random.permutation(n_batches)  # mlx-lm's step k reads its batch theirs[k]
    mine = data.permutation(0)  # Jupiter's step k reads rows mine[k * batch : (k + 1) * batch]
    order = [int(i) for i in mine]  # the tail (no whole batch) stays as Jupiter leaves it
    for k, j in enumerate(theirs):
        order[j * a.batch : (j + 1) * a.batch] = mine[k * a.batch : (k + 1) * a.batch]
    assert sorted(order) == list(range(len(seqs)))
    return Shared(base, seqs, data, init, [(seqs[i], 0) for i in order])


def initial_losses(sh: Shared, a: argparse.Namespace) -> tuple[float, float]:
    """Both sides' loss on Jupiter's first batch before training: the same model, weights
    and tokens give the same number."""
    b = sh.data.batch(0, 0, a.batch)
    ids, targets, positions = batch_arrays(b)
    state = mlx_loop.start(jupiter_run(sh, a, Path("unused")))
    mine = float(np.array(loss_sum(state.model, ids, targets, positions, False))) / targets.size
    seq = mx.concatenate([ids, targets[:, -1:]], axis=1)  # the ctx + 1 windows again
    lengths = mx.array([[0, a.ctx + 1]] * a.batch)
    theirs, _ = default_loss(mlx_lm_model(sh, a), seq, lengths)
    return mine, float(np.array(theirs))


# ---------------------------------------------------------------------------- main
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=8, help="timed steps per run")
    ap.add_argument("--warmup", type=int, default=2, help="untimed steps first")
    ap.add_argument("--repeats", type=int, default=3, help="runs per side, alternating")
    ap.add_argument("--batch", type=int, default=4, help="sequences per step")
    ap.add_argument("--ctx", type=int, default=128, help="tokens per sequence")
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--vocab", type=int, default=4096)
    ap.add_argument("--r", type=int, default=8)
    ap.add_argument("--alpha", type=int, default=16)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--text-kb", type=int, default=400, help="pydoc text to tokenize")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()  # the shard writing bar
    wall0, load0 = time.perf_counter(), os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        texts = pydoc_texts(a.text_kb * 1000)
        tok = train_tokenizer(texts, a.vocab, tmp / "tok")
        seqs = windows(tok, texts, a.ctx)
        data = PackedDataset([(s, s) for s in seqs], a.ctx, tok.pad_token_id, a.seed)
        assert data.num_rows == len(seqs) and data.tokens == len(seqs) * a.ctx  # no padding
        n_params = save_base(a, tok, tmp / "base")
        print(
            f"data: {sum(map(len, texts)) / 1e3:.0f} kB of pydoc text from {len(texts)} "
            f"modules, {len(seqs)} sequences of {a.ctx} + 1 tokens (vocab {len(tok)})"
        )
        print(
            f"model: Llama, hidden {a.hidden}, {a.layers} layers, {a.heads} heads "
            f"({a.heads // 2} kv), {n_params / 1e6:.2f} M parameters, fp32; LoRA r {a.r} "
            f"alpha {a.alpha} (scale {a.alpha / a.r:g}) on {', '.join(TARGETS)}"
        )
        sh = shared(tmp / "base", seqs, data, a)
        mine, theirs = initial_losses(sh, a)
        print(f"loss on the first batch before training: Jupiter {mine:.6f}, mlx-lm {theirs:.6f}")
        if a.warmup + a.steps > len(seqs) // a.batch:
            print("note: more steps than one epoch; past it the two sides' batch orders differ")
        sides = {"Jupiter": run_jupiter, "mlx-lm": run_mlx_lm}
        results: dict[str, list[Result]] = {name: [] for name in sides}
        for rep in range(a.repeats):
            order = list(sides) if rep % 2 == 0 else list(sides)[::-1]
            for name in order:
                gc.collect()
                out = tmp / f"{name}-{rep}"
                r = sides[name](sh, a, out)
                results[name].append(r)
                print(
                    f"repeat {rep + 1} {name:8s} {r.rate:7,.0f} tok/s, median step "
                    f"{r.step_rate:7,.0f} tok/s, {r.cpu_rate:7,.0f} tok per CPU-s ("
                    f"{sum(r.walls):.1f} s, CPU {sum(r.cpus):.1f} s; mean step loss "
                    f"{r.mean_loss:.5f}; load {os.getloadavg()[0]:.1f})",
                    flush=True,
                )
    print(
        f"\n{platform.system()}, {os.cpu_count()} cores, mlx {mx.__version__} "
        f"({mx.default_device()}), mlx-lm {mlx_lm.__version__}; batch {a.batch} × ctx "
        f"{a.ctx}, {a.steps} timed steps after {a.warmup} warm-up, {a.repeats} repeats"
    )
    measures = {"tok/s": "rate", "median-step tok/s": "step_rate", "tok/CPU-s": "cpu_rate"}
    med = {
        (name, m): statistics.median(getattr(r, attr) for r in rs)
        for name, rs in results.items()
        for m, attr in measures.items()
    }
    print(f"{'medians of the repeats':24s}" + "".join(f"{m:>19s}" for m in measures))
    for name in results:
        print(f"{name:24s}" + "".join(f"{med[name, m]:19,.0f}" for m in measures))
    ratios = "".join(f"{med['Jupiter', m] / med['mlx-lm', m]:18.2f}x" for m in measures)
    print(f"{'ratio Jupiter / mlx-lm':24s}{ratios}")
    # each repeat's two runs are back to back, so their ratio is less hit by a slow drift
    pairs = [j.rate / m.rate for j, m in zip(*results.values(), strict=True)]
    print(
        f"per-repeat ratios (tok/s): {', '.join(f'{x:.2f}' for x in pairs)}; median "
        f"{statistics.median(pairs):.2f}x"
    )
    gap = max(abs(j.mean_loss - m.mean_loss) for j, m in zip(*results.values(), strict=True))
    print(f"same training on both sides: mean step losses differ by at most {gap:.1e}")
    print(
        f"wall time {time.perf_counter() - wall0:.0f} s; 1-minute load average "
        f"{load0:.2f} at the start, {os.getloadavg()[0]:.2f} at the end"
    )


if __name__ == "__main__":
    main()
