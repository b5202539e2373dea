"""The parts of the training loss above the fused kernel (models/loss.py, which scoring uses
too, with the `logits_to_keep` helpers that spare the forward the logits nobody reads):
train.vocab corpus's sampled softmax."""

from __future__ import annotations

import math
from typing import Any

import torch

from jupiter.data.chat import IGNORE
from jupiter.errors import JupiterError


class CorpusVocab:
    """train.vocab corpus: the training loss's softmax over the tokens of the training rows
    and a fresh random sample of the others. A domain's text uses a few percent of a large
    vocabulary (ten stdlib modules' docs: 7,556 of Gemma 3's 262,144), and the head's
    matmul and softmax scale with the rows of the weight they see. The tokens the data
    never holds still share the normalisation through the sample: each micro-batch draws
    as many of them as are kept, their logits offset by log(others / drawn), so the sampled
    sum estimates theirs without bias and the gradient keeps pushing them down (a sampled
    softmax: Jean et al. 2015; Bengio & Senecal 2008). Without them the left-out tokens'
    logits drift up unchecked. Used only where the loss is trained: held-out loss, eval and
    generation project onto the whole vocabulary."""

    def __init__(
        self, ids: Any, vocab_size: int, device: torch.device, samples: int | None = None
    ) -> None:
        keep = torch.as_tensor(ids, dtype=torch.long)
        if keep.numel() and (int(keep.min()) < 0 or int(keep.max()) >= vocab_size):
            raise JupiterError(
                f"train.vocab: corpus: the data holds token id {int(keep.max())}"
                f" beyond the model's {vocab_size} outputs: is the tokenizer "
                "the model's?"
            )
        place = torch.full((vocab_size,), -1, dtype=torch.long)
        place[keep] = torch.arange(keep.numel())
        others = (place < 0).nonzero().squeeze(1)
        self.keep, self.others = keep.to(device), others.to(device)
        self.place = place.to(device)
        self.size, self.vocab_size = int(keep.numel()), vocab_size
        drawn = self.size if samples is None else samples
        self.drawn = min(max(0, drawn), int(others.numel()))
        self.offset = math.log(others.numel() / self.drawn) if self.drawn else 0.0
        self._frozen: tuple[torch.Tensor, torch.Tensor] | None = None  # (weight, its rows)

    def head(self, weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        """(the rows of the head's weight the loss sees, their logit offsets): the kept
        rows (sliced once when the head is frozen, as under LoRA; a trained head's
        gradient reaches them through the slice), then this call's sample of the others."""
        if weight.requires_grad:
            kept = weight.index_select(0, self.keep)
        else:
            if self._frozen is None or self._frozen[0] is not weight:
                self._frozen = (weight, weight.detach().index_select(0, self.keep))
            kept = self._frozen[1]
        if not self.drawn:
            return kept, None
        pick = torch.randint(0, self.others.numel(), (self.drawn,), device=self.others.device)
        drawn = weight.index_select(0, self.others[pick])
        if not weight.requires_grad:
            drawn = drawn.detach()
        bias = torch.zeros(self.size + self.drawn, dtype=torch.float32, device=weight.device)
        bias[self.size :] = self.offset
        return torch.cat([kept, drawn]), bias

    def labels(self, labels: torch.Tensor) -> torch.Tensor:
        """Targets as places among the kept ids (IGNORE kept)."""
        return torch.where(labels == IGNORE, labels, self.place[labels.clamp(min=0)])

    def line(self) -> str:
        share = self.size / max(1, self.vocab_size)
        return (
            f"train.vocab corpus: the loss's softmax over the {self.size:,} tokens of the "
            f"training data ({share:.1%} of {self.vocab_size:,}) and {self.drawn:,} others "
            "drawn afresh each micro-batch; held-out loss and eval use them all"
        )
