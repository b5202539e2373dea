"""Language identification with py3langid: right language kept, wrong one rejected, code
and URLs ignored, short texts kept unjudged."""

from __future__ import annotations

import pytest

from jupiter.filters.langid import WRONG_LANGUAGE, LanguageFilter, detect, prose

SENTENCES = {
    "en": "The quick brown fox jumps over the lazy dog while the cat sleeps on the warm sofa.",
    "es": "El perro corre por el parque mientras los niños juegan con la pelota bajo el sol.",
    "fr": "Le chat dort sur le canapé pendant que les enfants jouent dans le jardin.",
    "de": "Der Hund läuft durch den Park, während die Kinder im Garten mit dem Ball spielen.",
}
CODE = """```python
def filter_even(values: list[int]) -> list[int]:
    \"\"\"Return only the even numbers from the given list of values.\"\"\"
    return [value for value in values if value % 2 == 0]

print(filter_even(range(10)))  # the output is printed to the console
```"""
SPANISH_WITH_CODE = (
    "Una lista por comprensión construye una nueva lista a partir de otra de forma breve.\n\n"
    f"{CODE}\n\n"
    "La función devuelve solamente los números pares. Más detalles en "
    "https://docs.python.org/3/tutorial/datastructures.html#list-comprehensions y en `range`."
)


@pytest.mark.parametrize("lang", sorted(SENTENCES))
def test_each_language_is_detected_and_kept(lang: str) -> None:
    flt = LanguageFilter(lang)
    detected, prob = flt.detect(SENTENCES[lang])
    assert detected == lang and prob >= 0.65
    assert flt.check(SENTENCES[lang]) is None
    others = [text for other, text in SENTENCES.items() if other != lang]
    assert all(flt.check(text) == WRONG_LANGUAGE for text in others)


def test_spanish_filter_rejects_english() -> None:
    assert LanguageFilter("es").check(SENTENCES["en"]) == WRONG_LANGUAGE


def test_short_text_is_kept_unjudged() -> None:
    flt = LanguageFilter("es")
    assert flt.detect("Hello there.") == ("", 0.0)
    assert flt.check("Hello there.") is None
    # only code: nothing left to judge once the code is removed
    assert flt.check(CODE) is None


def test_code_and_urls_are_ignored() -> None:
    body = prose(SPANISH_WITH_CODE)
    assert "def " not in body and "https://" not in body and "`" not in body
    assert detect(SPANISH_WITH_CODE)[1] < 0.65  # judged raw, the code sinks the Spanish score
    assert LanguageFilter("es").detect(SPANISH_WITH_CODE)[0] == "es"
    assert LanguageFilter("es").check(SPANISH_WITH_CODE) is None
    assert LanguageFilter("en").check(SPANISH_WITH_CODE) == WRONG_LANGUAGE


def test_confidence_threshold() -> None:
    lang, prob = detect(SENTENCES["fr"])
    assert lang == "fr" and 0.0 < prob <= 1.0
    assert LanguageFilter("fr", min_confidence=1.0).check(SENTENCES["fr"]) == WRONG_LANGUAGE


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="unknown language code"):
        LanguageFilter("english")
    with pytest.raises(ValueError, match="min_confidence"):
        LanguageFilter("en", min_confidence=1.5)
