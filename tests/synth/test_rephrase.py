"""synth/rephrase.py: which Q&A a teacher rephrases, the request it gets, and the strict
reading of its answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupiter.config import DomainConfig, LLMConfig, load_domain
from jupiter.improve.grounding import is_grounded
from jupiter.records import Chunk, Example
from jupiter.synth.outputs import Malformed
from jupiter.synth.rephrase import (
    COPY,
    LEAK,
    REPHRASE,
    TOO_SHORT_OR_LONG,
    answer_examples,
    parse_questions,
    pick_sources,
    plan,
    question_reason,
    rephrasable,
)


def qa(question: str, answer: str, template: str = "what_does", gen: str = "extractive") -> Example:
    return Example(
        kind="qa",
        generator=gen,
        chunk_id="c1",
        template=template,
        messages=[{"role": "user", "content": question}, {"role": "assistant", "content": answer}],
        span=(3, 40),
    )


def test_parse_questions_reads_one_json_object_and_nothing_else() -> None:
    assert parse_questions('{"questions": ["How do  I\\n do X?", " ", 3, "Y?"]}', "stop", 4) == [
        "How do I do X?",
        "Y?",
    ]
    assert parse_questions('```json\n{"questions": ["a", "b", "c"]}\n```', "stop", 2) == ["a", "b"]
    cases = {
        "Sure, here they are": "malformed:no_json",
        '{"question": "x"}': "malformed:missing_field:questions",
        '{"questions": "x"}': "malformed:missing_field:questions",
        '{"questions": ["", 4]}': "malformed:empty_field:questions",
        '{"questions": ["a", "b"]} and more': "malformed:extra_text",
        '{"questions": ["a", "b': "malformed:truncated",
    }
    for text, reason in cases.items():
        with pytest.raises(Malformed) as err:
            parse_questions(text, "length" if text.endswith("b") else "stop", 4)
        assert str(err.value) == reason, text


def test_question_reason_checks_copies_length_and_the_answer() -> None:
    src = qa("What does `zip` do with strict=True?", "strict=True")
    situation = "My two lists must be the same length; how do I make zip complain when not?"
    assert question_reason(situation, src, []) == ""
    assert question_reason("what does ZIP do with strict true", src, []) == COPY
    assert question_reason(situation + " Really", src, [situation]) == COPY  # a sibling's copy
    assert question_reason("Why zip?", src, []) == TOO_SHORT_OR_LONG
    assert question_reason(" ".join(["word"] * 81) + "?", src, []) == TOO_SHORT_OR_LONG
    assert question_reason("Which keyword, strict=True or fill, makes zip raise?", src, []) == LEAK
    # whole words only: the answer "true" is not given away by "untrue"
    assert (
        question_reason("When is a claim about zip lengths untrue here?", qa("q", "True"), []) == ""
    )


def test_sources_are_closed_book_single_turn_qa_and_a_seeded_draw() -> None:
    plain = [qa(f"What does f{i} do?", f"f{i} does thing {i}.") for i in range(6)]
    raft = qa("Passages: [1] ... What does g do?", "g does it.", template="raft:what_does")
    again = qa("How would I do thing 1?", "f1 does thing 1.", template=REPHRASE)
    dialogue = Example(
        kind="qa",
        generator="llm:x",
        chunk_id="c1",
        template="multi_turn",
        messages=[
            {"role": "user", "content": "a"},
            {"role": "assistant", "content": "b"},
            {"role": "user", "content": "c"},
            {"role": "assistant", "content": "d"},
        ],
    )
    text = Example(
        kind="text", generator="extractive", chunk_id="c1", template="continuation", text="t"
    )
    assert not any(rephrasable(e) for e in (raft, again, dialogue, text))
    everything = [*plain, raft, again, dialogue, text]
    assert pick_sources(everything, None, 0) == sorted(plain, key=lambda e: e.id)
    two = pick_sources(everything, 2, 0)
    assert len(two) == 2 and two == pick_sources(list(reversed(everything)), 2, 0)
    assert {e.id for e in two} <= {e.id for e in plain}


def domain(tmp_path: Path, generator: str) -> DomainConfig:
    yaml = tmp_path / "d.yaml"
    yaml.write_text(f"name: d\nsources: [{{type: local, path: .}}]\ngenerator: {generator}\n")
    return load_domain(str(yaml))


def test_plan_renders_the_recipe_and_keeps_each_sources_seed(tmp_path: Path) -> None:
    gen = "{type: llm, rephrase: {count: 3}, llm: {response_format: json_schema}}"
    cfg = domain(tmp_path, gen)
    text = "The clear function empties the cache."
    chunk = Chunk("d1", "local", "cache.md", "Cache", 0, len(text), text)
    chunks = {"c1": chunk}
    a = qa("What does clear do?", "The clear function empties the cache.")
    b = qa("What does the cache hold?", "Results.")
    jobs = plan([a], cfg, cfg.generator.llm, chunks, seed=5)
    more = plan([b, a], cfg, cfg.generator.llm, chunks, seed=5)
    prompt = jobs[0].request.messages[-1]["content"]
    assert "The clear function empties the cache." in prompt and '("Cache")' in prompt
    assert "Question: What does clear do?" in prompt and "Write 3 other questions" in prompt
    assert jobs[0].source is a and more[1].source is a
    assert jobs[0].request.sampling == more[1].request.sampling  # the same seed: cached
    assert more[0].request.sampling.seed != more[1].request.sampling.seed
    schema = json.loads(jobs[0].request.sampling.schema)
    assert schema["properties"]["questions"]["maxItems"] == 3
    assert jobs[0].request.sampling.schema_form == "json_schema"
    text_llm = LLMConfig(response_format="text")
    assert plan([a], cfg, text_llm, chunks, 5)[0].request.sampling.schema == ""


def test_a_phrasing_keeps_its_sources_answer_and_authors(tmp_path: Path) -> None:
    cfg = domain(tmp_path, "{type: llm, rephrase: {count: 2}}")
    src = qa("What does clear do?", "`clear` empties the cache.")
    job = plan([src], cfg, LLMConfig(), {}, 0)[0]
    got = answer_examples(
        job,
        '{"questions": ["How do I wipe every entry at once?"]}',
        "stop",
        2,
        "rephrase:openai:t",
        1,
    )
    ((ex, reason),) = got
    assert reason == "" and ex.template == REPHRASE and ex.cycle == 1
    assert ex.answer == src.answer and ex.chunk_id == src.chunk_id and ex.span == src.span
    assert ex.generator == "extractive+rephrase:openai:t" and is_grounded(ex)
    # the answer of a model-written source stays model-written under a new question
    model_src = qa("What does clear do?", "It clears.", gen="model:cycle-001")
    job = plan([model_src], cfg, LLMConfig(), {}, 0)[0]
    ((ex, _),) = answer_examples(
        job, '{"questions": ["How do I wipe the cache?"]}', "stop", 2, "rephrase:openai:t", 1
    )
    assert not is_grounded(ex)
    ((bad, why),) = answer_examples(job, "I cannot", "stop", 2, "rephrase:openai:t", 1)
    assert (
        why == "malformed:no_json"
        and bad.answer == "I cannot"
        and bad.generator == "rephrase:openai:t"
    )
