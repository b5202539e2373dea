"""Helpers of the export tests. Tiny models built here (nothing downloaded): Jupiter's
from-scratch preset with its own trained tokenizer, the tinyhf families, and Gemma 3 text models shaped as
llama.cpp runs Gemma 3 (the attention scale is 1/sqrt(head_dim), so head_dim is 256 as in
the real ones), one with a byte-level tokenizer and one with a SentencePiece-style one."""

from __future__ import annotations

import json
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedModel

from tinyhf import CORPUS

SPACE = "\u2581"


def _save(model: PreTrainedModel, tok: object, out: Path) -> Path:
    for config in (model.config, model.generation_config):
        config.eos_token_id = tok.eos_token_id  # type: ignore[attr-defined]
        config.bos_token_id = tok.bos_token_id  # type: ignore[attr-defined]
        config.pad_token_id = tok.pad_token_id  # type: ignore[attr-defined]
    model.save_pretrained(out, safe_serialization=True)
    tok.save_pretrained(out)  # type: ignore[attr-defined]
    return out


def save_preset(out: Path, seed: int = 0) -> Path:
    """A Jupiter from-scratch model: the `tiny` preset (tied embeddings) with a tokenizer
    trained by Jupiter on a few KB, and its generic chat template."""
    from jupiter.data.tokenizer import train_tokenizer
    from jupiter.models.presets import ModelConfig, build_model

    tok = train_tokenizer(CORPUS * 3, 400, out / "tokenizer")
    config = ModelConfig.from_preset(
        "tiny", len(tok), 128, tok.pad_token_id, tok.bos_token_id, tok.eos_token_id
    )
    return _save(build_model(config, seed), tok, out)


def save_gemma(out: Path, tok: object, seed: int = 0, **over: object) -> Path:
    from transformers import Gemma3ForCausalLM, Gemma3TextConfig

    torch.manual_seed(seed)
    shape = dict(
        vocab_size=len(tok),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,  # type: ignore[arg-type]
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=256,
        query_pre_attn_scalar=256,
        max_position_embeddings=256,
        sliding_window=64,
    )
    shape.update(over)
    return _save(Gemma3ForCausalLM(Gemma3TextConfig(**shape)), tok, out)


def spm_tokenizer() -> object:
    """A SentencePiece-style BPE (spaces as U+2581, byte fallback), Gemma's layout: the
    kind of tokenizer Gemma, Llama 2 and Mistral ship."""
    from tokenizers import Tokenizer, models, normalizers, trainers
    from transformers.models.gemma.tokenization_gemma import GemmaTokenizer

    from jupiter.data.templates import GEMMA

    specials = ["<pad>", "<eos>", "<bos>", "<unk>", "<start_of_turn>", "<end_of_turn>"]
    tok = Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True))
    tok.normalizer = normalizers.Replace(" ", SPACE)
    trainer = trainers.BpeTrainer(
        vocab_size=600, special_tokens=specials + [f"<0x{i:02X}>" for i in range(256)]
    )
    tok.train_from_iterator(CORPUS, trainer)
    model = json.loads(tok.to_str())["model"]
    merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in model["merges"]]
    gemma = GemmaTokenizer(vocab=model["vocab"], merges=merges)
    gemma.add_special_tokens({"additional_special_tokens": specials[4:]})
    gemma.chat_template = GEMMA
    return gemma


def reload_gguf(path: Path) -> tuple[PreTrainedModel, object]:
    """(model, tokenizer) read back from a GGUF file by transformers' GGUF loader (the
    file parsed once for its config, tokenizer and weights, as Jupiter's import does)."""
    from jupiter.models.gguf_import import one_reading

    with one_reading(path):
        tok = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
        model = AutoModelForCausalLM.from_pretrained(
            path.parent, gguf_file=path.name, dtype=torch.float32
        )
    return model.eval(), tok


def load_hf(path: Path) -> tuple[PreTrainedModel, object]:
    tok = AutoTokenizer.from_pretrained(path)
    return AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).eval(), tok


@torch.no_grad()
def logits(model: PreTrainedModel, ids: list[int]) -> torch.Tensor:
    return model(torch.tensor([ids])).logits[0]


@torch.no_grad()
def greedy(model: PreTrainedModel, ids: list[int], n: int = 12) -> list[int]:
    """n greedy tokens (no stop: the two models are compared token for token)."""
    out = model.generate(
        torch.tensor([ids]),
        attention_mask=torch.ones(1, len(ids), dtype=torch.long),
        max_new_tokens=n,
        min_new_tokens=n,
        do_sample=False,
        pad_token_id=0,
    )
    return out[0, len(ids) :].tolist()
