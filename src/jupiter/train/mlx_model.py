"""Models for the MLX training loop: Llama, Mistral, Qwen2 and Gemma 3 text (what Gemma does
differently: mlx_gemma.py) in mlx-lm's own classes, with the parameter names transformers
uses, a forward over packed rows, LoRA, and weights by the names the PyTorch side uses (HF
names; PEFT's saved-adapter names and shapes under LoRA).

The forward calls mlx-lm's submodules (embedding, projections, norms, MLP, head) itself
instead of the model's `__call__`, because training on packed rows needs two things the
generation path has no use for: RoPE at each token's own position (positions restart at
every packed example) and a block-causal mask, so no token attends across an example.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from jupiter.config import LoraConfig
from jupiter.data.chat import IGNORE
from jupiter.errors import JupiterError
from jupiter.train import mlx_gemma as gemma

if TYPE_CHECKING:  # mlx is optional: imported where a model is built
    import mlx.core as mx
    import mlx.nn as nn

    from jupiter.data.dataset import Batch

# model_type -> (mlx-lm module, the transformers class written into config.json)
FAMILIES: dict[str, tuple[str, str]] = {
    "llama": ("llama", "LlamaForCausalLM"),
    "mistral": ("llama", "MistralForCausalLM"),  # mlx-lm runs Mistral with its Llama class
    "qwen2": ("qwen2", "Qwen2ForCausalLM"),
    gemma.GEMMA: ("gemma3_text", "Gemma3ForCausalLM"),
}
# RoPE variants whose mlx-lm module hands an array offset straight to mx.fast.rope, so one
# offset per token gives each token its own position (dynamic NTK computes with the offset).
ROPE_TYPES = ("default", "linear", "llama3")
PEFT_PREFIX = "base_model.model."
LORA_KEYS = {"lora_a": "lora_A", "lora_b": "lora_B"}


@dataclass
class ModelSpec:
    """What the weights alone do not say: the HF config, where the base came from, LoRA."""

    hf_config: dict[str, Any]  # config.json as transformers reads it
    source_dir: Path | None = None  # the HF dir of the base (an adapter's config names it)
    source_dtype: str = "float32"  # the dtype the base was stored in
    lora: LoraConfig | None = None
    targets: tuple[str, ...] = ()  # the wrapped linears' names (q_proj, ...)


def require_mlx() -> None:
    """Import mlx and mlx-lm, or raise the JupiterError that says how to install them."""
    from jupiter.synth.mlx_backend import require_mlx as check

    check()


def flat(tree: Any) -> dict[str, Any]:
    """A parameter tree as {dotted path: array}: the paths are transformers' names."""
    from mlx.utils import tree_flatten

    return dict(tree_flatten(tree))


# --------------------------------------------------------------------------- build
def mlx_args(hf_config: dict[str, Any]) -> dict[str, Any]:
    """The config with the RoPE keys mlx-lm reads (transformers 5 writes `rope_parameters`,
    mlx-lm 0.32 reads `rope_theta` / `rope_scaling` and would silently take its own
    default), after checking the family and RoPE variant are ones this forward supports."""
    kind = hf_config.get("model_type")
    if kind not in FAMILIES:
        raise JupiterError(
            "the MLX backend trains Llama, Mistral, Qwen2 and Gemma 3 text models (model_type"
            f" {', '.join(FAMILIES)}), not {kind!r}: use the torch backend for this model"
        )
    if kind == gemma.GEMMA:  # one RoPE per layer type
        out = gemma.gemma_args(hf_config)
        for layer_type, rope in gemma.rope_kinds(out).items():
            _check_rope(rope, f" ({layer_type})")
        return out
    out = dict(hf_config)
    params = out.get("rope_parameters")
    if isinstance(params, dict) and "rope_theta" in params:
        out["rope_theta"] = params["rope_theta"]
        if params.get("rope_type", "default") != "default":
            out["rope_scaling"] = params  # linear / llama3 keys are the same in both
    scaling = out.get("rope_scaling") or {}
    _check_rope(scaling.get("rope_type") or scaling.get("type") or "default")
    if kind == "qwen2" and out.get("use_sliding_window"):
        raise JupiterError(
            "Qwen2 with use_sliding_window is not supported by the MLX trainer: use the torch"
            " backend for this model"
        )
    return out


def _check_rope(rope: str, where: str = "") -> None:
    if rope not in ROPE_TYPES:
        raise JupiterError(
            f"RoPE type {rope!r}{where} is not supported by the MLX trainer (it supports"
            f" {', '.join(ROPE_TYPES)}): use the torch backend for this model"
        )


def build(hf_config: dict[str, Any], weights: dict[str, mx.array]) -> nn.Module:
    """An mlx-lm model of the config's family holding `weights` (HF names)."""
    import mlx.core as mx

    config = mlx_args(hf_config)
    arch = importlib.import_module(f"mlx_lm.models.{FAMILIES[config['model_type']][0]}")
    model: nn.Module = arch.Model(arch.ModelArgs.from_dict(config))
    if config["model_type"] == gemma.GEMMA:
        gemma.set_layer_types(model, config)
        weights = gemma.tie_weights(config, weights)
    weights = model.sanitize(dict(weights))  # drops rotary caches and a tied lm_head
    try:
        model.load_weights(list(weights.items()), strict=True)
    except ValueError as err:
        raise JupiterError(
            f"the weights do not fit the {config['model_type']} config ({err}): re-save the model"
        ) from None
    mx.eval(model.parameters())
    return model


def load_hf_dir(path: Path, dtype: mx.Dtype | None = None) -> tuple[nn.Module, ModelSpec]:
    """An HF model dir (config.json + safetensors) as an mlx-lm model; `dtype` casts it."""
    import mlx.core as mx

    path = Path(path).resolve()
    try:
        hf_config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise JupiterError(f"not a readable HF model dir ({err}): {path}") from None
    files = sorted(path.glob("*.safetensors"))
    if not files:
        raise JupiterError(f"no .safetensors weights in {path}: save the model with safetensors")
    weights: dict[str, mx.array] = {}
    for f in files:
        weights.update(mx.load(str(f)))  # type: ignore[arg-type]
    stored = next(iter(weights.values())).dtype
    model = build(hf_config, weights)
    if dtype is not None:
        model.set_dtype(dtype)
    return model, ModelSpec(hf_config, path, str(stored).rsplit(".", 1)[-1])


def from_torch(torch_model: Any) -> tuple[nn.Module, ModelSpec]:
    """An MLX copy of a transformers model, weight for weight (fp32)."""
    import mlx.core as mx

    # use_diff: the keys save_pretrained writes, so both backends write the same config.json
    hf_config = json.loads(torch_model.config.to_json_string(use_diff=True))
    weights = {
        n: mx.array(t.detach().float().cpu().numpy()) for n, t in torch_model.state_dict().items()
    }
    return build(hf_config, weights), ModelSpec(hf_config)


def build_preset(model_config: Any, seed: int) -> tuple[nn.Module, ModelSpec]:
    """A from-scratch preset: the torch model's seeded init copied in, so a torch run and an
    MLX run of the same config and seed start from bit-identical weights."""
    from jupiter.models.presets import build_model

    return from_torch(build_model(model_config, seed))


# ------------------------------------------------------------------------- forward
def block_mask(position_ids: mx.array, window: int | None = None) -> mx.array:
    """(b, 1, L, L) bool: a token sees earlier tokens of its own packed example. A new
    example starts wherever the position does not go up by one (transformers' rule in
    find_packed_sequence_indices; for PackedDataset rows, wherever it restarts at 0)."""
    import mlx.core as mx

    steps = position_ids[:, 1:] - position_ids[:, :-1]
    starts = mx.concatenate([mx.ones_like(position_ids[:, :1]), steps != 1], axis=1)
    segment = mx.cumsum(starts.astype(mx.int32), axis=1)
    idx = mx.arange(position_ids.shape[1])
    causal = idx[:, None] >= idx[None, :]
    if window is not None:  # a sliding-window layer (Mistral): only the last `window` keys
        causal = causal & (idx[:, None] - idx[None, :] < window)
    same = segment[:, :, None] == segment[:, None, :]
    return mx.expand_dims(same & causal, 1)


def _rope(rope: Any, x: mx.array, positions: mx.array) -> mx.array:
    """(b, L, h, d) -> (b, h, L, d) rotated at each token's own position: every token goes to
    the batch axis, where mx.fast.rope takes one offset per element."""
    b, n, h, d = x.shape
    out = rope(x.reshape(b * n, h, 1, d), offset=positions)
    return out.reshape(b, n, h, d).transpose(0, 2, 1, 3)


def _attention(attn: Any, x: mx.array, positions: mx.array, mask: mx.array) -> mx.array:
    import mlx.core as mx

    b, n, _ = x.shape
    q = attn.q_proj(x).reshape(b, n, attn.n_heads, -1)
    k = attn.k_proj(x).reshape(b, n, attn.n_kv_heads, -1)
    if "q_norm" in attn:  # Gemma 3: each head's queries and keys normed before RoPE
        q, k = gemma.norm(attn.q_norm, q), gemma.norm(attn.k_norm, k)
    q, k = _rope(attn.rope, q, positions), _rope(attn.rope, k, positions)
    v = attn.v_proj(x).reshape(b, n, attn.n_kv_heads, -1).transpose(0, 2, 1, 3)
    out = mx.fast.scaled_dot_product_attention(q, k, v, scale=attn.scale, mask=mask)
    return attn.o_proj(out.transpose(0, 2, 1, 3).reshape(b, n, -1))  # type: ignore[no-any-return]


def _layer(layer: Any, h: mx.array, positions: mx.array, mask: mx.array) -> mx.array:
    if "pre_feedforward_layernorm" in layer:  # Gemma 3: norms before and after each block
        r = _attention(layer.self_attn, gemma.norm(layer.input_layernorm, h), positions, mask)
        h = h + gemma.norm(layer.post_attention_layernorm, r)
        r = gemma.mlp(layer.mlp, gemma.norm(layer.pre_feedforward_layernorm, h))
        return h + gemma.norm(layer.post_feedforward_layernorm, r)
    h = h + _attention(layer.self_attn, layer.input_layernorm(h), positions, mask)
    return h + layer.mlp(layer.post_attention_layernorm(h))  # type: ignore[no-any-return]


def _checkpointed(layer: Any, h: mx.array, positions: mx.array, mask: mx.array) -> mx.array:
    """The layer with its activations recomputed in the backward (mlx-lm's grad_checkpoint
    pattern: the trainable weights go in as inputs so their gradients flow)."""
    import mlx.core as mx

    def inner(params: Any, x: mx.array) -> mx.array:
        layer.update(params)
        return _layer(layer, x, positions, mask)

    return mx.checkpoint(inner)(layer.trainable_parameters(), h)  # type: ignore[no-any-return]


def layer_windows(model: nn.Module) -> list[int | None]:
    """Each layer's sliding window (None: full causal attention), as transformers applies it."""
    args = model.args
    n = int(args.num_hidden_layers)
    window = getattr(args, "sliding_window", None)
    if model.model_type == "mistral":
        return [window] * n
    if model.model_type == gemma.GEMMA:  # set by gemma.set_layer_types from layer_types
        return [window if layer.self_attn.is_sliding else None for layer in model.model.layers]
    types = getattr(args, "layer_types", None) or ["full_attention"] * n
    return [window if t == "sliding_attention" else None for t in types]


def forward(
    model: nn.Module, input_ids: mx.array, position_ids: mx.array, checkpoint: bool = False
) -> mx.array:
    """Logits (b, L, vocab) of packed rows: RoPE at position_ids, block-causal attention."""
    inner = model.model
    is_gemma = model.model_type == gemma.GEMMA
    positions = position_ids.reshape(-1)
    windows = layer_windows(model)
    masks = {w: block_mask(position_ids, w) for w in set(windows)}
    h = gemma.embed(model, input_ids) if is_gemma else inner.embed_tokens(input_ids)
    step = _checkpointed if checkpoint else _layer
    for layer, window in zip(inner.layers, windows, strict=True):
        h = step(layer, h, positions, masks[window])
    h = gemma.norm(inner.norm, h) if is_gemma else inner.norm(h)
    # a tied head: the model holds no lm_head (mlx-lm drops it, or never makes one)
    logits = model.lm_head(h) if "lm_head" in model else inner.embed_tokens.as_linear(h)
    return gemma.soft_cap(model, logits) if is_gemma else logits


def batch_arrays(b: Batch) -> tuple[mx.array, mx.array, mx.array]:
    """A dataset Batch (torch int64) as mlx int32 (ids, targets, positions)."""
    import mlx.core as mx

    def conv(t: Any) -> mx.array:
        return mx.array(t.numpy().astype(np.int32))

    return conv(b.input_ids), conv(b.labels), conv(b.position_ids)


def loss_sum(
    model: nn.Module, ids: mx.array, targets: mx.array, positions: mx.array, checkpoint: bool
) -> mx.array:
    """Summed next-token cross-entropy over the targets that carry loss, in fp32."""
    import mlx.core as mx
    import mlx.nn as nn

    logits = forward(model, ids, positions, checkpoint).astype(mx.float32)
    keep = targets != IGNORE
    ce = nn.losses.cross_entropy(logits, mx.where(keep, targets, 0), reduction="none")
    return (ce * keep).sum()


# ---------------------------------------------------------------------------- LoRA
def _linears(model: nn.Module) -> list[tuple[str, Any]]:
    import mlx.nn as nn
    from mlx.utils import tree_flatten

    modules = model.leaf_modules()
    leaves = dict(tree_flatten(modules, is_leaf=lambda m: isinstance(m, nn.Module)))
    # every linear layer but the output head: PEFT's "all-linear" set, as loading.py picks it
    return [(p, m) for p, m in leaves.items() if isinstance(m, nn.Linear) and p != "lm_head"]


def add_lora(model: nn.Module, spec: ModelSpec, lora: LoraConfig, seed: int) -> None:
    """Freeze the base and wrap the target linears with LoRA (Hu et al. 2021), scale alpha/r.

    mlx-lm's LoRALinear starts A uniform in ±1/sqrt(in) (PEFT's kaiming_uniform(a=√5) bound)
    and B at zero; the seed makes every rank draw the same A.
    """
    import mlx.core as mx
    from mlx.utils import tree_unflatten
    from mlx_lm.tuner.lora import LoRALinear

    linears = _linears(model)
    names = sorted({p.rsplit(".", 1)[-1] for p, _ in linears})
    targets = names if lora.target_modules == "all-linear" else sorted(lora.target_modules)
    unknown = [t for t in targets if t not in names]
    if unknown:
        raise JupiterError(
            f"train.lora.target_modules {unknown} match no linear layer of this model: choose"
            f" from {', '.join(names)} (or all-linear)"
        )
    model.freeze()
    mx.random.seed(seed)
    wrapped = [
        (p, LoRALinear.from_base(m, r=lora.r, dropout=lora.dropout, scale=lora.alpha / lora.r))
        for p, m in linears
        if p.rsplit(".", 1)[-1] in targets
    ]
    model.update_modules(tree_unflatten(wrapped))
    for _, m in wrapped:
        m.linear.freeze()
    if lora.freeze_a:  # LoRA-FA: the same seeded A as the torch side draws, frozen
        from jupiter.models.lora_fa import frozen_a

        for p, m in wrapped:
            fan_in, r = m.lora_a.shape
            a = frozen_a(canonical_name(f"{p}.lora_a"), r, fan_in, seed)
            m.lora_a = mx.array(a.T)
            m.freeze(keys=["lora_a"])
    mx.eval(model.parameters())
    spec.lora, spec.targets = lora, tuple(targets)


# ------------------------------------------------------------------ names, weights
def canonical_name(path: str) -> str:
    """mlx path -> the name the weights go by: HF's, or PEFT's saved-adapter name."""
    head, _, leaf = path.rpartition(".")
    if leaf in LORA_KEYS:
        return f"{PEFT_PREFIX}{head}.{LORA_KEYS[leaf]}.weight"
    return path


def mlx_path(name: str) -> str:
    if name.startswith(PEFT_PREFIX) and name.endswith(".weight"):
        head, _, kind = name[len(PEFT_PREFIX) : -len(".weight")].rpartition(".")
        for leaf, peft in LORA_KEYS.items():
            if kind == peft:
                return f"{head}.{leaf}"
    return name


def to_canonical(path: str, value: mx.array) -> tuple[str, mx.array]:
    """PEFT stores A as (r, in) and B as (out, r); mlx-lm holds their transposes."""
    name = canonical_name(path)
    return name, (value.T if name != path else value)


def from_canonical(name: str, value: mx.array) -> tuple[str, mx.array]:
    path = mlx_path(name)
    return path, (value.T if path != name else value)


def trainable_weights(model: nn.Module) -> dict[str, np.ndarray]:
    """The trainable weights as fp32 numpy copies, by canonical name and shape."""
    import mlx.core as mx

    out = {}
    for path, w in flat(model.trainable_parameters()).items():
        name, value = to_canonical(path, w.astype(mx.float32))
        out[name] = np.array(value)
    return out


def adapter_weights(model: nn.Module) -> dict[str, np.ndarray]:
    """Every LoRA weight, trained or frozen (train.lora.freeze_a), as a PEFT adapter file
    holds them: fp32 numpy copies by canonical name and shape."""
    import mlx.core as mx

    out = {}
    for path, w in flat(model.parameters()).items():
        if path.rpartition(".")[2] in LORA_KEYS:
            name, value = to_canonical(path, w.astype(mx.float32))
            out[name] = np.array(value)
    return out


def set_arrays(model: nn.Module, weights: dict[str, Any]) -> None:
    """Copy weights given by canonical name (HF or PEFT; numpy or mlx) into the model,
    bit for bit."""
    import mlx.core as mx
    from mlx.utils import tree_unflatten

    params = flat(model.parameters())
    updates = []
    for name, value in weights.items():
        path, arr = from_canonical(name, mx.array(value))
        if path not in params:
            raise JupiterError(f"weights do not fit the model: unknown {name}")
        if arr.shape != params[path].shape:
            mine = to_canonical(path, params[path])[1].shape
            raise JupiterError(
                f"weights do not fit the model: {name} has shape {tuple(value.shape)}, the"
                f" model's is {tuple(mine)}"
            )
        updates.append((path, arr.astype(params[path].dtype)))
    model.update(tree_unflatten(updates))
    mx.eval(model.parameters())


def load_adapter(model: nn.Module, adapter_dir: Path) -> None:
    """Copy a PEFT adapter's weights (written by either backend) into a LoRA-wrapped model."""
    from safetensors.numpy import load_file

    path = Path(adapter_dir) / "adapter_model.safetensors"
    if not path.is_file():
        raise JupiterError(f"no adapter_model.safetensors in adapter dir {adapter_dir}")
    saved = load_file(str(path))
    mine = set(adapter_weights(model))
    missing, unexpected = sorted(mine - set(saved)), sorted(set(saved) - mine)
    if missing or unexpected:
        raise JupiterError(
            f"adapter {adapter_dir} does not fit the model (train.lora.target_modules differ?):"
            f" missing {missing[:3]}, unexpected {unexpected[:3]}"
        )
    try:
        set_arrays(model, saved)
    except JupiterError as err:
        raise JupiterError(
            f"adapter {adapter_dir} does not fit the model (is train.lora.r the one it was"
            f" trained with?): {err}"
        ) from None
