"""generator.rephrase: an LLM teacher behind a real OpenAI-compatible server on 127.0.0.1
writes more questions for the extractive generator's accepted Q&A at the end of the filter
stage; each question is checked (copy, answer given away, length), filtered (the user
exam's questions decontaminate it) and queued under its source's answer; a re-run asks
nothing twice; the train stage counts them in its data mix."""

from __future__ import annotations

import hashlib
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from fakellm import FakeLLM
from jupiter.config import load_domain
from jupiter.errors import JupiterError
from jupiter.improve.grounding import is_grounded
from jupiter.improve.stages import collect_stage, filter_stage, generate_stage
from jupiter.improve.training import describe_mix, training_examples
from jupiter.improve.workspace import Workspace
from jupiter.synth.rephrase import REPHRASE
from smalldocs import MORE_TOPICS, TOPICS

DOCS = {k: v for k, v in TOPICS.items() if k != "wrongdoc"} | MORE_TOPICS
# a user-exam question the teacher writes for one source: decontamination must drop it
EXAM_QUESTION = (
    "My service hammers a slow backend with the same lookups all day long; what keeps each "
    "answer around for a while so repeat lookups skip the backend entirely?"
)
SITUATION = "While building my service I ran into case {}: what should I reach for there?"
QA = re.compile(r"\nQuestion: (.*)\nAnswer: (.*?)\n\nWrite (\d+) other", re.S)


def fate(answer: str) -> str:
    """What the scripted teacher does for a source (by its answer, a sentence of the docs):
    prose (no JSON) for about one in four, else questions."""
    return "prose" if int(hashlib.sha1(answer.encode()).hexdigest(), 16) % 4 == 0 else "json"


def teacher(body: dict[str, Any]) -> str:
    prompt = body["messages"][-1]["content"]
    m = QA.search(prompt)
    assert m, prompt  # every request is the rephrase recipe
    question, answer, count = m.group(1), m.group(2), int(m.group(3))
    assert count == 4 and "<passage>" in prompt
    if fate(answer) == "prose":
        return "Here are some other ways to ask that question, I hope they help!"
    situation = SITUATION.format(hashlib.sha1(question.encode()).hexdigest()[:6])
    if "cache" in answer.lower():  # kept, a user-exam question, too short, one past count
        questions = [situation, EXAM_QUESTION, "Why?", "Why not?", "One more past the count?"]
    else:  # kept, the source's question again (in capitals), the answer given away, and
        # the source's question itself: that is the source example, no new row
        questions = [situation, question.upper(), f"Is it right that {answer}", question]
    return json.dumps({"questions": questions})


def make_domain(tmp_path: Path, base_url: str, rephrase: str, extra: str = "") -> Path:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    for name, text in DOCS.items():
        (docs / f"{name}.md").write_text(f"# {name.title()}\n\n{text}\n")
    exam = {
        "id": "u1",
        "question": EXAM_QUESTION,
        "choices": ["a cache", "a queue", "a retry helper", "a pool"],
        "answer_index": 0,
        "answer": "a cache",
        "source": "doc:cache.md",
        "quote": "The cache stores the results of expensive calls.",
    }
    (tmp_path / "exam.jsonl").write_text(json.dumps(exam) + "\n")
    (tmp_path / "d.yaml").write_text(f"""
name: rephr
sources: [{{type: local, path: docs}}]
chunking: {{heldout_fraction: 0.0}}
eval: {{user_exam_path: exam.jsonl}}
generator:
  type: extractive
  continuation: false
  rephrase: {rephrase.replace("URL", base_url)}
{extra.replace("URL", base_url)}""")
    return tmp_path / "d.yaml"


def generated(yaml: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    """A workspace whose cycle 1 has collected and generated (the extractive generator)."""
    monkeypatch.setenv("JUPITER_HOME", str(home))
    ws = Workspace(load_domain(str(yaml)), console=Console(file=io.StringIO(), width=300))
    collect_stage(ws, 1)
    ws.store.start_cycle(1, "x")
    generate_stage(ws, 1)
    return ws


def test_filter_stage_queues_a_teachers_phrasings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeLLM(reply=teacher) as llm:
        rephrase = "{count: 4, llm: {base_url: URL, concurrency: 2, max_retries: 1}}"
        ws = generated(make_domain(tmp_path, llm.base_url, rephrase), tmp_path, monkeypatch)
        info = filter_stage(ws, 1)["rephrase"]
        sources = [
            e
            for e in ws.store.iter_examples(status="accepted", kind="qa")
            if e.template != REPHRASE
        ]
        assert len(sources) >= 6 and info["requests"] == len(sources) == llm.count
        teacher_id = f"rephrase:openai:{llm.base_url}"
        assert info["teacher"] == teacher_id and info["failed"] == 0

        # the expected decision of every question, from the script above
        expected: dict[str, int] = {"accepted": 0}
        prose = 0
        for src in sources:
            if fate(src.answer) == "prose":
                prose += 1
                continue
            if "cache" in src.answer.lower():
                outcomes = ["accepted", "contaminated", "rephrase_length", "rephrase_length"]
            else:
                outcomes = ["accepted", "rephrase_copy", "rephrase_gives_answer"]
            for o in outcomes:
                expected[o] = expected.get(o, 0) + 1
        if prose:
            expected["malformed:no_json"] = prose
        assert 0 < prose < len(sources) and expected["contaminated"] >= 1
        assert info["counts"] == expected
        stats = {
            r["reason"]: r["count"] for r in ws.store.filter_stats(1) if r["stage"] == "rephrase"
        }
        assert stats == expected

        # every kept question sits over its source's answer, chunk and quoted span
        by_answer = {(s.answer, s.chunk_id): s for s in sources}
        kept = [e for e in ws.store.iter_examples(status="accepted") if e.template == REPHRASE]
        assert len(kept) == expected["accepted"]
        for ex in kept:
            src = by_answer[(ex.answer, ex.chunk_id)]
            assert ex.generator == f"extractive+{teacher_id}" and is_grounded(ex)
            assert ex.span == src.span and ex.question.startswith("While building my service")
            assert ex.question != src.question
        bad = next(
            e for e in ws.store.iter_examples(status="rejected") if e.reason.startswith("malformed")
        )
        assert bad.answer.startswith("Here are some other ways") and bad.generator == teacher_id

        # again: every answer from the cache, nothing decided twice, nothing asked
        again = filter_stage(ws, 1)["rephrase"]
        assert (again["calls"], again["cache_hits"], again["made"], llm.count) == (
            0,
            len(sources),
            0,
            len(sources),
        )
        # the train stage trains them and says so in its data mix
        trained = training_examples(ws)
        assert sum(e.template == REPHRASE for e in trained) == expected["accepted"]

        class Budget:
            chat_tokens, raw_tokens = 100, 50

        line = describe_mix({}, Budget(), "mixed", expected["accepted"])
        assert f"{expected['accepted']} teacher phrasings (queued)" in line
        ws.close()


def test_max_sources_draws_a_seeded_subset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeLLM(reply=teacher) as llm:
        rephrase = "{count: 4, max_sources: 2, llm: {base_url: URL, max_retries: 0}}"
        ws = generated(make_domain(tmp_path, llm.base_url, rephrase), tmp_path, monkeypatch)
        assert filter_stage(ws, 1)["rephrase"]["requests"] == 2 == llm.count
        ws.close()


def test_a_rephrase_count_without_a_teacher_is_a_one_line_error(tmp_path: Path) -> None:
    yaml = tmp_path / "d.yaml"
    yaml.write_text(
        "name: x\nsources: [{type: local, path: .}]\ngenerator: {rephrase: {count: 2}}\n"
    )
    with pytest.raises(JupiterError) as err:
        load_domain(str(yaml))
    msg = str(err.value)
    assert "rephrase.count needs an LLM teacher" in msg and "\n" not in msg.strip()


def test_a_failing_teacher_is_reported_and_asked_again_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Calls that fail after every retry leave nothing half-written: the stage ends, says how
    many failed and how to ask them again; the next run asks exactly those."""
    down = {"on": True}
    with FakeLLM(reply=teacher, fail=lambda n: "500" if down["on"] and n % 2 else None) as llm:
        rephrase = (
            "{count: 4, max_sources: 4, llm: {base_url: URL, concurrency: 1, max_retries: 0}}"
        )
        ws = generated(make_domain(tmp_path, llm.base_url, rephrase), tmp_path, monkeypatch)
        info = filter_stage(ws, 1)["rephrase"]
        # requests 1 and 3 fail, 2 and 4 are answered (one call each: no retries)
        assert (info["requests"], info["failed"], info["calls"], llm.count) == (4, 2, 2, 4)
        said = " ".join(ws.console.file.getvalue().split())  # type: ignore[attr-defined]
        assert "2 requests failed after every retry" in said
        assert "`jupiter filter --domain rephr` asks them again" in said
        written = {e.id for e in ws.store.iter_examples() if e.template == REPHRASE}
        assert len(written) == info["made"] > 0
        down["on"] = False
        again = filter_stage(ws, 1)["rephrase"]
        assert (again["failed"], again["calls"], again["cache_hits"], llm.count) == (0, 2, 2, 6)
        now = {e.id for e in ws.store.iter_examples() if e.template == REPHRASE}
        assert written < now and len(now) == info["made"] + again["made"]
        ws.close()


def test_the_judge_grades_the_phrasings_it_is_on_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """filters.judge on: the extractive pairs are judged by the filter stage, the phrasings
    the checks kept by the same judge after them; a low score rejects a phrasing."""

    def reply(body: dict[str, Any]) -> str:
        prompt = body["messages"][-1]["content"]
        if '"score"' in prompt:  # the judge: the phrasings score 2, the sources 5
            return json.dumps({"score": 2 if "ran into case" in prompt else 5, "reason": "x"})
        return teacher(body)

    with FakeLLM(reply=reply) as llm:
        rephrase = "{count: 4, llm: {base_url: URL, max_retries: 0}}"
        judge = "filters: {judge: {enabled: true, llm: {base_url: URL, max_retries: 0}}}"
        ws = generated(make_domain(tmp_path, llm.base_url, rephrase, judge), tmp_path, monkeypatch)
        counts = filter_stage(ws, 1)["rephrase"]["counts"]
        sources = [e for e in ws.store.iter_examples(status="accepted") if e.template != REPHRASE]
        json_sources = [s for s in sources if fate(s.answer) == "json"]
        assert len(json_sources) >= 2
        # every situation question the checks kept went to the judge and scored 2 (< 3)
        assert counts["accepted"] == 0 and counts["judge_low_score"] == len(json_sources)
        assert not any(e.template == REPHRASE for e in ws.store.iter_examples(status="accepted"))
        ws.close()
