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
    sentence_facts,
    subject_name,
    subject_of,
    verb_phrase,
)


def qa(question: str, answer: str, template: str = "what_does", chunk_id: str = "c1") -> Example:
    return Example(
        kind="qa",
        generator="extractive",
        chunk_id=chunk_id,
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


def test_a_defined_term_is_asked_as_a_term_not_an_option() -> None:
    # a license's '"Licensor" shall mean ...': not an option given to `Apache-2.0`
    ex = qa(
        "What does Licensor mean in Apache-2.0?",
        "the copyright owner or entity authorized by the copyright owner.",
        "define",
    )
    got = expand_fact(ex, random.Random(1), phrasings=4, reverse=2, usage=True)
    phrasings = sorted(e.question for e in got if e.template == "define+phrasing")
    assert phrasings == [
        "How does `Apache-2.0` define `Licensor`?",
        "I keep reading `Licensor` in `Apache-2.0`. What is it?",
        "In `Apache-2.0`, what does `Licensor` mean?",
        "What is meant by `Licensor` in `Apache-2.0`?",
    ]
    rev = sorted(e.question for e in got if e.template == "define+reverse")
    assert rev == [
        "What does `Apache-2.0` call this? the copyright owner or entity authorized by the "
        "copyright owner.",
        "Which term of `Apache-2.0` is defined like this? the copyright owner or entity "
        "authorized by the copyright owner.",
    ]
    assert {e.answer for e in got if e.template == "define+reverse"} == {
        "`Licensor` (in `Apache-2.0`). the copyright owner or entity authorized by the "
        "copyright owner."
    }
    assert not [e for e in got if e.template == "define+usage"]
    bare = expand_fact(qa("What is meant by Licensor?", "the owner."), random.Random(1), 1, 0, True)
    assert [e.question for e in bare][0] in (
        "What is meant by `Licensor`?",
        "How is `Licensor` defined?",
        "I keep reading `Licensor`. What does it mean?",
        "Explain the term `Licensor`.",
    )


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


DUMPS = """dumps(obj, *, skipkeys=False, indent=None)

Serialize ``obj`` to a JSON formatted ``str``.

If ``skipkeys`` is true then ``dict`` keys that are not basic types
will be skipped instead of raising a ``TypeError``.

If specified, the output is shorter.

An indent level of 0 will only insert newlines.
"""


def test_every_sentence_is_asked_both_ways() -> None:
    got = sentence_facts(DUMPS, "json.dumps", random.Random(0), per_sentence=5)
    by_kind: dict[str, list[tuple[str, str]]] = {}
    for kind, q, a in got:
        by_kind.setdefault(kind, []).append((q, a))
    skip = "If ``skipkeys`` is true then ``dict`` keys that are not basic types will be skipped instead of raising a ``TypeError``."
    # the condition and the effect, each asking for the other; the answer is the sentence
    ((cond_q, cond_a),) = by_kind["cond"]
    assert "``skipkeys`` is true" in cond_q and "`json.dumps`" in cond_q and cond_a == skip
    ((eff_q, eff_a),) = by_kind["effect"]
    assert "will be skipped instead of raising" in eff_q and "``skipkeys`` is true" not in eff_q
    assert eff_a == skip
    # a name the sentence holds, asked forward and left out of it (both of its names)
    masked = [(q, a) for q, a in by_kind["masked"] if "skip" in a]
    assert masked and all("…" in q and a.endswith(skip) for q, a in masked)
    assert {a.split(".")[0] for q, a in masked} <= {"`skipkeys`", "`dict`", "`TypeError`"}
    # every sentence without the subject's name: which name is it written about?
    which = {a for _, a in by_kind["which"]}
    assert "`json.dumps`. An indent level of 0 will only insert newlines." in which
    assert "`json.dumps`. Serialize ``obj`` to a JSON formatted ``str``." in which
    # the signature is code, not a sentence; "If specified," is too short a condition
    assert not any("dumps(obj" in q or "suppose specified" in q for _, q, _ in got)
    assert len(got) == len(set(got))


def test_a_paragraph_that_opens_mid_sentence_is_not_asked_from_its_fragment() -> None:
    text = (
        "can get it if you want it, and that you can change the software as you wish.\n"
        "You may charge any price for each copy that you convey to others.\n\n"
        "3.0, or any later versions of those licenses published by the steward.\n\n"
        "grep searches for ``PATTERNS`` in each file named on its command line.\n"
    )
    asked = {a for _, _, a in sentence_facts(text, "grep", random.Random(0), per_sentence=3)}
    assert not any("can get it" in a or "3.0, or" in a for a in asked)
    assert any("You may charge any price" in a for a in asked)
    assert any("grep searches for ``PATTERNS``" in a for a in asked)  # opens with its subject


def test_a_sentence_that_opens_with_a_name_in_markup_or_a_bullet_is_asked_too() -> None:
    # a definition list collapsed to a paragraph ("``SEND_ERROR`` CMake Error, ..."), a role
    # first, a bulleted sentence: facts; a signature in markup first is still code
    text = (
        "``SEND_ERROR`` CMake Error, continue processing, but skip the generation step.\n\n"
        ":variable:`CMAKE_BUILD_TYPE` selects the configuration of a single-config build.\n\n"
        "- The ``PRIVATE`` items are linked to but are not part of the link interface.\n\n"
        "``add_library(<name> [STATIC | SHARED])`` adds a library target to the project.\n"
    )
    got = sentence_facts(text, "message", random.Random(0), per_sentence=5)
    answers = {a for _, _, a in got}
    assert (
        "`SEND_ERROR`. ``SEND_ERROR`` CMake Error, continue processing, but skip the generation "
        "step." in answers
    )
    assert any(
        a.endswith(
            ":variable:`CMAKE_BUILD_TYPE` selects the configuration of a single-config build."
        )
        for a in answers
    )
    assert (
        "`PRIVATE`. The ``PRIVATE`` items are linked to but are not part of the link interface."
        in answers
    )
    assert not any("add_library" in q or "add_library" in a for _, q, a in got)


def test_sentence_questions_are_seeded_counted_and_named_by_the_chunk_title() -> None:
    text = Example(
        kind="text", generator="extractive", chunk_id="c9", template="continuation", text=DUMPS
    )
    kwargs = dict(phrasings=0, reverse=0, usage=False, permuted_copies=0, seed=3)
    assert expand([text], [], **kwargs)[0] == [text]  # off by default
    a = expand([text], [], sentences=2, titles={"c9": "json.dumps"}, **kwargs)
    b = expand([text], [], sentences=2, titles={"c9": "json.dumps"}, **kwargs)
    assert [e.id for e in a[0]] == [e.id for e in b[0]]
    added = a[0][1:]
    assert added and all(e.kind == "qa" and e.chunk_id == "c9" for e in added)
    assert sum(a[2].as_dict().values()) == len(added)
    assert all(k.startswith("sentence-") for k in a[2].as_dict() if k != "facts")
    assert expand([text], [], sentences=2, titles={}, **kwargs)[0] == [text]  # no subject
    assert subject_name("add_library.rst") == "add_library"
    assert subject_name('"pdb" — The Python Debugger') == '"pdb"'
    assert subject_name("A long title of many more words than a name has") == ""
    # as the generator names them: a manual page without its section, a site's name and a
    # chapter's number gone, a license's version kept
    assert subject_name("ls.1.txt") == "ls"
    assert subject_name("C++ addons | Node.js v20.20.2 Documentation") == "C++ addons"
    assert subject_name("3. Callgrind Format Specification") == "Callgrind Format Specification"
    assert subject_name("Apache-2.0") == "Apache-2.0"


LICENSE = """   3. Grant of Patent License. Subject to the terms and conditions of
      this License, each Contributor hereby grants to You a patent license.

      If You institute patent litigation against any entity alleging that
      the Work constitutes patent infringement, then any patent licenses
      granted to You under this License shall terminate as of the date.
"""


def test_the_indented_sentences_of_plain_text_are_asked_when_its_chunk_is_plain() -> None:
    text = Example(
        kind="text", generator="extractive", chunk_id="c1", template="continuation", text=LICENSE
    )
    kwargs = dict(phrasings=0, reverse=0, usage=False, permuted_copies=0, seed=3, sentences=3)
    titles = {"c1": "Apache-2.0"}
    assert expand([text], [], titles=titles, **kwargs)[0] == [text]  # indented: code, unless
    got = expand([text], [], titles=titles, plain={"c1"}, **kwargs)[0][1:]  # the text is plain
    answers = {e.messages[-1]["content"] for e in got}
    assert any(a.startswith("If You institute patent litigation") for a in answers), answers
    assert any("`Apache-2.0`" in e.question for e in got)


def test_the_sentence_wordings_are_frames_the_user_exam_rejects() -> None:
    from jupiter.eval.userexam import template_patterns

    patterns = template_patterns()
    got = sentence_facts(DUMPS, "json.dumps", random.Random(1), per_sentence=5)
    assert {k for k, _, _ in got} == {"cond", "effect", "term", "masked", "which"}
    for _, q, _ in got:
        assert any(p.match(q) for p in patterns), q


MAN_OPTIONS = """NAME
       taskq - run jobs from a queue kept on disk

DESCRIPTION
       Run the jobs of a queue one after another.

       -w, --workers=N
              run N jobs at the same time instead of one per processor

       -q, --quiet
              print nothing but errors

       -k, --keep
              keep the log of every finished job beside the queue

       --dry-run
              show which jobs would run, and run none
"""


def test_every_definition_of_a_chunk_becomes_a_fact_asked_again() -> None:
    from jupiter.records import Chunk
    from jupiter.synth.knowledge import definition_facts

    chunk = Chunk(
        "d1", "local", "taskq.1.txt", "taskq.1.txt", 100, 100 + len(MAN_OPTIONS), MAN_OPTIONS
    )
    # the generator asked one of the four options (its per-chunk cap)
    asked = qa(
        "What does the `-q, --quiet` option of `taskq` do?",
        "print nothing but errors",
        "define",
        chunk.id,
    )
    got = definition_facts([chunk], [asked], seed=0)
    answers = sorted(e.answer for e in got)
    assert answers == [
        "keep the log of every finished job beside the queue",
        "run N jobs at the same time instead of one per processor",
        "show which jobs would run, and run none",
    ]
    for e in got:
        assert e.kind == "qa" and e.chunk_id == chunk.id and e.template == "define+definition"
        # a templated wording the recipe reads back, so it is expanded like the generator's
        key, args = subject_of(e.question) or ("", {})
        assert key == "option" and args["s"] == "taskq", e.question
        # the span points at the description in the document (chunk.start + offset)
        start, end = e.span or (0, 0)
        assert MAN_OPTIONS[start - 100 : end - 100] == e.answer
    assert [e.id for e in definition_facts([chunk], [asked], seed=0)] == [e.id for e in got]
    kwargs = dict(phrasings=2, reverse=1, usage=False, permuted_copies=0, seed=0)
    out, _, mix = expand([asked], [], definitions=[chunk], **kwargs)
    counts = mix.as_dict()
    assert counts["definition"] == 3 and counts["facts"] == 4  # the generator's and the 3 new
    assert counts["phrasing"] == 8 and counts["reverse"] == 4
    assert len(out) == 1 + 3 + 8 + 4
    assert "definition" not in expand([asked], [], **kwargs)[2].as_dict()  # off by default


def test_the_recipe_is_on_with_definitions_alone() -> None:
    from jupiter.config import KnowledgeConfig

    assert not KnowledgeConfig().enabled
    assert KnowledgeConfig(definitions=True).enabled


def test_a_definition_a_held_out_example_answers_stays_out() -> None:
    from jupiter.records import Chunk

    chunk = Chunk("d1", "local", "taskq.1.txt", "taskq.1.txt", 0, len(MAN_OPTIONS), MAN_OPTIONS)
    held = qa(
        "What is `--dry-run` for in `taskq`?",
        "show which jobs would run, and run none",
        "define",
        chunk.id,
    )
    kwargs = dict(phrasings=0, reverse=0, usage=False, permuted_copies=0, seed=0)
    # trained on nothing queued but the held-out example answers one of the four options
    alone = expand([], [], definitions=[chunk], **kwargs)[0]
    assert len(alone) == 4
    out = expand([], [], definitions=[chunk], asked=[held], **kwargs)[0]
    assert len(out) == 3 and held.answer not in {e.answer for e in out}
