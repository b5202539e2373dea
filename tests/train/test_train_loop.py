"""The training loop: exact resume, rounds, the final HF dir, accumulation, learning."""

from __future__ import annotations

import json
import logging
import pydoc_data.topics
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from transformers import AutoModelForCausalLM, AutoTokenizer, LlamaConfig

from jupiter.config import TrainConfig
from jupiter.data.chat import IGNORE
from jupiter.data.dataset import PackedDataset, encode_examples
from jupiter.data.tokenizer import train_tokenizer
from jupiter.train.checkpoint import list_checkpoints
from jupiter.train.loop import TrainRun, run_steps, start
from jupiter.train.trainer import train

# a few KB of the language reference: small enough that 8 steps cross an epoch boundary
TEXTS = [pydoc_data.topics.topics[k][:400] for k in sorted(pydoc_data.topics.topics)[:12]]


@pytest.fixture(scope="module")
def tok_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tok")
    train_tokenizer(TEXTS, 512, out)
    return out


def tiny_config(vocab: int) -> LlamaConfig:
    return LlamaConfig(
        vocab_size=vocab,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=64,
        tie_word_embeddings=True,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
    )


def make_run(tok_dir: Path, out: Path, texts: list[str], **cfg: object) -> TrainRun:
    tok = AutoTokenizer.from_pretrained(tok_dir)
    seqs = encode_examples(tok, [], texts, raw_text_fraction=1.0, seed=0)
    dataset = PackedDataset(seqs, context_length=32, pad_id=tok.pad_token_id, seed=0)
    base = {
        "max_steps": 8,
        "micro_batch_size": 8,
        "warmup_steps": 2,
        "precision": "fp32",
        "checkpoint_every": 3,
        "keep_checkpoints": 2,
        "log_every": 2,
        "lr": 3e-3,
        "checkpoint_every_epoch": False,
        "metrics": [],
    }
    config = TrainConfig(**{**base, **cfg})
    return TrainRun(
        dataset,
        config,
        out,
        tok_dir,
        model_config=tiny_config(len(tok)),
        run_id="test",
        device="cpu",
        progress=False,
    )


def batch_loss(model: torch.nn.Module, run: TrainRun) -> torch.Tensor:
    b = run.dataset.batch(0, 0, 4)
    with torch.no_grad():
        logits = model(input_ids=b.input_ids, position_ids=b.position_ids, use_cache=False).logits
    return F.cross_entropy(logits.flatten(0, 1), b.labels.flatten(), ignore_index=IGNORE)


def test_resume_equals_uninterrupted(tmp_path: Path, tok_dir: Path) -> None:
    straight = make_run(tok_dir, tmp_path / "a", TEXTS)
    logged: list[dict[str, float]] = []
    full = train(straight, on_step=logged.append)
    assert full.finished and full.steps == 8 and len(full.losses) == 8
    assert [m["step"] for m in logged] == [2, 4, 6, 8]
    assert set(logged[0]) == {
        "step",
        "loss",
        "ppl",
        "lr",
        "grad_norm",
        "tokens_per_s",
        "peak_mem_gb",
        "epoch",
        "elapsed",
        "start_mem_gb",
    }
    # the resident set when training started is the floor of the run's peak
    assert 0 < logged[0]["start_mem_gb"] <= max(m["peak_mem_gb"] for m in logged)

    broken = make_run(tok_dir, tmp_path / "b", TEXTS)
    part = train(broken, stop_after=4)
    assert not part.finished and part.steps == 4
    assert part.model_dir == tmp_path / "b" / "step-000004" / "model"
    assert not (tmp_path / "b" / "final").exists()
    # a step-5 metric written before the "crash" is dropped on resume, not duplicated
    with (tmp_path / "b" / "metrics.jsonl").open("a") as f:
        f.write(json.dumps({"step": 5, "kind": "train", "loss": 0.0}) + "\n")
    rest = train(make_run(tok_dir, tmp_path / "b", TEXTS))
    assert rest.finished and rest.steps == 8
    assert rest.losses == full.losses  # exact, not approximate
    assert part.losses == full.losses[:4]

    a = AutoModelForCausalLM.from_pretrained(full.model_dir)
    b = AutoModelForCausalLM.from_pretrained(rest.model_dir)
    for (name, pa), pb in zip(a.state_dict().items(), b.state_dict().values(), strict=True):
        assert torch.equal(pa, pb), name
    rows = [
        json.loads(line) for line in (tmp_path / "b" / "metrics.jsonl").read_text().splitlines()
    ]
    assert [r["step"] for r in rows] == [2, 4, 6, 8]
    assert [r["loss"] for r in rows] == [m["loss"] for m in logged]
    assert [p.name for p in list_checkpoints(tmp_path / "b")] == ["step-000006", "step-000008"]
    state = json.loads((tmp_path / "b" / "step-000008" / "state.json").read_text())
    assert state["epoch"] == 1 and state["step"] == 8  # the run crossed an epoch boundary


def test_rounds_match_train_and_final_dir_loads(tmp_path: Path, tok_dir: Path) -> None:
    result = train(make_run(tok_dir, tmp_path / "a", TEXTS))
    final = tmp_path / "a" / "final"
    assert result.model_dir == final
    assert (final / "model.safetensors").is_file() and (final / "tokenizer.json").is_file()

    # the same run driven in rounds of 3 + 5 steps, in memory, as a sync driver would
    run = make_run(tok_dir, tmp_path / "rounds", TEXTS)
    state = start(run)
    run_steps(run, state, 3)
    run_steps(run, state, 5)
    run_steps(run, state, 5)  # past max_steps: nothing more happens
    assert state.step == 8 and state.losses == result.losses

    loaded = AutoModelForCausalLM.from_pretrained(final)
    tok = AutoTokenizer.from_pretrained(final)
    assert tok.eos_token == "<|end|>" and tok.chat_template
    state.model.eval()
    assert torch.equal(batch_loss(loaded, run), batch_loss(state.model, run))


def test_grad_accum_matches_one_big_batch(tmp_path: Path, tok_dir: Path) -> None:
    one = train(make_run(tok_dir, tmp_path / "one", TEXTS, max_steps=2, micro_batch_size=4))
    acc = train(
        make_run(tok_dir, tmp_path / "acc", TEXTS, max_steps=2, micro_batch_size=2, grad_accum=2)
    )
    assert acc.losses == pytest.approx(one.losses, rel=1e-5)
    a = AutoModelForCausalLM.from_pretrained(one.model_dir)
    b = AutoModelForCausalLM.from_pretrained(acc.model_dir)
    for pa, pb in zip(a.parameters(), b.parameters(), strict=True):
        torch.testing.assert_close(pa, pb, rtol=1e-4, atol=1e-5)


def test_loss_goes_down_on_a_repetitive_corpus(tmp_path: Path, tok_dir: Path) -> None:
    texts = ["The for statement iterates over the items of a sequence, in order."] * 60
    run = make_run(
        tok_dir,
        tmp_path / "rep",
        texts,
        max_steps=30,
        warmup_steps=3,
        lr=1e-2,
        checkpoint_every=100,
    )
    result = train(run)
    first, last = result.losses[0], sum(result.losses[-5:]) / 5
    assert first > 5.0  # about ln(vocab) at init
    assert last < 0.3 * first
    assert result.tokens_per_s > 0 and result.wall_time_s > 0


def test_bf16_autocast_runs(tmp_path: Path, tok_dir: Path) -> None:
    result = train(make_run(tok_dir, tmp_path / "bf", TEXTS, max_steps=3, precision="bf16"))
    assert result.finished and all(torch.isfinite(torch.tensor(result.losses)))
    loaded = AutoModelForCausalLM.from_pretrained(result.model_dir)
    assert loaded.dtype == torch.float32  # master weights stay fp32


def test_resume_skips_a_corrupt_newest_checkpoint(tmp_path: Path, tok_dir: Path) -> None:
    full = train(make_run(tok_dir, tmp_path / "a", TEXTS, checkpoint_every=2))
    out = tmp_path / "b"
    train(make_run(tok_dir, out, TEXTS, checkpoint_every=2), stop_after=4)
    (out / "step-000004" / "optimizer.pt").write_bytes(b"torn write")
    with pytest.warns(UserWarning, match="step-000004"):
        rest = train(make_run(tok_dir, out, TEXTS, checkpoint_every=2))
    assert rest.losses == full.losses  # redone from step 2, same result
    assert [p.name for p in list_checkpoints(out)] == ["step-000006", "step-000008"]


def test_rounds_from_given_weights_hand_weights_back(tmp_path: Path, tok_dir: Path) -> None:
    """What a cross-island driver does: load global weights, run k steps, read them back."""
    from jupiter.train.loop import get_weights, set_weights

    a = make_run(tok_dir, tmp_path / "a", TEXTS)
    sa = start(a)
    run_steps(a, sa, 2)
    global_weights = get_weights(sa)
    assert all(w.dtype == torch.float32 and w.device.type == "cpu" for w in global_weights.values())

    b = make_run(tok_dir, tmp_path / "b", TEXTS, seed=99)  # another init
    sb = start(b)
    set_weights(sb, global_weights)
    assert all(torch.equal(global_weights[n], w) for n, w in get_weights(sb).items())
    run_steps(b, sb, 3)
    after = get_weights(sb)
    assert all(not torch.equal(after[n], global_weights[n]) for n in after)
    global_weights["model.layers.0.mlp.up_proj.weight"].zero_()  # a copy, not a view
    assert after["model.layers.0.mlp.up_proj.weight"].abs().sum() > 0
    with pytest.raises(Exception, match="unknown"):
        set_weights(sb, {"nope.weight": torch.zeros(1)})


def test_node_memory_comes_from_cluster_yaml(tmp_path: Path) -> None:
    from jupiter.improve.trainrun import node_memory_gb

    path = tmp_path / "cluster.yaml"
    path.write_text(
        "nodes:\n  - {host: far.example, memory_gb: 80}\n  - {host: localhost, memory_gb: 12.5}\n"
    )
    assert node_memory_gb(str(path)) == 12.5
    path.write_text("nodes:\n  - {host: far.example, memory_gb: 80}\n")
    assert node_memory_gb(str(path)) is None


CHANGED = "with a changed config or dataset"


def test_resume_warns_only_when_the_run_changed(
    tmp_path: Path, tok_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """save_pretrained wrote architectures and dtype into the model
    config after the first checkpoint, so every resume said the config had changed."""
    caplog.set_level(logging.INFO, logger="jupiter.train.loop")
    out = tmp_path / "same"
    train(make_run(tok_dir, out, TEXTS), stop_after=4)  # checkpoints at steps 3 and 4
    caplog.clear()
    rest = train(make_run(tok_dir, out, TEXTS))
    assert rest.finished and rest.steps == 8
    assert any("resumed from" in r.getMessage() for r in caplog.records)
    assert not [r for r in caplog.records if CHANGED in r.getMessage()]

    out = tmp_path / "changed"
    train(make_run(tok_dir, out, TEXTS), stop_after=4)
    caplog.clear()
    train(make_run(tok_dir, out, TEXTS, lr=1e-3))
    [warned] = [r for r in caplog.records if CHANGED in r.getMessage()]
    assert warned.levelno == logging.WARNING and "step-000004" in warned.getMessage()


def test_final_model_is_checksummed_and_damage_found(tmp_path: Path, tok_dir: Path) -> None:
    """final/ carries checksums.json like every checkpoint; flipped
    bytes and a truncation are named, not raised; the finished checkpoint holds the same
    weights."""
    from jupiter.models.folder import sha256_file
    from jupiter.models.integrity import model_problem
    from jupiter.train.checkpoint import finished_checkpoint

    out = tmp_path / "run"
    train(make_run(tok_dir, out, TEXTS))
    final = out / "final"
    sums = json.loads((final / "checksums.json").read_text())
    weights = final / "model.safetensors"
    assert sums["model.safetensors"] == sha256_file(weights) and "config.json" in sums
    assert model_problem(final) is None
    ckpt = finished_checkpoint(out)
    assert ckpt is not None and ckpt.name == "step-000008"
    assert sha256_file(ckpt / "model" / "model.safetensors") == sums["model.safetensors"]

    data = bytearray(weights.read_bytes())
    data[len(data) // 2] ^= 0xFF  # one flipped byte inside the tensors: framing still fine
    weights.write_bytes(bytes(data))
    assert model_problem(final) == f"{final}/model.safetensors does not match its SHA-256"
    weights.write_bytes(bytes(data[: len(data) // 3]))
    assert model_problem(final) == f"{final}/model.safetensors does not match its SHA-256"
    (final / "checksums.json").unlink()  # a model dir without checksums: its framing
    assert "bytes of tensor data where its header says" in (model_problem(final) or "")

    (ckpt / "model" / "model.safetensors").write_bytes(bytes(data))  # damaged too
    with pytest.warns(UserWarning, match="skipping corrupt checkpoint .*step-000008"):
        assert finished_checkpoint(out) is None  # step-000006 does not hold the last step


def test_stale_temp_dirs_are_removed_when_a_run_resumes(tmp_path: Path, tok_dir: Path) -> None:
    """A kill during a checkpoint write leaves .tmp-step-N-PID; the
    next start removes it when PID is gone, keeps it while PID runs, and puts back a
    checkpoint that replace_dir had moved aside."""
    import shutil
    import subprocess
    import sys

    from jupiter.train.checkpoint import finished_checkpoint

    out = tmp_path / "run"
    train(make_run(tok_dir, out, TEXTS), stop_after=4)
    assert finished_checkpoint(out) is None  # step 4 of 8: not the final model
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        torn = out / f".tmp-step-000005-{int(dead.stdout)}"
        busy = out / f".tmp-step-000005-{live.pid}"
        for d in (torn, busy):
            (d / "model").mkdir(parents=True)
            (d / "model" / "model.safetensors").write_bytes(b"half")
        shutil.copytree(out / "step-000003", out / ".old-step-000003")  # step 3 in place
        (out / "step-000004").rename(out / ".old-step-000004")  # killed between renames
        rest = train(make_run(tok_dir, out, TEXTS))
        assert not torn.exists() and busy.is_dir()
        assert not (out / ".old-step-000003").exists() and not (out / ".old-step-000004").exists()
        assert rest.finished and rest.steps == 8
    finally:
        live.kill()
        live.wait()
    names = sorted(p.name for p in out.iterdir() if p.name.startswith("."))
    assert names == [busy.name]
