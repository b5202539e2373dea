"""A Hugging Face tokenizer as GGUF metadata (llama.cpp's `tokenizer.ggml.*` keys), read from
its tokenizer.json, so llama.cpp, Ollama and transformers' GGUF reader tokenize as it does.

Two kinds of BPE are written, the two the families Jupiter trains use:
- byte-level BPE (`gpt2`): Jupiter's own tokenizers, GPT-2, Llama 3, Qwen2. The text split
  before the merges (`tokenizer.ggml.pre`) is named from the pre-tokenizer: GPT-2's regex, or
  the Llama 3 / Qwen2 split patterns; any other split is refused rather than guessed;
- SentencePiece-style BPE with byte fallback (`llama`): Llama 2, Mistral, Gemma. llama.cpp
  merges such a vocabulary by token score, so each token's score is minus the rank of the
  merge that makes it (earlier merges first, as the tokenizer applies them); the merges
  themselves are written too, and transformers' reader uses them as they are.
Token types follow llama.cpp's converter: added special tokens are CONTROL, other added
tokens USER_DEFINED, `<0xNN>` BYTE, ids without a token `[PADn]` UNUSED.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jupiter.errors import JupiterError

if TYPE_CHECKING:
    import gguf
    from transformers import PreTrainedTokenizerBase

NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6  # llama.cpp's types
SPACE = "\u2581"  # SentencePiece's visible space
BYTE_TOKEN = re.compile(r"^<0x[0-9A-Fa-f]{2}>$")
# the split patterns of the published tokenizer.json files, by llama.cpp's pre-tokenizer name
SPLITS = {
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+": "llama-bpe",
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+": "qwen2",
}


@dataclass
class Vocab:
    """Everything the GGUF says about the tokenizer."""

    model: str  # "gpt2" (byte-level BPE) or "llama" (SentencePiece-style BPE)
    pre: str
    tokens: list[str]
    types: list[int]
    merges: list[str]
    scores: list[float] | None = None
    special: dict[str, int] = field(default_factory=dict)  # bos, eos, unk, pad, eot
    add_bos: bool = False
    add_eos: bool = False
    add_space_prefix: bool | None = None
    chat_template: str | None = None
    stop_ids: list[int] = field(default_factory=list)


def _nodes(node: Any) -> list[dict[str, Any]]:
    """A normalizer / pre-tokenizer and the ones a Sequence holds, flattened."""
    if not isinstance(node, dict):
        return []
    inner = node.get("pretokenizers") or node.get("normalizers") or []
    return [node] + [n for child in inner for n in _nodes(child)]


def _byte_level_pre(pre: Any) -> str:
    """llama.cpp's name for the split a byte-level tokenizer makes before merging."""
    nodes = _nodes(pre)
    splits = [n for n in nodes if n.get("type") == "Split"]
    byte_level = [n for n in nodes if n.get("type") == "ByteLevel"]
    if not splits and byte_level and byte_level[0].get("use_regex", True):
        return "gpt-2"  # ByteLevel's own regex is GPT-2's
    if len(splits) == 1 and not any(n.get("use_regex", True) for n in byte_level):
        pattern = (splits[0].get("pattern") or {}).get("Regex")
        if pattern in SPLITS:
            return SPLITS[pattern]
    shown = json.dumps(pre)[:160]
    raise JupiterError(
        f"the tokenizer splits text with a pre-tokenizer the GGUF writer does not know "
        f"({shown}): llama.cpp would split it differently; export --to hf and convert with "
        "llama.cpp's convert_hf_to_gguf.py"
    )


def _space_prefix(data: dict[str, Any]) -> bool:
    """Whether a SentencePiece-style tokenizer puts a space before the text."""
    for node in _nodes(data.get("normalizer")):
        if node.get("type") == "Prepend" and node.get("prepend") == SPACE:
            return True
    for node in _nodes(data.get("pre_tokenizer")):
        if node.get("type") == "Metaspace":
            scheme = node.get(
                "prepend_scheme", "always" if node.get("add_prefix_space") else "never"
            )
            return scheme in ("always", "first")
    return False


def _kind(data: dict[str, Any]) -> str:
    model = data.get("model") or {}
    if model.get("type") != "BPE":
        raise JupiterError(
            f"the tokenizer is a {model.get('type')} model: the GGUF writer reads BPE "
            "tokenizers (byte-level, or SentencePiece-style with byte fallback); export --to hf"
        )
    if any(n.get("type") == "ByteLevel" for n in _nodes(data.get("pre_tokenizer"))):
        return "gpt2"
    spm = (
        model.get("byte_fallback")
        or any(n.get("type") == "Metaspace" for n in _nodes(data.get("pre_tokenizer")))
        or any(
            n.get("type") == "Replace" and n.get("content") == SPACE
            for n in _nodes(data.get("normalizer"))
        )
    )
    if not spm:
        raise JupiterError(
            "the tokenizer is a BPE neither byte-level nor SentencePiece-style: the GGUF "
            "writer cannot describe it to llama.cpp; export --to hf"
        )
    return "llama"


def _merges(model: dict[str, Any]) -> list[tuple[str, str]]:
    out = []
    for m in model.get("merges") or []:
        a, b = m.split(" ", 1) if isinstance(m, str) else m
        out.append((a, b))
    return out


def _scores(tokens: list[str], types: list[int], merges: list[tuple[str, str]]) -> list[float]:
    """Minus the rank of the merge making each token; tokens no merge makes rank last."""
    rank: dict[str, int] = {}
    for i, (a, b) in enumerate(merges):
        rank.setdefault(a + b, i)
    last = float(len(merges))
    return [
        0.0 if kind != NORMAL else -float(rank.get(tok, last))
        for tok, kind in zip(tokens, types, strict=True)
    ]


def _looks_special(token: str) -> bool:
    # llama.cpp's converter treats these added tokens as control tokens even when the
    # tokenizer does not mark them special
    return (token.startswith("<|") and token.endswith("|>")) or (
        token.startswith("<unused") and token.endswith(">")
    )


def _token_table(
    tokenizer: PreTrainedTokenizerBase, kind: str, n_vocab: int
) -> tuple[list[str], list[int]]:
    by_id = {i: t for t, i in tokenizer.get_vocab().items()}
    if by_id and max(by_id) >= n_vocab:
        raise JupiterError(
            f"the tokenizer has ids up to {max(by_id)} but the model's embedding has "
            f"{n_vocab} rows: the tokenizer does not belong to this model"
        )
    added = {i: t for i, t in tokenizer.added_tokens_decoder.items()}
    tokens, types = [], []
    for i in range(n_vocab):
        tok = by_id.get(i)
        if tok is None:
            tokens.append(f"[PAD{i}]")
            types.append(UNUSED)
        elif i in added:
            special = added[i].special or _looks_special(tok)
            # llama.cpp matches user-defined tokens in raw text: spaces, not SPACE
            tokens.append(tok if special or kind == "gpt2" else tok.replace(SPACE, " "))
            types.append(CONTROL if special else USER_DEFINED)
        elif kind == "llama" and BYTE_TOKEN.match(tok):
            tokens.append(tok)
            types.append(BYTE)
        else:
            tokens.append(tok)
            types.append(UNKNOWN if tok == tokenizer.unk_token else NORMAL)
    return tokens, types


def _adds(tokenizer: PreTrainedTokenizerBase) -> tuple[bool, bool]:
    """(adds bos, adds eos) to plain text, as the tokenizer's post-processor does."""
    ids = tokenizer("a")["input_ids"]
    bos, eos = tokenizer.bos_token_id, tokenizer.eos_token_id
    return bool(ids) and bos is not None and ids[0] == bos, bool(ids) and eos is not None and ids[
        -1
    ] == eos


def read_vocab(tokenizer: PreTrainedTokenizerBase, n_vocab: int, stop_ids: list[int]) -> Vocab:
    """The GGUF description of `tokenizer` (a fast tokenizer) for a model whose embedding
    has `n_vocab` rows; `stop_ids`: every token that ends a reply (eos, the turn end)."""
    from jupiter.data.templates import turn_end_token

    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None:
        raise JupiterError("the model has no fast tokenizer (tokenizer.json): export --to hf")
    data = json.loads(backend.to_str())
    kind = _kind(data)
    pre = _byte_level_pre(data.get("pre_tokenizer")) if kind == "gpt2" else "default"
    tokens, types = _token_table(tokenizer, kind, n_vocab)
    merges = _merges(data["model"])
    add_bos, add_eos = _adds(tokenizer)
    special = {
        name: tid
        for name in ("bos", "eos", "unk", "pad")
        if isinstance(tid := getattr(tokenizer, f"{name}_token_id"), int)
    }
    turn_end = turn_end_token(tokenizer)
    eot = tokenizer.convert_tokens_to_ids(turn_end) if turn_end is not None else None
    if isinstance(eot, int) and turn_end != tokenizer.eos_token:
        special["eot"] = eot
    return Vocab(
        kind,
        pre,
        tokens,
        types,
        [f"{a} {b}" for a, b in merges],
        _scores(tokens, types, merges) if kind == "llama" else None,
        special,
        add_bos,
        add_eos,
        _space_prefix(data) if kind == "llama" else None,
        tokenizer.chat_template if isinstance(tokenizer.chat_template, str) else None,
        stop_ids,
    )


def add_vocab(writer: gguf.GGUFWriter, vocab: Vocab) -> None:
    """Write the tokenizer keys into a GGUF being written."""
    writer.add_tokenizer_model(vocab.model)
    writer.add_tokenizer_pre(vocab.pre)
    writer.add_token_list(vocab.tokens)
    writer.add_token_types(vocab.types)
    if vocab.scores is not None:
        writer.add_token_scores(vocab.scores)
    writer.add_token_merges(vocab.merges)
    adders = {
        "bos": writer.add_bos_token_id,
        "eos": writer.add_eos_token_id,
        "unk": writer.add_unk_token_id,
        "pad": writer.add_pad_token_id,
        "eot": writer.add_eot_token_id,
    }
    for name, tid in vocab.special.items():
        adders[name](tid)
    writer.add_add_bos_token(vocab.add_bos)
    writer.add_add_eos_token(vocab.add_eos)
    if vocab.add_space_prefix is not None:
        writer.add_add_space_prefix(vocab.add_space_prefix)
    if vocab.chat_template:
        writer.add_chat_template(vocab.chat_template)
