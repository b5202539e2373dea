"""Llama-architecture presets for models trained from scratch, as plain HF `LlamaConfig`s.

Every preset is a standard `LlamaForCausalLM`, so the weights Jupiter writes load in
transformers, vLLM, mlx-lm and the llama.cpp converters without a custom class.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from transformers import LlamaConfig, LlamaForCausalLM

from jupiter.errors import JupiterError


class Shape(NamedTuple):
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    intermediate: int


# name -> (hidden, layers, heads, kv_heads, intermediate). Head dim is 32 for the two
# CPU-sized presets and 64 above. The large ones follow published shapes:
# "125m" is GPT-2 small's width/depth with Llama's 8/3 SwiGLU ratio (768 * 8/3 = 2048);
# "1b" is Llama-3.2-1B (2048 hidden, 16 layers, 32 heads, 8 KV heads, 8192 MLP).
PRESETS: dict[str, Shape] = {
    "tiny": Shape(128, 4, 4, 4, 512),
    "small": Shape(256, 6, 8, 8, 1024),
    "125m": Shape(768, 12, 12, 12, 2048),
    "500m": Shape(1280, 24, 20, 4, 3840),
    "1b": Shape(2048, 16, 32, 8, 8192),
}

# RoPE base: 10k (the original RoFormer/Llama-2 value) suits the short contexts Jupiter
# trains from scratch; Llama 3 raised it to 500k only for 8k+ contexts.
ROPE_THETA = 10_000.0


class ModelConfig:
    """Builds the HF config for a preset; holds no state of its own."""

    @classmethod
    def from_preset(
        cls,
        name: str,
        vocab_size: int,
        context_length: int,
        pad_token_id: int = 0,
        bos_token_id: int = 1,
        eos_token_id: int = 2,
    ) -> LlamaConfig:
        """The `LlamaConfig` for preset `name` with the tokenizer's vocab and special ids."""
        if name not in PRESETS:
            raise JupiterError(f"unknown model preset '{name}': choose one of {', '.join(PRESETS)}")
        s = PRESETS[name]
        config = LlamaConfig(
            vocab_size=vocab_size,
            hidden_size=s.hidden,
            intermediate_size=s.intermediate,
            num_hidden_layers=s.layers,
            num_attention_heads=s.heads,
            num_key_value_heads=s.kv_heads,
            max_position_embeddings=context_length,
            rms_norm_eps=1e-5,
            initializer_range=0.02,
            # Tied input/output embeddings: GPT-2 and Llama-3.2-1B do this; at these
            # sizes the embedding is a large share of the parameters.
            tie_word_embeddings=True,
            rope_parameters={"rope_type": "default", "rope_theta": ROPE_THETA},
            pad_token_id=pad_token_id,
            bos_token_id=bos_token_id,
            eos_token_id=eos_token_id,
            use_cache=True,
        )
        # PyTorch's fused attention: flash/memory-efficient kernels on CUDA and CPU.
        config._attn_implementation = "sdpa"
        return config


def param_count(name: str, vocab_size: int) -> int:
    """Parameters of preset `name`, computed from its config without building the model."""
    c = ModelConfig.from_preset(name, vocab_size, context_length=2048)
    h, inter = c.hidden_size, c.intermediate_size
    head_dim = getattr(c, "head_dim", None) or h // c.num_attention_heads
    q_out = c.num_attention_heads * head_dim
    kv_out = (c.num_key_value_heads or c.num_attention_heads) * head_dim
    attn = h * q_out + 2 * h * kv_out + q_out * h  # q, k, v, o; Llama has no biases
    mlp = 3 * h * inter  # gate, up, down (SwiGLU)
    layer = attn + mlp + 2 * h  # plus two RMSNorm weights
    embed = vocab_size * h
    head = 0 if c.tie_word_embeddings else vocab_size * h
    return embed + c.num_hidden_layers * layer + h + head  # + final norm


def build_model(config: LlamaConfig, seed: int) -> LlamaForCausalLM:
    """A freshly initialised model; the same (config, seed) gives bit-identical weights."""
    # fork_rng keeps the caller's global RNG stream untouched by the init draws.
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = LlamaForCausalLM(config)
    return model
