"""Text normalization shared by the dedup and decontamination filters.

Both compare texts by their words, so that case, punctuation, line-wrapping and
whitespace changes do not hide a copy.
"""

from __future__ import annotations

import re
import unicodedata

from jupiter.records import Example

_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """Lowercased word tokens; punctuation and whitespace only separate words.

    NFKC first so that full-width letters and ligatures compare equal to their plain forms.
    """
    return _WORD.findall(unicodedata.normalize("NFKC", text).lower())


def normalize(text: str) -> str:
    """Words joined by single spaces: lowercase, punctuation stripped, whitespace collapsed."""
    return " ".join(words(text))


def compare_text(ex: Example) -> str:
    """The text dedup and decontamination look at.

    For "qa" the user and assistant turns only: a system prompt shared by every example of a
    domain would otherwise make unrelated examples look alike to MinHash.
    """
    if ex.kind == "text":
        return ex.text
    return "\n".join(m["content"] for m in ex.messages if m.get("role") != "system")
