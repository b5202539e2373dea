"""Pack encoded examples whole into fixed-length rows, with position ids that restart at
every example so attention never crosses from one example into another.

The data position (epoch, index) alone decides the next batch, so a resumed run reads
exactly what an uninterrupted one would; every rank derives its share of a global batch
from the same position, without communication.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from transformers import PreTrainedTokenizerBase

from jupiter.data.chat import IGNORE, Message, encode_chat, encode_text
from jupiter.errors import JupiterError
from jupiter.records import Example

Encoded = tuple[list[int], list[int]]  # (input ids, labels aligned with them)

# First-fit looks at this many open rows, so packing stays O(n). Measured on 50k lognormal
# chat lengths (mean 200-400 tokens, L 512-2048): rows 97.9-98.8% full, against 98.6-99.1%
# for unbounded first-fit (100x slower) and 78-81% for one open row.
WINDOW = 64
FORMAT = 1  # version of the .npz layout written by `save`


@dataclass
class Batch:
    """One micro-batch of packed rows, all (b, L) int64."""

    input_ids: torch.Tensor
    labels: torch.Tensor  # ALREADY the next-token targets of input_ids; IGNORE = no loss
    position_ids: torch.Tensor  # restart at 0 at every example (and at the padding)

    def to(self, device: torch.device | str) -> Batch:
        return Batch(
            self.input_ids.to(device), self.labels.to(device), self.position_ids.to(device)
        )


def _pieces(lengths: Sequence[int], context_length: int) -> list[tuple[int, int, int]]:
    """(sequence, start, length) of every piece, in input/target coordinates.

    A sequence of n tokens has n - 1 (input, target) pairs; they are cut into runs of at
    most context_length, i.e. token windows of context_length + 1 overlapping by one.
    """
    out = []
    for s, n in enumerate(lengths):
        for start in range(0, n - 1, context_length):
            out.append((s, start, min(context_length, n - 1 - start)))
    return out


def _first_fit(
    lengths: Sequence[int], context_length: int
) -> tuple[list[int], list[int], list[int]]:
    """Row and offset of each piece (first-fit, in order, over the WINDOW oldest open rows),
    and the tokens filled in each row."""
    rows: list[int] = []
    offsets: list[int] = []
    fill: list[int] = []
    open_rows: list[int] = []  # rows with room left, oldest first
    for m in lengths:
        r = next((o for o in open_rows if context_length - fill[o] >= m), -1)
        if r < 0:
            r = len(fill)
            fill.append(0)
            open_rows.append(r)
            if len(open_rows) > WINDOW:
                open_rows.pop(0)  # the oldest stays as it is, padded
        rows.append(r)
        offsets.append(fill[r])
        fill[r] += m
        if fill[r] == context_length:
            open_rows.remove(r)
    return rows, offsets, fill


class PackedDataset:
    """Encoded sequences as inputs/targets/positions rows of exactly context_length.

    Sequence (ids, labels) becomes inputs ids[:-1], targets labels[1:], positions 0..n-2
    (longer than context_length + 1 tokens: pieces overlapping by one token, positions
    restarting, so every target is covered once). Pieces are packed first-fit; the free end
    of a row is padding (pad_id, target IGNORE, positions 0, 1, ... of its own). HF Llama,
    Mistral and Qwen2 turn position resets into a block-causal mask when called with
    `position_ids` and no attention_mask (transformers' find_packed_sequence_indices).

    With `documents` set, the first `documents` sequences (raw text) are packed into rows of
    their own, apart from the rest (chats); `documents_first` then reads each epoch's
    document rows before its chat rows.
    """

    def __init__(
        self,
        sequences: Sequence[Encoded],
        context_length: int,
        pad_id: int,
        seed: int = 0,
        documents: int | None = None,
    ) -> None:
        if context_length < 1:
            raise JupiterError("context_length must be at least 1")
        if any(len(i) != len(lab) for i, lab in sequences):
            raise JupiterError("every encoded sequence needs as many labels as ids")
        kept = [s for s in sequences if len(s[0]) >= 2]
        if not kept:
            raise JupiterError("no training data: every encoded example holds fewer than 2 tokens")
        L = context_length
        pieces = _pieces([len(i) for i, _ in kept], L)
        lengths = [m for _, _, m in pieces]
        if documents is None:
            rows, offsets, fill = _first_fit(lengths, L)
            is_doc = None
        else:  # pieces come in sequence order: the documents' pieces first
            n_docs = sum(len(i) >= 2 for i, _ in sequences[:documents])
            cut = sum(s < n_docs for s, _, _ in pieces)
            rows, offsets, fill = _first_fit(lengths[:cut], L)
            rows_b, offsets_b, fill_b = _first_fit(lengths[cut:], L)
            is_doc = np.array([True] * len(fill) + [False] * len(fill_b))
            rows += [r + len(fill) for r in rows_b]
            offsets += offsets_b
            fill += fill_b
        n_rows = len(fill)
        ids = np.full((n_rows, L), pad_id, dtype=np.int32)
        targets = np.full((n_rows, L), IGNORE, dtype=np.int32)
        positions = np.zeros((n_rows, L), dtype=np.int32)
        ar = np.arange(L, dtype=np.int32)
        current = -1
        for (s, start, m), r, off in zip(pieces, rows, offsets, strict=True):
            if s != current:  # pieces come in sequence order: convert each sequence once
                current = s
                x = np.asarray(kept[s][0][:-1], dtype=np.int32)
                y = np.asarray(kept[s][1][1:], dtype=np.int32)
            ids[r, off : off + m] = x[start : start + m]
            targets[r, off : off + m] = y[start : start + m]
            positions[r, off : off + m] = ar[:m]
        for r, f in enumerate(fill):  # the padding is a segment of its own
            positions[r, f:] = ar[: L - f]
        self.context_length = L
        self.pad_id = pad_id
        self.seed = seed
        self.tokens = sum(fill)
        self.num_sequences = len(kept)
        self._set_rows(ids, targets, positions, is_doc)

    def _set_rows(
        self,
        ids: np.ndarray,
        targets: np.ndarray,
        positions: np.ndarray,
        is_doc: np.ndarray | None = None,
    ) -> None:
        self._ids, self._targets, self._positions = ids, targets, positions
        self.num_rows = int(ids.shape[0])
        # per-row loss-token counts, so a global batch's count is a sum of b numbers
        self._row_targets = (targets != IGNORE).sum(axis=1, dtype=np.int64)
        self._is_doc = is_doc  # rows of raw text, when packed apart (`documents`)
        self._first: tuple[int, int] | None = None  # documents_first's (run rows, epoch rows)
        self._perm_epoch = -1
        self._perm = np.arange(self.num_rows)

    @property
    def document_rows(self) -> int | None:
        """Rows of raw text when the documents were packed apart, else None."""
        return None if self._is_doc is None else int(self._is_doc.sum())

    def documents_first(self, run_rows: int, batch_size: int) -> None:
        """Read each epoch's document rows before its chat rows: of the rows an epoch reads
        (its batches of `batch_size`; the last epoch only up to `run_rows`, all the run
        reads), the documents' come first, then the chats', each kind in the epoch's seeded
        order. The same rows as the shuffled order, only read in another order, so a run
        shorter than an epoch still sees both kinds (continued pretraining, then Q&A)."""
        if self._is_doc is None:
            raise JupiterError(
                "documents_first needs the documents packed apart: build the dataset with "
                "`documents`"
            )
        self._first = (run_rows, self.batches_per_epoch(batch_size) * batch_size)
        self._perm_epoch = -1

    def token_ids(self) -> np.ndarray:
        """The sorted distinct token ids of the rows' inputs and targets (padding and
        IGNORE left out)."""
        inputs = np.unique(self._ids[self._ids != self.pad_id])
        return np.union1d(inputs, np.unique(self._targets[self._targets != IGNORE]))

    @property
    def label_tokens(self) -> int:
        """Targets that carry loss (!= IGNORE) over all rows."""
        return int(self._row_targets.sum())

    def row(self, r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Row r as int32 (ids, targets, positions); targets[t] is what follows ids[t]."""
        return self._ids[r], self._targets[r], self._positions[r]

    def permutation(self, epoch: int) -> np.ndarray:
        """The row order of `epoch`: a pure function of (seed, epoch)."""
        if epoch != self._perm_epoch:
            perm = np.random.default_rng([self.seed, epoch]).permutation(self.num_rows)
            if self._first is not None and self._is_doc is not None:
                run_rows, epoch_rows = self._first
                h = max(0, min(self.num_rows, epoch_rows, run_rows - epoch * epoch_rows))
                head = perm[:h]
                doc = self._is_doc[head]
                perm = np.concatenate([head[doc], head[~doc], perm[h:]])
            self._perm = perm
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

    def rows_of(self, epoch: int, index: int, batch_size: int) -> np.ndarray:
        """Row ids of global batch (epoch, index), wrapping when there are fewer rows."""
        if batch_size < 1:
            raise JupiterError(f"batch size must be at least 1, got {batch_size}")
        perm = self.permutation(epoch)
        return perm[(index * batch_size + np.arange(batch_size)) % self.num_rows]

    def batch(
        self, epoch: int, index: int, batch_size: int, rank: int = 0, world: int = 1
    ) -> Batch:
        """Rank `rank`'s share of global batch (epoch, index): batch_size // world rows.

        batch_size is the global micro-batch (per-process micro-batch x world); rank r takes
        the r-th contiguous slice of `rows_of`, so world=1 reads the same rows in one piece.
        """
        if world < 1 or batch_size % world != 0:
            raise JupiterError(
                f"the global micro-batch of {batch_size} rows does not split over {world} "
                f"processes: make the batch size a multiple of {world}"
            )
        if not 0 <= rank < world:
            raise JupiterError(f"rank {rank} is outside a world of {world} processes")
        rows = self.rows_of(epoch, index, batch_size)
        mine = rows[rank * batch_size // world : (rank + 1) * batch_size // world]

        def take(a: np.ndarray) -> torch.Tensor:
            return torch.from_numpy(a[mine].astype(np.int64))

        return Batch(take(self._ids), take(self._targets), take(self._positions))

    def eval_batches(
        self, batch_size: int, rank: int = 0, world: int = 1, max_rows: int | None = None
    ) -> list[Batch]:
        """Rank `rank`'s batches for an evaluation that reads every row once: the first
        `max_rows` rows of epoch 0's order (all of them by default) in global batches of
        `batch_size`, the last one partial, each split over the ranks as evenly as it goes.
        Every rank gets the same number of batches (a collective inside the forward needs
        them all): a rank left without rows in the last one gets a row with no targets."""
        n = self.num_rows if max_rows is None else min(self.num_rows, max_rows)
        order = self.permutation(0)[:n]
        out = []
        for start in range(0, n, batch_size):
            mine = np.array_split(order[start : start + batch_size], world)[rank]
            rows = mine if len(mine) else order[:1]
            targets = self._targets[rows] if len(mine) else np.full_like(self._targets[:1], IGNORE)
            parts = (self._ids[rows], targets, self._positions[rows])
            out.append(Batch(*(torch.from_numpy(a.astype(np.int64)) for a in parts)))
        return out

    def target_count(self, epoch: int, index: int, batch_size: int) -> int:
        """Loss targets in the whole global batch: every rank's normaliser, no all-reduce."""
        return int(self._row_targets[self.rows_of(epoch, index, batch_size)].sum())

    def shard(self, index: int, count: int) -> PackedDataset:
        """Rows index, index + count, ... of a fixed shuffle: the disjoint share of one of
        `count` islands (DiLoCo trains each worker on its own shard)."""
        if not 0 <= index < count:
            raise JupiterError(f"shard {index} is outside 0..{count - 1}")
        if count == 1:
            return self
        if self.num_rows < count:
            raise JupiterError(
                f"{self.num_rows} packed rows cannot be shared by {count} islands: add data or "
                "train on fewer islands"
            )
        order = np.random.default_rng([self.seed, 0x5EED]).permutation(self.num_rows)
        mine = np.sort(order[index::count])
        ds = PackedDataset.__new__(PackedDataset)
        ds.context_length, ds.pad_id, ds.seed = self.context_length, self.pad_id, self.seed
        ds.num_sequences = self.num_sequences  # of the whole set: sequences span rows
        ds.tokens = int(self.tokens * len(mine) / self.num_rows)
        is_doc = None if self._is_doc is None else self._is_doc[mine]
        ds._set_rows(self._ids[mine], self._targets[mine], self._positions[mine], is_doc)
        return ds

    def save(self, path: Path) -> None:
        """One .npz (written to a temp file and renamed): the rows and a JSON meta."""
        meta = {
            "format": FORMAT,
            "context_length": self.context_length,
            "pad_id": self.pad_id,
            "seed": self.seed,
            "tokens": self.tokens,
            "num_sequences": self.num_sequences,
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        arrays = {"ids": self._ids, "targets": self._targets, "positions": self._positions}
        if self._is_doc is not None:
            arrays["documents"] = self._is_doc
        arrays["meta"] = np.array(json.dumps(meta))
        with tmp.open("wb") as f:  # a file object: np.savez would append .npz to a path
            np.savez(f, allow_pickle=False, **arrays)
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> PackedDataset:
        if not path.is_file():
            raise JupiterError(f"no packed dataset at {path}: build it again from the examples")
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"][()]))
            ids, targets, positions = data["ids"], data["targets"], data["positions"]
            is_doc = data["documents"] if "documents" in data.files else None
        shape = (ids.shape[0], meta.get("context_length"))
        if (
            meta.get("format") != FORMAT
            or not ids.shape == targets.shape == positions.shape == shape
        ):
            raise JupiterError(f"{path} is not a packed dataset of format {FORMAT}: build it again")
        ds = cls.__new__(cls)
        ds.context_length = int(meta["context_length"])
        ds.pad_id = int(meta["pad_id"])
        ds.seed = int(meta["seed"])
        ds.tokens = int(meta["tokens"])
        ds.num_sequences = int(meta["num_sequences"])
        ds._set_rows(ids, targets, positions, is_doc)
        return ds


def _chat_messages(example: Example, system_prompt: str) -> list[Message]:
    messages = list(example.messages)
    if system_prompt and not (messages and messages[0]["role"] == "system"):
        messages.insert(0, {"role": "system", "content": system_prompt})
    return messages


@dataclass(frozen=True)
class TokenBudget:
    """One epoch's tokens as encoded (before packing): the raw text available and what of it,
    and of the chats, one epoch trains on."""

    corpus_tokens: int  # every raw text given (the train split), whole
    raw_tokens: int  # the raw text one epoch trains on
    chat_tokens: int  # the chats one epoch trains on

    @property
    def epoch_tokens(self) -> int:
        return self.raw_tokens + self.chat_tokens

    @property
    def corpus_share(self) -> float | None:
        """The share of the corpus one epoch trains on; None when there is no raw text."""
        return self.raw_tokens / self.corpus_tokens if self.corpus_tokens else None


def raw_budget(
    raw_text_fraction: float, chat_tokens: int, corpus_tokens: int, min_corpus_share: float
) -> float:
    """The raw-text tokens of one epoch: `raw_text_fraction` of the tokens beside the chats,
    raised to `min_corpus_share` of the corpus when that is more (scarce chats cannot starve
    it). Fraction 0: none; fraction 1, or no chats: all of it."""
    if raw_text_fraction <= 0.0:
        return 0.0
    if raw_text_fraction >= 1.0 or chat_tokens == 0:
        return float(corpus_tokens)
    # raw / (raw + chat) = f  =>  raw = f / (1 - f) * chat
    balanced = raw_text_fraction / (1.0 - raw_text_fraction) * chat_tokens
    return max(balanced, min_corpus_share * corpus_tokens)


def encode_examples(
    tokenizer: PreTrainedTokenizerBase,
    examples: Sequence[Example],
    texts: Sequence[str],
    raw_text_fraction: float,
    seed: int,
    system_prompt: str = "",
    min_corpus_share: float = 1.0,
) -> list[Encoded]:
    """`mix_examples` without the budget."""
    return mix_examples(
        tokenizer, examples, texts, raw_text_fraction, seed, system_prompt, min_corpus_share
    )[0]


def mix_examples(
    tokenizer: PreTrainedTokenizerBase,
    examples: Sequence[Example],
    texts: Sequence[str],
    raw_text_fraction: float,
    seed: int,
    system_prompt: str = "",
    min_corpus_share: float = 1.0,
) -> tuple[list[Encoded], TokenBudget]:
    """`mix_parts`' chats and raw texts in one seeded shuffle, so packed rows mix both kinds."""
    rng = random.Random(seed)
    chats, raws, budget = mix_parts(
        tokenizer, examples, texts, raw_text_fraction, rng, system_prompt, min_corpus_share
    )
    out = chats + raws
    rng.shuffle(out)
    return out, budget


def mix_parts(
    tokenizer: PreTrainedTokenizerBase,
    examples: Sequence[Example],
    texts: Sequence[str],
    raw_text_fraction: float,
    rng: random.Random,
    system_prompt: str = "",
    min_corpus_share: float = 1.0,
) -> tuple[list[Encoded], list[Encoded], TokenBudget]:
    """Encode "qa" examples as chats and take raw text ("text" examples and `texts`) up to
    its budget: (chats in example order, raw texts in `rng`'s order, how many tokens of each
    one epoch holds).

    The mix rule: raw text is capped at `raw_text_fraction` of the tokens, but the cap never
    cuts it below `min_corpus_share` of the corpus (`raw_budget`). With the default 1 every
    raw text is used whole, once per epoch, as Axolotl or torchtune use every dataset they
    are given: many chats keep raw text at or under the fraction, few chats never shrink the
    corpus to their size. min_corpus_share 0 is the bare cap. Raw texts are taken in a seeded
    random order, the last one cut at the budget. A raw text longer than the context is kept
    whole here: `PackedDataset` splits it into context-length pieces. Fraction 0 uses no raw
    text; fraction 1 only raw text.
    """
    if not 0.0 <= raw_text_fraction <= 1.0:
        raise JupiterError(f"raw_text_fraction must be in [0, 1], got {raw_text_fraction}")
    if not 0.0 <= min_corpus_share <= 1.0:
        raise JupiterError(f"min_corpus_share must be in [0, 1], got {min_corpus_share}")
    chats: list[Encoded] = []
    if raw_text_fraction < 1.0:
        chats = [
            encode_chat(tokenizer, _chat_messages(e, system_prompt))
            for e in examples
            if e.kind == "qa" and e.messages
        ]
    pool = [e.text for e in examples if e.kind == "text" and e.text] + [t for t in texts if t]
    rng.shuffle(pool)
    corpus = [encode_text(tokenizer, text) for text in pool]  # all of it, for the budget
    corpus_tokens = sum(len(ids) for ids, _ in corpus)
    chat_tokens = sum(len(ids) for ids, _ in chats)
    budget = raw_budget(raw_text_fraction, chat_tokens, corpus_tokens, min_corpus_share)
    raws: list[Encoded] = []
    raw_tokens = 0
    for ids, labels in corpus:
        # Cut the last text at the budget so one long document cannot skew the mix; a cut
        # text ends without eos, so the model is not taught to stop mid-document.
        keep = min(len(ids), int(budget - raw_tokens))
        if keep < 2:
            break
        raws.append((ids[:keep], labels[:keep]))
        raw_tokens += keep
    return chats, raws, TokenBudget(corpus_tokens, raw_tokens, chat_tokens)
