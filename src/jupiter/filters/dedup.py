"""Exact and near-duplicate removal.

Exact: a hash of the normalized text (lowercase, punctuation stripped, whitespace collapsed).
Near: MinHash (Broder 1997) with LSH banding (Leskovec, Rajaraman & Ullman, "Mining of
Massive Datasets", ch. 3), as used for LM data by Lee et al. 2022 ("Deduplicating Training
Data Makes Language Models Better") and Penedo et al. 2024 (FineWeb). Band collisions only
propose candidates; a candidate is confirmed by the estimated Jaccard similarity (the
fraction of agreeing signature rows) before anything is dropped.

Words are split and hashed with numpy over the code points of a whole batch (no regex or
dict lookup per word), and the permutations run along rows of a (num_perm, shingles)
block: about 75 us a 500-word text on one core. `MinHashLSH` keeps its index in memory;
`jupiter.filters.dedup_stream.StreamingMinHashDedup` makes the same decisions over a
stream of any length in bounded memory.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from jupiter.filters.text import normalize, words

_MASK64 = (1 << 64) - 1
_MIX = 0x9E3779B97F4A7C15  # odd 64-bit constant (golden ratio) for polynomial hashes
_SHIFT = np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)
# Work in blocks, so the working arrays stay a few MiB whatever the batch: 128k characters
# of text at a time (1 MiB per int64 array over them), and (num_perm, 4096) uint64 values
# (4 MiB with 128 permutations; rows of 2048 were twice as slow, 8192 no faster).
_BLOCK_SHINGLES = 4096
_BLOCK_CHARS = 1 << 17
_ASCII_WORD = np.array([chr(c).isalnum() or c == 0x5F for c in range(128)])  # re's \w
# one random odd multiplier per position in a word (mod 256): a multilinear word hash
_POS_KEYS = np.random.default_rng(0).integers(0, 1 << 63, size=256, dtype=np.uint64)
_POS_KEYS = _POS_KEYS * np.uint64(2) + np.uint64(1)


@dataclass
class _Words:
    """The words of a batch of texts, found with numpy on the code points of all texts at
    once (one regex match per word costs ~25 ns a character; this, a few): `chars` are
    the code points of every word, concatenated; word i is chars[first[i] : first[i] +
    lens[i]]; counts[t] words belong to text t. Exactly the words of `words`."""

    chars: np.ndarray
    first: np.ndarray
    lens: np.ndarray
    counts: np.ndarray

    @classmethod
    def of(cls, texts: Sequence[str]) -> _Words:
        norms = [unicodedata.normalize("NFKC", t).lower() for t in texts]
        joined = "\0".join(norms)  # "\0" is not a word character: no word spans two texts
        if joined.isascii():
            cps = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
        else:
            cps = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        is_word = _is_word(cps)
        edge = np.diff(is_word.view(np.int8), prepend=np.int8(0), append=np.int8(0))
        starts = np.flatnonzero(edge == 1)
        lens = np.flatnonzero(edge == -1) - starts
        sizes = [len(n) + 1 for n in norms]  # each text and the "\0" after it
        text_starts = np.cumsum(sizes) - np.array(sizes, dtype=np.int64)
        counts = np.diff(np.searchsorted(starts, text_starts), append=len(starts))
        return cls(cps[is_word], np.cumsum(lens) - lens, lens, counts.astype(np.int64))


def _is_word(cps: np.ndarray) -> np.ndarray:
    """Which code points `re`'s \\w matches: str.isalnum() or "_"."""
    if cps.dtype == np.uint8:
        return _ASCII_WORD[cps]
    out = np.zeros(len(cps), dtype=bool)
    low = cps < 128
    out[low] = _ASCII_WORD[cps[low]]
    if not low.all():
        uniq, inv = np.unique(cps[~low], return_inverse=True)
        out[~low] = np.array([chr(c).isalnum() for c in uniq.tolist()], dtype=bool)[inv]
    return out


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

    @staticmethod
    def keys(texts: Sequence[str]) -> list[bytes]:
        """`key` of each text; the normalized texts are built with numpy (2x faster)."""
        out: list[bytes] = []
        for lo, hi in _blocks(np.array([len(t) for t in texts], dtype=np.int64), _BLOCK_CHARS):
            w = _Words.of(texts[lo:hi])
            word_end = np.cumsum(w.counts)
            not_first = np.ones(len(w.first), dtype=bool)  # a space before all but the first
            not_first[(word_end - w.counts)[w.counts > 0]] = False
            joined = np.insert(w.chars, w.first[not_first], 32)
            char_end = np.r_[0, np.cumsum(w.lens)][word_end] + word_end - (w.counts > 0).cumsum()
            char_start = np.r_[0, char_end[:-1]]
            for text, n, a, b in zip(
                texts[lo:hi], w.counts.tolist(), char_start, char_end, strict=True
            ):
                if n == 0:
                    out.append(ExactDedup.key(text))
                    continue
                blob = joined[a:b].tobytes()
                if joined.dtype != np.uint8:
                    blob = blob.decode("utf-32-le", "surrogatepass").encode("utf-8")
                out.append(hashlib.blake2b(blob, digest_size=16).digest())
        return out

    def add(self, text: str) -> bool:
        """True if an equal text was seen before; otherwise remember it and return False."""
        return self._add_key(self.key(text))

    def add_many(self, texts: Sequence[str]) -> list[bool]:
        """`add` for many texts in order."""
        return [self._add_key(k) for k in self.keys(texts)]

    def _add_key(self, k: bytes) -> bool:
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


def _mix64(h: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer (Steele, Lea & Flood, OOPSLA 2014), in place."""
    h ^= h >> np.uint64(30)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(27)
    h *= np.uint64(0x94D049BB133111EB)
    h ^= h >> np.uint64(31)
    return h


def word_hashes(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """A 64-bit hash of every word of every text (the words of `words`), in order, and each
    text's word count: sum((c_j + 1) * K[j mod 256]) over the word's code points c_j (a
    multilinear hash, Carter & Wegman 1979) passed through `_mix64`."""
    w = _Words.of(texts)
    if not len(w.first):
        return np.zeros(0, dtype=np.uint64), w.counts
    chars = w.chars.astype(np.uint64)
    chars += np.uint64(1)
    at = np.arange(len(chars))
    at -= np.repeat(w.first, w.lens)  # position in its word
    at &= 255
    chars *= _POS_KEYS[at]
    return _mix64(np.add.reduceat(chars, w.first)), w.counts


def _blocks(sizes: np.ndarray, limit: int) -> list[tuple[int, int]]:
    """Consecutive [lo, hi) ranges of items whose sizes sum to about `limit` (an item
    larger than the limit is a block of its own)."""
    ends = np.cumsum(sizes)
    out, lo = [], 0
    while lo < len(sizes):
        base = ends[lo - 1] if lo else 0
        hi = max(int(np.searchsorted(ends, base + limit, side="right")), lo + 1)
        out.append((lo, hi))
        lo = hi
    return out


class MinHasher:
    """MinHash signatures and LSH band keys of texts.

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
        self,
        num_perm: int = 128,
        bands: int = 16,
        shingle: int = 5,
        threshold: float = 0.8,
        seed: int = 0,
    ) -> None:
        if not 1 <= bands <= num_perm:
            raise ValueError(f"bands must be between 1 and num_perm ({num_perm}), got {bands}")
        self.num_perm, self.bands, self.shingle = num_perm, bands, shingle
        self.rows = num_perm // bands
        self.threshold = threshold
        rng = np.random.default_rng(seed)
        top = np.iinfo(np.uint64).max
        self._a = rng.integers(0, top, size=num_perm, dtype=np.uint64, endpoint=True) | 1
        self._b = rng.integers(0, top, size=num_perm, dtype=np.uint64, endpoint=True)

    def _shingle_hashes(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(doc index, 32-bit hash) of every shingle of every text, grouped by doc, and
        each text's word count.

        A shingle hash is the polynomial sum(word_hash[i+j] * MIX**(k-1-j)) mod 2**64, over
        all texts at once; windows that cross a text's end are masked out.
        """
        k = self.shingle
        wh, counts = word_hashes(texts)
        m = max(len(wh) - k + 1, 0)
        poly = np.zeros(m, dtype=np.uint64)
        for j in range(k):  # Horner over the window, wrapping mod 2**64
            poly *= np.uint64(_MIX)
            poly += wh[j : j + m]
        starts = np.cumsum(counts) - counts
        doc = np.repeat(np.arange(len(texts)), counts)[:m]
        valid = np.arange(m) - starts[doc] <= counts[doc] - k
        doc, h = doc[valid], poly[valid]
        short = np.flatnonzero((counts > 0) & (counts < k)).tolist()
        if short:  # one shingle of all its words, by the same polynomial
            extra = []
            for i in short:
                acc = 0
                for x in wh[starts[i] : starts[i] + counts[i]].tolist():
                    acc = (acc * _MIX + x) & _MASK64
                extra.append(acc)
            doc = np.concatenate([doc, np.array(short, dtype=np.int64)])
            h = np.concatenate([h, np.array(extra, dtype=np.uint64)])
            order = np.argsort(doc, kind="stable")
            doc, h = doc[order], h[order]
        return doc, (h ^ (h >> _SHIFT)) & _LOW32, counts

    def signatures(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), num_perm) uint32 MinHash signatures; rows of a text with no words
        are all 2**32 - 1 (such a text is never indexed or matched: see `add_many`)."""
        return self._signatures(texts)[0]

    def _signatures(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Signatures and, per text, whether it has any words; blocks of about
        _BLOCK_CHARS characters at a time, so the working arrays stay a few MiB."""
        out = np.full((len(texts), self.num_perm), np.iinfo(np.uint32).max, dtype=np.uint32)
        has_words = np.zeros(len(texts), dtype=bool)
        sizes = np.array([len(t) for t in texts], dtype=np.int64)
        for lo, hi in _blocks(sizes, _BLOCK_CHARS):
            doc, x, counts = self._shingle_hashes(texts[lo:hi])
            has_words[lo:hi] = counts > 0
            if len(doc):
                self._minhash(doc, x, out[lo:hi])
        return out, has_words

    def _minhash(self, doc: np.ndarray, x: np.ndarray, out: np.ndarray) -> None:
        """out[d] = min over d's shingle hashes x of h(x), for each permutation."""
        firsts = np.flatnonzero(np.r_[True, doc[1:] != doc[:-1]])  # each doc's first row
        sizes = np.diff(firsts, append=len(doc))
        blocks = _blocks(sizes, _BLOCK_SHINGLES)
        width = max(int(sizes[lo:hi].sum()) for lo, hi in blocks)
        buf = np.empty((self.num_perm, width), dtype=np.uint64)
        a, b = self._a[:, None], self._b[:, None]
        for lo, hi in blocks:  # blocks of whole docs; permutations along rows
            first, end = firsts[lo], firsts[hi] if hi < len(firsts) else len(doc)
            vals = buf[:, : end - first]
            np.multiply(a, x[None, first:end], out=vals)
            vals += b
            # the shift is monotone: take the minimum first, shift num_perm values per doc
            mins = np.minimum.reduceat(vals, firsts[lo:hi] - first, axis=1)
            out[doc[firsts[lo:hi]]] = (mins >> _SHIFT).T

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


class MinHashLSH(MinHasher):
    """A MinHash LSH index in memory: `add(key, text)` returns the key of a near-duplicate
    or inserts. Buckets are dicts of lists: about 4 KB a kept item with 16 bands, key and
    signature included (measured in benchmarks/speed/dedup.py); for a stream of any length use
    `dedup_stream.StreamingMinHashDedup` (the same decisions, in bounded memory)."""

    def __init__(
        self,
        num_perm: int = 128,
        bands: int = 16,
        shingle: int = 5,
        threshold: float = 0.8,
        seed: int = 0,
    ) -> None:
        super().__init__(num_perm, bands, shingle, threshold, seed)
        self._buckets: list[dict[int, list[int]]] = [{} for _ in range(bands)]
        self._keys: list[str] = []
        self._sigs = np.empty((64, num_perm), dtype=np.uint32)

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
