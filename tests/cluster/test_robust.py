"""A faulty island (weights x1e6, or NaNs) among two honest PyTorch islands: under median
or trimmed mean the global model stays finite and within 5% of the honest-only run's
validation loss; under the plain mean the same attack ruins it (the control)."""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

import pytest
from diloco_setup import Processes, cluster, make_tokenizer, report, tiny_run, until

from jupiter.cluster import protocol as P
from jupiter.cluster.launch import ClusterRun

pytestmark = pytest.mark.slow
ROUNDS, H = 2, 4
HONEST = {"h1": ("torch", 1), "h2": ("torch", 1)}


@pytest.fixture(scope="module")
def tok_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_tokenizer(tmp_path_factory.mktemp("tok"))


@pytest.fixture(scope="module")
def honest_loss(tok_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> float:
    """The same three-island run (same data shards) with the third island never started."""
    rows = attacked(tok_dir, tmp_path_factory.mktemp("honest"), "absent", "mean")
    assert all(r["islands"] == ["h1", "h2"] and r["skipped"] == ["bad"] for r in rows), rows
    loss = rows[-1]["heldout_loss"]
    assert math.isfinite(loss)
    return float(loss)


def attacked(tok_dir: Path, root: Path, mode: str, aggregate: str) -> list[dict]:
    run = tiny_run(tok_dir, root / "train", max_steps=ROUNDS * H)
    islands = {**HONEST, "bad": ("torch", 1)}
    cl = cluster(root / "sync", islands, inner_steps=H, aggregate=aggregate)
    cr = ClusterRun(run, cl, str(root / "sync"), root / "train")
    procs = Processes(cr, root / "logs")
    bad = Path(__file__).with_name("bad_island.py")
    try:
        for name in ("coordinator", "h1", "h2"):
            procs.start(name)
        procs.cmds["bad"] = [
            (
                [sys.executable, str(bad), cr.store_url, "bad", mode, str(root / "bad")],
                dict(os.environ),
            )
        ]
        if mode == "absent":  # as an island that failed at its start reports itself
            procs.store.put_json(P.error_key("bad"), {"rank": 0, "error": "did not start"})
        else:
            procs.start("bad")
        until(lambda: procs.latest()["done"], 300, "the last round", procs)
        assert procs.wait("coordinator", 120) == [0]
    finally:
        procs.stop_all()
    rows = report(cr.workdir)
    assert [r["round"] for r in rows] == list(range(ROUNDS)), procs.log_tail()
    return rows


@pytest.mark.parametrize(("mode", "aggregate"), [("scale", "median"), ("nan", "trimmed_mean")])
def test_robust_aggregation_survives_a_bad_island(
    mode: str, aggregate: str, tok_dir: Path, honest_loss: float, tmp_path: Path
) -> None:
    rows = attacked(tok_dir, tmp_path, mode, aggregate)
    assert all("bad" in r["islands"] for r in rows)  # it did take part
    assert all(r["islands"] == ["bad", "h1", "h2"] for r in rows)
    if mode == "nan":
        assert all(r["rejected"] == {"bad": "non_finite"} for r in rows)
    loss = rows[-1]["heldout_loss"]
    assert math.isfinite(loss)
    assert abs(loss - honest_loss) <= 0.05 * honest_loss, (loss, honest_loss)


def test_plain_mean_is_ruined_by_the_same_attack(
    tok_dir: Path, honest_loss: float, tmp_path: Path
) -> None:
    loss = attacked(tok_dir, tmp_path, "scale", "mean")[-1]["heldout_loss"]
    assert not math.isfinite(loss) or loss > 2 * honest_loss
