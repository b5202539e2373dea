"""The MLX loop against the PyTorch one: the same forward on packed rows, the same losses
and weights after training, weights and LoRA adapters that cross between the two, exact
resume, two mlx.launch ring processes equal to one, and LoRA training on MLX."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from safetensors.numpy import load_file
from transformers import AutoModelForCausalLM, AutoTokenizer, LlamaConfig

from jupiter.config import LoraConfig, TrainConfig
from jupiter.data.chat import IGNORE, encode_chat, pad_id_for
from jupiter.data.dataset import Batch, PackedDataset, encode_examples
from jupiter.data.tokenizer import train_tokenizer
from jupiter.errors import JupiterError
from jupiter.train.loop import TrainRun
from tinyhf import CORPUS

pytest.importorskip("mlx.core", reason="needs mlx (pip install mlx-lm; mlx[cpu] on Linux)")
pytest.importorskip("mlx_lm", reason="needs mlx-lm")

from jupiter.train import mlx_loop  # noqa: E402
from jupiter.train.mlx_model import batch_arrays, forward, from_torch, load_hf_dir  # noqa: E402

pytestmark = pytest.mark.mlx

TEXTS = [f"{t} ({i})" for i, t in enumerate(CORPUS)]
QA = [
    ("What does str.split do?", "It splits a string at a separator and returns a list."),
    ("How do I add an item?", "Use list.append."),
    ("What does dict.get return?", "The value for a key, or a default when it is missing."),
    ("How are exceptions caught?", "With try and except."),
]


@pytest.fixture(scope="module")
def tok_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tok")
    train_tokenizer(TEXTS, 400, out)
    return out


def preset_run(tok_dir: Path, out: Path, **cfg: object) -> TrainRun:
    """A from-scratch tiny Llama (tied embeddings) on ~36 short texts packed into 32 tokens."""
    tok = AutoTokenizer.from_pretrained(tok_dir)
    seqs = encode_examples(tok, [], TEXTS, raw_text_fraction=1.0, seed=0)
    dataset = PackedDataset(seqs, context_length=32, pad_id=tok.pad_token_id, seed=0)
    model_config = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
        tie_word_embeddings=True,
        pad_token_id=tok.pad_token_id,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
    )
    base = {
        "max_steps": 6,
        "micro_batch_size": 4,
        "grad_accum": 2,
        "warmup_steps": 2,
        "precision": "fp32",
        "checkpoint_every": 3,
        "checkpoint_every_epoch": False,
        "metrics": [],
        "log_every": 1,
        "lr": 3e-3,
        "gradient_checkpointing": False,
    }
    return TrainRun(
        dataset,
        TrainConfig(**{**base, **cfg}),
        out,
        tok_dir,
        model_config=model_config,
        run_id="mlx",
        device="cpu",
        progress=False,
    )


def chat_run(model_dir: Path, out: Path, n: int = 16, heldout: int = 0, **cfg: object) -> TrainRun:
    tok = AutoTokenizer.from_pretrained(model_dir)
    chats = [
        [{"role": "user", "content": f"{q} ({i})"}, {"role": "assistant", "content": a}]
        for i, (q, a) in enumerate((QA * (n + heldout))[: n + heldout])
    ]
    seqs = [encode_chat(tok, c) for c in chats]
    data = PackedDataset(seqs[:n], 64, pad_id_for(tok), seed=0)
    held = PackedDataset(seqs[n:], 64, pad_id_for(tok), seed=0) if heldout else None
    base = {
        "max_steps": 3,
        "micro_batch_size": 2,
        "warmup_steps": 1,
        "lr": 1e-2,
        "precision": "fp32",
        "checkpoint_every": 100,
        "checkpoint_every_epoch": False,
        "metrics": [],
        "log_every": 1,
        "gradient_checkpointing": False,
        "method": "lora",
        "lora": LoraConfig(r=4, alpha=8, dropout=0.0),
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


def torch_logits(model: torch.nn.Module, b: Batch) -> np.ndarray:
    model.eval()
    with torch.no_grad():  # use_cache=False: with a cache transformers skips the packed mask
        out = model(input_ids=b.input_ids, position_ids=b.position_ids, use_cache=False)
    return out.logits.float().numpy()


def mlx_logits(model: Any, b: Batch, checkpoint: bool = False) -> np.ndarray:
    ids, _, positions = batch_arrays(b)
    return np.array(forward(model, ids, positions, checkpoint))


def token_loss(logits: np.ndarray, labels: torch.Tensor) -> float:
    flat = torch.from_numpy(logits).flatten(0, 1)
    return float(F.cross_entropy(flat, labels.flatten(), ignore_index=IGNORE))


def hf_weights(model_dir: Path) -> dict[str, np.ndarray]:
    return load_file(str(model_dir / "model.safetensors"))


# -------------------------------------------------------------------------- forward
def scratch_model(family: str) -> torch.nn.Module:
    """Variants the saved tiny dirs do not cover: llama3 RoPE scaling, a sliding window."""
    from transformers import LlamaForCausalLM, MistralConfig, MistralForCausalLM

    shape = dict(
        vocab_size=400,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
    )
    torch.manual_seed(0)
    if family == "mistral-window":  # 8 keys back: shorter than the packed examples
        return MistralForCausalLM(MistralConfig(**shape, sliding_window=8))
    rope = {
        "rope_type": "llama3",
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 16,
        "rope_theta": 500000.0,
    }
    return LlamaForCausalLM(LlamaConfig(**shape, rope_parameters=rope))


@pytest.mark.parametrize("family", ["llama", "qwen2", "mistral", "llama3-rope", "mistral-window"])
def test_forward_matches_transformers_on_packed_rows(
    family: str, tiny_model_dirs: dict[str, Path]
) -> None:
    source = family.split("-")[0].replace("llama3", "llama")
    data = chat_run(tiny_model_dirs[source], Path("unused"), n=12).dataset
    if family in tiny_model_dirs:
        ref = AutoModelForCausalLM.from_pretrained(tiny_model_dirs[family])
        model, spec = load_hf_dir(tiny_model_dirs[family])
        assert spec.source_dtype == "float32"
    else:
        ref = scratch_model(family)
        model, _ = from_torch(ref)
    b = data.batch(0, 0, 4)
    starts = (b.position_ids == 0).sum(dim=1)
    assert (starts >= 2).all(), "every row should hold several packed examples"
    expected, got = torch_logits(ref, b), mlx_logits(model, b)
    assert np.abs(got - expected).max() < 1e-4
    assert abs(token_loss(got, b.labels) - token_loss(expected, b.labels)) < 1e-4
    # activation checkpointing recomputes the same numbers
    np.testing.assert_allclose(mlx_logits(model, b, checkpoint=True), got, atol=1e-6)


def test_unsupported_models_and_methods_fail_clearly(
    tiny_model_dirs: dict[str, Path], tmp_path: Path, tok_dir: Path
) -> None:
    from jupiter.train.mlx_model import mlx_args

    with pytest.raises(JupiterError, match="gemma"):
        mlx_args({"model_type": "gemma"})
    with pytest.raises(JupiterError, match="dynamic"):
        mlx_args(
            {"model_type": "llama", "rope_parameters": {"rope_theta": 1e4, "rope_type": "dynamic"}}
        )
    with pytest.raises(JupiterError, match="qlora is not supported"):
        mlx_loop.start(chat_run(tiny_model_dirs["llama"], tmp_path / "q", method="qlora"))
    with pytest.raises(JupiterError, match="needs a base model"):
        mlx_loop.start(preset_run(tok_dir, tmp_path / "p", method="lora"))


# ------------------------------------------------------------------ full training
@pytest.fixture(scope="module")
def full_runs(tok_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The same preset run (6 steps, micro-batch 4 × 2 accumulation) on torch and on MLX."""
    from jupiter.train.trainer import train as torch_train

    root = tmp_path_factory.mktemp("full")
    logs: dict[str, list[dict[str, Any]]] = {"torch": [], "mlx": []}
    t = torch_train(preset_run(tok_dir, root / "torch"), on_step=logs["torch"].append)
    m = mlx_loop.train(preset_run(tok_dir, root / "mlx"), on_step=logs["mlx"].append)
    return {"torch": t, "mlx": m, "logs": logs, "root": root}


def test_full_training_matches_torch(
    full_runs: dict[str, Any], tok_dir: Path, tmp_path: Path
) -> None:
    from jupiter.models.presets import build_model

    run = preset_run(tok_dir, tmp_path / "names")
    names = {n for n, _ in build_model(run.model_config, 0).named_parameters()}
    assert set(mlx_loop.get_weights(mlx_loop.start(run))) == names  # torch's, no lm_head
    t, m = full_runs["torch"], full_runs["mlx"]
    assert m.finished and m.steps == t.steps == 6
    # measured: 1e-6 on the losses, 5e-6 on the weights after 6 AdamW steps
    np.testing.assert_allclose(m.losses, t.losses, rtol=0, atol=1e-5)
    norms = [[r["grad_norm"] for r in full_runs["logs"][k]] for k in ("torch", "mlx")]
    np.testing.assert_allclose(norms[1], norms[0], rtol=1e-4)
    tw, mw = hf_weights(t.model_dir), hf_weights(m.model_dir)
    assert set(mw) == set(tw)  # transformers' names; no lm_head (tied)
    worst = max(float(np.abs(mw[n] - tw[n]).max()) for n in tw)
    assert worst < 5e-5
    assert all(mw[n].dtype == np.float32 for n in mw)


def test_hf_dirs_cross_between_backends(full_runs: dict[str, Any], tok_dir: Path) -> None:
    from jupiter.train.mlx_model import load_hf_dir

    b = preset_run(tok_dir, Path("unused")).dataset.batch(0, 1, 4)
    # MLX's final dir loads in transformers and computes what MLX computes
    mlx_dir = full_runs["mlx"].model_dir
    assert (mlx_dir / "tokenizer.json").is_file() and (mlx_dir / "generation_config.json").is_file()
    assert AutoTokenizer.from_pretrained(mlx_dir).chat_template
    mlx_model, _ = load_hf_dir(mlx_dir)
    loaded = AutoModelForCausalLM.from_pretrained(mlx_dir)
    assert loaded.dtype == torch.float32
    assert np.abs(torch_logits(loaded, b) - mlx_logits(mlx_model, b)).max() < 1e-4
    # and torch's final dir loads in MLX
    torch_dir = full_runs["torch"].model_dir
    from_torch_dir, _ = load_hf_dir(torch_dir)
    expected = torch_logits(AutoModelForCausalLM.from_pretrained(torch_dir), b)
    assert np.abs(mlx_logits(from_torch_dir, b) - expected).max() < 1e-4


def test_checkpoints_and_metrics_are_written(full_runs: dict[str, Any]) -> None:
    out = full_runs["root"] / "mlx"
    ckpts = sorted(p.name for p in out.glob("step-*"))
    assert ckpts == ["step-000003", "step-000006"]
    state = json.loads((out / "step-000006" / "state.json").read_text())
    assert state["backend"] == "mlx" and state["step"] == 6 and state["world"] == 1
    assert state["epoch"] == 1  # 9 micro-batches per epoch, 12 read: the run crossed one
    assert state["losses"] == full_runs["mlx"].losses
    optim = load_file(str(out / "step-000006" / "optimizer.safetensors"))
    names = set(hf_weights(out / "step-000006" / "model"))
    assert {k.split("/", 1)[1] for k in optim} == names
    rows = [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines()]
    train_rows = [r for r in rows if r["kind"] == "train"]
    assert [r["step"] for r in train_rows] == list(range(1, 7))
    assert [r["loss"] for r in train_rows] == full_runs["mlx"].losses
    assert json.loads((out / "epoch_info.json").read_text())["epochs"][0]["global_step"] == 5


def test_resume_is_exact(tok_dir: Path, tmp_path: Path) -> None:
    straight = mlx_loop.train(preset_run(tok_dir, tmp_path / "a"))
    part = mlx_loop.train(preset_run(tok_dir, tmp_path / "b"), stop_after=3)
    assert not part.finished and part.steps == 3
    assert part.model_dir == tmp_path / "b" / "step-000003" / "model"
    rest = mlx_loop.train(preset_run(tok_dir, tmp_path / "b"))
    assert rest.finished and rest.losses == straight.losses  # exact, not approximate
    a, b = hf_weights(straight.model_dir), hf_weights(rest.model_dir)
    assert all(np.array_equal(a[n], b[n]) for n in a)
    oa = load_file(str(tmp_path / "a" / "step-000006" / "optimizer.safetensors"))
    ob = load_file(str(tmp_path / "b" / "step-000006" / "optimizer.safetensors"))
    assert all(np.array_equal(oa[n], ob[n]) for n in oa)


def test_activation_checkpointing_gives_the_same_steps(tok_dir: Path, tmp_path: Path) -> None:
    losses = []
    for ckpt in (False, True):
        run = preset_run(tok_dir, tmp_path / str(ckpt), gradient_checkpointing=ckpt)
        state = mlx_loop.start(run)
        assert state.plan.grad_ckpt == ckpt
        mlx_loop.run_steps(run, state, 2)
        losses.append(state.losses)
    assert losses[0] == losses[1]


def test_divergence_stops_before_the_update(tok_dir: Path, tmp_path: Path) -> None:
    run = preset_run(tok_dir, tmp_path / "nan")
    state = mlx_loop.start(run)
    weights = mlx_loop.get_weights(state)
    weights["model.norm.weight"] = np.full_like(weights["model.norm.weight"], np.nan)
    mlx_loop.set_weights(state, weights)
    with pytest.raises(JupiterError, match="training diverged at step 1 .*lower train.lr"):
        mlx_loop.run_steps(run, state, 1)
    assert state.step == 0 and state.moments == {}


# -------------------------------------------------------------------- data parallel
def test_two_ring_processes_match_one(
    full_runs: dict[str, Any], tok_dir: Path, tmp_path: Path
) -> None:
    """mlx.launch --backend ring -n 2 on loopback, 2 ranks × micro-batch 2: the single
    process's global batch of 4 × 2 accumulation."""
    run = preset_run(tok_dir, tmp_path / "dp", micro_batch_size=2)
    result = mlx_loop.launch_mlx(run, nproc=2)
    single = full_runs["mlx"]
    assert result.finished and result.steps == 6
    np.testing.assert_allclose(result.losses, single.losses, rtol=0, atol=1e-5)
    assert (tmp_path / "dp" / "launch" / "result.json").is_file()
    assert not list((tmp_path / "dp" / "launch").glob("error-rank*.txt"))
    assert result.model_dir == tmp_path / "dp" / "final"
    a, b = hf_weights(result.model_dir), hf_weights(single.model_dir)
    assert max(float(np.abs(a[n] - b[n]).max()) for n in a) < 1e-5
    state = json.loads((tmp_path / "dp" / "step-000006" / "state.json").read_text())
    assert state["world"] == 2
    rngs = json.loads((tmp_path / "dp" / "step-000006" / "rng.json").read_text())["ranks"]
    assert len(rngs) == 2 and rngs[0]["mlx"] != rngs[1]["mlx"]  # seeded seed + rank


# ----------------------------------------------------------------------------- LoRA
def test_lora_trains_only_the_adapter_and_loads_in_torch(
    tiny_model_dirs: dict[str, Path], tmp_path: Path
) -> None:
    from mlx.utils import tree_flatten

    from jupiter.models.loading import load_adapter_weights, load_for_inference, load_for_training
    from jupiter.train.mlx_checkpoint import save_final

    base = tiny_model_dirs["llama"]
    run = chat_run(
        base, tmp_path / "lora", max_steps=10, lr=3e-2, lora=LoraConfig(r=4, alpha=8, dropout=0.1)
    )
    state = mlx_loop.start(run)
    before = {n: np.array(w) for n, w in tree_flatten(state.model.parameters())}
    adapter0 = mlx_loop.get_weights(state)
    assert len(adapter0) == 2 * 7 * 2  # A and B on 7 projections in each of 2 layers
    assert all(n.startswith("base_model.model.model.layers.") for n in adapter0)
    layer0 = "base_model.model.model.layers.0"
    assert adapter0[f"{layer0}.self_attn.q_proj.lora_A.weight"].shape == (4, 64)  # (r, in)
    assert adapter0[f"{layer0}.mlp.down_proj.lora_B.weight"].shape == (64, 4)  # (out, r)
    mlx_loop.run_steps(run, state, 10)
    losses = state.losses
    assert np.mean(losses[-3:]) < losses[0] - 0.2  # a random base: LoRA moves it only so far
    after = dict(tree_flatten(state.model.parameters()))
    adapter1 = mlx_loop.get_weights(state)
    for n, w in before.items():
        changed = not np.array_equal(w, np.array(after[n]))
        assert changed == (".lora_" in n), n
    assert all(not np.array_equal(adapter0[n], adapter1[n]) for n in adapter0)

    # the adapter dir: read by PEFT (merged by jupiter's loader) and by the resume path
    final = tmp_path / "lora" / "final"
    save_final(run, state, final)
    assert (final / "adapter_config.json").is_file() and not (final / "model.safetensors").exists()
    b = run.dataset.batch(0, 0, 2)
    state.model.eval()
    expected = mlx_logits(state.model, b)
    merged, _ = load_for_inference(final)
    assert np.abs(torch_logits(merged, b) - expected).max() < 1e-4
    peft_model = load_for_training(base, "lora", run.config.lora, device=torch.device("cpu"))
    load_adapter_weights(peft_model, final)
    assert np.abs(torch_logits(peft_model, b) - expected).max() < 1e-4


def test_torch_adapter_continues_on_mlx(tiny_model_dirs: dict[str, Path], tmp_path: Path) -> None:
    from safetensors.torch import load_file as torch_load

    from jupiter.models.loading import load_for_training
    from jupiter.train.mlx_setup import build_model_for

    base = tiny_model_dirs["qwen2"]
    lora = LoraConfig(r=4, alpha=8, dropout=0.0)
    peft_model = load_for_training(base, "lora", lora, device=torch.device("cpu"))
    torch.manual_seed(1)
    with torch.no_grad():
        for n, p in peft_model.named_parameters():
            if "lora_B" in n:  # B starts at zero: give the adapter something to say
                p.normal_(std=0.05)
    adapter = tmp_path / "torch-adapter"
    peft_model.save_pretrained(adapter)
    run = chat_run(base, tmp_path / "cont", lora=lora)
    model, spec = build_model_for(run.config, None, adapter)
    assert spec.source_dir == base.resolve()
    b = run.dataset.batch(0, 0, 2)
    expected = torch_logits(peft_model, b)
    assert np.abs(mlx_logits(model, b) - expected).max() < 1e-4
    state = mlx_loop.start(run)
    weights = mlx_loop.get_weights(state)
    saved = torch_load(adapter / "adapter_model.safetensors")
    assert set(saved) == set(weights)  # PEFT's saved names, both ways
    mlx_loop.set_weights(state, {n: t.numpy() for n, t in saved.items()})
    assert all(np.array_equal(w, saved[n].numpy()) for n, w in mlx_loop.get_weights(state).items())
    with pytest.raises(JupiterError, match="unknown"):
        mlx_loop.set_weights(state, {"nope.weight": np.zeros(1, np.float32)})


def test_lora_resume_with_dropout_is_exact(
    tiny_model_dirs: dict[str, Path], tmp_path: Path
) -> None:
    """Dropout draws from mx.random: the resumed run continues its key stream exactly."""
    cfg = {
        "max_steps": 4,
        "checkpoint_every": 2,
        "eval_every": 2,
        "heldout": 4,
        "lora": LoraConfig(r=4, alpha=8, dropout=0.2),
    }
    base = tiny_model_dirs["mistral"]
    straight = mlx_loop.train(chat_run(base, tmp_path / "a", **cfg))
    mlx_loop.train(chat_run(base, tmp_path / "b", **cfg), stop_after=2)
    rest = mlx_loop.train(chat_run(base, tmp_path / "b", **cfg))
    assert rest.losses == straight.losses
    assert rest.heldout_loss == straight.heldout_loss and rest.heldout_loss is not None
    rows = [json.loads(x) for x in (tmp_path / "b" / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows if r["kind"] == "heldout"] == [2, 4]
    a = load_file(str(straight.model_dir / "adapter_model.safetensors"))
    b = load_file(str(rest.model_dir / "adapter_model.safetensors"))
    assert all(np.array_equal(a[n], b[n]) for n in a)


def test_lora_steps_match_torch_from_the_same_adapter(
    tiny_model_dirs: dict[str, Path], tmp_path: Path
) -> None:
    """torch's LoRA init copied in: the same losses step for step (scale, decay, AdamW)."""
    from jupiter.train import loop

    run = chat_run(tiny_model_dirs["qwen2"], tmp_path / "p", heldout=6, max_steps=4)
    ts = loop.start(run)
    ms = mlx_loop.start(run)
    start = {n.replace(".default.", "."): w.numpy() for n, w in loop.get_weights(ts).items()}
    mlx_loop.set_weights(ms, start)
    loop.run_steps(run, ts, 4)
    mlx_loop.run_steps(run, ms, 4)
    np.testing.assert_allclose(ms.losses, ts.losses, rtol=0, atol=1e-5)
    tw = {n.replace(".default.", "."): w.numpy() for n, w in loop.get_weights(ts).items()}
    mw = mlx_loop.get_weights(ms)
    assert max(float(np.abs(mw[n] - tw[n]).max()) for n in tw) < 1e-5
    held = mlx_loop.heldout_loss(run, ms)
    assert held is not None and abs(held - (loop.heldout_loss(run, ts) or 0.0)) < 1e-5


def test_lora_fa_starts_alike_in_both_engines_and_trains_b_only(
    tiny_model_dirs: dict[str, Path], tmp_path: Path
) -> None:
    """train.lora.freeze_a: torch and MLX draw the same A from the seed (nothing copied), train
    B alone to the same losses, and A is where it started; a seed changes it."""
    from jupiter.models.loading import load_for_training
    from jupiter.train import loop
    from jupiter.train.mlx_model import adapter_weights

    fa = LoraConfig(r=4, alpha=8, dropout=0.0, freeze_a=True)
    run = chat_run(tiny_model_dirs["qwen2"], tmp_path / "fa", max_steps=4, lora=fa)
    ts, ms = loop.start(run), mlx_loop.start(run)
    a0 = {
        n.replace(".default.", "."): p.detach().numpy().copy()
        for n, p in ts.model.named_parameters()
        if ".lora_A." in n
    }
    assert len(a0) == 2 * 7 and all(
        not p.requires_grad for n, p in ts.model.named_parameters() if ".lora_A." in n
    )
    tw, mw = loop.get_weights(ts), mlx_loop.get_weights(ms)
    assert len(tw) == len(mw) == 2 * 7 and all(".lora_B." in n for n in mw)  # B alone syncs
    mlx_a = {n: w for n, w in adapter_weights(ms.model).items() if ".lora_A." in n}
    assert set(mlx_a) == set(a0)
    assert all(np.array_equal(mlx_a[n], a0[n]) for n in a0)  # bit for bit, from the seed
    loop.run_steps(run, ts, 4)
    mlx_loop.run_steps(run, ms, 4)
    np.testing.assert_allclose(ms.losses, ts.losses, rtol=0, atol=1e-5)
    assert ts.losses[-1] < ts.losses[0]
    after = {
        n.replace(".default.", "."): p.detach().numpy() for n, p in ts.model.named_parameters()
    }
    assert all(np.array_equal(after[n], a0[n]) for n in a0)  # A did not move
    tb = {n.replace(".default.", "."): w.numpy() for n, w in loop.get_weights(ts).items()}
    assert all(float(np.abs(w).max()) > 0 for w in tb.values())  # B did (it starts at 0)
    mb = mlx_loop.get_weights(ms)
    # B starts at 0, so Adam's first steps are about g / |g|: where an entry's gradient is
    # ~0 the engines' last-bit differences are magnified; 0.5% of B's largest entry
    top = max(float(np.abs(w).max()) for w in tb.values())
    worst = max(float(np.abs(mb[n] - tb[n]).max()) for n in tb)
    assert worst < 5e-3 * top, (worst, top)
    other = load_for_training(
        tiny_model_dirs["qwen2"], "lora", fa, device=torch.device("cpu"), seed=1
    )
    q = next(n for n in a0 if "q_proj" in n)
    a1 = dict(other.named_parameters())[q.replace(".lora_A.", ".lora_A.default.")]
    assert not np.array_equal(a1.detach().numpy(), a0[q])
    bound = 1 / np.sqrt(a0[q].shape[1])  # PEFT's kaiming_uniform(a=sqrt(5)) bound
    assert float(np.abs(a0[q]).max()) <= bound and float(np.abs(a0[q]).max()) > 0.9 * bound


# -------------------------------------------------------------------------- compile
def two_rounds(run: TrainRun) -> dict[str, Any]:
    """2 steps, set_weights (half the initial weights, as the cross-island driver sets new
    ones between rounds), 2 more: the losses, norms, weights after each round, moments."""
    state = mlx_loop.start(run)
    norms: list[float] = []
    first = mlx_loop.get_weights(state)
    mlx_loop.run_steps(run, state, 2, lambda r: norms.append(r["grad_norm"]))
    mid = mlx_loop.get_weights(state)
    mlx_loop.set_weights(state, {n: w * 0.5 for n, w in first.items()})
    mlx_loop.run_steps(run, state, 2, lambda r: norms.append(r["grad_norm"]))
    assert state.fns is not None
    moments = {
        f"{kind}/{p}": np.array(mv[i])
        for p, mv in state.moments.items()
        for i, kind in enumerate(("exp_avg", "exp_avg_sq"))
    }
    end = mlx_loop.get_weights(state)
    return {
        "losses": state.losses,
        "norms": norms,
        "mid": mid,
        "end": end,
        "moments": moments,
        "compiled": state.fns.update is not mlx_loop._clip_adamw,
    }


@pytest.mark.parametrize("method", ["full", "lora"])
def test_compiled_steps_equal_eager_ones(
    method: str,
    tok_dir: Path,
    tiny_model_dirs: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """mx.compile changes no bit of the training, 2 micro-batches accumulated a step, and
    the compiled step sees weights set between rounds."""
    got = {}
    for mode in ("0", "1"):  # JUPITER_MLX_COMPILE: eager, then compiled
        monkeypatch.setenv("JUPITER_MLX_COMPILE", mode)
        if method == "full":  # micro-batch 4 × 2 accumulation
            run = preset_run(tok_dir, tmp_path / mode)
        else:  # dropout draws from mx.random: the RNG key goes through the compiled step
            lora = LoraConfig(r=4, alpha=8, dropout=0.1)
            run = chat_run(
                tiny_model_dirs["llama"], tmp_path / mode, max_steps=4, grad_accum=2, lora=lora
            )
        assert run.config.grad_accum == 2
        got[mode] = two_rounds(run)
    eager, compiled = got["0"], got["1"]
    assert compiled["compiled"] and not eager["compiled"]
    print(f"eager losses    {eager['losses']}\ncompiled losses {compiled['losses']}")
    assert compiled["losses"] == eager["losses"]  # exact
    assert compiled["norms"] == eager["norms"]
    for key in ("mid", "end", "moments"):
        assert compiled[key].keys() == eager[key].keys()
        assert all(np.array_equal(compiled[key][n], w) for n, w in eager[key].items()), key


def test_both_loops_take_a_drivers_lr_schedule(tok_dir: Path, tmp_path: Path) -> None:
    """lr_fn (the cross-island driver's round schedule) replaces lr_at in both loops: an lr
    of 0 leaves every weight where it was (decoupled decay scales by 1 - lr x decay)."""
    from jupiter.train import loop

    seen: list[int] = []

    def frozen(step: int) -> float:
        seen.append(step)
        return 0.0

    for name, engine in (("mlx", mlx_loop), ("torch", loop)):
        run = preset_run(tok_dir, tmp_path / name)
        state = engine.start(run)
        before = {n: np.array(w) for n, w in engine.get_weights(state).items()}
        state.lr_fn = frozen
        engine.run_steps(run, state, 2)
        after = engine.get_weights(state)
        assert all(np.array_equal(np.array(after[n]), w) for n, w in before.items()), name
        assert state.step == 2 and state.lr_fn is frozen
    assert seen == [0, 1, 0, 1]


def test_training_shows_a_progress_bar_on_a_terminal(
    tok_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a terminal the MLX loop draws the same rich bar as the torch loop: steps
    done/total, loss, tokens/s and the time left; off a terminal, nothing."""
    import dataclasses
    import io

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for tty, name in ((True, "tty"), (False, "pipe")):
        err = Terminal() if tty else io.StringIO()
        monkeypatch.setattr(sys, "stderr", err)
        run = dataclasses.replace(preset_run(tok_dir, tmp_path / name), progress=True)
        assert mlx_loop.train(run).steps == 6
        out = err.getvalue()
        if tty:
            assert "train" in out and "6/6" in out and "tok/s" in out and "loss " in out, out
        else:
            assert "6/6" not in out


# ------------------------------------------------------------------------- Gemma 3
@pytest.fixture(scope="module")
def gemma_dir(tiny_model_dirs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random Gemma 3 text model (tied embeddings) with the tiny Llama's tokenizer:
    sliding layers 8 keys back (the packed chats are 20-40 tokens) around a global one with
    a linearly scaled RoPE on another base, query_pre_attn_scalar != head_dim, a logit
    soft-cap the logits reach, and norm weights away from 0 so that (1 + w) shows."""
    from transformers import Gemma3ForCausalLM, Gemma3TextConfig

    out = tmp_path_factory.mktemp("gemma3")
    tok = AutoTokenizer.from_pretrained(tiny_model_dirs["llama"])
    config = Gemma3TextConfig(
        vocab_size=len(tok),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=3,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
        query_pre_attn_scalar=24,
        sliding_window=8,
        layer_types=["sliding_attention", "full_attention", "sliding_attention"],
        rope_parameters={
            "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
            "full_attention": {"rope_type": "linear", "factor": 4.0, "rope_theta": 1e6},
        },
        final_logit_softcapping=4.0,
        initializer_range=0.1,
        pad_token_id=tok.pad_token_id,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
    )
    torch.manual_seed(0)
    model = Gemma3ForCausalLM(config)
    with torch.no_grad():
        for n, p in model.named_parameters():
            if "norm" in n:
                p.normal_(std=0.3)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


def test_gemma3_forward_matches_transformers(
    gemma_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jupiter.train import mlx_model

    ref = AutoModelForCausalLM.from_pretrained(gemma_dir)
    model, spec = load_hf_dir(gemma_dir)
    assert spec.source_dtype == "float32" and "lm_head" not in model  # tied, as in torch
    assert mlx_model.layer_windows(model) == [8, None, 8]
    assert set(mlx_model.flat(model.parameters())) == {n for n, _ in ref.named_parameters()}
    b = chat_run(gemma_dir, Path("unused"), n=12).dataset.batch(0, 0, 4)
    assert ((b.position_ids == 0).sum(dim=1) >= 2).all(), "several packed examples a row"
    assert int(b.position_ids.max()) >= 16, "examples longer than the sliding window"
    plain = Batch(b.input_ids, b.labels, torch.arange(b.input_ids.shape[1]).expand_as(b.input_ids))
    worst, seen = {}, {}
    for name, batch in (("packed", b), ("plain", plain)):
        expected, got = torch_logits(ref, batch), mlx_logits(model, batch)
        seen[name] = expected
        worst[name] = float(np.abs(got - expected).max())
        assert worst[name] < 1e-4, (name, worst)
        assert 2.0 < np.abs(expected).max() < 4.0  # the soft-cap is in play
        loss = token_loss(got, batch.labels)
        assert abs(loss - token_loss(expected, batch.labels)) < 1e-4
        np.testing.assert_allclose(mlx_logits(model, batch, checkpoint=True), got, atol=1e-6)
    print(f"gemma3 max |logit difference| torch vs mlx: {worst}")
    assert np.abs(seen["packed"] - seen["plain"]).max() > 1e-2  # two different computations
    # the sliding window is what makes them agree: full attention everywhere does not
    monkeypatch.setattr(mlx_model, "layer_windows", lambda m: [None] * 3)
    assert np.abs(mlx_logits(model, b) - torch_logits(ref, b)).max() > 1e-2


def test_gemma3_adapters_cross_between_backends(gemma_dir: Path, tmp_path: Path) -> None:
    """A PEFT adapter on Gemma computes in MLX what it computes in torch, by PEFT's saved
    names; an adapter trained in MLX loads in torch (merged, and into PEFT) likewise."""
    from safetensors.torch import load_file as torch_load

    from jupiter.models.loading import load_adapter_weights, load_for_inference, load_for_training
    from jupiter.train.mlx_checkpoint import save_final
    from jupiter.train.mlx_setup import build_model_for

    lora = LoraConfig(r=4, alpha=8, dropout=0.0)
    peft_model = load_for_training(gemma_dir, "lora", lora, device=torch.device("cpu"))
    torch.manual_seed(1)
    with torch.no_grad():
        for n, p in peft_model.named_parameters():
            if "lora_B" in n:
                p.normal_(std=0.05)
    adapter = tmp_path / "torch-adapter"
    peft_model.save_pretrained(adapter)
    run = chat_run(gemma_dir, tmp_path / "ft", lora=lora, max_steps=2)
    model, _ = build_model_for(run.config, None, adapter)
    b = run.dataset.batch(0, 0, 2)
    assert np.abs(mlx_logits(model, b) - torch_logits(peft_model, b)).max() < 1e-4
    state = mlx_loop.start(run)
    weights = mlx_loop.get_weights(state)
    saved = torch_load(adapter / "adapter_model.safetensors")
    assert set(saved) == set(weights) and len(weights) == 2 * 7 * 3  # A, B; 7 linears; 3 layers
    layer0 = "base_model.model.model.layers.0"
    assert weights[f"{layer0}.self_attn.q_proj.lora_A.weight"].shape == (4, 64)
    assert weights[f"{layer0}.mlp.down_proj.lora_B.weight"].shape == (64, 4)

    mlx_loop.run_steps(run, state, 2)  # MLX-trained: B is no longer zero
    assert all(np.abs(w).max() > 0 for n, w in mlx_loop.get_weights(state).items())
    final = tmp_path / "ft" / "final"
    save_final(run, state, final)
    expected = mlx_logits(state.model, b)
    merged, _ = load_for_inference(final)
    assert np.abs(torch_logits(merged, b) - expected).max() < 1e-4
    fresh = load_for_training(gemma_dir, "lora", lora, device=torch.device("cpu"))
    load_adapter_weights(fresh, final)
    assert np.abs(torch_logits(fresh, b) - expected).max() < 1e-4


@pytest.mark.parametrize("method", ["lora", "full"])
def test_gemma3_steps_match_torch(method: str, gemma_dir: Path, tmp_path: Path) -> None:
    """The same start, the same steps: losses and weights as torch's (gradients through
    every Gemma piece; full fine-tuning trains the tied embedding once, by torch's names)."""
    from jupiter.train import loop

    run = chat_run(gemma_dir, tmp_path / "p", heldout=6, max_steps=3, method=method, lr=3e-3)
    ts, ms = loop.start(run), mlx_loop.start(run)

    def torch_weights() -> dict[str, np.ndarray]:
        return {n.replace(".default.", "."): w.numpy() for n, w in loop.get_weights(ts).items()}

    if method == "lora":  # torch's A init copied in
        mlx_loop.set_weights(ms, torch_weights())
    assert set(mlx_loop.get_weights(ms)) == set(torch_weights())
    loop.run_steps(run, ts, 3)
    mlx_loop.run_steps(run, ms, 3)
    np.testing.assert_allclose(ms.losses, ts.losses, rtol=0, atol=1e-5)
    tw, mw = torch_weights(), mlx_loop.get_weights(ms)
    diffs = np.concatenate([np.abs(mw[n] - tw[n]).ravel() for n in tw])
    # AdamW's first step moves a weight by ~lr·g/(|g| + 1e-8): where g is fp32 noise (1e-10
    # in torch, 8e-8 in MLX, of gradients up to 2; measured: 2 of 137k weights in full) the
    # backends step differently, by up to one step's reach, lr (measured: lr/30 on one host,
    # lr/27 on another); every other weight agrees to 1e-5
    assert (diffs > 1e-5).sum() <= 4 and diffs.max() < run.config.lr
    held = mlx_loop.heldout_loss(run, ms)
    assert held is not None and abs(held - (loop.heldout_loss(run, ts) or 0.0)) < 1e-5


def test_gemma3_configs_old_and_new_style() -> None:
    """An older config.json (RoPE bases as rope_theta / rope_local_base_freq, the layers by
    sliding_window_pattern, transformers' defaults left out) reads as transformers reads it;
    what the MLX forward does not compute is refused by name."""
    from jupiter.train.mlx_model import mlx_args

    old = {
        "model_type": "gemma3_text",
        "num_hidden_layers": 7,
        "rope_theta": 1e6,
        "rope_local_base_freq": 1e4,
        "rope_scaling": {"rope_type": "linear", "factor": 8.0},
        "sliding_window_pattern": 6,
    }
    args = mlx_args(old)
    assert args["layer_types"] == ["sliding_attention"] * 5 + [
        "full_attention",
        "sliding_attention",
    ]
    assert args["rope_parameters"] == {
        "sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
        "full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1e6},
    }
    # transformers' defaults, not mlx-lm's (whose head count, hidden size, vocab differ)
    assert (args["head_dim"], args["num_attention_heads"], args["hidden_size"]) == (256, 8, 2304)
    assert args["tie_word_embeddings"] and args["query_pre_attn_scalar"] == 256
    for key, value in (
        ("attn_logit_softcapping", 50.0),
        ("use_bidirectional_attention", True),
        ("hidden_activation", "silu"),
    ):
        with pytest.raises(JupiterError, match=key):
            mlx_args({"model_type": "gemma3_text", key: value})
    yarn = {"rope_type": "yarn", "factor": 4.0, "rope_theta": 1e6}
    with pytest.raises(JupiterError, match=r"'yarn' \(full_attention\)"):
        mlx_args({"model_type": "gemma3_text", "rope_parameters": {"full_attention": yarn}})
