"""Document quality rules from Gopher, C4 and FineWeb: each answers None (keep) or a reason.

The rule definitions and thresholds are the published ones; datatrove's filters
(`huggingface/datatrove`, `pipeline/filters/gopher_quality_filter.py`,
`gopher_repetition_filter.py`, `c4_filters.py`, `fineweb_quality_filter.py`) were read as
the reference implementation. Where we deviate (blank lines, tokenization) the settings'
docstrings say why. Words are whitespace tokens with surrounding punctuation stripped
(`heuristics.gopher_words`), not NLTK's tokenizer: no model download, and the same tokens
as the existing heuristics.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from jupiter.filters.heuristics import gopher_words, top_ngram_fraction

# Stable reason strings: stored with every rejected example, so never rename.
GOPHER_WORD_COUNT = "gopher_word_count"
GOPHER_MEAN_WORD_LENGTH = "gopher_mean_word_length"
GOPHER_SYMBOL_RATIO = "gopher_symbol_ratio"
GOPHER_BULLET_LINES = "gopher_bullet_lines"
GOPHER_ELLIPSIS_LINES = "gopher_ellipsis_lines"
GOPHER_ALPHA_WORDS = "gopher_alpha_words"
GOPHER_STOP_WORDS = "gopher_stop_words"
GOPHER_DUP_LINES = "gopher_dup_lines"
GOPHER_DUP_PARAGRAPHS = "gopher_dup_paragraphs"
GOPHER_TOP_NGRAM = "gopher_top_ngram"
GOPHER_DUP_NGRAM = "gopher_dup_ngram"
C4_LOREM_IPSUM = "c4_lorem_ipsum"
C4_CURLY_BRACKET = "c4_curly_bracket"
C4_TOO_FEW_LINES = "c4_too_few_lines"
FINEWEB_PUNCTUATION = "fineweb_punctuation"
FINEWEB_SHORT_LINES = "fineweb_short_lines"
FINEWEB_DUP_LINE_CHARS = "fineweb_dup_line_chars"
FINEWEB_NEWLINES = "fineweb_newlines"

QUALITY_REASONS = (
    GOPHER_WORD_COUNT,
    GOPHER_MEAN_WORD_LENGTH,
    GOPHER_SYMBOL_RATIO,
    GOPHER_BULLET_LINES,
    GOPHER_ELLIPSIS_LINES,
    GOPHER_ALPHA_WORDS,
    GOPHER_STOP_WORDS,
    GOPHER_DUP_LINES,
    GOPHER_DUP_PARAGRAPHS,
    GOPHER_TOP_NGRAM,
    GOPHER_DUP_NGRAM,
    C4_LOREM_IPSUM,
    C4_CURLY_BRACKET,
    C4_TOO_FEW_LINES,
    FINEWEB_PUNCTUATION,
    FINEWEB_SHORT_LINES,
    FINEWEB_DUP_LINE_CHARS,
    FINEWEB_NEWLINES,
)

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


def _lines(text: str) -> list[str]:
    """Non-blank lines, stripped."""
    return [s for s in (line.strip() for line in text.splitlines()) if s]


def _paragraphs(text: str) -> list[str]:
    """Blocks separated by blank lines, stripped, empty ones dropped."""
    return [s for s in (p.strip() for p in _PARAGRAPH_BREAK.split(text)) if s]


def duplicates(items: Sequence[str]) -> tuple[int, int]:
    """(items that repeat an earlier item, their characters): the first copy is not a duplicate."""
    seen: set[str] = set()
    count = chars = 0
    for item in items:
        if item in seen:
            count += 1
            chars += len(item)
        seen.add(item)
    return count, chars


# ------------------------------------------------------------------------ Gopher quality
@dataclass(frozen=True)
class GopherQualitySettings:
    """Rae et al. 2021 ("Scaling Language Models: Methods, Analysis & Insights from Training
    Gopher"), appendix A.1.1; also datatrove's GopherQualityFilter defaults.

    `min_words` 50 is for web documents; a short Q&A turn needs a lower bound (e.g. 5).
    Bullet and ellipsis fractions are over non-blank lines (datatrove counts blank lines
    too, which lets a list with blank lines between items pass).
    """

    min_words: int = 50
    max_words: int = 100_000
    min_mean_word_length: float = 3.0
    max_mean_word_length: float = 10.0
    max_symbol_ratio: float = 0.1  # "#" per word, and "..." / "…" per word, each
    max_bullet_lines: float = 0.9
    max_ellipsis_lines: float = 0.3
    min_alpha_words: float = 0.8  # words holding at least one alphabetic character
    min_stop_words: int = 2  # occurrences, as datatrove counts them
    stop_words: frozenset[str] = frozenset({"the", "be", "to", "of", "and", "that", "have", "with"})
    bullets: tuple[str, ...] = ("•", "●", "◦", "‣", "▪", "-", "*", "–")


class GopherQuality:
    """Gopher's quality rules: length, word shape, symbols, bullets, alphabetic words, stop words."""

    def __init__(self, settings: GopherQualitySettings | None = None) -> None:
        self.settings = settings or GopherQualitySettings()

    def check(self, text: str) -> str | None:
        s = self.settings
        words = gopher_words(text)
        n = len(words)
        if n < s.min_words or n > s.max_words or n == 0:
            return GOPHER_WORD_COUNT
        mean = sum(len(w) for w in words) / n
        if not s.min_mean_word_length <= mean <= s.max_mean_word_length:
            return GOPHER_MEAN_WORD_LENGTH
        ellipses = text.count("...") + text.count("…")
        if max(text.count("#"), ellipses) / n > s.max_symbol_ratio:
            return GOPHER_SYMBOL_RATIO
        lines = _lines(text)
        if (
            lines
            and sum(ln.startswith(s.bullets) for ln in lines) / len(lines) > s.max_bullet_lines
        ):
            return GOPHER_BULLET_LINES
        ends = sum(ln.endswith(("...", "…")) for ln in lines)
        if lines and ends / len(lines) > s.max_ellipsis_lines:
            return GOPHER_ELLIPSIS_LINES
        if sum(any(c.isalpha() for c in w) for w in words) / n < s.min_alpha_words:
            return GOPHER_ALPHA_WORDS
        if sum(w in s.stop_words for w in words) < s.min_stop_words:
            return GOPHER_STOP_WORDS
        return None


# --------------------------------------------------------------------- Gopher repetition
@dataclass(frozen=True)
class GopherRepetitionSettings:
    """Rae et al. 2021, appendix A, table A1 (the datatrove defaults are the same).

    Line and paragraph fractions are over non-blank, stripped lines / paragraphs, and the
    n-gram fractions over word characters (datatrove divides by len(text) and counts blank
    lines as duplicates of each other). N-gram rules skip texts under `min_ngram_words`:
    Gopher applies them after its 50-word minimum, and on a short answer one repeated pair
    ("of the" twice) is already a large fraction.
    """

    max_dup_lines: float = 0.30
    max_dup_paragraphs: float = 0.30
    max_dup_line_chars: float = 0.20
    max_dup_paragraph_chars: float = 0.20
    top_ngrams: tuple[tuple[int, float], ...] = ((2, 0.20), (3, 0.18), (4, 0.16))
    dup_ngrams: tuple[tuple[int, float], ...] = (
        (5, 0.15),
        (6, 0.14),
        (7, 0.13),
        (8, 0.12),
        (9, 0.11),
        (10, 0.10),
    )
    min_ngram_words: int = 50


def dup_ngram_fraction(words: Sequence[str], n: int) -> float:
    """Characters of words inside a repeated occurrence of an n-gram, over all word characters.

    Gopher: "taking care not to count characters that occur in overlapping n-grams more than
    once"; as for lines, the first occurrence of an n-gram is not a duplicate.
    """
    total = sum(len(w) for w in words)
    if len(words) < n or total == 0:
        return 0.0
    seen: set[tuple[str, ...]] = set()
    covered = bytearray(len(words))
    for i in range(len(words) - n + 1):
        gram = tuple(words[i : i + n])
        if gram in seen:
            covered[i : i + n] = b"\x01" * n
        else:
            seen.add(gram)
    return sum(len(w) for w, c in zip(words, covered, strict=True) if c) / total


def _dup_fractions(items: Sequence[str]) -> tuple[float, float]:
    """(fraction of items, fraction of characters) that repeat an earlier item."""
    count, chars = duplicates(items)
    total = sum(len(x) for x in items)
    return (count / len(items) if items else 0.0), (chars / total if total else 0.0)


class GopherRepetition:
    """Gopher's repetition rules: duplicate paragraphs and lines, top and duplicate n-grams."""

    def __init__(self, settings: GopherRepetitionSettings | None = None) -> None:
        self.settings = settings or GopherRepetitionSettings()

    def check(self, text: str) -> str | None:
        s = self.settings
        by_count, by_chars = _dup_fractions(_paragraphs(text))
        if by_count > s.max_dup_paragraphs or by_chars > s.max_dup_paragraph_chars:
            return GOPHER_DUP_PARAGRAPHS
        by_count, by_chars = _dup_fractions(_lines(text))
        if by_count > s.max_dup_lines or by_chars > s.max_dup_line_chars:
            return GOPHER_DUP_LINES
        words = gopher_words(text)
        if len(words) < s.min_ngram_words:
            return None
        if any(top_ngram_fraction(words, n) > cap for n, cap in s.top_ngrams):
            return GOPHER_TOP_NGRAM
        if any(dup_ngram_fraction(words, n) > cap for n, cap in s.dup_ngrams):
            return GOPHER_DUP_NGRAM
        return None


# ------------------------------------------------------------------------------------ C4
# Line-level phrases from the C4 reference code (tensorflow_datasets text/c4_utils.py,
# also datatrove's POLICY_SUBSTRINGS): cookie banners and legal footers.
POLICY_PHRASES = (
    "terms of use",
    "privacy policy",
    "cookie policy",
    "uses cookies",
    "use of cookies",
    "use cookies",
)
_CITATION = re.compile(r"\[\d*\]|\[edit\]|\[citation needed\]")
_SENTENCE_END = re.compile(r"[.!?]+[\"')\]]*(?:\s+|$)")


@dataclass(frozen=True)
class C4Settings:
    """Raffel et al. 2020 (T5), section 2.2, "Colossal Clean Crawled Corpus".

    `min_sentences` 5 is C4's page minimum (counted over the kept lines); `min_lines` lets
    a caller also demand kept lines (1: a document with nothing left is always rejected).
    C4 rejects any page with "{" to drop code; off by default because code domains need
    braces.
    """

    terminal_punctuation: tuple[str, ...] = (".", "?", "!", '"', "'")
    min_words_per_line: int = 3
    max_word_chars: int = 1000  # from the reference code: a line with a longer "word" is junk
    min_sentences: int = 5
    min_lines: int = 1
    remove_citations: bool = True  # Wikipedia-style "[1]", "[edit]"
    reject_curly_bracket: bool = False
    policy_phrases: tuple[str, ...] = POLICY_PHRASES


def count_sentences(line: str) -> int:
    """Sentence ends (., ! or ? runs, optionally closed by a quote or bracket) in a line; a
    line with words but no end counts as one sentence."""
    ends = len(_SENTENCE_END.findall(line))
    return ends if ends else int(bool(line.strip()))


class C4Lines:
    """C4's line cleaner and page filter: keeps sentence-like lines, then judges the page."""

    def __init__(self, settings: C4Settings | None = None) -> None:
        self.settings = settings or C4Settings()

    def _keep_line(self, line: str) -> bool:
        s = self.settings
        words = line.split()
        if any(len(w) > s.max_word_chars for w in words):
            return False
        if not line.endswith(s.terminal_punctuation) or line.endswith("..."):
            return False
        if len(words) < s.min_words_per_line:
            return False
        low = line.lower()
        return "javascript" not in low and not any(p in low for p in s.policy_phrases)

    def clean(self, text: str) -> tuple[str, str | None]:
        """(the kept lines joined by newlines, None), or ("", reason) when the page is rejected."""
        s = self.settings
        kept: list[str] = []
        for raw in text.splitlines():
            line = _CITATION.sub("", raw).strip() if s.remove_citations else raw.strip()
            low = line.lower()
            # whole-page rules look at every line: a page with lorem ipsum is a template
            if "lorem ipsum" in low:
                return "", C4_LOREM_IPSUM
            if s.reject_curly_bracket and "{" in line:
                return "", C4_CURLY_BRACKET
            if self._keep_line(line):
                kept.append(line)
        sentences = sum(count_sentences(line) for line in kept)
        if len(kept) < max(s.min_lines, 1) or sentences < s.min_sentences:
            return "", C4_TOO_FEW_LINES
        return "\n".join(kept), None

    def check(self, text: str) -> str | None:
        return self.clean(text)[1]


# ------------------------------------------------------------------------------- FineWeb
@dataclass(frozen=True)
class FineWebSettings:
    """Penedo et al. 2024 ("The FineWeb Datasets", section 3.3, custom filters).

    The duplicated-line threshold is the paper's 0.1 (datatrove's class default is 0.01).
    Blank lines are ignored throughout: FineWeb's trafilatura text has single newlines
    between paragraphs, our Markdown documents have blank lines, which would otherwise
    count as short, unpunctuated lines and as list-like newlines.
    """

    min_punctuated_lines: float = 0.12  # reject at or below
    max_short_lines: float = 0.67  # reject at or above
    short_line_chars: int = 30
    max_dup_line_chars: float = 0.1  # reject at or above
    max_newlines_per_word: float = 0.3  # reject above
    terminal_punctuation: tuple[str, ...] = (".", "'", '"', "!", "?")


class FineWebQuality:
    """FineWeb's line rules: punctuated lines, short lines, duplicated line characters, lists."""

    def __init__(self, settings: FineWebSettings | None = None) -> None:
        self.settings = settings or FineWebSettings()

    def check(self, text: str) -> str | None:
        s = self.settings
        lines = _lines(text)
        if not lines:
            return FINEWEB_PUNCTUATION
        n = len(lines)
        if sum(ln.endswith(s.terminal_punctuation) for ln in lines) / n <= s.min_punctuated_lines:
            return FINEWEB_PUNCTUATION
        if sum(len(ln) <= s.short_line_chars for ln in lines) / n >= s.max_short_lines:
            return FINEWEB_SHORT_LINES
        if duplicates(lines)[1] / sum(len(ln) for ln in lines) >= s.max_dup_line_chars:
            return FINEWEB_DUP_LINE_CHARS
        words = len(text.split())
        if (n - 1) / words > s.max_newlines_per_word:  # line breaks between non-blank lines
            return FINEWEB_NEWLINES
        return None
