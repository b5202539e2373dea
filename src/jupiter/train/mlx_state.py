"""The state the MLX loop advances (mlx_loop.py) and its checkpoints save and restore
(mlx_checkpoint.py): the model, AdamW's moments, the plan, the data position."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from jupiter.train.mlx_model import ModelSpec
from jupiter.train.setup import Plan

POSITION_KEYS = ("step", "epoch", "index", "tokens", "elapsed", "losses", "epoch_loss")


@dataclass
class StepFns:
    """A state's step functions, built once so that their compiled traces serve every step."""

    loss_and_grad: Callable[..., tuple[Any, Any]]  # (ids, targets, positions, n_targets)
    update: Callable[..., tuple[dict[str, Any], dict[str, Any], Any]]  # see _clip_adamw


@dataclass
class MLXState:
    """What `run_steps` advances; the position fields mean what they mean in TrainState."""

    model: Any  # an mlx-lm model (its target linears LoRA-wrapped under method lora)
    spec: ModelSpec
    moments: dict[str, tuple[Any, Any]]  # AdamW (exp_avg, exp_avg_sq) by mlx parameter path
    plan: Plan
    rank: int
    world: int
    group: Any  # the mx.distributed group
    step: int = 0  # optimizer steps done
    epoch: int = 0  # data position: the next micro-batch is dataset.batch(epoch, index)
    index: int = 0
    tokens: int = 0  # input tokens processed since step 0, all ranks
    elapsed: float = 0.0  # seconds spent stepping since step 0
    losses: list[float] = field(default_factory=list)
    epoch_loss: list[float] = field(default_factory=lambda: [0.0, 0.0])  # sum, steps
    best: dict[str, Any] = field(default_factory=dict)  # {"step", "loss", "path"}
    epochs_done: list[dict[str, Any]] = field(default_factory=list)  # epoch_info.json rows
    lr: float = 0.0  # the last step's learning rate
    tokenizer: Any = None  # loaded by the first save
    fns: StepFns | None = None  # built by the first run_steps
    lr_fn: Callable[[int], float] | None = None  # as TrainState.lr_fn: a driver's schedule

    def position(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in POSITION_KEYS}
        return out | {"best": self.best, "epochs_done": self.epochs_done}
