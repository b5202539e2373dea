"""A tiny random Llama written as a GGUF file, the way llama.cpp's converter lays one out, so
GGUF import is tested without downloading anything. Import from tests as `from tinygguf import ...`.
"""

from __future__ import annotations

import json
from pathlib import Path

import gguf
import numpy as np
import torch
from transformers import PreTrainedModel, PreTrainedTokenizerFast

from tinyhf import tiny_model, tiny_tokenizer

CONTROL, NORMAL = 3, 1  # llama.cpp's token types


def permute_rope(w: np.ndarray, n_head: int) -> np.ndarray:
    """llama.cpp's row order for q/k of the llama arch: its rope rotates adjacent pairs where
    transformers rotates halves, so its converter interleaves the two halves of each head
    (transformers undoes this when it reads a llama GGUF)."""
    rows = w.shape[0]
    return w.reshape(n_head, 2, rows // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def tensor_names(layers: int) -> dict[str, str]:
    """HF parameter name → GGUF tensor name for the llama arch."""
    names = {
        "model.embed_tokens.weight": "token_embd.weight",
        "model.norm.weight": "output_norm.weight",
        "lm_head.weight": "output.weight",
    }
    per_layer = {
        "input_layernorm": "attn_norm",
        "self_attn.q_proj": "attn_q",
        "self_attn.k_proj": "attn_k",
        "self_attn.v_proj": "attn_v",
        "self_attn.o_proj": "attn_output",
        "post_attention_layernorm": "ffn_norm",
        "mlp.gate_proj": "ffn_gate",
        "mlp.up_proj": "ffn_up",
        "mlp.down_proj": "ffn_down",
    }
    for i in range(layers):
        for hf, gg in per_layer.items():
            names[f"model.layers.{i}.{hf}.weight"] = f"blk.{i}.{gg}.weight"
    return names


def _add_tokenizer(w: gguf.GGUFWriter, tok: PreTrainedTokenizerFast) -> None:
    vocab = tok.get_vocab()
    tokens = [t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])]
    special = set(tok.all_special_tokens)
    merges = json.loads(tok.backend_tokenizer.to_str())["model"]["merges"]
    w.add_tokenizer_model("gpt2")  # byte-level BPE
    w.add_token_list(tokens)
    w.add_token_types([CONTROL if t in special else NORMAL for t in tokens])
    w.add_token_merges([m if isinstance(m, str) else " ".join(m) for m in merges])
    w.add_bos_token_id(tok.bos_token_id)
    w.add_eos_token_id(tok.eos_token_id)
    w.add_pad_token_id(tok.pad_token_id)
    w.add_add_bos_token(False)  # the tiny tokenizer adds none either


def write_gguf(model: PreTrainedModel, tok: PreTrainedTokenizerFast, path: Path) -> Path:
    """`model` (a LlamaForCausalLM) and its byte-level BPE tokenizer as an F32 GGUF file."""
    cfg = model.config
    heads, kv_heads = cfg.num_attention_heads, cfg.num_key_value_heads
    rope = getattr(cfg, "rope_parameters", None) or {}
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_name("tiny-llama")
    w.add_context_length(cfg.max_position_embeddings)
    w.add_embedding_length(cfg.hidden_size)
    w.add_block_count(cfg.num_hidden_layers)
    w.add_feed_forward_length(cfg.intermediate_size)
    w.add_head_count(heads)
    w.add_head_count_kv(kv_heads)
    w.add_rope_dimension_count(cfg.hidden_size // heads)
    w.add_rope_freq_base(float(rope.get("rope_theta", getattr(cfg, "rope_theta", 10000.0))))
    w.add_layer_norm_rms_eps(cfg.rms_norm_eps)
    w.add_vocab_size(cfg.vocab_size)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    _add_tokenizer(w, tok)
    state = {k: v.detach().to(torch.float32).numpy() for k, v in model.state_dict().items()}
    for hf, name in tensor_names(cfg.num_hidden_layers).items():
        weight = state[hf]
        if hf.endswith("q_proj.weight"):
            weight = permute_rope(weight, heads)
        elif hf.endswith("k_proj.weight"):
            weight = permute_rope(weight, kv_heads)
        w.add_tensor(name, np.ascontiguousarray(weight))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def tiny_gguf(path: Path, seed: int = 0) -> tuple[PreTrainedModel, PreTrainedTokenizerFast, Path]:
    """(source model, its tokenizer, the GGUF file written from them at `path`)."""
    tok = tiny_tokenizer("llama")
    model = tiny_model("llama", len(tok), seed).eval()
    return model, tok, write_gguf(model, tok, path)
