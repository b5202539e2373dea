"""The extractive generator: examples from chunks, and retrieval QA for evaluation."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from jupiter.config import GeneratorConfig
from jupiter.errors import JupiterError
from jupiter.records import Chunk
from jupiter.synth import ExtractiveGenerator, Generator, load_generator


def norm(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def gen(stdlib_chunks: list[Chunk]) -> ExtractiveGenerator:
    return ExtractiveGenerator(stdlib_chunks)


def test_generate_examples(gen: ExtractiveGenerator, stdlib_chunks: list[Chunk]) -> None:
    cfg = GeneratorConfig(max_questions_per_chunk=3, continuation=True, seed=0)
    examples = list(gen.generate(stdlib_chunks, 4, cfg))
    qa = [e for e in examples if e.kind == "qa"]
    text = [e for e in examples if e.kind == "text"]
    assert isinstance(gen, Generator)
    # one continuation example per chunk, with the chunk's own text
    assert [e.text for e in text] == [c.text for c in stdlib_chunks]
    assert all(e.template == "continuation" for e in text)
    per_chunk = Counter(e.chunk_id for e in qa)
    assert max(per_chunk.values()) == 3
    ids = {c.id for c in stdlib_chunks}
    for e in examples:
        assert e.generator == "extractive" and e.cycle == 4 and e.chunk_id in ids
    for e in qa:
        assert [m["role"] for m in e.messages] == ["user", "assistant"]
        assert e.question and e.answer
    assert {e.template for e in qa} >= {"what_does", "arguments", "signature", "explain_topic"}


def test_generate_is_deterministic_and_seeded(
    gen: ExtractiveGenerator, stdlib_chunks: list[Chunk]
) -> None:
    cfg = GeneratorConfig(seed=7)
    first = [e.id for e in gen.generate(stdlib_chunks, 1, cfg)]
    again = [e.id for e in ExtractiveGenerator(stdlib_chunks).generate(stdlib_chunks, 1, cfg)]
    other = [e.id for e in gen.generate(stdlib_chunks, 1, GeneratorConfig(seed=8))]
    assert first == again
    assert first != other


def test_limit_and_continuation_switch(
    gen: ExtractiveGenerator, stdlib_chunks: list[Chunk]
) -> None:
    cfg = GeneratorConfig(continuation=False)
    assert len(list(gen.generate(stdlib_chunks, 1, cfg, limit=5))) == 5
    assert list(gen.generate(stdlib_chunks, 1, cfg, limit=0)) == []
    full = list(gen.generate(stdlib_chunks, 1, cfg))
    assert all(e.kind == "qa" for e in full)
    # the first `limit` examples of the full run: a limit cuts, it does not reshuffle
    assert [e.id for e in gen.generate(stdlib_chunks, 1, cfg, limit=9)] == [e.id for e in full[:9]]


def test_heldout_chunks_make_no_examples(
    gen: ExtractiveGenerator, stdlib_chunks: list[Chunk]
) -> None:
    held = [replace(c, split="heldout") for c in stdlib_chunks]
    assert list(gen.generate(held, 1, GeneratorConfig())) == []


def test_answer_quotes_the_right_passage(gen: ExtractiveGenerator) -> None:
    dumps, realpath, loop, empty = gen.answer(
        [
            "What does `json.dumps` do?",
            "What does os.path.realpath do?",
            'What is the "for" statement?',
            "zzz qqq",
        ]
    )
    assert dumps == "Serialize ``obj`` to a JSON formatted ``str``."
    assert realpath.startswith("Return the canonical path of the specified filename")
    assert loop.startswith('The "for" statement is used to iterate')
    assert empty == ""


def test_answer_picks_the_sentences_the_question_is_about(gen: ExtractiveGenerator) -> None:
    [answer] = gen.answer(["How does indent pretty-print json.dumps output?"])
    assert "pretty-printed with that indent level" in answer
    assert 1 <= answer.count(". ") + 1 <= 3  # one to three sentences


def test_choose_picks_the_supported_choice(gen: ExtractiveGenerator) -> None:
    choices = [
        "Return an absolute path.",
        "Serialize obj to a JSON formatted str.",
        "Deserialize s to a Python object.",
        "Returns the final component of a pathname",
    ]
    assert gen.choose("What does json.dumps do?", choices) == 1
    assert gen.choose("What does os.path.basename return?", choices) == 3
    assert gen.choose("What does json.loads do?", choices) == 2
    # nothing retrieved: every score is 0 and the tie goes to the first choice
    assert gen.choose("zzz qqq", choices) == 0


def test_load_generator(stdlib_chunks: list[Chunk]) -> None:
    cfg = GeneratorConfig()
    g = load_generator("extractive", stdlib_chunks, None, "extractive", cfg)
    assert isinstance(g, ExtractiveGenerator) and g.id == "extractive"
    with pytest.raises(JupiterError, match="unknown generator kind"):
        load_generator("magic", stdlib_chunks, None, "x", cfg)
    with pytest.raises(JupiterError, match="without a model path"):
        load_generator("model", stdlib_chunks, None, "model:cycle-001", cfg)
    with pytest.raises(JupiterError, match="not found"):
        load_generator("model", stdlib_chunks, "/nonexistent/model", "model:cycle-001", cfg)
