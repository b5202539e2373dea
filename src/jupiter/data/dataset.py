"""Pack encoded sequences into fixed-length rows; the data position (epoch, index) alone
decides the next batch, so a resumed run reads exactly what an uninterrupted one would.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np
import torch
from transformers import PreTrainedTokenizerBase

from jupiter.data.chat import IGNORE, Message, encode_chat, encode_text
from jupiter.errors import JupiterError
from jupiter.records import Example

Encoded = tuple[list[int], list[int]]  # (input ids, labels aligned with them)


class PackedDataset:
    """Sequences concatenated into one stream and cut into rows of context_length + 1 tokens.

    Row r is stream[r*L : r*L + L + 1] (L = context_length): consecutive rows overlap by one
    token, so every stream position after the first is a target exactly once (nanoGPT's
    `x = data[i:i+L]`, `y = data[i+1:i+1+L]`). Documents run across row boundaries, as in
    GPT-style pretraining; only the last row is padded (pad id, label -100).
    """

    def __init__(
        self, sequences: Sequence[Encoded], context_length: int, pad_id: int, seed: int = 0
    ) -> None:
        if context_length < 1:
            raise JupiterError("context_length must be at least 1")
        if any(len(i) != len(lab) for i, lab in sequences):
            raise JupiterError("every encoded sequence needs as many labels as ids")
        n = sum(len(i) for i, _ in sequences)
        if n < 2:
            raise JupiterError("no training data: the encoded examples hold fewer than 2 tokens")
        self.context_length = context_length
        self.pad_id = pad_id
        self.seed = seed
        self.tokens = n
        self.num_rows = -(-(n - 1) // context_length)  # ceil: every target covered
        padded = self.num_rows * context_length + 1
        # int64 so rows become torch.long tensors without a conversion copy per batch.
        self._ids = np.full(padded, pad_id, dtype=np.int64)
        self._labels = np.full(padded, IGNORE, dtype=np.int64)
        self._ids[:n] = np.fromiter((t for i, _ in sequences for t in i), np.int64, n)
        self._labels[:n] = np.fromiter((t for _, lab in sequences for t in lab), np.int64, n)
        self._perm_epoch = -1
        self._perm = np.arange(self.num_rows)

    @property
    def label_tokens(self) -> int:
        """Tokens that are loss targets (labels != -100, the first stream token excluded)."""
        return int((self._labels[1:] != IGNORE).sum())

    def row(self, r: int) -> tuple[np.ndarray, np.ndarray]:
        """Row r as (inputs, targets): targets[t] is the label of the token after inputs[t]."""
        lo = r * self.context_length
        hi = lo + self.context_length + 1
        return self._ids[lo : hi - 1], self._labels[lo + 1 : hi]

    def permutation(self, epoch: int) -> np.ndarray:
        """The row order of `epoch`: a pure function of (seed, epoch)."""
        if epoch != self._perm_epoch:
            self._perm = np.random.default_rng([self.seed, epoch]).permutation(self.num_rows)
            self._perm_epoch = epoch
        return self._perm

    def batches_per_epoch(self, batch_size: int) -> int:
        # A partial last batch is dropped (its rows come back next epoch in another order);
        # a dataset smaller than one batch still makes one, wrapping around its rows.
        return max(1, self.num_rows // batch_size)

    def next_position(self, epoch: int, index: int, batch_size: int) -> tuple[int, int]:
        """The data position after reading batch (epoch, index)."""
        if index + 1 >= self.batches_per_epoch(batch_size):
            return epoch + 1, 0
        return epoch, index + 1

    def batch(self, epoch: int, index: int, batch_size: int) -> tuple[torch.Tensor, torch.Tensor]:
        """(input_ids, labels), both (batch_size, context_length) int64.

        `labels` are already the next-token targets of `input_ids` (shifted): compute
        cross-entropy of logits[:, t] against labels[:, t] directly; do not pass them to an
        HF model's `labels=`, which would shift them a second time.
        """
        perm = self.permutation(epoch)
        picks = perm[(index * batch_size + np.arange(batch_size)) % self.num_rows]
        xs, ys = zip(*(self.row(int(r)) for r in picks), strict=True)
        return torch.from_numpy(np.stack(xs)), torch.from_numpy(np.stack(ys))


def _chat_messages(example: Example, system_prompt: str) -> list[Message]:
    messages = list(example.messages)
    if system_prompt and not (messages and messages[0]["role"] == "system"):
        messages.insert(0, {"role": "system", "content": system_prompt})
    return messages


def encode_examples(
    tokenizer: PreTrainedTokenizerBase,
    examples: Sequence[Example],
    texts: Sequence[str],
    raw_text_fraction: float,
    seed: int,
    system_prompt: str = "",
) -> list[Encoded]:
    """Encode "qa" examples as chats and mix in raw text to about `raw_text_fraction` of tokens.

    Raw text comes from "text" examples and `texts`, drawn in a seeded random order until the
    raw tokens reach the fraction of the total (the last one cut to fit; all of them if
    there is not enough).
    Fraction 0 uses no raw text; fraction 1 uses only raw text. The result is shuffled so
    packed rows mix both kinds.
    """
    if not 0.0 <= raw_text_fraction <= 1.0:
        raise JupiterError(f"raw_text_fraction must be in [0, 1], got {raw_text_fraction}")
    rng = random.Random(seed)
    chats: list[Encoded] = []
    if raw_text_fraction < 1.0:
        chats = [
            encode_chat(tokenizer, _chat_messages(e, system_prompt))
            for e in examples
            if e.kind == "qa" and e.messages
        ]
    pool = [e.text for e in examples if e.kind == "text" and e.text] + [t for t in texts if t]
    rng.shuffle(pool)
    chat_tokens = sum(len(ids) for ids, _ in chats)
    if raw_text_fraction <= 0.0:
        budget = 0.0
    elif raw_text_fraction >= 1.0 or chat_tokens == 0:
        budget = float("inf")
    else:
        # raw / (raw + chat) = f  =>  raw = f / (1 - f) * chat
        budget = raw_text_fraction / (1.0 - raw_text_fraction) * chat_tokens
    raws: list[Encoded] = []
    raw_tokens = 0
    for text in pool:
        if raw_tokens >= budget:
            break
        ids, labels = encode_text(tokenizer, text)
        # Cut the last text at the budget so one long document cannot skew the mix; a cut
        # text ends without eos, so the model is not taught to stop mid-document.
        keep = min(len(ids), int(budget - raw_tokens)) if budget != float("inf") else len(ids)
        if keep < 2:
            break
        raws.append((ids[:keep], labels[:keep]))
        raw_tokens += keep
    out = chats + raws
    rng.shuffle(out)
    return out
