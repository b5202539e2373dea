"""Streaming DiLoCo: an MLX island and a PyTorch island of one rank each, as real processes
on 127.0.0.1 through a directory store, train the tiny preset's layers in two strided
fragments, one synced a round (`sync.fragments`), or overlap each round's first steps with
the wait for its weights (`sync.overlap_steps`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from diloco_setup import cluster, make_tokenizer, report, tiny_run
from safetensors.torch import load_file

from jupiter.cluster import protocol as P
from jupiter.cluster.codec import decode
from jupiter.cluster.launch import ClusterRun, run_cluster, start_loss
from jupiter.cluster.syncstore import SyncStore

pytest.importorskip("mlx.core")
pytestmark = [pytest.mark.slow, pytest.mark.mlx]

ROUNDS, H = 4, 4


def test_two_fragments_sync_in_turn_and_the_last_round_syncs_all(tmp_path: Path) -> None:
    tok = make_tokenizer(tmp_path / "tok")
    run = tiny_run(tok, tmp_path / "train", max_steps=ROUNDS * H)
    islands = {"mlx": ("mlx", 1), "torch": ("torch", 1)}
    sync = {"inner_steps": H, "fragments": 2, "outer_lr_schedule": "cosine", "outer_min_lr": 0.1}
    cr = ClusterRun(
        run, cluster(tmp_path / "sync", islands, **sync), str(tmp_path / "sync"), tmp_path / "train"
    )
    assert run_cluster(cr).finished
    rows = report(cr.workdir)
    store = SyncStore(cr.store_url)
    names = list(decode(store.get(P.global_key(0)))[0])
    frag = [P.synced_names(names, {"fragments": 2}, r, ROUNDS) for r in range(2)]
    assert frag[0] and frag[1] and not set(frag[0]) & set(frag[1])
    assert [r["synced"] for r in rows] == [len(frag[0]), len(frag[1]), len(frag[0]), "all"]
    lrs = [r["aggregate"]["outer_lr"] for r in rows]
    assert (
        lrs[0] == pytest.approx(0.7) and lrs[-1] == pytest.approx(0.1) and lrs == sorted(lrs)[::-1]
    )
    for r in rows:
        assert r["islands"] == ["mlx", "torch"] and not r["rejected"], r
        # each island loaded exactly the global weights it should: all at round 0, then
        # the fragment the last round synced, byte for byte on both backends
        assert r["digests"] == r["expected_digests"], r["round"]
    assert rows[0]["expected_digests"]["torch"] == rows[0]["global_digest"]
    assert rows[1]["expected_digests"]["torch"] != rows[1]["global_digest"]
    # a fragment round sends its fragment up, the last round all; at a round's start each
    # island reads the change of the fragment the last round synced, not the whole weights
    assert rows[1]["bytes_up"] < 0.8 * rows[3]["bytes_up"]
    whole = len(store.get(P.global_key(1)))
    assert rows[0]["bytes_down"] == 0
    assert all(0 < r["bytes_down"] < 2 * 0.7 * whole for r in rows[1:])
    # each round changes only what it synced
    w = [decode(store.get(P.global_key(r)))[0] for r in range(ROUNDS + 1)]
    for r in range(3):
        moved = {n for n in names if not torch.equal(w[r][n], w[r + 1][n])}
        assert moved and moved <= set(frag[r % 2]), r
    assert all(not torch.equal(w[3][n], w[4][n]) for n in names if n.endswith("weight"))
    final = load_file(str(cr.workdir / "final" / "model.safetensors"))
    assert all(torch.equal(final[n], w[ROUNDS][n]) for n in names)
    losses = [start_loss(cr.workdir)] + [r["heldout_loss"] for r in rows]
    assert losses[-1] < 0.85 * losses[0], losses


def test_overlapped_steps_start_each_round_before_its_weights_come(tmp_path: Path) -> None:
    """sync.overlap_steps: after sending a round's pseudo-gradient each island takes the
    next round's first steps on its own weights, then adds what they changed to the global
    weights when they come; a round's contribution still holds H steps, the last round is
    not overlapped, and the final model is the last global weights."""
    tok = make_tokenizer(tmp_path / "tok")
    run = tiny_run(tok, tmp_path / "train", max_steps=ROUNDS * H)
    islands = {"mlx": ("mlx", 1), "torch": ("torch", 1)}
    sync = {"inner_steps": H, "overlap_steps": 2}
    cr = ClusterRun(
        run, cluster(tmp_path / "sync", islands, **sync), str(tmp_path / "sync"), tmp_path / "train"
    )
    assert run_cluster(cr).finished
    rows = report(cr.workdir)
    assert [r["overlap_steps"] for r in rows] == [{"mlx": 0, "torch": 0}] + [
        {"mlx": 2, "torch": 2}
    ] * (ROUNDS - 1)
    store = SyncStore(cr.store_url)
    for r in rows:
        assert r["islands"] == ["mlx", "torch"] and not r["rejected"], r
        # what each island took of the global weights is exactly the round's, before it
        # added its own steps ahead
        assert (
            r["digests"]
            == r["expected_digests"]
            == {
                "mlx": r["global_digest"],
                "torch": r["global_digest"],
            }
        )
        for name in islands:
            info = json.loads(decode(store.get(P.contribution_key(r["round"], name)))[1]["info"])
            assert info["steps"] == H and info["overlap_steps"] == r["overlap_steps"][name]
    names = list(decode(store.get(P.global_key(0)))[0])
    last = decode(store.get(P.global_key(ROUNDS)))[0]
    final = load_file(str(cr.workdir / "final" / "model.safetensors"))
    assert all(torch.equal(final[n], last[n]) for n in names)
    losses = [start_loss(cr.workdir)] + [r["heldout_loss"] for r in rows]
    assert losses[-1] < 0.85 * losses[0], losses


def test_overlap_must_leave_steps_to_the_round() -> None:
    from pydantic import ValidationError

    from jupiter.config import ClusterConfig

    with pytest.raises(ValidationError, match="overlap_steps 4 must be below sync.inner_steps 4"):
        ClusterConfig.model_validate({"sync": {"inner_steps": 4, "overlap_steps": 4}})
