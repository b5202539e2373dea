"""`train(run)`: the loop's steps plus what happens between them — held-out loss, metrics,
checkpoints every N steps and at each epoch's end, epoch_info.json, retention (the newest K
plus the best), the final model dir and the learning-curve PNG."""

from __future__ import annotations

import contextlib
import json
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from transformers import AutoTokenizer, PreTrainedTokenizerBase

from jupiter import atomic
from jupiter.train import dist
from jupiter.train.loop import (
    StepHook,
    TrainResult,
    TrainRun,
    TrainState,
    config_hash,
    heldout_loss,
    run_steps,
    start,
)


# ------------------------------------------------------------------------ metrics
class Reporter:
    """Turns per-step records into the progress bar, the metrics backends and the hook."""

    def __init__(self, run: TrainRun, state: TrainState, hook: StepHook | None) -> None:
        from jupiter.models.loading import trainable_parameters
        from jupiter.train.metrics import MetricsLogger, StepBar, flops_per_token, peak_flops
        from jupiter.train.setup import shape_of

        cfg, d = run.config, state.dist
        self.run, self.state, self.hook = run, state, hook
        self.mark = (state.tokens, state.elapsed)
        trainable, total = trainable_parameters(state.model)
        shape = shape_of(state.model)
        self.flops = flops_per_token(
            total,
            shape["num_layers"],
            shape["hidden_size"],
            run.dataset.context_length,
            trainable / max(1, total),
        )
        peak = peak_flops(d.device, state.plan.amp)
        self.peak = peak * d.world if peak else None
        self.logger = MetricsLogger(
            run.out_dir,
            cfg.metrics,
            run_name=run.run_id or run.out_dir.name,
            config={**cfg.model_dump(mode="json"), "plan": state.plan.steps.as_dict()},
            wandb_project=cfg.wandb_project,
            mlflow_tracking_uri=cfg.mlflow_tracking_uri,
            enabled=d.main,
            resume_step=state.step,
        )
        self.steps = StepBar()
        self.cost_shown = False  # the teacher's cost line (train/distill.py) was printed
        if state.vocab is not None and d.main:
            print(state.vocab.line(), flush=True)
        from jupiter.train.metrics import reset_peak_memory

        # peak_mem_gb: this run's, the loaded model included; start_mem_gb: held before it
        self.start_mem = reset_peak_memory(d.device)

    def progress(self) -> contextlib.AbstractContextManager[None]:
        main = self.state.dist.main
        return self.steps.show(
            self.run.progress and main, self.state.plan.max_steps, self.state.step
        )

    def __call__(self, rec: dict[str, Any]) -> None:
        from jupiter.train.metrics import mfu, peak_memory_gb

        st, step = self.state, rec["step"]
        tokens, elapsed = st.tokens - self.mark[0], st.elapsed - self.mark[1]
        tps = tokens / elapsed if elapsed > 0 else 0.0
        self.steps.update(step, rec["loss"], tps)
        if st.distill is not None and st.distill.cost is not None and not self.cost_shown:
            self.cost_shown = True  # said once, as soon as the first steps are measured
            if st.dist.main:
                print(st.distill.cost_line(), flush=True)
                self.logger.log(step, st.distill.cost, kind="distill")
        if step % self.run.config.log_every and step != st.plan.max_steps:
            return
        self.mark = (st.tokens, st.elapsed)
        per_epoch = self.run.dataset.batches_per_epoch(st.plan.global_micro)
        metrics = {
            "loss": rec["loss"],
            "ppl": math.exp(min(rec["loss"], 50.0)),
            "lr": rec["lr"],
            "grad_norm": rec["grad_norm"],
            "tokens_per_s": tps,
            "mfu": mfu(tps, self.flops, self.peak),
            "peak_mem_gb": peak_memory_gb(st.dist.device),
            "start_mem_gb": self.start_mem,
            "epoch": st.epoch + st.index / per_epoch,
            "elapsed": st.elapsed,
            "kl": rec.get("kl"),  # distilling: mean KL to the teacher per answer token
            "replay_kl": rec.get("replay_kl"),  # replay loss kl: mean KL to the base per token
        }
        self.logger.log(step, metrics)
        if self.hook is not None and st.dist.main:
            self.hook({"step": step, **{k: v for k, v in metrics.items() if v is not None}})


# --------------------------------------------------------------------- checkpoints
def full_model_state(run: TrainRun, state: TrainState) -> Any:
    """The whole model's weights gathered on rank 0 when they are sharded (FSDP2, ZeRO-3);
    None when each rank holds them whole. Every rank must call it."""
    from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict

    cfg, d = run.config, state.dist
    if d.world == 1:
        return None
    if cfg.distributed == "fsdp":
        full = StateDictOptions(full_state_dict=True, cpu_offload=True)
        return get_model_state_dict(state.model, options=full)
    if dist.is_deepspeed(state.forward) and cfg.zero_stage == 3:
        return state.forward._zero3_consolidated_16bit_state_dict()
    return None


def save(run: TrainRun, state: TrainState, tokenizer: PreTrainedTokenizerBase) -> Path:
    """Every rank takes part (gathering sharded state, RNG); rank 0 writes."""
    from torch.distributed.checkpoint.state_dict import StateDictOptions, get_optimizer_state_dict

    from jupiter.train.checkpoint import rng_state, save_checkpoint, step_dir_name

    cfg, d = run.config, state.dist
    model_state = full_model_state(run, state)
    if dist.is_deepspeed(state.forward):  # ZeRO's optimizer state is per rank, in its format
        optim: Any = {"ranks": dist.gather_objects(d, state.optimizer.state_dict())}
    else:
        full = StateDictOptions(full_state_dict=True, cpu_offload=True)
        optim = get_optimizer_state_dict(state.model, state.optimizer, options=full)
    rngs = dist.gather_objects(d, rng_state())
    path = run.out_dir / step_dir_name(state.step)
    if d.main:
        best = Path(state.best["path"]) if state.best.get("path") else None
        extra = {
            "config_hash": config_hash(run, state.model, state.plan),
            "run_id": run.run_id,
            "max_steps": state.plan.max_steps,
            "world": d.world,
        }
        if state.scaler is not None:
            extra["scaler"] = state.scaler.state_dict()
        schedule = {
            "type": "warmup_cosine",
            "step": state.step,
            "max_steps": state.plan.max_steps,
            "lr": run.lr,
            "min_lr": cfg.min_lr,
            "warmup_steps": cfg.warmup_steps,
        }
        save_checkpoint(
            run.out_dir,
            state.step,
            state.model,
            tokenizer,
            optim,
            {**state.position(), **extra},
            rng_states=rngs,
            model_state=model_state,
            scheduler=schedule,
            keep=cfg.keep_checkpoints,
            best=best,
        )
    dist.barrier(d)
    return path


def drive(
    run: TrainRun,
    state: Any,
    target: int,
    reporter: Any,
    *,
    step: Callable[[], None],
    heldout: Callable[[], float | None],
    save: Callable[[], Any],
    lr: Callable[[], float],
    main: bool,
) -> float | None:
    """The step loop of `train`, for either backend's state (TrainState, MLXState): one
    optimizer step at a time up to `target`, held-out loss at eval_every and before each
    save, checkpoints at checkpoint_every / the target / epoch ends, epoch rows into
    epoch_info.json (rank 0), the best checkpoint by held-out (else training) loss.
    Returns the last held-out loss."""
    cfg, plan = run.config, state.plan
    last: float | None = None
    while state.step < target:
        epoch = state.epoch
        step()
        at, ended = state.step, state.epoch > epoch
        save_now = (
            at % cfg.checkpoint_every == 0 or at == target or (ended and cfg.checkpoint_every_epoch)
        )
        if at % cfg.eval_every == 0 or save_now or at == plan.max_steps:
            last = heldout()
            if last is not None:
                reporter.logger.log(
                    at, {"loss": last, "ppl": math.exp(min(last, 50.0))}, kind="heldout"
                )
        path = run.out_dir / f"step-{at:06d}" if save_now else None
        if ended:  # the epoch's row goes into the checkpoint written at its end
            mean = state.epoch_loss[0] / max(1.0, state.epoch_loss[1])
            state.epochs_done.append(
                {
                    "epoch": epoch + 1,
                    "train_loss": mean,
                    "lr": lr(),
                    "timestamp": time.time(),
                    "checkpoint": str(path) if path else None,
                    "global_step": at,
                }
            )
            state.epoch_loss = [0.0, 0.0]
        if path is not None:
            score = last if last is not None else state.losses[-1]
            if not state.best or score < state.best["loss"]:
                state.best = {"step": at, "loss": score, "path": str(path)}
            save()
        if ended and main:
            info = json.dumps({"epochs": state.epochs_done}, indent=1)
            atomic.write_text(run.out_dir / "epoch_info.json", info)
    return last


def load_run_tokenizer(path: Path) -> PreTrainedTokenizerBase:
    tok: PreTrainedTokenizerBase = AutoTokenizer.from_pretrained(path)
    return tok


# --------------------------------------------------------------------------- train
def train(
    run: TrainRun, on_step: StepHook | None = None, stop_after: int | None = None
) -> TrainResult:
    """Train to the plan's max_steps (or global step `stop_after`), resuming if out_dir
    holds a checkpoint."""
    from jupiter.train.checkpoint import latest_checkpoint
    from jupiter.train.metrics import plot_learning_curve
    from jupiter.train.plan import print_notes

    wall0 = time.perf_counter()
    run.out_dir.mkdir(parents=True, exist_ok=True)
    tokenizer = load_run_tokenizer(run.tokenizer_dir)
    state = start(run)
    d, plan = state.dist, state.plan
    target = plan.max_steps if stop_after is None else min(stop_after, plan.max_steps)
    first_step, tokens0, elapsed0 = state.step, state.tokens, state.elapsed
    if d.main:
        print_notes(plan.steps)
    reporter = Reporter(run, state, on_step)
    try:
        with reporter.progress():
            heldout = drive(
                run,
                state,
                target,
                reporter,
                step=lambda: run_steps(run, state, 1, reporter),
                heldout=lambda: heldout_loss(run, state),
                save=lambda: save(run, state, tokenizer),
                lr=lambda: state.optimizer.param_groups[0]["lr"],
                main=d.main,
            )
    finally:
        reporter.logger.close()
    finished = state.step >= plan.max_steps
    final = run.out_dir / "final"
    if finished and (state.step > first_step or not final.is_dir()):
        _save_final(run, state, tokenizer, final)
    dist.barrier(d)
    if d.main:
        plot_learning_curve(
            run.out_dir / "metrics.jsonl", run.out_dir / "learning_curve.png", title=run.run_id
        )
    stepping = state.elapsed - elapsed0
    if finished:
        model_dir = final
    else:
        ckpt = latest_checkpoint(run.out_dir)
        model_dir = ckpt / "model" if ckpt else run.out_dir
    best = state.best.get("path")
    return TrainResult(
        model_dir=model_dir,
        steps=state.step,
        max_steps=plan.max_steps,
        losses=list(state.losses),
        tokens_per_s=(state.tokens - tokens0) / stepping if stepping > 0 else 0.0,
        wall_time_s=time.perf_counter() - wall0,
        finished=finished,
        heldout_loss=heldout,
        best_checkpoint=Path(best) if best else None,
        epochs=plan.epochs,
        distill=state.distill.cost if state.distill else None,
        plan=plan.steps.as_dict(),
    )


def _save_final(
    run: TrainRun, state: TrainState, tokenizer: PreTrainedTokenizerBase, final: Path
) -> None:
    """The final HF dir (or adapter): a sharded model is gathered first, rank 0 writes."""
    from jupiter.models.folder import save_model_dir

    model_state = full_model_state(run, state)
    if state.dist.main:
        save_model_dir(final, state.model, tokenizer, model_state, checksum=True)
