"""Per-example quality checks: each returns None (keep) or a short, stable reason string.

The shape follows datatrove's `BaseFilter`: a check answers keep, or drop with a reason, and
the runner counts the reasons. The repetition rules come from Gopher (Rae et al. 2021,
"Scaling Language Models", appendix A, table A1), which found that repetitive documents are
mostly boilerplate or degenerate text; they are cheap and catch a looping generator too.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from jupiter.config import FilterConfig
from jupiter.filters.text import compare_text
from jupiter.records import Example

# Stable reason strings: stored in the examples table and in filter_stats, so never rename.
EMPTY_QUESTION = "empty_question"
EMPTY_ANSWER = "empty_answer"
ANSWER_TOO_SHORT = "answer_too_short"
TOO_SHORT = "too_short"
TOO_LONG = "too_long"
DUP_LINES = "dup_lines"
TOP_NGRAM = "top_ngram_repetition"
CHAR_REPETITION = "char_repetition"

REASONS = (
    EMPTY_QUESTION,
    EMPTY_ANSWER,
    ANSWER_TOO_SHORT,
    TOO_SHORT,
    TOO_LONG,
    DUP_LINES,
    TOP_NGRAM,
    CHAR_REPETITION,
)

# Gopher computes the top n-gram statistic only on documents of 50 words or more; on a
# shorter text one repeated pair ("of the" twice) is already a large fraction.
TOP_NGRAM_MIN_WORDS = 50
TOP_NGRAM_N = 2  # Gopher: 2-grams capped at 0.20 (0.18 for 3-grams, 0.16 for 4-grams)

# A unit repeated at least three times in a row: "aaaaaaa", "ababab", "the the the ".
# Two patterns because one general pattern (any unit of 1..32 characters starting anywhere)
# costs ~200 us per short text, these two ~60 us: units of up to 4 characters may start
# anywhere (runs inside a word), longer units are 1..8 whole words (a looping phrase).
_REPEAT_SHORT = re.compile(r"(.{1,4}?)\1{2,}", re.DOTALL)
_REPEAT_PHRASE = re.compile(r"(?<![^ ])((?:[^ ]+ ){1,8}?)\1{2,}")
REPEAT_MIN_CHARS = 6  # shorter runs ("...", "www", "000") are ordinary text
_SPACES = re.compile(r"\s+")
_STRIP = "\"'`.,;:!?()[]{}<>*_-"


def check_answer(ex: Example, cfg: FilterConfig) -> str | None:
    """For a chat: a question must be asked and the answer must say something."""
    if ex.kind != "qa":
        return None
    if not ex.question.strip():
        return EMPTY_QUESTION
    answer = ex.answer.strip()
    if not answer:
        return EMPTY_ANSWER
    if len(answer) < cfg.min_answer_chars:
        return ANSWER_TOO_SHORT
    return None


def check_length(text: str, cfg: FilterConfig) -> str | None:
    n = len(text.strip())
    if n == 0 or n < cfg.min_chars:  # an empty example is never kept, even with min_chars 0
        return TOO_SHORT
    if n > cfg.max_chars:
        return TOO_LONG
    return None


def dup_line_fraction(text: str) -> float:
    """Fraction of the characters of non-blank lines that repeat an earlier line (Gopher)."""
    lines = [line.strip() for line in text.splitlines()]
    lines = [line for line in lines if line]
    total = sum(len(line) for line in lines)
    if len(lines) < 2 or total == 0:
        return 0.0
    seen: set[str] = set()
    dup = 0
    for line in lines:
        if line in seen:
            dup += len(line)
        seen.add(line)
    return dup / total


def check_dup_lines(text: str, cfg: FilterConfig) -> str | None:
    # Gopher caps duplicated lines at 0.30 of lines and 0.20 of characters; the config's
    # single knob (default 0.3) applies to characters, the stronger signal of the two.
    return DUP_LINES if dup_line_fraction(text) > cfg.max_dup_line_fraction else None


def gopher_words(text: str) -> list[str]:
    """Whitespace words, lowercased, with surrounding punctuation removed (Gopher's tokens)."""
    out = (w.strip(_STRIP) for w in text.lower().split())
    return [w for w in out if w]


def top_ngram_fraction(words: list[str], n: int = TOP_NGRAM_N) -> float:
    """Characters covered by the most frequent word n-gram over all word characters.

    As in Gopher, an n-gram seen only once does not count as repetition (returns 0).
    """
    total = sum(len(w) for w in words)
    if len(words) < n or total == 0:
        return 0.0
    grams = Counter(tuple(words[i : i + n]) for i in range(len(words) - n + 1))
    gram, count = grams.most_common(1)[0]
    if count < 2:
        return 0.0
    return min(1.0, count * sum(len(w) for w in gram) / total)


def check_top_ngram(text: str, cfg: FilterConfig) -> str | None:
    if len(text.split()) < TOP_NGRAM_MIN_WORDS:  # cheap pre-check: most QA texts are short
        return None
    words = gopher_words(text)
    if len(words) < TOP_NGRAM_MIN_WORDS:
        return None
    return TOP_NGRAM if top_ngram_fraction(words) > cfg.max_top_ngram_fraction else None


def char_repeat_fraction(text: str) -> float:
    """Fraction of characters inside runs of a short unit repeated three or more times.

    Whitespace is collapsed first, so indentation and blank lines are not repetition but
    "the the the the" (unit "the ") is.
    """
    flat = _SPACES.sub(" ", text).strip()
    if not flat:
        return 0.0
    flat += " "  # so the last word of a looping phrase ends like the others
    mask = bytearray(len(flat))
    for pattern in (_REPEAT_SHORT, _REPEAT_PHRASE):
        for m in pattern.finditer(flat):
            start, end = m.span()
            if end - start >= REPEAT_MIN_CHARS:
                mask[start:end] = b"\x01" * (end - start)
    covered = mask.count(1)
    return min(1.0, covered / (len(flat) - 1))


def check_char_repetition(text: str, cfg: FilterConfig) -> str | None:
    return CHAR_REPETITION if char_repeat_fraction(text) > cfg.max_char_repeat_fraction else None


TextCheck = Callable[[str, FilterConfig], str | None]

# Cheapest and most specific first: the first reason found is the one recorded.
TEXT_CHECKS: tuple[TextCheck, ...] = (
    check_length,
    check_dup_lines,
    check_top_ngram,
    check_char_repetition,
)


def check_example(ex: Example, cfg: FilterConfig) -> str | None:
    """The first heuristic reason to drop `ex`, or None to keep it.

    The checks read the generated turns only (`compare_text`): a system prompt is the
    domain's fixed text, and would pad the length and dilute every repetition fraction.
    """
    reason = check_answer(ex, cfg)
    if reason is not None:
        return reason
    text = compare_text(ex)
    for check in TEXT_CHECKS:
        reason = check(text, cfg)
        if reason is not None:
            return reason
    return None
