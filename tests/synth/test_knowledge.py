"""The knowledge recipe: templated facts asked again in other wordings and both directions,
raw text in another sentence order, seeded and counted; wired into the train stage's packing."""

from __future__ import annotations

import random

from jupiter.records import Example
from jupiter.synth.knowledge import (
    FRAMES,
    expand,
    expand_fact,
    noun_phrase,
    permuted,
    subject_of,
    verb_phrase,
)


def qa(question: str, answer: str, template: str = "what_does") -> Example:
    return Example(
        kind="qa",
        generator="extractive",
        chunk_id="c1",
        template=template,
        messages=[{"role": "user", "content": question}, {"role": "assistant", "content": answer}],
    )


def test_subjects_are_read_back_from_the_template_wordings() -> None:
    assert subject_of("What does `json.dumps` do?") == ("what_does", {"a": "json.dumps"})
    assert subject_of("What does the `APPEND` option of `file` do?") == (
        "option",
        {"t": "APPEND", "s": "file"},
    )
    assert subject_of("How would a user phrase this?") is None


def test_facts_become_things_to_do_or_things_named() -> None:
    assert verb_phrase("Return the number of items in a container.") == (
        "get the number of items in a container"
    )
    assert verb_phrase("Removes and returns the leftmost element.") == (
        "remove and returns the leftmost element"
    )
    assert verb_phrase("This module provides regular expression matching.") == (
        "provide regular expression matching"
    )
    assert verb_phrase("A list-like sequence.") == ""
    assert noun_phrase("A list-like sequence optimized for appends.") == (
        "a list-like sequence optimized for appends"
    )
    assert noun_phrase("Return it.") == ""


def test_one_fact_asked_forward_reverse_and_in_usage_form() -> None:
    ex = qa("What does `len` do?", "Return the number of items in a container.")
    got = expand_fact(ex, random.Random(0), phrasings=2, reverse=2, usage=True)
    kinds = [e.template for e in got]
    assert kinds == ["what_does+phrasing"] * 2 + ["what_does+reverse"] * 2 + ["what_does+usage"]
    forward, reverse, usage = got[:2], got[2:4], got[4]
    assert all("`len`" in e.question and e.answer == ex.answer for e in forward)
    # the reverse direction asks from the fact and answers with the name
    for e in reverse:
        assert "get the number of items in a container" in e.question and "len" not in e.question
        assert e.answer == "`len`. Return the number of items in a container."
    assert usage.answer.startswith("Use `len`.") and "get the number of items" in usage.question
    assert len({e.question for e in got}) == 5 and all(e.chunk_id == "c1" for e in got)


def test_an_option_is_asked_back_from_its_description() -> None:
    ex = qa(
        "What does the `APPEND` option of `export` do?",
        "Append to the file instead of overwriting it.",
        "define",
    )
    got = expand_fact(ex, random.Random(1), phrasings=1, reverse=1, usage=True)
    rev = next(e for e in got if e.template == "define+reverse")
    assert "`export`" in rev.question and "append to the file instead of overwriting it" in (
        rev.question
    )
    assert rev.answer.startswith("`APPEND` (of `export`).")
    use = next(e for e in got if e.template == "define+usage")
    assert use.answer.startswith("Give `export` `APPEND`.")


def test_other_wordings_and_cloze_are_left_alone() -> None:
    free = qa("Why is my build slow?", "Because of X in the Y.")
    cloze = qa("Fill in the blank (re): Use ____ to compile.", "re.compile", "cloze")
    assert expand_fact(free, random.Random(0), 2, 2, True) == []
    assert expand_fact(cloze, random.Random(0), 2, 2, True) == []


def test_permuted_text_keeps_every_sentence_and_the_code() -> None:
    text = (
        "First fact here. Second fact there. Third fact too.\n\n"
        "    code_line(1)\n    code_line(2)\n\nOnly one sentence."
    )
    out = permuted(text, random.Random(3))
    paras = out.split("\n\n")
    assert paras[1:] == ["    code_line(1)\n    code_line(2)", "Only one sentence."]
    assert sorted(paras[0].split(". ")) != paras[0].split(". ") or paras[0] != text.split("\n\n")[0]
    assert sorted(s.strip(".") for s in paras[0].split(". ")) == [
        "First fact here",
        "Second fact there",
        "Third fact too",
    ]


def test_expand_is_seeded_counts_its_mix_and_keeps_the_originals() -> None:
    exs = [
        qa("What does `len` do?", "Return the number of items in a container."),
        qa("What does `abs` do?", "Return the absolute value of the argument."),
        Example(
            kind="text",
            generator="extractive",
            chunk_id="c2",
            template="continuation",
            text="One thing is said. Another thing is said. A third is said.",
        ),
    ]
    a = expand(
        exs,
        ["Raw one. Raw two. Raw three."],
        phrasings=1,
        reverse=1,
        usage=True,
        permuted_copies=2,
        seed=5,
    )
    b = expand(
        exs,
        ["Raw one. Raw two. Raw three."],
        phrasings=1,
        reverse=1,
        usage=True,
        permuted_copies=2,
        seed=5,
    )
    assert [e.id for e in a[0]] == [e.id for e in b[0]] and a[1] == b[1]
    examples, texts, mix = a
    assert examples[:3] == exs and len(texts) == 3
    assert mix.as_dict() == {"facts": 2, "permuted": 4, "phrasing": 2, "reverse": 2, "usage": 2}
    assert [e.template for e in examples[-2:]] == ["continuation+permuted"] * 2


def test_the_recipe_wordings_are_frames_the_user_exam_rejects() -> None:
    from jupiter.eval.userexam import template_patterns

    patterns = template_patterns()
    ex = qa("What does `len` do?", "Return the number of items in a container.")
    for e in expand_fact(ex, random.Random(0), phrasings=4, reverse=3, usage=True):
        assert any(p.match(e.question) for p in patterns), e.question
    assert len(FRAMES) >= 20
