"""The training loop: exact resume, rounds, the final HF dir, accumulation, learning."""

from __future__ import annotations

import json
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
        "step", "loss", "ppl", "lr", "grad_norm", "tokens_per_s", "peak_mem_gb", "epoch",
        "elapsed",
    }  # fmt: skip

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
    from jupiter.improve.training import node_memory_gb

    path = tmp_path / "cluster.yaml"
    path.write_text("nodes:\n  - {host: far.example, memory_gb: 80}\n"
                    "  - {host: localhost, memory_gb: 12.5}\n")  # fmt: skip
    assert node_memory_gb(str(path)) == 12.5
    path.write_text("nodes:\n  - {host: far.example, memory_gb: 80}\n")
    assert node_memory_gb(str(path)) is None
