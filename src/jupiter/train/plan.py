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
cluster driver cannot measure) and what the run sets over the config (Overrides: a
curriculum level's length and lr, an island's step budget, a device fallback) go into
`notes`, printed with the run. The config is only read: what a run decides lives in the
run (TrainRun.overrides) and its plan.
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
    def total_rows(self) -> int:
        """Packed rows the run reads (per island): every step's global batch."""
        return self.max_steps * self.global_batch

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
            "launcher": self.launcher,
            "micro_batch": self.micro_batch,
            "grad_accum": self.grad_accum,
            "world": self.world,
            "islands": self.islands,
            "max_steps": self.max_steps,
            "epochs": round(self.epochs, 4),
            "warmup_steps": self.warmup_steps,
            "tokens_per_step": self.tokens_per_step,
            "total_tokens": self.total_tokens,
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class Overrides:
    """What a run sets over its config's train: section, kept in the run (TrainRun) and in
    its plan's notes, never written into the config: a curriculum level's length and lr, a
    cluster island's step budget and micro-batch, a device fallback's precision."""

    # a curriculum level's length, in place of train.epochs / train.max_steps (both, even
    # when one is unset: the level says how long it trains)
    epochs: int | Literal["auto"] | None = None
    max_steps: int | None = None
    lr: float | None = None  # a curriculum level's, in place of train.lr
    budget: int | None = None  # a driver's step budget (a cluster island's rounds × H)
    micro_batch: int | None = None  # a driver's (the cluster plan's for an island)
    precision: str | None = None  # a device fallback's (improve/preflight.py)
    reasons: tuple[str, ...] = ()  # why, one line each: they go into the plan's notes

    @property
    def sets_length(self) -> bool:
        return self.epochs is not None or self.max_steps is not None

    def hashed(self) -> dict[str, Any]:
        """What changes the run's result (for the resume check): not the budget or why."""
        return {
            k: v
            for k, v in self.__dict__.items()
            if v is not None and k not in ("budget", "reasons")
        }


def plan_training(
    cfg: TrainConfig,
    data: DataSize,
    *,
    micro_batch: int,
    world: int = 1,
    islands: int = 1,
    launcher: Launcher = "local",
    over: Overrides | None = None,
    notes: tuple[str, ...] = (),
) -> TrainPlan:
    """The plan of `cfg` over `data` with `micro_batch` (train.micro_batch_size, resolved
    by the caller when auto) on `world` processes in each of `islands` islands. `over`: the
    run's own figures (a level's length, a driver's step budget), noted with their reasons."""
    if micro_batch < 1 or world < 1 or islands < 1:
        raise ValueError(
            f"bad plan inputs: micro_batch {micro_batch}, world {world}, islands {islands}"
        )
    over = over or Overrides()
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
    out = [*notes, *over.reasons]
    if over.sets_length:
        epochs_set, max_set = over.epochs or "auto", over.max_steps
    else:
        epochs_set, max_set = cfg.epochs, cfg.max_steps
    if over.budget is not None:
        steps = over.budget
    elif max_set is not None:
        steps = max_set
        out += steps_note(cfg, steps, world, islands)
    else:
        epochs = auto_epochs(data.sequences) if epochs_set == "auto" else epochs_set
        steps = max(1, math.ceil(epochs * per_epoch))
    return TrainPlan(
        micro_batch=micro_batch,
        grad_accum=accum,
        world=world,
        max_steps=steps,
        epochs=steps / per_epoch,
        warmup_steps=cfg.warmup_steps,
        context_length=data.context_length,
        islands=islands,
        launcher=launcher,
        notes=tuple(out),
    )


def steps_note(cfg: TrainConfig, steps: int, world: int, islands: int) -> list[str]:
    """An explicit max_steps (train's or a level's) counts optimizer steps: more processes (without a global
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
    return [
        f"train.max_steps {steps} counts optimizer steps: {' in '.join(who)} take "
        f"{factor}× the tokens of one process{keep}"
    ]


def print_notes(plan: TrainPlan) -> None:
    """The plan's differences from the config, each with its reason (rank 0 calls)."""
    for note in plan.notes:
        print(f"plan: {note}", flush=True)
