"""Decontamination finds eval items inside training examples, whatever their formatting."""

from __future__ import annotations

import pytest

from jupiter.filters.decontam import Decontaminator

EVAL_ANSWER = (
    "json.dumps serializes obj to a JSON formatted str using this conversion table; "
    "if skipkeys is true, dict keys that are not basic types are skipped instead of "
    "raising a TypeError."
)
EVAL_QUESTION = "What does json.dumps return?"  # 5 words: shorter than n = 8
EVAL = [EVAL_QUESTION, EVAL_ANSWER, "True", "A str."]


def test_rewrapped_eval_answer_inside_a_longer_example_is_caught() -> None:
    rewrapped = (
        "Here is some background first. JSON-Dumps (!) serializes OBJ to a JSON formatted\n"
        "str -- using this conversion table. If skipkeys is true,\n  dict keys that are not\n"
        "basic types are skipped, instead of raising a TypeError!!! That is all you need."
    )
    d = Decontaminator(EVAL, n=8, threshold=0.5)
    assert d.check(rewrapped) == "contaminated"
    assert d.match(rewrapped) == 1  # the index of the eval text


def test_unrelated_example_is_not_flagged() -> None:
    d = Decontaminator(EVAL, n=8, threshold=0.5)
    unrelated = (
        "pathlib.Path.read_text returns the decoded contents of the file as a string; it is "
        "True that a str is returned, and json is not involved."
    )
    assert d.check(unrelated) is None
    assert d.check("") is None


def test_threshold_is_a_fraction_of_the_eval_items_ngrams() -> None:
    toks = EVAL_ANSWER.split()  # 31 normalized words ("json.dumps" is two) -> 24 8-grams
    half = " ".join(toks[:20])  # 21 normalized words: 14 of the 24 8-grams (0.58)
    third = " ".join(toks[:15])  # 16 words: 9 of 24 (0.375)
    d = Decontaminator([EVAL_ANSWER], n=8, threshold=0.5)
    assert d.check(half) == "contaminated"
    assert d.check(third) is None
    assert Decontaminator([EVAL_ANSWER], n=8, threshold=0.3).check(third) == "contaminated"
    assert Decontaminator([EVAL_ANSWER], n=8, threshold=1.0).check(half) is None


def test_short_eval_items_must_appear_whole_and_contiguous() -> None:
    d = Decontaminator(EVAL, n=8, threshold=0.5)
    assert d.check("Q: what does JSON.DUMPS return\nA: a string") == "contaminated"
    assert d.match("Q: what does JSON.DUMPS return") == 0
    assert d.check("What does json.loads return? And dumps?") is None  # not contiguous
    assert d.check("What does json dumps") is None  # only part of the item


def test_items_under_min_words_are_ignored() -> None:
    d = Decontaminator(EVAL, n=8, threshold=0.5, min_words=3)
    assert len(d) == 2  # "True" and "A str." are too generic to index
    assert d.check("It is True that this returns a str.") is None
    loose = Decontaminator(EVAL, n=8, threshold=0.5, min_words=1)
    assert loose.check("It is True that this returns a str.") == "contaminated"


def test_no_eval_set_flags_nothing() -> None:
    d = Decontaminator([], n=8, threshold=0.5)
    assert len(d) == 0
    assert d.check(EVAL_ANSWER) is None


def test_bad_parameters_are_rejected() -> None:
    with pytest.raises(ValueError, match="threshold"):
        Decontaminator(EVAL, n=8, threshold=0.0)
    with pytest.raises(ValueError, match="min_words"):
        Decontaminator(EVAL, n=2, threshold=0.5, min_words=3)
