"""Log-likelihoods of given tokens under a causal LM, without the vocabulary-wide logits.

Bits-per-byte and multiple-choice scoring only need the log-probability of the tokens that
are there. With a 262k vocabulary, the logits of a batch of 8 × 256 positions take 2 GiB
in fp32 (twice with the log-softmax); the fused loss of models/loss.py projects the final
hidden states chunk by chunk instead, over the scored positions only.
"""

from __future__ import annotations

import weakref
from typing import Any

import torch
import torch.nn.functional as F

from jupiter.data.chat import IGNORE
from jupiter.models.loss import head_of, no_logits, position_nll

# models whose final hidden states were checked to be the head's input (their logits come
# out of them): later forwards ask for no logits at all, since one row of logits over a
# 262k vocabulary reads the whole head, as much memory traffic as scoring a choice
_CHECKED: weakref.WeakKeyDictionary[torch.nn.Module, bool] = weakref.WeakKeyDictionary()


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


def checked_forward(
    model: torch.nn.Module, weight: torch.Tensor, cap: float | None, **inputs: Any
) -> tuple[bool, Any]:
    """(whether the model's final hidden states give its logits, the forward's output with
    its hidden states). Checked on one position's logits the first time for each model;
    once it holds, the forward computes no logits."""
    known = _CHECKED.get(model)
    keep = no_logits(inputs["input_ids"]) if known else 1
    out = model(**inputs, output_hidden_states=True, logits_to_keep=keep)
    if known is None:
        known = _CHECKED[model] = last_logits_match(out.hidden_states[-1], out.logits, weight, cap)
    return known, out


def rows_nll(
    hidden: torch.Tensor, weight: torch.Tensor, targets: torch.Tensor, cap: float | None
) -> torch.Tensor:
    """Summed NLL (nats, fp32) of each row's targets from final hidden states (B, L, D),
    `targets` (B, L) with IGNORE where nothing is scored: every row's scored positions in
    one pass over the head, so a batch of short continuations reads it once, not per row."""
    dtype = weight.dtype if weight.dtype != torch.float16 else torch.float32
    flat = targets.reshape(-1).to(hidden.device)
    where = (flat != IGNORE).nonzero().squeeze(1)
    out = torch.zeros(targets.shape[0], dtype=torch.float32, device=hidden.device)
    if where.numel():
        h = hidden.reshape(-1, hidden.shape[-1]).index_select(0, where)
        nll = position_nll(h, weight, flat.index_select(0, where), cap, dtype)
        out.index_add_(0, torch.div(where, targets.shape[1], rounding_mode="floor"), nll)
    return out


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
    fusable, out = checked_forward(model, weight, cap, **kwargs)
    if not fusable:
        return _plain_nll(model(**kwargs).logits, targets)
    return rows_nll(out.hidden_states[-1], weight, targets, cap)


def split_prefills(
    model: torch.nn.Module, cache: Any, prompts: list[list[int]], width: int, length: int
) -> dict[tuple[int, ...], Any]:
    """Each left-padded prompt's prefill cut out of a batch's KV cache (after generate; it
    holds `length` positions, the prompts padded to `width` and the tokens generated):
    {prompt ids: a one-row cache of all its tokens but the last}, what shared_prefix_nll
    would compute for it. Positions count from each row's first real token (generate's
    position ids follow the attention mask), so the row's keys are its own prefill's. {}
    when the cache is not a per-layer key/value store holding every position (a sliding
    layer that dropped the oldest), so nothing is taken from a cache that does not hold it."""
    from transformers import DynamicCache

    layers = getattr(cache, "layers", None)
    if not layers or not hasattr(cache, "update"):
        return {}
    kv: list[tuple[torch.Tensor, torch.Tensor]] = []
    for layer in layers:
        k, v = getattr(layer, "keys", None), getattr(layer, "values", None)
        if not (torch.is_tensor(k) and torch.is_tensor(v)) or k.dim() != 4:
            return {}
        if int(k.shape[-2]) != length:
            return {}  # a sliding-window layer kept only its last positions
        kv.append((k, v))
    config: Any = model.config
    out: dict[tuple[int, ...], Any] = {}
    for r, prompt in enumerate(prompts):
        if len(prompt) < 2:
            continue
        pad = width - len(prompt)
        one = DynamicCache(config=config)
        for i, (k, v) in enumerate(kv):
            one.update(
                k[r : r + 1, :, pad : width - 1].clone(),
                v[r : r + 1, :, pad : width - 1].clone(),
                i,
            )
        out[tuple(prompt)] = one
    return out


@torch.no_grad()
def shared_prefix_nll(
    model: torch.nn.Module,
    prompt: list[int],
    continuations: list[list[int]],
    pad_id: int,
    prefill: Any = None,
) -> torch.Tensor | None:
    """Summed NLL of each continuation after one shared prompt, the prompt run once.

    The prompt but its last token fills a KV cache, which is repeated for every
    continuation; then one batch of `[last prompt token] + continuation` rows (right
    padded, so each row's positions go on from the prompt's) scores the continuations
    from the final hidden states, as target_nll does. Multiple-choice questions with
    long (open-book) prompts cost one prompt instead of one per choice. None when this
    cannot be done exactly (a prompt of one token, no fusable head, hidden states that
    are not the head's input): the caller scores the rows whole. `prefill`: that cache
    already computed (split_prefills), used in place of running the prompt again."""
    head = head_of(model)
    if head is None or len(prompt) < 2 or not continuations:
        return None
    weight, cap = head
    dev = weight.device
    if _CHECKED.get(model) is False:
        return None
    cache = prefill
    if cache is None or cache.get_seq_length() != len(prompt) - 1:
        pre_ids = torch.tensor([prompt[:-1]], device=dev)  # for the cache alone: no logits
        pre = model(input_ids=pre_ids, use_cache=True, logits_to_keep=no_logits(pre_ids))
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
    fusable, out = checked_forward(
        model,
        weight,
        cap,
        input_ids=ids.to(dev),
        attention_mask=mask.to(dev),
        **{_cache_kwarg(model): cache},
        use_cache=True,
    )
    if not fusable:
        return None
    return rows_nll(out.hidden_states[-1], weight, targets, cap)


def _cache_kwarg(model: torch.nn.Module) -> str:
    """transformers 5.24 renamed forward's `past_key_values` to `cache`."""
    import inspect

    try:
        params = inspect.signature(model.forward).parameters
    except (TypeError, ValueError):
        return "past_key_values"
    return "cache" if "cache" in params else "past_key_values"
