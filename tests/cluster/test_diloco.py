"""Two islands train the tiny preset together, as real processes on 127.0.0.1: an MLX
island of 2 ranks (mlx.launch, ring backend on loopback) and a PyTorch island of 2 ranks
(torchrun, gloo), synced by the DiLoCo outer loop through a directory store."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from diloco_setup import Processes, cluster, make_tokenizer, raw_rows, report, tiny_run, until
from safetensors.torch import load_file

from jupiter.cluster import protocol as P
from jupiter.cluster.codec import decode, weights_digest
from jupiter.cluster.launch import ClusterRun, run_cluster, start_loss

pytest.importorskip("mlx.core")
pytestmark = [pytest.mark.slow, pytest.mark.mlx]

ROUNDS, H = 3, 4
TWO = {"mlx": ("mlx", 2), "torch": ("torch", 2)}
ONE = {"mlx": ("mlx", 1), "torch": ("torch", 1)}  # one rank each: fewer processes to restart


@pytest.fixture(scope="module")
def tok_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_tokenizer(tmp_path_factory.mktemp("tok"))


# the shared run and its restarted twin send int8 pseudo-gradients and fetch each round's
# int8 change (the torch and the MLX island rebuild the same weights from it); the killed
# island's run keeps the defaults (bf16 up, fp32 weights down)
QUANTIZED = {"dtype": "int8", "down_dtype": "int8"}


def two_island_run(
    tok_dir: Path,
    root: Path,
    rounds: int = ROUNDS,
    islands: dict[str, tuple[str, int]] = TWO,
    **sync: Any,
) -> ClusterRun:
    run = tiny_run(tok_dir, root / "train", max_steps=rounds * H)
    return ClusterRun(
        run,
        cluster(root / "sync", islands, inner_steps=H, **sync),
        str(root / "sync"),
        root / "train",
    )


@pytest.fixture(scope="module")
def finished(tok_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> ClusterRun:
    cr = two_island_run(tok_dir, tmp_path_factory.mktemp("diloco"), **QUANTIZED)
    result = run_cluster(cr)
    assert result.finished, "the run did not write its final model"
    return cr


def test_two_islands_train_three_rounds(finished: ClusterRun) -> None:
    rows = report(finished.workdir)
    assert [r["round"] for r in rows] == list(range(ROUNDS))
    for r in rows:
        assert r["islands"] == ["mlx", "torch"] and not r["skipped"] and not r["rejected"]
        # byte-identical global weights: what each island held after loading the round
        assert r["digests"]["mlx"] == r["digests"]["torch"] == r["global_digest"]
        assert r["bytes_up"] > 0 and r["reduction"] > 1
        assert set(r["tokens_per_s"]) == {"mlx", "torch"}
    # int8 up: about a byte a parameter an island; down: nothing at round 0 (both islands
    # built its start from the run's initial model: latest.json's digest), then each round's
    # int8 change (a quarter of the fp32 weights)
    params = rows[0]["allreduce_bytes"] / (H * 2 * 4)
    assert all(r["bytes_up"] < 2 * 1.1 * params for r in rows)
    assert rows[0]["bytes_down"] == 0
    assert all(params < r["bytes_down"] < 2 * 1.1 * params for r in rows[1:])
    losses = [start_loss(finished.workdir)] + [r["heldout_loss"] for r in rows]
    assert all(b < a for a, b in zip(losses, losses[1:], strict=False)), losses
    assert losses[-1] < 0.8 * losses[0]


def test_final_model_is_the_last_global_weights(finished: ClusterRun) -> None:
    from jupiter.cluster.syncstore import SyncStore

    store = SyncStore(finished.store_url)
    latest = store.get_json(P.LATEST)
    assert (latest["round"], latest["done"]) == (ROUNDS, True)
    weights, meta = decode(store.get(P.global_key(ROUNDS)))
    final = load_file(str(finished.workdir / "final" / "model.safetensors"))
    assert weights_digest(weights) == meta["digest"] == latest["digest"]
    for name, w in weights.items():
        assert torch.equal(final[name], w), name
    # the same bytes read by MLX
    import mlx.core as mx

    loaded = mx.load(str(finished.workdir / "final" / "model.safetensors"))
    for name, w in weights.items():
        assert np.array_equal(np.array(loaded[name]), w.numpy()), name


def test_island_killed_mid_round_is_skipped_then_rejoins(tok_dir: Path, tmp_path: Path) -> None:
    # 10 rounds: the restarted island is waited for from its first heartbeat (island.py), so
    # the rounds after the skip need only outlast its start-up (2 to 4 rounds on 2 busy cores)
    cr = two_island_run(tok_dir, tmp_path, rounds=10, islands=ONE)
    procs = Processes(cr, tmp_path / "logs")
    try:
        for name in ("coordinator", "mlx", "torch"):
            procs.start(name)
        until(lambda: procs.latest()["round"] >= 2, 240, "round 2", procs)
        procs.kill("torch")
        until(
            lambda: any("torch" in r["skipped"] for r in report(cr.workdir)),
            120,
            "a round without the killed island",
            procs,
        )
        skipped_at = next(r["round"] for r in report(cr.workdir) if "torch" in r["skipped"])
        procs.start("torch")
        until(lambda: procs.latest()["done"], 400, "the last round", procs)
        assert procs.wait("coordinator", 120) == [0]
        assert procs.wait("mlx", 60) == [0]
        assert procs.wait("torch", 60) == [0]
    finally:
        procs.stop_all()
    rows = report(cr.workdir)
    assert [r["round"] for r in rows] == list(range(10))
    rejoined = [r["round"] for r in rows if r["round"] > skipped_at and "torch" in r["islands"]]
    assert rejoined, f"the restarted island never contributed again: {rows}"
    assert all("mlx" in r["islands"] for r in rows)  # the other island finished every round
    # fp32 down (the default): after round 0, which both built themselves, every island that
    # contributed read the whole weights, the restarted one included
    params = rows[1]["allreduce_bytes"] / (H * 2 * 4)
    assert rows[0]["bytes_down"] == 0
    for r in rows[1:]:
        assert 4 * params * len(r["islands"]) < r["bytes_down"] < 4.4 * params * len(r["islands"])
    assert (cr.workdir / "final" / "model.safetensors").is_file()


def test_coordinator_kill_9_resumes_at_the_last_round(
    finished: ClusterRun, tok_dir: Path, tmp_path: Path
) -> None:
    cr = two_island_run(tok_dir, tmp_path, **QUANTIZED)
    procs = Processes(cr, tmp_path / "logs")
    try:
        for name in ("coordinator", "mlx", "torch"):
            procs.start(name)
        until(lambda: procs.latest()["round"] >= 1, 240, "round 1", procs)
        procs.kill("coordinator")
        killed_at = procs.latest()["round"]
        time.sleep(1.0)
        procs.start("coordinator")
        until(lambda: procs.latest()["done"], 300, "the last round", procs)
        assert procs.wait("coordinator", 120) == [0]
    finally:
        procs.stop_all()
    assert killed_at < ROUNDS
    log = (tmp_path / "logs" / "coordinator.log").read_text()
    assert f"coordinator: resuming at round {killed_at}" in log
    # Nothing was skipped, so the run equals the uninterrupted one to the byte.
    rows, ref = report(cr.workdir), report(finished.workdir)
    assert [r["global_digest"] for r in rows] == [r["global_digest"] for r in ref]
    a = load_file(str(cr.workdir / "final" / "model.safetensors"))
    b = load_file(str(finished.workdir / "final" / "model.safetensors"))
    assert all(torch.equal(a[n], b[n]) for n in a)
    assert len(raw_rows(cr.workdir)) >= ROUNDS + 1
    assert (
        json.loads((cr.workdir / "cluster_report.jsonl").read_text().splitlines()[0])["round"] == -1
    )
