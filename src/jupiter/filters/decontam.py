"""Decontamination: drop training examples that contain an item of the domain's eval set.

Overlap is measured on word n-grams of normalized text, the approach of GPT-3 (Brown et al.
2020, appendix C: 13-grams) and of the Llama 2 / PaLM contamination studies; a shorter n
(the config's default 8) suits the short questions and answers of a domain eval set.
"""

from __future__ import annotations

from collections.abc import Sequence

from jupiter.filters.text import words

CONTAMINATED = "contaminated"

Gram = tuple[str, ...]


class Decontaminator:
    """Flags examples that contain (most of) an eval item.

    Rule: texts are normalized to lowercase word tokens (punctuation, case, whitespace and
    line breaks do not matter). An example is contaminated by eval item E when
      - E has at least `n` words, and the example contains at least `threshold` of E's
        distinct word n-grams (so a copied answer embedded in a longer example is caught,
        and an example that quotes E only in part is caught when it quotes most of it); or
      - E has fewer than `n` words (but at least `min_words`), and the example contains
        all of E's words as one contiguous run.
    Items under `min_words` words ("True", "a list") are ignored: they occur in ordinary
    domain text and would flag everything. Questions and reference answers are passed as
    separate eval texts, so each is checked on its own.
    """

    def __init__(
        self, eval_texts: Sequence[str], n: int = 8, threshold: float = 0.5, min_words: int = 3
    ) -> None:
        if not 1 <= min_words <= n:
            raise ValueError(f"need 1 <= min_words <= n, got min_words={min_words}, n={n}")
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {threshold}")
        self.n, self.threshold, self.min_words = n, threshold, min_words
        self._grams: dict[Gram, list[int]] = {}  # n-gram -> long eval items holding it
        self._sizes: dict[int, int] = {}  # long item -> number of distinct n-grams
        # short items by their first min_words words: one dict lookup per example position
        self._short: dict[Gram, dict[Gram, int]] = {}  # prefix -> {whole item: first index}
        self._n_short = 0
        for i, text in enumerate(eval_texts):
            self._index(i, words(text))

    def _index(self, i: int, toks: list[str]) -> None:
        if len(toks) < self.min_words:
            return
        if len(toks) < self.n:
            items = self._short.setdefault(tuple(toks[: self.min_words]), {})
            items.setdefault(tuple(toks), i)
            self._n_short += 1
            return
        grams = {tuple(toks[j : j + self.n]) for j in range(len(toks) - self.n + 1)}
        self._sizes[i] = len(grams)
        for g in grams:
            self._grams.setdefault(g, []).append(i)

    def __len__(self) -> int:
        """How many eval items are indexed."""
        return len(self._sizes) + self._n_short

    def match(self, text: str) -> int | None:
        """Index of the first eval text (in the order given) that contaminates `text`."""
        if not self._grams and not self._short:
            return None
        toks = words(text)
        hits: list[int] = []
        m = self.min_words
        for j in range(len(toks) - m + 1 if self._short else 0):
            for gram, i in self._short.get(tuple(toks[j : j + m]), {}).items():
                if tuple(toks[j : j + len(gram)]) == gram:
                    hits.append(i)
        if self._grams and len(toks) >= self.n:
            shared: dict[int, int] = {}
            grams = {tuple(toks[j : j + self.n]) for j in range(len(toks) - self.n + 1)}
            for g in grams:
                for item in self._grams.get(g, ()):
                    shared[item] = shared.get(item, 0) + 1
            hits += [i for i, k in shared.items() if k >= self.threshold * self._sizes[i]]
        return min(hits) if hits else None

    def check(self, text: str) -> str | None:
        """Return "contaminated" when `text` contains an eval item (see the class rule), else None."""
        return CONTAMINATED if self.match(text) is not None else None
