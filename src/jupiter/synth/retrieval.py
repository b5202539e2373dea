"""Okapi BM25 over chunk texts, with a code-aware tokenizer.

BM25 as in Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond"
(2009), with Lucene's non-negative idf, log(1 + (N - df + 0.5) / (df + 0.5)), so a term in
most documents still scores a little instead of pulling a document down.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*|\d+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

# English function words only: Python keywords (for, in, is, not, with, return …) are
# content in this domain and stay searchable.
STOPWORDS = frozenset(
    """a an the of to what which how why who whom does do did are was were be been being
    can could would should will shall may might i you me my your we our us they them their
    this that these those it its on at by about into onto than then so such there here
    has have had also very just please briefly explain describe tell""".split()
)


def tokenize(text: str) -> list[str]:
    """Lower-cased terms; `json.dumps` gives json.dumps, json, dumps; `sort_keys` gives
    sort_keys, sort, keys; `JSONEncoder` gives jsonencoder, json, encoder."""
    out: list[str] = []
    for m in _WORD.finditer(text):
        word = m.group(0)
        parts = word.split(".")
        if len(parts) > 1:
            out.append(word.lower())
        for part in parts:
            low = part.lower()
            if low in STOPWORDS or not low.strip("_"):
                continue
            out.append(low)
            pieces = [p.lower() for s in part.split("_") for p in _CAMEL.findall(s)]
            if len(pieces) > 1:
                out.extend(p for p in pieces if p not in STOPWORDS)
    return out


class _Field:
    """Postings and lengths of one field (body or title) of every document."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.lengths = np.zeros(len(texts), dtype=np.float64)
        postings: dict[str, tuple[list[int], list[int]]] = {}
        for i, text in enumerate(texts):
            counts = Counter(tokenize(text))
            self.lengths[i] = sum(counts.values())
            for term, tf in counts.items():
                docs, tfs = postings.setdefault(term, ([], []))
                docs.append(i)
                tfs.append(tf)
        self.avg_len = float(self.lengths.mean()) if len(texts) else 0.0
        self.postings = {
            t: (np.asarray(d, dtype=np.int64), np.asarray(f, dtype=np.float64))
            for t, (d, f) in postings.items()
        }

    def df(self, term: str) -> int:
        return len(self.postings[term][0]) if term in self.postings else 0

    def scores(self, terms: Sequence[str], k1: float, b: float) -> np.ndarray:
        n = len(self.lengths)
        out = np.zeros(n, dtype=np.float64)
        norm = k1 * (1.0 - b + b * self.lengths / max(self.avg_len, 1e-9))
        for term in terms:
            if term not in self.postings:
                continue
            docs, tfs = self.postings[term]
            idf = math.log(1.0 + (n - len(docs) + 0.5) / (len(docs) + 0.5))
            out[docs] += idf * tfs * (k1 + 1.0) / (tfs + norm[docs])
        return out


class BM25Index:
    """An inverted index over `texts`; `search(query, k)` returns [(index, score)] best first.

    With `titles`, the title is a second field scored on its own and added with weight
    `title_weight`: a page titled `json.dumps` is the answer to a question naming it, even
    when an overview page mentions the name more often.
    """

    def __init__(
        self,
        texts: Sequence[str],
        titles: Sequence[str] | None = None,
        title_weight: float = 2.0,
        k1: float = 1.2,
        b: float = 0.75,
    ) -> None:
        # k1 = 1.2, b = 0.75: the usual defaults (Lucene, Robertson & Zaragoza 2009)
        if titles is not None and len(titles) != len(texts):
            raise ValueError("BM25Index: texts and titles differ in length")
        self.k1, self.b, self.title_weight = k1, b, title_weight
        self.n_docs = len(texts)
        self.body = _Field(texts)
        self.title = _Field(titles) if titles is not None else None

    def idf(self, term: str) -> float:
        """Lucene's BM25 idf over the texts; a term never seen gets the idf of df = 0."""
        df = self.body.df(term)
        return math.log(1.0 + (self.n_docs - df + 0.5) / (df + 0.5))

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every text for `query` (repeated query terms count once)."""
        terms = list(dict.fromkeys(tokenize(query)))
        out = self.body.scores(terms, self.k1, self.b)
        if self.title is not None:
            out += self.title_weight * self.title.scores(terms, self.k1, self.b)
        return out

    def search(self, query: str, k: int = 5) -> list[tuple[int, float]]:
        """The k best texts with a positive score; ties go to the lower index."""
        s = self.scores(query)
        hits = np.flatnonzero(s > 0)
        # stable sort on -score keeps index order among equal scores
        order = hits[np.argsort(-s[hits], kind="stable")][:k]
        return [(int(i), float(s[i])) for i in order]
