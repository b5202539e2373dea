"""Multiple choice: items' own choices used as given, hard distractors (same type, source
kind, topic, nearest by BM25), and the claim behind them: a retriever that only knows the
topic scores high on random distractors and near chance on hard ones."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from jupiter.errors import JupiterError
from jupiter.eval.mc import build_mc, family, question_type, source_prefix
from jupiter.eval.qa import QAItem, item_record, load_eval_set
from jupiter.eval.report import chance_mc_accuracy
from jupiter.records import Chunk
from jupiter.synth.extractive import ExtractiveGenerator


def _word(rng: random.Random) -> str:
    return "".join(rng.choice("bcdfghjklmnprstvz") + rng.choice("aeiou") for _ in range(3))


def _corpus(n_topics: int = 12, per_topic: int = 8) -> tuple[list[QAItem], list[Chunk]]:
    """Topics with their own made-up vocabulary; every answer is words of its topic, so the
    topic is all a retriever can tell about it."""
    rng = random.Random(0)
    items, chunks = [], []
    for t in range(n_topics):
        vocab = [_word(rng) for _ in range(30)]
        for k in range(per_topic):
            q = f"What does {vocab[k]} {rng.choice(vocab)} do?"
            items.append(QAItem(f"t{t}-{k}", q, " ".join(rng.sample(vocab, 6)), topic=f"t{t}"))
        text = " ".join(vocab * 2)
        chunks.append(Chunk(f"t{t}", "local", f"/docs/t{t}.txt", f"t{t}", 0, len(text), text))
    return items, chunks


def test_topic_only_retriever_is_near_chance_on_hard_distractors() -> None:
    items, chunks = _corpus()
    retriever = ExtractiveGenerator(chunks)  # answers MC by retrieval: topic evidence only

    def accuracy(mode: str) -> float:
        mc = build_mc(items, 4, seed=0, distractors=mode)  # type: ignore[arg-type]
        return sum(retriever.choose(m.question, m.choices) == m.correct for m in mc) / len(mc)

    easy, hard = accuracy("random"), accuracy("hard")
    assert easy >= 0.85  # random other answers: told apart by topic alone
    assert abs(hard - chance_mc_accuracy(4)) <= 0.08  # 0.27 measured, chance 0.25
    by_id = {it.id: it for it in items}
    topic_of = {it.answer: it.topic for it in items}
    for m in build_mc(items, 4, seed=0):
        assert {topic_of[c] for c in m.choices} == {by_id[m.id].topic}


def test_hard_distractors_prefer_type_then_kind_then_nearest() -> None:
    item = QAItem(
        "a",
        "Which iterables does `zip` accept?",
        "iterables and strict",
        "python:zip",
        template="arguments",
    )
    pool = [
        item,
        QAItem("b", "Q?", "iterables, key and default", "python:max", template="arguments"),
        QAItem("c", "Q?", "a mapping and keyword pairs", "python:dict", template="arguments"),
        QAItem("d", "Q?", "It zips iterables together and strict", "python:zip", template="what"),
        QAItem("e", "Q?", "buffer and strict mode", "pydoc:topics/x", template="arguments"),
        QAItem("f", "Q?", "the iterables to chain", "python:itertools", template="arguments"),
    ]
    m = build_mc(pool, 3, seed=0)[0]
    # same template and source kind; "d" shares more words but is another type of answer;
    # among b, c, f the two sharing the question's terms ("iterables") come first
    assert sorted(m.choices) == sorted([item.answer, pool[1].answer, pool[5].answer])
    assert m.choices[m.correct] == item.answer


def test_items_with_their_own_choices_are_used_as_given(tmp_path: Path) -> None:
    lines = [
        {"id": "m1", "question": "Pick b", "choices": ["a", "b", "c"], "answer_index": 1},
        {"id": "q1", "question": "Q one?", "answer": "one", "topic": "x"},
        {"id": "q2", "question": "Q two?", "answer": "two", "topic": "x"},
        {"id": "q3", "question": "Q three?", "answer": "three", "topic": "x"},
    ]
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    items = load_eval_set(path)
    assert items[0].answer == "b" and items[0].choices == ("a", "b", "c")
    assert [load_eval_set(path)[0]] == [items[0]]
    assert item_record(items[0]) == {**lines[0], "answer": "b"}
    mc = build_mc(items, 2, seed=5)
    assert (mc[0].choices, mc[0].correct) == (["a", "b", "c"], 1)
    assert [len(m.choices) for m in mc] == [3, 2, 2, 2]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"choices": ["a"], "answer_index": 0}, "at least 2 strings"),
        ({"choices": ["a", "b"], "answer_index": 2}, "from 0 to 1"),
        ({"choices": ["a", "b"]}, "'answer_index' must be an integer"),
        ({"choices": ["a", ""], "answer_index": 0}, "non-empty string"),
    ],
)
def test_bad_choices_name_the_line(tmp_path: Path, extra: dict, message: str) -> None:
    path = tmp_path / "set.jsonl"
    path.write_text(json.dumps({"id": "a", "question": "Q?", **extra}) + "\n")
    with pytest.raises(JupiterError, match=rf"set\.jsonl:1: .*{message}"):
        load_eval_set(path)


def test_source_kind_and_family() -> None:
    assert source_prefix("python:json.dumps") == "python"
    assert source_prefix("pydoc_data.topics['for']") == "pydoc_data.topics"
    assert source_prefix("json.dumps docstring") == "docstring"
    assert source_prefix("https://docs.x.org/a/b.html") == "docs.x.org"
    assert source_prefix("/usr/share/cmake/Help/command/if.rst") == "command"
    assert family(QAItem("a", "Q", "A", "python:json.dumps")) == "json"
    assert family(QAItem("a", "Q", "A", "https://x.org/guide/b.html")) == "guide"
    assert family(QAItem("a", "Q", "A", "python:json.dumps", topic="t")) == "t"
    assert question_type(QAItem("a", "How do I x?", "A")) == "how"
    assert question_type(QAItem("a", "How do I x?", "A", template="returns")) == "returns"
