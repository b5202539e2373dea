"""Memory estimates and the memory-aware defaults (micro-batch, checkpointing)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

from jupiter.errors import JupiterError
from jupiter.models.memory import (
    SIZE_PRESETS,
    GiB,
    MemoryEstimate,
    auto_batch,
    dense_params,
    device_memory_gb,
    estimate_memory,
    oom_message,
    presets_table,
)

P7 = SIZE_PRESETS["7b"]
SHAPE = dict(
    hidden_size=P7.hidden_size, num_layers=P7.num_layers, vocab_size=P7.vocab_size
)  # Mistral-7B


def est7(method: str = "lora", **over: object) -> MemoryEstimate:
    kw: dict = dict(SHAPE, micro_batch=1, context_length=2048, grad_ckpt=False)
    kw.update(over)
    return estimate_memory(P7.n_params, P7.trainable(method), method, **kw)  # type: ignore[arg-type]


def test_presets_have_published_shapes() -> None:
    assert list(SIZE_PRESETS) == ["1b", "7b", "20b", "120b"]
    assert SIZE_PRESETS["1b"].n_params == 1_235_814_400  # Llama-3.2-1B
    assert P7.n_params == 7_241_732_096  # Mistral-7B-v0.1
    assert 19.5e9 < SIZE_PRESETS["20b"].n_params < 20.5e9
    assert 115e9 < SIZE_PRESETS["120b"].n_params < 125e9
    # LoRA r 64 on Mistral-7B's seven projections: 32 × 64 × (4·4096 + 2·5120 + 3·18432).
    assert P7.lora_params == 167_772_160 and P7.method == "lora" and P7.lora_r == 64
    assert (
        dense_params(64, 128, 2, 32, 400, tied=False)
        == 2 * (2 * 64 * 64 + 2 * 64 * 32 + 3 * 64 * 128 + 128) + 2 * 400 * 64 + 64
    )


def test_parts_follow_bytes_per_parameter() -> None:
    full, lora, qlora = est7("full"), est7("lora"), est7("qlora")
    # fp32 master weights + autocast's bf16 copy; bf16 base; NF4 body with fp32 embeddings.
    assert full.weights_gb * GiB == pytest.approx(6 * P7.n_params)
    assert lora.weights_gb * GiB == pytest.approx(2 * P7.n_params)
    embed = 2 * P7.vocab_size * P7.hidden_size  # embedding and head stay fp32 under QLoRA
    assert qlora.weights_gb * GiB == pytest.approx((P7.n_params - embed) * 0.55 + embed * 4)
    assert qlora.weights_gb < lora.weights_gb / 2.5 < full.weights_gb
    assert full.grads_gb * GiB == pytest.approx(4 * P7.n_params)
    assert full.optimizer_gb * GiB == pytest.approx(8 * P7.n_params)
    assert lora.grads_gb * GiB == pytest.approx(4 * P7.lora_params)
    assert lora.total_gb == pytest.approx(
        lora.weights_gb + lora.grads_gb + lora.optimizer_gb + lora.activations_gb
    )
    # fp32 training keeps a 4-byte base and bigger activations.
    fp32 = est7("lora", precision="fp32")
    assert fp32.weights_gb == pytest.approx(2 * lora.weights_gb)
    assert fp32.activations_gb > lora.activations_gb


def test_monotonic_in_micro_batch_and_context() -> None:
    totals = [est7(micro_batch=b).total_gb for b in (1, 2, 4, 8, 16)]
    assert totals == sorted(totals) and len(set(totals)) == 5
    acts = [est7(micro_batch=b).activations_gb for b in (1, 2, 4)]
    assert acts[1] == pytest.approx(2 * acts[0]) and acts[2] == pytest.approx(4 * acts[0])
    assert est7(context_length=4096).total_gb > est7(context_length=2048).total_gb


def test_checkpointing_cuts_activations_only() -> None:
    for method in ("full", "lora", "qlora"):
        plain, ckpt = est7(method), est7(method, grad_ckpt=True)
        assert ckpt.activations_gb < plain.activations_gb / 3
        assert (ckpt.weights_gb, ckpt.grads_gb, ckpt.optimizer_gb) == (
            plain.weights_gb,
            plain.grads_gb,
            plain.optimizer_gb,
        )


def test_shards_split_grads_optimizer_and_full_weights() -> None:
    one, four = est7("full"), est7("full", shards=4)
    assert four.grads_gb == pytest.approx(one.grads_gb / 4)
    assert four.optimizer_gb == pytest.approx(one.optimizer_gb / 4)
    assert four.weights_gb == pytest.approx(one.weights_gb / 4)
    assert four.activations_gb == one.activations_gb
    assert est7("lora", shards=4).weights_gb == est7("lora").weights_gb


def test_7b_lora_in_a_sane_range() -> None:
    # Mistral-7B LoRA at 2048 tokens, batch 1: a 14.5 GB bf16 base, 24-48 GB cards.
    assert 14 < est7("lora", grad_ckpt=True).total_gb < 24
    assert 20 < est7("lora").total_gb < 48
    assert 6 < est7("qlora", grad_ckpt=True).total_gb < 14
    assert est7("full", grad_ckpt=True).total_gb > 100


def test_auto_batch_grows_with_memory() -> None:
    def pick(gb: float, method: str = "lora", **kw: object) -> tuple[int, bool]:
        return auto_batch(
            gb, P7.n_params, P7.trainable(method), method, context_length=2048, **SHAPE, **kw
        )  # type: ignore[arg-type]

    assert pick(24) == (1, True)  # only with checkpointing
    assert pick(80) == (1, False)  # batch 1 fits without: checkpointing stays off
    small, _ = pick(200)
    big, ckpt = pick(2000)
    assert 1 < small < big <= 64 and not ckpt
    # The pick is the largest power of two that fits in 80% of the memory.
    budget = 0.8 * 200
    assert est7(micro_batch=small).total_gb <= budget < est7(micro_batch=2 * small).total_gb
    assert pick(24, grad_ckpt=True)[1] and pick(80, grad_ckpt=True)[0] > 1
    assert pick(24, method="qlora")[0] > pick(24)[0]
    with pytest.raises(JupiterError) as err:
        pick(16, grad_ckpt=False)
    assert "micro-batch 1" in str(err.value)


def test_auto_batch_refuses_what_cannot_fit() -> None:
    with pytest.raises(JupiterError) as err:
        auto_batch(24, P7.n_params, P7.n_params, "full", context_length=2048, **SHAPE)  # type: ignore[arg-type]
    msg = str(err.value)
    assert "7.24B" in msg and "123." in msg and "24.0 GB" in msg
    for fix in ("model.preset", "lora", "qlora", "fsdp"):
        assert fix in msg
    # Sharded over 8 processes, the same full fine-tune fits an 80 GB card.
    mb, ckpt = auto_batch(
        80, P7.n_params, P7.n_params, "full", context_length=2048, shards=8, **SHAPE
    )  # type: ignore[arg-type]
    assert mb >= 1


def test_presets_table() -> None:
    rows = presets_table(context_length=2048, micro_batch=1)
    assert len(rows) == 4 * 3
    assert {(r["size"], r["method"]) for r in rows} == {
        (s, m) for s in SIZE_PRESETS for m in ("full", "lora", "qlora")
    }
    for size in SIZE_PRESETS:
        mine = {r["method"]: r for r in rows if r["size"] == size}
        assert [m for m, r in mine.items() if r["recommended"]] == [SIZE_PRESETS[size].method]
        assert mine["lora"]["gb_ckpt"] < mine["full"]["gb_ckpt"] / 3
        # At 1B with a 128k vocab the fp32 embeddings eat QLoRA's savings; above, it wins.
        if size != "1b":
            assert mine["qlora"]["gb_ckpt"] < mine["lora"]["gb_ckpt"] / 1.8
        assert all(r["gb_ckpt"] < r["gb"] for r in mine.values())
    row = next(r for r in rows if r["size"] == "7b" and r["method"] == "lora")
    assert row["gb_ckpt"] == round(est7("lora", grad_ckpt=True).total_gb, 1)


def test_oom_message_names_every_fix() -> None:
    msg = oom_message("training step 12", est7("full"), 80.0)
    assert "\n" not in msg
    assert msg.startswith(
        f"out of memory during training step 12 (estimated {est7('full').total_gb:.1f} GB of 80.0 GB)"
    )
    for fix in (
        "train.micro_batch_size",
        "train.gradient_checkpointing: true",
        "model.preset",
        "train.method: lora / qlora",
    ):
        assert fix in msg
    assert oom_message("eval", None, None).startswith("out of memory during eval: lower")


def test_device_memory() -> None:
    ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / GiB
    assert device_memory_gb(torch.device("cpu")) == pytest.approx(ram) and ram > 0.5


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="needs Linux /proc")
def test_release_heap_gives_freed_memory_back() -> None:
    import re
    import subprocess
    import sys

    # in a fresh interpreter: 200 MB of 1 kB objects freed stay resident until released
    code = (
        "import re; from pathlib import Path\n"
        "from jupiter.models.memory import release_heap\n"
        "rss = lambda: int(re.search(r'VmRSS:\\s+(\\d+)', Path('/proc/self/status')"
        ".read_text()).group(1)) / 1024\n"
        "blobs = [bytes(1000) + bytes([i % 256]) for i in range(200_000)]\n"
        "full = rss(); keep = blobs[-1]; del blobs\n"
        "freed = rss(); release_heap(); print(full, freed, rss())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    full, freed, released = map(float, re.findall(r"[\d.]+", out.stdout)[-3:])
    assert freed > full - 20  # freed, but still held by the allocator
    assert released < freed - 150  # MB handed back
