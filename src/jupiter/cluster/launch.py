"""`jupiter train --cluster`: the run's spec into the sync store, then every island started
(torchrun with a c10d rendezvous on NVIDIA/CPU nodes, mlx.launch from a written hostfile on
Macs; over SSH, except on localhost) and the coordinator beside them on this machine.

If an island fails the others go on; the run fails only when no island is left.
Re-running the command resumes: the coordinator from the newest round in the store, each
island from its own last checkpoint.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shlex
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from jupiter.cluster import protocol as P
from jupiter.cluster.inventory import (
    Island,
    islands,
    mlx_transport,
    processes_of,
    write_hostfile,
)
from jupiter.cluster.syncstore import SyncStore
from jupiter.config import ClusterConfig, TrainConfig
from jupiter.errors import JupiterError
from jupiter.train import mlx_launch
from jupiter.train.loop import TrainResult, TrainRun
from jupiter.train.plan import DataSize, Overrides, TrainPlan, plan_training

RDZV_PORT = 29400  # torchrun's default c10d port


@dataclass(frozen=True)
class ClusterRun:
    run: TrainRun
    cluster: ClusterConfig
    store_url: str
    workdir: Path  # on this machine: spec, coordinator state, final model, report


# ------------------------------------------------------------------------ the plan
# The micro-batch the driver counts an auto one as: it cannot measure the islands' memory
# with the model loaded; each island still picks its own (train/setup.py).
PLAN_MICRO = 8


def cluster_plan(
    cfg: TrainConfig, data: DataSize, n_islands: int, ranks: int, over: Overrides | None = None
) -> TrainPlan:
    """plan.py's plan of one island: its shard of the rows on `ranks` processes, the same
    rules as one process (epochs auto by the whole set's examples); `over`: the run's own
    figures (a curriculum level's length and lr)."""
    micro = (over and over.micro_batch) or cfg.micro_batch_size
    notes: tuple[str, ...] = ()
    if micro == "auto":
        gbs = cfg.global_batch_size
        # with a global batch the steps do not depend on the micro-batch: one that divides it
        micro = math.gcd(PLAN_MICRO, gbs // ranks) if gbs and gbs % ranks == 0 else PLAN_MICRO
        if not gbs:
            notes = (
                f"micro_batch_size auto: the cluster counts its steps with micro-batch {micro} "
                "per process; each island picks its own by its memory, so its tokens per step "
                "may differ (set train.micro_batch_size or train.global_batch_size to fix them)",
            )
    return plan_training(
        cfg,
        data,
        micro_batch=micro,
        world=ranks,
        islands=n_islands,
        launcher="cluster",
        over=over,
        notes=notes,
    )


def run_plan(cr: ClusterRun) -> dict[str, Any]:
    isls = islands(cr.cluster)
    sync = cr.cluster.sync.model_dump(mode="json")
    ranks = [sum(processes_of(n, cr.cluster) or 1 for n in i.nodes) for i in isls]
    tp = cluster_plan(
        cr.run.config, DataSize.of(cr.run.dataset), len(isls), ranks[0], cr.run.overrides
    )
    if len(set(ranks)) > 1:
        tp = replace(
            tp,
            notes=(
                *tp.notes,
                (
                    f"islands run {'/'.join(map(str, ranks))} processes: the plan counts the first's "
                    f"{ranks[0]}; an island with more takes more tokens per step"
                ),
            ),
        )
    steps = tp.max_steps
    if len(isls) == 1:  # one island: one round of plain data-parallel training, exact
        sync.update(
            inner_steps=steps,
            outer="average",
            outer_lr_schedule="constant",
            dtype="fp32",
            down_dtype="fp32",
            speed_aware=False,
            fragments=1,
            overlap_steps=0,
        )
    h = min(int(sync["inner_steps"]), steps)
    sync["inner_steps"] = h
    if int(sync["overlap_steps"]) >= h:
        raise JupiterError(
            f"sync.overlap_steps {sync['overlap_steps']} is not below the run's {h} inner "
            f"steps a round ({steps} steps in all): lower sync.overlap_steps"
        )
    rounds = math.ceil(steps / h)
    if int(sync["fragments"]) > rounds:
        raise JupiterError(
            f"sync.fragments {sync['fragments']} is more than the run's {rounds} rounds "
            f"({steps} steps, {h} a round): some fragments would be synced only at the end; "
            "lower sync.fragments or sync.inner_steps"
        )
    cap = 4 if sync["speed_aware"] else 1  # speed-aware islands may run up to 4H a round
    return {
        "fingerprint": fingerprint(cr.run),
        "rounds": rounds,
        "sync": sync,
        "train_plan": tp.as_dict(),
        "islands": [
            {
                "name": i.name,
                "engine": i.engine,
                "max_steps": rounds * h * cap,
                "memory_gb": min(n.memory_gb / (processes_of(n, cr.cluster) or 1) for n in i.nodes),
                "nodes": [n.name for n in i.nodes],
            }
            for i in isls
        ],
    }


def fingerprint(run: TrainRun) -> str:
    ds = run.dataset
    cfg = run.config.model_dump(mode="json", exclude={"resume", "log_every", "metrics"})
    parts = [
        cfg,
        ds.num_rows,
        ds.tokens,
        ds.seed,
        ds.context_length,
        str(run.model_dir),
        run.model_config.to_dict() if run.model_config else None,
    ]
    if run.overrides.hashed():  # the run's own settings (a level's) count as the config's
        parts.append(run.overrides.hashed())
    blob = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def upload_spec(cr: ClusterRun, store: SyncStore) -> dict[str, Any]:
    """The spec and plan into the store; an existing one of the same run is resumed."""
    from jupiter.train.launch import write_spec

    plan = run_plan(cr)
    if store.exists(P.PLAN):
        old = store.get_json(P.PLAN)
        if old.get("fingerprint") != plan["fingerprint"]:
            raise JupiterError(
                f"the sync store {store.url} holds another run: give sync.store a new "
                "location in cluster.yaml, or delete the old run's files there"
            )
        return old  # type: ignore[no-any-return]
    spec_dir = write_spec(cr.run, cr.workdir / "spec").parent
    files = {p.name: p for p in spec_dir.iterdir() if p.is_file()}
    for name, path in files.items():
        store.put(f"{P.SPEC}/{name}", path.read_bytes())
    for path in sorted(cr.run.tokenizer_dir.iterdir()):
        if path.is_file():
            store.put(f"{P.SPEC}/tokenizer/{path.name}", path.read_bytes())
    store.put_json(P.PLAN, plan)
    return plan


# -------------------------------------------------------------------- commands
def python_of(node: Any) -> str:
    from jupiter.cluster.ssh import node_python

    return node_python(node)


def torch_island_commands(
    isl: Island, cluster: ClusterConfig, store_url: str, workdir: Path, port: int = RDZV_PORT
) -> list[list[str]]:
    """One torchrun per node; the first node hosts the c10d rendezvous. An island of one
    node and one process is that process alone: rank 0 of 1 needs no launcher (torchrun
    would add a Python process and a rendezvous, about 3 s of CPU, to every start)."""
    from jupiter.cluster.ssh import ssh_argv

    args = [store_url, isl.name, str(workdir)]
    head = isl.nodes[0]
    endpoint = f"{'127.0.0.1' if head.is_local else head.host}:{port}"
    cmds = []
    for node in isl.nodes:
        procs = processes_of(node, cluster)
        if len(isl.nodes) == 1 and procs == 1:
            run = [python_of(node), "-u"]
        else:
            run = [python_of(node), "-m", "torch.distributed.run"]
            run += ["--nproc-per-node", str(procs or "gpu")]
            if len(isl.nodes) == 1:
                run += ["--standalone"]
            else:
                run += ["--nnodes", str(len(isl.nodes)), "--rdzv-backend", "c10d"]
                run += ["--rdzv-endpoint", endpoint, "--rdzv-id", f"jupiter-{isl.name}"]
        run += ["-m", "jupiter.cluster.island", *args]
        if node.is_local:  # share this machine's cores among its ranks
            cmds.append(["env", f"OMP_NUM_THREADS={local_threads(cluster)}", *run])
        else:  # -tt: the remote processes end with the connection when the driver stops
            cmds.append(ssh_argv(node, cluster, run, tty=True))
    return cmds


def mlx_island_command(
    isl: Island, cluster: ClusterConfig, store_url: str, workdir: Path
) -> tuple[list[str], dict[str, str]]:
    """mlx.launch from a hostfile written from cluster.yaml (ring on loopback or the LAN)."""
    from jupiter.cluster.ssh import ssh_shim

    hostfile = write_hostfile(isl, cluster, workdir / f"hostfile-{isl.name}.json")
    ranks = sum(processes_of(n, cluster) or 1 for n in isl.nodes)
    cmd = [
        *mlx_launch.command(),
        "--hostfile",
        str(hostfile),
        "--backend",
        mlx_transport(cluster),
        "--starting-port",
        str(ring_port(isl, ranks, store_url)),
        "--python",
        python_of(isl.nodes[0]),
        "-m",
        "jupiter.cluster.island",
        store_url,
        isl.name,
        str(workdir),
    ]
    env = dict(os.environ)
    shim = ssh_shim(cluster, workdir / "ssh-shim")
    if shim is not None:  # mlx.launch calls plain `ssh host`: give it cluster.yaml's options
        env["PATH"] = f"{shim.parent}{os.pathsep}{env.get('PATH', '')}"
    env["OMP_NUM_THREADS"] = str(local_threads(cluster))
    return cmd, env


# where a local ring's ports are drawn from: below Linux's ephemeral range (32768-60999),
# which the kernel hands to every outgoing connection, so a port found free stays free
RING_PORTS = (20000, 32000)


def ring_port(isl: Island, ranks: int, store_url: str) -> int:
    """The first of the ring's ports (one per rank). mlx.launch's fixed default would make
    two runs on one machine collide: a local island takes a free run of ports drawn at
    random outside the ephemeral range (a port the kernel gave out for a moment, as a bind
    to port 0 does, can be another connection's by the time the ring binds it), a remote
    one a port derived from the run (its store), the same on every call."""
    import random

    if isl.local:
        draw = random.SystemRandom()
        for _ in range(50):
            first = draw.randrange(RING_PORTS[0], RING_PORTS[1] - ranks)
            if all(port_free(first + i) for i in range(ranks)):
                return first
    digest = int(hashlib.sha256(f"{store_url}:{isl.name}".encode()).hexdigest(), 16)
    return 20000 + digest % 20000


def port_free(port: int) -> bool:
    import socket

    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def local_threads(cluster: ClusterConfig) -> int:
    """This machine's cores shared by every training process it runs, of all islands
    (more threads than cores makes every process wait on the others)."""
    ranks = sum(
        processes_of(n, cluster) or 1 for n in cluster.nodes if n.is_local and n.role != "generator"
    )
    return max(1, (os.cpu_count() or 1) // max(1, ranks))


def coordinator_command(store_url: str, workdir: Path) -> list[str]:
    return [sys.executable, "-m", "jupiter.cluster.coordinator", store_url, str(workdir)]


def launch_commands(
    cluster: ClusterConfig, store_url: str, workdir: Path
) -> dict[str, list[tuple[list[str], dict[str, str]]]]:
    """Per island, the commands this machine runs (and their environments)."""
    out: dict[str, list[tuple[list[str], dict[str, str]]]] = {}
    for isl in islands(cluster):
        if isl.engine == "mlx":
            out[isl.name] = [mlx_island_command(isl, cluster, store_url, workdir)]
        else:
            cmds = torch_island_commands(isl, cluster, store_url, workdir)
            out[isl.name] = [(c, dict(os.environ)) for c in cmds]
    return out


# --------------------------------------------------------------------- the driver
def start(cmd: list[str], env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen(cmd, env=env, start_new_session=True)  # a group: killed whole


def descendants(pid: int) -> list[int]:
    """Every process below pid. torchrun starts its workers in sessions of their own, so
    signalling its process group alone would leave them running."""
    out = subprocess.run(
        ["ps", "-A", "-o", "pid=,ppid="], capture_output=True, text=True, check=False
    ).stdout
    children: dict[int, list[int]] = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2:
            children.setdefault(int(parts[1]), []).append(int(parts[0]))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def kill_tree(pid: int, sig: int) -> None:
    for p in [pid, *descendants(pid)]:
        try:
            os.kill(p, sig)
        except ProcessLookupError:
            pass


def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the process and everything it started, SIGKILL to what is left after 10 s."""
    if proc.poll() is not None:
        return
    tree = [proc.pid, *descendants(proc.pid)]
    kill_tree(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
    for p in tree:
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass


def run_cluster(cr: ClusterRun) -> TrainResult:
    """Start the coordinator and every island; wait for the final model."""
    wall0 = time.perf_counter()
    cr.workdir.mkdir(parents=True, exist_ok=True)
    store = SyncStore(cr.store_url)
    plan = upload_spec(cr, store)
    for note in plan.get("train_plan", {}).get("notes", []):
        print(f"plan: {note}", flush=True)
    # its held-out evaluation shares the cores with this machine's islands
    env = dict(os.environ, OMP_NUM_THREADS=str(local_threads(cr.cluster)))
    coord = start(coordinator_command(cr.store_url, cr.workdir), env)
    cmds = launch_commands(cr.cluster, cr.store_url, cr.workdir)
    procs = {name: [start(c, env) for c, env in group] for name, group in cmds.items()}
    failed: dict[str, str] = {}
    try:
        while coord.poll() is None:
            for name, ps in procs.items():
                if name not in failed and any(p.poll() not in (None, 0) for p in ps):
                    failed[name] = island_error(store, name, ps)
                    print(f"island {name} stopped: {failed[name]}", file=sys.stderr)
            if len(failed) == len(procs):
                raise JupiterError(
                    "every island failed: " + "; ".join(f"{n}: {e}" for n, e in failed.items())
                )
            time.sleep(0.5)
        if coord.returncode != 0:
            raise JupiterError(f"the coordinator exited with status {coord.returncode}: see above")
        deadline = time.time() + 60  # the islands see the last round and stop by themselves
        for name, ps in procs.items():
            for p in ps:
                try:
                    p.wait(timeout=max(1.0, deadline - time.time()))
                except subprocess.TimeoutExpired:  # the model is written: stop them (finally)
                    print(
                        f"island {name} did not exit after the last round: stopping it",
                        file=sys.stderr,
                    )
    finally:
        for p in [coord, *(p for ps in procs.values() for p in ps)]:
            stop(p)
    return cluster_result(cr, plan, time.perf_counter() - wall0)


def island_error(store: SyncStore, name: str, procs: list[subprocess.Popen[bytes]]) -> str:
    if store.exists(P.error_key(name)):
        return str(store.get_json(P.error_key(name))["error"])
    codes = [p.returncode for p in procs]
    return f"exited with status {codes}"


def read_report(workdir: Path) -> list[dict[str, Any]]:
    """The coordinator's rows by round (the last of a round written twice; round -1 is the
    starting weights' held-out loss)."""
    path = workdir / "cluster_report.jsonl"
    if not path.is_file():
        return []
    rows = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            rows[row["round"]] = row
    return [rows[r] for r in sorted(rows) if r >= 0]


def start_loss(workdir: Path) -> float | None:
    """The held-out loss of the round-0 weights, before any training."""
    path = workdir / "cluster_report.jsonl"
    if not path.is_file():
        return None
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    return first.get("heldout_loss") if first.get("round") == -1 else None


def cluster_result(cr: ClusterRun, plan: dict[str, Any], wall: float) -> TrainResult:
    rows = read_report(cr.workdir)
    losses = [sum(r["train_loss"].values()) / len(r["train_loss"]) for r in rows if r["train_loss"]]
    tps = [sum(r["tokens_per_s"].values()) for r in rows]
    steps = sum(int(plan["sync"]["inner_steps"]) for _ in rows)
    return TrainResult(
        model_dir=cr.workdir / "final",
        steps=steps,
        max_steps=int(plan["rounds"]) * int(plan["sync"]["inner_steps"]),
        losses=losses,
        tokens_per_s=sum(tps) / len(tps) if tps else 0.0,
        wall_time_s=wall,
        finished=(cr.workdir / "final").is_dir(),
        heldout_loss=rows[-1]["heldout_loss"] if rows else None,
        plan=plan.get("train_plan"),
    )


def describe_commands(cluster: ClusterConfig, store_url: str, workdir: Path) -> list[str]:
    """The launch commands, as `jupiter cluster plan` prints them."""
    lines = []
    for name, cmds in launch_commands(cluster, store_url, workdir).items():
        for cmd, _ in cmds:
            lines.append(f"{name}: {shlex.join(cmd)}")
    lines.append(f"coordinator: {shlex.join(coordinator_command(store_url, workdir))}")
    return lines
