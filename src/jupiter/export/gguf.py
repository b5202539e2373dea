"""A Hugging Face model dir written as one GGUF file with the `gguf` package's GGUFWriter,
laid out as llama.cpp's convert_hf_to_gguf.py lays out these architectures:

    llama      Jupiter's from-scratch presets, Llama 2/3; q/k rows interleaved per head
               (llama.cpp's rope rotates adjacent pairs, transformers rotates halves)
    mistral    written as llama, as llama.cpp's converter does
    qwen2      q/k/v biases kept
    gemma3     (model_type gemma3_text) every RMSNorm weight stored plus one: Gemma's norm
               multiplies by (1 + w), llama.cpp's by w

Tensor names come from the gguf package's own name map. 1-D tensors and norms stay F32
(llama.cpp keeps them so); the others take --quant: f32, f16, bf16 or q8_0 (blocks of 32; a
row length that does not divide falls back to f16, as in llama.cpp's converter). Tensors are
read, converted and written one at a time, so a model never sits in memory whole.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from jupiter.errors import JupiterError

if TYPE_CHECKING:
    from rich.console import Console

GGUF_MISSING = "writing GGUF files needs the gguf package: pip install gguf"
F16_MAX = 65504.0


@dataclass(frozen=True)
class Arch:
    name: str  # llama.cpp's architecture
    permute_qk: bool = False
    norm_shift: float = 0.0


ARCHES = {
    "llama": Arch("llama", permute_qk=True),
    "mistral": Arch("llama", permute_qk=True),
    "qwen2": Arch("qwen2"),
    "gemma3_text": Arch("gemma3", norm_shift=1.0),
}
SUPPORTED = "llama (Jupiter's presets, Llama 2/3), mistral, qwen2, gemma3_text (Gemma 3)"
SKIPPED = re.compile(r"rotary_emb\.inv_freq$")  # a buffer some old checkpoints saved


def _gguf() -> Any:
    try:
        import gguf
    except ImportError:
        raise JupiterError(GGUF_MISSING) from None
    return gguf


def read_config(model_dir: Path) -> dict[str, Any]:
    try:
        config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise JupiterError(f"unreadable config.json in {model_dir} ({err})") from None
    return config if isinstance(config, dict) else {}


def arch_of(config: dict[str, Any]) -> Arch:
    """The GGUF architecture of an HF config; one line naming the supported ones if none."""
    model_type = str(config.get("model_type", ""))
    if config.get("quantization_config"):
        raise JupiterError(
            f"the model is stored quantized ({config['quantization_config'].get('quant_method')}"
            "): the GGUF writer reads full-precision weights; export a full-precision model"
        )
    if model_type not in ARCHES:
        classes = ", ".join(config.get("architectures") or []) or "no class named"
        raise JupiterError(
            f"the GGUF writer does not support architecture '{model_type}' ({classes}): it "
            f"writes {SUPPORTED}; export --to hf and convert with llama.cpp's "
            "convert_hf_to_gguf.py"
        )
    return ARCHES[model_type]


def rope_params(config: dict[str, Any]) -> dict[str, Any]:
    """The RoPE settings of the full-attention layers (transformers 4 and 5 layouts)."""
    params = config.get("rope_parameters") or config.get("rope_scaling") or {}
    params = dict(params.get("full_attention", params))
    if "rope_theta" not in params and "rope_theta" in config:
        params["rope_theta"] = config["rope_theta"]
    params.setdefault("rope_type", params.get("type", "default"))
    return params


def head_dim(config: dict[str, Any]) -> int:
    return int(config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"])


def check_gemma3(config: dict[str, Any]) -> None:
    """llama.cpp fixes three things of Gemma 3 that a config could set otherwise: every
    sixth layer global, a local RoPE base of 10k, and the attention scale (1/sqrt(head_dim),
    1/sqrt(hidden/heads) for the 62-layer 27B). A model that differs would run wrong."""
    layers = int(config["num_hidden_layers"])
    pattern = ["full_attention" if (i + 1) % 6 == 0 else "sliding_attention" for i in range(layers)]
    local = (config.get("rope_parameters") or {}).get("sliding_attention") or {}
    local_theta = local.get("rope_theta", config.get("rope_local_base_freq", 10000.0))
    scale_dim = (
        config["hidden_size"] / config["num_attention_heads"] if layers == 62 else head_dim(config)
    )
    problems = []
    if config.get("layer_types") not in (None, pattern):
        problems.append("layer_types is not every sixth layer global")
    if float(local_theta) != 10000.0:
        problems.append(f"the local RoPE base is {local_theta}, not 10000")
    if float(config.get("query_pre_attn_scalar", scale_dim)) != float(scale_dim):
        problems.append(
            f"query_pre_attn_scalar {config['query_pre_attn_scalar']} is not {scale_dim:g}"
        )
    if problems:
        raise JupiterError(
            f"this Gemma 3 differs from what llama.cpp runs ({'; '.join(problems)}): its GGUF "
            "would give other answers; export --to hf instead"
        )


def llama3_rope_factors(config: dict[str, Any]) -> np.ndarray:
    """The per-frequency divisors of Llama 3.1's RoPE scaling (rope_type llama3), which
    llama.cpp reads from a `rope_freqs` tensor: 1 for high frequencies, `factor` for low
    ones, a smooth blend between (Meta's reference implementation of Llama 3.1)."""
    p = rope_params(config)
    dim, base = head_dim(config), float(p["rope_theta"])
    factor, low, high = (
        float(p["factor"]),
        float(p["low_freq_factor"]),
        float(p["high_freq_factor"]),
    )
    old_ctx = float(p["original_max_position_embeddings"])
    low_wavelen, high_wavelen = old_ctx / low, old_ctx / high
    factors = []
    for freq in 1.0 / base ** (np.arange(0, dim, 2, dtype=np.float64) / dim):
        wavelen = 2 * math.pi / freq
        if wavelen < high_wavelen:
            factors.append(1.0)
        elif wavelen > low_wavelen:
            factors.append(factor)
        else:
            smooth = (old_ctx / wavelen - low) / (high - low)
            factors.append(1.0 / ((1 - smooth) / factor + smooth))
    return np.asarray(factors, dtype=np.float32)


def permute_qk(w: np.ndarray, n_head: int) -> np.ndarray:
    """Interleave the two halves of each head's rows (llama.cpp's rope order)."""
    rows = w.shape[0]
    return w.reshape(n_head, 2, rows // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def weight_files(model_dir: Path) -> dict[str, Path]:
    """Every tensor name of a model dir and the safetensors file holding it."""
    from safetensors import safe_open

    files = sorted(model_dir.glob("*.safetensors"))
    if not files:
        raise JupiterError(f"no .safetensors weights in {model_dir}: export a safetensors model")
    where: dict[str, Path] = {}
    for f in files:
        with safe_open(f, framework="pt") as st:
            where.update(dict.fromkeys(st.keys(), f))
    return where


def tensor_plan(config: dict[str, Any], arch: Arch, names: list[str]) -> list[tuple[str, str]]:
    """(HF name, GGUF name) of every tensor to write, in the model's layer order."""
    gguf = _gguf()
    layers = int(config["num_hidden_layers"])
    arch_id = next(k for k, v in gguf.MODEL_ARCH_NAMES.items() if v == arch.name)
    name_map = gguf.get_tensor_name_map(arch_id, layers)
    tied = bool(config.get("tie_word_embeddings", False))
    plan, unknown = [], []
    for hf in names:
        if SKIPPED.search(hf) or (tied and hf == "lm_head.weight"):
            continue
        stem, dot, suffix = hf.rpartition(".")
        mapped = name_map.get_name(stem) if dot else None
        if mapped is None:
            unknown.append(hf)
        else:
            plan.append((hf, f"{mapped}.{suffix}"))
    if unknown:
        raise JupiterError(
            f"tensors the {arch.name} GGUF layout has no name for: {', '.join(unknown[:4])}: "
            "this is not a plain model of that family; export --to hf"
        )

    def order(item: tuple[str, str]) -> tuple[int, str]:
        m = re.match(r"blk\.(\d+)\.", item[1])
        return (int(m.group(1)) + 1 if m else (0 if "token_embd" in item[1] else layers + 1)), item[
            1
        ]

    return sorted(plan, key=order)


def qtype_for(gguf_name: str, shape: tuple[int, ...], quant: str) -> Any:
    """The GGML type of one tensor: norms and 1-D tensors F32, the rest per --quant."""
    types = _gguf().GGMLQuantizationType
    if len(shape) <= 1 or gguf_name.endswith("_norm.weight"):
        return types.F32
    if quant == "q8_0" and shape[-1] % 32 != 0:
        return types.F16  # Q8_0 packs rows in blocks of 32
    return {"f32": types.F32, "f16": types.F16, "bf16": types.BF16, "q8_0": types.Q8_0}[quant]


def encode(name: str, data: np.ndarray, qtype: Any) -> np.ndarray:
    """A float32 tensor in GGML type `qtype` (the bytes the file holds)."""
    gguf = _gguf()
    types = gguf.GGMLQuantizationType
    if qtype == types.F32:
        return np.ascontiguousarray(data, dtype=np.float32)
    if qtype == types.F16:
        peak = float(np.abs(data).max(initial=0.0))
        if peak > F16_MAX:
            raise JupiterError(
                f"{name} holds values up to {peak:.3g}, beyond float16's range: export with "
                "--quant bf16 (or f32)"
            )
        return np.ascontiguousarray(data, dtype=np.float16)
    return gguf.quants.quantize(np.ascontiguousarray(data, dtype=np.float32), qtype)


def nbytes(shape: tuple[int, ...], qtype: Any) -> int:
    block, size = _gguf().GGML_QUANT_SIZES[qtype]
    return int(np.prod(shape)) // block * size


FILE_TYPES = {"f32": "ALL_F32", "f16": "MOSTLY_F16", "bf16": "MOSTLY_BF16", "q8_0": "MOSTLY_Q8_0"}


def _rope_scaling(w: Any, config: dict[str, Any], arch: Arch) -> bool:
    """Write the RoPE scaling keys; True when a Llama 3.1 `rope_freqs` tensor is needed."""
    gguf = _gguf()
    p = rope_params(config)
    kind = p.get("rope_type", "default")
    if kind == "default":
        return False
    if kind == "linear":
        w.add_rope_scaling_type(gguf.RopeScalingType.LINEAR)
        w.add_rope_scaling_factor(float(p["factor"]))
        return False
    if kind == "yarn":
        w.add_rope_scaling_type(gguf.RopeScalingType.YARN)
        w.add_rope_scaling_factor(float(p["factor"]))
        w.add_rope_scaling_orig_ctx_len(int(p["original_max_position_embeddings"]))
        return False
    if kind == "llama3" and arch.name == "llama":
        return True
    raise JupiterError(
        f"RoPE scaling '{kind}' is not one the GGUF writer describes (default, linear, yarn, "
        "llama3): export --to hf and convert with llama.cpp's convert_hf_to_gguf.py"
    )


def _metadata(w: Any, config: dict[str, Any], arch: Arch, quant: str, label: str) -> bool:
    """The model's hyperparameters under llama.cpp's keys; True when rope_freqs is needed."""
    gguf = _gguf()
    hidden, heads = int(config["hidden_size"]), int(config["num_attention_heads"])
    w.add_type(gguf.GGUFType.MODEL)
    w.add_name(label)
    w.add_quantization_version(gguf.GGML_QUANT_VERSION)
    w.add_file_type(getattr(gguf.LlamaFileType, FILE_TYPES[quant]))
    w.add_context_length(int(config["max_position_embeddings"]))
    w.add_embedding_length(hidden)
    w.add_block_count(int(config["num_hidden_layers"]))
    w.add_feed_forward_length(int(config["intermediate_size"]))
    w.add_head_count(heads)
    w.add_head_count_kv(int(config.get("num_key_value_heads") or heads))
    w.add_layer_norm_rms_eps(float(config.get("rms_norm_eps", 1e-6)))
    w.add_rope_freq_base(float(rope_params(config).get("rope_theta", 10000.0)))
    w.add_vocab_size(int(config["vocab_size"]))
    dim = head_dim(config)
    if arch.name == "llama":
        w.add_rope_dimension_count(dim)
    if arch.name == "gemma3" or dim != hidden // heads:
        w.add_key_length(dim)
        w.add_value_length(dim)
    if arch.name == "gemma3":
        w.add_sliding_window(int(config["sliding_window"]))
        if config.get("final_logit_softcapping"):
            w.add_final_logit_softcapping(float(config["final_logit_softcapping"]))
    return _rope_scaling(w, config, arch)


def load_tokenizer(model_dir: Path, config: dict[str, Any]) -> tuple[Any, list[int]]:
    """The model's tokenizer with the chat template Jupiter renders it with (its own, else
    its family's), and every token that ends a reply."""
    from transformers import AutoTokenizer

    from jupiter.data.templates import set_chat_template, stop_token_ids

    try:
        tokenizer = AutoTokenizer.from_pretrained(model_dir)
    except (OSError, ValueError) as err:
        raise JupiterError(f"no readable tokenizer in {model_dir} ({err})") from None
    set_chat_template(tokenizer, "auto", config.get("model_type"))
    saved = None
    gen = model_dir / "generation_config.json"
    if gen.is_file():
        saved = json.loads(gen.read_text(encoding="utf-8")).get("eos_token_id")
    return tokenizer, stop_token_ids(tokenizer, [saved, config.get("eos_token_id")])


def _read(st: Any, hf: str, config: dict[str, Any], arch: Arch) -> np.ndarray:
    import torch

    data = st.get_tensor(hf).to(torch.float32).numpy()
    if arch.permute_qk and re.search(r"\.q_proj\.(weight|bias)$", hf):
        data = permute_qk(data, int(config["num_attention_heads"]))
    elif arch.permute_qk and re.search(r"\.k_proj\.(weight|bias)$", hf):
        heads = int(config.get("num_key_value_heads") or config["num_attention_heads"])
        data = permute_qk(data, heads)
    if arch.norm_shift and hf.endswith("norm.weight"):
        data = data + np.float32(arch.norm_shift)
    return data


def write_gguf(
    model_dir: Path, dest: Path, quant: str, *, label: str, console: Console
) -> dict[str, Any]:
    """Write `model_dir` (an HF dir, not an adapter) as the GGUF file `dest`; returns what
    export.json records of it."""
    from contextlib import ExitStack

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
    from safetensors import safe_open

    from jupiter.export.vocab import add_vocab, read_vocab

    gguf = _gguf()
    config = read_config(model_dir)
    arch = arch_of(config)
    if arch.name == "gemma3":
        check_gemma3(config)
    tokenizer, stop_ids = load_tokenizer(model_dir, config)
    where = weight_files(model_dir)
    plan = tensor_plan(config, arch, list(where))
    with ExitStack() as stack:
        handles = {
            f: stack.enter_context(safe_open(f, framework="pt")) for f in set(where.values())
        }
        shapes = {hf: tuple(handles[where[hf]].get_slice(hf).get_shape()) for hf, _ in plan}
        embed = next(hf for hf, gg in plan if gg.startswith("token_embd."))
        vocab = read_vocab(tokenizer, shapes[embed][0], stop_ids)
        w = gguf.GGUFWriter(None, arch.name)
        needs_freqs = _metadata(w, config, arch, quant, label)
        add_vocab(w, vocab)
        types = {hf: qtype_for(gg, shapes[hf], quant) for hf, gg in plan}
        for hf, gg in plan:
            w.add_tensor_info(
                gg,
                shapes[hf],
                np.dtype(np.float32),
                nbytes(shapes[hf], types[hf]),
                raw_dtype=types[hf],
            )
        freqs = llama3_rope_factors(config) if needs_freqs else None
        if freqs is not None:
            w.add_tensor_info(
                "rope_freqs.weight",
                freqs.shape,
                np.dtype(np.float32),
                freqs.nbytes,
                raw_dtype=gguf.GGMLQuantizationType.F32,
            )
        w.write_header_to_file(path=dest)
        w.write_kv_data_to_file()
        w.write_ti_data_to_file()
        bar = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            console=console,
            disable=not console.is_terminal,
        )
        with bar:
            task = bar.add_task(f"GGUF {quant}", total=len(plan))
            for hf, _ in plan:
                data = _read(handles[where[hf]], hf, config, arch)
                w.write_tensor_data(encode(hf, data, types[hf]))
                bar.advance(task)
        if freqs is not None:
            w.write_tensor_data(freqs)
        w.close()
    counts: dict[str, int] = {}
    for t in types.values():
        counts[t.name] = counts.get(t.name, 0) + 1
    stops = [tokenizer.convert_ids_to_tokens(i) for i in stop_ids]
    return {
        "file": dest.name,
        "architecture": arch.name,
        "model_type": config.get("model_type"),
        "tensor_types": counts,
        "tokenizer": vocab.model,
        "pre_tokenizer": vocab.pre,
        "tokens": len(vocab.tokens),
        "special_ids": vocab.special,
        "add_bos": vocab.add_bos,
        "stop_tokens": stops,
        "stop_ids": stop_ids,
        "chat_template": vocab.chat_template,
        "rope_freqs": freqs is not None,
    }


def quantize_gguf(src: Path, dest: Path, quant: str, threads: int = 0) -> dict[str, Any]:
    """`src` (an f16 GGUF) quantized to `quant` (q4_k_m, q5_k_m, …) at `dest` by llama.cpp's
    own quantizer (llama-cpp-python's `llama_model_quantize`); returns the tensor types
    the file holds. k-quants work on rows of 256: llama.cpp gives a narrower row its own
    fallback type, as llama-quantize does."""
    import ctypes
    import logging

    import llama_cpp

    ftype = getattr(llama_cpp, f"LLAMA_FTYPE_MOSTLY_{quant.upper()}", None)
    if ftype is None:
        raise JupiterError(f"llama-cpp-python {llama_cpp.__version__} has no {quant} type")
    # llama.cpp logs through the package's logger: its per-tensor lines only on errors here
    log = logging.getLogger("llama-cpp-python")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        llama_cpp.llama_backend_init()
        params = llama_cpp.llama_model_quantize_default_params()
        params.ftype, params.nthread = ftype, threads
        rc = llama_cpp.llama_model_quantize(
            str(src).encode(), str(dest).encode(), ctypes.byref(params)
        )
    finally:
        log.setLevel(level)
    if rc != 0 or not dest.is_file():
        raise JupiterError(
            f"llama.cpp's quantizer failed on {src.name} ({quant}, code {rc}): "
            "nothing exported; try --quant f16 or q8_0"
        )
    counts: dict[str, int] = {}
    for t in _gguf().GGUFReader(dest).tensors:
        counts[t.tensor_type.name] = counts.get(t.tensor_type.name, 0) + 1
    return {
        "tensor_types": counts,
        "quantizer": f"llama.cpp (llama-cpp-python {llama_cpp.__version__})",
    }
