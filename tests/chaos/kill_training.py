"""Kill -9 training at random moments; the resumed run ends bit-identical to one never
interrupted.

The trainer runs as a real process, started the way `jupiter train` starts it: the run
written to a spec folder and `python -m jupiter.train.launch SPEC` (torch) or
`python -m jupiter.train.mlx_loop SPEC` (MLX, mlx[cpu] on Linux), each in a process group
of its own. Per kill: start the run; once it has begun stepping, wait a random time within
the reference run's stepping window; SIGKILL the whole group; start it again and let it
finish (it resumes from the newest valid checkpoint, clearing a half-written one); then
compare its final weights and loss curve with the uninterrupted reference's.

    python tests/chaos/kill_training.py [--kills 10] [--backend torch|mlx|both]
        [--steps 120] [--seed 18] [--out FILE]
"""

from __future__ import annotations

import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import (
    emit,
    kill_group,
    max_abs_diff,
    out_arg,
    start_group,
    tiny_run,
    tiny_tokenizer,
    trainer_command,
)

CHECKPOINT_EVERY = 5


def spec_for(tok: Path, out: Path, steps: int) -> Path:
    from jupiter.train.launch import write_spec

    run = tiny_run(tok, out, max_steps=steps, checkpoint_every=CHECKPOINT_EVERY)
    return write_spec(run, out.with_name(out.name + "-spec"))


def metrics_steps(out: Path) -> int:
    """The last training step the run logged (metrics.jsonl, one row a step). Read while the
    trainer appends: only whole lines (ended by a newline) count, not one half written."""
    path = out / "metrics.jsonl"
    if not path.is_file():
        return 0
    text = path.read_text()
    whole = text[: text.rfind("\n") + 1]
    steps = [json.loads(x).get("step", 0) for x in whole.splitlines() if x.strip()]
    return max(steps, default=0)


def run_to_end(spec: Path, backend: str, log: Path, timeout: float = 900) -> dict[str, Any]:
    """Start the trainer and wait for it; (wall time, stepping time, exit status)."""
    out = Path(json.loads(spec.read_text())["out_dir"])
    t0 = time.perf_counter()
    proc = start_group(trainer_command(spec, backend), log)
    first: float | None = None
    while proc.poll() is None:
        if first is None and (out / "metrics.jsonl").is_file():
            first = time.perf_counter()
        if time.perf_counter() - t0 > timeout:
            kill_group(proc)
            raise SystemExit(f"{backend} run did not finish in {timeout} s: see {log}")
        time.sleep(0.01)
    end = time.perf_counter()
    return {
        "code": proc.returncode,
        "wall_s": end - t0,
        "stepping_s": end - (first if first is not None else end),
    }


def run_here(spec: Path, backend: str) -> dict[str, Any]:
    """The same run in this process (tests: no interpreter start-up), its result.json
    written as the entry point writes it."""
    from jupiter.train.launch import read_spec

    if backend == "mlx":
        from jupiter.train.mlx_loop import train
    else:
        from jupiter.train.trainer import train
    t0 = time.perf_counter()
    result = train(read_spec(spec))
    wall = time.perf_counter() - t0
    (spec.parent / "result.json").write_text(json.dumps({"losses": result.losses}))
    return {"code": 0, "wall_s": wall, "stepping_s": wall}


def kill_once(
    spec: Path, backend: str, window: float, rng: random.Random, log: Path
) -> dict[str, Any]:
    """Start; wait until a random step of the run is logged, then a random part of a step's
    time more (a checkpoint write is one of the moments it can land in); kill -9 the group.
    A random step rather than a random second: the first checkpoint write takes longer
    than many steps, and random seconds would mostly land in it."""
    out = Path(json.loads(spec.read_text())["out_dir"])
    steps = json.loads(spec.read_text())["config"]["max_steps"]
    target, jitter = rng.randint(1, steps - 1), rng.uniform(0.0, 2 * window / steps)
    t0 = time.perf_counter()
    proc = start_group(trainer_command(spec, backend), log)
    while proc.poll() is None and metrics_steps(out) < target:
        time.sleep(0.002)
    time.sleep(jitter)
    delay = time.perf_counter() - t0
    finished = proc.poll() is not None
    kill_group(proc)
    return {
        "delay_s": round(delay, 3),
        "target_step": target,
        "finished_before_kill": finished,
        "step_at_kill": metrics_steps(out),
        "checkpoints": sorted(p.name for p in out.glob("step-*")),
        "torn_writes": sorted(p.name for p in out.glob(".tmp-*")),
    }


def compare(ref: Path, out: Path) -> dict[str, Any]:
    diff, same = max_abs_diff(ref / "final", out / "final")
    a = json.loads((ref.with_name(ref.name + "-spec") / "result.json").read_text())
    b = json.loads((out.with_name(out.name + "-spec") / "result.json").read_text())
    return {
        "max_abs_diff": diff,
        "bit_identical": same,
        "losses_equal": a["losses"] == b["losses"],
        "leftover_temps": sorted(p.name for p in out.glob(".tmp-*")),
    }


def run_backend(
    backend: str, kills: int, steps: int, root: Path, rng: random.Random, here: bool = False
) -> dict:
    """`kills` kill-and-resume trials against one reference run. `here`: the reference
    and the resumes run in this process (the killed runs are processes either way)."""
    tok = tiny_tokenizer(root / "tok")
    ref = root / backend / "ref"
    ref.parent.mkdir(parents=True, exist_ok=True)
    log = root / backend / "log.txt"
    finish = run_here if here else lambda spec, b: run_to_end(spec, b, log)
    timing = finish(spec_for(tok, ref, steps), backend)
    if timing["code"] != 0:
        raise SystemExit(f"the {backend} reference run failed: see {log}")
    rows = []
    for k in range(kills):
        out = root / backend / f"kill{k:02d}"
        spec = spec_for(tok, out, steps)
        row = kill_once(spec, backend, timing["stepping_s"], rng, log)
        again = finish(spec, backend)
        row |= (
            {"resume_code": again["code"], **compare(ref, out)}
            if again["code"] == 0
            else {"resume_code": again["code"], "bit_identical": False}
        )
        rows.append(row)
        print(
            f"{backend} kill {k + 1}/{kills}: after {row['delay_s']} s at step "
            f"{row['step_at_kill']}, torn {row['torn_writes']}, resumed: max |diff| "
            f"{row.get('max_abs_diff')}, identical {row['bit_identical']}",
            flush=True,
        )
        shutil.rmtree(out, ignore_errors=True)
    return {
        "kills": kills,
        "steps": steps,
        "checkpoint_every": CHECKPOINT_EVERY,
        "reference_wall_s": round(timing["wall_s"], 2),
        "reference_stepping_s": round(timing["stepping_s"], 2),
        "bit_identical": sum(bool(r["bit_identical"]) for r in rows),
        "losses_equal": sum(bool(r.get("losses_equal")) for r in rows),
        "killed_mid_checkpoint_write": sum(bool(r["torn_writes"]) for r in rows),
        "finished_before_kill": sum(r["finished_before_kill"] for r in rows),
        "max_abs_diff": max((r.get("max_abs_diff", float("inf")) for r in rows), default=0.0),
        "per_kill": rows,
    }


def mlx_works() -> bool:
    try:
        import mlx.core as mx

        return bool((mx.array([1.0]) + 1).item() == 2.0)
    except Exception:  # noqa: BLE001 - any failure: the backend is not usable here
        return False


def main(argv: list[str]) -> dict[str, Any]:
    kills = int(argv[argv.index("--kills") + 1]) if "--kills" in argv else 10
    steps = int(argv[argv.index("--steps") + 1]) if "--steps" in argv else 120
    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 18
    which = argv[argv.index("--backend") + 1] if "--backend" in argv else "both"
    backends = ["torch", "mlx"] if which == "both" else [which]
    rng = random.Random(seed)
    root = Path(tempfile.mkdtemp(prefix="jupiter-kill-training-"))
    figures: dict[str, Any] = {"seed": seed}
    try:
        for b in backends:
            if b == "mlx" and not mlx_works():
                figures[b] = {"skipped": "mlx is not importable here"}
                continue
            figures[b] = run_backend(b, kills, steps, root, rng)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return emit("kill -9 training", figures, out_arg(argv))


if __name__ == "__main__":
    main(sys.argv[1:])
