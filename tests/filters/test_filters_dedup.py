"""Exact dedup on normalized text; MinHash LSH estimates Jaccard and finds near-duplicates."""

from __future__ import annotations

import random

import numpy as np
import pytest

from jupiter.filters.dedup import ExactDedup, MinHashLSH, jaccard, shingles

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
