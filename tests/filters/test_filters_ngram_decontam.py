"""13-gram decontamination: any shared 13-gram (or a whole short item) flags the text."""

from __future__ import annotations

import pytest

from jupiter.filters.ngram_decontam import CONTAMINATED, NGramDecontaminator
from jupiter.filters.text import words as tokens

ITEM = (
    "Which built-in function returns an iterator of tuples pairing the elements of two or "
    "more iterables in order?"
)  # 20 tokens ("built-in" is two)
SHORT = "What does json.dumps return?"  # 5 words
OTHER = "Explain how the garbage collector finds reference cycles that plain counting misses."
EVAL = [OTHER, ITEM, SHORT]
PREFIX = "Here is a quiz question from the course, copied into the notes: "
SUFFIX = " The answer is zip, which stops at the shortest iterable."


@pytest.fixture(scope="module")
def decon() -> NGramDecontaminator:
    return NGramDecontaminator(EVAL)


def test_verbatim_item_in_a_longer_text(decon: NGramDecontaminator) -> None:
    text = PREFIX + ITEM + SUFFIX
    assert decon.check(text) == CONTAMINATED
    assert decon.match(text) == 1


def test_rewrapped_respaced_recased_item(decon: NGramDecontaminator) -> None:
    words = ITEM.upper().split()
    wrapped = "\n".join("   ".join(words[i : i + 4]) for i in range(0, len(words), 4))
    assert "\n" in wrapped and wrapped.lower() != ITEM.lower()
    assert decon.match(PREFIX + "\n\n" + wrapped + "\r\n" + SUFFIX) == 1


def test_any_13_words_in_a_row_are_enough(decon: NGramDecontaminator) -> None:
    middle = " ".join(tokens(ITEM)[3:16])  # 13 tokens from the middle of the item
    assert decon.match(PREFIX + middle + SUFFIX) == 1


def test_first_12_words_only_are_kept(decon: NGramDecontaminator) -> None:
    twelve = " ".join(tokens(ITEM)[:12])
    assert decon.match(" ".join(tokens(ITEM)[:13])) == 1  # one more word is a match
    assert decon.check(PREFIX + twelve + SUFFIX) is None
    assert decon.match(twelve) is None


def test_unrelated_text_is_kept(decon: NGramDecontaminator) -> None:
    text = "Lists are mutable sequences; tuples are immutable ones and can be dictionary keys."
    assert decon.check(text) is None
    assert decon.check("") is None


def test_short_items_match_whole(decon: NGramDecontaminator) -> None:
    assert decon.match("Q: what  does JSON.DUMPS\nreturn? A: a str.") == 2
    assert decon.check("what does json.dumps do with floats?") is None  # not the whole item
    assert decon.check("What does json.dumps") is None


def test_tiny_items_are_skipped_and_first_item_wins() -> None:
    decon = NGramDecontaminator(["True", "a list", SHORT, "Q: " + SHORT])
    assert len(decon) == 2  # "True" and "a list" are under min_words
    assert decon.check("It is True that a list is mutable.") is None
    assert decon.match("Q: what does json.dumps return?") == 2
    assert NGramDecontaminator(["True"], min_words=1).check("It is true.") == CONTAMINATED


def test_smaller_n_and_bad_arguments() -> None:
    decon = NGramDecontaminator([ITEM], n=8)
    assert decon.match(" ".join(tokens(ITEM)[5:13])) == 0
    with pytest.raises(ValueError):
        NGramDecontaminator([ITEM], n=5, min_words=6)
    assert NGramDecontaminator([]).check(ITEM) is None
