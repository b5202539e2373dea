"""A standalone Hugging Face model dir: a LoRA adapter merged into its base, or a full model
copied through (or cast to --quant f32/f16/bf16), with its tokenizer, the chat template
Jupiter renders it with, and generation_config.json listing every stop token (Gemma's
<end_of_turn>, Llama 3's <|eot_id|>), so transformers, vLLM and llama.cpp's converter read
it without Jupiter or peft."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from jupiter.errors import JupiterError

# the files of a model dir that a copy carries; training leftovers (retrieval index,
# optimizer state) stay behind
MODEL_FILES = (
    "config.json",
    "generation_config.json",
    "*.safetensors",
    "model.safetensors.index.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "tokenizer.model",
    "special_tokens_map.json",
    "added_tokens.json",
    "vocab.json",
    "merges.txt",
    "chat_template.jinja",
    "chat_template.json",
)
DTYPES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16"}


def _copy(src: Path, dest: Path) -> None:
    dest.mkdir(parents=True)
    for pattern in MODEL_FILES:
        for f in src.glob(pattern):
            shutil.copy2(f, dest / f.name)


def _finish(dest: Path) -> dict[str, Any]:
    """Give the dir the chat template Jupiter uses and a generation_config.json with every
    stop token; returns the stop tokens and whether the template was added."""
    from transformers import AutoTokenizer, GenerationConfig

    from jupiter.data.templates import model_type_of, set_chat_template, write_stop_tokens

    tokenizer = AutoTokenizer.from_pretrained(dest)
    had = bool(tokenizer.chat_template)
    set_chat_template(tokenizer, "auto", model_type_of(dest))
    if not had:
        tokenizer.save_pretrained(dest)
    gen = dest / "generation_config.json"
    if not gen.is_file():
        config = json.loads((dest / "config.json").read_text(encoding="utf-8"))
        keys = ("bos_token_id", "eos_token_id", "pad_token_id")
        GenerationConfig(
            **{k: config[k] for k in keys if config.get(k) is not None}
        ).save_pretrained(dest)
    write_stop_tokens(dest, tokenizer)
    eos = json.loads(gen.read_text(encoding="utf-8")).get("eos_token_id")
    ids = eos if isinstance(eos, list) else [eos] if isinstance(eos, int) else []
    return {
        "stop_ids": ids,
        "stop_tokens": tokenizer.convert_ids_to_tokens(ids),
        "chat_template_added": not had,
    }


def write_hf(path: Path, kind: str, dest: Path, quant: str) -> dict[str, Any]:
    """Write `path` (a model dir, or an adapter dir when kind is "adapter") as a plain HF
    dir at `dest` in the stored dtype (quant "auto") or f32/f16/bf16."""
    import torch

    from jupiter.models.folder import save_model_dir
    from jupiter.models.loading import load_for_inference, merge_adapter

    if kind == "model" and quant == "auto":
        _copy(path, dest)
        how = "copied"
    elif kind == "adapter" and quant == "auto":
        merge_adapter(path, dest)  # in the base's own dtype
        how = "adapter merged into its base"
    else:
        dtype = getattr(torch, DTYPES[quant])
        model, tokenizer = load_for_inference(path, dtype=dtype)
        save_model_dir(dest, model, tokenizer)
        how = "adapter merged into its base" if kind == "adapter" else f"cast to {DTYPES[quant]}"
    if not (dest / "config.json").is_file():
        raise JupiterError(f"writing the model into {dest} failed: no config.json came out")
    return {"how": how, **_finish(dest)}
