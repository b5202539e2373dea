"""Fine-tuning HF models through the real loop: LoRA, full, QLoRA on tiny random models;
epoch checkpoints, epoch_info.json, metrics files, auto epochs, fp16, OOM message."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from jupiter.config import LoraConfig, TrainConfig
from jupiter.data.chat import encode_chat, pad_id_for
from jupiter.data.dataset import PackedDataset
from jupiter.errors import JupiterError
from jupiter.models.loading import load_for_inference
from jupiter.train.loop import TrainRun, run_steps, start
from jupiter.train.metrics import read_metrics
from jupiter.train.plan import auto_epochs
from jupiter.train.setup import make_plan
from jupiter.train.trainer import train

QA = [
    ("What does str.split do?", "It splits a string at a separator and returns a list."),
    ("How do I add an item to a list?", "Use list.append to add one item to the end."),
    ("What does dict.get return?", "The value for a key, or a default when it is missing."),
    ("How are exceptions caught?", "With try and except around the code that may raise."),
    ("How do I join paths?", "Call os.path.join('a', 'b') to join path parts."),
    ("What closes a file?", "A with open(path) as f: block closes it when it ends."),
]


def chats(n: int) -> list[list[dict[str, str]]]:
    return [
        [{"role": "user", "content": f"{q} ({i})"}, {"role": "assistant", "content": a}]
        for i, (q, a) in enumerate((QA * (n // len(QA) + 1))[:n])
    ]


def make_run(model_dir: Path, out: Path, n: int = 24, heldout: int = 0, **cfg: object) -> TrainRun:
    tok = AutoTokenizer.from_pretrained(model_dir)
    seqs = [encode_chat(tok, c) for c in chats(n + heldout)]
    data = PackedDataset(seqs[:n], 64, pad_id_for(tok), seed=0)
    held = PackedDataset(seqs[n:], 64, pad_id_for(tok), seed=0) if heldout else None
    base = {
        "max_steps": 3,
        "micro_batch_size": 4,
        "warmup_steps": 1,
        "lr": 1e-2,
        "precision": "fp32",
        "checkpoint_every": 100,
        "checkpoint_every_epoch": False,
        "metrics": [],
        "log_every": 1,
        "gradient_checkpointing": False,
        "lora": LoraConfig(r=8, alpha=16, dropout=0.0),
    }
    return TrainRun(
        data,
        TrainConfig(**{**base, **cfg}),
        out,
        model_dir,
        model_dir=model_dir,
        heldout=held,
        run_id="ft",
        device="cpu",
        progress=False,
    )


def snapshot(model: torch.nn.Module) -> dict[str, tuple[bool, torch.Tensor]]:
    return {n: (p.requires_grad, p.detach().clone()) for n, p in model.named_parameters()}


def probe_logits(model: torch.nn.Module, tok_dir: Path) -> torch.Tensor:
    tok = AutoTokenizer.from_pretrained(tok_dir)
    ids = torch.tensor([encode_chat(tok, chats(1)[0])[0]])
    model.eval()
    with torch.no_grad():
        return model(input_ids=ids).logits


@pytest.mark.parametrize("method", ["lora", "full"])
def test_mistral_fine_tuning_moves_exactly_the_trainable_weights(
    method: str, tiny_model_dirs: dict[str, Path], tmp_path: Path
) -> None:
    base = tiny_model_dirs["mistral"]
    run = make_run(base, tmp_path / "mem", method=method)
    state = start(run)
    before = snapshot(state.model)
    run_steps(run, state, 3)
    after = dict(state.model.named_parameters())
    trainable = [n for n, (grad, _) in before.items() if grad]
    frozen = [n for n, (grad, _) in before.items() if not grad]
    if method == "lora":
        assert trainable and all(".lora_" in n for n in trainable)
        assert len(trainable) == 2 * 7 * 2  # A and B on 7 projections in each of 2 layers
    else:
        assert not frozen
    for n in trainable:
        assert not torch.equal(before[n][1], after[n].detach()), f"{n} did not change"
    for n in frozen:
        assert torch.equal(before[n][1], after[n].detach()), f"{n} changed but is frozen"

    # the same run through train() writes the adapter (LoRA) or a full HF dir
    result = train(make_run(base, tmp_path / "run", method=method))
    final = result.model_dir
    expected = probe_logits(state.model, base)
    if method == "lora":
        from peft import PeftModel

        assert (final / "adapter_config.json").is_file()
        assert (final / "adapter_model.safetensors").is_file()
        assert not (final / "model.safetensors").exists()
        peft_model = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(base), final)
        torch.testing.assert_close(probe_logits(peft_model, base), expected, atol=1e-5, rtol=0)
    else:
        assert (final / "model.safetensors").is_file()
    merged, _ = load_for_inference(final)
    torch.testing.assert_close(probe_logits(merged, base), expected, atol=1e-5, rtol=0)


def test_qlora_trains_adapters_on_a_4bit_base(
    tiny_model_dirs: dict[str, Path], tmp_path: Path
) -> None:
    pytest.importorskip("bitsandbytes")
    run = make_run(tiny_model_dirs["llama"], tmp_path / "q", method="qlora", precision="bf16")
    state = start(run)
    import bitsandbytes as bnb

    quantized = [m for m in state.model.modules() if type(m) is bnb.nn.Linear4bit]
    assert len(quantized) == 2 * 7  # the base projections, each under a LoRA wrapper
    before = snapshot(state.model)
    run_steps(run, state, 2)
    changed = [
        n
        for n, p in state.model.named_parameters()
        if before[n][0] and not torch.equal(before[n][1], p.detach())
    ]
    assert len(changed) == 2 * 7 * 2
    assert all(math.isfinite(x) for x in state.losses)


def test_epoch_checkpoints_info_metrics_and_curve(
    tiny_model_dirs: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "ep"
    run = make_run(
        tiny_model_dirs["qwen2"],
        out,
        heldout=6,
        method="lora",
        max_steps=None,
        epochs=2,
        checkpoint_every_epoch=True,
        eval_every=2,
        keep_checkpoints=1,
        metrics=["tensorboard"],
    )
    result = train(run)
    per_epoch = run.dataset.batches_per_epoch(4)
    assert result.finished and result.steps == 2 * per_epoch == result.max_steps
    info = json.loads((out / "epoch_info.json").read_text())["epochs"]
    assert [e["epoch"] for e in info] == [1, 2]
    assert [e["global_step"] for e in info] == [per_epoch, 2 * per_epoch]
    for e in info:
        assert set(e) == {"epoch", "train_loss", "lr", "timestamp", "checkpoint", "global_step"}
        assert e["train_loss"] > 0 and e["lr"] > 0
    # keep 1 + the best: the last epoch's checkpoint, and the best by held-out loss
    kept = sorted(p.name for p in out.glob("step-*"))
    assert f"step-{2 * per_epoch:06d}" in kept and len(kept) <= 2
    best = result.best_checkpoint
    assert best is not None and best.is_dir()
    # any epoch's checkpoint loads for chat/eval
    model, tok = load_for_inference(out / kept[-1] / "model")
    assert torch.isfinite(probe_logits(model, tiny_model_dirs["qwen2"])).all()
    rows = read_metrics(out / "metrics.jsonl")
    train_rows = [r for r in rows if r["kind"] == "train"]
    held = [r for r in rows if r["kind"] == "heldout"]
    assert [r["step"] for r in train_rows] == list(range(1, result.steps + 1))
    assert {"loss", "ppl", "lr", "grad_norm", "tokens_per_s", "peak_mem_gb"} <= set(train_rows[0])
    assert abs(train_rows[0]["ppl"] - math.exp(train_rows[0]["loss"])) < 1e-6
    assert held and all(r["loss"] > 0 for r in held)
    assert held[-1]["loss"] == pytest.approx(result.heldout_loss)
    assert (out / "learning_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert list((out / "tensorboard").glob("events.out.tfevents.*"))


def test_auto_epochs_table_and_plan(tiny_model_dirs: dict[str, Path], tmp_path: Path) -> None:
    table = {
        1: 5,
        999: 5,
        1_000: 4,
        9_999: 4,
        10_000: 3,
        49_999: 3,
        50_000: 2,
        100_000: 2,
        100_001: 1,
        10**7: 1,
    }
    assert {n: auto_epochs(n) for n in table} == table
    run = make_run(
        tiny_model_dirs["llama"], tmp_path / "p", n=30, max_steps=None, epochs="auto", grad_accum=2
    )
    state = start(run)
    per_epoch = run.dataset.batches_per_epoch(4)
    assert state.plan.max_steps == math.ceil(5 * per_epoch / 2)  # 30 examples: 5 epochs
    plan = make_plan(
        run.config.model_copy(update={"global_batch_size": 16}),
        run.dataset,
        state.model,
        state.dist,
        None,
    )
    assert plan.grad_accum == 4 and plan.global_batch == 16
    with pytest.raises(JupiterError, match="global_batch_size"):
        make_plan(
            run.config.model_copy(update={"global_batch_size": 10}),
            run.dataset,
            state.model,
            state.dist,
            None,
        )


def test_auto_micro_batch_follows_memory(tiny_model_dirs: dict[str, Path], tmp_path: Path) -> None:
    from jupiter.models.memory import estimate_memory

    run = make_run(
        tiny_model_dirs["llama"],
        tmp_path / "m",
        micro_batch_size="auto",
        gradient_checkpointing="auto",
    )
    state = start(run)
    n = sum(p.numel() for p in state.model.parameters())

    def need(batch: int, ckpt: bool) -> float:
        return estimate_memory(
            n,
            n,
            "full",
            micro_batch=batch,
            context_length=64,
            hidden_size=64,
            num_layers=2,
            vocab_size=400,
            grad_ckpt=ckpt,
            precision="fp32",
        ).total_gb

    def plan(memory_gb: float):  # noqa: ANN202
        cfg = run.config.model_copy(update={"memory_gb": memory_gb})
        return make_plan(cfg, run.dataset, state.model, state.dist, None)

    two = plan(need(2, False) / 0.8 * 1.001)  # room for 2 sequences (80% headroom), not 4
    assert (two.micro_batch, two.grad_ckpt) == (2, False)
    assert plan(64.0).micro_batch == 64
    tight = plan((need(1, True) + need(1, False)) / 2 / 0.8)  # only with checkpointing
    assert (tight.micro_batch, tight.grad_ckpt) == (1, True)
    with pytest.raises(JupiterError, match="lora or qlora"):
        plan(need(1, True) / 2)


def test_fp16_uses_dynamic_loss_scaling(tiny_model_dirs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "fp16"
    result = train(
        make_run(tiny_model_dirs["llama"], out, method="full", precision="fp16", lr=1e-3)
    )
    assert all(math.isfinite(x) for x in result.losses)
    state = json.loads((out / "step-000003" / "state.json").read_text())
    assert state["scaler"]["scale"] > 0  # the GradScaler's state travels with the checkpoint


def test_gradient_checkpointing_gives_the_same_losses(
    tiny_model_dirs: dict[str, Path], tmp_path: Path
) -> None:
    plain = train(make_run(tiny_model_dirs["mistral"], tmp_path / "a", method="lora"))
    ckpt = train(
        make_run(
            tiny_model_dirs["mistral"], tmp_path / "b", method="lora", gradient_checkpointing=True
        )
    )
    assert ckpt.losses == pytest.approx(plain.losses, abs=1e-5)


def test_out_of_memory_becomes_an_actionable_error(
    tiny_model_dirs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import jupiter.train.loop as loop

    def oom(*args: object, **kwargs: object) -> torch.Tensor:
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")

    run = make_run(tiny_model_dirs["llama"], tmp_path / "oom", method="lora")
    state = start(run)
    monkeypatch.setattr(loop, "micro_loss", oom)
    with pytest.raises(JupiterError) as err:
        run_steps(run, state, 1)
    msg = str(err.value)
    for fix in ("micro_batch_size", "gradient_checkpointing", "preset", "lora"):
        assert fix in msg
    assert "\n" not in msg
