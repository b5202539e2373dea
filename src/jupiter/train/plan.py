"""The training plan: one pure function turns the train: section and the data's size into
micro-batch, accumulation, optimizer steps, epochs and tokens, for every launcher (one
process, torchrun, MLX, cluster islands), so one YAML trains the same length everywhere.

Rules (the local torch loop's, the reference):
- grad_accum is train.grad_accum, or global_batch_size / (micro_batch × processes);
- an epoch is floor(rows / (micro_batch × processes)) micro-batches, over the rows of one
  island's shard (each DiLoCo island trains on its own share of the data);
- max_steps is train.max_steps, else ceil(epochs × steps per epoch), where epochs auto is
  AUTO_EPOCHS by the number of sequences (examples) of the whole set;
- tokens per step = micro_batch × processes × grad_accum × context_length, per island.

What a launcher cannot match (max_steps over more processes, an auto micro-batch the
cluster driver cannot measure, a step budget set by a driver) goes into `notes`, printed
with the run. The config is only read: what a run decides lives in the plan.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from jupiter.config import TrainConfig
from jupiter.errors import JupiterError

Launcher = Literal["local", "torchrun", "mlx", "cluster"]

# Epochs by dataset size when train.epochs is auto: small sets need more passes.
AUTO_EPOCHS = ((1_000, 5), (10_000, 4), (50_000, 3), (100_000, 2))


def auto_epochs(n_examples: int) -> int:
    """5 below 1k examples, 4 below 10k, 3 below 50k, 2 up to 100k, 1 above."""
    for limit, epochs in AUTO_EPOCHS:
        if n_examples < limit:
            return epochs
    return 2 if n_examples == 100_000 else 1


@dataclass(frozen=True)
class DataSize:
    """What the plan needs of a packed dataset: its rows, the sequences (examples and
    texts) packed into them, and the row length."""

    rows: int
    sequences: int
    context_length: int

    @classmethod
    def of(cls, dataset: Any) -> DataSize:
        """A PackedDataset's size (the whole set's, even for an island's shard)."""
        return cls(int(dataset.num_rows), int(dataset.num_sequences), int(dataset.context_length))


@dataclass(frozen=True)
class TrainPlan:
    """The run's length and batch, resolved from the config's autos."""

    micro_batch: int  # sequences per forward pass per process
    grad_accum: int  # micro-batches per optimizer step
    world: int  # data-parallel processes (inside one island)
    max_steps: int  # optimizer steps (per island)
    epochs: float  # passes over the (island's) data that max_steps amount to
    warmup_steps: int
    context_length: int
    islands: int = 1
    launcher: Launcher = "local"
    notes: tuple[str, ...] = ()  # differences from the config or other launchers, and why

    @property
    def global_micro(self) -> int:
        return self.micro_batch * self.world

    @property
    def global_batch(self) -> int:
        return self.micro_batch * self.world * self.grad_accum

    @property
    def tokens_per_step(self) -> int:
        """Tokens of one optimizer step of one island (padding included)."""
        return self.global_batch * self.context_length

    @property
    def total_tokens(self) -> int:
        """Tokens the whole run takes in: every island's steps."""
        return self.max_steps * self.tokens_per_step * self.islands

    def as_dict(self) -> dict[str, Any]:
        """For the run's report and metrics (JSON)."""
        return {
            "launcher": self.launcher, "micro_batch": self.micro_batch,
            "grad_accum": self.grad_accum, "world": self.world, "islands": self.islands,
            "max_steps": self.max_steps, "epochs": round(self.epochs, 4),
            "warmup_steps": self.warmup_steps, "tokens_per_step": self.tokens_per_step,
            "total_tokens": self.total_tokens, "notes": list(self.notes),
        }  # fmt: skip


def plan_training(
    cfg: TrainConfig,
    data: DataSize,
    *,
    micro_batch: int,
    world: int = 1,
    islands: int = 1,
    launcher: Launcher = "local",
    max_steps: int | None = None,
    max_steps_reason: str = "",
    notes: tuple[str, ...] = (),
) -> TrainPlan:
    """The plan of `cfg` over `data` with `micro_batch` (train.micro_batch_size, resolved
    by the caller when auto) on `world` processes in each of `islands` islands. `max_steps`,
    when a driver sets the step budget (an island's share of the cluster's rounds), wins
    over the config and is noted with `max_steps_reason`."""
    if micro_batch < 1 or world < 1 or islands < 1:
        raise ValueError(f"bad plan inputs: micro_batch {micro_batch}, world {world}, "
                         f"islands {islands}")  # fmt: skip
    per_step = micro_batch * world
    accum = cfg.grad_accum
    if cfg.global_batch_size is not None:
        if cfg.global_batch_size % per_step:
            raise JupiterError(
                f"train.global_batch_size {cfg.global_batch_size} is not a multiple of "
                f"micro_batch_size × processes = {per_step}: change one of them"
            )
        accum = cfg.global_batch_size // per_step
    rows = data.rows // islands  # the smallest island's shard (data.shard deals rows out)
    per_epoch = max(1, rows // per_step) / accum
    out = list(notes)
    if max_steps is not None:
        steps = max_steps
        if max_steps_reason:
            out.append(f"max_steps {max_steps}: {max_steps_reason}")
    elif cfg.max_steps is not None:
        steps = cfg.max_steps
        out += steps_note(cfg, steps, world, islands)
    else:
        epochs = auto_epochs(data.sequences) if cfg.epochs == "auto" else cfg.epochs
        steps = max(1, math.ceil(epochs * per_epoch))
    return TrainPlan(
        micro_batch=micro_batch, grad_accum=accum, world=world, max_steps=steps,
        epochs=steps / per_epoch, warmup_steps=cfg.warmup_steps,
        context_length=data.context_length, islands=islands, launcher=launcher,
        notes=tuple(out),
    )  # fmt: skip


def steps_note(cfg: TrainConfig, steps: int, world: int, islands: int) -> list[str]:
    """An explicit max_steps counts optimizer steps: more processes (without a global
    batch) or more islands take more tokens than one process would."""
    who = []
    if world > 1 and cfg.global_batch_size is None:
        who.append(f"{world} processes")
    if islands > 1:
        who.append(f"{islands} islands, each on its own shard,")
    if not who:
        return []
    factor = (world if cfg.global_batch_size is None else 1) * islands
    keep = " (set train.global_batch_size to keep them)" if islands == 1 else ""
    return [f"train.max_steps {steps} counts optimizer steps: {' in '.join(who)} take "
            f"{factor}× the tokens of one process{keep}"]  # fmt: skip


def print_notes(plan: TrainPlan) -> None:
    """The plan's differences from the config, each with its reason (rank 0 calls)."""
    for note in plan.notes:
        print(f"plan: {note}", flush=True)
