"""GGUF export: every family Jupiter trains, written with each quantization and read back
by transformers' GGUF loader, gives the source's logits within the quantization's error,
and tokenizes, templates and stops as the source does."""

from __future__ import annotations

from pathlib import Path

import gguf
import numpy as np
import pytest
import torch
from exportkit import greedy, load_hf, logits, reload_gguf
from rich.console import Console

from jupiter.errors import JupiterError
from jupiter.export.gguf import encode, llama3_rope_factors, qtype_for, write_gguf

# max |logit difference| / max |logit| allowed per quantization. f32 is exact (the same
# float32 numbers); f16 keeps 11 significant bits, bf16 8; q8_0 stores each block of 32
# weights as int8 times one f16 scale (error up to scale/2 per weight). Measured on these
# models (relative): f16 <= 9.2e-4, bf16 <= 5.9e-3, q8_0 <= 3.0e-2 (Gemma 3's, the highest).
TOLERANCE = {"f32": 1e-6, "f16": 3e-3, "bf16": 2e-2, "q8_0": 6e-2}
TEXT = "def add(a, b):\n    return a + b  # list.append, dict.get: é ✓"
CHAT = [
    {"role": "system", "content": "Answer briefly."},
    {"role": "user", "content": "What does str.split do?"},
]


def export(src: Path, tmp: Path, quant: str, console: Console) -> tuple[Path, dict]:
    dest = tmp / f"model-{quant}.gguf"
    return dest, write_gguf(src, dest, quant, label=f"tiny-{src.name}", console=console)


@pytest.mark.parametrize("quant", ["f32", "f16", "bf16", "q8_0"])
@pytest.mark.parametrize("family", ["jupiter", "llama", "mistral", "qwen2", "gemma3"])
def test_logits_survive_the_round_trip(
    family: str, quant: str, family_dirs: dict[str, Path], tmp_path: Path, quiet: Console
) -> None:
    src = family_dirs[family]
    dest, info = export(src, tmp_path, quant, quiet)
    model, _ = load_hf(src)
    back, _ = reload_gguf(dest)
    ids = [3, 17, 42, 99, 150, 7, 64, 201, 5, 33]
    a, b = logits(model, ids), logits(back, ids)
    err = float((a - b).abs().max() / a.abs().max())
    assert err <= TOLERANCE[quant], f"{family} {quant}: relative error {err:.2e}"
    if quant in ("f32", "f16"):  # these random models answer with varied tokens
        assert greedy(back, ids) == greedy(model, ids)
    if quant == "f32":
        assert err == 0.0
    kinds = {"f32": "F32", "f16": "F16", "bf16": "BF16", "q8_0": "Q8_0"}
    params = dict(model.named_parameters())  # a tied head is the embedding, listed once
    matrices = sum(1 for p in params.values() if p.dim() == 2)
    if quant == "f32":
        assert info["tensor_types"] == {"F32": len(params)}
    else:  # every matrix in the chosen type, norms (1-D) in F32
        assert info["tensor_types"] == {kinds[quant]: matrices, "F32": len(params) - matrices}


@pytest.mark.parametrize("family", ["jupiter", "llama", "mistral", "qwen2", "gemma3", "gemma3-spm"])
def test_tokenizer_template_and_stops_survive(
    family: str, family_dirs: dict[str, Path], tmp_path: Path, quiet: Console
) -> None:
    from jupiter.data.chat import fit_template
    from jupiter.data.templates import set_chat_template, stop_token_ids

    src = family_dirs[family]
    dest, info = export(src, tmp_path, "f16", quiet)
    _, tok = load_hf(src)
    set_chat_template(tok, "auto", "gemma3_text" if "gemma" in family else family)
    _, back = reload_gguf(dest)
    fitted, _ = fit_template(tok, CHAT)  # Mistral's template takes no system message
    prompt = tok.apply_chat_template(fitted, tokenize=False, add_generation_prompt=True)
    for text in (TEXT, prompt, "  two  spaces\n\nand lines"):
        assert (
            back(text, add_special_tokens=False)["input_ids"]
            == tok(text, add_special_tokens=False)["input_ids"]
        )
        assert back.decode(tok(text, add_special_tokens=False)["input_ids"]) == text
    assert back.chat_template == tok.chat_template
    assert back.eos_token_id == tok.eos_token_id and back.bos_token_id == tok.bos_token_id
    stops = stop_token_ids(tok)
    assert info["stop_ids"] == stops
    reader = gguf.GGUFReader(dest)
    field = reader.fields.get("tokenizer.ggml.eot_token_id")
    if "gemma" in family:  # <end_of_turn> ends a turn, <eos> ends the text
        assert info["stop_tokens"] == ["<eos>", "<end_of_turn>"]
        assert int(field.parts[-1][0]) == tok.convert_tokens_to_ids("<end_of_turn>")
    else:  # the turn ends with eos itself
        assert field is None and len(stops) == 1
    kinds = reader.fields["tokenizer.ggml.token_type"]
    types = [int(kinds.parts[i][0]) for i in kinds.data]
    assert types[tok.eos_token_id] == 3  # CONTROL
    assert len(types) == tok_rows(dest)


def tok_rows(path: Path) -> int:
    reader = gguf.GGUFReader(path)
    embd = next(t for t in reader.tensors if t.name == "token_embd.weight")
    return int(embd.shape[-1])


def test_sentencepiece_vocab_keys(
    family_dirs: dict[str, Path], tmp_path: Path, quiet: Console
) -> None:
    """Gemma-style vocabulary: llama model, byte tokens typed BYTE, scores ordered by merge
    rank, no space prefix, merges written."""
    dest, info = export(family_dirs["gemma3-spm"], tmp_path, "f16", quiet)
    _, tok = load_hf(family_dirs["gemma3-spm"])
    reader = gguf.GGUFReader(dest)

    def values(key: str) -> list:
        f = reader.fields[key]
        return [f.parts[i] for i in f.data]

    assert info["tokenizer"] == "llama" and info["pre_tokenizer"] == "default"
    assert bytes(values("tokenizer.ggml.model")[0]) == b"llama"
    types = [int(v[0]) for v in values("tokenizer.ggml.token_type")]
    scores = [float(v[0]) for v in values("tokenizer.ggml.scores")]
    vocab = tok.get_vocab()
    assert types[vocab["<0x41>"]] == 6 and types[vocab["<start_of_turn>"]] == 3
    assert types[vocab["<unk>"]] in (2, 3)
    merges = [bytes(v).decode() for v in values("tokenizer.ggml.merges")]
    first, second = ("".join(m.split(" ")) for m in merges[:2])
    assert scores[vocab[first]] == 0.0 and scores[vocab[second]] == -1.0
    assert bool(values("tokenizer.ggml.add_space_prefix")[0][0]) is False


def test_llama3_rope_scaling_writes_rope_freqs(tmp_path: Path, quiet: Console) -> None:
    """Llama 3.1's RoPE scaling goes to llama.cpp as per-frequency divisors (rope_freqs):
    transformers' own llama3 frequencies are the plain ones divided by them."""
    from transformers import LlamaConfig, LlamaForCausalLM
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    from tinyhf import tiny_tokenizer

    tok = tiny_tokenizer("llama")
    rope = {
        "rope_type": "llama3",
        "rope_theta": 10000.0,
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 64,
    }
    config = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=1,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        rope_parameters=rope,
    )
    torch.manual_seed(0)
    LlamaForCausalLM(config).save_pretrained(tmp_path / "m")
    tok.save_pretrained(tmp_path / "m")
    dest, info = export(tmp_path / "m", tmp_path, "f16", quiet)
    assert info["rope_freqs"]
    reader = gguf.GGUFReader(dest)
    freqs = next(t for t in reader.tensors if t.name == "rope_freqs.weight")
    factors = np.asarray(freqs.data, dtype=np.float32)
    np.testing.assert_array_equal(factors, llama3_rope_factors(config.to_dict()))
    assert factors[0] == 1.0 and factors[-1] == 8.0 and 1.0 < factors[1] < 8.0  # all three bands
    scaled, _ = ROPE_INIT_FUNCTIONS["llama3"](config, "cpu")
    plain = 1.0 / 10000.0 ** (torch.arange(0, 16, 2, dtype=torch.float64) / 16)
    torch.testing.assert_close(
        scaled.double(), plain / torch.from_numpy(factors).double(), rtol=1e-6, atol=0
    )


def test_quantization_choices_per_tensor() -> None:
    t = gguf.GGMLQuantizationType
    assert qtype_for("blk.0.attn_norm.weight", (64,), "q8_0") == t.F32
    assert qtype_for("blk.0.attn_q_norm.weight", (256,), "bf16") == t.F32
    assert qtype_for("blk.0.attn_q.bias", (64,), "f16") == t.F32
    assert qtype_for("blk.0.ffn_down.weight", (64, 80), "q8_0") == t.F16  # 80 % 32 != 0
    assert qtype_for("blk.0.ffn_down.weight", (64, 96), "q8_0") == t.Q8_0
    with pytest.raises(JupiterError, match="beyond float16's range: export with --quant bf16"):
        encode("model.embed_tokens.weight", np.array([[1.0, 7.0e4]], dtype=np.float32), t.F16)


def test_unsupported_architecture_is_named(tmp_path: Path, quiet: Console) -> None:
    from transformers import GPT2Config, GPT2LMHeadModel

    GPT2LMHeadModel(GPT2Config(n_layer=1, n_embd=32, n_head=2, vocab_size=64)).save_pretrained(
        tmp_path
    )
    with pytest.raises(JupiterError) as err:
        write_gguf(tmp_path, tmp_path / "x.gguf", "f16", label="x", console=quiet)
    msg = str(err.value)
    assert "does not support architecture 'gpt2' (GPT2LMHeadModel)" in msg
    assert "llama" in msg and "qwen2" in msg and "gemma3_text" in msg and "\n" not in msg
    assert not (tmp_path / "x.gguf").exists()


def test_gemma3_llama_cpp_would_run_differently_is_refused(tmp_path: Path, quiet: Console) -> None:
    from tinyhf import save_tiny_base

    src = save_tiny_base("gemma", tmp_path / "g")  # head_dim 16, query_pre_attn_scalar 256
    with pytest.raises(JupiterError, match="query_pre_attn_scalar 256 is not 16"):
        write_gguf(src, tmp_path / "g.gguf", "f16", label="g", console=quiet)
