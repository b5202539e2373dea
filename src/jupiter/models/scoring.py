"""Log-likelihoods of given tokens under a causal LM, without the vocabulary-wide logits.

Bits-per-byte and multiple-choice scoring only need the log-probability of the tokens that
are there. With a 262k vocabulary, the logits of a batch of 8 × 256 positions take 2 GiB
in fp32 (twice with the log-softmax); the fused loss of models/loss.py projects the final
hidden states chunk by chunk instead, over the scored positions only.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from jupiter.data.chat import IGNORE
from jupiter.models.loss import fused_linear_ce, head_of


def _plain_nll(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    nll = F.cross_entropy(
        logits.float().flatten(0, 1), targets.flatten(), ignore_index=IGNORE, reduction="none"
    )
    return nll.reshape(targets.shape).sum(dim=1)


def last_logits_match(
    hidden: torch.Tensor, logits: torch.Tensor, weight: torch.Tensor, cap: float | None
) -> bool:
    """The final hidden states are what the head projects (the final norm applied): the
    model's own last-position logits come out of them."""
    mine = hidden[:, -1].to(weight.dtype) @ weight.t()
    if cap is not None:
        mine = torch.tanh(mine / cap) * cap
    theirs = logits[:, -1].to(mine.dtype)
    scale = theirs.abs().max().clamp(min=1.0)
    return mine.shape == theirs.shape and float((mine - theirs).abs().max() / scale) < 2e-2


@torch.no_grad()
def target_nll(
    model: torch.nn.Module,
    input_ids: torch.Tensor,
    attention_mask: torch.Tensor,
    targets: torch.Tensor,
) -> torch.Tensor:
    """Summed negative log-likelihood (nats, fp32) of each row's targets: `targets[r, p]` is
    the token that position p predicts, IGNORE where nothing is scored. Returns shape (B,)."""
    head = head_of(model)
    kwargs = {"input_ids": input_ids, "attention_mask": attention_mask, "use_cache": False}
    if head is None:
        return _plain_nll(model(**kwargs).logits, targets)
    weight, cap = head
    # one position's logits, to check that the hidden states are the head's input
    out = model(**kwargs, output_hidden_states=True, logits_to_keep=1)
    hidden = out.hidden_states[-1]
    if not last_logits_match(hidden, out.logits, weight, cap):
        return _plain_nll(model(**kwargs).logits, targets)
    dtype = weight.dtype if weight.dtype != torch.float16 else torch.float32
    rows = [
        fused_linear_ce(hidden[r], weight, targets[r], cap, compute_dtype=dtype)
        for r in range(targets.shape[0])
    ]
    return torch.stack(rows)


@torch.no_grad()
def shared_prefix_nll(
    model: torch.nn.Module, prompt: list[int], continuations: list[list[int]], pad_id: int
) -> torch.Tensor | None:
    """Summed NLL of each continuation after one shared prompt, the prompt run once.

    The prompt but its last token fills a KV cache, which is repeated for every
    continuation; then one batch of `[last prompt token] + continuation` rows (right
    padded, so each row's positions go on from the prompt's) scores the continuations
    from the final hidden states, as target_nll does. Multiple-choice questions with
    long (open-book) prompts cost one prompt instead of one per choice. None when this
    cannot be done exactly (a prompt of one token, no fusable head, hidden states that
    are not the head's input): the caller scores the rows whole."""
    head = head_of(model)
    if head is None or len(prompt) < 2 or not continuations:
        return None
    weight, cap = head
    dev = weight.device
    pre = model(input_ids=torch.tensor([prompt[:-1]], device=dev), use_cache=True, logits_to_keep=1)
    cache = getattr(pre, "cache", None) or getattr(pre, "past_key_values", None)
    if cache is None or not hasattr(cache, "batch_repeat_interleave"):
        return None
    k, width, done = len(continuations), 1 + max(len(c) for c in continuations), len(prompt) - 1
    cache.batch_repeat_interleave(k)
    ids = torch.full((k, width), pad_id, dtype=torch.long)
    mask = torch.zeros((k, done + width), dtype=torch.long)
    mask[:, :done] = 1
    targets = torch.full((k, width), IGNORE, dtype=torch.long)
    for r, cont in enumerate(continuations):
        ids[r, : 1 + len(cont)] = torch.tensor([prompt[-1], *cont], dtype=torch.long)
        mask[r, done : done + 1 + len(cont)] = 1
        if cont:  # position p predicts the token at p + 1
            targets[r, : len(cont)] = torch.tensor(cont, dtype=torch.long)
    out = model(
        input_ids=ids.to(dev),
        attention_mask=mask.to(dev),
        **{_cache_kwarg(model): cache},
        use_cache=True,
        output_hidden_states=True,
        logits_to_keep=1,
    )
    hidden = out.hidden_states[-1]
    if not last_logits_match(hidden, out.logits, weight, cap):
        return None
    dtype = weight.dtype if weight.dtype != torch.float16 else torch.float32
    return torch.stack(
        [
            fused_linear_ce(hidden[r], weight, targets[r].to(dev), cap, compute_dtype=dtype)
            for r in range(k)
        ]
    )


def _cache_kwarg(model: torch.nn.Module) -> str:
    """transformers 5.24 renamed forward's `past_key_values` to `cache`."""
    import inspect

    try:
        params = inspect.signature(model.forward).parameters
    except (TypeError, ValueError):
        return "past_key_values"
    return "cache" if "cache" in params else "past_key_values"
