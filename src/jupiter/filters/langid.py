"""Language identification: drop examples not written in the domain's language.

py3langid (a fork of langid.py, Lui & Baldwin 2012) with normalized probabilities, as
FineWeb (Penedo et al. 2024) keeps documents whose language score is at least 0.65 (with
fastText there; the same threshold on a calibrated probability). Code, URLs and inline
code are removed first: identifiers and keywords read as English and would make a Spanish
tutorial with a code sample look English.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from jupiter.errors import JupiterError

WRONG_LANGUAGE = "wrong_language"
LANGID_REASONS = (WRONG_LANGUAGE,)

_FENCED = re.compile(r"^[ \t]*(```|~~~).*?(?:^[ \t]*\1[^\n]*$|\Z)", re.DOTALL | re.MULTILINE)
_INDENTED = re.compile(r"^(?: {4}|\t).*$", re.MULTILINE)  # Markdown indented code
_DOCTEST = re.compile(r"^[ \t]*(?:>>>|\.\.\.|\$) .*$", re.MULTILINE)  # >>> / ... / $ prompts
_INLINE = re.compile(r"`[^`\n]+`")
_URL = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)


@cache
def _identifier() -> Any:
    """The model loads in ~0.6 s: once per process, on first use."""
    try:
        from py3langid.langid import MODEL_FILE, LanguageIdentifier
    except ImportError as e:
        raise JupiterError(
            "the language filter needs py3langid: pip install py3langid (or turn it off)"
        ) from e
    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def prose(text: str) -> str:
    """`text` without fenced, indented or doctest code, inline code and URLs."""
    for pattern in (_FENCED, _INDENTED, _DOCTEST, _INLINE, _URL):
        text = pattern.sub(" ", text)
    return text


def detect(text: str) -> tuple[str, float]:
    """(ISO 639-1 code, probability) of the raw text; probabilities over all languages sum to 1."""
    lang, prob = _identifier().classify(text)
    return str(lang), float(prob)


@dataclass(frozen=True)
class LanguageSettings:
    """min_confidence 0.65: FineWeb's language-score threshold. min_chars 20: below that
    (after removing code) character n-grams are too few to tell languages apart ("Hola,
    qué tal?" scores 0.36 Spanish), so a short text is kept unjudged."""

    min_confidence: float = 0.65
    min_chars: int = 20


class LanguageFilter:
    """Keeps texts whose detected language is `expected` with probability >= min_confidence."""

    def __init__(self, expected: str, min_confidence: float = 0.65, min_chars: int = 20) -> None:
        if not 0.0 <= min_confidence <= 1.0:
            raise ValueError(f"min_confidence must be in [0, 1], got {min_confidence}")
        labels = _identifier().labels
        if expected not in labels:
            raise ValueError(f"unknown language code {expected!r}; py3langid knows {labels}")
        self.expected = expected
        self.settings = LanguageSettings(min_confidence, min_chars)

    def detect(self, text: str) -> tuple[str, float]:
        """(language, probability) of the prose in `text`; ("", 0.0) when it is too short."""
        body = " ".join(prose(text).split())
        if len(body) < self.settings.min_chars:
            return "", 0.0
        return detect(body)

    def check(self, text: str) -> str | None:
        lang, prob = self.detect(text)
        if not lang:  # too short to tell: keep
            return None
        # probabilities sum to 1, so prob >= 0.65 for `expected` also makes it the argmax
        if lang == self.expected and prob >= self.settings.min_confidence:
            return None
        return WRONG_LANGUAGE
