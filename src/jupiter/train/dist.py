"""Distributed training in a handful of calls: init → (rank, world, device), wrap, reduce,
barrier. World size 1 goes through the same calls, which then do nothing.

Processes are started by torchrun (see launch.py), which sets RANK, WORLD_SIZE and
LOCAL_RANK; NCCL joins GPUs, gloo joins CPUs.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NoReturn

import torch
import torch.distributed as tdist

from jupiter.errors import JupiterError

Strategy = Literal["ddp", "fsdp", "deepspeed"]


@dataclass(frozen=True)
class Dist:
    rank: int
    world: int
    local_rank: int
    device: torch.device

    @property
    def main(self) -> bool:
        return self.rank == 0


def resolve_device(name: str, local_rank: int = 0) -> torch.device:
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda":
        if not torch.cuda.is_available():
            raise JupiterError("device cuda was asked for but torch sees no CUDA GPU")
        return torch.device("cuda", local_rank % torch.cuda.device_count())
    return torch.device(name)


def init(device: str = "auto") -> Dist:
    """Join the process group torchrun set up (or be rank 0 of 1 without it)."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    dev = resolve_device(device, local_rank)
    if world > 1 and not tdist.is_initialized():
        if dev.type == "cuda":
            torch.cuda.set_device(dev)
        backend = "nccl" if dev.type == "cuda" else "gloo"
        tdist.init_process_group(backend, rank=rank, world_size=world)
    return Dist(rank, world, local_rank, dev)


def shutdown() -> None:
    if tdist.is_initialized():
        tdist.destroy_process_group()


def exit_rank(code: int) -> NoReturn:
    """End a torchrun rank without tearing down the process group's C++ objects.

    Destroying a gloo process group joins its worker threads while this thread holds the
    GIL; a worker thread that is still releasing a finished collective's tensors needs the
    GIL too, so the rank hangs in ~ProcessGroupGloo (or aborts with "terminate called
    without an active exception"). Measured here as about 1 run in 4 of a two-rank DDP
    test under load. So a rank that is done waits for the others (a barrier: nobody exits
    while a peer is still in a collective), flushes its output and leaves with os._exit;
    the OS frees the rest. An error exit skips the barrier (the peers may never reach it).
    """
    if code == 0 and tdist.is_initialized():
        try:
            tdist.barrier()
        except Exception:  # a peer already gone: nothing left to wait for
            code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def barrier(d: Dist) -> None:
    if d.world > 1:
        tdist.barrier()


def sum_(d: Dist, value: torch.Tensor) -> torch.Tensor:
    """Sum a tensor over ranks (in place, returned)."""
    if d.world > 1:
        tdist.all_reduce(value, op=tdist.ReduceOp.SUM)
    return value


def gather_objects(d: Dist, obj: Any) -> list[Any]:
    """Every rank's `obj`, in rank order, on every rank."""
    if d.world == 1:
        return [obj]
    out: list[Any] = [None] * d.world
    tdist.all_gather_object(out, obj)
    return out


def broadcast_object(d: Dist, obj: Any) -> Any:
    """Rank 0's `obj` on every rank."""
    if d.world == 1:
        return obj
    box = [obj]
    tdist.broadcast_object_list(box, src=0)
    return box[0]


def wrap(model: torch.nn.Module, d: Dist, strategy: Strategy) -> torch.nn.Module:
    """The module the loop calls: the model itself (world 1), DDP, or FSDP2-sharded in place.

    FSDP2 (`fully_shard`) shards each decoder layer, then the root, so a layer's weights are
    gathered only while it runs (PyTorch FSDP2 docs). DeepSpeed wraps in its own engine
    (see deepspeed_engine) and is not handled here.
    """
    if d.world == 1:
        return model
    if strategy == "ddp":
        from torch.nn.parallel import DistributedDataParallel as DDP

        ids = [d.device.index] if d.device.type == "cuda" else None
        return DDP(model, device_ids=ids)
    if strategy == "fsdp":
        from torch.distributed.fsdp import fully_shard

        for layer in decoder_layers(model):
            fully_shard(layer)
        fully_shard(model)
        return model
    raise JupiterError(f"unknown distributed strategy {strategy!r}: use ddp, fsdp or deepspeed")


def decoder_layers(model: torch.nn.Module) -> list[torch.nn.Module]:
    """The transformer blocks of an HF causal LM (PEFT-wrapped or not)."""
    for name, module in model.named_modules():
        if name.endswith(".layers") and isinstance(module, torch.nn.ModuleList):
            return list(module)
    raise JupiterError("cannot find the decoder layers to shard (expected a `.layers` list)")


def deepspeed_config(
    micro_batch: int,
    grad_accum: int,
    world: int,
    zero_stage: int,
    precision: str,
    grad_clip: float,
) -> dict[str, Any]:
    """DeepSpeed's config derived from Jupiter's, so the two can never disagree.

    Jupiter's loop owns the optimizer, the LR schedule and the loss normalisation (a mean
    over the whole step's target tokens), so DeepSpeed gets the batch arithmetic only, with
    `train_batch_size = micro × accum × world` (DeepSpeed checks that identity at start).
    """
    cfg: dict[str, Any] = {
        "train_micro_batch_size_per_gpu": micro_batch,
        "gradient_accumulation_steps": grad_accum,
        "train_batch_size": micro_batch * grad_accum * world,
        "gradient_clipping": grad_clip,
        "zero_optimization": {
            "stage": zero_stage,
            "overlap_comm": True,
            "contiguous_gradients": True,
            "reduce_bucket_size": 5e8,
        },
        "steps_per_print": 1 << 30,  # Jupiter logs its own metrics
        "wall_clock_breakdown": False,
    }
    if zero_stage == 3:
        cfg["zero_optimization"]["stage3_gather_16bit_weights_on_model_save"] = True
    if precision == "bf16":
        cfg["bf16"] = {"enabled": True}
    elif precision == "fp16":
        cfg["fp16"] = {"enabled": True, "loss_scale": 0, "initial_scale_power": 16}
    return cfg


def is_deepspeed(forward: Any) -> bool:
    return hasattr(forward, "get_global_grad_norm")


def deepspeed_safe_globals() -> list[Any]:
    """The plain-data classes DeepSpeed's ZeRO optimizer state holds (a loss scaler, an
    enum, a slice address), allowed through torch.load(weights_only=True); nothing else."""
    import sys

    if "deepspeed" not in sys.modules:
        return []
    from deepspeed.runtime.fp16.loss_scaler import LossScaler
    from deepspeed.runtime.zero.config import ZeroStageEnum
    from deepspeed.utils.tensor_fragment import fragment_address

    return [LossScaler, ZeroStageEnum, fragment_address]


def deepspeed_engine(
    model: torch.nn.Module, optimizer: torch.optim.Optimizer, config: dict[str, Any]
) -> Any:
    try:
        import deepspeed
    except ImportError:
        raise JupiterError(
            "train.distributed: deepspeed needs the deepspeed package: pip install deepspeed "
            "(or use distributed: fsdp, which ships with PyTorch)"
        ) from None
    clear_stale_build_locks()
    skip_inference_ops()
    engine, _, _, _ = deepspeed.initialize(model=model, optimizer=optimizer, config=config)
    return engine


INFERENCE_OPS = ("deepspeed_shm_comm",)


def skip_inference_ops() -> list[str]:
    """DeepSpeed's communication backend compiles its shared-memory all-reduce op on a CPU
    at start (a C++ build of 2-3 minutes on a laptop, once per machine), and only its
    `inference_all_reduce` uses it; training reduces through the process group. The op is
    marked unavailable for the run, so no training run waits for that build. Returns the
    ops marked."""
    import deepspeed.ops

    compatible: dict[str, bool] = deepspeed.ops.__compatible_ops__
    marked = [op for op in INFERENCE_OPS if compatible.get(op)]
    for op in marked:
        compatible[op] = False
    return marked


STALE_LOCK_S = 600.0


def clear_stale_build_locks(
    root: Path | None = None, max_age_s: float = STALE_LOCK_S
) -> list[Path]:
    """DeepSpeed builds its ops with torch's JIT extension builder, which guards each build
    with a `lock` file and waits, forever, while one exists. A run killed mid-build leaves it
    behind and every later run hangs at start. A lock older than any build (10 minutes; a
    build takes 1-3 on a laptop) is removed, with a line saying so. Returns the removed."""
    if root is None:
        env = os.environ.get("TORCH_EXTENSIONS_DIR")
        root = Path(env) if env else Path.home() / ".cache" / "torch_extensions"
    if not root.is_dir():
        return []
    removed = []
    now = time.time()
    for lock in root.glob("*/*/lock"):
        try:
            if now - lock.stat().st_mtime <= max_age_s:
                continue  # a build under way
            lock.unlink()
        except OSError:
            continue  # another rank removed it first, or it cannot be removed: torch waits
        removed.append(lock)
        print(f"removed a stale build lock left by an interrupted run: {lock}", flush=True)
    return removed
