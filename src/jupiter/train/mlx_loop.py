"""The MLX training loop (Apple silicon; mlx[cpu] on Linux): the PyTorch loop's semantics
(loop.py, trainer.py) step for step, so a run on a Mac and one on a GPU box learn alike.

Same schedule (lr_at), the same global batch read from the same data position, the loss
as summed token cross-entropy over the whole step's target count, gradients summed over
ranks (mx.distributed: ring, MPI or JACCL under `mlx.launch`), global-norm clipping and an
AdamW written out to match torch.optim.AdamW, all in fp32. World size 1 is the same code
path. A cross-island driver calls `start` once, then per round `set_weights`,
`run_steps(run, state, H)` and `get_weights`.

The step's array work (forward and backward, then clip + AdamW) runs under `mx.compile`,
as in mlx-lm's trainer; the tests check that it gives eager execution's numbers bit for bit.
JUPITER_MLX_COMPILE=0 in the environment runs it eagerly instead (read when a state takes
its first step).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import math
import os
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from jupiter import atomic
from jupiter.config import TrainConfig
from jupiter.data.chat import IGNORE
from jupiter.errors import JupiterError
from jupiter.train import mlx_checkpoint as ckpt
from jupiter.train.distill import teacher_off, teacher_setting, unsupported
from jupiter.train.loop import TrainResult, TrainRun
from jupiter.train.mlx_model import (
    batch_arrays,
    flat,
    loss_sum,
    require_mlx,
    set_arrays,
    trainable_weights,
)
from jupiter.train.mlx_state import MLXState, StepFns
from jupiter.train.schedule import lr_at

StepHook = Callable[[dict[str, Any]], None]


def start(run: TrainRun) -> MLXState:
    """A fresh state, or the newest valid checkpoint in run.out_dir restored exactly."""
    what = teacher_setting(run.config)
    if what is not None:
        raise unsupported(
            what, "the MLX backend", f"{teacher_off(run.config)}, or train on a PyTorch node"
        )
    if run.config.vocab != "full":
        raise JupiterError(
            f"train.vocab: {run.config.vocab} runs in the torch loop only, not "
            "with the MLX backend: set train.vocab: full, or train on a "
            "PyTorch node"
        )
    require_mlx()
    import mlx.core as mx

    from jupiter.models.folder import remove_stale_temps
    from jupiter.train.checkpoint import latest_checkpoint
    from jupiter.train.mlx_setup import build_model_for, make_plan, seed_everything

    cfg = run.config
    hostfile = os.environ.get("MLX_HOSTFILE", "")
    if hostfile and not Path(hostfile).read_text(encoding="utf-8").strip():
        # mlx.launch of a single process writes an empty ring hostfile, which init rejects
        del os.environ["MLX_HOSTFILE"]
    group = mx.distributed.init()  # a world of 1 unless started by mlx.launch
    model, spec = build_model_for(cfg, run.model_config, run.model_dir)
    plan = make_plan(cfg, run.dataset, model, spec, group.size(), run.memory_gb, run.overrides)
    if cfg.order == "documents_first":  # of the rows this run reads, the documents' first
        run.dataset.documents_first(plan.steps.total_rows, plan.steps.global_micro)
    state = MLXState(model, spec, {}, plan, group.rank(), group.size(), group)
    if state.rank == 0:  # what a writer killed mid-checkpoint left behind
        remove_stale_temps(run.out_dir)
    found = latest_checkpoint(run.out_dir) if run.resumes else None
    if found is None:
        seed_everything(cfg.seed + state.rank)
    else:
        ckpt.restore(run, state, found)
    return state


# ---------------------------------------------------------------------------- loop
def _clip_adamw(
    params: dict[str, Any],
    grads: dict[str, Any],
    moments: dict[str, tuple[Any, Any]],
    c: dict[str, Any],
) -> tuple[dict[str, Any], dict[str, tuple[Any, Any]], Any]:
    """torch's clip_grad_norm_, then torch.optim.AdamW's update written out (decoupled
    decay, bias corrections, eps after the square root), with weight decay on >=2-D
    non-embedding weights as build_optimizer groups them; `c` holds the step's scalars
    (_coefs). Returns the new weights, the new moments and the pre-clip norm."""
    import mlx.core as mx

    norm = mx.linalg.norm(mx.stack([mx.linalg.norm(g.reshape(-1)) for g in grads.values()]))
    coef = mx.minimum(c["clip"] / (norm + 1e-6), 1.0)
    new, out = {}, {}
    for path, p in params.items():
        g = grads[path] * coef
        m, v = moments[path]
        if p.ndim >= 2 and "embed" not in path:
            p = p * c["decay"]
        m = m + c["1-b1"] * (g - m)  # torch's lerp_ for a weight below 0.5
        v = v * c["b2"] + c["1-b2"] * (g * g)
        new[path] = p - c["step_size"] * (m / (mx.sqrt(v) / c["bc2_sqrt"] + 1e-8))
        out[path] = (m, v)
    return new, out, norm


def _coefs(cfg: TrainConfig, lr: float, t: int) -> dict[str, Any]:
    """Step t's scalars, worked out in float64 on the host (as torch does) and rounded to
    fp32 as Python numbers in mlx arithmetic are; arrays, so that a new lr or step does not
    retrace the compiled update."""
    import mlx.core as mx

    b1, b2 = cfg.beta1, cfg.beta2
    values = {
        "clip": cfg.grad_clip,
        "decay": 1 - lr * cfg.weight_decay,
        "1-b1": 1 - b1,
        "b2": b2,
        "1-b2": 1 - b2,
        "step_size": lr / (1 - b1**t),
        "bc2_sqrt": (1 - b2**t) ** 0.5,
    }
    return {k: mx.array(v, dtype=mx.float32) for k, v in values.items()}


def _step_fns(state: MLXState) -> StepFns:
    """The state's step functions: compiled, or eager under JUPITER_MLX_COMPILE=0."""
    import mlx.core as mx
    import mlx.nn as nn

    model, checkpoint, world = state.model, state.plan.grad_ckpt, state.world

    def mean_loss(ids: Any, targets: Any, positions: Any, n_targets: Any) -> Any:
        # × world: average_gradients divides the sum over ranks by it, as DDP does in torch
        return loss_sum(model, ids, targets, positions, checkpoint) / n_targets * world

    loss_and_grad = nn.value_and_grad(model, mean_loss)
    if os.environ.get("JUPITER_MLX_COMPILE", "1") == "0":
        return StepFns(loss_and_grad, _clip_adamw)
    # The model's arrays go in on every call rather than being frozen into the trace
    # (set_weights and restore replace them), and come back out (value_and_grad leaves the
    # traced ones in the model); so does the RNG key, which LoRA dropout advances.
    live = [model.state, mx.random.state]
    return StepFns(mx.compile(loss_and_grad, inputs=live, outputs=live), mx.compile(_clip_adamw))


def run_steps(run: TrainRun, state: MLXState, k: int, on_step: StepHook | None = None) -> None:
    """Run up to k optimizer steps (never past the plan's max_steps), advancing `state`.

    Every rank reads its slice of each global micro-batch; the loss is a mean over the
    whole step's target tokens on all ranks, so the gradients' sum over ranks is the
    global gradient, for any world size, micro-batch and accumulation.
    """
    import mlx.core as mx
    from mlx.nn.utils import average_gradients
    from mlx.utils import tree_unflatten

    cfg, data, plan, model = run.config, run.dataset, state.plan, state.model
    world = state.world
    model.train()
    if state.fns is None:
        state.fns = _step_fns(state)
    fns = state.fns
    for _ in range(min(k, plan.max_steps - state.step)):
        t0 = time.perf_counter()
        lr = (
            state.lr_fn(state.step)
            if state.lr_fn is not None
            else lr_at(state.step, plan.max_steps, run.lr, cfg.min_lr, cfg.warmup_steps)
        )
        batches, n_targets = [], 0
        for _ in range(plan.grad_accum):
            batches.append(
                data.batch(state.epoch, state.index, plan.global_micro, state.rank, state.world)
            )
            n_targets += data.target_count(state.epoch, state.index, plan.global_micro)
            state.epoch, state.index = data.next_position(
                state.epoch, state.index, plan.global_micro
            )
        count = mx.array(max(1, n_targets), dtype=mx.float32)  # an array: no retrace per step
        grads: dict[str, Any] = {}
        total = mx.array(0.0)
        for i, b in enumerate(batches):
            if i:  # one micro-batch's graph in memory at a time
                mx.eval(grads, total)
            loss, g = fns.loss_and_grad(*batch_arrays(b), count)
            g = flat(g)
            grads = {n: grads[n] + x for n, x in g.items()} if grads else g
            total = total + loss
        if world > 1:  # the mean of the ranks' (× world) gradients: their sum
            grads = flat(average_gradients(grads, group=state.group))
        params = flat(model.trainable_parameters())
        moments = {
            p: state.moments[p] if p in state.moments else (mx.zeros_like(w), mx.zeros_like(w))
            for p, w in params.items()
        }
        new, moments, norm = fns.update(params, grads, moments, _coefs(cfg, lr, state.step + 1))
        # The update is evaluated with the loss (one eval a step, without accumulation) but
        # lands in the model and state.moments only once the loss is known to be finite.
        both = mx.stack([ckpt.all_sum(state, total), norm])
        mx.eval(new, moments, both)
        step_loss, grad_norm = np.array(both).tolist()
        step_loss /= world
        if not math.isfinite(step_loss):
            # Stop before the optimizer writes NaNs into the weights.
            raise JupiterError(
                f"training diverged at step {state.step + 1} (loss {step_loss}):"
                " lower train.lr or raise train.warmup_steps, then resume"
            )
        model.update(tree_unflatten(list(new.items())))
        state.moments = moments
        state.step += 1
        state.lr = lr
        state.losses.append(step_loss)
        state.epoch_loss[0] += step_loss
        state.epoch_loss[1] += 1
        step_tokens = plan.global_batch * data.context_length
        state.tokens += step_tokens
        state.elapsed += time.perf_counter() - t0
        if on_step is not None:
            on_step(
                {
                    "step": state.step,
                    "loss": step_loss,
                    "lr": lr,
                    "grad_norm": grad_norm,
                    "tokens": step_tokens,
                }
            )


def heldout_loss(run: TrainRun, state: MLXState, max_rows: int = 256) -> float | None:
    """Mean next-token loss over the held-out rows (up to max_rows of them, each once,
    whatever the batch size and world), all ranks together."""
    import mlx.core as mx

    data = run.heldout
    if data is None or data.label_tokens == 0:
        return None
    state.model.eval()  # no LoRA dropout
    total, count = 0.0, 0
    for b in data.eval_batches(state.plan.global_micro, state.rank, state.world, max_rows):
        total += float(np.array(loss_sum(state.model, *batch_arrays(b), False)))
        count += int((b.labels != IGNORE).sum())
    state.model.train()
    both = np.array(ckpt.all_sum(state, mx.array([total, float(count)])))
    return float(both[0] / both[1]) if both[1] > 0 else None


def get_weights(state: MLXState) -> dict[str, np.ndarray]:
    """The trainable weights as fp32 numpy copies: by transformers' names (full, as torch's
    named_parameters; no lm_head when tied) or PEFT's saved-adapter names and shapes."""
    return trainable_weights(state.model)


def set_weights(state: MLXState, weights: dict[str, np.ndarray]) -> None:
    """Copy whole weights (from get_weights, or a global average) into the model, exactly."""
    set_arrays(state.model, weights)


def save(run: TrainRun, state: MLXState) -> Path:
    """A checkpoint out_dir/step-NNNNNN/ (every rank calls; rank 0 writes)."""
    return ckpt.save(run, state)


# --------------------------------------------------------------------------- train
class Reporter:
    """Per-step records into metrics.jsonl (and TensorBoard, W&B, MLflow) and the hook."""

    def __init__(self, run: TrainRun, state: MLXState, hook: StepHook | None) -> None:
        from jupiter.train.metrics import MetricsLogger, StepBar

        cfg = run.config
        self.run, self.state, self.hook = run, state, hook
        self.mark = (state.tokens, state.elapsed)
        self.logger = MetricsLogger(
            run.out_dir,
            cfg.metrics,
            run_name=run.run_id or run.out_dir.name,
            config={**cfg.model_dump(mode="json"), "plan": state.plan.steps.as_dict()},
            wandb_project=cfg.wandb_project,
            mlflow_tracking_uri=cfg.mlflow_tracking_uri,
            enabled=state.rank == 0,
            resume_step=state.step,
        )
        self.steps = StepBar()

    def progress(self) -> contextlib.AbstractContextManager[None]:
        enabled = self.run.progress and self.state.rank == 0
        return self.steps.show(enabled, self.state.plan.max_steps, self.state.step)

    def __call__(self, rec: dict[str, Any]) -> None:
        import mlx.core as mx

        st, step = self.state, rec["step"]
        tokens, elapsed = st.tokens - self.mark[0], st.elapsed - self.mark[1]
        self.steps.update(step, rec["loss"], tokens / elapsed if elapsed else 0.0)
        if step % self.run.config.log_every and step != st.plan.max_steps:
            return
        self.mark = (st.tokens, st.elapsed)
        per_epoch = self.run.dataset.batches_per_epoch(st.plan.global_micro)
        metrics = {
            "loss": rec["loss"],
            "ppl": math.exp(min(rec["loss"], 50.0)),
            "lr": rec["lr"],
            "grad_norm": rec["grad_norm"],
            "tokens_per_s": tokens / elapsed if elapsed else 0.0,
            "peak_mem_gb": mx.get_peak_memory() / float(1 << 30),
            "epoch": st.epoch + st.index / per_epoch,
            "elapsed": st.elapsed,
        }
        self.logger.log(step, metrics)
        if self.hook is not None and st.rank == 0:
            self.hook({"step": step, **metrics})


def train(
    run: TrainRun, on_step: StepHook | None = None, stop_after: int | None = None
) -> TrainResult:
    """Train to the plan's max_steps (or global step `stop_after`), resuming if out_dir holds
    a checkpoint; checkpoints, held-out loss, metrics and final dir as trainer.train."""
    from jupiter.train.checkpoint import latest_checkpoint
    from jupiter.train.metrics import plot_learning_curve
    from jupiter.train.plan import print_notes
    from jupiter.train.trainer import drive

    wall0 = time.perf_counter()
    run.out_dir.mkdir(parents=True, exist_ok=True)
    state = start(run)
    plan = state.plan
    target = plan.max_steps if stop_after is None else min(stop_after, plan.max_steps)
    first_step, tokens0, elapsed0 = state.step, state.tokens, state.elapsed
    if state.rank == 0:
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
                save=lambda: save(run, state),
                lr=lambda: state.lr,
                main=state.rank == 0,
            )
    finally:
        reporter.logger.close()
    finished = state.step >= plan.max_steps
    final = run.out_dir / "final"
    if finished and (state.step > first_step or not final.is_dir()):
        ckpt.save_final(run, state, final)
    if state.rank == 0:
        plot_learning_curve(
            run.out_dir / "metrics.jsonl", run.out_dir / "learning_curve.png", title=run.run_id
        )
    stepping = state.elapsed - elapsed0
    found = None if finished else latest_checkpoint(run.out_dir)
    best = state.best.get("path")
    return TrainResult(
        model_dir=final if finished else (found / "model" if found else run.out_dir),
        steps=state.step,
        max_steps=plan.max_steps,
        losses=list(state.losses),
        tokens_per_s=(state.tokens - tokens0) / stepping if stepping > 0 else 0.0,
        wall_time_s=time.perf_counter() - wall0,
        finished=finished,
        heldout_loss=heldout,
        best_checkpoint=Path(best) if best else None,
        epochs=plan.epochs,
        plan=plan.steps.as_dict(),
    )


# -------------------------------------------------------------------------- launch
def worker(spec: Path) -> int:
    """One mlx.launch rank: rebuild the run, train, rank 0 writes result.json."""
    from jupiter.train.launch import read_spec

    rank = int(os.environ.get("MLX_RANK", "0"))
    stop = os.environ.get("JUPITER_STOP_AFTER")
    try:
        result = train(read_spec(spec), stop_after=int(stop) if stop else None)
    except JupiterError as e:
        (spec.parent / f"error-rank{rank}.txt").write_text(f"rank {rank}: {e}\n", "utf-8")
        print(f"error: rank {rank}: {e}", file=sys.stderr)
        return 1
    if rank == 0:
        data = {k: (str(v) if isinstance(v, Path) else v) for k, v in result.__dict__.items()}
        atomic.write_text(spec.parent / "result.json", json.dumps(data))
    return 0


def _free_port_range(n: int) -> int:
    """A base port with n free ports from it: the ring backend listens on base + rank."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = int(s.getsockname()[1])
        try:
            for port in range(base, base + n):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", port))
        except OSError:
            continue
        return base
    raise JupiterError("no free local ports for mlx.launch: free some, or give a hostfile")


def launch_command(spec: Path, nproc: int, hostfile: Path | None, backend: str) -> list[str]:
    """mlx.launch (without its busy wait: train/mlx_launch.py) with this interpreter on
    every rank (it passes `-m module` through)."""
    from jupiter.train import mlx_launch

    if importlib.util.find_spec("mlx") is None:
        raise JupiterError(f"mlx is not installed for {sys.executable}: pip install mlx")
    cmd = [*mlx_launch.command(), "--backend", backend]
    if hostfile is not None:
        cmd += ["--hostfile", str(hostfile)]
    else:
        cmd += ["-n", str(nproc), "--starting-port", str(_free_port_range(nproc))]
    return [*cmd, "--python", sys.executable, "-m", "jupiter.train.mlx_loop", str(spec)]


def launch_mlx(
    run: TrainRun,
    nproc: int,
    hostfile: Path | None = None,
    backend: str = "ring",
    stop_after: int | None = None,
) -> TrainResult:
    """`train(run)` in nproc local processes (or on a hostfile's hosts) through mlx.launch;
    returns rank 0's result."""
    from jupiter.train.launch import run_workers, write_spec

    if nproc < 1:
        raise JupiterError("--nproc must be at least 1")
    spec = write_spec(run, run.out_dir / "launch")
    cmd = launch_command(spec, nproc, hostfile, backend)
    result = run_workers(cmd, spec, dict(os.environ), stop_after, "mlx.launch")
    assert result is not None
    return result


if __name__ == "__main__":
    sys.exit(worker(Path(sys.argv[1])))
