"""Keyword relevance: on-topic texts score above the threshold, off-topic ones below."""

from __future__ import annotations

import pytest

from jupiter.filters.relevance import (
    OFF_TOPIC,
    BM25Settings,
    RelevanceFilter,
    domain_keywords,
    stem,
    tokens,
)

TOPICS = ["python", "list comprehension", "decorators"]
ON_TOPIC = [
    "A decorator wraps a function: write @functools.cache above def to memoize it.",
    "List comprehensions build lists in one expression: [x * x for x in range(10)].",
    "Python evaluates the default arguments of a function once, when def runs.",
]
OFF = [
    "The Roman Empire reached its greatest extent under Trajan in the second century.",
    "Preheat the oven, whisk the eggs with sugar and fold in the flour gently.",
    # the words of a phrase keyword, but not as the phrase
    "She made a shopping list and showed great comprehension of the prices.",
]


@pytest.mark.parametrize("text", ON_TOPIC)
def test_on_topic_texts_are_kept(text: str) -> None:
    flt = RelevanceFilter(TOPICS)
    assert flt.score(text) >= flt.min_score
    assert flt.check(text) is None


@pytest.mark.parametrize("text", OFF)
def test_off_topic_texts_are_rejected(text: str) -> None:
    flt = RelevanceFilter(TOPICS)
    assert flt.score(text) == 0.0
    assert flt.check(text) == OFF_TOPIC


def test_plurals_and_case_match() -> None:
    flt = RelevanceFilter(["Decorator", "list comprehensions"])
    assert flt.score("DECORATORS") == flt.score("decorator") > 0
    assert flt.score("Two List Comprehension examples") > 0
    assert [stem(w) for w in ("classes", "libraries", "boxes", "keys", "status", "lists")] == [
        "class",
        "library",
        "box",
        "key",
        "status",
        "list",
    ]


def test_score_formula() -> None:
    flt = RelevanceFilter(TOPICS, bm25=BM25Settings(k1=1.2, b=0.75, avg_words=4))
    # 4 words = avg_words: norm is k1, one mention scores 1 / (1 + 1.2)
    assert flt.score("python is quite fun") == pytest.approx(1 / 2.2)
    # two keywords add; repeating one saturates (2 / (2 + norm)) instead of doubling
    norm = 1.2 * (0.25 + 0.75 * 6 / 4)
    two = flt.score("python decorators and python are fun")
    assert two == pytest.approx(2 / (2 + norm) + 1 / (1 + norm))
    # longer texts need more mentions
    assert flt.score("python " + "word " * 50) < flt.score("python " + "word " * 5)


def test_length_normalization_and_threshold() -> None:
    flt = RelevanceFilter(TOPICS, min_score=0.3)
    long_page = " ".join(["The weather was mild and the harvest was good."] * 200)
    assert flt.check("python " + long_page) == OFF_TOPIC  # one mention in ~2,000 words
    assert flt.check("Python decorators and list comprehensions. " * 3 + long_page) is None


def test_domain_keywords_and_no_keywords() -> None:
    assert domain_keywords(["python", "decorators"], ["Decorator", "asyncio", " "]) == [
        "python",
        "decorators",
        "asyncio",
    ]
    assert RelevanceFilter([]).check("anything at all") is None
    assert tokens("Ｐｙｔｈｏｎ Lists") == ["python", "list"]  # NFKC: full-width letters
