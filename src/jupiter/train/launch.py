"""Several processes (and machines) through torchrun.

The parent writes the run to a spec folder (the packed datasets as .npz, the rest as
JSON), starts `torchrun … -m jupiter.train.launch SPEC`, and reads back the result that
rank 0 writes. Each worker rebuilds the same TrainRun and calls the same `train`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from jupiter import atomic
from jupiter.config import TrainConfig
from jupiter.data.dataset import PackedDataset
from jupiter.data.distill import DistillData
from jupiter.errors import JupiterError
from jupiter.train.loop import TrainResult, TrainRun
from jupiter.train.plan import Overrides


@dataclass(frozen=True)
class Launch:
    """`jupiter train --nproc N [--nnodes M --node-rank R --master HOST:PORT]`."""

    nproc: int = 1
    nnodes: int = 1
    node_rank: int = 0
    master: str = ""  # host:port of node 0, for nnodes > 1

    @property
    def distributed(self) -> bool:
        return self.nproc * self.nnodes > 1

    def check(self) -> None:
        if self.nproc < 1 or self.nnodes < 1:
            raise JupiterError("--nproc and --nnodes must be at least 1")
        if not 0 <= self.node_rank < self.nnodes:
            raise JupiterError(f"--node-rank must be in 0..{self.nnodes - 1}")
        if self.nnodes > 1 and ":" not in self.master:
            raise JupiterError(
                "training on several machines needs --master HOST:PORT (node 0's address and "
                "a free port, the same on every node)"
            )


def write_spec(run: TrainRun, spec_dir: Path) -> Path:
    spec_dir.mkdir(parents=True, exist_ok=True)
    run.dataset.save(spec_dir / "train.npz")
    if run.heldout is not None:
        run.heldout.save(spec_dir / "heldout.npz")
    if run.distill is not None:
        run.distill.save(spec_dir / "distill.npz")
    model_config = run.model_config.to_dict() if run.model_config is not None else None
    spec = {
        "config": run.config.model_dump(mode="json"),
        "out_dir": str(run.out_dir),
        "tokenizer_dir": str(run.tokenizer_dir),
        "model_config": model_config,
        "model_dir": str(run.model_dir) if run.model_dir else None,
        "heldout": run.heldout is not None,
        "distill": run.distill is not None,
        "run_id": run.run_id,
        "device": run.device,
        "attention": run.attention,
        "memory_gb": run.memory_gb,
        "progress": run.progress,  # rank 0 draws the bar when its output is a terminal
        "overrides": asdict(run.overrides),  # the run's own settings over the config
        "resume": run.resume,
    }
    path = spec_dir / "run.json"
    path.write_text(json.dumps(spec, indent=1), encoding="utf-8")
    return path


def read_spec(path: Path) -> TrainRun:
    from transformers import AutoConfig

    spec: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    model_config = None
    if spec["model_config"] is not None:
        conf = dict(spec["model_config"])
        model_config = AutoConfig.for_model(conf.pop("model_type"), **conf)
    return TrainRun(
        dataset=PackedDataset.load(path.parent / "train.npz"),
        config=TrainConfig.model_validate(spec["config"]),
        out_dir=Path(spec["out_dir"]),
        tokenizer_dir=Path(spec["tokenizer_dir"]),
        model_config=model_config,
        model_dir=Path(spec["model_dir"]) if spec["model_dir"] else None,
        heldout=PackedDataset.load(path.parent / "heldout.npz") if spec["heldout"] else None,
        run_id=spec["run_id"],
        device=spec["device"],
        progress=bool(spec.get("progress", False)),
        attention=spec["attention"],
        memory_gb=spec["memory_gb"],
        distill=DistillData.load(path.parent / "distill.npz") if spec.get("distill") else None,
        overrides=overrides_of(spec.get("overrides", {})),
        resume=spec.get("resume"),
    )


def overrides_of(data: dict[str, Any]) -> Overrides:
    """The run's overrides back from run.json (JSON gives lists for tuples)."""
    return Overrides(**{**data, "reasons": tuple(data.get("reasons", ()))})


def torchrun_command(spec: Path, launch: Launch) -> list[str]:
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", str(launch.nproc)]
    if launch.nnodes == 1:
        cmd += ["--standalone"]  # a free local rendezvous port, no --master needed
    else:
        cmd += [
            "--nnodes",
            str(launch.nnodes),
            "--node-rank",
            str(launch.node_rank),
            "--master-addr",
            launch.master.rsplit(":", 1)[0],
            "--master-port",
            launch.master.rsplit(":", 1)[1],
        ]
    return [*cmd, "-m", "jupiter.train.launch", str(spec)]


def launch_train(run: TrainRun, launch: Launch, stop_after: int | None = None) -> TrainResult:
    """Run `train(run)` in launch.nproc processes per node; returns rank 0's result."""
    launch.check()
    spec = write_spec(run, run.out_dir / "launch")
    env = dict(os.environ)
    # torchrun defaults every worker to one OpenMP thread; share the cores instead.
    env.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // launch.nproc)))
    # only node 0 writes the result
    result = run_workers(
        torchrun_command(spec, launch),
        spec,
        env,
        stop_after,
        "distributed",
        result_expected=launch.node_rank == 0,
    )
    return result if result is not None else _empty_result(run)


def run_workers(
    cmd: list[str],
    spec: Path,
    env: dict[str, str],
    stop_after: int | None,
    what: str,
    result_expected: bool = True,
) -> TrainResult | None:
    """Run a launcher's command over the spec; rank 0's result.json, or a worker's error.
    stdin is closed: mlx.launch makes its stdin non-blocking, which must not leak into ours."""
    spec_dir = spec.parent
    result_file = spec_dir / "result.json"
    for stale in [result_file, *spec_dir.glob("error-rank*.txt")]:
        stale.unlink(missing_ok=True)
    if stop_after is not None:
        env = {**env, "JUPITER_STOP_AFTER": str(stop_after)}
    proc = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, check=False)
    errors = sorted(spec_dir.glob("error-rank*.txt"))
    if errors:
        raise JupiterError(errors[0].read_text(encoding="utf-8").strip())
    if proc.returncode != 0 or not result_file.is_file():
        if not result_expected and proc.returncode == 0:
            return None
        raise JupiterError(
            f"{what} training exited with status {proc.returncode}: see the output above"
        )
    data = json.loads(result_file.read_text(encoding="utf-8"))
    for key in ("model_dir", "best_checkpoint"):
        data[key] = Path(data[key]) if data[key] else None
    return TrainResult(**data)


def _empty_result(run: TrainRun) -> TrainResult:
    return TrainResult(run.out_dir, 0, 0, [], 0.0, 0.0, True)


def worker(spec: Path) -> int:
    """One torchrun rank: rebuild the run, train, rank 0 writes result.json."""
    from jupiter.train.trainer import train

    rank = int(os.environ.get("RANK", "0"))
    stop = os.environ.get("JUPITER_STOP_AFTER")
    try:
        run = read_spec(spec)
        result = train(run, stop_after=int(stop) if stop else None)
    except JupiterError as e:
        (spec.parent / f"error-rank{rank}.txt").write_text(f"rank {rank}: {e}\n", "utf-8")
        print(f"error: rank {rank}: {e}", file=sys.stderr)
        return 1
    if rank == 0:
        data = {k: (str(v) if isinstance(v, Path) else v) for k, v in result.__dict__.items()}
        atomic.write_text(spec.parent / "result.json", json.dumps(data))
    return 0


if __name__ == "__main__":
    from jupiter.procs import quiet_libraries
    from jupiter.train import dist as _dist

    quiet_libraries()

    # a rank leaves with os._exit: a gloo process group torn down at exit can hang or
    # abort the rank (see dist.exit_rank)
    _dist.exit_rank(worker(Path(sys.argv[1])))
