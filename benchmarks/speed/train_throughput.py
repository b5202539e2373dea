"""Training throughput: Jupiter's loop against Hugging Face `Trainer` and TRL `SFTTrainer`,
each with its own defaults, on the same tiny Llama and the same chat examples, in one run.

The data is an SFT set built here from the standard library's docs: "What does X do?"
answered with the opening paragraphs of X's docstring (and the language-reference topics
of `pydoc_data`), a few thousand chats of very uneven length.

The metric is useful tokens per second: the (token, next token) pairs inside examples
that went through training steps (n - 1 for an example of n tokens, counted the same way
on every side; padding never counts), over the wall time of those steps. The raw rate
counts every position, padding included. Warm-up steps, model build and data preparation
are not timed; rates are totals over the timed steps (the peers' steps differ in length,
so a total is fairer than a median). A peer's step runs from on_step_begin to on_step_end
(its collation comes before); Jupiter's is one `run_steps` call, its batch fetch included.

    python benchmarks/speed/train_throughput.py [--preset tiny] [--batch 16] [--ctx 512]
        [--steps 20] [--warmup 3]

`--batch` is sequences per step on every side: padded examples for the peers, packed rows
(each holding several examples) for Jupiter.
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing here may reach the network
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import argparse
import importlib
import inspect
import re
import statistics
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from pydoc_data.topics import topics
from typing import Any

import datasets
import numpy as np
import torch
import transformers
import trl
from transformers import (
    DataCollatorForSeq2Seq,
    PreTrainedTokenizerBase,
    Trainer,
    TrainerCallback,
    TrainingArguments,
)

from jupiter.config import TrainConfig
from jupiter.data.chat import Message, encode_chat
from jupiter.data.dataset import Encoded, PackedDataset
from jupiter.data.tokenizer import train_tokenizer
from jupiter.models.presets import ModelConfig, build_model
from jupiter.train.loop import TrainRun, run_steps, start

MODULES = (
    "os",
    "os.path",
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
    "heapq",
    "bisect",
    "argparse",
    "logging",
    "inspect",
    "ast",
    "dataclasses",
    "enum",
    "io",
    "tarfile",
    "zipfile",
    "csv",
    "urllib.parse",
    "http.client",
    "email.message",
    "threading",
    "asyncio",
    "socket",
    "sqlite3",
    "unittest",
    "difflib",
    "decimal",
    "fractions",
    "tempfile",
    "glob",
    "fnmatch",
    "struct",
    "hashlib",
    "base64",
    "copy",
    "pickle",
    "queue",
    "contextlib",
    "abc",
    "operator",
    "pprint",
    "traceback",
    "warnings",
    "weakref",
    "zlib",
    "gzip",
    "calendar",
    "configparser",
    "uuid",
    "ipaddress",
    "html.parser",
    "xml.etree.ElementTree",
    "math",
)
ANSWER_CHARS = 1800  # whole paragraphs up to this; ~500 tokens with the tokenizer below


# ---------------------------------------------------------------------------- data
def _answer(doc: str) -> str:
    """The doc's opening paragraphs, whole, up to ANSWER_CHARS (the first one at least)."""
    paras = [p.strip() for p in re.split(r"\n\s*\n", doc) if p.strip()]
    out: list[str] = []
    size = 0
    for p in paras:
        if out and size + len(p) > ANSWER_CHARS:
            break
        out.append(p[:ANSWER_CHARS])
        size += len(p)
    return "\n\n".join(out)


def _docstrings() -> list[tuple[str, str]]:
    """(dotted name, docstring) of the public members of MODULES and of their classes."""
    out, seen = [], set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated members warn when touched
        for mod in MODULES:
            for attr, obj in inspect.getmembers(importlib.import_module(mod)):
                if attr.startswith("_"):
                    continue
                members = [(f"{mod}.{attr}", obj)]
                if inspect.isclass(obj):
                    members += [
                        (f"{mod}.{attr}.{a}", o)
                        for a, o in vars(obj).items()
                        if not a.startswith("_")
                    ]
                for name, o in members:
                    doc = inspect.getdoc(o)
                    if doc and doc not in seen:  # inherited and aliased docs once
                        seen.add(doc)
                        out.append((name, doc))
    return out


def doc_chats() -> list[list[Message]]:
    pairs = [(f"What is '{k}' in Python?", v) for k, v in sorted(topics.items())]
    pairs += [(f"What does {name} do?", doc) for name, doc in _docstrings()]
    return [
        [{"role": "user", "content": q}, {"role": "assistant", "content": _answer(d)}]
        for q, d in pairs
    ]


# ------------------------------------------------------------------------- measure
@dataclass
class Result:
    name: str
    useful: int  # the examples' own tokens in the timed steps
    raw: int  # every position of the timed batches, padding included
    seconds: float  # wall time of the timed steps
    note: str = ""


class BatchTally:
    """Wraps a peer's collator and counts each batch's real and padded tokens, in order."""

    def __init__(self, collate: Callable[[list[dict[str, Any]]], dict[str, Any]]) -> None:
        self.collate = collate
        self.counts: list[tuple[int, int]] = []

    def __call__(self, features: list[dict[str, Any]]) -> dict[str, Any]:
        batch = self.collate(features)
        ids = batch["input_ids"]
        mask = batch.get("attention_mask")
        pos = batch.get("position_ids")
        if mask is None and pos is not None:  # padding-free: one row, positions restart at 0
            useful = ids.numel() - int((pos == 0).sum())
        else:
            real = int(mask.sum()) if mask is not None else ids.numel()
            useful = real - ids.shape[0]  # n - 1 of each example's n tokens predict another
        self.counts.append((useful, ids.numel()))
        return batch


class StepClock(TrainerCallback):
    """Wall time from on_step_begin to on_step_end: forward, backward, optimizer step."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self._t0 = 0.0

    def on_step_begin(self, args: Any, state: Any, control: Any, **kw: Any) -> None:
        self._t0 = time.perf_counter()

    def on_step_end(self, args: Any, state: Any, control: Any, **kw: Any) -> None:
        self.times.append(time.perf_counter() - self._t0)


def timed_train(name: str, trainer: Trainer, warmup: int, note: str) -> Result:
    """Run a peer's `train()`, counting its batches and timing its steps past warm-up.

    The note gets what was in effect, read back from the trainer: autocast dtype and
    gradient checkpointing."""
    tally = BatchTally(trainer.data_collator)  # the dataloader is built in train()
    trainer.data_collator = tally
    clock = StepClock()
    trainer.add_callback(clock)
    trainer.train()
    ckpt = getattr(trainer.model, "is_activation_checkpointing", None)  # transformers 5.x
    if ckpt is None:
        ckpt = bool(getattr(trainer.model, "is_gradient_checkpointing", False))
    amp = trainer.accelerator.mixed_precision  # "no", "bf16" or "fp16": autocast dtype
    note = f"{'fp32' if amp == 'no' else amp + ' autocast'}, grad ckpt {ckpt}, {note}"
    # Batches are collated in step order (the dataloader may run one batch ahead).
    timed = tally.counts[warmup : len(clock.times)]
    return Result(
        name, sum(u for u, _ in timed), sum(r for _, r in timed), sum(clock.times[warmup:]), note
    )


def peer_args(cls: type[TrainingArguments], out: Path, batch: int, steps: int, seed: int) -> Any:
    """Only what a run must say: where, how many, no reporting/saving/logging, CPU."""
    return cls(
        output_dir=str(out),
        per_device_train_batch_size=batch,
        max_steps=steps,
        seed=seed,
        report_to="none",
        save_strategy="no",
        logging_strategy="no",
        disable_tqdm=True,
        use_cpu=True,
    )


def run_hf_trainer(
    mc: Any, tok: PreTrainedTokenizerBase, encoded: list[Encoded], a: argparse.Namespace, out: Path
) -> Result:
    # Labels masked to the assistant turns by Jupiter's encode_chat: the same targets.
    data = datasets.Dataset.from_dict(
        {"input_ids": [i for i, _ in encoded], "labels": [lab for _, lab in encoded]}
    )
    args = peer_args(TrainingArguments, out, a.batch, a.warmup + a.steps, a.seed)
    trainer = Trainer(
        model=build_model(mc, a.seed),
        args=args,
        train_dataset=data,
        data_collator=DataCollatorForSeq2Seq(tok, padding=True),
    )
    optim = getattr(args.optim, "value", args.optim)
    return timed_train("HF Trainer", trainer, a.warmup, f"{optim}, padded")


def run_sft_trainer(
    mc: Any,
    tok: PreTrainedTokenizerBase,
    chats: list[list[Message]],
    a: argparse.Namespace,
    out: Path,
) -> Result:
    data = datasets.Dataset.from_list([{"messages": c} for c in chats])
    args = peer_args(trl.SFTConfig, out, a.batch, a.warmup + a.steps, a.seed)
    trainer = trl.SFTTrainer(
        model=build_model(mc, a.seed), args=args, train_dataset=data, processing_class=tok
    )
    optim = getattr(args.optim, "value", args.optim)
    loss_on = "assistant" if args.assistant_only_loss else "all"
    note = f"{optim}, packing {args.packing}, padded, loss on {loss_on} tokens"
    return timed_train("TRL SFTTrainer", trainer, a.warmup, note)


def run_jupiter(
    mc: Any, data: PackedDataset, precision: str, a: argparse.Namespace, out: Path, tok_dir: Path
) -> Result:
    cfg = TrainConfig(
        max_steps=a.warmup + a.steps,
        micro_batch_size=a.batch,
        precision=precision,
        metrics=[],
        seed=a.seed,
    )  # type: ignore[arg-type]
    run = TrainRun(
        dataset=data,
        config=cfg,
        out_dir=out,
        tokenizer_dir=tok_dir,
        model_config=mc,
        device="cpu",
        progress=False,
    )
    # A packed example of n tokens fills n - 1 positions: exactly its useful count.
    per_row = np.array([int((data.row(r)[0] != data.pad_id).sum()) for r in range(data.num_rows)])
    state = start(run)
    useful = raw = 0
    seconds = 0.0
    for step in range(a.warmup + a.steps):
        n = int(per_row[data.rows_of(state.epoch, state.index, a.batch)].sum())
        t0 = time.perf_counter()
        run_steps(run, state, 1)
        if step >= a.warmup:
            seconds += time.perf_counter() - t0
            useful += n
            raw += a.batch * data.context_length
    prec = {None: "fp32", torch.bfloat16: "bf16 autocast"}.get(state.plan.amp, str(state.plan.amp))
    note = f"{prec}, grad ckpt {state.plan.grad_ckpt}, packed"
    return Result(f"Jupiter, precision={precision}", useful, raw, seconds, note)


# ---------------------------------------------------------------------------- main
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="tiny")
    ap.add_argument("--batch", type=int, default=16, help="sequences per step, every side")
    ap.add_argument("--ctx", type=int, default=512)
    ap.add_argument("--steps", type=int, default=20, help="timed steps")
    ap.add_argument("--warmup", type=int, default=3, help="untimed steps first")
    ap.add_argument("--vocab", type=int, default=4096)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    load_before = os.getloadavg()[0]  # other processes on 2 cores skew every figure
    transformers.logging.set_verbosity_error()
    warnings.filterwarnings("ignore", category=FutureWarning)  # renamed-argument notices
    datasets.disable_progress_bars()
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        chats = doc_chats()
        tok = train_tokenizer([m["content"] for c in chats for m in c], a.vocab, tmp / "tok")
        encoded = [encode_chat(tok, c) for c in chats]
        # Examples longer than the context are left out, so no side truncates or splits.
        keep = [i for i, (ids, _) in enumerate(encoded) if len(ids) <= a.ctx]
        chats, encoded = [chats[i] for i in keep], [encoded[i] for i in keep]
        packed = PackedDataset(encoded, a.ctx, tok.pad_token_id, a.seed)
        mc = ModelConfig.from_preset(
            a.preset, len(tok), a.ctx, tok.pad_token_id, tok.bos_token_id, tok.eos_token_id
        )
        lengths = sorted(len(ids) for ids, _ in encoded)
        print(
            f"data: {len(encoded)} chats, tokens min {lengths[0]} / median "
            f"{statistics.median(lengths):.0f} / mean {statistics.mean(lengths):.0f} / max "
            f"{lengths[-1]}; Jupiter packs them into {packed.num_rows} rows of {a.ctx} "
            f"({packed.tokens / (packed.num_rows * a.ctx):.1%} full, "
            f"{len(encoded) / packed.num_rows:.1f} chats a row)"
        )
        results = [
            run_hf_trainer(mc, tok, encoded, a, tmp / "hf"),
            run_sft_trainer(mc, tok, chats, a, tmp / "trl"),
            run_jupiter(mc, packed, "auto", a, tmp / "jup-auto", tmp / "tok"),
            run_jupiter(mc, packed, "fp32", a, tmp / "jup-fp32", tmp / "tok"),
        ]
    print_table(results, a)
    print(
        f"\n1-minute load average: {load_before:.2f} before, {os.getloadavg()[0]:.2f} after "
        f"(this run's own threads count too)"
    )


def print_table(results: list[Result], a: argparse.Namespace) -> None:
    print(
        f"\npreset {a.preset}, {a.batch} sequences a step, ctx {a.ctx}, {a.steps} timed steps "
        f"after {a.warmup} warm-up; torch {torch.__version__}, cpu capability "
        f"{torch.backends.cpu.get_cpu_capability()}, {torch.get_num_threads()} threads; "
        f"transformers {transformers.__version__}, trl {trl.__version__}"
    )
    print("rates are totals over the timed steps; ratio = useful tok/s / HF Trainer's\n")
    base = results[0].useful / results[0].seconds
    print(
        f"{'side':28s} {'useful tok/s':>12s} {'raw tok/s':>10s} {'useful':>7s} {'ratio':>6s}  setup"
    )
    for r in results:
        u = r.useful / r.seconds
        print(
            f"{r.name:28s} {u:12,.0f} {r.raw / r.seconds:10,.0f} {r.useful / r.raw:7.1%} "
            f"{u / base:5.2f}x  {r.note}"
        )


if __name__ == "__main__":
    main()
