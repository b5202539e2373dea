"""Federated training with and without differential privacy against centralized training on
the union of the data: `jupiter federated server` and `client` as real Flower processes on
127.0.0.1, every final model scored on the domain's eval set with 95% intervals, and paired
against the centralized model.

Setting:
- the domain's data made once by Jupiter's own stages (collect, the extractive generator,
  the filters) in one workspace, which also trains the start: the tiny preset from scratch
  for `--start-steps` steps on all of it (the train stage, examples and raw text mixed);
- the accepted examples split into `--clients` disjoint shards by a hash of their id; each
  client is a workspace of its own (its own domain YAML) whose queue holds only its shard,
  and whose model.base is the start;
- the runs, all from the start with the same method (LoRA by default), learning rate,
  schedule, micro-batch and context:
  - centralized: one client holding the union of the shards, one round of K·R·E steps
    (Jupiter's training loop with one optimizer throughout: no aggregation);
  - FedAvg: K clients, R rounds of E local steps, example-weighted mean;
  - FedAvg with DP: the same, server-side fixed clipping of each client's update to C and
    Gaussian noise z·C on the sum (DP-FedAvg); ε at δ from the server's RDP accountant;
  - FedMedian (unless --no-median): the coordinate-wise median instead of the mean.
  Accounting: a step is one micro-batch of B packed sequences of the context length, so
  every run trains on K·R·E·B sequences: centralized K·R·E steps on the union, each
  federated client R·E steps on its shard.
- z comes from `--target-epsilon` (the smallest z whose ε after R rounds at q = 1 is within
  it) unless `--noise-multiplier` is given; C (unless `--clip-norm`) is the median L2 norm of
  the clients' updates in the FedAvg run without DP (kept by `--keep-updates`): tuned on a
  non-private run, which the ε does not cover.

Eval: bits per byte on the held-out documents, QA token F1 (greedy) and MC accuracy
(log-likelihood) on the domain's eval set, each with its 95% bootstrap interval; the
differences against centralized are paired on the same items (compare_reports).

Usage: python benchmarks/quality/federated.py [--quick] [--modules M ...] [--start-steps 250]
       [--rounds 5] [--local-steps 20] [--target-epsilon 8 ...] [--workdir DIR] [--json OUT]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import signal
import socket
import subprocess
import sys
import time
import zlib
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml
from rich.console import Console

from merge import (  # the same figures and table keys as the merge benchmark
    differences,
    figures,
)

ROOT = Path(__file__).resolve().parents[2]
JUPITER = str(Path(sys.executable).parent / "jupiter")
# a moderate slice of the standard library: enough examples for K shards, collected in ~1 min
MODULES = [
    "json",
    "os",
    "os.path",
    "collections",
    "itertools",
    "functools",
    "re",
    "string",
    "textwrap",
    "math",
    "pathlib",
    "datetime",
    "random",
    "statistics",
    "shutil",
    "subprocess",
    "argparse",
    "logging",
    "csv",
    "heapq",
]
QUICK_MODULES = ["json", "os.path", "collections", "re", "string", "textwrap"]


def shard_of(example_id: str, k: int) -> int:
    return zlib.crc32(example_id.encode()) % k


# ---------------------------------------------------------------------------- YAMLs
def base_config(args: argparse.Namespace) -> dict[str, Any]:
    cfg = yaml.safe_load((ROOT / "config" / "domains" / "python.yaml").read_text())
    for key in ("quick", "experts"):
        cfg.pop(key, None)
    cfg["cycles"] = 1
    cfg["sources"][0]["modules"] = args.modules
    cfg["eval"]["qa_path"] = str((ROOT / "config" / "domains" / cfg["eval"]["qa_path"]).resolve())
    cfg["eval"]["max_items"] = args.max_items
    cfg["model"] = {**cfg["model"], "preset": "tiny", "base": None}
    return cfg


def write(path: Path, cfg: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def main_yaml(args: argparse.Namespace, workdir: Path) -> Path:
    """The workspace that makes the data, trains the start and holds the eval set."""
    cfg = base_config(args)
    cfg["name"] = "fed-python"
    cfg["train"].update(
        {
            "max_steps": args.start_steps,
            "heldout_fraction": 0.0,
            "metrics": [],
            "warmup_steps": max(1, args.start_steps // 10),
        }
    )
    return write(workdir / "fed-python.yaml", cfg)


def party_yaml(args: argparse.Namespace, workdir: Path, name: str, start: Path) -> Path:
    """A client's (or the server's) domain: the start as model.base, the fine-tuning method
    and its hyperparameters (the server's are the plan every client trains with), no eval
    set (the server then evaluates nothing: the benchmark evaluates every model itself)."""
    cfg = base_config(args)
    cfg["name"] = name
    cfg.pop("eval")
    cfg["model"] = {"base": str(start), "context_length": cfg["model"]["context_length"]}
    cfg["train"] = {
        "method": args.method,
        "lora": {"r": args.lora_r, "alpha": 2 * args.lora_r, "dropout": 0.0},
        "micro_batch_size": cfg["train"]["micro_batch_size"],
        "lr": args.lr,
        "min_lr": args.lr / 10,
        "warmup_steps": args.warmup,
        "heldout_fraction": 0.0,
        "metrics": [],
        "precision": "fp32",
        "checkpoint_every_epoch": False,
    }
    cfg["promotion"] = {"real_data_fraction": 0.0}  # every example is the client's own data
    return write(workdir / f"{name}.yaml", cfg)


# ------------------------------------------------------------------------ processes
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def child_env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        JUPITER_HOME=str(home), OMP_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false", COLUMNS="200"
    )
    return env


def spawn(args: list[str], home: Path, log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [JUPITER, "federated", *args],
        env=child_env(home),
        cwd=home,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def stop(proc: subprocess.Popen[bytes]) -> None:
    """The command and the Flower processes it started (its process group)."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(30)


def federate(
    workdir: Path,
    run: str,
    server_yaml: Path,
    clients: list[Path],
    server_args: list[str],
    keep: bool = False,
) -> dict[str, Any]:
    """One federation (server + clients as processes); the run's federated.json. A run that
    finished before (its federated.json says done) is read back, not run again."""
    out = workdir / "fed-runs" / run
    rec_path = out / "federated.json"
    if rec_path.is_file() and json.loads(rec_path.read_text()).get("status") == "done":
        return json.loads(rec_path.read_text())
    if out.exists():
        import shutil

        shutil.rmtree(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    logs = workdir / "logs"
    logs.mkdir(exist_ok=True)
    address = f"127.0.0.1:{free_port()}"
    t0 = time.perf_counter()
    server = spawn(
        [
            "server",
            "--domain",
            str(server_yaml),
            "--address",
            address,
            "--out",
            str(out),
            "--wait-clients",
            "600",
            "--min-clients",
            str(len(clients)),
            "--min-results",
            str(len(clients)),
            *server_args,
        ],
        workdir,
        logs / f"{run}-server.log",
    )
    procs = [
        spawn(
            [
                "client",
                "--domain",
                str(c),
                "--server",
                address,
                "--device",
                "cpu",
                *(["--keep-updates"] if keep else []),
            ],
            workdir,
            logs / f"{run}-{c.stem}.log",
        )
        for c in clients
    ]
    said = 0

    def new_rounds() -> None:  # a line for each round finished since the last look
        nonlocal said
        rows = json.loads(rec_path.read_text()).get("rounds", []) if rec_path.is_file() else []
        for row in rows[said:]:
            eps = f", ε {row['epsilon']:.3g}" if "epsilon" in row else ""
            loss = row.get("train_loss")
            print(
                f"    {run} round {row['round']}: train loss "
                f"{loss if loss is None else round(loss, 4)}{eps}, "
                f"{row.get('seconds', 0):.0f} s",
                flush=True,
            )
        said = len(rows)

    try:
        while server.poll() is None:
            for c, p in zip(clients, procs, strict=True):
                if p.poll() is not None:
                    tail = (logs / f"{run}-{c.stem}.log").read_text()[-1500:]
                    raise SystemExit(f"client {c.stem} of run {run} stopped:\n{tail}")
            new_rounds()  # federated.json is written atomically: never half
            time.sleep(1.0)
        new_rounds()
    finally:
        for p in [server, *procs]:
            stop(p)
    if server.returncode != 0:
        tail = (logs / f"{run}-server.log").read_text()[-2000:]
        raise SystemExit(f"the server of run {run} failed:\n{tail}")
    rec = json.loads(rec_path.read_text())
    rec["wall_seconds"] = round(time.perf_counter() - t0, 1)
    rec_path.write_text(json.dumps(rec, indent=1))
    return rec


def update_norms(workdir: Path, clients: list[Path], run: str) -> tuple[list[float], int]:
    """‖sent − received‖ of every client and round of a run made with --keep-updates; and
    the number of weights that travel."""
    from safetensors.torch import load_file

    from jupiter.federated.privacy import l2_norm

    norms, size = [], 0
    for c in clients:
        where = workdir / "runs" / c.stem / "federated" / "updates" / run
        for got in sorted(where.glob("round-*-received.safetensors")):
            sent = load_file(str(got).replace("-received.", "-sent."))
            rec = load_file(str(got))
            norms.append(l2_norm({k: sent[k].double() - rec[k].double() for k in rec}))
            size = sum(v.numel() for v in rec.values())
    return norms, size


def noise_for(target: float, rounds: int, delta: float) -> float:
    """The smallest noise multiplier (to 3 digits) whose ε after `rounds` rounds of every
    client (q = 1) is within `target`: bisection on the RDP accountant."""
    from jupiter.federated.privacy import epsilon

    lo, hi = 0.001, 100.0
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if epsilon(mid, 1.0, rounds, delta) <= target else (mid, hi)
    return float(f"{hi:.3g}") if epsilon(float(f"{hi:.3g}"), 1.0, rounds, delta) <= target else hi


# ------------------------------------------------------------------------ reporting
def noise_norm(dp: dict[str, Any], size: int) -> float:
    """The expected L2 norm of one round's noise on the mean: z·C·√d / clients a round."""
    return float(dp["noise_multiplier"] * dp["clip_norm"] * size**0.5 / dp["denominator"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a few-minute smoke run")
    ap.add_argument("--modules", nargs="*", default=None, help="stdlib modules to collect")
    ap.add_argument("--clients", type=int, default=3)
    ap.add_argument("--start-steps", type=int, default=250)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--local-steps", type=int, default=20)
    ap.add_argument("--method", choices=["lora", "full"], default="lora")
    ap.add_argument("--lora-r", type=int, default=16)
    ap.add_argument("--lr", type=float, default=5e-3)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument(
        "--target-epsilon",
        type=float,
        nargs="+",
        default=[8.0],
        help="a DP run for each (its noise multiplier from the accountant)",
    )
    ap.add_argument("--noise-multiplier", type=float, default=None, help="instead of a target")
    ap.add_argument("--clip-norm", type=float, default=None)
    ap.add_argument("--delta", type=float, default=1e-5)
    ap.add_argument("--no-median", action="store_true", help="skip the FedMedian run")
    ap.add_argument("--max-items", type=int, default=120)
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    if args.quick:
        args.modules = args.modules or QUICK_MODULES
        args.start_steps, args.rounds, args.local_steps = 60, 2, 4
        args.max_items = min(args.max_items, 30)
    args.modules = args.modules or MODULES
    default = Path("runs") / ("bench-federated" + ("-quick" if args.quick else ""))
    workdir = (args.workdir or default).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    os.environ["JUPITER_HOME"] = str(workdir)
    # the runs and reports kept in the workdir are reused: only under the same settings
    same = [
        "modules",
        "clients",
        "start_steps",
        "rounds",
        "local_steps",
        "method",
        "lora_r",
        "lr",
        "warmup",
        "max_items",
    ]
    settings = {k: getattr(args, k) for k in same}
    kept = workdir / "settings.json"
    if kept.is_file() and json.loads(kept.read_text()) != settings:
        raise SystemExit(f"{workdir} holds a run with other settings: give another --workdir")
    kept.write_text(json.dumps(settings))

    from jupiter.config import load_domain
    from jupiter.eval.compare import compare_reports
    from jupiter.federated.privacy import epsilons
    from jupiter.improve import cycle as cycle_mod
    from jupiter.improve.evalset import eval_items
    from jupiter.improve.evaluate import evaluate_model
    from jupiter.improve.workspace import Workspace

    t0 = time.perf_counter()
    quiet = Console(file=io.StringIO())
    ws = Workspace(load_domain(str(main_yaml(args, workdir))), console=Console(stderr=True))
    done = ws.store.stages(1) if ws.has_store() else {}
    for stage in ("collect", "generate", "filter", "train"):
        if stage not in done:
            ws.store.mark_stage(1, stage, cycle_mod.run_stage(ws, 1, stage))
    start = ws.student_dir(1)
    examples = [e for s in ("accepted", "used") for e in ws.store.iter_examples(status=s)]
    print(
        f"start: {start} ({args.start_steps} steps from scratch on {len(examples)} examples "
        f"and raw text), {time.perf_counter() - t0:.0f} s",
        flush=True,
    )

    # the parties: a workspace per client holding its shard, one holding the union
    k = args.clients
    shards: list[list[Any]] = [[] for _ in range(k)]
    for e in examples:
        shards[shard_of(e.id, k)].append(replace(e, status="accepted"))
    clients = [party_yaml(args, workdir, f"fed-c{i + 1}", start) for i in range(k)]
    union = party_yaml(args, workdir, "fed-union", start)
    server = party_yaml(args, workdir, "fed-server", start)
    for path, exs in [*zip(clients, shards, strict=True), (union, examples)]:
        party = Workspace(load_domain(str(path)), console=quiet)
        try:
            if not party.has_store() or not party.store.count("examples"):
                party.store.add_examples([replace(e, status="accepted") for e in exs])
            assert party.store.count("examples") == len(exs), path
        finally:
            party.close()
    sizes = [len(s) for s in shards]
    batch = int(ws.cfg.train.micro_batch_size)  # the parties copy it
    ctx = ws.cfg.model.context_length
    R, E = args.rounds, args.local_steps
    seqs = k * R * E * batch
    print(
        f"shards: {sizes} examples; every run trains on {k}·{R}·{E}·{batch} = {seqs} "
        f"sequences of {ctx} tokens ({args.method})",
        flush=True,
    )

    runs: dict[str, dict[str, Any]] = {}
    common = ["--rounds", str(R), "--local-steps", str(E)]
    print("centralized (one client, the union, one round):", flush=True)
    runs["centralized"] = federate(
        workdir, "centralized", server, [union], ["--rounds", "1", "--local-steps", str(k * R * E)]
    )
    print("FedAvg:", flush=True)
    runs["FedAvg"] = federate(workdir, "fedavg", server, clients, common, keep=True)
    norms, size = update_norms(workdir, clients, "fedavg")
    clip = args.clip_norm or float(sorted(norms)[len(norms) // 2])
    print(
        f"client update norms in FedAvg: median {sorted(norms)[len(norms) // 2]:.4g} "
        f"(min {min(norms):.4g}, max {max(norms):.4g}) over {size:,} weights; DP clip norm C "
        f"= {clip:.4g}"
    )
    dp_names = []
    zs = (
        [args.noise_multiplier]
        if args.noise_multiplier
        else [noise_for(t, R, args.delta) for t in args.target_epsilon]
    )
    for z in zs:
        eps_plan = epsilons(z, 1.0, R, args.delta)[-1]
        dp_name = f"FedAvg + DP (ε {eps_plan:.3g})"
        print(f"{dp_name}: z = {z:g}, C = {clip:.4g}, δ = {args.delta:g}", flush=True)
        tag = f"dp-z{z:g}-c{clip:.6g}" + (f"-d{args.delta:g}" if args.delta != 1e-5 else "")
        runs[dp_name] = federate(
            workdir,
            tag,
            server,
            clients,
            [
                *common,
                "--dp",
                "server",
                "--noise-multiplier",
                str(z),
                "--clip-norm",
                f"{clip:.6g}",
                "--delta",
                str(args.delta),
            ],
        )
        dp_names.append(dp_name)
    if not args.no_median:
        print("FedMedian:", flush=True)
        runs["FedMedian"] = federate(
            workdir, "median", server, clients, [*common, "--strategy", "fedmedian"]
        )
    train_s = time.perf_counter() - t0

    items, mc, about = eval_items(ws)
    print(
        f"\neval set: {len(items)} QA, {len(mc)} MC ({about.get('distractors')}); "
        f"{train_s / 60:.1f} min so far",
        flush=True,
    )
    reports: dict[str, dict[str, Any]] = {}
    cache = workdir / "reports"
    cache.mkdir(exist_ok=True)
    models = {"start": start, **{n: Path(r["model"]) for n, r in runs.items()}}
    for name, path in models.items():
        saved = cache / f"{zlib.crc32(f'{name}:{path}'.encode()):08x}.json"
        if saved.is_file():
            reports[name] = json.loads(saved.read_text())
        else:
            reports[name] = evaluate_model(ws, path, name, items, mc)
            saved.write_text(json.dumps(reports[name], default=str))
        print(f"  {name:<22} {figures(reports[name])}", flush=True)

    # against centralized (what federating costs), and against the start (what was learnt)
    comparisons: dict[str, dict[str, Any]] = {"centralized": {}, "start": {}}
    for against, table in comparisons.items():
        print(f"\npaired against {against} (same items; 95% intervals):")
        for name, rep in reports.items():
            if name == against:
                continue
            comp = compare_reports(rep, reports[against])["metrics"]
            table[name] = comp
            print(f"  {name:<22} " + differences(comp))
    print()
    for dp_name in dp_names:
        dp_rec, dp_rows = runs[dp_name]["dp"], runs[dp_name]["rounds"]
        clipped = sum(r["dp"]["clipped"] for r in dp_rows)
        per_round = ", ".join(f"{r['epsilon']:.3g}" for r in dp_rows)
        print(
            f"DP: ε {dp_rec['epsilon']:.4g} at δ {dp_rec['delta']:g} after "
            f"{dp_rec['releases']} rounds ({per_round}; z {dp_rec['noise_multiplier']:g}, C "
            f"{dp_rec['clip_norm']:.4g}, q {dp_rec['sample_rate']:g}); noise std on the mean "
            f"{dp_rec['noise_multiplier'] * dp_rec['clip_norm'] / dp_rec['denominator']:.4g} "
            f"per coordinate, norm {noise_norm(dp_rec, size):.4g} a round against a mean update "
            f"of norm <= C; {clipped} of {sum(len(r['used']) for r in dp_rows)} updates "
            "clipped"
        )
    for name, rec in runs.items():
        print(
            f"  {name:<22} {rec['rounds_done']} rounds, {rec['wall_seconds']:.0f} s, last "
            f"train loss {rec['rounds'][-1].get('train_loss', float('nan')):.4f}"
        )
    seconds = time.perf_counter() - t0
    print(f"\n{seconds / 60:.1f} min")
    if args.json:
        keys = (
            "qa_f1",
            "qa_f1_ci",
            "mc_accuracy",
            "mc_accuracy_ci",
            "bpb",
            "bpb_ci",
            "n_qa",
            "n_mc",
        )
        slim = {n: {m: r.get(m) for m in keys} for n, r in reports.items()}
        fed = {
            n: {
                "rounds_done": r["rounds_done"],
                "wall_seconds": r["wall_seconds"],
                "train_loss": [row.get("train_loss") for row in r["rounds"]],
                "dp": r.get("dp"),
            }
            for n, r in runs.items()
        }
        args.json.write_text(
            json.dumps(
                {
                    "reports": slim,
                    "comparisons": comparisons,
                    "runs": fed,
                    "shards": sizes,
                    "sequences_per_run": seqs,
                    "update_norms": norms,
                    "weights_sent": size,
                    "clip_norm": clip,
                    "noise_multipliers": zs,
                    "seconds": seconds,
                    "args": vars(args) | {"workdir": str(workdir)},
                },
                indent=1,
                default=str,
            )
        )
    ws.close()


if __name__ == "__main__":
    main()
