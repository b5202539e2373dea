"""One island's side of the outer loop: every process of a torchrun or mlx.launch group runs
`python -m jupiter.cluster.island STORE ISLAND WORKDIR`.

Per round: rank 0 waits for the coordinator's next global weights and tells the others the
round; every rank loads them, runs the round's inner steps (data parallel inside the
island), and rank 0 publishes the pseudo-gradient (global − local) in bf16/fp16 with the
round's tokens, tokens/s and barrier wait. The island checkpoints after each round, so a
killed island, restarted, resumes its optimizer and data position: inside the round it died in, it
finishes that round's steps; otherwise it rejoins at the newest global weights.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from jupiter.cluster import protocol as P
from jupiter.cluster.codec import decode, encode, weights_digest
from jupiter.cluster.heartbeat import Heartbeat
from jupiter.cluster.syncstore import SyncStore
from jupiter.config import TrainConfig
from jupiter.errors import JupiterError
from jupiter.procs import quiet_libraries
from jupiter.train.loop import TrainRun
from jupiter.train.schedule import lr_at


# ------------------------------------------------------------------------- engines
class TorchEngine:
    """The PyTorch loop (DDP over gloo/NCCL inside the island) behind the round calls."""

    def __init__(self, run: TrainRun) -> None:
        from jupiter.train import loop
        from jupiter.train.trainer import load_run_tokenizer

        self.run, self.loop = run, loop
        self.state = loop.start(run)
        self.tokenizer = load_run_tokenizer(run.tokenizer_dir)
        self.rank, self.world = self.state.dist.rank, self.state.dist.world

    @property
    def step(self) -> int:
        return self.state.step

    @property
    def max_steps(self) -> int:
        return self.state.plan.max_steps

    @property
    def step_tokens(self) -> int:
        return self.state.plan.global_batch * self.run.dataset.context_length

    def broadcast(self, value: int) -> int:
        from jupiter.train import dist

        return int(dist.broadcast_object(self.state.dist, value))

    def set_weights(self, weights: dict[str, torch.Tensor]) -> None:
        self.loop.set_weights(
            self.state, {torch_name(n, self.state.model): w for n, w in weights.items()}
        )

    def get_weights(self) -> dict[str, torch.Tensor]:
        return {canonical(n): w for n, w in self.loop.get_weights(self.state).items()}

    def run_steps(self, k: int) -> list[float]:
        before = len(self.state.losses)
        self.loop.run_steps(self.run, self.state, k)
        return self.state.losses[before:]

    def save(self) -> None:
        from jupiter.train.trainer import save

        save(self.run, self.state, self.tokenizer)

    def close(self) -> None:
        # the process group lives until the rank exits (dist.exit_rank): destroying it here
        # can hang the rank in gloo's teardown
        pass


class MLXEngine:
    """The MLX loop (mx.distributed ring/MPI/JACCL inside the island)."""

    def __init__(self, run: TrainRun) -> None:
        from jupiter.train import mlx_loop

        self.run, self.loop = run, mlx_loop
        self.state = mlx_loop.start(run)
        self.rank, self.world = self.state.rank, self.state.world

    @property
    def step(self) -> int:
        return int(self.state.step)

    @property
    def max_steps(self) -> int:
        return int(self.state.plan.max_steps)

    @property
    def step_tokens(self) -> int:
        return int(self.state.plan.global_batch * self.run.dataset.context_length)

    def broadcast(self, value: int) -> int:
        import mlx.core as mx

        if self.world == 1:
            return value
        x = mx.array([value if self.rank == 0 else 0], dtype=mx.int64)
        return int(np.array(mx.distributed.all_sum(x, group=self.state.group))[0])

    def set_weights(self, weights: dict[str, torch.Tensor]) -> None:
        self.loop.set_weights(self.state, {n: w.numpy() for n, w in weights.items()})

    def get_weights(self) -> dict[str, torch.Tensor]:
        return {
            n: torch.from_numpy(np.asarray(w, dtype=np.float32))
            for n, w in self.loop.get_weights(self.state).items()
        }

    def run_steps(self, k: int) -> list[float]:
        before = len(self.state.losses)
        self.loop.run_steps(self.run, self.state, k)
        return list(self.state.losses[before:])

    def save(self) -> None:
        self.loop.save(self.run, self.state)

    def close(self) -> None:
        pass


Engine = TorchEngine | MLXEngine


def canonical(name: str) -> str:
    """Torch PEFT parameter names carry the adapter's name; the sync uses the saved names."""
    return name.replace(".default.", ".")


def torch_name(name: str, model: Any) -> str:
    if ".lora_" in name and hasattr(model, "peft_config"):
        head, _, tail = name.rpartition(".")
        return f"{head}.default.{tail}"
    return name


# ------------------------------------------------------------------------ the spec
@dataclass(frozen=True)
class IslandSpec:
    store: str
    island: str
    workdir: Path


def fetch_spec(store: SyncStore, dest: Path) -> Path:
    """The run's spec files from the store into dest (every rank may call: files are written
    to a temp name and renamed, and a complete copy is kept)."""
    for key in store.list(P.SPEC):
        path = dest / key[len(P.SPEC) + 1 :]
        if path.is_file():
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_bytes(store.get(key))
        os.replace(tmp, path)
    return dest / "run.json"


def island_run(spec: IslandSpec, store: SyncStore) -> tuple[TrainRun, dict[str, Any]]:
    from jupiter.train.launch import read_spec

    run_json = fetch_spec(store, spec.workdir / "spec")
    plan = store.get_json(P.PLAN)
    names = [i["name"] for i in plan["islands"]]
    if spec.island not in names:
        raise JupiterError(f"island {spec.island} is not in this run's plan ({', '.join(names)})")
    me = plan["islands"][names.index(spec.island)]
    run = read_spec(run_json)
    if run.model_dir is not None and not run.model_dir.exists():
        raise JupiterError(
            f"island {spec.island}: the base model {run.model_dir} is not on this machine: "
            "copy it to the same path on every node (or put it on a shared disk)"
        )
    # The island's figures go into the run, beside the config (which stays the YAML's) and
    # the run's own (a level's): its step budget (the coordinator stops it at the last
    # round), its micro-batch
    cap = (
        " × 4 (speed-aware islands may run up to 4H a round)"
        if plan["sync"].get("speed_aware")
        else ""
    )
    budget = int(me["max_steps"])
    why = (
        f"budget {budget} steps: the cluster's, {plan['rounds']} rounds × "
        f"{plan['sync']['inner_steps']} inner steps{cap}"
    )
    over = replace(
        run.overrides,
        budget=budget,
        reasons=(*run.overrides.reasons, why),
        micro_batch=me.get("micro_batch") or run.overrides.micro_batch,
    )
    dataset = run.dataset.shard(names.index(spec.island), len(names))
    run = replace(
        run,
        dataset=dataset,
        tokenizer_dir=run_json.parent / "tokenizer",
        out_dir=spec.workdir / spec.island,
        progress=False,
        memory_gb=me.get("memory_gb"),
        overrides=over,
        resume="auto",
    )
    return run, plan


def make_engine(engine: str, run: TrainRun) -> Engine:
    return MLXEngine(run) if engine == "mlx" else TorchEngine(run)


# ------------------------------------------------------------------------ the loop
PARENT = os.getppid()  # torchrun or mlx.launch: when it is gone, so is the island


def wait_round(
    store: SyncStore, after: int, poll_s: float = 0.2
) -> tuple[int, bool, dict[str, Any]]:
    """(round, done, latest.json) of the newest published global weights newer than `after`."""
    while True:
        if store.exists(P.LATEST):
            latest = store.get_json(P.LATEST)
            if latest["done"] or latest["round"] > after:
                return int(latest["round"]), bool(latest["done"]), latest
        if os.getppid() != PARENT:  # orphaned: the launcher was killed, and torchrun's
            log("island: the launcher is gone; stopping")  # workers outlive it
            raise SystemExit(1)
        time.sleep(poll_s)


def run_rounds(
    spec: IslandSpec, store: SyncStore, engine: Engine, plan: dict[str, Any], beat: Heartbeat | None
) -> None:
    marker = engine.run.out_dir / "round.json"  # the round the island's checkpoint is inside
    at = json.loads(marker.read_text()) if marker.is_file() else {"round": -1, "start": 0}
    last, t0 = int(at["round"]) - 1, time.perf_counter()
    rounds = int(plan["rounds"])
    # the last round the island trained through: its weights outside what that round synced
    # are its own and go on; an island that was not in the last round loads every weight
    trained = last
    # the global weights the island last loaded, and their digest; at a fresh start its own
    # weights, which are round 0's when it built them from the same base and seed
    held: Held | None = None
    if at["round"] < 0:
        start = engine.get_weights()
        held = Held(start, weights_digest(start))
    ahead: Ahead | None = None  # sync.overlap_steps taken before this round's weights came
    while True:
        # Every rank waits on the store (a collective would time out in a long wait);
        # then rank 0's view of the round is everyone's.
        rnd, done, latest = wait_round(store, last)
        # Restarted inside this round: the checkpoint already holds its first steps.
        resumed = (
            ahead is None
            and rnd == at["round"]
            and engine.step > int(at["start"])
            and not store.exists(P.contribution_key(rnd, spec.island))
        )
        code = engine.broadcast(-1 if done else 2 * rnd + int(resumed))  # rank 0 decides
        if code < 0:
            return
        rnd, resumed = code // 2, bool(code % 2)
        wait_s = time.perf_counter() - t0
        weights, meta, fetched = fetch_global(store, rnd, held, latest)
        held = Held(weights, meta.get("digest", ""))
        if ahead is not None and rnd != ahead.round:
            ahead = None  # the island missed rounds: its steps ahead go with its weights
        start_step = int(at["start"]) if resumed else ahead.start if ahead else engine.step
        # what the island takes of the global weights: all of them, or with sync.fragments
        # the fragment the last round synced, when the island trained through that round
        loaded = loaded_after(rnd, trained)
        take = (
            weights
            if loaded < 0
            else {n: weights[n] for n in P.synced_names(weights, plan["sync"], loaded, rounds)}
        )
        digest = ""
        if not resumed and ahead is not None:
            # the global weights plus what the steps taken ahead changed since they began
            digest = weights_digest(take)
            mine = engine.get_weights()
            engine.set_weights({n: w + (mine[n] - ahead.weights[n]) for n, w in take.items()})
        elif not resumed:
            engine.set_weights(take)
            mine = engine.get_weights()
            digest = weights_digest({n: mine[n] for n in take})
        info = {
            "island": spec.island,
            "round": rnd,
            "wait_s": wait_s,
            "digest": digest,
            "global_digest": meta.get("digest", ""),
            "down_bytes": fetched,
            "loaded_round": loaded,
            "overlap_steps": len(ahead.losses) if ahead else 0,
        }
        if beat is not None:
            beat.info = {"round": rnd, "step": engine.step}
        inner = int(json.loads(meta["plan"])["inner_steps"].get(spec.island, 0))
        at = {"round": rnd, "start": start_step}
        engine.state.lr_fn = round_schedule(
            engine.run.config, plan, rnd, start_step, inner, engine.run.lr
        )
        losses, train_s = train_round(engine, min(start_step + inner, engine.max_steps), marker, at)
        if ahead is not None:
            losses, train_s = ahead.losses + losses, ahead.train_s + train_s
        if engine.rank == 0 and losses:
            part = P.synced_names(weights, plan["sync"], rnd, rounds)
            publish(
                store,
                engine,
                {n: weights[n] for n in part},
                info,
                losses,
                train_s,
                plan["sync"]["dtype"],
            )
        save_island(engine, marker, {"round": rnd + 1, "start": engine.step})
        last, trained, ahead = rnd, rnd, None
        tau = min(int(plan["sync"].get("overlap_steps", 0)), engine.max_steps - engine.step)
        if tau > 0 and rnd + 1 < rounds:
            ahead = take_ahead(engine, plan, rnd + 1, inner, tau)
        t0 = time.perf_counter()  # the wait for the next round: after any steps taken ahead


def loaded_after(rnd: int, trained: int) -> int:
    """The round whose synced part an island takes at round `rnd`: the last one, when it
    trained through it; -1 (every weight) otherwise."""
    return rnd - 1 if rnd > 0 and trained == rnd - 1 else -1


@dataclass
class Held:
    weights: dict[str, torch.Tensor]
    digest: str


@dataclass
class Ahead:
    """Inner steps of round `round` taken before its global weights came (sync.overlap_steps):
    the weights they began from, where they began, their losses and time."""

    round: int
    weights: dict[str, torch.Tensor]
    start: int
    losses: list[float]
    train_s: float


def take_ahead(engine: Engine, plan: dict[str, Any], rnd: int, inner: int, tau: int) -> Ahead:
    """Round `rnd`'s first `tau` inner steps on the island's own weights, on the round's lr
    schedule, while the coordinator makes its global weights (Streaming DiLoCo's overlap).
    No checkpoint inside them: an island killed here restarts at the round's start."""
    start = engine.step
    weights = engine.get_weights()
    engine.state.lr_fn = round_schedule(engine.run.config, plan, rnd, start, inner, engine.run.lr)
    t1 = time.perf_counter()
    losses = engine.run_steps(tau)
    return Ahead(rnd, weights, start, losses, time.perf_counter() - t1)


def fetch_global(
    store: SyncStore, rnd: int, held: Held | None, latest: dict[str, Any] | None = None
) -> tuple[dict[str, torch.Tensor], dict[str, str], int]:
    """Round rnd's global weights (fp32), their metadata and the bytes read: none when the
    island holds them already (latest.json names their digest: an island that built round
    0's start itself); the round's quantized change added to the weights the island holds,
    when the coordinator published one for exactly those and the sum has the round's
    digest; else the full weights."""
    if (
        held is not None
        and latest is not None
        and latest.get("round") == rnd
        and latest.get("digest") == held.digest
        and "plan" in latest
    ):
        meta = {"digest": held.digest, "plan": json.dumps(latest["plan"])}
        return {n: w.clone() for n, w in held.weights.items()}, meta, 0
    key = P.delta_key(rnd)
    if held is not None and store.exists(key):
        blob = store.get(key)
        change, meta = decode(blob, key)
        if meta.get("base_digest") == held.digest and change.keys() <= held.weights.keys():
            weights = {  # a change of some weights (a fragment's) leaves the others as held
                n: held.weights[n] + change[n] if n in change else held.weights[n].clone()
                for n in held.weights
            }
            if weights_digest(weights) == meta.get("digest"):
                return weights, meta, len(blob)
        log(f"island: round {rnd}'s change does not apply to the weights held; reading them whole")
    blob = store.get(P.global_key(rnd))
    weights, meta = decode(blob, P.global_key(rnd))
    return {n: w.float() for n, w in weights.items()}, meta, len(blob)


def round_schedule(
    cfg: TrainConfig,
    plan: dict[str, Any],
    rnd: int,
    start: int,
    inner: int,
    peak: float | None = None,
) -> Callable[[int], float]:
    """The lr of the round's inner steps: the run's nominal schedule (rounds x H steps) over
    this round's stretch of it, whatever the island's own step count. A speed-aware island
    running 2H steps takes them at half the pace through the same stretch, and an island
    that missed rounds takes up the schedule where the others are. `peak`: the run's lr (a
    curriculum level's), else train.lr."""
    h = int(plan["sync"]["inner_steps"])
    total = int(plan["rounds"]) * h
    pace = h / max(1, inner)

    def lr(step: int) -> float:
        return lr_at(
            rnd * h + (step - start) * pace, total, peak or cfg.lr, cfg.min_lr, cfg.warmup_steps
        )

    return lr


def train_round(
    engine: Engine, until: int, marker: Path, at: dict[str, int]
) -> tuple[list[float], float]:
    """Inner steps up to global step `until`, with checkpoints inside long rounds too."""
    every = engine.run.config.checkpoint_every
    t1, losses = time.perf_counter(), []
    while engine.step < until:
        losses += engine.run_steps(min(until - engine.step, every - engine.step % every))
        if engine.step < until:
            save_island(engine, marker, at)
    return losses, time.perf_counter() - t1


def publish(
    store: SyncStore,
    engine: Engine,
    weights: dict[str, torch.Tensor],
    info: dict[str, Any],
    losses: list[float],
    train_s: float,
    dtype: str,
) -> None:
    """The pseudo-gradient (global − local) of `weights` (what the round syncs),
    compressed, with the round's numbers."""
    local = engine.get_weights()
    pg = {n: weights[n] - local[n] for n in weights}
    tokens = len(losses) * engine.step_tokens
    info = {
        **info,
        "steps": len(losses),
        "tokens": tokens,
        "train_s": train_s,
        "tokens_per_s": tokens / max(train_s, 1e-9),
        "loss": float(np.mean(losses)),
        "step": engine.step,
    }
    blob = encode(pg, dtype, {"info": json.dumps(info)})  # type: ignore[arg-type]
    store.put(P.contribution_key(int(info["round"]), str(info["island"])), blob)
    log(
        f"island {info['island']}: round {info['round']} published ({len(losses)} steps, "
        f"loss {info['loss']:.4f}, {info['tokens_per_s']:,.0f} tok/s)"
    )


def save_island(engine: Engine, marker: Path, at: dict[str, int]) -> None:
    """The island's checkpoint, then which round it is inside (rank 0 writes the marker)."""
    engine.save()
    if engine.rank == 0:
        tmp = marker.with_name(".round.json.tmp")
        tmp.write_text(json.dumps(at), encoding="utf-8")
        os.replace(tmp, marker)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: python -m jupiter.cluster.island STORE ISLAND WORKDIR", file=sys.stderr)
        return 2
    quiet_libraries()
    spec = IslandSpec(argv[0], argv[1], Path(argv[2]))
    rank = int(os.environ.get("RANK", os.environ.get("MLX_RANK", "0")))
    store = SyncStore(spec.store)
    beat = None
    try:
        plan = store.get_json(P.PLAN)
        if rank == 0:  # alive from the start, so a (re)starting island is waited for
            store.delete(P.error_key(spec.island))
            info = spec.workdir / spec.island / "heartbeat.json"
            beat = Heartbeat(spec.store, spec.island, float(plan["sync"]["heartbeat_s"]), info)
        run, plan = island_run(spec, store)
        me = next(i for i in plan["islands"] if i["name"] == spec.island)
        engine = make_engine(me["engine"], run)
        try:
            run_rounds(spec, store, engine, plan, beat)
        finally:
            engine.close()
    except JupiterError as e:
        if rank == 0:
            store.put_json(P.error_key(spec.island), {"rank": rank, "error": str(e)})
        print(f"error: island {spec.island} rank {rank}: {e}", file=sys.stderr)
        return 1
    finally:
        if beat is not None:
            beat.close()
    return 0


if __name__ == "__main__":
    from jupiter.train import dist

    code = main(sys.argv[1:])
    if "torch.distributed" in sys.modules:
        dist.exit_rank(code)  # not a gloo teardown at exit (see dist.exit_rank)
    sys.exit(code)
