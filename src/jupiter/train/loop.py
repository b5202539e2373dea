"""The PyTorch training loop: one plain function, resumable to the bit, drivable in rounds.

`train(run)` = `start(run)` (fresh, or resumed from the newest valid checkpoint) + rounds
of `run_steps(run, state, k)` with a checkpoint after each + the final HF model dir.
A cross-island driver (DiLoCo) calls `start` once, then loads global weights into
`state.model`, calls `run_steps(run, state, H)` and reads the weights back.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import random
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from transformers import AutoModelForCausalLM, LlamaConfig, PreTrainedModel

from jupiter.config import TrainConfig
from jupiter.data.chat import IGNORE
from jupiter.data.dataset import PackedDataset
from jupiter.data.tokenizer import load_tokenizer
from jupiter.errors import JupiterError
from jupiter.models.presets import build_model
from jupiter.train.checkpoint import (
    latest_checkpoint,
    load_checkpoint,
    save_checkpoint,
    save_model_dir,
)
from jupiter.train.schedule import lr_at

log = logging.getLogger(__name__)
StepHook = Callable[[dict[str, Any]], None]


@dataclass
class TrainRun:
    """Everything one training run needs. Give exactly one of model_config / model_dir."""

    dataset: PackedDataset
    config: TrainConfig
    out_dir: Path  # checkpoints step-NNNNNN/, metrics.jsonl and final/ land here
    tokenizer_dir: Path  # saved next to every model written
    model_config: LlamaConfig | None = None  # from scratch, initialised with config.seed
    model_dir: Path | None = None  # or continue from an HF model dir
    run_id: str = ""
    device: str = "auto"  # "auto" (cuda, else cpu), "cpu", "cuda", "cuda:1", ...
    progress: bool = True  # rich progress bar, shown only on a terminal


@dataclass
class TrainResult:
    model_dir: Path  # out_dir/final when finished, else the last checkpoint's model dir
    steps: int  # global steps done
    losses: list[float]  # per-step loss, from step 1 (across resumes)
    tokens_per_s: float  # this call's training throughput (time in steps, not in saves)
    wall_time_s: float  # this call's wall-clock time, checkpoint writes included
    finished: bool  # reached config.max_steps


@dataclass
class TrainState:
    """What `run_steps` advances: model, optimizer and the position in the run."""

    model: PreTrainedModel
    forward: Callable[..., Any]  # the model itself, or its torch.compile wrapper
    optimizer: torch.optim.Optimizer
    device: torch.device
    amp: torch.dtype | None  # autocast dtype, None for fp32
    step: int = 0  # optimizer steps done
    epoch: int = 0  # data position: the next micro-batch is dataset.batch(epoch, index)
    index: int = 0
    tokens: int = 0  # input tokens processed since step 0
    elapsed: float = 0.0  # seconds spent stepping since step 0
    losses: list[float] = field(default_factory=list)

    def position(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "epoch": self.epoch,
            "index": self.index,
            "tokens": self.tokens,
            "elapsed": self.elapsed,
            "losses": self.losses,
        }


# --------------------------------------------------------------------------- setup
def resolve_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


def autocast_dtype(precision: str, device: torch.device) -> torch.dtype | None:
    """bf16 where the hardware does it natively, fp32 otherwise (or when asked)."""
    if precision == "fp32":
        return None
    if precision == "bf16":
        return torch.bfloat16
    if device.type == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else None
    if device.type == "cpu":
        # AVX-512 (BF16) and AMX run bf16 matmuls natively; on older CPUs bf16 is emulated
        # and slower than fp32.
        cap = torch.backends.cpu.get_cpu_capability()
        return torch.bfloat16 if ("AVX512" in cap or "AMX" in cap) else None
    return None


def build_optimizer(model: torch.nn.Module, cfg: TrainConfig) -> torch.optim.AdamW:
    """AdamW; weight decay on matrices only, not on norms, biases or embeddings."""
    decay: list[torch.nn.Parameter] = []
    no_decay: list[torch.nn.Parameter] = []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        (decay if p.dim() >= 2 and "embed" not in name else no_decay).append(p)
    groups = [
        {"params": decay, "weight_decay": cfg.weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]
    return torch.optim.AdamW(groups, lr=cfg.lr, betas=(cfg.beta1, cfg.beta2), eps=1e-8)


def init_model(run: TrainRun) -> PreTrainedModel:
    if (run.model_config is None) == (run.model_dir is None):
        raise JupiterError("a training run needs exactly one of model_config or model_dir")
    if run.model_dir is not None:
        if not (run.model_dir / "config.json").is_file():
            raise JupiterError(f"not an HF model dir (no config.json): {run.model_dir}")
        model: PreTrainedModel = AutoModelForCausalLM.from_pretrained(
            run.model_dir,
            dtype=torch.float32,  # fp32 master weights; autocast does bf16
        )
        return model
    assert run.model_config is not None
    return build_model(run.model_config, run.config.seed)


def config_hash(run: TrainRun, model: PreTrainedModel) -> str:
    """What must not change under a resumed run: hyper-parameters, model shape, data."""
    cfg = run.config.model_dump(
        exclude={"max_steps", "checkpoint_every", "keep_checkpoints", "log_every", "compile"}
    )
    ds = run.dataset
    blob = json.dumps(
        [cfg, model.config.to_dict(), ds.tokens, ds.num_rows, ds.seed, ds.context_length],
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def start(run: TrainRun) -> TrainState:
    """A fresh state, or the newest valid checkpoint in run.out_dir restored exactly."""
    cfg = run.config
    device = resolve_device(run.device)
    model = init_model(run)
    model.to(device)  # type: ignore[arg-type]  # transformers types its wrapped .to() badly
    model.train()
    optimizer = build_optimizer(model, cfg)
    forward: Callable[..., Any] = torch.compile(model) if cfg.compile else model
    state = TrainState(model, forward, optimizer, device, autocast_dtype(cfg.precision, device))
    ckpt = latest_checkpoint(run.out_dir)
    if ckpt is None:
        seed_everything(cfg.seed)
        return state
    saved = load_checkpoint(ckpt, model, optimizer)
    if saved.get("config_hash") != config_hash(run, model):
        log.warning("resuming %s with a changed config or dataset", ckpt)
    for key in ("step", "epoch", "index", "tokens", "elapsed", "losses"):
        setattr(state, key, saved[key])
    log.info("resumed from %s at step %d", ckpt, state.step)
    return state


# ---------------------------------------------------------------------------- loop
def run_steps(run: TrainRun, state: TrainState, k: int, on_step: StepHook | None = None) -> None:
    """Run up to k optimizer steps (never past max_steps) from `state`, advancing it in place."""
    cfg, data, model = run.config, run.dataset, state.model
    amp = (
        torch.autocast(state.device.type, dtype=state.amp)
        if state.amp is not None
        else contextlib.nullcontext()
    )
    for _ in range(min(k, cfg.max_steps - state.step)):
        t0 = time.perf_counter()
        lr = lr_at(state.step, cfg.max_steps, cfg.lr, cfg.min_lr, cfg.warmup_steps)
        for group in state.optimizer.param_groups:
            group["lr"] = lr
        # Read the step's micro-batches first: the loss is a mean over the step's target
        # tokens, so each micro-batch's sum is divided by the step total, not its own count.
        batches = []
        for _ in range(cfg.grad_accum):
            batches.append(data.batch(state.epoch, state.index, cfg.micro_batch_size))
            state.epoch, state.index = data.next_position(
                state.epoch, state.index, cfg.micro_batch_size
            )
        n_targets = max(1, sum(int((y != IGNORE).sum()) for _, y in batches))
        loss_sum = torch.zeros((), device=state.device)  # one host sync per step, not per batch
        for x, y in batches:
            x, y = x.to(state.device), y.to(state.device)
            with amp:
                logits = state.forward(input_ids=x, use_cache=False).logits
            loss = (
                F.cross_entropy(
                    logits.float().flatten(0, 1), y.flatten(), ignore_index=IGNORE, reduction="sum"
                )
                / n_targets
            )
            loss.backward()
            loss_sum += loss.detach()
        step_loss = float(loss_sum)
        if not math.isfinite(step_loss):
            # Stop before the optimizer writes NaNs into the weights; the last checkpoint is intact.
            raise JupiterError(
                f"training diverged at step {state.step + 1} (loss {step_loss}):"
                " lower train.lr or raise train.warmup_steps, then resume"
            )
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
        state.optimizer.step()
        state.optimizer.zero_grad(set_to_none=True)
        state.step += 1
        state.losses.append(step_loss)
        step_tokens = cfg.grad_accum * cfg.micro_batch_size * data.context_length
        state.tokens += step_tokens
        state.elapsed += time.perf_counter() - t0
        if on_step is not None:
            on_step(
                {
                    "step": state.step,
                    "loss": step_loss,
                    "lr": lr,
                    "grad_norm": float(grad_norm),
                    "tokens": step_tokens,
                }
            )


# --------------------------------------------------------------------------- train
class _Reporter:
    """Turns per-step records into the progress bar, metrics.jsonl and the user's hook."""

    def __init__(self, run: TrainRun, state: TrainState, last: int, hook: StepHook | None):
        self.run, self.state, self.last, self.hook = run, state, last, hook
        self.mark = (state.tokens, state.elapsed)
        self.bar: Any = None
        self.task: Any = None

    @contextlib.contextmanager
    def progress(self) -> Iterator[None]:
        if not (self.run.progress and sys.stderr.isatty()):
            yield
            return
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        self.bar = Progress(
            TextColumn("train"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("loss {task.fields[loss]:.3f}  {task.fields[tps]:,.0f} tok/s"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
        )
        total = self.run.config.max_steps
        with self.bar:
            self.task = self.bar.add_task(
                "train", total=total, completed=self.state.step, loss=float("nan"), tps=0.0
            )
            yield

    def __call__(self, rec: dict[str, Any]) -> None:
        step, cfg = rec["step"], self.run.config
        tokens, elapsed = self.state.tokens - self.mark[0], self.state.elapsed - self.mark[1]
        tps = tokens / elapsed if elapsed > 0 else 0.0
        if self.bar is not None:
            self.bar.update(self.task, completed=step, loss=rec["loss"], tps=tps)
        if step % cfg.log_every and step != self.last:
            return
        self.mark = (self.state.tokens, self.state.elapsed)
        metrics = {
            "step": step,
            "loss": rec["loss"],
            "lr": rec["lr"],
            "grad_norm": rec["grad_norm"],
            "tokens_per_s": tps,
            "elapsed": self.state.elapsed,
        }
        with (self.run.out_dir / "metrics.jsonl").open("a", encoding="utf-8") as f:
            f.write(json.dumps(metrics) + "\n")
        if self.hook is not None:
            self.hook(metrics)


def _truncate_metrics(path: Path, step: int) -> None:
    """Drop metrics logged after `step`: a resumed run logs those steps again."""
    if not path.is_file():
        return
    rows = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
    kept = [ln for ln in rows if json.loads(ln)["step"] <= step]
    path.write_text("".join(ln + "\n" for ln in kept), encoding="utf-8")


def train(
    run: TrainRun, on_step: StepHook | None = None, stop_after: int | None = None
) -> TrainResult:
    """Train to config.max_steps (or global step `stop_after`), resuming if out_dir holds a
    checkpoint; checkpoint every config.checkpoint_every steps and at the last step."""
    cfg, wall0 = run.config, time.perf_counter()
    run.out_dir.mkdir(parents=True, exist_ok=True)
    tokenizer = load_tokenizer(run.tokenizer_dir)
    state = start(run)
    target = cfg.max_steps if stop_after is None else min(stop_after, cfg.max_steps)
    _truncate_metrics(run.out_dir / "metrics.jsonl", state.step)
    first_step, tokens0, elapsed0 = state.step, state.tokens, state.elapsed
    reporter = _Reporter(run, state, target, on_step)
    ckpt: Path | None = None
    with reporter.progress():
        while state.step < target:
            k = min(target - state.step, cfg.checkpoint_every - state.step % cfg.checkpoint_every)
            run_steps(run, state, k, reporter)
            extra = {
                "config_hash": config_hash(run, state.model),
                "run_id": run.run_id,
                "max_steps": cfg.max_steps,
            }
            ckpt = save_checkpoint(
                run.out_dir,
                state.step,
                state.model,
                tokenizer,
                state.optimizer,
                {**state.position(), **extra},
                keep=cfg.keep_checkpoints,
            )
    finished = state.step >= cfg.max_steps
    final = run.out_dir / "final"
    if finished and (state.step > first_step or not final.is_dir()):
        save_model_dir(final, state.model, tokenizer)
    stepping = state.elapsed - elapsed0
    if finished:
        model_dir = final
    else:
        ckpt = ckpt or latest_checkpoint(run.out_dir)
        model_dir = ckpt / "model" if ckpt else run.out_dir
    return TrainResult(
        model_dir=model_dir,
        steps=state.step,
        losses=list(state.losses),
        tokens_per_s=(state.tokens - tokens0) / stepping if stepping > 0 else 0.0,
        wall_time_s=time.perf_counter() - wall0,
        finished=finished,
    )
