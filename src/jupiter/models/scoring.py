"""Log-likelihoods of given tokens under a causal LM, without the vocabulary-wide logits.

Bits-per-byte and multiple-choice scoring only need the log-probability of the tokens that
are there. With a 262k vocabulary, the logits of a batch of 8 × 256 positions take 2 GiB
in fp32 (twice with the log-softmax); the fused loss of train/loss.py projects the final
hidden states chunk by chunk instead, over the scored positions only.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from jupiter.data.chat import IGNORE
from jupiter.train.loss import fused_linear_ce, head_of


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
