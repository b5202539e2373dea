"""Gopher, C4 and FineWeb rules: a clean paragraph passes all, each crafted text fails with
exactly its reason."""

from __future__ import annotations

import pytest

from jupiter.filters.quality import (
    C4_CURLY_BRACKET,
    C4_LOREM_IPSUM,
    C4_TOO_FEW_LINES,
    FINEWEB_DUP_LINE_CHARS,
    FINEWEB_NEWLINES,
    FINEWEB_PUNCTUATION,
    FINEWEB_SHORT_LINES,
    GOPHER_ALPHA_WORDS,
    GOPHER_BULLET_LINES,
    GOPHER_DUP_LINES,
    GOPHER_DUP_NGRAM,
    GOPHER_DUP_PARAGRAPHS,
    GOPHER_ELLIPSIS_LINES,
    GOPHER_MEAN_WORD_LENGTH,
    GOPHER_STOP_WORDS,
    GOPHER_SYMBOL_RATIO,
    GOPHER_TOP_NGRAM,
    GOPHER_WORD_COUNT,
    QUALITY_REASONS,
    C4Lines,
    C4Settings,
    FineWebQuality,
    GopherQuality,
    GopherQualitySettings,
    GopherRepetition,
    count_sentences,
    dup_ngram_fraction,
)

CLEAN_LINES = [
    "Python lists are ordered, mutable sequences that can hold objects of any type.",
    "You create a list with square brackets and separate the items with commas.",
    "Lists support indexing and slicing, so you can read or replace a part of the sequence.",
    "The append method adds one item to the end, and extend adds every item of an iterable.",
    "A list comprehension builds a new list from an iterable in one readable expression.",
    "Because lists are mutable, two names that refer to the same list see the same changes.",
]
CLEAN = "\n".join(CLEAN_LINES)
GREEK = (
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho "
    "sigma tau upsilon"
).split()
FILTERS = (GopherQuality(), GopherRepetition(), C4Lines(), FineWebQuality())


@pytest.mark.parametrize("flt", FILTERS, ids=lambda f: type(f).__name__)
def test_clean_paragraph_passes_every_filter(flt: object) -> None:
    assert len(CLEAN.split()) >= 50
    assert flt.check(CLEAN) is None  # type: ignore[attr-defined]


# ------------------------------------------------------------------------ Gopher quality
GOPHER_QUALITY_CASES = {
    GOPHER_WORD_COUNT: "The cat sat on the mat and looked at the door.",
    GOPHER_MEAN_WORD_LENGTH: " ".join(["it is a cat to me"] * 10),
    GOPHER_SYMBOL_RATIO: CLEAN + "\n" + " ".join(f"#tag{i}" for i in range(15)),
    GOPHER_BULLET_LINES: "\n".join(f"• the item {w} of the list holds words" for w in GREEK),
    GOPHER_ELLIPSIS_LINES: "\n".join(
        f"The story of {w} goes on and on through the night and then ..." for w in GREEK[:6]
    ),
    GOPHER_ALPHA_WORDS: " ".join(f"{n} {n + 1} the value" for n in range(1000, 1060, 2)),
    GOPHER_STOP_WORDS: " ".join(
        [
            "Python lists store ordered items. Programs append values quickly. Slicing returns "
            "copies. Sorting uses Timsort internally. Dictionaries map keys onto values. Sets "
            "keep unique members. Tuples stay immutable forever. Strings hold Unicode text."
        ]
        * 2
    ),
}


@pytest.mark.parametrize("reason", sorted(GOPHER_QUALITY_CASES))
def test_gopher_quality_reasons(reason: str) -> None:
    assert GopherQuality().check(GOPHER_QUALITY_CASES[reason]) == reason


def test_gopher_word_bounds_are_settings() -> None:
    short_answer = "It returns the JSON encoding of the object as a string."
    assert GopherQuality().check(short_answer) == GOPHER_WORD_COUNT
    assert GopherQuality(GopherQualitySettings(min_words=5)).check(short_answer) is None
    assert GopherQuality(GopherQualitySettings(max_words=60)).check(CLEAN) == GOPHER_WORD_COUNT
    assert GopherQuality().check("") == GOPHER_WORD_COUNT


def test_gopher_long_words_and_unicode_ellipsis() -> None:
    long_words = " ".join(["internationalization considerations"] * 30)
    assert GopherQuality().check(long_words) == GOPHER_MEAN_WORD_LENGTH
    lines = "\n".join(f"The story of {w} goes on and on through the night and then…" for w in GREEK)
    assert GopherQuality().check(lines) == GOPHER_ELLIPSIS_LINES


# --------------------------------------------------------------------- Gopher repetition
PARAGRAPH = "The json module encodes objects.\nIt also decodes text back into objects."
GOPHER_REPETITION_CASES = {
    GOPHER_DUP_PARAGRAPHS: "\n\n".join([PARAGRAPH] * 3),
    GOPHER_DUP_LINES: "\n".join([CLEAN_LINES[0], CLEAN_LINES[1], CLEAN_LINES[0], CLEAN_LINES[0]]),
    GOPHER_TOP_NGRAM: " ".join(f"of the {w}" for w in GREEK),
    # a 14-word sentence said twice among distinct words: no n-gram is frequent, but the
    # second copy is duplicated 5..10-grams
    GOPHER_DUP_NGRAM: " ".join(
        GREEK
        + "a looping generator repeats this exact sentence about python lists again".split()
        + [w.upper() + "x" for w in GREEK]
        + "a looping generator repeats this exact sentence about python lists again".split()
    ),
}


@pytest.mark.parametrize("reason", sorted(GOPHER_REPETITION_CASES))
def test_gopher_repetition_reasons(reason: str) -> None:
    assert GopherRepetition().check(GOPHER_REPETITION_CASES[reason]) == reason


def test_dup_ngram_fraction_counts_repeats_once() -> None:
    assert dup_ngram_fraction("a b c d e f".split(), 5) == 0.0
    # "a b c d e" twice: the second copy (5 of 10 word characters) is duplicated
    assert dup_ngram_fraction("a b c d e a b c d e".split(), 5) == 0.5
    # windows 1..5 all repeat window 0; their union (words 1..9) is counted once, not 5 x 5
    assert dup_ngram_fraction(["x"] * 10, 5) == 0.9


def test_ngram_rules_skip_short_texts() -> None:
    assert GopherRepetition().check("of the cat of the dog of the bird of the fish") is None


# ------------------------------------------------------------------------------------ C4
def test_c4_cleaning_drops_boilerplate_lines_and_keeps_the_rest() -> None:
    page = "\n".join(
        ["Menu", CLEAN_LINES[0], "Please enable JavaScript to view the comments below."]
        + CLEAN_LINES[1:3]
        + ["This site uses cookies to improve your experience.", "Read more about lists"]
        + ["Use [1] the [edit] pop method to remove an item from the end of the list."]
        + CLEAN_LINES[3:]
    )
    cleaned, reason = C4Lines().clean(page)
    assert reason is None
    fixed = "Use  the  pop method to remove an item from the end of the list."
    assert cleaned.splitlines() == CLEAN_LINES[:3] + [fixed] + CLEAN_LINES[3:]


def test_c4_lorem_ipsum_rejects_the_page() -> None:
    page = CLEAN + "\nLorem ipsum dolor sit amet, consectetur adipiscing elit."
    assert C4Lines().clean(page) == ("", C4_LOREM_IPSUM)
    assert C4Lines().check("lorem ipsum\n" + CLEAN) == C4_LOREM_IPSUM


def test_c4_curly_bracket_is_a_setting() -> None:
    page = CLEAN + "\nA dict literal such as {'a': 1} maps keys to values."
    assert C4Lines().check(page) is None  # default: code domains keep braces
    assert C4Lines(C4Settings(reject_curly_bracket=True)).check(page) == C4_CURLY_BRACKET


def test_c4_too_few_lines() -> None:
    assert C4Lines().check("Home\nAbout us\nContact\nPrivacy") == C4_TOO_FEW_LINES
    assert C4Lines().check(CLEAN_LINES[0]) == C4_TOO_FEW_LINES
    two = "\n".join(CLEAN_LINES[:2])
    assert C4Lines().check(two) == C4_TOO_FEW_LINES
    assert C4Lines(C4Settings(min_sentences=2)).check(two) is None
    assert C4Lines(C4Settings(min_sentences=1, min_lines=3)).check(two) == C4_TOO_FEW_LINES


def test_count_sentences() -> None:
    assert count_sentences('One. Two! Three? "Four."') == 4
    assert count_sentences("no end at all") == 1
    assert count_sentences("") == 0


# ------------------------------------------------------------------------------- FineWeb
FINEWEB_CASES = {
    FINEWEB_PUNCTUATION: "\n".join(
        f"Chapter {w} introduces the basic ideas of lists" for w in GREEK
    ),
    FINEWEB_SHORT_LINES: "\n".join([f"Yes, {w} works." for w in GREEK[:8]] + CLEAN_LINES[:2]),
    FINEWEB_DUP_LINE_CHARS: CLEAN + "\n" + CLEAN_LINES[2],
    FINEWEB_NEWLINES: "\n".join(f"Internationalization {w}considerations." for w in GREEK[:10]),
}


@pytest.mark.parametrize("reason", sorted(FINEWEB_CASES))
def test_fineweb_reasons(reason: str) -> None:
    assert FineWebQuality().check(FINEWEB_CASES[reason]) == reason


def test_fineweb_ignores_blank_lines_between_paragraphs() -> None:
    assert FineWebQuality().check("\n\n".join(CLEAN_LINES)) is None
    assert FineWebQuality().check("  \n\n") == FINEWEB_PUNCTUATION


def test_every_quality_reason_is_covered() -> None:
    covered = {*GOPHER_QUALITY_CASES, *GOPHER_REPETITION_CASES, *FINEWEB_CASES}
    covered |= {C4_LOREM_IPSUM, C4_CURLY_BRACKET, C4_TOO_FEW_LINES}
    assert covered == set(QUALITY_REASONS)
    assert len(set(QUALITY_REASONS)) == len(QUALITY_REASONS)
