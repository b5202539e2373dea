"""DiLoCo across islands against single-island DDP: held-out loss and bytes
communicated for the same token budget, on the tiny preset, in one run.

Three setups train the same initial weights on the same packed rows (the standard library's
own documentation, `jupiter.collect.stdlib`: the language-reference topics and every
module's docstrings; a seeded 5 % of the documents held out):

1. DDP: one torchrun of 2 ranks (gloo), a global batch of B rows a step, S steps;
2. DiLoCo: two islands of 1 torch rank each, B/2 rows a step each, S steps each, the
   outer Nesterov step (lr 0.7, momentum 0.9: `--outer-lr`, `--outer-momentum`) every H
   inner steps, bf16 pseudo-gradients;
3. averaging: the same islands with `outer: average` (plain weight averaging).

Every island reads its own half of the rows (`PackedDataset.shard`), so the three setups see
the same number of tokens (checked: each run's checkpoints count them). Every final model
dir is evaluated here by one function on all held-out rows, in fp32.

Bytes: for DDP, what a ring all-reduce of the fp32 gradients sends each step,
2(W-1)/W x 4 bytes x parameters per rank, x W ranks; for the islands, the coordinator's
report: pseudo-gradients up plus fp32 global weights down, every round.

    python benchmarks/quality/diloco.py [--steps 300] [--inner-steps 50] [--batch 16] [--quick]
        [--outer-lr 0.7] [--outer-momentum 0.9] [--alone]
        [--outer-lr-schedule cosine --outer-min-lr 0] [--fragments F] [--overlap-steps T]

`--alone` adds a reference row: one island alone (its shard, B/2 rows, S steps: half the
tokens, nothing synced), to show what syncing the two islands buys.

On one machine the islands are processes beside each other: the launcher shares the cores
among them (`local_threads`: one OpenMP thread each here), as torchrun does among DDP's ranks.

`--finetune` runs the users' workload instead of the tiny preset: Gemma 3 270M (`make
real-model`) with LoRA (r 16, alpha 32, as python-gemma.yaml) on the Python domain's quick
documents (its ten modules and the language reference), every setup from the same base and
adapter seed. Beside the held-out loss it scores each final model on the exam in a user's
words (`config/domains/exams/python.jsonl`, the items whose quote is in these documents),
multiple choice, paired by item against DDP; bytes count the adapter only (what DDP's
all-reduce and the islands' pseudo-gradients carry):

    python benchmarks/quality/diloco.py --finetune [--steps 40] [--inner-steps 10] [--batch 4]
        [--ctx 256] [--sampled-vocab] [--freeze-a]

`--up-dtype int8|int4` and `--down-dtype int8|int4` quantize what travels (sync.dtype, and
sync.down_dtype: each round's change of the global weights instead of the fp32 weights), so
more rounds fit in the same bytes; `--no-exam` skips the exam (held-out loss and bytes only).

`--freeze-a` trains LoRA-FA (A fixed at a seeded start every island draws alike, B alone
trained and synced), where averaging B averages the adapters' updates exactly; DDP's
bytes then count B alone too.
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing here may reach the network
# One OpenMP thread a process (DDP's ranks, the islands, the coordinator, this one): on 2
# shared cores a process with more threads than free cores stalls in its parallel regions.
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import json
import math
import random
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
import yaml

from jupiter.cluster.launch import ClusterRun, read_report, run_cluster, start_loss
from jupiter.collect.stdlib import collect_stdlib
from jupiter.config import ClusterConfig, LoraConfig, PythonStdlibSource, TrainConfig
from jupiter.data.chat import IGNORE
from jupiter.data.dataset import PackedDataset, encode_examples
from jupiter.data.tokenizer import load_tokenizer, train_tokenizer
from jupiter.eval.userexam import collapse
from jupiter.models.loading import load_for_inference
from jupiter.models.presets import ModelConfig
from jupiter.train.checkpoint import latest_checkpoint, read_checkpoint
from jupiter.train.launch import Launch, launch_train
from jupiter.train.loop import TrainRun

HELDOUT_FRACTION = 0.05  # of the documents
ROOT = Path(__file__).resolve().parents[2]
DOMAINS = ROOT / "config" / "domains"
WORLD = 2  # DDP ranks, and islands
ISLANDS = ("a", "b")


@dataclass(frozen=True)
class Data:
    train: PackedDataset
    heldout: PackedDataset
    tok_dir: Path
    model_config: Any
    docs: tuple[int, int]  # training and held-out documents
    start_dir: Path | None = None  # --warm-start: every setup continues from this model dir
    exam: Path | None = None  # --finetune: the user exam's items these documents answer


def initial(data: Data) -> dict[str, Any]:
    """TrainRun's starting point: the preset from scratch (seeded), or the warm start."""
    if data.start_dir is not None:
        return {"model_dir": data.start_dir}
    return {"model_config": data.model_config}


@dataclass
class Result:
    name: str
    loss: float  # held-out loss of the final model, evaluated here
    bytes: float  # communicated over the whole run
    wall_s: float
    tokens: int  # input positions trained on, all ranks and islands, from the checkpoints
    notes: list[str] = field(default_factory=list)
    reference: bool = False  # not one of the compared setups (half the tokens, no sync)
    model_dir: Path | None = None  # the final model (an adapter dir with --finetune)
    exam: dict[str, Any] | None = None  # --finetune: `jupiter score`'s report on Data.exam


# ---------------------------------------------------------------------------- data
def stdlib_sources() -> list[str]:
    """The standard library's own Python source files (not its tests): --corpus docs+source."""
    root = Path(sysconfig.get_paths()["stdlib"])
    skip = {"test", "tests", "idlelib", "site-packages", "lib2to3"}
    files = sorted(p for p in root.rglob("*.py") if not skip & set(p.relative_to(root).parts))
    return [p.read_text(encoding="utf-8", errors="replace") for p in files]


def hold_out(texts: list[str], seed: int) -> tuple[list[str], list[str]]:
    """(training texts, held-out texts): a seeded 5 % of the documents held out."""
    texts = list(texts)
    random.Random(seed).shuffle(texts)
    n_held = max(1, round(HELDOUT_FRACTION * len(texts)))
    return texts[n_held:], texts[:n_held]


def corpus(seed: int, kind: str = "docs") -> tuple[list[str], list[str]]:
    """(training texts, held-out texts): the stdlib docs (and with docs+source, the stdlib's
    source files), a seeded 5 % of documents held out."""
    docs = collect_stdlib(PythonStdlibSource(type="python_stdlib"))
    texts = [d.text for d in docs if d.text.strip()]
    if kind == "docs+source":
        texts += [t for t in stdlib_sources() if t.strip()]
    return hold_out(texts, seed)


def build_data(root: Path, a: argparse.Namespace) -> Data:
    train_texts, held_texts = corpus(a.seed, a.corpus)
    # The tokenizer sees only the training documents: held-out text stays unseen.
    tok = train_tokenizer(train_texts, a.vocab, root / "tok")
    seqs = encode_examples(tok, [], train_texts, raw_text_fraction=1.0, seed=a.seed)
    held = encode_examples(tok, [], held_texts, raw_text_fraction=1.0, seed=a.seed)
    mc = ModelConfig.from_preset(
        "tiny", len(tok), a.ctx, tok.pad_token_id, tok.bos_token_id, tok.eos_token_id
    )
    return Data(
        PackedDataset(seqs, a.ctx, tok.pad_token_id, seed=a.seed),
        PackedDataset(held, a.ctx, tok.pad_token_id, seed=a.seed),
        root / "tok",
        mc,
        (len(train_texts), len(held_texts)),
    )


def gemma_dir() -> Path:
    """Gemma 3 270M as an HF dir, imported once from the GGUF python-gemma.yaml names."""
    from jupiter.models.reference import resolve_model, user_cache_dir

    base = yaml.safe_load((DOMAINS / "python-gemma.yaml").read_text())["model"]["base"]
    gguf = Path(base).expanduser()
    if not gguf.is_file():
        raise SystemExit(f"--finetune needs Gemma 3 270M at {gguf}: run `make real-model` first")
    return Path(resolve_model(str(gguf), base_dir=None, cache_dir=user_cache_dir()))


def build_finetune_data(root: Path, a: argparse.Namespace) -> Data:
    """The Python domain's quick documents in Gemma's tokens, a seeded 5 % held out; the
    user exam's items whose quote is in them."""
    quick = yaml.safe_load((DOMAINS / "python-gemma.yaml").read_text())["quick"]
    src = PythonStdlibSource.model_validate(quick["sources"][0])
    texts = [d.text for d in collect_stdlib(src) if d.text.strip()]
    train_texts, held_texts = hold_out(texts, a.seed)
    base = gemma_dir()
    tok = load_tokenizer(base)
    seqs = encode_examples(tok, [], train_texts, raw_text_fraction=1.0, seed=a.seed)
    held = encode_examples(tok, [], held_texts, raw_text_fraction=1.0, seed=a.seed)
    corpus_text = collapse(" ".join(texts))
    lines = (DOMAINS / "exams" / "python.jsonl").read_text().splitlines()
    kept = [ln for ln in lines if ln.strip() and collapse(json.loads(ln)["quote"]) in corpus_text]
    exam = root / "exam.jsonl"
    exam.write_text("\n".join(kept) + "\n")
    return Data(
        PackedDataset(seqs, a.ctx, tok.pad_token_id, seed=a.seed),
        PackedDataset(held, a.ctx, tok.pad_token_id, seed=a.seed),
        base,
        None,
        (len(train_texts), len(held_texts)),
        start_dir=base,
        exam=exam,
    )


REPORTS: Path | None = None  # --reports: where each model's exam report is kept


def score_exam(model_dir: Path, exam: Path, out: Path) -> dict[str, Any]:
    """`jupiter score` of a final model on the exam: multiple choice by the choices'
    likelihood, item by item (QA kept to 4 new tokens, no general text)."""
    jupiter = Path(sys.executable).with_name("jupiter")
    cmd = [str(jupiter), "score", "--model", str(model_dir), "--qa", str(exam), "--out", str(out)]
    cmd += ["--max-new-tokens", "4", "--general-max-bytes", "0", "--json"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"jupiter score {model_dir} failed: {proc.stderr.strip()[-2000:]}")
    if REPORTS is not None:
        REPORTS.mkdir(parents=True, exist_ok=True)
        (REPORTS / out.name).write_text(out.read_text())
    return dict(json.loads(out.read_text()))


def train_config(a: argparse.Namespace, micro: int) -> TrainConfig:
    """Like the cluster tests; checkpoints and held-out evals only at the end (the islands
    checkpoint after every round regardless: that is part of their wall time);
    with --finetune, LoRA r 16 as python-gemma.yaml has it."""
    finetune: dict[str, Any] = (
        {
            "method": "lora",
            "lora": LoraConfig(r=16, alpha=32, dropout=0.05, freeze_a=a.freeze_a),
            "vocab": "corpus" if a.sampled_vocab else "full",
        }
        if a.finetune
        else {}
    )
    return TrainConfig(
        max_steps=a.steps,
        micro_batch_size=micro,
        lr=a.lr,
        min_lr=a.lr / 10,
        warmup_steps=a.warmup,
        checkpoint_every=a.steps,
        eval_every=a.steps,
        precision=a.precision,
        gradient_checkpointing=False,
        metrics=[],
        seed=a.seed,
        **finetune,
    )


def trained_tokens(out_dir: Path) -> int:
    """Input positions the run trained on, as its newest checkpoint counts them."""
    ckpt = latest_checkpoint(out_dir)
    return int(read_checkpoint(ckpt)[0]["tokens"]) if ckpt is not None else 0


# ------------------------------------------------------------------------ evaluate
@torch.no_grad()
def heldout_loss(model_dir: Path, data: PackedDataset, batch: int = 32) -> float:
    """Mean next-token loss over every held-out row, fp32, as the training loop computes it
    (position ids restart at each packed example); rows batched so that the logits stay
    under 256 MB (one row at a time for Gemma's 262k-token vocabulary)."""
    model, _ = load_for_inference(model_dir)
    vocab = int(model.get_output_embeddings().weight.shape[0])
    batch = max(1, min(batch, 2**26 // (data.context_length * vocab)))
    total, count = 0.0, 0
    for start in range(0, data.num_rows, batch):
        rows = [data.row(r) for r in range(start, min(start + batch, data.num_rows))]
        ids, targets, positions = (
            torch.stack([torch.from_numpy(r[i]).long() for r in rows]) for i in range(3)
        )
        logits = model(input_ids=ids, position_ids=positions, use_cache=False).logits
        total += float(
            F.cross_entropy(
                logits.float().flatten(0, 1),
                targets.flatten(),
                ignore_index=IGNORE,
                reduction="sum",
            )
        )
        count += int((targets != IGNORE).sum())
    return total / count


def parameter_count(model_dir: Path, frozen_a: bool = False) -> int:
    """Parameters a step's gradient all-reduce carries (tied embeddings once, as DDP has them;
    an adapter's own tensors for LoRA, its B alone under LoRA-FA: A is saved, not trained)."""
    adapter = model_dir / "adapter_model.safetensors"
    if adapter.is_file():
        from safetensors import safe_open

        with safe_open(str(adapter), "pt") as f:
            keys = [k for k in f.keys() if not (frozen_a and ".lora_A." in k)]  # noqa: SIM118
            return sum(math.prod(f.get_slice(k).get_shape()) for k in keys)
    model, _ = load_for_inference(model_dir)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


# ---------------------------------------------------------------------------- runs
def run_torchrun(data: Data, a: argparse.Namespace, root: Path, alone: bool = False) -> Result:
    """DDP over WORLD ranks; alone: one island's shard on one rank, nothing synced."""
    ranks, name = (1, "alone") if alone else (WORLD, "ddp")
    dataset = data.train.shard(0, WORLD) if alone else data.train
    run = TrainRun(
        dataset,
        train_config(a, a.batch // WORLD),
        root / name,
        data.tok_dir,
        heldout=data.heldout,
        device="cpu",
        progress=False,
        **initial(data),
    )
    t0 = time.perf_counter()
    result = launch_train(run, Launch(nproc=ranks))
    wall = time.perf_counter() - t0
    params = parameter_count(result.model_dir, frozen_a=bool(a.finetune and a.freeze_a))
    # Ring all-reduce: each of W ranks sends 2(W-1)/W of the fp32 gradients every step.
    per_step = ranks * 2 * (ranks - 1) / ranks * 4 * params
    notes = [
        f"{params:,} parameters; the loop's own held-out loss (up to 256 rows): "
        f"{result.heldout_loss:.4f}; {result.tokens_per_s:,.0f} tokens/s while stepping"
    ]
    label = "1 island alone, 1 rank" if alone else f"DDP, 1 island x {WORLD} ranks"
    return Result(
        label,
        heldout_loss(result.model_dir, data.heldout),
        result.steps * per_step,
        wall,
        trained_tokens(run.out_dir),
        notes,
        reference=alone,
        model_dir=result.model_dir,
    )


def cluster_config(store: Path, a: argparse.Namespace, outer: str) -> ClusterConfig:
    nodes = [
        {
            "host": "localhost",
            "name": f"{name}-node",
            "device_type": "cpu",
            "backend": backend,
            "processes": 1,
            "island": name,
            "memory_gb": 8,
        }
        for name, backend in zip(ISLANDS, a.backends.split(","), strict=True)
    ]
    sync = {
        "store": str(store),
        "inner_steps": a.inner_steps,
        "outer": outer,
        "outer_lr": a.outer_lr,
        "outer_momentum": a.outer_momentum,
        **(
            {"outer_lr_schedule": a.outer_lr_schedule, "outer_min_lr": a.outer_min_lr}
            if outer == "nesterov"
            else {}
        ),
        "dtype": a.up_dtype,
        "down_dtype": a.down_dtype,
        "fragments": a.fragments,
        "overlap_steps": a.overlap_steps,
        "aggregate": "mean",
        "heartbeat_s": 1,
        "round_timeout_s": 600,
    }
    return ClusterConfig.model_validate({"nodes": nodes, "sync": sync})


def stepping_rate(rows: list[dict[str, Any]]) -> float:
    """The islands' summed training rate, each island's mean over the rounds."""
    per = {n: [r["tokens_per_s"][n] for r in rows if n in r["tokens_per_s"]] for n in ISLANDS}
    return sum(sum(v) / len(v) for v in per.values() if v)


def run_islands(data: Data, a: argparse.Namespace, root: Path, outer: str) -> Result:
    workdir = root / outer
    cfg = train_config(a, a.batch // WORLD)
    if a.island_lr_scale != 1.0:  # the islands' inner lr alone; DDP keeps --lr
        cfg = cfg.model_copy(
            update={"lr": cfg.lr * a.island_lr_scale, "min_lr": cfg.min_lr * a.island_lr_scale}
        )
    run = TrainRun(
        data.train,
        cfg,
        workdir,
        data.tok_dir,
        heldout=data.heldout,
        device="cpu",
        progress=False,
        **initial(data),
    )
    cr = ClusterRun(
        run, cluster_config(root / f"{outer}-sync", a, outer), str(root / f"{outer}-sync"), workdir
    )
    t0 = time.perf_counter()
    result = run_cluster(cr)
    wall = time.perf_counter() - t0
    if not result.finished:
        raise SystemExit(f"{outer}: the cluster run wrote no final model")
    rows = read_report(workdir)
    up, down = sum(r["bytes_up"] for r in rows), sum(r["bytes_down"] for r in rows)
    curve = [start_loss(workdir), *(r["heldout_loss"] for r in rows)]
    # what each island loaded at a round's start (all the weights, or the fragment the last
    # round synced) against the coordinator's own
    same = all(
        r["digests"] == r.get("expected_digests", dict.fromkeys(r["digests"], r["global_digest"]))
        for r in rows
    )
    frag = f", {a.fragments} fragments (one a round, the last round all)" if a.fragments > 1 else ""
    notes = [
        f"{len(rows)} rounds of H={a.inner_steps}{frag}; bytes up {up:,} ({a.up_dtype} pseudo-"
        f"gradients) + down {down:,} ({'fp32 global weights' if a.down_dtype == 'fp32' and a.fragments == 1 else a.down_dtype + ' changes of the global weights'}); the report's all-reduce equivalent "
        f"{sum(r['allreduce_bytes'] for r in rows):,.0f}",
        f"{stepping_rate(rows):,.0f} tokens/s while stepping (islands together); each island "
        f"waited {sum(sum(r['wait_s'].values()) for r in rows) / len(ISLANDS):.1f} s in all "
        "for the next round's weights",
        "every round, both islands trained from the round's global weights (or fragment) byte for byte "
        f"(report digests): {same}",
        "coordinator's own held-out loss (up to 256 rows), start then each round: "
        + " ".join(f"{x:.3f}" for x in curve if x is not None),
    ]
    tokens = sum(trained_tokens(workdir / name) for name in ISLANDS)
    name = f"DiLoCo {a.outer_lr:g}/{a.outer_momentum:g}" if outer == "nesterov" else "averaging"
    if outer == "nesterov" and a.outer_lr_schedule != "constant":
        name += f" ({a.outer_lr_schedule} to {a.outer_min_lr:g})"
    if a.fragments > 1:
        name = f"streaming {name}, F={a.fragments}"
    if a.overlap_steps:
        name += f", overlap τ={a.overlap_steps}"
    return Result(
        f"{name}, {a.backends.replace(',', '+')}",
        heldout_loss(result.model_dir, data.heldout),
        float(up + down),
        wall,
        tokens,
        notes,
        model_dir=result.model_dir,
    )


def warm_start(data: Data, a: argparse.Namespace, root: Path) -> Data:
    """W steps of DDP from scratch (same schedule shape, W steps long); its final model dir
    is every setup's starting point. The setups then read the rows from the start again."""
    w = argparse.Namespace(**{**vars(a), "steps": a.warm_start})
    run = TrainRun(
        data.train,
        train_config(w, a.batch // WORLD),
        root / "warm",
        data.tok_dir,
        model_config=data.model_config,
        heldout=data.heldout,
        device="cpu",
        progress=False,
    )
    result = launch_train(run, Launch(nproc=WORLD))
    loss = heldout_loss(result.model_dir, data.heldout)
    print(f"warm start: {a.warm_start} DDP steps, held-out loss {loss:.4f}", flush=True)
    return replace(data, start_dir=result.model_dir)


# ---------------------------------------------------------------------------- main
def print_table(
    results: list[Result],
    a: argparse.Namespace,
    data: Data,
    base_exam: dict[str, Any] | None = None,
) -> None:
    rounds = math.ceil(a.steps / a.inner_steps)
    model = (
        f"Gemma 3 270M + LoRA r 16{' (sampled-softmax loss)' if a.sampled_vocab else ''}"
        if a.finetune
        else f"tiny preset, vocab {a.vocab}"
    )
    print(
        f"\n{model}, ctx {a.ctx}; {a.steps} steps x {a.batch} rows "
        f"(islands: {a.batch // WORLD} rows each), H={a.inner_steps} ({rounds} rounds), lr "
        f"{a.lr:g} warmup {a.warmup}, precision {a.precision}; data: {data.docs[0]:,} training "
        f"documents in {data.train.num_rows:,} rows, {data.docs[1]:,} held-out documents in "
        f"{data.heldout.num_rows:,} rows ({data.heldout.label_tokens:,} target tokens); "
        f"torch {torch.__version__}"
        + (f"; warm start: {a.warm_start} DDP steps" if a.warm_start else "")
        + (f"; islands' lr x {a.island_lr_scale:g}" if a.island_lr_scale != 1.0 else "")
        + "\n"
    )
    base = results[0]  # DDP, when it ran
    print(
        f"{'setup':33s} {'held-out loss':>13s} {'vs DDP':>7s} {'bytes':>15s} "
        f"{'reduction':>9s} {'wall s':>7s} {'tokens':>10s}"
    )
    for r in results:
        cut = f"{base.bytes / r.bytes:8.1f}x" if r.bytes else f"{'-':>9s}"
        print(
            f"{r.name:33s} {r.loss:13.4f} {r.loss / base.loss:7.4f} {r.bytes:15,.0f} "
            f"{cut} {r.wall_s:7.1f} {r.tokens:10,}"
        )
    for r in results:
        for note in r.notes:
            print(f"  {r.name.split(',')[0]}: {note}")
    if len({r.tokens for r in results if not r.reference}) != 1:
        print("WARNING: the setups trained on different token counts")
    if data.exam is not None:
        print_exam(results, data, base_exam)


def print_exam(results: list[Result], data: Data, base: dict[str, Any] | None) -> None:
    """Each final model's multiple choice on the user exam, paired by item with DDP's."""
    from jupiter.eval.compare import compare_reports

    n = len(data.exam.read_text().splitlines()) if data.exam else 0
    print(f"\nthe user exam's {n} items these documents answer, multiple choice (chance 0.25):")
    rows = ([Result("base (no training)", 0.0, 0.0, 0.0, 0, exam=base)] if base else []) + [
        r for r in results if r.exam
    ]
    ddp = results[0].exam
    for r in rows:
        assert r.exam is not None
        ci = r.exam.get("mc_accuracy_ci") or [float("nan")] * 2
        line = f"  {r.name:33s} MC {r.exam['mc_accuracy']:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]"
        if ddp is not None and r.exam is not ddp:
            d = compare_reports(r.exam, ddp)["metrics"].get("mc_accuracy")
            if d:
                lo, hi = d["ci"]
                line += f"; − DDP {d['difference']:+.3f} [{lo:+.3f}, {hi:+.3f}] ({d['verdict']})"
        print(line)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--finetune",
        action="store_true",
        help="Gemma 3 270M with LoRA on the Python domain's documents, scored on the user exam "
        "(defaults: 40 steps, H=10, batch 4, ctx 256, lr 5e-4, warmup 4)",
    )
    ap.add_argument(
        "--sampled-vocab",
        action="store_true",
        help="with --finetune: train.vocab corpus (the training loss's sampled softmax)",
    )
    ap.add_argument("--steps", type=int, default=None, help="S: steps of every setup (300)")
    ap.add_argument("--inner-steps", type=int, default=None, help="H: inner steps a round (50)")
    ap.add_argument("--batch", type=int, default=None, help="B: DDP's global batch, rows (16)")
    ap.add_argument("--ctx", type=int, default=None, help="(128)")
    ap.add_argument("--vocab", type=int, default=2000)
    ap.add_argument("--warmup", type=int, default=None, help="(20)")
    ap.add_argument(
        "--corpus",
        default="docs",
        choices=["docs", "docs+source"],
        help="the stdlib docs, or the docs and the stdlib's source (about 7x the tokens)",
    )
    ap.add_argument("--lr", type=float, default=None, help="peak inner lr, cosine to lr/10 (3e-3)")
    ap.add_argument(
        "--warm-start",
        type=int,
        default=0,
        metavar="W",
        help="first train W steps with DDP; every setup continues from there "
        "(the DiLoCo paper's protocol: it starts from a pretrained model)",
    )
    ap.add_argument(
        "--setups",
        default="ddp,nesterov,average",
        help="comma-separated, from ddp, nesterov, average, alone",
    )
    ap.add_argument(
        "--backends",
        default="torch,torch",
        help="the two islands' backends: torch,torch or torch,mlx (MLX's CPU build on Linux)",
    )
    ap.add_argument("--outer-lr", type=float, default=0.7, help="DiLoCo's (the paper's 0.7)")
    ap.add_argument("--outer-momentum", type=float, default=0.9, help="DiLoCo's (paper: 0.9)")
    ap.add_argument(
        "--outer-lr-schedule",
        default="constant",
        choices=["constant", "cosine", "linear"],
        help="sync.outer_lr_schedule (nesterov): from --outer-lr down to --outer-min-lr",
    )
    ap.add_argument("--outer-min-lr", type=float, default=0.0, help="sync.outer_min_lr")
    ap.add_argument(
        "--fragments",
        type=int,
        default=1,
        help="sync.fragments F (Streaming DiLoCo): one of F strided layer fragments synced a "
        "round; give --inner-steps H/F to sync each fragment every H steps",
    )
    ap.add_argument(
        "--overlap-steps",
        type=int,
        default=0,
        help="sync.overlap_steps τ (Streaming DiLoCo's overlap): each island takes the next "
        "round's first τ steps before that round's weights come",
    )
    ap.add_argument(
        "--up-dtype",
        default="bf16",
        choices=["bf16", "fp16", "int8", "int4"],
        help="sync.dtype: the pseudo-gradients the islands send",
    )
    ap.add_argument(
        "--down-dtype",
        default="fp32",
        choices=["fp32", "int8", "int4"],
        help="sync.down_dtype: the global weights (fp32) or their quantized change a round",
    )
    ap.add_argument("--precision", default="fp32", choices=["fp32", "auto", "bf16"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--reports", type=Path, help="with --finetune: keep the exam reports here")
    ap.add_argument("--quick", action="store_true", help="60 steps, H=20: a smoke run")
    ap.add_argument(
        "--no-exam", action="store_true", help="with --finetune: held-out loss and bytes only"
    )
    ap.add_argument(
        "--freeze-a",
        action="store_true",
        help="with --finetune: LoRA-FA (train.lora.freeze_a), B alone trained and synced",
    )
    ap.add_argument(
        "--alone", action="store_true", help="also one island alone: half the tokens, no sync"
    )
    ap.add_argument(
        "--island-lr-scale",
        type=float,
        default=1.0,
        help="the islands' inner lr (peak and floor) times this; DDP keeps --lr. Adam on an "
        "island's half batch takes noisier, so shorter, steps in the signal's direction: "
        "sqrt(2) (1.414) would match two islands' mean step to DDP's",
    )
    a = ap.parse_args()
    # (steps, H, batch, ctx, lr, warmup): the tiny preset from scratch, or the fine-tune
    defaults = (40, 10, 4, 256, 5e-4, 4) if a.finetune else (300, 50, 16, 128, 3e-3, 20)
    keys = ("steps", "inner_steps", "batch", "ctx", "lr", "warmup")
    for key, value in zip(keys, defaults, strict=True):
        if getattr(a, key) is None:
            setattr(a, key, value)
    if a.quick:
        a.steps, a.inner_steps = (12, 4) if a.finetune else (60, 20)
    if a.backends not in ("torch,torch", "torch,mlx"):
        ap.error("--backends: torch,torch or torch,mlx")
    if a.sampled_vocab and a.backends == "torch,mlx":
        ap.error("--sampled-vocab: train.vocab corpus runs in the torch loop only, not on MLX")
    if a.finetune and (a.warm_start or a.corpus != "docs"):
        ap.error("--finetune starts from Gemma on the Python domain: no --warm-start, --corpus")
    if a.batch % WORLD:
        ap.error(f"--batch must be a multiple of {WORLD}")
    setups = [x.strip() for x in a.setups.split(",") if x.strip()]
    if a.alone and "alone" not in setups:
        setups.append("alone")
    unknown = set(setups) - {"ddp", "nesterov", "average", "alone"}
    if unknown or not setups:
        ap.error(f"--setups: unknown {sorted(unknown)}; choose from ddp, nesterov, average, alone")
    global REPORTS
    REPORTS = a.reports
    load_before = os.getloadavg()[0]
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="diloco-bench-") as tmp:
        root = Path(tmp)
        data = build_finetune_data(root, a) if a.finetune else build_data(root, a)
        if a.no_exam:
            data = replace(data, exam=None)
        print(f"data ready in {time.perf_counter() - t0:.1f} s", flush=True)
        base_exam = None
        if data.exam is not None and data.start_dir is not None:
            base_exam = score_exam(data.start_dir, data.exam, root / "base-exam.json")
        if a.warm_start:
            data = warm_start(data, a, root)
        results: list[Result] = []
        for setup in setups:
            r = (
                run_torchrun(data, a, root, alone=setup == "alone")
                if setup in ("ddp", "alone")
                else run_islands(data, a, root, setup)
            )
            if data.exam is not None and r.model_dir is not None:
                r.exam = score_exam(r.model_dir, data.exam, root / f"{setup}-exam.json")
            print(f"== {r.name}: held-out loss {r.loss:.4f}, {r.wall_s:.0f} s", flush=True)
            results.append(r)
        print_table(results, a, data, base_exam)
    print(
        f"\ntotal wall time {time.perf_counter() - t0:.0f} s; 1-minute load average "
        f"{load_before:.2f} before, {os.getloadavg()[0]:.2f} after"
    )


if __name__ == "__main__":
    main()
