"""Exact dedup on normalized text; MinHash LSH estimates Jaccard and finds near-duplicates."""

from __future__ import annotations

import random
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from jupiter.filters import dedup, dedup_stream
from jupiter.filters.dedup import ExactDedup, MinHashLSH, jaccard, shingles, word_hashes
from jupiter.filters.dedup_stream import StreamingMinHashDedup
from jupiter.filters.text import words

PARAGRAPH = (
    "The json module encodes Python objects as JSON text and decodes JSON text back into "
    "Python objects. Use dumps to produce a string and dump to write directly to a file "
    "object. Both accept an indent argument for pretty printing, a sort_keys flag for stable "
    "output, and a default callable that converts objects the encoder does not know about. "
    "Decoding with loads returns dictionaries, lists, strings, numbers, booleans or None."
)
OTHER = (
    "The pathlib module offers classes representing filesystem paths with semantics "
    "appropriate for different operating systems. Pure paths provide purely computational "
    "operations without I/O, while concrete paths inherit from pure paths but also provide "
    "I/O operations. Path.glob yields all matching files, Path.read_text returns the decoded "
    "contents of the pointed-to file as a string, and Path.mkdir creates a new directory."
)


def vocab_words(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choice(letters) for _ in range(rng.randint(3, 9))) for _ in range(n)]


def test_exact_dedup_ignores_case_whitespace_and_punctuation() -> None:
    d = ExactDedup()
    assert d.add("What does json.dumps return?\nA string.") is False
    assert d.add("  what DOES json dumps   return\n\n a string ") is True
    assert d.add("What does json.loads return? A dict.") is False
    assert len(d) == 2


def test_exact_dedup_keys_wordless_texts_on_themselves() -> None:
    d = ExactDedup()
    assert d.add("!!!") is False
    assert d.add("???") is False  # both normalize to "", but they are not the same text
    assert d.add("!!!") is True


def test_shingles_fall_back_to_the_whole_text_when_short() -> None:
    assert shingles("a b c d e f", 5) == {("a", "b", "c", "d", "e"), ("b", "c", "d", "e", "f")}
    assert shingles("Hello, World", 5) == {("hello", "world")}
    assert shingles("...", 5) == set()


@pytest.mark.parametrize("keep", [100, 80, 60, 40, 20])
def test_minhash_estimate_is_close_to_true_jaccard(keep: int) -> None:
    words = vocab_words(200, seed=keep)
    a = " ".join(words[:100])
    b = " ".join(words[:keep] + words[100 : 200 - keep])  # same first `keep` words
    true = jaccard(shingles(a, 5), shingles(b, 5))
    lsh = MinHashLSH(num_perm=128, bands=16, shingle=5, threshold=0.8, seed=0)
    sa, sb = lsh.signatures([a, b])
    assert abs(lsh.estimate(sa, sb) - true) <= 0.1, (keep, true)


def test_near_duplicate_with_one_word_changed_is_found() -> None:
    words = PARAGRAPH.split()[:60]
    original = " ".join(words)
    changed = " ".join(words[:30] + ["serializes"] + words[31:])
    # 56 shingles each, 5 of them changed: true Jaccard 51/61 ~ 0.84
    assert jaccard(shingles(original, 5), shingles(changed, 5)) == pytest.approx(51 / 61)
    lsh = MinHashLSH(num_perm=128, bands=16, shingle=5, threshold=0.8, seed=0)
    assert lsh.add("orig", original) is None
    assert lsh.add("other", OTHER) is None
    assert lsh.add("copy", changed) == "orig"
    assert len(lsh) == 2  # the near-duplicate was not inserted


def test_different_paragraph_is_not_a_near_duplicate() -> None:
    lsh = MinHashLSH(seed=0)
    sa, so = lsh.signatures([PARAGRAPH, OTHER])
    assert lsh.estimate(sa, so) < 0.2
    assert lsh.add_many(["a", "b"], [PARAGRAPH, OTHER]) == [None, None]


def test_candidates_are_confirmed_by_the_threshold() -> None:
    words = vocab_words(100, seed=7)
    a = " ".join(words[:60])
    b = " ".join(words[:40] + words[60:80])  # true Jaccard ~0.5: may share a band, not >= 0.9
    strict = MinHashLSH(num_perm=128, bands=64, shingle=5, threshold=0.9, seed=0)
    assert strict.add("a", a) is None
    assert strict.add("b", b) is None
    loose = MinHashLSH(num_perm=128, bands=64, shingle=5, threshold=0.3, seed=0)
    assert loose.add_many(["a", "b"], [a, b]) == [None, "a"]


def test_short_texts_compare_on_one_shingle() -> None:
    lsh = MinHashLSH(seed=0)
    assert lsh.add("a", "What is a dict?") is None
    assert lsh.add("b", "what is a DICT") == "a"
    assert lsh.add("c", "What is a list?") is None


def test_texts_without_words_are_never_matched_or_indexed() -> None:
    lsh = MinHashLSH(seed=0)
    assert lsh.add_many(["x", "y", "z"], ["...", "!!!", ""]) == [None, None, None]
    assert len(lsh) == 0


def test_add_many_equals_sequential_add_and_is_deterministic() -> None:
    words = vocab_words(400, seed=3)
    base = [" ".join(words[i : i + 30]) for i in range(0, 300, 30)]
    texts = base + [t.replace(t.split()[15], "changed") for t in base] + base[:3]
    keys = [f"k{i}" for i in range(len(texts))]
    one, two = MinHashLSH(seed=5), MinHashLSH(seed=5)
    batch = one.add_many(keys, texts)
    seq = [two.add(k, t) for k, t in zip(keys, texts, strict=True)]
    assert batch == seq
    assert batch[-3:] == ["k0", "k1", "k2"]  # exact copies are near-duplicates too
    assert np.array_equal(one.signatures(texts), MinHashLSH(seed=5).signatures(texts))
    assert not np.array_equal(one.signatures(texts), MinHashLSH(seed=6).signatures(texts))


def test_insert_many_indexes_without_checking() -> None:
    lsh = MinHashLSH(seed=0)
    lsh.insert_many(["a", "b"], [PARAGRAPH, PARAGRAPH])
    assert len(lsh) == 2
    assert lsh.add("c", PARAGRAPH.upper()) == "a"  # ties go to the earliest item


def test_bad_band_count_is_rejected() -> None:
    with pytest.raises(ValueError, match="bands"):
        MinHashLSH(num_perm=16, bands=32)


# the numpy word splitter and hashes ------------------------------------------------------
TRICKY = [
    "Hello, World! snake_case and CamelCase 42x",
    "ﬁne Ｆｕｌｌ-width ｌｅｔｔｅｒｓ",  # NFKC: ligature and full-width forms become plain
    "Straße, ÉCOLE, naïve café; 東京 タワー 123 ٣٤",
    "e\u0301 combining mark, tab\tand\nnewline",
    "emoji 🙂 between words 🙂🙂",
    "",
    "...!!!",
    "_ __ a",
]


def test_word_hashes_split_exactly_as_words_does() -> None:
    hashes, counts = word_hashes(TRICKY)
    assert counts.tolist() == [len(words(t)) for t in TRICKY]
    # a word's hash depends on the word alone: hashing each word by itself gives the same
    alone = [int(word_hashes([w])[0][0]) for t in TRICKY for w in words(t)]
    assert hashes.tolist() == alone
    same, _ = word_hashes(["Hello", "HELLO", "hello!"])
    assert len(set(same.tolist())) == 1
    distinct, _ = word_hashes(vocab_words(5000, seed=1))
    assert len(set(distinct.tolist())) == len(set(vocab_words(5000, seed=1)))


def test_exact_keys_in_batch_equal_key_one_by_one() -> None:
    texts = TRICKY + [t.upper() + "  " for t in TRICKY] + [PARAGRAPH, PARAGRAPH.lower()]
    assert ExactDedup.keys(texts) == [ExactDedup.key(t) for t in texts]
    one, two = ExactDedup(), ExactDedup()
    assert one.add_many(texts) == [two.add(t) for t in texts]
    assert one.add_many([PARAGRAPH.replace(" ", "\n")]) == [True]


def test_signatures_do_not_depend_on_batch_or_block_size(monkeypatch: pytest.MonkeyPatch) -> None:
    words_ = vocab_words(3000, seed=4)
    texts = [" ".join(words_[i : i + 40 + i % 300]) for i in range(0, 2000, 37)]
    texts += ["", "one", "two words", "!!!", " ".join(words_)]  # short, wordless and long texts
    lsh = MinHashLSH(seed=1)
    together = lsh.signatures(texts)
    monkeypatch.setattr(dedup, "_BLOCK_SHINGLES", 50)  # many blocks, and texts larger than one
    monkeypatch.setattr(dedup, "_BLOCK_CHARS", 300)
    assert np.array_equal(lsh.signatures(texts), together)
    alone = np.vstack([lsh.signatures([t]) for t in texts])
    assert np.array_equal(alone, together)


def test_near_duplicates_at_jaccard_090_are_found_for_every_seed() -> None:
    # one word in 50 changed: 5 shingles of 96 in each: true Jaccard 91/101 ~ 0.90, where
    # the estimate from 128 rows is >= 0.8 with probability ~0.999 (a single draw at 0.84,
    # as in test_near_duplicate_with_one_word_changed_is_found, misses ~15 % of seeds)
    base = vocab_words(100, seed=9)
    original = " ".join(base)
    changed = " ".join(base[:50] + ["changed"] + base[51:])
    assert jaccard(shingles(original, 5), shingles(changed, 5)) == pytest.approx(91 / 101)
    for seed in range(20):
        lsh = MinHashLSH(seed=seed)
        assert lsh.add_many(["a", "b"], [original, changed]) == [None, "a"], seed


# streaming -------------------------------------------------------------------------------
def planted_corpus(n: int, seed: int, length: int = 60) -> list[str]:
    """n texts: originals, near copies (one word in `length` changed: Jaccard ~0.84 with
    60 words) and exact copies of earlier texts, short and wordless texts."""
    rng = random.Random(seed)
    vocab = vocab_words(3000, seed=seed)
    texts: list[str] = []
    for _ in range(n):
        roll = rng.random()
        if texts and roll < 0.15:
            doc = rng.choice(texts).split()
            if doc:
                doc[rng.randrange(len(doc))] = rng.choice(vocab)
            texts.append(" ".join(doc))
        elif texts and roll < 0.2:
            texts.append(rng.choice(texts).upper())
        elif roll < 0.21:
            texts.append(rng.choice(["", "!!!", "one", "two words", "a b c d"]))
        else:
            texts.append(" ".join(rng.choice(vocab) for _ in range(length)))
    return texts


def reference(texts: list[str], seed: int = 0) -> list[int | None]:
    lsh = MinHashLSH(seed=seed)
    found = lsh.add_many([str(i) for i in range(len(texts))], texts)
    return [None if k is None else int(k) for k in found]


def test_streaming_makes_the_in_memory_decisions_while_spilling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dedup_stream, "_MIN_SLAB", 4096)  # merges sort several slabs
    texts = planted_corpus(3000, seed=11)
    expected = reference(texts)
    assert 300 < sum(e is not None for e in expected) < 1000
    # 712 bytes a kept text: ~1.8 MB kept in all, 30 times the budget
    with StreamingMinHashDedup(
        seed=0, memory_budget=60_000, spill_dir=tmp_path, batch=50, fan_in=3
    ) as stream:
        got: list[int | None] = []
        for lo in range(0, len(texts), 700):  # add_many calls need not match batches
            got += stream.add_many(texts[lo : lo + 700])
            assert stream.bytes_in_memory <= 60_000
        assert got == expected
        kept = [e is None and words(t) != [] for e, t in zip(expected, texts, strict=True)]
        assert len(stream) == sum(kept)
        assert 1 <= stream.runs_on_disk < 3000 * 712 // 60_000  # runs were merged on disk
        assert any(tmp_path.iterdir())
    assert not any(tmp_path.iterdir())  # the spill directory is removed on close


def test_streaming_in_memory_only_equals_reference_with_every_batch_size() -> None:
    texts = planted_corpus(600, seed=12, length=30)
    expected = reference(texts, seed=3)
    for batch in (1, 7, 600):
        with StreamingMinHashDedup(seed=3, batch=batch, fan_in=2) as stream:
            assert stream.add_many(texts) == expected
            assert stream.runs_on_disk == 0


def test_streaming_memory_stays_under_its_budget(tmp_path: Path) -> None:
    budget, batch, n = 1 << 20, 256, 20_000
    vocab = vocab_words(5000, seed=13)
    rng = random.Random(13)
    stream = StreamingMinHashDedup(memory_budget=budget, spill_dir=tmp_path, batch=batch)
    tracemalloc.start()
    try:
        for _ in range(n // batch):
            texts = [" ".join(rng.choices(vocab, k=50)) for _ in range(batch)]
            stream.add_many(texts)
            assert stream.bytes_in_memory <= budget
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        stream.close()
    bound = budget + (6 << 20)  # + the 4 MiB signature block and ~2 MiB of smaller arrays
    assert peak < bound, peak
    assert len(stream) * (128 * 4 + 16 * 12 + 8) > 1.8 * bound  # the index is far larger


def test_streaming_rejects_a_bad_fan_in() -> None:
    with pytest.raises(ValueError, match="fan_in"):
        StreamingMinHashDedup(fan_in=1)
