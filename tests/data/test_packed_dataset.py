"""PackedDataset and encode_examples: whole examples per segment, every target once,
deterministic order, rank slices, save/load; the raw-text mix rule and its token budget."""

from __future__ import annotations

import pydoc_data.topics
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import torch
from transformers import PreTrainedTokenizerFast

from jupiter.data.chat import IGNORE, encode_text
from jupiter.data.dataset import (
    Batch,
    PackedDataset,
    TokenBudget,
    encode_examples,
    mix_examples,
    raw_budget,
)
from jupiter.data.tokenizer import train_tokenizer
from jupiter.errors import JupiterError
from jupiter.records import Example

TOPICS = [pydoc_data.topics.topics[k] for k in sorted(pydoc_data.topics.topics)[:10]]


@pytest.fixture(scope="module")
def tok(tmp_path_factory: pytest.TempPathFactory) -> PreTrainedTokenizerFast:
    return train_tokenizer(TOPICS, 600, Path(tmp_path_factory.mktemp("tok")))


def synthetic(n: int, seed: int = 0, longest: int = 40) -> list[tuple[list[int], list[int]]]:
    """Sequences of distinct token values (so every token names its sequence and place),
    some positions masked, lengths 1..longest."""
    rng = np.random.default_rng(seed)
    out, next_id = [], 10
    for _ in range(n):
        length = int(rng.integers(1, longest + 1))
        ids = list(range(next_id, next_id + length))
        next_id += length
        labels = [IGNORE if rng.random() < 0.3 else t for t in ids]
        out.append((ids, labels))
    return out


Segment = tuple[list[int], list[int], list[int]]


def row_segments(ds: PackedDataset, r: int) -> list[Segment]:
    """The segments (ids, targets, positions) of row r, cut where positions restart."""
    x, y, pos = (a.tolist() for a in ds.row(r))
    starts = [t for t in range(len(pos)) if pos[t] == 0] + [len(pos)]
    return [(x[a:b], y[a:b], pos[a:b]) for a, b in zip(starts, starts[1:], strict=False)]


def segments(ds: PackedDataset) -> list[Segment]:
    return [seg for r in range(ds.num_rows) for seg in row_segments(ds, r)]


def test_every_target_lands_once_in_rows_of_whole_examples() -> None:
    seqs = synthetic(60)
    ds = PackedDataset(seqs, context_length=16, pad_id=0, seed=3)
    kept = [s for s in seqs if len(s[0]) >= 2]
    assert len(kept) < len(seqs)  # some 1-token sequences, dropped
    assert ds.num_sequences == len(kept)
    assert ds.tokens == sum(len(i) - 1 for i, _ in kept)
    owner = {t: k for k, (ids, _) in enumerate(kept) for t in ids}
    seen: list[Counter[int]] = [Counter() for _ in kept]
    pad_segments = 0
    for x, y, pos in segments(ds):
        assert pos == list(range(len(pos)))
        if x[0] == 0:  # padding: pad ids, no loss, at the end of its row
            assert set(x) == {0} and set(y) == {IGNORE}
            pad_segments += 1
            continue
        k = owner[x[0]]
        ids, labels = kept[k]
        i = ids.index(x[0])
        # inputs are consecutive tokens of one sequence, targets its labels shifted by one
        assert x == ids[i : i + len(x)] and y == labels[i + 1 : i + 1 + len(y)]
        seen[k].update(range(i + 1, i + 1 + len(y)))  # target index within the sequence
    for (ids, _), c in zip(kept, seen, strict=True):
        assert c == Counter(range(1, len(ids)))  # each target exactly once
    assert pad_segments > 0
    assert ds.label_tokens == sum(lab != IGNORE for _, labels in kept for lab in labels[1:])
    # packing is tight: 1206 tokens in 77 rows of 16 (76 would be the minimum)
    assert (ds.tokens, ds.num_rows) == (1206, 77)


def test_long_sequences_split_with_positions_restarting() -> None:
    ids = list(range(100, 140))  # 40 tokens: 39 targets in pieces of 16, 16, 7
    labels = [IGNORE, *ids[1:]]
    ds = PackedDataset([(ids, labels)], context_length=16, pad_id=0)
    assert ds.num_rows == 3 and ds.tokens == 39
    got = sorted((s for s in segments(ds) if s[0][0] != 0), key=lambda s: s[0][0])
    assert [len(x) for x, _, _ in got] == [16, 16, 7]
    for k, (x, y, pos) in enumerate(got):
        assert pos == list(range(len(x)))  # restart at 0 in every piece
        assert x == ids[16 * k : 16 * k + len(x)]  # windows overlap by one token:
        assert y == ids[16 * k + 1 : 16 * k + 1 + len(x)]  # x of the next starts at y's last
    # the 7-token piece is padded: pad ids, IGNORE targets, positions 0.. of their own
    x, y, pos = next(ds.row(r) for r in range(3) if ds.row(r)[0][0] == 132)
    assert x[7:].tolist() == [0] * 9 and set(y[7:].tolist()) == {IGNORE}
    assert pos.tolist() == list(range(7)) + list(range(9))


def test_first_fit_fills_earlier_rows_in_order() -> None:
    # targets per sequence: 6, 6, 2, 3, 1 with L=8. 6 opens row 0; 6 opens row 1; 2 fills
    # row 0; 3 fits neither (room 0, 2): opens row 2; 1 goes to the first with room, row 1.
    seqs = [
        (list(range(a, a + n + 1)), list(range(a, a + n + 1)))
        for a, n in [(10, 6), (20, 6), (30, 2), (40, 3), (50, 1)]
    ]
    ds = PackedDataset(seqs, context_length=8, pad_id=0)
    firsts = [[x[0] for x, _, _ in row_segments(ds, r)] for r in range(ds.num_rows)]
    assert firsts == [[10, 30], [20, 50, 0], [40, 0]]  # 0: the padding segment
    assert ds.tokens == 6 + 6 + 2 + 3 + 1


def test_batches_are_int64_and_a_pure_function_of_seed_and_epoch() -> None:
    seqs = synthetic(200)
    a = PackedDataset(seqs, 8, pad_id=0, seed=7)
    b = PackedDataset(seqs, 8, pad_id=0, seed=7)
    bs = 4
    per_epoch = a.batches_per_epoch(bs)
    assert per_epoch == a.num_rows // bs > 2
    # reading epoch 1 first, in a different order, changes nothing
    later = [b.batch(1, i, bs) for i in reversed(range(per_epoch))][::-1]
    for i in range(per_epoch):
        got = a.batch(1, i, bs)
        for t in (got.input_ids, got.labels, got.position_ids):
            assert t.dtype == torch.int64 and t.shape == (bs, 8)
        assert torch.equal(got.input_ids, later[i].input_ids)
        assert torch.equal(got.labels, later[i].labels)
        assert torch.equal(got.position_ids, later[i].position_ids)
        rows = a.rows_of(1, i, bs)
        assert got.input_ids.tolist() == [a.row(int(r))[0].tolist() for r in rows]
        assert got.labels.tolist() == [a.row(int(r))[1].tolist() for r in rows]
        assert got.position_ids.tolist() == [a.row(int(r))[2].tolist() for r in rows]
    # one epoch visits distinct rows; epochs differ in order
    first = np.concatenate([a.rows_of(0, i, bs) for i in range(per_epoch)])
    assert len(set(first.tolist())) == per_epoch * bs
    assert not np.array_equal(a.permutation(0), a.permutation(1))
    assert sorted(a.permutation(2).tolist()) == list(range(a.num_rows))
    assert np.array_equal(a.permutation(3), b.permutation(3))
    assert not np.array_equal(a.permutation(0), PackedDataset(seqs, 8, 0, seed=8).permutation(0))


def test_next_position_wraps_to_the_next_epoch() -> None:
    ds = PackedDataset(synthetic(200), 8, pad_id=0)
    bs = 5
    per_epoch = ds.batches_per_epoch(bs)
    assert per_epoch == ds.num_rows // bs
    pos, seen = (0, 0), []
    for _ in range(2 * per_epoch + 1):
        seen.append(pos)
        pos = ds.next_position(*pos, bs)
    assert seen[per_epoch - 1] == (0, per_epoch - 1) and seen[per_epoch] == (1, 0)
    assert seen[2 * per_epoch] == (2, 0)


def test_dataset_smaller_than_a_batch_wraps() -> None:
    ds = PackedDataset([([1, 2, 3, 4, 5], [IGNORE, 2, 3, 4, 5])], 4, pad_id=0)
    assert ds.num_rows == 1 and ds.batches_per_epoch(3) == 1
    assert ds.rows_of(0, 0, 3).tolist() == [0, 0, 0]
    got = ds.batch(0, 0, 3)
    assert got.input_ids.tolist() == [[1, 2, 3, 4]] * 3
    assert got.labels.tolist() == [[2, 3, 4, 5]] * 3
    assert got.position_ids.tolist() == [[0, 1, 2, 3]] * 3
    assert ds.next_position(0, 0, 3) == (1, 0)
    assert ds.target_count(0, 0, 3) == 12


def test_ranks_split_the_global_batch_in_order() -> None:
    ds = PackedDataset(synthetic(300, seed=1), 8, pad_id=0, seed=2)
    bs = 6
    for index in range(ds.batches_per_epoch(bs)):
        whole = ds.batch(1, index, bs)
        for world in (2, 3):
            parts = [ds.batch(1, index, bs, rank=r, world=world) for r in range(world)]
            assert all(p.input_ids.shape == (bs // world, 8) for p in parts)
            for name in ("input_ids", "labels", "position_ids"):
                joined = torch.cat([getattr(p, name) for p in parts])
                assert torch.equal(joined, getattr(whole, name))
        count = ds.target_count(1, index, bs)
        assert count == int((whole.labels != IGNORE).sum())
        halves = [ds.batch(1, index, bs, r, 2) for r in range(2)]
        assert count == sum(int((h.labels != IGNORE).sum()) for h in halves)


def test_eval_batches_read_every_row_once_whatever_the_batch_and_world() -> None:
    ds = PackedDataset(synthetic(60, seed=3), 8, pad_id=0, seed=4)
    n = ds.num_rows
    assert n % 4 != 0  # a partial last batch (the old held-out loop dropped it)

    def rows(b: Batch) -> list[tuple[int, ...]]:
        return [tuple(r) for r in b.input_ids.tolist()]

    every = sorted(tuple(ds.row(r)[0].tolist()) for r in range(n))
    for per, world in ((1, 1), (4, 1), (4, 2), (6, 3), (n + 5, 2)):
        seen, counts = [], set()
        for rank in range(world):
            batches = ds.eval_batches(per, rank, world)
            counts.add(len(batches))
            for b in batches:
                live = (b.labels != IGNORE).any(dim=1)
                seen += [r for r, keep in zip(rows(b), live.tolist(), strict=True) if keep]
        assert counts == {-(-n // per)}, (per, world)  # the same count on every rank
        assert sorted(seen) == every, (per, world)
        targets = sum(
            int((b.labels != IGNORE).sum())
            for r in range(world)
            for b in ds.eval_batches(per, r, world)
        )
        assert targets == ds.label_tokens
    # more ranks than rows in the last batch (n % 4 of them): rank 3 gets one row, no targets
    last = ds.eval_batches(4, 3, 4)[-1]
    assert last.input_ids.shape[0] == 1 and bool((last.labels == IGNORE).all())
    # max_rows: the first rows of epoch 0's order, as the held-out loss has always taken
    first = ds.eval_batches(4, max_rows=10)
    assert [len(b.input_ids) for b in first] == [4, 4, 2]
    assert sorted(r for b in first for r in rows(b)) == sorted(
        tuple(ds.row(r)[0].tolist()) for r in ds.permutation(0)[:10]
    )


def test_bad_world_size_is_a_clear_error() -> None:
    ds = PackedDataset(synthetic(50), 8, pad_id=0)
    with pytest.raises(JupiterError, match="multiple of 4"):
        ds.batch(0, 0, 6, rank=0, world=4)
    with pytest.raises(JupiterError, match="rank 2"):
        ds.batch(0, 0, 4, rank=2, world=2)


def test_no_usable_sequence_is_a_clear_error() -> None:
    with pytest.raises(JupiterError, match="no training data"):
        PackedDataset([([5], [5]), ([], [])], 8, pad_id=0)
    with pytest.raises(JupiterError, match="as many labels"):
        PackedDataset([([5, 6], [5])], 8, pad_id=0)


def test_save_load_round_trip(tmp_path: Path) -> None:
    ds = PackedDataset(synthetic(120), 16, pad_id=3, seed=5)
    path = tmp_path / "sub" / "packed"  # no .npz suffix: written exactly there
    ds.save(path)
    assert path.is_file() and not list(path.parent.glob("*.tmp"))
    back = PackedDataset.load(path)
    for name in ("context_length", "pad_id", "seed", "tokens", "num_rows", "num_sequences"):
        assert getattr(back, name) == getattr(ds, name)
    assert back.label_tokens == ds.label_tokens
    for r in range(ds.num_rows):
        for a, b in zip(ds.row(r), back.row(r), strict=True):
            assert a.dtype == b.dtype == np.int32 and np.array_equal(a, b)
    assert np.array_equal(back.permutation(4), ds.permutation(4))
    a, b = ds.batch(2, 1, 4), back.batch(2, 1, 4)
    assert torch.equal(a.input_ids, b.input_ids) and torch.equal(a.labels, b.labels)
    with np.load(path, allow_pickle=False) as data:  # nothing pickled
        assert sorted(data.files) == ["ids", "meta", "positions", "targets"]
    with pytest.raises(JupiterError, match="no packed dataset"):
        PackedDataset.load(tmp_path / "missing.npz")


def qa(i: int) -> Example:
    msgs = [
        {"role": "user", "content": f"Question {i}?"},
        {"role": "assistant", "content": f"Answer number {i}."},
    ]
    return Example(kind="qa", generator="t", chunk_id="c", template="t", messages=msgs)


def chat_and_raw(tok: PreTrainedTokenizerFast, out: list) -> tuple[int, int]:
    """(chat tokens, raw tokens) of encoded examples: chats start <|bos|><|user|>."""
    chat = sum(len(ids) for ids, _ in out if tok.convert_ids_to_tokens(ids[1]) == "<|user|>")
    return chat, sum(len(ids) for ids, _ in out) - chat


def corpus_tokens(tok: PreTrainedTokenizerFast, texts: list[str]) -> int:
    return sum(len(encode_text(tok, t)[0]) for t in texts)


def test_the_bare_cap_mixes_raw_text_to_the_fraction(tok: PreTrainedTokenizerFast) -> None:
    examples = [qa(i) for i in range(40)]
    out = encode_examples(tok, examples, TOPICS, 0.5, seed=0, min_corpus_share=0.0)
    chat = [ids for ids, _ in out if tok.convert_ids_to_tokens(ids[1]) == "<|user|>"]
    chat_tokens, raw_tokens = chat_and_raw(tok, out)
    assert len(chat) == 40
    assert out != sorted(out, key=lambda s: tok.convert_ids_to_tokens(s[0][1]) != "<|user|>")
    assert abs(raw_tokens / (raw_tokens + chat_tokens) - 0.5) < 0.02
    assert encode_examples(tok, examples, TOPICS, 0.5, seed=0, min_corpus_share=0.0) == out
    none = encode_examples(tok, examples, TOPICS, 0.0, seed=0)
    assert len(none) == 40
    only = encode_examples(tok, examples, TOPICS, 1.0, seed=0)
    assert len(only) == len(TOPICS)
    assert all(tok.convert_ids_to_tokens(ids[1]) != "<|user|>" for ids, _ in only)


def test_scarce_qa_never_starves_raw_text(tok: PreTrainedTokenizerFast) -> None:
    """2 Q&A pairs beside ~10k tokens of raw text: every raw token is trained on (the bare
    cap, the old rule, cut it to the chats' size)."""
    examples = [qa(1), qa(2)]
    corpus = corpus_tokens(tok, TOPICS)
    out, budget = mix_examples(tok, examples, TOPICS, 0.5, seed=0)
    chat_tokens, raw_tokens = chat_and_raw(tok, out)
    assert corpus > 50 * chat_tokens  # scarce indeed
    assert (raw_tokens, chat_tokens) == (corpus, budget.chat_tokens)
    assert budget == TokenBudget(corpus_tokens=corpus, raw_tokens=corpus, chat_tokens=chat_tokens)
    assert budget.corpus_share == 1.0 and budget.epoch_tokens == corpus + chat_tokens
    assert sorted(ids for ids, _ in out if tok.convert_ids_to_tokens(ids[1]) != "<|user|>") == (
        sorted(encode_text(tok, t)[0] for t in TOPICS)  # whole, none cut
    )
    capped, low = mix_examples(tok, examples, TOPICS, 0.5, seed=0, min_corpus_share=0.0)
    assert low.raw_tokens == chat_tokens == chat_and_raw(tok, capped)[1]  # raw = chats at 0.5
    half, mid = mix_examples(tok, examples, TOPICS, 0.5, seed=0, min_corpus_share=0.5)
    assert corpus // 2 - 2 <= mid.raw_tokens == chat_and_raw(tok, half)[1] <= corpus // 2


def test_plentiful_qa_keeps_the_fraction(tok: PreTrainedTokenizerFast) -> None:
    """When the chats outweigh the corpus at the fraction, the rule is the old one: all raw
    text, its share at most the fraction; a bigger corpus under the bare cap sits on it."""
    texts = TOPICS[:2]
    examples = [qa(i) for i in range(400)]
    out, budget = mix_examples(tok, examples, texts, 0.3, seed=0)
    chat_tokens, raw_tokens = chat_and_raw(tok, out)
    assert raw_tokens == budget.raw_tokens == corpus_tokens(tok, texts)
    assert 0.2 < raw_tokens / (raw_tokens + chat_tokens) <= 0.3
    assert out == encode_examples(tok, examples, texts, 0.3, seed=0, min_corpus_share=0.0)
    for fraction in (0.1, 0.3):
        capped = encode_examples(tok, examples, TOPICS, fraction, seed=0, min_corpus_share=0.0)
        chat_tokens, raw_tokens = chat_and_raw(tok, capped)
        assert abs(raw_tokens / (raw_tokens + chat_tokens) - fraction) < 0.01


def test_raw_budget_rule() -> None:
    assert raw_budget(0.5, chat_tokens=100, corpus_tokens=1000, min_corpus_share=1.0) == 1000
    assert raw_budget(0.5, chat_tokens=100, corpus_tokens=1000, min_corpus_share=0.0) == 100
    assert raw_budget(0.5, chat_tokens=100, corpus_tokens=1000, min_corpus_share=0.3) == 300
    assert raw_budget(0.5, chat_tokens=5000, corpus_tokens=1000, min_corpus_share=1.0) == 5000
    assert raw_budget(0.2, chat_tokens=400, corpus_tokens=50, min_corpus_share=0.0) == 100
    assert raw_budget(0.0, chat_tokens=100, corpus_tokens=1000, min_corpus_share=1.0) == 0
    assert raw_budget(1.0, chat_tokens=100, corpus_tokens=1000, min_corpus_share=0.0) == 1000
    assert raw_budget(0.5, chat_tokens=0, corpus_tokens=1000, min_corpus_share=0.0) == 1000
    with pytest.raises(JupiterError, match="min_corpus_share"):
        encode_examples(None, [], [], 0.5, seed=0, min_corpus_share=1.5)  # type: ignore[arg-type]


def test_encode_examples_prepends_the_system_prompt(tok: PreTrainedTokenizerFast) -> None:
    text = Example(kind="text", generator="t", chunk_id="c", template="t", text="raw words")
    out = encode_examples(tok, [qa(1), text], [], 0.5, seed=1, system_prompt="Be brief.")
    chat_ids = next(ids for ids, _ in out if tok.convert_ids_to_tokens(ids[1]) == "<|system|>")
    assert tok.decode(chat_ids).startswith("<|bos|><|system|>\nBe brief.<|end|>\n<|user|>")
    assert any(tok.decode(ids) == "<|bos|>raw words<|end|>" for ids, _ in out)


def test_documents_pack_apart_and_an_epoch_reads_them_first(tmp_path: Path) -> None:
    seqs = synthetic(80, seed=5)
    docs, n_docs = seqs[:30], 30
    doc_tokens = {t for ids, _ in docs for t in ids}
    mixed = PackedDataset(seqs, context_length=16, pad_id=0, seed=7)
    ds = PackedDataset(seqs, context_length=16, pad_id=0, seed=7, documents=n_docs)
    assert ds.tokens == mixed.tokens and ds.num_sequences == mixed.num_sequences
    assert mixed.document_rows is None
    n_doc_rows = ds.document_rows
    assert n_doc_rows is not None and 0 < n_doc_rows < ds.num_rows
    for r in range(ds.num_rows):  # a row holds one kind only, documents' rows first
        ids = {t for seg in row_segments(ds, r) for t in seg[0] if t}
        assert ids <= doc_tokens if r < n_doc_rows else not ids & doc_tokens
    is_doc = np.arange(ds.num_rows) < n_doc_rows
    # a run of 3 batches of 4 (shorter than the epoch): its rows are the shuffled order's
    # first 12, the documents' read first
    before = ds.permutation(0)[:12].copy()
    ds.documents_first(run_rows=12, batch_size=4)
    read = np.concatenate([ds.rows_of(0, i, 4) for i in range(3)])
    assert sorted(read.tolist()) == sorted(before.tolist())
    k = int(is_doc[read].sum())
    assert 0 < k < 12 and is_doc[read[:k]].all() and not is_doc[read[k:]].any()
    # whole epochs: each one's batches read every document row before the first Q&A row
    bpe = ds.batches_per_epoch(4)
    ds.documents_first(run_rows=10 * bpe * 4, batch_size=4)
    for epoch in (0, 1):
        order = np.concatenate([ds.rows_of(epoch, i, 4) for i in range(bpe)])
        flags = is_doc[order]
        assert flags[: int(flags.sum())].all()
    assert not np.array_equal(ds.permutation(0), ds.permutation(1))
    # the marks survive save/load and an island's shard
    ds.save(tmp_path / "d.npz")
    back = PackedDataset.load(tmp_path / "d.npz")
    assert back.document_rows == n_doc_rows
    halves = [ds.shard(i, 2).document_rows for i in (0, 1)]
    assert all(halves) and sum(h or 0 for h in halves) == n_doc_rows
    with pytest.raises(JupiterError, match="documents packed apart"):
        mixed.documents_first(run_rows=12, batch_size=4)
