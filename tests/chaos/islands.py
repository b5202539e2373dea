"""An island killed mid-round, and a Byzantine island, as tests/cluster/ tests
them (test_diloco.py: test_island_killed_mid_round_is_skipped_then_rejoins;
test_robust.py), with the same set-up (tests/cluster/diloco_setup.py: the tiny preset,
real processes on 127.0.0.1, a directory sync store), run here for their figures.

- killed: two islands (MLX and PyTorch where mlx works, else two PyTorch) train R rounds; one
  is killed -9 (its whole process tree) after round 2 and started again once a round has
  gone on without it. Figures: rounds completed, the rounds it missed, the round it
  contributed again, and the global model's held-out loss against an uninterrupted run.
- byzantine: two honest PyTorch islands and a faulty one (weights x1e6, or NaNs); the global
  model's held-out loss under median, trimmed mean and (the control) the plain mean,
  against the honest islands alone.

    python tests/chaos/islands.py [--rounds 8] [--only killed|byzantine] [--out FILE]
"""

from __future__ import annotations

import math
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from harness import emit, out_arg

H = 4  # inner steps a round


def islands_with_mlx() -> dict[str, tuple[str, int]]:
    try:
        import mlx.core  # noqa: F401

        return {"mlx": ("mlx", 1), "torch": ("torch", 1)}
    except ImportError:
        return {"torch2": ("torch", 1), "torch": ("torch", 1)}


def cluster_run(
    tok: Path, root: Path, islands: dict[str, tuple[str, int]], rounds: int, **sync: Any
) -> Any:
    from diloco_setup import cluster, tiny_run

    from jupiter.cluster.launch import ClusterRun

    run = tiny_run(tok, root / "train", max_steps=rounds * H)
    return ClusterRun(
        run,
        cluster(root / "sync", islands, inner_steps=H, **sync),
        str(root / "sync"),
        root / "train",
    )


def island_killed(tok: Path, root: Path, rounds: int) -> dict[str, Any]:
    from diloco_setup import Processes, report, until

    from jupiter.cluster.launch import run_cluster

    islands = islands_with_mlx()
    ref = cluster_run(tok, root / "ref", islands, rounds)
    assert run_cluster(ref).finished
    cr = cluster_run(tok, root / "killed", islands, rounds)
    procs = Processes(cr, root / "logs")
    try:
        for name in ("coordinator", *islands):
            procs.start(name)
        until(lambda: procs.latest()["round"] >= 2, 600, "round 2", procs)
        procs.kill("torch")
        until(
            lambda: any("torch" in r["skipped"] for r in report(cr.workdir)),
            600,
            "a round without the killed island",
            procs,
        )
        procs.start("torch")
        until(lambda: procs.latest()["done"], 900, "the last round", procs)
        codes = [procs.wait(n, 120) for n in ("coordinator", *islands)]
    finally:
        procs.stop_all()
    rows, ref_rows = report(cr.workdir), report(ref.workdir)
    missed = [r["round"] for r in rows if "torch" in r["skipped"]]
    back = [
        r["round"] for r in rows if missed and r["round"] > missed[0] and "torch" in r["islands"]
    ]
    return {
        "islands": {k: v[0] for k, v in islands.items()},
        "rounds": rounds,
        "rounds_completed": len(rows),
        "exit_codes": codes,
        "killed_island_missed_rounds": missed,
        "killed_island_back_at_round": back[0] if back else None,
        "final_model_written": (cr.workdir / "final" / "model.safetensors").is_file(),
        "heldout_loss": rows[-1]["heldout_loss"],
        "heldout_loss_uninterrupted": ref_rows[-1]["heldout_loss"],
        "loss_ratio": rows[-1]["heldout_loss"] / ref_rows[-1]["heldout_loss"],
    }


def attacked(tok: Path, root: Path, mode: str, aggregate: str, rounds: int) -> list[dict]:
    """The robust-aggregation test's run: h1, h2 honest, `bad` publishing scaled or NaN
    weights (tests/cluster/bad_island.py), or absent."""
    from diloco_setup import Processes, report, until

    from jupiter.cluster import protocol as P

    honest = {"h1": ("torch", 1), "h2": ("torch", 1)}
    cr = cluster_run(tok, root, {**honest, "bad": ("torch", 1)}, rounds, aggregate=aggregate)
    procs = Processes(cr, root / "logs")
    bad = Path(__file__).resolve().parents[2] / "tests" / "cluster" / "bad_island.py"
    try:
        for name in ("coordinator", "h1", "h2"):
            procs.start(name)
        procs.cmds["bad"] = [
            (
                [sys.executable, str(bad), cr.store_url, "bad", mode, str(root / "bad")],
                dict(os.environ),
            )
        ]
        if mode == "absent":
            procs.store.put_json(P.error_key("bad"), {"rank": 0, "error": "did not start"})
        else:
            procs.start("bad")
        until(lambda: procs.latest()["done"], 900, "the last round", procs)
    finally:
        procs.stop_all()
    return report(cr.workdir)


def byzantine_island(tok: Path, root: Path, rounds: int) -> dict[str, Any]:
    honest = attacked(tok, root / "honest", "absent", "mean", rounds)[-1]["heldout_loss"]
    out: dict[str, Any] = {"rounds": rounds, "honest_only_loss": honest}
    for mode, aggregate in (("scale", "median"), ("nan", "trimmed_mean"), ("scale", "mean")):
        rows = attacked(tok, root / f"{mode}-{aggregate}", mode, aggregate, rounds)
        loss = rows[-1]["heldout_loss"]
        out[f"{aggregate}_vs_{mode}"] = {
            "rounds_completed": len(rows),
            "heldout_loss": loss,
            "ratio_to_honest": loss / honest if math.isfinite(loss) else float("inf"),
            "rejected": sorted({k for r in rows for k in r.get("rejected", {})}),
        }
    return out


def main(argv: list[str]) -> dict[str, Any]:
    rounds = int(argv[argv.index("--rounds") + 1]) if "--rounds" in argv else 8
    only = argv[argv.index("--only") + 1] if "--only" in argv else ""
    root = Path(tempfile.mkdtemp(prefix="jupiter-islands-"))
    figures: dict[str, Any] = {}
    try:
        from diloco_setup import make_tokenizer  # tests/cluster/, on sys.path by harness

        tok = make_tokenizer(root / "tok")
        if only in ("", "killed"):
            figures["island_killed"] = island_killed(tok, root / "killed", rounds)
        if only in ("", "byzantine"):
            figures["byzantine_island"] = byzantine_island(
                tok, root / "byzantine", max(3, rounds // 2)
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return emit("islands", figures, out_arg(argv))


if __name__ == "__main__":
    main(sys.argv[1:])
