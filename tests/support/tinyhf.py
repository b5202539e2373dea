"""Tiny random Hugging Face causal LMs of each family, with tokenizers and chat templates,
built on the spot (nothing is downloaded). Import from tests as `from tinyhf import ...`.

Each family gets the special tokens and chat template of its real instruct models:
- mistral: `<s>[INST] q [/INST] a</s>` (Mistral-7B-Instruct-v0.2), eos `</s>`, no pad token;
- llama: Llama-3 headers, eos `<|eot_id|>`, pad `<|finetune_right_pad_id|>`;
- qwen2: ChatML `<|im_start|>role\\n…<|im_end|>`, eos `<|im_end|>`, pad `<|endoftext|>`, no bos.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import (
    LlamaConfig,
    LlamaForCausalLM,
    MistralConfig,
    MistralForCausalLM,
    PreTrainedModel,
    PreTrainedTokenizerFast,
    Qwen2Config,
    Qwen2ForCausalLM,
)

from jupiter.models.folder import save_hf_model

Family = Literal["llama", "mistral", "qwen2"]
FAMILIES: tuple[Family, ...] = ("llama", "mistral", "qwen2")

MISTRAL_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}"
    "{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}"
    "{% endif %}"
    "{% if message['role'] == 'user' %}{{ '[INST] ' + message['content'] + ' [/INST]' }}"
    "{% elif message['role'] == 'assistant' %}{{ message['content'] + eos_token }}"
    "{% else %}{{ raise_exception('Only user and assistant roles are supported!') }}"
    "{% endif %}{% endfor %}"
)
LLAMA_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}"
    "<|start_header_id|>{{ m['role'] }}<|end_header_id|>\n\n{{ m['content'] | trim }}<|eot_id|>"
    "{% endfor %}{% if add_generation_prompt %}"
    "<|start_header_id|>assistant<|end_header_id|>\n\n{% endif %}"
)
QWEN2_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

SPECIALS: dict[Family, dict[str, str | None]] = {
    "mistral": {"bos": "<s>", "eos": "</s>", "unk": "<unk>", "pad": None},
    "llama": {
        "bos": "<|begin_of_text|>",
        "eos": "<|eot_id|>",
        "unk": None,
        "pad": "<|finetune_right_pad_id|>",
    },
    "qwen2": {"bos": None, "eos": "<|im_end|>", "unk": None, "pad": "<|endoftext|>"},
}
EXTRA: dict[Family, list[str]] = {
    "mistral": [],
    "llama": ["<|start_header_id|>", "<|end_header_id|>"],
    "qwen2": ["<|im_start|>"],
}
TEMPLATES: dict[Family, str] = {
    "mistral": MISTRAL_TEMPLATE,
    "llama": LLAMA_TEMPLATE,
    "qwen2": QWEN2_TEMPLATE,
}

CORPUS = [
    "def add(a, b):\n    return a + b\n",
    "The list.append method adds one item to the end of a list.",
    "A dictionary maps keys to values; dict.get returns a default when a key is missing.",
    "for i in range(10):\n    print(i * i)\n",
    "What does str.split do? It splits a string at a separator and returns a list.",
    "Use with open(path) as f: to close the file when the block ends.",
    "import os\nos.path.join('a', 'b')\n",
    "Exceptions are raised with raise and caught with try and except.",
    "INST user assistant system question answer hello world python code",
] * 4


def _bpe(specials: list[str], vocab_size: int) -> Tokenizer:
    """A byte-level BPE trained on CORPUS with these special tokens first."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(CORPUS, trainer)
    return tok


def tiny_tokenizer(family: Family, vocab_size: int = 400) -> PreTrainedTokenizerFast:
    """A byte-level BPE trained on a few KB, with the family's specials and chat template."""
    sp = SPECIALS[family]
    specials = [t for t in (sp["bos"], sp["eos"], sp["unk"], sp["pad"]) if t] + EXTRA[family]
    tok = _bpe(specials, vocab_size)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token=sp["bos"],
        eos_token=sp["eos"],
        unk_token=sp["unk"],
        pad_token=sp["pad"],
        additional_special_tokens=EXTRA[family] or None,
    )
    fast.chat_template = TEMPLATES[family]
    return fast


def tiny_config(family: Family, vocab_size: int, **over: object) -> object:
    common = dict(
        vocab_size=vocab_size,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        tie_word_embeddings=False,
    )
    common.update(over)
    if family == "llama":
        return LlamaConfig(**common)
    if family == "mistral":
        return MistralConfig(**common, sliding_window=None)
    return Qwen2Config(**common)


def tiny_model(family: Family, vocab_size: int, seed: int = 0) -> PreTrainedModel:
    torch.manual_seed(seed)
    cfg = tiny_config(family, vocab_size)
    cls = {"llama": LlamaForCausalLM, "mistral": MistralForCausalLM, "qwen2": Qwen2ForCausalLM}
    return cls[family](cfg)  # type: ignore[arg-type]


def save_tiny(family: Family, out: Path, seed: int = 0) -> Path:
    """An HF model dir (config, safetensors, tokenizer with chat template) at `out`."""
    tok = tiny_tokenizer(family)
    model = tiny_model(family, len(tok), seed)
    eos = tok.eos_token_id
    model.config.eos_token_id = eos
    model.config.bos_token_id = tok.bos_token_id
    model.config.pad_token_id = tok.pad_token_id
    model.generation_config.eos_token_id = eos
    model.generation_config.pad_token_id = tok.pad_token_id
    save_hf_model(model, out)  # without accelerate's DeepSpeed import
    tok.save_pretrained(out)
    return out


# Base (pretrained, not instruct) tokenizers: the turn tokens are in the vocabulary, but no
# chat template comes with them (Gemma 3 270M base, Llama 3 8B base).
BaseKind = Literal["gemma", "llama3"]
BASE_SPECIALS: dict[BaseKind, dict[str, str]] = {
    "gemma": {"bos": "<bos>", "eos": "<eos>", "pad": "<pad>"},
    "llama3": {"bos": "<|begin_of_text|>", "eos": "<|end_of_text|>", "pad": "<|reserved_0|>"},
}
BASE_EXTRA: dict[BaseKind, list[str]] = {
    "gemma": ["<start_of_turn>", "<end_of_turn>"],
    "llama3": ["<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"],
}


def tiny_base_tokenizer(kind: BaseKind, vocab_size: int = 400) -> PreTrainedTokenizerFast:
    """A byte-level BPE with a base model's specials and turn tokens, and no chat template."""
    sp = BASE_SPECIALS[kind]
    tok = _bpe([sp["pad"], sp["eos"], sp["bos"], *BASE_EXTRA[kind]], vocab_size)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token=sp["bos"],
        eos_token=sp["eos"],
        pad_token=sp["pad"],
        additional_special_tokens=BASE_EXTRA[kind],
    )
    assert fast.chat_template is None
    return fast


def save_tiny_base(kind: BaseKind, out: Path, seed: int = 0) -> Path:
    """A tiny random model dir with a base tokenizer (no chat template): Gemma 3 text
    (model_type gemma3_text) for "gemma", Llama (model_type llama) for "llama3"."""
    from transformers import Gemma3ForCausalLM, Gemma3TextConfig

    tok = tiny_base_tokenizer(kind)
    torch.manual_seed(seed)
    if kind == "gemma":
        cfg = Gemma3TextConfig(
            vocab_size=len(tok),
            hidden_size=64,
            intermediate_size=128,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            head_dim=16,
            max_position_embeddings=256,
            sliding_window=64,
            tie_word_embeddings=False,
        )
        model: PreTrainedModel = Gemma3ForCausalLM(cfg)
    else:
        model = tiny_model("llama", len(tok), seed)
    for config in (model.config, model.generation_config):
        config.eos_token_id = tok.eos_token_id
        config.bos_token_id = tok.bos_token_id
        config.pad_token_id = tok.pad_token_id
    save_hf_model(model, out)  # without accelerate's DeepSpeed import
    tok.save_pretrained(out)
    return out


# A sentence-transformers embedder: a tiny random BERT (2 layers, hidden 32) under mean
# pooling, with a WordPiece vocabulary of the given texts' words. Imported on call, so tests
# that never embed do not pay for sentence-transformers.
EMBED_DIM = 32


def save_tiny_embedder(out: Path, texts: list[str], seed: int = 0) -> Path:
    """A sentence-transformers model dir at `out` (modules.json, the BERT's config and
    safetensors, its tokenizer, the pooling module) that knows every word of `texts`."""
    import re

    from sentence_transformers import SentenceTransformer
    from tokenizers import normalizers, processors
    from transformers import BertConfig, BertModel

    try:  # sentence-transformers >= 6; older releases export them from .models
        from sentence_transformers.sentence_transformer.modules import Pooling, Transformer
    except ImportError:
        from sentence_transformers.models import Pooling, Transformer

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    words = sorted({w for t in texts for w in re.findall(r"\w+|[^\w\s]", t.lower())})
    vocab = {w: i for i, w in enumerate(specials + words)}
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B [SEP]",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    tok.decoder = decoders.WordPiece()
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    )
    torch.manual_seed(seed)
    cfg = BertConfig(
        vocab_size=len(vocab),
        hidden_size=EMBED_DIM,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=128,
    )
    bert = out.parent / f"{out.name}-bert"
    BertModel(cfg).save_pretrained(bert, safe_serialization=True)
    fast.save_pretrained(bert)
    modules = [Transformer(str(bert), max_seq_length=128), Pooling(EMBED_DIM, "mean")]
    SentenceTransformer(modules=modules, device="cpu").save(str(out))
    return out
