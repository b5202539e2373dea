"""Exact and near-duplicate removal.

Exact: a hash of the normalized text (lowercase, punctuation stripped, whitespace collapsed).
Near: MinHash (Broder 1997) with LSH banding (Leskovec, Rajaraman & Ullman, "Mining of
Massive Datasets", ch. 3), as used for LM data by Lee et al. 2022 ("Deduplicating Training
Data Makes Language Models Better") and Penedo et al. 2024 (FineWeb). Band collisions only
propose candidates; a candidate is confirmed by the estimated Jaccard similarity (the
fraction of agreeing signature rows) before anything is dropped.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from jupiter.filters.text import normalize, words

_MASK64 = (1 << 64) - 1
_MIX = 0x9E3779B97F4A7C15  # odd 64-bit constant (golden ratio) for polynomial hashes
_SHIFT = np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)
_CHUNK_ROWS = 2048  # shingles per block: the (rows, num_perm) uint64 matrix stays in cache


class ExactDedup:
    """Remembers the normalized texts it has seen (as 128-bit blake2b digests)."""

    def __init__(self) -> None:
        self._seen: set[bytes] = set()

    @staticmethod
    def key(text: str) -> bytes:
        norm = normalize(text)
        # A text with no words at all ("!!!") is keyed on itself, not on "" shared by all.
        blob = norm if norm else "\0" + text.strip()
        return hashlib.blake2b(blob.encode("utf-8"), digest_size=16).digest()

    def add(self, text: str) -> bool:
        """True if an equal text was seen before; otherwise remember it and return False."""
        k = self.key(text)
        if k in self._seen:
            return True
        self._seen.add(k)
        return False

    def __len__(self) -> int:
        return len(self._seen)


def shingles(text: str, k: int) -> set[tuple[str, ...]]:
    """The word k-shingles MinHash estimates the Jaccard similarity of (the reference
    definition): a text shorter than k words is one shingle of all its words."""
    toks = words(text)
    k = min(k, len(toks))
    return {tuple(toks[i : i + k]) for i in range(len(toks) - k + 1)} if toks else set()


def jaccard(a: set[tuple[str, ...]], b: set[tuple[str, ...]]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


class MinHashLSH:
    """A MinHash LSH index: `add(key, text)` returns the key of a near-duplicate or inserts.

    Each of the num_perm hash functions is h(x) = ((a*x + b) mod 2**64) >> 32 on the 32-bit
    shingle hash x, with random 64-bit a and b: Dietzfelbinger's multiply-add-shift family
    (STACS 1996), 2-independent like (a*x + b) mod p but five times faster in numpy than a
    64-bit modulo, and exact in uint64 arithmetic (no 128-bit products to overflow).

    The signature is cut into `bands` bands of num_perm // bands rows (leftover rows still
    count in the Jaccard estimate). Two texts share a bucket with probability
    1 - (1 - J**rows)**bands; with 128/16 the S-curve's midpoint is (1/16)**(1/8) ~ 0.71,
    below the usual 0.8 threshold, so few true duplicates are missed, and the confirmation
    (estimated Jaccard >= threshold) removes the false candidates.
    """

    def __init__(
        self, num_perm: int = 128, bands: int = 16, shingle: int = 5,
        threshold: float = 0.8, seed: int = 0,
    ) -> None:  # fmt: skip
        if not 1 <= bands <= num_perm:
            raise ValueError(f"bands must be between 1 and num_perm ({num_perm}), got {bands}")
        self.num_perm, self.bands, self.shingle = num_perm, bands, shingle
        self.rows = num_perm // bands
        self.threshold = threshold
        rng = np.random.default_rng(seed)
        top = np.iinfo(np.uint64).max
        self._a = rng.integers(0, top, size=num_perm, dtype=np.uint64, endpoint=True) | 1
        self._b = rng.integers(0, top, size=num_perm, dtype=np.uint64, endpoint=True)
        self._word_hash: dict[str, int] = {}
        self._buckets: list[dict[int, list[int]]] = [{} for _ in range(bands)]
        self._keys: list[str] = []
        self._sigs = np.empty((64, num_perm), dtype=np.uint32)

    # signatures -----------------------------------------------------------------------
    def _hash_word(self, w: str) -> int:
        h = int.from_bytes(hashlib.blake2b(w.encode("utf-8"), digest_size=8).digest(), "little")
        self._word_hash[w] = h
        return h

    def _shingle_hashes(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(doc index, 32-bit hash) of every shingle of every text, grouped by doc, and
        each text's word count.

        A shingle hash is the polynomial sum(word_hash[i+j] * MIX**(k-1-j)) mod 2**64, over
        all texts at once; windows that cross a text's end are masked out.
        """
        cache, k = self._word_hash, self.shingle
        flat: list[int] = []
        counts = np.zeros(len(texts), dtype=np.int64)
        short_docs: list[int] = []
        short_hashes: list[int] = []
        for i, text in enumerate(texts):
            hs = [cache.get(w) or self._hash_word(w) for w in words(text)]
            counts[i] = len(hs)
            flat += hs
            if 0 < len(hs) < k:  # one shingle of all its words, by the same polynomial
                acc = 0
                for x in hs:
                    acc = (acc * _MIX + x) & _MASK64
                short_docs.append(i)
                short_hashes.append(acc)
        wh = np.array(flat, dtype=np.uint64)
        m = max(len(wh) - k + 1, 0)
        poly = np.zeros(m, dtype=np.uint64)
        for j in range(k):  # Horner over the window, wrapping mod 2**64
            poly = poly * np.uint64(_MIX) + wh[j : j + m]
        starts = np.cumsum(counts) - counts
        doc = np.repeat(np.arange(len(texts)), counts)[:m]
        valid = np.arange(m) - starts[doc] <= counts[doc] - k
        doc = np.concatenate([doc[valid], np.array(short_docs, dtype=np.int64)])
        h = np.concatenate([poly[valid], np.array(short_hashes, dtype=np.uint64)])
        order = np.argsort(doc, kind="stable")
        h = h[order]
        return doc[order], (h ^ (h >> _SHIFT)) & _LOW32, counts

    def signatures(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), num_perm) uint32 MinHash signatures; rows of a text with no words
        are all 2**32 - 1 (such a text is never indexed or matched: see `add_many`)."""
        return self._signatures(texts)[0]

    def _signatures(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Signatures and, per text, whether it has any words."""
        out = np.full((len(texts), self.num_perm), np.iinfo(np.uint32).max, dtype=np.uint32)
        doc, x, counts = self._shingle_hashes(texts)
        if not len(doc):
            return out, counts > 0
        firsts = np.flatnonzero(np.r_[True, doc[1:] != doc[:-1]])  # each doc's first row
        at = np.searchsorted(firsts, np.arange(0, len(doc), _CHUNK_ROWS))
        edges = np.r_[np.unique(firsts[at[at < len(firsts)]]), len(doc)]
        for lo, hi in zip(edges[:-1], edges[1:], strict=True):  # blocks of whole docs
            vals = np.multiply(x[lo:hi, None], self._a[None, :])
            vals += self._b[None, :]
            vals >>= _SHIFT
            groups = firsts[np.searchsorted(firsts, lo) : np.searchsorted(firsts, hi)]
            out[doc[groups]] = np.minimum.reduceat(vals, groups - lo, axis=0)
        return out, counts > 0

    def band_keys(self, sigs: np.ndarray) -> np.ndarray:
        """(n, bands) uint64 bucket keys: a polynomial hash of each band's rows."""
        n = len(sigs)
        bands = (
            sigs[:, : self.bands * self.rows].astype(np.uint64).reshape(n, self.bands, self.rows)
        )
        h = np.zeros((n, self.bands), dtype=np.uint64)
        for j in range(self.rows):
            h = h * np.uint64(_MIX) + bands[:, :, j]
        return h

    @staticmethod
    def estimate(sig_a: np.ndarray, sig_b: np.ndarray) -> float:
        """Estimated Jaccard similarity: the fraction of signature rows that agree."""
        return float(np.mean(sig_a == sig_b))

    # the index ------------------------------------------------------------------------
    def query(self, sig: np.ndarray, bkeys: np.ndarray) -> str | None:
        """Key of the most similar indexed item with estimated Jaccard >= threshold."""
        cands: set[int] = set()
        for band, bk in enumerate(bkeys.tolist()):
            hit = self._buckets[band].get(bk)
            if hit:
                cands.update(hit)
        if not cands:
            return None
        idx = np.fromiter(sorted(cands), dtype=np.int64, count=len(cands))
        agree = (self._sigs[idx] == sig[None, :]).mean(axis=1)
        best = int(np.argmax(agree))  # ties go to the earliest inserted item
        return self._keys[idx[best]] if agree[best] >= self.threshold else None

    def insert(self, key: str, sig: np.ndarray, bkeys: np.ndarray) -> None:
        i = len(self._keys)
        if i == len(self._sigs):
            self._sigs = np.concatenate([self._sigs, np.empty_like(self._sigs)])
        self._sigs[i] = sig
        self._keys.append(key)
        for band, bk in enumerate(bkeys.tolist()):
            self._buckets[band].setdefault(bk, []).append(i)

    def add_many(self, keys: Sequence[str], texts: Sequence[str]) -> list[str | None]:
        """`add` for many items in order (signatures computed in one vectorized pass).
        A text with no words is neither matched nor indexed (None)."""
        sigs, has_words = self._signatures(texts)
        out: list[str | None] = []
        for key, ok, sig, bk in zip(
            keys, has_words.tolist(), sigs, self.band_keys(sigs), strict=True
        ):
            dup = self.query(sig, bk) if ok else None
            if dup is None and ok:
                self.insert(key, sig, bk)
            out.append(dup)
        return out

    def insert_many(self, keys: Sequence[str], texts: Sequence[str]) -> None:
        """Index items without checking them (data accepted earlier)."""
        sigs, has_words = self._signatures(texts)
        for key, ok, sig, bk in zip(
            keys, has_words.tolist(), sigs, self.band_keys(sigs), strict=True
        ):
            if ok:
                self.insert(key, sig, bk)

    def add(self, key: str, text: str) -> str | None:
        """The key of a near-duplicate already indexed, or None after indexing `text`."""
        return self.add_many([key], [text])[0]

    def __len__(self) -> int:
        return len(self._keys)
