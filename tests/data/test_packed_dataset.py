"""PackedDataset and encode_examples: row shapes, no lost targets, deterministic order."""

from __future__ import annotations

import pydoc_data.topics
from pathlib import Path

import numpy as np
import pytest
import torch
from transformers import PreTrainedTokenizerFast

from jupiter.data.chat import IGNORE
from jupiter.data.dataset import PackedDataset, encode_examples
from jupiter.data.tokenizer import train_tokenizer
from jupiter.records import Example

TOPICS = [pydoc_data.topics.topics[k] for k in sorted(pydoc_data.topics.topics)[:10]]


@pytest.fixture(scope="module")
def tok(tmp_path_factory: pytest.TempPathFactory) -> PreTrainedTokenizerFast:
    return train_tokenizer(TOPICS, 600, Path(tmp_path_factory.mktemp("tok")))


def synthetic(n: int, seed: int = 0) -> list[tuple[list[int], list[int]]]:
    """Sequences of distinct token values, some positions masked, lengths 1..40."""
    rng = np.random.default_rng(seed)
    out, next_id = [], 10
    for _ in range(n):
        length = int(rng.integers(1, 41))
        ids = list(range(next_id, next_id + length))
        next_id += length
        labels = [IGNORE if rng.random() < 0.3 else t for t in ids]
        out.append((ids, labels))
    return out


def test_rows_are_context_plus_one_and_keep_every_target() -> None:
    seqs = synthetic(50)
    ds = PackedDataset(seqs, context_length=16, pad_id=0, seed=3)
    stream_ids = [t for ids, _ in seqs for t in ids]
    stream_labels = [t for _, labels in seqs for t in labels]
    assert ds.tokens == len(stream_ids)
    assert ds.num_rows == -(-(len(stream_ids) - 1) // 16)
    targets: list[int] = []
    inputs: list[int] = []
    for r in range(ds.num_rows):
        x, y = ds.row(r)
        assert x.shape == (16,) and y.shape == (16,)
        inputs += x.tolist()
        targets += y.tolist()
    # every stream position after the first is a target exactly once, in order
    n = len(stream_ids)
    assert targets[: n - 1] == stream_labels[1:]
    assert inputs[:n] == stream_ids
    # only the tail of the last row is padding
    assert all(t == IGNORE for t in targets[n - 1 :])
    assert all(t == 0 for t in inputs[n:])
    kept = sum(lab != IGNORE for lab in stream_labels[1:])
    assert ds.label_tokens == kept == sum(t != IGNORE for t in targets)


def test_batch_order_is_a_pure_function_of_seed_and_epoch() -> None:
    seqs = synthetic(80)
    a = PackedDataset(seqs, 8, pad_id=0, seed=7)
    b = PackedDataset(seqs, 8, pad_id=0, seed=7)
    bs = 4
    per_epoch = a.batches_per_epoch(bs)
    assert per_epoch == a.num_rows // bs
    # reading epoch 1 first, in a different order, changes nothing
    later = [b.batch(1, i, bs) for i in reversed(range(per_epoch))][::-1]
    for i in range(per_epoch):
        xa, ya = a.batch(1, i, bs)
        assert xa.dtype == torch.int64 and xa.shape == (bs, 8)
        assert torch.equal(xa, later[i][0]) and torch.equal(ya, later[i][1])
    # one epoch visits distinct rows; epochs differ in order
    first = torch.cat([a.batch(0, i, bs)[0] for i in range(per_epoch)])
    assert len({tuple(r.tolist()) for r in first}) == per_epoch * bs
    assert not np.array_equal(a.permutation(0), a.permutation(1))
    assert sorted(a.permutation(2).tolist()) == list(range(a.num_rows))
    assert not np.array_equal(a.permutation(0), PackedDataset(seqs, 8, 0, seed=8).permutation(0))
    assert a.next_position(0, per_epoch - 1, bs) == (1, 0)
    assert a.next_position(0, 0, bs) == (0, 1)


def test_dataset_smaller_than_a_batch_wraps() -> None:
    ds = PackedDataset([([1, 2, 3, 4, 5], [IGNORE, 2, 3, 4, 5])], 4, pad_id=0)
    assert ds.num_rows == 1 and ds.batches_per_epoch(3) == 1
    x, y = ds.batch(0, 0, 3)
    assert x.tolist() == [[1, 2, 3, 4]] * 3 and y.tolist() == [[2, 3, 4, 5]] * 3


def qa(i: int) -> Example:
    msgs = [
        {"role": "user", "content": f"Question {i}?"},
        {"role": "assistant", "content": f"Answer number {i}."},
    ]
    return Example(kind="qa", generator="t", chunk_id="c", template="t", messages=msgs)


def test_encode_examples_mixes_raw_text_to_the_fraction(tok: PreTrainedTokenizerFast) -> None:
    examples = [qa(i) for i in range(40)]
    out = encode_examples(tok, examples, TOPICS, raw_text_fraction=0.5, seed=0)
    chat = [ids for ids, _ in out if tok.convert_ids_to_tokens(ids[1]) == "<|user|>"]
    chat_tokens = sum(len(ids) for ids in chat)
    raw_tokens = sum(len(ids) for ids, _ in out) - chat_tokens
    assert len(chat) == 40
    assert out != sorted(out, key=lambda s: tok.convert_ids_to_tokens(s[0][1]) != "<|user|>")
    assert abs(raw_tokens / (raw_tokens + chat_tokens) - 0.5) < 0.02
    assert encode_examples(tok, examples, TOPICS, 0.5, seed=0) == out  # deterministic
    none = encode_examples(tok, examples, TOPICS, 0.0, seed=0)
    assert len(none) == 40
    only = encode_examples(tok, examples, TOPICS, 1.0, seed=0)
    assert len(only) == len(TOPICS)
    assert all(tok.convert_ids_to_tokens(ids[1]) != "<|user|>" for ids, _ in only)


def test_encode_examples_prepends_the_system_prompt(tok: PreTrainedTokenizerFast) -> None:
    text = Example(kind="text", generator="t", chunk_id="c", template="t", text="raw words")
    out = encode_examples(tok, [qa(1), text], [], 0.5, seed=1, system_prompt="Be brief.")
    chat_ids = next(ids for ids, _ in out if tok.convert_ids_to_tokens(ids[1]) == "<|system|>")
    assert tok.decode(chat_ids).startswith("<|bos|><|system|>\nBe brief.<|end|>\n<|user|>")
    assert any(tok.decode(ids) == "<|bos|>raw words<|end|>" for ids, _ in out)
