"""Training metrics: FLOPs and MFU arithmetic, peak memory, and the rank-0 logger that writes
metrics.jsonl (always) plus TensorBoard, W&B or MLflow, and the learning-curve plot.

The logger is the only writer of metrics.jsonl; every other reader goes through read_metrics.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from jupiter import atomic
from jupiter.errors import JupiterError

PEAK_ENV = "JUPITER_PEAK_TFLOPS"
BACKENDS = ("tensorboard", "wandb", "mlflow")


# ----------------------------------------------------------------------------- FLOPs
def flops_per_token(
    n_params: int,
    num_layers: int,
    hidden_size: int,
    context_length: int,
    trainable_fraction: float = 1.0,
) -> float:
    """Training FLOPs per token (PaLM, Chowdhery et al. 2022, appendix B): 6·N + 12·L·H·T.

    6·N is the weight matmuls: 2·N forward, 4·N backward (2·N for the input gradients, 2·N
    for the weight gradients). 12·L·H·T is attention's QKᵀ and AV, which hold no weights.
    Pass as N the parameters that take part in matmuls (the output head counts; the input
    embedding is a lookup and may be left out).

    With LoRA only `trainable_fraction` of N needs weight gradients, so the backward is
    2·N + 2·N·fraction: 4·N + 2·N·fraction in all. Input gradients still flow through the
    frozen weights to reach the adapters below them, and attention's term does not change.
    """
    if not 0.0 <= trainable_fraction <= 1.0:
        raise ValueError(f"trainable_fraction must be in [0, 1], got {trainable_fraction}")
    matmuls = 4.0 * n_params + 2.0 * n_params * trainable_fraction
    attention = 12.0 * num_layers * hidden_size * context_length
    return matmuls + attention


@dataclass(frozen=True)
class Peak:
    """Dense (not 2:4 sparse) TFLOPS from the vendor's datasheet or architecture whitepaper.

    `half` is fp16/bf16 tensor-core math with fp32 accumulation (what PyTorch matmuls use);
    `tf32` is None where the chip has no TF32 tensor cores; `bf16` False where bf16 is emulated.
    """

    half: float
    tf32: float | None
    fp32: float
    bf16: bool = True


# First match wins, so the specific names come before the general ones. Names as
# torch.cuda.get_device_name reports them: "NVIDIA H100 80GB HBM3" is the SXM part.
PEAKS: list[tuple[str, Peak]] = [
    (r"\bgh200\b", Peak(989.5, 494.5, 67.0)),  # GH200 datasheet: the H100 SXM's Hopper GPU
    (r"\bh200 nvl\b", Peak(835.5, 417.5, 60.0)),  # H200 datasheet: 1,671 / 835 sparse
    (r"\bh200\b", Peak(989.5, 494.5, 67.0)),  # H200 SXM datasheet: 1,979 / 989 sparse
    (r"\bh100 nvl\b", Peak(835.5, 417.5, 60.0)),  # H100 datasheet: 1,671 / 835 sparse
    (r"\bh100 pcie\b", Peak(756.5, 378.0, 51.0)),  # H100 datasheet: 1,513 / 756 sparse
    (r"\bh100\b", Peak(989.5, 494.5, 67.0)),  # H100 SXM datasheet: 1,979 / 989 sparse
    (r"\ba100\b", Peak(312.0, 156.0, 19.5)),  # A100 datasheet, SXM and PCIe alike
    # The A10G is AWS's variant and has no public datasheet; the A10's numbers stand in,
    # so its MFU may read somewhat low.
    (r"\ba10g\b", Peak(125.0, 62.5, 31.2)),
    (r"\ba10\b", Peak(125.0, 62.5, 31.2)),  # A10 datasheet
    (r"\bl40s\b", Peak(362.05, 183.0, 91.6)),  # L40S datasheet
    (r"\bl40\b", Peak(181.05, 90.5, 90.5)),  # L40 datasheet
    (r"\bl4\b", Peak(121.0, 60.0, 30.3)),  # L4 datasheet
    (r"\brtx 6000 ada\b", Peak(364.25, 182.1, 91.1)),  # RTX 6000 Ada datasheet
    (r"\brtx a6000\b", Peak(154.8, 77.4, 38.7)),  # RTX A6000 datasheet
    (r"\brtx 4090\b(?!.*laptop)", Peak(165.2, 82.6, 82.6)),  # Ada whitepaper, fp32 accumulate
    (r"\brtx 3090 ti\b", Peak(80.0, 40.0, 40.0)),  # GA102 whitepaper, fp32 accumulate
    (r"\brtx 3090\b", Peak(71.0, 35.6, 35.6)),  # GA102 whitepaper, fp32 accumulate
    (r"\bv100\b.*\bpcie\b", Peak(112.0, None, 14.0, bf16=False)),  # V100 datasheet
    (r"\bv100\b", Peak(125.0, None, 15.7, bf16=False)),  # V100 SXM2 datasheet
    (r"\bt4\b", Peak(65.0, None, 8.1, bf16=False)),  # T4 datasheet
]


def peak_flops_for_name(name: str, dtype: torch.dtype | None, tf32: bool = False) -> float | None:
    """Dense peak FLOP/s of the CUDA device called `name` for matmuls in `dtype`.

    dtype None means fp32 (no autocast); fp32 counts at the TF32 rate when `tf32` is on.
    None for an unknown device or a dtype it has no fast path for.
    """
    lowered = name.lower()
    peak = next((p for pattern, p in PEAKS if re.search(pattern, lowered)), None)
    if peak is None:
        return None
    if dtype == torch.bfloat16:
        tflops: float | None = peak.half if peak.bf16 else None
    elif dtype == torch.float16:
        tflops = peak.half
    elif dtype is None or dtype == torch.float32:
        tflops = peak.tf32 if tf32 and peak.tf32 is not None else peak.fp32
    else:
        tflops = None
    return None if tflops is None else tflops * 1e12


def peak_flops(device: torch.device, dtype: torch.dtype | None) -> float | None:
    """Dense peak FLOP/s of one device; $JUPITER_PEAK_TFLOPS overrides it for any device.

    CUDA devices are looked up by name (see PEAKS); anything else is None, as a CPU's peak
    depends on cores, clocks and vector units that torch does not report.
    """
    override = os.environ.get(PEAK_ENV, "").strip()
    if override:
        try:
            value = float(override)
        except ValueError:
            value = math.nan
        if not value > 0 or math.isinf(value):
            raise JupiterError(
                f"{PEAK_ENV} must be a positive number of TFLOPS (e.g. 989), got {override!r}"
            )
        return value * 1e12
    if device.type != "cuda":
        return None
    tf32 = torch.get_float32_matmul_precision() != "highest"
    return peak_flops_for_name(torch.cuda.get_device_name(device), dtype, tf32=tf32)


def mfu(tokens_per_s: float, flops_per_token: float, peak: float | None) -> float | None:
    """Model FLOPs utilization: achieved FLOP/s over peak; None when the peak is unknown.

    tokens_per_s and peak must cover the same devices (one device's rate and its peak, or
    the global rate and peak × world size).
    """
    if peak is None or peak <= 0:
        return None
    return tokens_per_s * flops_per_token / peak


def peak_memory_gb(device: torch.device) -> float:
    """Peak memory in GiB (2**30 bytes) since the last reset_peak_memory: CUDA's max
    allocated on `device`; elsewhere the process's peak resident set (Linux: VmHWM, which
    the reset clears; else the max RSS of the process's life. MPS memory is unified, so RSS
    is the closer measure)."""
    if device.type == "cuda":
        return torch.cuda.max_memory_allocated(device) / 2**30
    status = Path("/proc/self/status")
    found = re.search(r"VmHWM:\s+(\d+) kB", status.read_text()) if status.is_file() else None
    if found:
        return int(found.group(1)) / 2**20
    try:
        import resource
    except ImportError:  # Windows has no resource module
        return 0.0
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # ru_maxrss is in KiB on Linux, in bytes on macOS
    return maxrss / 2**30 if sys.platform == "darwin" else maxrss / 2**20


def reset_peak_memory(device: torch.device) -> float:
    """Start the peak over from what is held now, so a training run reports its own peak
    (weights included) and not an earlier stage's (a GGUF import, the filters). Returns what
    is held now in GiB (CUDA: allocated; else the resident set), the floor of that peak: in
    a long `jupiter start` process it includes what the earlier stages still hold."""
    from jupiter.models.memory import release_heap

    release_heap()  # what earlier stages freed goes back to the OS, out of the floor
    if device.type == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(device)
        return torch.cuda.memory_allocated(device) / 2**30
    with contextlib.suppress(OSError):  # Linux: "5" resets the process's peak RSS (VmHWM)
        Path("/proc/self/clear_refs").write_text("5")
    status = Path("/proc/self/status")
    found = re.search(r"VmRSS:\s+(\d+) kB", status.read_text()) if status.is_file() else None
    return int(found.group(1)) / 2**20 if found else 0.0


# ---------------------------------------------------------------------------- logger
def _flatten(config: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    """{"train": {"lr": 0.1}} -> {"train.lr": "0.1"}: MLflow params are flat strings."""
    flat: dict[str, str] = {}
    for key, value in config.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(_flatten(value, f"{name}."))
        else:
            flat[name] = str(value)[:500]  # MLflow's oldest servers cap values at 500 chars
    return flat


def _truncate(path: Path, step: int) -> None:
    """Keep the rows logged at or before `step` (a torn last line is dropped too)."""
    if not path.is_file():
        return
    kept = [json.dumps(row) + "\n" for row in read_metrics(path) if row["step"] <= step]
    atomic.write_text(path, "".join(kept))


class MetricsLogger:
    """Rank 0 writes: metrics.jsonl always; TensorBoard (default), W&B, MLflow when configured."""

    def __init__(
        self,
        out_dir: Path,
        backends: Sequence[str],
        *,
        run_name: str,
        config: dict[str, Any],
        wandb_project: str = "",
        mlflow_tracking_uri: str = "",
        enabled: bool = True,
        resume_step: int | None = None,
    ) -> None:
        self.enabled = enabled
        self.path = Path(out_dir) / "metrics.jsonl"
        self._tb: Any = None
        self._wandb: Any = None
        self._mlflow: Any = None
        self._file: Any = None
        if not enabled:
            return
        unknown = [b for b in backends if b not in BACKENDS]
        if unknown:
            raise JupiterError(
                f"metrics: unknown backend {unknown[0]!r} in train.metrics; "
                f"choose from {', '.join(BACKENDS)}"
            )
        # every import first, so a missing package fails before anything is written
        modules = {b: _import(b) for b in dict.fromkeys(backends)}
        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        if resume_step is not None:
            _truncate(self.path, resume_step)
        try:
            if "tensorboard" in modules:
                self._tb = _open_tensorboard(modules["tensorboard"], out_dir, resume_step)
            if "wandb" in modules:
                self._wandb = _open_wandb(
                    modules["wandb"], out_dir, run_name, config, wandb_project, resume_step
                )
            if "mlflow" in modules:
                self._mlflow = _open_mlflow(
                    modules["mlflow"], out_dir, run_name, config, mlflow_tracking_uri, resume_step
                )
        except BaseException:
            self.close()
            raise
        self._file = self.path.open("a", encoding="utf-8")

    def log(
        self, step: int, metrics: Mapping[str, float | int | None], kind: str = "train"
    ) -> None:
        """Append {"step", "kind", **metrics} (None values dropped) to metrics.jsonl and send
        each number to the backends as f"{kind}/{key}"."""
        if not self.enabled:
            return
        if self._file is None:
            raise RuntimeError("MetricsLogger.log after close")
        values = {k: v for k, v in metrics.items() if v is not None}
        if "step" in values or "kind" in values:
            raise ValueError("metrics: 'step' and 'kind' are set by MetricsLogger.log")
        self._file.write(json.dumps({"step": step, "kind": kind, **values}) + "\n")
        self._file.flush()
        numbers = {
            f"{kind}/{k}": float(v)
            for k, v in values.items()
            if isinstance(v, int | float) and not isinstance(v, bool)
        }
        if self._tb is not None:
            for tag, value in numbers.items():
                self._tb.add_scalar(tag, value, global_step=step)
            self._tb.flush()  # a live TensorBoard sees each step, not one every 2 minutes
        if self._wandb is not None and numbers:
            self._wandb.log(numbers, step=step)
        if self._mlflow is not None and numbers:
            self._mlflow.log_metrics(numbers, step=step)

    def close(self) -> None:
        """Flush and close every backend; safe to call twice."""
        if self._file is not None:
            self._file.close()
            self._file = None
        if self._tb is not None:
            self._tb.close()
            self._tb = None
        if self._wandb is not None:
            self._wandb.finish()
            self._wandb = None
            # finish() returns before wandb's service has closed the run file (0.31 writes
            # its tail after); teardown waits for the service, so the run is whole on disk
            # (and synced, when online) once close() returns.
            _import("wandb").teardown()
        if self._mlflow is not None:
            self._mlflow.end_run()
            self._mlflow = None

    def __enter__(self) -> MetricsLogger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _import(backend: str) -> Any:
    """The backend's entry point (SummaryWriter, the wandb or mlflow module)."""
    try:
        if backend == "tensorboard":
            from torch.utils.tensorboard import SummaryWriter

            return SummaryWriter
        if backend == "wandb":
            import wandb

            return wandb
        import mlflow

        return mlflow
    except ImportError:
        raise JupiterError(
            f"metrics: {backend} needs the {backend} package: pip install {backend} "
            "(or remove it from train.metrics)"
        ) from None


def _open_tensorboard(summary_writer: Any, out_dir: Path, resume_step: int | None) -> Any:
    # purge_step hides the events a resumed run logs again, as metrics.jsonl drops them
    purge = None if resume_step is None else resume_step + 1
    return summary_writer(log_dir=str(out_dir / "tensorboard"), purge_step=purge)


def _stored_id(path: Path, resume_step: int | None) -> str | None:
    """The run id a resumed run continues; a fresh run in a reused folder starts a new one."""
    if resume_step is None or not path.is_file():
        return None
    return path.read_text(encoding="utf-8").strip() or None


def _open_wandb(
    wandb: Any,
    out_dir: Path,
    run_name: str,
    config: dict[str, Any],
    project: str,
    resume_step: int | None,
) -> Any:
    id_file = out_dir / "wandb-run-id"
    run = wandb.init(
        project=project or None,
        name=run_name,
        config=config,
        resume="allow",
        dir=str(out_dir),
        id=_stored_id(id_file, resume_step),
    )
    id_file.write_text(str(run.id), encoding="utf-8")
    return run


def _open_mlflow(
    mlflow: Any,
    out_dir: Path,
    run_name: str,
    config: dict[str, Any],
    uri: str,
    resume_step: int | None,
) -> Any:
    # MLflow 3 keeps its file store in maintenance mode and refuses it by default; a SQLite
    # file in the run folder is its recommended local backend.
    mlflow.set_tracking_uri(uri or f"sqlite:///{(out_dir / 'mlflow.db').resolve()}")
    id_file = out_dir / "mlflow-run-id"
    run_id = _stored_id(id_file, resume_step)
    if run_id is not None:
        # a resumed run keeps its params: MLflow refuses to change a logged param's value
        mlflow.start_run(run_id=run_id)
    else:
        run = mlflow.start_run(run_name=run_name)
        id_file.write_text(run.info.run_id, encoding="utf-8")
        mlflow.log_params(_flatten(config))
    return mlflow


# -------------------------------------------------------------------------- reading
def read_metrics(path: Path) -> list[dict[str, Any]]:
    """The rows of a metrics.jsonl, in file order; [] when it does not exist. Lines that are
    not a JSON object with a step (a line torn by a kill) are skipped."""
    if not Path(path).is_file():
        return []
    rows: list[dict[str, Any]] = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(row, dict) and isinstance(row.get("step"), int):
            rows.append(row)
    return rows


def plot_learning_curve(metrics_jsonl: Path, out_png: Path, title: str = "") -> Path | None:
    """Train loss (line) and held-out loss (markers) against step, the learning rate on a
    twin axis; written atomically. None when there are no train rows with a loss."""
    # Figure + the Agg canvas directly: pyplot's global backend and figures stay untouched
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows = read_metrics(metrics_jsonl)
    train = sorted(
        (r for r in rows if r.get("kind") == "train" and "loss" in r), key=lambda r: r["step"]
    )
    if not train:
        return None
    heldout = sorted(
        (r for r in rows if r.get("kind") == "heldout" and "loss" in r), key=lambda r: r["step"]
    )
    fig = Figure(figsize=(8, 5), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.plot([r["step"] for r in train], [r["loss"] for r in train], color="C0", label="train loss")
    if heldout:
        ax.plot(
            [r["step"] for r in heldout],
            [r["loss"] for r in heldout],
            "o",
            color="C1",
            label="held-out loss",
        )
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    ax.grid(alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    lr = [r for r in train if "lr" in r]
    if lr:
        ax_lr = ax.twinx()
        ax_lr.plot([r["step"] for r in lr], [r["lr"] for r in lr], color="C2", alpha=0.6, lw=1)
        ax_lr.set_ylabel("learning rate")
        ax_lr.ticklabel_format(axis="y", style="sci", scilimits=(-3, 3))
        handles.append(ax_lr.lines[0])
        labels.append("learning rate")
    ax.legend(handles, labels, loc="upper right")
    if title:
        ax.set_title(title)
    fig.tight_layout()
    png = io.BytesIO()
    fig.savefig(png, format="png")
    return atomic.write_bytes(Path(out_png), png.getvalue())


class StepBar:
    """The training progress bar: steps done/total, loss, tokens/s and ETA (rich, on
    stderr, only when stderr is a terminal); updates are no-ops when it is not shown."""

    def __init__(self) -> None:
        self.bar: Any = None
        self.task: Any = None

    @contextlib.contextmanager
    def show(self, enabled: bool, total: int, completed: int) -> Iterator[None]:
        if not (enabled and sys.stderr.isatty()):
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
        try:
            with self.bar:
                self.task = self.bar.add_task(
                    "train", total=total, completed=completed, loss=float("nan"), tps=0.0
                )
                yield
        finally:
            self.bar = self.task = None

    def update(self, step: int, loss: float, tps: float) -> None:
        if self.bar is not None:
            self.bar.update(self.task, completed=step, loss=loss, tps=tps)
