"""LoRA across islands: an MLX island and a PyTorch island fine-tune one adapter on a frozen
base together (real processes on 127.0.0.1). Only the adapter crosses the sync store, under
PEFT's saved names on both sides, and the final dir is a PEFT adapter both backends load."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from diloco_setup import cluster, report
from safetensors.torch import load_file
from transformers import AutoTokenizer

from jupiter.cluster import protocol as P
from jupiter.cluster.codec import decode
from jupiter.cluster.launch import ClusterRun, run_cluster, start_loss
from jupiter.cluster.syncstore import SyncStore
from jupiter.config import LoraConfig, TrainConfig
from jupiter.data.chat import encode_chat, pad_id_for
from jupiter.data.dataset import PackedDataset
from jupiter.train.loop import TrainRun
from tinyhf import save_tiny

pytest.importorskip("mlx.core")
pytestmark = [pytest.mark.slow, pytest.mark.mlx]

ROUNDS, H = 3, 3
QA = [
    (f"What does module {m} provide?", f"Module {m} provides {w} for Python programs.")
    for m, w in [
        ("json", "JSON encoding"),
        ("os", "operating system calls"),
        ("re", "regular expressions"),
        ("csv", "CSV reading and writing"),
        ("math", "mathematical functions"),
        ("time", "clocks and sleeping"),
    ]
]


def lora_run(base: Path, out: Path) -> TrainRun:
    tok = AutoTokenizer.from_pretrained(base)
    chats = [
        [{"role": "user", "content": f"{q} ({i})"}, {"role": "assistant", "content": a}]
        for i, (q, a) in enumerate(QA * 8)
    ]
    seqs = [encode_chat(tok, c) for c in chats]
    config = TrainConfig(
        max_steps=ROUNDS * H,
        micro_batch_size=4,
        lr=2e-2,
        min_lr=2e-3,
        warmup_steps=1,
        precision="fp32",
        checkpoint_every=1000,
        eval_every=1000,
        metrics=[],
        gradient_checkpointing=False,
        method="lora",
        lora=LoraConfig(r=4, alpha=8, dropout=0.0),
    )
    return TrainRun(
        PackedDataset(seqs[:40], 64, pad_id_for(tok), seed=0),
        config,
        out,
        base,
        model_dir=base,
        heldout=PackedDataset(seqs[40:], 64, pad_id_for(tok), seed=0),
        progress=False,
    )


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> ClusterRun:
    root = tmp_path_factory.mktemp("lora-islands")
    base = save_tiny("llama", root / "base")
    isl = {"mlx": ("mlx", 1), "torch": ("torch", 1)}
    cr = ClusterRun(
        lora_run(base, root / "train"),
        cluster(root / "sync", isl, inner_steps=H),
        str(root / "sync"),
        root / "train",
    )
    assert run_cluster(cr).finished
    return cr


def test_only_the_adapter_is_synced_and_both_islands_hold_the_same(finished: ClusterRun) -> None:
    rows = report(finished.workdir)
    assert [r["round"] for r in rows] == list(range(ROUNDS))
    for r in rows:
        assert r["islands"] == ["mlx", "torch"] and not r["rejected"]
        assert r["digests"]["mlx"] == r["digests"]["torch"] == r["global_digest"]
    weights, _ = decode(SyncStore(finished.store_url).get(P.global_key(ROUNDS)))
    assert weights and all(".lora_A." in n or ".lora_B." in n for n in weights), list(weights)[:4]
    # 2 layers x 7 linears x (A, B): every target linear's adapter, nothing of the base
    assert len(weights) == 28
    assert any(float(w.abs().max()) > 0 for n, w in weights.items() if ".lora_B." in n)
    losses = [start_loss(finished.workdir)] + [r["heldout_loss"] for r in rows]
    assert losses[-1] < losses[0], losses


def test_the_final_adapter_loads_in_both_backends_alike(finished: ClusterRun) -> None:
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    from jupiter.train.mlx_model import batch_arrays, forward
    from jupiter.train.mlx_setup import build_model_for

    final = finished.workdir / "final"
    cfg = json.loads((final / "adapter_config.json").read_text())
    assert cfg["r"] == 4 and cfg["lora_alpha"] == 8
    saved = load_file(str(final / "adapter_model.safetensors"))
    weights, _ = decode(SyncStore(finished.store_url).get(P.global_key(ROUNDS)))
    assert set(saved) == set(weights)
    for name, w in weights.items():
        assert torch.equal(saved[name], w), name
    base = finished.run.model_dir
    assert base is not None
    model = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(base), final).eval()
    b = finished.run.heldout.batch(0, 0, 2, 0, 1)  # type: ignore[union-attr]
    with torch.no_grad():
        ref = model(input_ids=b.input_ids, position_ids=b.position_ids, use_cache=False).logits
    mlx_model, _ = build_model_for(finished.run.config, None, final)
    ids, _, positions = batch_arrays(b)
    got = np.array(forward(mlx_model, ids, positions, False))
    assert np.abs(got - ref.numpy()).max() < 1e-4
