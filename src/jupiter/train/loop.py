"""The PyTorch training loop: one plain function for one process or many, resumable to the
bit, drivable in rounds.

`train(run)` = `start(run)` (fresh, or resumed from the newest valid checkpoint) + steps,
with held-out loss, checkpoints (every N steps, at each epoch's end) and metrics between
them, and the final model dir at the end. World size 1 is the same code path: the
distributed calls (dist.py) do nothing there.

A cross-island driver (DiLoCo) calls `start` once, then per round `set_weights`,
`run_steps(run, state, H)` and `get_weights`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Literal

import numpy as np
import torch
import torch.nn.functional as F
from transformers import PreTrainedModel

from jupiter.config import TrainConfig
from jupiter.data.chat import IGNORE
from jupiter.data.dataset import Batch, PackedDataset
from jupiter.data.distill import DistillData
from jupiter.errors import JupiterError
from jupiter.models.loss import Kernel, fused_linear_ce, head_of, no_logits, require_liger
from jupiter.train import dist
from jupiter.train.dist import Dist
from jupiter.train.distill import Distiller
from jupiter.train.loss import CorpusVocab
from jupiter.train.norm import fuse_rms_norms
from jupiter.train.plan import Overrides
from jupiter.train.schedule import lr_at
from jupiter.train.setup import (
    Plan,
    build_model_for,
    build_optimizer,
    enable_checkpointing,
    make_plan,
)

log = logging.getLogger(__name__)
StepHook = Callable[[dict[str, Any]], None]
POSITION_KEYS = ("step", "epoch", "index", "tokens", "elapsed", "losses", "epoch_loss")


@dataclass
class TrainRun:
    """Everything one training run needs. Give exactly one of model_config / model_dir."""

    dataset: PackedDataset
    config: TrainConfig
    out_dir: Path  # checkpoints step-NNNNNN/, metrics.jsonl, epoch_info.json, final/
    tokenizer_dir: Path  # saved next to every model written
    model_config: Any = None  # a preset's LlamaConfig: from scratch, seeded by config.seed
    model_dir: Path | None = None  # or an HF dir (fine-tune / continue) or a LoRA adapter dir
    heldout: PackedDataset | None = None  # for the held-out loss
    run_id: str = ""
    device: str = "auto"  # "auto" (cuda, else cpu), "cpu", "cuda"
    progress: bool = True  # rich progress bar, shown only on a terminal
    attention: str = "auto"
    memory_gb: float | None = None  # the node's memory (cluster.yaml), for the auto choices
    # train.objective distill / sft+distill: the teacher's side of the rows' Q&A
    distill: DistillData | None = None
    # What this run sets over `config` (a cluster island's step budget and micro-batch, a
    # device fallback's precision): the run's own, never written into the config
    overrides: Overrides = field(default_factory=Overrides)
    resume: Literal["auto", "never"] | None = None  # a driver's choice over config.resume

    @property
    def resumes(self) -> bool:
        return (self.resume or self.config.resume) == "auto"

    @property
    def lr(self) -> float:
        """The peak learning rate: a curriculum level's, else train.lr."""
        return self.overrides.lr or self.config.lr


@dataclass
class TrainResult:
    model_dir: Path  # out_dir/final when finished, else the last checkpoint's model dir
    steps: int  # global steps done
    max_steps: int
    losses: list[float]  # per-step loss, from step 1 (across resumes)
    tokens_per_s: float  # this call's training throughput (time in steps, not in saves)
    wall_time_s: float  # this call's wall-clock time, checkpoint writes included
    finished: bool  # reached the plan's max_steps
    heldout_loss: float | None = None
    best_checkpoint: Path | None = None
    epochs: float | None = None  # passes over the data the plan's max_steps amount to
    distill: dict[str, float] | None = None  # the teacher's measured cost (train/distill.py)
    plan: dict[str, Any] | None = None  # the plan the run trained by (train/plan.py)


@dataclass
class TrainState:
    """What `run_steps` advances: model, optimizer and the position in the run."""

    model: PreTrainedModel  # the model itself (a PeftModel under LoRA)
    forward: Any  # what the loop calls: the model, its DDP wrapper, or a compiled one
    optimizer: Any
    plan: Plan
    dist: Dist
    scaler: torch.amp.GradScaler | None = None  # fp16 only: dynamic loss scaling
    step: int = 0  # optimizer steps done
    epoch: int = 0  # data position: the next micro-batch is dataset.batch(epoch, index)
    index: int = 0
    tokens: int = 0  # input tokens processed since step 0, all ranks
    elapsed: float = 0.0  # seconds spent stepping since step 0
    losses: list[float] = field(default_factory=list)
    epoch_loss: list[float] = field(default_factory=lambda: [0.0, 0.0])  # sum, steps
    best: dict[str, Any] = field(default_factory=dict)  # {"step", "loss", "path"}
    epochs_done: list[dict[str, Any]] = field(default_factory=list)  # epoch_info.json rows
    # The lr of an optimizer step, when a driver sets the schedule (the cross-island loop:
    # the round's place in the run); None: lr_at over the plan's max_steps.
    lr_fn: Callable[[int], float] | None = None
    # (output weight, logit softcap) for the fused loss, or None: the plain loss on logits
    head: tuple[torch.Tensor, float | None] | None = None
    head_checked: bool = False  # the hidden states were checked to give the model's logits
    loss_kernel: Kernel = "auto"  # train.loss: fused -> "torch", liger -> "liger"
    distill: Distiller | None = None  # the teacher and its KL, when the run distils
    vocab: CorpusVocab | None = None  # train.vocab corpus: the loss's softmax over these

    def position(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in POSITION_KEYS} | {
            "best": self.best,
            "epochs_done": self.epochs_done,
        }


# --------------------------------------------------------------------------- start
def config_hash(run: TrainRun, model: PreTrainedModel, plan: Plan) -> str:
    """What must not change under a resumed run: hyper-parameters, model shape, data."""
    return run_hash(run, model.config.to_dict(), plan.global_batch)


# Model-config keys that saving or loading sets, not the run: save_pretrained writes
# architectures and dtype into model.config, so a hash taken before the first checkpoint
# differed from every later one and each resume said "changed config".
VOLATILE_MODEL_KEYS = frozenset(
    {
        "architectures",
        "dtype",
        "torch_dtype",
        "transformers_version",
        "_name_or_path",
        "_attn_implementation",
        "_attn_implementation_autoset",
        "attn_implementation",
        "use_cache",
        "_commit_hash",
    }
)


def run_hash(run: TrainRun, model_config: dict[str, Any], global_batch: int) -> str:
    """The hash behind config_hash, for either backend's model config."""
    cfg = run.config.model_dump(
        exclude={
            "max_steps",
            "checkpoint_every",
            "keep_checkpoints",
            "log_every",
            "compile",
            "fused_norm",
            "metrics",
            "eval_every",
            "resume",
        }
    )
    shape = _without_volatile(model_config)
    ds = run.dataset
    parts = [cfg, shape, ds.tokens, ds.num_rows, ds.seed, ds.context_length, global_batch]
    if run.overrides.hashed():  # a level's lr, a fallback's precision: as the config's did
        parts.append(run.overrides.hashed())
    blob = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _without_volatile(config: dict[str, Any]) -> dict[str, Any]:
    """The config less VOLATILE_MODEL_KEYS, in nested configs too (a VLM's text_config)."""
    return {
        k: _without_volatile(v) if isinstance(v, dict) else v
        for k, v in config.items()
        if k not in VOLATILE_MODEL_KEYS
    }


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def start(run: TrainRun, d: Dist | None = None) -> TrainState:
    """A fresh state, or the newest valid checkpoint in run.out_dir restored exactly."""
    from torch.distributed.checkpoint.state_dict import StateDictOptions, set_optimizer_state_dict

    from jupiter.models.folder import remove_stale_temps
    from jupiter.models.loading import load_model_weights
    from jupiter.train.checkpoint import latest_checkpoint, read_checkpoint, set_rng_state

    cfg = run.config
    d = d or dist.init(run.device)
    if d.main:  # what a writer killed mid-checkpoint left behind
        remove_stale_temps(run.out_dir)
    over = run.overrides
    model = build_model_for(cfg, run.model_config, run.model_dir, d, run.attention, over.precision)
    distiller = None  # made before a checkpoint's weights: method full copies the start's
    # distilling, or replay with loss kl (train/distill.py); Q&A pairs alone under sft: none
    if run.distill is not None and (cfg.objective != "sft" or run.distill.replay_texts):
        # the teacher computes in the run's precision (a local copy; run.config stays)
        tcfg = cfg.model_copy(update={"precision": over.precision}) if over.precision else cfg
        distiller = Distiller.create(run.distill, tcfg, model, d, run.model_config is not None)
    ckpt = latest_checkpoint(run.out_dir) if run.resumes else None
    if ckpt is not None:  # weights go in before wrapping, so FSDP shards the restored ones
        load_model_weights(ckpt / "model", model)
    if cfg.fused_norm and (d.world == 1 or cfg.distributed == "ddp"):
        fuse_rms_norms(model)  # FSDP and DeepSpeed gather the norm weights themselves
    plan = make_plan(cfg, run.dataset, model, d, run.memory_gb, over)
    if cfg.order == "documents_first":  # of the rows this run reads, the documents' first
        run.dataset.documents_first(plan.steps.total_rows, plan.steps.global_micro)
    if plan.grad_ckpt:
        enable_checkpointing(model)
    model.train()
    use_ds = cfg.distributed == "deepspeed" and d.world > 1
    # FSDP shards `model` in place; DeepSpeed wraps model and optimizer together below
    forward: Any = model if use_ds else dist.wrap(model, d, cfg.distributed)
    optimizer = build_optimizer(model, cfg, d.device, run.lr)
    if use_ds:
        precision = {torch.bfloat16: "bf16", torch.float16: "fp16"}.get(plan.amp, "fp32")  # type: ignore[arg-type]
        ds = dist.deepspeed_config(
            plan.micro_batch, plan.grad_accum, d.world, cfg.zero_stage, precision, cfg.grad_clip
        )
        forward = dist.deepspeed_engine(model, optimizer, ds)
        optimizer = forward.optimizer
    if cfg.compile:
        forward = torch.compile(forward)
    # fp16 needs dynamic loss scaling (DeepSpeed brings its own)
    own_scaler = plan.amp == torch.float16 and not use_ds
    scaler = torch.amp.GradScaler(d.device.type) if own_scaler else None
    state = TrainState(model, forward, optimizer, plan, d, scaler, distill=distiller)
    state.head = None if (use_ds or cfg.loss == "plain") else head_of(model)
    if cfg.loss in ("fused", "liger") and state.head is None:
        raise JupiterError(
            f"train.loss: {cfg.loss} needs an unsharded linear output head (not FSDP or "
            "DeepSpeed with several processes): set train.loss: auto"
        )
    kernels: dict[str, Kernel] = {"fused": "torch", "liger": "liger"}
    state.loss_kernel = kernels.get(cfg.loss, "auto")
    if cfg.loss == "liger" and state.head is not None:
        require_liger(d.device, state.head[1])
    if cfg.vocab == "corpus":
        if state.head is None:
            raise JupiterError(
                "train.vocab: corpus needs the fused loss on an unsharded linear head (not "
                "train.loss: plain, FSDP or DeepSpeed with several processes): set "
                "train.loss: auto, or train.vocab: full"
            )
        state.vocab = CorpusVocab(run.dataset.token_ids(), state.head[0].shape[0], d.device)
    if ckpt is None:
        seed_everything(cfg.seed + d.rank)
        return state
    saved, optim, rngs = read_checkpoint(ckpt)
    if saved.get("config_hash") != config_hash(run, model, plan):
        log.warning("resuming %s with a changed config or dataset", ckpt)
    if use_ds:  # ZeRO's own per-rank state; fp32 masters as saved, not re-cast from bf16
        optimizer.load_state_dict(optim["ranks"], load_from_fp32_weights=True)
    else:
        fsdp = d.world > 1 and cfg.distributed == "fsdp"
        set_optimizer_state_dict(
            model, optimizer, optim, options=StateDictOptions(full_state_dict=fsdp)
        )
    if scaler is not None and "scaler" in saved:
        scaler.load_state_dict(saved["scaler"])
    set_rng_state(rngs[d.rank] if d.rank < len(rngs) else rngs[0])
    for key in (*POSITION_KEYS, "best", "epochs_done"):
        setattr(state, key, saved.get(key, getattr(state, key)))
    log.info("resumed from %s at step %d", ckpt, state.step)
    return state


# ---------------------------------------------------------------------------- loop
def _sync_context(state: TrainState, last: bool) -> contextlib.AbstractContextManager[Any]:
    """Skip the gradient all-reduce on all but the last micro-batch of a step."""
    fwd = state.forward
    if dist.is_deepspeed(fwd):  # DeepSpeed accumulates on its own
        return contextlib.nullcontext()
    if state.dist.world > 1 and not last and hasattr(fwd, "no_sync"):
        return fwd.no_sync()  # type: ignore[no-any-return]
    if hasattr(state.model, "set_requires_gradient_sync"):  # FSDP2
        state.model.set_requires_gradient_sync(last)  # type: ignore[operator]
    return contextlib.nullcontext()


def micro_loss(state: TrainState, b: Batch, n_targets: int, whole: bool = False) -> torch.Tensor:
    """Summed next-token cross-entropy of one micro-batch over the step's target count
    (over train.vocab's tokens, or the whole vocabulary when `whole`)."""
    dev = state.dist.device
    amp = (
        torch.autocast(dev.type, dtype=state.plan.amp)
        if state.plan.amp is not None
        else contextlib.nullcontext()
    )
    inputs = {
        "input_ids": b.input_ids.to(dev),
        "position_ids": b.position_ids.to(dev),  # packed rows: attention stays per example
        "use_cache": False,
    }
    labels = b.labels.to(dev)
    teach = state.distill  # distilled answers: their logits too, for the KL (train/distill.py)
    if state.head is not None and not state.head_checked:
        _check_hidden(state, inputs)
    if state.head is not None:
        weight, cap = state.head
        with amp:
            # no logits (but a distilled answer's): the fused loss projects the hidden states
            keep = no_logits(labels) if teach is None else teach.logits_to_keep(b, labels)
            out = state.forward(**inputs, output_hidden_states=True, logits_to_keep=keep)
            hidden = out.hidden_states[-1]
            kernel, sub = state.loss_kernel, None if whole else state.vocab
            bias = None
            if sub is not None:
                (weight, bias), labels = sub.head(weight), sub.labels(labels)
            loss = fused_linear_ce(hidden, weight, labels, cap, kernel=kernel, bias=bias)
            if teach is not None:
                loss = teach.add_kl(loss, out.logits, b)
            return loss / n_targets
    with amp:
        out = state.forward(**inputs)
    loss = F.cross_entropy(
        out.logits.float().flatten(0, 1), labels.flatten(), ignore_index=IGNORE, reduction="sum"
    )
    if teach is not None:
        with amp:
            loss = teach.add_kl(loss, out.logits, b)
    return loss / n_targets


@torch.no_grad()
def _check_hidden(state: TrainState, inputs: dict[str, Any]) -> None:
    """Use the fused loss only if the last hidden states are what the head projects (the
    final norm applied): the model's own last-position logits must come out of them.
    Checked once, on a few tokens of one row, without autograd (so the (V, D) head is not
    copied per row, see loss.no_logits)."""
    from jupiter.models.scoring import last_logits_match

    assert state.head is not None
    weight, cap = state.head
    few = {k: v[:1, :16] if torch.is_tensor(v) else v for k, v in inputs.items()}
    was_training = state.model.training
    state.model.eval()  # no dropout: the two logits come from one deterministic pass
    out = state.model(**few, output_hidden_states=True, logits_to_keep=1)
    state.model.train(was_training)
    if not last_logits_match(out.hidden_states[-1], out.logits, weight, cap):
        log.warning("the model's hidden states do not give its logits: plain loss instead")
        state.head = None
    state.head_checked = True


def _clip_and_step(state: TrainState, clip: float) -> float:
    if dist.is_deepspeed(state.forward):  # DeepSpeed clips inside its own step
        state.forward.step()
        return float(state.forward.get_global_grad_norm() or 0.0)
    if state.scaler is not None:
        state.scaler.unscale_(state.optimizer)
    params = [p for p in state.model.parameters() if p.requires_grad]
    norm = torch.nn.utils.clip_grad_norm_(params, clip)
    if hasattr(norm, "full_tensor"):  # FSDP2: a DTensor over the shards
        norm = norm.full_tensor()
    if state.scaler is not None:
        state.scaler.step(state.optimizer)  # skipped when the fp16 grads overflowed
        state.scaler.update()
    else:
        state.optimizer.step()
    state.optimizer.zero_grad(set_to_none=True)
    return float(norm)


def run_steps(run: TrainRun, state: TrainState, k: int, on_step: StepHook | None = None) -> None:
    """Run up to k optimizer steps (never past the plan's max_steps), advancing `state`.

    Every rank reads its slice of each global micro-batch; the loss is a mean over the
    whole step's target tokens on all ranks, so any world size, micro-batch and
    accumulation with the same global batch computes the same gradient.
    """
    cfg, data, plan, d = run.config, run.dataset, state.plan, state.dist
    ds_engine = dist.is_deepspeed(state.forward)
    for _ in range(min(k, plan.max_steps - state.step)):
        t0 = time.perf_counter()
        lr = (
            state.lr_fn(state.step)
            if state.lr_fn is not None
            else lr_at(state.step, plan.max_steps, run.lr, cfg.min_lr, cfg.warmup_steps)
        )
        for group in state.optimizer.param_groups:
            group["lr"] = lr
        batches, n_targets = [], 0
        # distilling: the batch carries its answers' teacher rows (train/distill.py)
        read = data.batch if state.distill is None else partial(state.distill.batch, data)
        for _ in range(plan.grad_accum):
            batches.append(read(state.epoch, state.index, plan.global_micro, d.rank, d.world))
            n_targets += data.target_count(state.epoch, state.index, plan.global_micro)
            state.epoch, state.index = data.next_position(
                state.epoch, state.index, plan.global_micro
            )
        loss_sum = torch.zeros((), device=d.device)  # one host sync per step, not per batch
        try:
            for i, b in enumerate(batches):
                last = i == len(batches) - 1
                with _sync_context(state, last):
                    loss = micro_loss(state, b, max(1, n_targets))
                    # DDP/FSDP/ZeRO average gradients over ranks; the loss is already a
                    # global mean, so undo the division.
                    scaled = loss * d.world
                    if ds_engine:
                        state.forward.backward(scaled, scale_wrt_gas=False)
                        if not last:
                            state.forward.step()  # DeepSpeed counts micro-batches itself
                    elif state.scaler is not None:
                        state.scaler.scale(scaled).backward()
                    else:
                        scaled.backward()
                loss_sum += loss.detach()
            step_loss = float(dist.sum_(d, loss_sum))
            if not math.isfinite(step_loss):
                # Stop before the optimizer writes NaNs into the weights.
                raise JupiterError(
                    f"training diverged at step {state.step + 1} (loss {step_loss}):"
                    " lower train.lr or raise train.warmup_steps, then resume"
                )
            grad_norm = _clip_and_step(state, cfg.grad_clip)
        except torch.OutOfMemoryError:
            from jupiter.models.memory import device_memory_gb, oom_message

            where = f"training step {state.step + 1}"
            raise JupiterError(oom_message(where, None, device_memory_gb(d.device))) from None
        state.step += 1
        state.losses.append(step_loss)
        state.epoch_loss[0] += step_loss
        state.epoch_loss[1] += 1
        step_tokens = plan.global_batch * data.context_length
        state.tokens += step_tokens
        seconds = time.perf_counter() - t0
        state.elapsed += seconds
        rec = {
            "step": state.step,
            "loss": step_loss,
            "lr": lr,
            "grad_norm": grad_norm,
            "tokens": step_tokens,
        }
        if state.distill is not None:  # the step's KL, and the teacher's cost once measured
            rec |= state.distill.end_step(seconds, state.step, state.step == plan.max_steps)
        if on_step is not None:
            on_step(rec)


@torch.no_grad()
def heldout_loss(run: TrainRun, state: TrainState, max_rows: int = 256) -> float | None:
    """Mean next-token loss over the held-out rows (up to max_rows of them, each once,
    whatever the batch size and world), all ranks together."""
    data = run.heldout
    if data is None or data.label_tokens == 0:
        return None
    d = state.dist
    state.model.eval()
    total = torch.zeros(2, dtype=torch.float64, device=d.device)
    for b in data.eval_batches(state.plan.global_micro, d.rank, d.world, max_rows):
        loss = micro_loss(state, b, 1, whole=True)
        total += torch.stack([loss.double(), (b.labels != IGNORE).sum().double().to(d.device)])
    state.model.train()
    total = dist.sum_(d, total)
    return float(total[0] / total[1]) if total[1] > 0 else None


def get_weights(state: TrainState) -> dict[str, torch.Tensor]:
    """The trainable weights (the adapter under LoRA) as whole fp32 CPU copies, by name
    (FSDP2 shards are gathered: every rank must call it)."""
    out = {}
    for n, p in state.model.named_parameters():
        if p.requires_grad:
            whole = p.full_tensor() if hasattr(p, "full_tensor") else p
            out[n] = whole.detach().float().cpu().clone()
    return out


@torch.no_grad()
def set_weights(state: TrainState, weights: dict[str, torch.Tensor]) -> None:
    """Copy whole weights (from get_weights, or a global average) into the model."""
    params = dict(state.model.named_parameters())
    missing = [n for n in weights if n not in params]
    if missing:
        raise JupiterError(f"weights do not fit the model: unknown {missing[:3]}")
    for n, w in weights.items():
        p = params[n]
        if hasattr(p, "device_mesh"):  # an FSDP2 shard: cut this rank's piece
            from torch.distributed.tensor import distribute_tensor

            w = distribute_tensor(w.to(p.device), p.device_mesh, p.placements)  # type: ignore[attr-defined]
        p.copy_(w.to(device=p.device, dtype=p.dtype))
