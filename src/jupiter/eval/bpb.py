"""Bits per byte on held-out text: a language-model score that does not depend on the tokenizer.

bpb = (sum of next-token NLL in nats) / ln 2 / (UTF-8 bytes of the text scored), so models
with different vocabularies (a 2k-token domain tokenizer, a 32k-token base model) compare
on the same scale (the measure used by Gao et al. 2020, "The Pile").

Windowing: each text is encoded as [bos] + tokens and cut into non-overlapping windows of
`context_length` tokens; a window is conditioned only on its own tokens, and every token
after bos is predicted exactly once (the first token of a window is the last target of the
previous one). This is cheaper than a sliding window with a stride and gives a slightly
higher (pessimistic) bpb for texts longer than one window; with held-out chunks of about
the context length, most texts fit in one window anyway.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import torch
from transformers import PreTrainedTokenizerBase

from jupiter.errors import JupiterError
from jupiter.models.scoring import target_nll

IGNORE = -100  # target id that cross_entropy skips (padding)


def take_bytes(texts: Sequence[str], max_bytes: int) -> list[str]:
    """Texts in order until `max_bytes` UTF-8 bytes; the last one is cut to fit the budget."""
    out: list[str] = []
    left = max_bytes
    for text in texts:
        if left <= 0:
            break
        raw = text.encode("utf-8")
        if len(raw) > left:
            # cut on a character boundary: a split multi-byte character is dropped
            text = raw[:left].decode("utf-8", errors="ignore")
            raw = text.encode("utf-8")
        if raw:
            out.append(text)
            left -= len(raw)
    return out


def _start_id(tokenizer: PreTrainedTokenizerBase) -> int | None:
    """The token every text is conditioned on: bos, else eos (GPT-2 style), else none."""
    for tid in (tokenizer.bos_token_id, tokenizer.eos_token_id):
        if isinstance(tid, int):
            return tid
    return None


def _windows(ids: list[int], context_length: int) -> list[tuple[list[int], list[int]]]:
    """(inputs, targets) pairs of non-overlapping windows; targets are inputs shifted by one."""
    out = []
    for start in range(0, len(ids) - 1, context_length):
        inputs = ids[start : start + context_length]
        targets = ids[start + 1 : start + context_length + 1]
        out.append((inputs[: len(targets)], targets))
    return out


def _batch_nll(
    model: torch.nn.Module,
    batch: Sequence[tuple[list[int], list[int]]],
    pad_id: int,
    device: str | torch.device,
) -> list[float]:
    """Summed NLL (nats) of the targets of each window of a batch, right-padded."""
    width = max(len(inp) for inp, _ in batch)
    inputs = torch.full((len(batch), width), pad_id, dtype=torch.long)
    targets = torch.full((len(batch), width), IGNORE, dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    for row, (inp, tgt) in enumerate(batch):
        inputs[row, : len(inp)] = torch.tensor(inp)
        targets[row, : len(tgt)] = torch.tensor(tgt)
        mask[row, : len(inp)] = 1
    # fp32 log-softmax whatever the model's dtype; padding scores 0; summed per row for
    # per-document figures, without the vocabulary-wide logits
    nll = target_nll(model, inputs.to(device), mask.to(device), targets.to(device))
    return [float(v) for v in nll.tolist()]


def bits_per_byte(
    model: torch.nn.Module,
    tokenizer: PreTrainedTokenizerBase,
    texts: Sequence[str],
    context_length: int,
    max_bytes: int,
    device: str | torch.device = "cpu",
    batch_size: int = 8,
) -> dict[str, Any]:
    """Score `texts` (in order, up to `max_bytes` UTF-8 bytes) with a causal LM on `device`.

    The model must already be on `device`. Returns {"bpb", "bytes", "tokens", "nll_nats",
    "doc_bits", "doc_bytes"}, where `tokens` counts the predicted tokens and doc_bits /
    doc_bytes are per scored text, in order (for a bootstrap interval over documents, see
    eval/stats.py ratio_ci). The loss is taken in fp32; on a GPU, call it
    inside `torch.autocast(...)` for bf16 matmuls (on 2 CPU cores bf16 autocast changed bpb
    by ~1e-5 relative and was not reliably faster, so fp32 is the default).
    """
    if context_length < 1 or batch_size < 1:
        raise JupiterError("bits_per_byte needs context_length >= 1 and batch_size >= 1")
    scored = take_bytes(texts, max_bytes)
    n_bytes = sum(len(t.encode("utf-8")) for t in scored)
    if n_bytes == 0:
        raise JupiterError("no held-out text to measure bits-per-byte on (is the corpus empty?)")
    start = _start_id(tokenizer)
    windows: list[tuple[list[int], list[int]]] = []
    owner: list[int] = []  # the text each window belongs to
    for doc, text in enumerate(scored):
        ids = tokenizer.encode(text, add_special_tokens=False)
        got = _windows(([start] if start is not None else []) + ids, context_length)
        windows += got
        owner += [doc] * len(got)
    # longest first, so each batch pads little; the sums do not depend on the order
    order = sorted(range(len(windows)), key=lambda k: len(windows[k][0]), reverse=True)
    pad_id = tokenizer.pad_token_id if isinstance(tokenizer.pad_token_id, int) else 0
    was_training = model.training
    model.eval()
    doc_nll = [0.0] * len(scored)
    try:
        with torch.no_grad():
            for i in range(0, len(order), batch_size):
                part = order[i : i + batch_size]
                got_nll = _batch_nll(model, [windows[k] for k in part], pad_id, device)
                for k, v in zip(part, got_nll, strict=True):
                    doc_nll[owner[k]] += v
    finally:
        model.train(was_training)
    nll = sum(doc_nll)
    n_tokens = sum(len(t) for _, t in windows)
    return {
        "bpb": nll / math.log(2) / n_bytes,
        "bytes": n_bytes,
        "tokens": n_tokens,
        "nll_nats": nll,
        "doc_bits": [v / math.log(2) for v in doc_nll],
        "doc_bytes": [len(t.encode("utf-8")) for t in scored],
    }


def bpb_figures(
    model: torch.nn.Module,
    tokenizer: PreTrainedTokenizerBase,
    texts: Sequence[str],
    context_length: int,
    max_bytes: int,
    device: str | torch.device = "cpu",
) -> dict[str, Any]:
    """`bits_per_byte` as a report's figures: {"bpb", "bpb_ci", "bytes", "docs"}, the interval
    a bootstrap over the scored texts (eval/stats.py ratio_ci) and docs the per-text bits and
    bytes that a paired comparison resamples."""
    from jupiter.eval.stats import ratio_ci

    with torch.no_grad():
        got = bits_per_byte(model, tokenizer, texts, context_length, max_bytes, device)
    ci = ratio_ci(got["doc_bits"], got["doc_bytes"])
    return {
        "bpb": got["bpb"],
        "bpb_ci": None if ci is None else list(ci),
        "bytes": got["bytes"],
        "docs": {"bits": got["doc_bits"], "bytes": got["doc_bytes"]},
    }
