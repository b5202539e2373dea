"""Each heuristic reason is triggered by a crafted example and not by a clean one."""

from __future__ import annotations

import pytest

from jupiter.config import FilterConfig
from jupiter.filters.heuristics import (
    REASONS,
    char_repeat_fraction,
    check_example,
    dup_line_fraction,
    gopher_words,
    top_ngram_fraction,
)
from jupiter.records import Example

CFG = FilterConfig()

CLEAN_PARAGRAPH = (
    "The json module encodes Python objects as JSON text and decodes JSON text back into "
    "Python objects. Use json.dumps to produce a string and json.dump to write directly to "
    "a file object. Both accept an indent argument for pretty printing, a sort_keys flag "
    "for stable output, and a default callable that converts objects the encoder does not "
    "know. Decoding with json.loads returns dictionaries, lists, strings, numbers, booleans "
    "or None, following the conversion table in the documentation."
)


def qa(question: str, answer: str, system: str = "") -> Example:
    messages = [{"role": "system", "content": system}] if system else []
    messages += [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]
    return Example(kind="qa", generator="test", chunk_id="c", template="t", messages=messages)


def text(body: str) -> Example:
    return Example(kind="text", generator="test", chunk_id="c", template="t", text=body)


def test_clean_examples_are_kept() -> None:
    assert len(CLEAN_PARAGRAPH.split()) >= 50  # long enough for the n-gram rule to run
    assert check_example(text(CLEAN_PARAGRAPH), CFG) is None
    ok = qa("What does json.dumps return?", "It returns the JSON encoding of the object as a str.")
    assert check_example(ok, CFG) is None
    code = "def f(x):\n        return x + 1\n\n\nprint(f(2))  # prints 3 ...\n"
    assert check_example(text(code), CFG) is None


# Each crafted example must produce exactly this reason (the first reason found wins).
CRAFTED: dict[str, Example] = {
    "empty_question": qa("   ", "It returns a string with the JSON text."),
    "empty_answer": qa("What does json.dumps return?", "  \n "),
    "answer_too_short": qa("What does json.dumps return?", "A str"),
    "too_short": text("json.dumps(obj)"),
    "too_long": text(CLEAN_PARAGRAPH * 10),
    "dup_lines": text(
        "Use json.dumps to encode.\nUse json.dumps to encode.\nUse json.dumps to encode.\nEnd."
    ),
    "top_ngram_repetition": text(
        " ".join(
            f"of the {w}"
            for w in "alpha beta gamma delta epsilon zeta eta theta iota "
            "kappa lambda mu nu xi omicron pi rho sigma tau upsilon".split()
        )
    ),
    "char_repetition": qa(
        "What does json.dumps return?", "It returns the the the the the the the the the the"
    ),
}


@pytest.mark.parametrize("reason", sorted(CRAFTED))
def test_each_reason_is_triggered(reason: str) -> None:
    assert check_example(CRAFTED[reason], CFG) == reason


def test_every_heuristic_reason_is_covered() -> None:
    assert set(CRAFTED) == set(REASONS)


def test_length_limits_follow_the_config() -> None:
    short = text("x" * 5 + " abc def ghi")
    assert check_example(short, FilterConfig(min_chars=30)) == "too_short"
    assert check_example(short, FilterConfig(min_chars=0)) is None
    assert check_example(text(" \n "), FilterConfig(min_chars=0)) == "too_short"
    long_ = text(CLEAN_PARAGRAPH)
    assert check_example(long_, FilterConfig(max_chars=100)) == "too_long"


def test_answer_length_is_checked_only_for_qa() -> None:
    ex = qa("What is the default indent of json.dumps?", "None")
    assert check_example(ex, FilterConfig(min_answer_chars=8)) == "answer_too_short"
    assert check_example(ex, FilterConfig(min_answer_chars=4)) is None
    assert check_example(text("None. " * 1 + CLEAN_PARAGRAPH[:200]), CFG) is None


def test_dup_line_fraction_counts_repeated_characters() -> None:
    # "aaaa" (4 chars) repeats once out of 4 + 4 + 2 = 10 characters of non-blank lines
    assert dup_line_fraction("aaaa\n\nbb\naaaa\n") == pytest.approx(0.4)
    assert dup_line_fraction("one line only") == 0.0
    assert dup_line_fraction("  x\nx  \n\n") == pytest.approx(0.5)  # stripped lines compare
    repeated = text("The same line here.\nThe same line here.\nAnother different one.")
    assert check_example(repeated, FilterConfig(max_dup_line_fraction=1.0)) is None
    assert check_example(repeated, CFG) == "dup_lines"


def test_qa_repeating_the_question_is_a_dup_line() -> None:
    assert check_example(qa("What is json.dumps?", "What is json.dumps?"), CFG) == "dup_lines"


def test_top_ngram_rule_is_skipped_on_short_texts() -> None:
    short = " ".join(f"of the {w}" for w in "alpha beta gamma delta epsilon".split())
    assert len(short.split()) < 50
    assert top_ngram_fraction(gopher_words(short)) > CFG.max_top_ngram_fraction
    assert check_example(text(short), CFG) is None


def test_top_ngram_fraction_value() -> None:
    words = gopher_words("Of the, of THE x y")
    # ("of", "the") twice: 2 * 5 chars over 5 + 5 + 1 + 1 = 12 word characters
    assert top_ngram_fraction(words) == pytest.approx(10 / 12)
    assert top_ngram_fraction(["a", "b", "c", "d"]) == 0.0  # no pair repeats
    assert top_ngram_fraction(gopher_words(CLEAN_PARAGRAPH)) < CFG.max_top_ngram_fraction


@pytest.mark.parametrize(
    "degenerate",
    [
        "aaaaaaaaaaaaaaaaaaaa",
        "abababababababababab",
        "the the the the the the",
        "!" * 20,
        "foo bar foo bar foo bar foo bar",
        "no no no no no no no no",
    ],
)
def test_char_repetition_catches_degenerate_runs(degenerate: str) -> None:
    assert char_repeat_fraction(degenerate) > 0.9
    assert check_example(text(f"Note: {degenerate}"), CFG) == "char_repetition"


def test_char_repetition_ignores_ordinary_text() -> None:
    assert char_repeat_fraction(CLEAN_PARAGRAPH) == 0.0
    # indentation, an ellipsis, "www" and doubled letters are not degenerate
    ordinary = "if x:\n            pass  # see www.python.org ... bookkeeper, 1000"
    assert char_repeat_fraction(ordinary) < 0.15
    assert check_example(text(ordinary), CFG) is None


def test_char_repetition_threshold_is_a_fraction_of_the_text() -> None:
    run = "aaaaaaaaaa"  # 10 repeated characters
    assert char_repeat_fraction(run + " " + "b c d e f g h i j k l m n o p") == pytest.approx(
        10 / 40
    )
    mixed = text(run + " " + "b c d e f g h i j k l m n o p")
    assert check_example(mixed, CFG) is None  # 0.25 <= 0.3
    assert check_example(mixed, FilterConfig(max_char_repeat_fraction=0.2)) == "char_repetition"
