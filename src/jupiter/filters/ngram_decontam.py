"""13-gram decontamination: drop a training text that shares any 13 words in a row with an
eval item.

The rule of GPT-3 (Brown et al. 2020, appendix C: a training document is contaminated when
it shares a 13-gram with a test example) and of the Llama 2 study (Touvron et al. 2023,
appendix A.6, token n-gram overlap), stricter than `decontam.Decontaminator`'s "most of the
item's 8-grams": a single shared 13-gram is enough. An eval item shorter than 13 words is
one n-gram of all its words (GPT-3 does the same for short items). Items under `min_words`
words ("True", "a list") are skipped: they occur in ordinary domain text.

Texts are compared by `text.words` (NFKC, lowercase, punctuation removed, every run of
whitespace and line breaks one separator), so a rewrapped, re-spaced or re-cased copy
still matches.

Speed: an n-gram is a Rabin-Karp polynomial hash (Karp & Rabin 1987) modulo the Mersenne
prime 2**61 - 1 over per-word values taken from blake2b; prefix hashes give every window's
hash in O(1), so scanning a text is O(words). A word that no eval item contains cannot be
inside a matching window, so the scan only runs over stretches of eval-vocabulary words.
Two distinct n-grams collide with probability about n / 2**61 (negligible).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence

from jupiter.filters.text import words

CONTAMINATED = "contaminated"  # the same reason string as decontam.Decontaminator
NGRAM_DECONTAM_REASONS = (CONTAMINATED,)

_P = (1 << 61) - 1  # Mersenne prime modulus
_BASE = 0x5BD1E995F1A2B3C5 % _P  # any fixed value in [2, P-2]; the word values are random


def _word_value(word: str) -> int:
    return (
        int.from_bytes(hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest(), "little") % _P
    )


class NGramDecontaminator:
    """Flags texts containing any `n`-gram of an eval item (or all of a shorter item)."""

    def __init__(self, eval_texts: Sequence[str], n: int = 13, min_words: int = 3) -> None:
        if not 1 <= min_words <= n:
            raise ValueError(f"need 1 <= min_words <= n, got min_words={min_words}, n={n}")
        self.n, self.min_words = n, min_words
        self._vocab: dict[str, int] = {}  # eval word -> its hash value
        self._pow = [1] * (n + 1)  # BASE**m mod P
        for m in range(1, n + 1):
            self._pow[m] = self._pow[m - 1] * _BASE % _P
        self._grams: dict[int, int] = {}  # n-gram hash -> first eval item holding it
        self._short: dict[tuple[int, int], int] = {}  # (length, hash) -> first short item
        self._short_lengths: dict[int, set[int]] = {}  # first word value -> short lengths
        self._items = 0
        for i, text in enumerate(eval_texts):
            self._index(i, words(text))

    def _values(self, toks: Sequence[str]) -> list[int]:
        vocab = self._vocab
        for w in toks:
            if w not in vocab:
                vocab[w] = _word_value(w)
        return [vocab[w] for w in toks]

    @staticmethod
    def _prefix(vals: Sequence[int]) -> list[int]:
        h = [0] * (len(vals) + 1)
        for j, v in enumerate(vals):
            h[j + 1] = (h[j] * _BASE + v) % _P
        return h

    def _window(self, prefix: list[int], start: int, m: int) -> int:
        return (prefix[start + m] - prefix[start] * self._pow[m]) % _P

    def _index(self, i: int, toks: list[str]) -> None:
        if len(toks) < self.min_words:
            return
        self._items += 1
        vals = self._values(toks)
        prefix = self._prefix(vals)
        if len(toks) < self.n:
            self._short.setdefault((len(toks), prefix[-1]), i)
            self._short_lengths.setdefault(vals[0], set()).add(len(toks))
            return
        for j in range(len(toks) - self.n + 1):
            self._grams.setdefault(self._window(prefix, j, self.n), i)

    def __len__(self) -> int:
        """How many eval items are indexed (items under `min_words` words are not)."""
        return self._items

    def _runs(self, toks: Sequence[str]) -> Iterator[list[int]]:
        """Maximal stretches of eval-vocabulary words, as word values."""
        run: list[int] = []
        for w in toks:
            v = self._vocab.get(w)
            if v is None:
                if run:
                    yield run
                run = []
            else:
                run.append(v)
        if run:
            yield run

    def _hits(self, text: str) -> Iterator[int]:
        """Eval items found in `text`, in scan order (an item may repeat)."""
        if not self._items:
            return
        n, pw, grams, short = self.n, self._pow, self._grams, self._short
        lengths = self._short_lengths
        for vals in self._runs(words(text)):
            if len(vals) < self.min_words:
                continue
            h = self._prefix(vals)  # window hash inlined below: this loop is the hot path
            for j in range(len(vals) - n + 1):
                hit = grams.get((h[j + n] - h[j] * pw[n]) % _P)
                if hit is not None:
                    yield hit
            for j, v in enumerate(vals if short else ()):
                for m in lengths.get(v, ()):
                    if j + m <= len(vals):
                        hit = short.get((m, (h[j + m] - h[j] * pw[m]) % _P))
                        if hit is not None:
                            yield hit

    def match(self, text: str) -> int | None:
        """Index (in the order given) of the first eval item found in `text`, or None."""
        return min(self._hits(text), default=None)

    def matches(self, text: str) -> set[int]:
        """Indexes of every eval item found in `text` (the eval set's own decontamination
        drops each of them, not only the first)."""
        return set(self._hits(text))

    def check(self, text: str) -> str | None:
        """Return "contaminated" when `text` holds an eval n-gram or a whole short item."""
        return CONTAMINATED if next(self._hits(text), None) is not None else None
