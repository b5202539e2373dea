"""Topic relevance: drop examples that mention none of the domain's keywords.

The score is BM25's term-frequency part (Robertson & Zaragoza 2009, "The Probabilistic
Relevance Framework: BM25 and Beyond", eq. 3.15) without the IDF factor, since a single
example has no collection to take document frequencies from:

    score(text) = sum over keywords k of  tf_k / (tf_k + k1 * (1 - b + b * L / avg_words))

tf_k: occurrences of k in the text (a multi-word keyword counts as a phrase: its words in
order, adjacent); L: the text's length in words. Each keyword adds at most 1 (it saturates
with repetition, so spamming one keyword does not buy relevance), and the length factor
makes one mention in a 20-word answer count more than one mention in a 2,000-word page.
With the defaults one mention in a text of `avg_words` words scores 1 / 2.2 = 0.45.

Matching is case-insensitive on NFKC word tokens with a light plural stemmer
("decorators" -> "decorator", "classes" -> "class", "libraries" -> "library").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

OFF_TOPIC = "off_topic"
RELEVANCE_REASONS = (OFF_TOPIC,)

_WORD = re.compile(r"\w+")
_KEEP_S = ("ss", "us", "is")  # class, status, analysis: not plurals


def stem(word: str) -> str:
    """Plural to singular for regular English plurals; other words unchanged."""
    if len(word) <= 3 or not word.endswith("s"):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"  # libraries -> library
    if word.endswith(("sses", "xes", "ches", "shes", "zzes")):
        return word[:-2]  # classes -> class, boxes -> box, matches -> match
    if word.endswith("ys"):
        return word[:-1]  # keys -> key, arrays -> array
    if word.endswith(_KEEP_S):
        return word
    return word[:-1]  # decorators -> decorator, lists -> list


def tokens(text: str) -> list[str]:
    """Lowercased, stemmed word tokens (NFKC first, so full-width letters match)."""
    return [stem(w) for w in _WORD.findall(unicodedata.normalize("NFKC", text).lower())]


def domain_keywords(topics: Iterable[str], keywords: Iterable[str] = ()) -> list[str]:
    """A domain's `topics` plus its optional `keywords:` list, without repeats (by tokens)."""
    out: list[str] = []
    seen: set[tuple[str, ...]] = set()
    for k in (*topics, *keywords):
        key = tuple(tokens(k))
        if key and key not in seen:
            seen.add(key)
            out.append(k)
    return out


@dataclass(frozen=True)
class BM25Settings:
    """k1 1.2 and b 0.75: the customary BM25 values (Robertson & Zaragoza 2009, §3.5 gives
    k1 in 1.2–2.0, b 0.75). avg_words 200: about one generated answer or document chunk
    (Chunking.max_chars 1500 is ~250 words), the length at which no length penalty applies."""

    k1: float = 1.2
    b: float = 0.75
    avg_words: float = 200.0


class RelevanceFilter:
    """Keeps texts whose keyword score (module docstring) is at least `min_score`.

    The default 0.3 keeps a 200-word text that names one keyword once (0.45), or a
    2,000-word page that names keywords about 5 times; it drops a text that names none.
    An empty keyword list keeps everything (a domain without topics has no off-topic).
    """

    def __init__(
        self, keywords: Sequence[str], min_score: float = 0.3, bm25: BM25Settings | None = None
    ) -> None:
        self.keywords = [k for k in keywords if tokens(k)]
        self.min_score = min_score
        self.bm25 = bm25 or BM25Settings()
        self._phrases = sorted({tuple(tokens(k)) for k in self.keywords})
        self._by_first: dict[str, list[tuple[str, ...]]] = {}
        for phrase in self._phrases:
            self._by_first.setdefault(phrase[0], []).append(phrase)

    def counts(self, toks: Sequence[str]) -> dict[tuple[str, ...], int]:
        """Occurrences of each keyword phrase in `toks` (one pass, a dict lookup per token)."""
        tf: dict[tuple[str, ...], int] = {}
        for i, tok in enumerate(toks):
            for phrase in self._by_first.get(tok, ()):
                if tuple(toks[i : i + len(phrase)]) == phrase:
                    tf[phrase] = tf.get(phrase, 0) + 1
        return tf

    def score(self, text: str) -> float:
        toks = tokens(text)
        if not toks:
            return 0.0
        p = self.bm25
        norm = p.k1 * (1.0 - p.b + p.b * len(toks) / p.avg_words)
        return sum(tf / (tf + norm) for tf in self.counts(toks).values())

    def check(self, text: str) -> str | None:
        if not self._phrases:
            return None
        return OFF_TOPIC if self.score(text) < self.min_score else None
