"""Model presets: configs, computed parameter counts, deterministic init."""

from __future__ import annotations

import pytest
import torch
from transformers import LlamaConfig

from jupiter.errors import JupiterError
from jupiter.models.presets import PRESETS, ModelConfig, build_model, param_count


def test_tiny_param_count_equals_the_built_model() -> None:
    config = ModelConfig.from_preset("tiny", vocab_size=4096, context_length=256)
    model = build_model(config, seed=0)
    assert sum(p.numel() for p in model.parameters()) == param_count("tiny", 4096)
    assert 1e6 < param_count("tiny", 4096) < 5e6


def test_1b_is_llama_3_2_1b_sized() -> None:
    # Llama-3.2-1B: 1.24e9 parameters with its 128256-token vocabulary (tied embeddings)
    assert abs(param_count("1b", 128256) - 1.2e9) / 1.2e9 < 0.10
    assert param_count("tiny", 4096) < param_count("small", 4096) < param_count("125m", 4096)
    assert param_count("125m", 4096) < param_count("500m", 4096) < param_count("1b", 4096)


def test_config_fields() -> None:
    c = ModelConfig.from_preset("1b", 128256, 2048, pad_token_id=0, bos_token_id=1, eos_token_id=2)
    assert isinstance(c, LlamaConfig)
    assert (c.hidden_size, c.num_hidden_layers, c.num_attention_heads) == (2048, 16, 32)
    assert (c.num_key_value_heads, c.intermediate_size) == (8, 8192)
    assert c.vocab_size == 128256 and c.max_position_embeddings == 2048
    assert (c.pad_token_id, c.bos_token_id, c.eos_token_id) == (0, 1, 2)
    assert c.tie_word_embeddings is True
    assert c._attn_implementation == "sdpa"
    rope = getattr(c, "rope_parameters", None) or {"rope_theta": c.rope_theta}
    assert rope["rope_theta"] == 10_000.0
    for name, shape in PRESETS.items():
        assert shape.hidden % shape.heads == 0 and shape.heads % shape.kv_heads == 0, name


def test_build_model_is_deterministic_and_leaves_global_rng_alone() -> None:
    config = ModelConfig.from_preset("tiny", 512, 64)
    torch.manual_seed(123)
    before = torch.get_rng_state()
    a, b = build_model(config, seed=5), build_model(config, seed=5)
    assert torch.equal(torch.get_rng_state(), before)
    for (na, pa), (nb, pb) in zip(a.named_parameters(), b.named_parameters(), strict=True):
        assert na == nb and torch.equal(pa, pb)
    c = build_model(config, seed=6)
    assert not torch.equal(a.model.embed_tokens.weight, c.model.embed_tokens.weight)
    assert a.lm_head.weight is a.model.embed_tokens.weight


def test_unknown_preset_names_the_choices() -> None:
    with pytest.raises(JupiterError, match="tiny"):
        ModelConfig.from_preset("huge", 512, 64)
