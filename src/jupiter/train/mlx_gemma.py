"""Gemma 3 text models (HF model_type gemma3_text, e.g. the Gemma 3 270M that gguf_import
writes) for the MLX trainer: what they do differently from Llama, as transformers'
Gemma3ForCausalLM computes it (models/gemma3/modeling_gemma3.py).

- embeddings scaled by sqrt(hidden_size), the scale rounded to the weights' dtype;
- RMSNorms that scale by (1 + weight), computed in fp32; four per layer (before and after
  the attention and the MLP) and one on each head's queries and keys before RoPE;
- each layer either sliding-window (`sliding_window` keys back, RoPE base
  rope_parameters.sliding_attention) or global (full causal, rope_parameters.full_attention),
  as `layer_types` lists them;
- attention scaled by query_pre_attn_scalar ** -0.5, not head_dim ** -0.5;
- a gelu_pytorch_tanh MLP, tied embeddings by default, and an optional tanh soft-cap on
  the logits (final_logit_softcapping).

mlx-lm's gemma3_text module supplies the parameter tree (its names are transformers'); the
forward in mlx_model.py composes it. mlx-lm decides sliding vs global from the old
`sliding_window_pattern` and adds 1 to the norm weights in their own dtype, so the layer
types, the RoPEs and the norms are set here instead.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from jupiter.errors import JupiterError

if TYPE_CHECKING:
    import mlx.core as mx
    import mlx.nn as nn

GEMMA = "gemma3_text"
SLIDING, GLOBAL = "sliding_attention", "full_attention"


def _refuse(what: str) -> JupiterError:
    return JupiterError(
        f"Gemma 3 with {what} is not supported by the MLX trainer: use the torch backend for"
        " this model"
    )


def gemma_args(hf_config: dict[str, Any]) -> dict[str, Any]:
    """The config as transformers completes it (older config.json files name the RoPE bases
    rope_theta / rope_local_base_freq and the layers by sliding_window_pattern; defaults
    left out of the file differ from mlx-lm's), with the keys mlx-lm's ModelArgs reads."""
    from transformers import AutoConfig

    conf = {k: v for k, v in hf_config.items() if k != "model_type"}
    try:
        full: dict[str, Any] = AutoConfig.for_model(GEMMA, **conf).to_dict()
    except (TypeError, ValueError) as err:
        raise JupiterError(f"not a valid Gemma 3 config ({err}): re-save the model") from None
    if full.get("attn_logit_softcapping") is not None:
        raise _refuse("attn_logit_softcapping")
    if full.get("use_bidirectional_attention"):
        raise _refuse("use_bidirectional_attention")
    if full.get("attention_bias"):
        raise _refuse("attention_bias")
    if full.get("hidden_activation") != "gelu_pytorch_tanh":
        raise _refuse(f"hidden_activation {full.get('hidden_activation')!r}")
    kinds = set(full["layer_types"])
    if not kinds <= {SLIDING, GLOBAL} or len(full["layer_types"]) != full["num_hidden_layers"]:
        raise _refuse(f"layer_types {full['layer_types']}")
    rope = full["rope_parameters"]
    return full | {
        "rope_theta": rope[GLOBAL]["rope_theta"],
        "rope_local_base_freq": rope[SLIDING]["rope_theta"],
        "rope_scaling": None,  # the RoPEs are set per layer type by set_layer_types
    }


def rope_kinds(config: dict[str, Any]) -> dict[str, str]:
    """Each layer type's RoPE variant (default, linear ...), for mlx_args to check."""
    return {t: p.get("rope_type", "default") for t, p in config["rope_parameters"].items()}


def set_layer_types(model: nn.Module, config: dict[str, Any]) -> None:
    """Give each attention the RoPE of its layer type and mark the sliding ones."""
    from mlx_lm.models.rope_utils import initialize_rope

    params = config["rope_parameters"]
    for layer, kind in zip(model.model.layers, config["layer_types"], strict=True):
        p = params[kind]
        attn = layer.self_attn
        attn.is_sliding = kind == SLIDING
        attn.rope = initialize_rope(
            dims=attn.head_dim,
            base=p["rope_theta"],
            traditional=False,
            scaling_config=p if p.get("rope_type", "default") != "default" else None,
            max_position_embeddings=config.get("max_position_embeddings"),
        )
    model.final_logit_softcapping = config.get("final_logit_softcapping")


def tie_weights(config: dict[str, Any], weights: dict[str, mx.array]) -> dict[str, mx.array]:
    """Drop a tied lm_head (from_torch's state_dict holds the embedding twice); mlx-lm's
    sanitize ties the head exactly when lm_head.weight is absent."""
    out = dict(weights)
    if config.get("tie_word_embeddings", True):
        out.pop("lm_head.weight", None)
    elif "lm_head.weight" not in out:
        raise JupiterError(
            "the weights do not fit the gemma3_text config (tie_word_embeddings is false but"
            " there is no lm_head.weight): re-save the model"
        )
    return out


def norm(module: nn.Module, x: mx.array) -> mx.array:
    """Gemma's RMSNorm: x / rms(x) * (1 + weight) in fp32, cast back to x's dtype (in bf16,
    mlx-lm's 1 + weight would round before the product)."""
    import mlx.core as mx

    w = 1.0 + module.weight.astype(mx.float32)
    return mx.fast.rms_norm(x.astype(mx.float32), w, module.eps).astype(x.dtype)


def mlp(module: nn.Module, x: mx.array) -> mx.array:
    """down(gelu_tanh(gate(x)) * up(x)): mlx's gelu_approx is PyTorch's tanh GELU."""
    import mlx.nn as nn

    gated = nn.gelu_approx(module.gate_proj(x)) * module.up_proj(x)
    return module.down_proj(gated)  # type: ignore[no-any-return]


def embed(model: nn.Module, input_ids: mx.array) -> mx.array:
    """Embeddings times sqrt(hidden_size), the scale cast to their dtype first, as
    transformers' Gemma3TextScaledWordEmbedding does."""
    import mlx.core as mx

    h = model.model.embed_tokens(input_ids)
    scale = mx.array(math.sqrt(model.args.hidden_size), mx.float32).astype(h.dtype)
    return h * scale  # type: ignore[no-any-return]


def soft_cap(model: nn.Module, logits: mx.array) -> mx.array:
    """cap * tanh(logits / cap) when the config sets final_logit_softcapping."""
    import mlx.core as mx

    cap = getattr(model, "final_logit_softcapping", None)
    return logits if cap is None else mx.tanh(logits / cap) * cap
