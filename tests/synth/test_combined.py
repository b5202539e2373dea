"""Student + retriever: the model reads its top passages (each cut to its best window), its
multiple-choice scores summed with the retriever's, both z-scored; as a generator it answers
the template questions open-book and queues them with the bare question."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from jupiter.config import GeneratorConfig, RetrievalConfig
from jupiter.records import Chunk, Document
from jupiter.synth.combined import NEUTRAL, RetrievalAnswerer, best_window, reader, zscores


def chunk(uri: str, title: str, text: str) -> Chunk:
    doc = Document("local", uri, title, text)
    return Chunk(doc.id, doc.source, doc.uri, doc.title, 0, len(text), text, "train")


CHUNKS = [
    chunk(
        "/d/deque.md",
        "deque",
        "# deque\n\nA deque keeps items at both ends. With maxlen "
        "set, a deque keeps only the newest items and drops the oldest ones.",
    ),
    chunk(
        "/d/heap.md",
        "heapq",
        "# heapq\n\nThe heapq module keeps a list as a binary heap, "
        "so the smallest item is always first.",
    ),
    chunk(
        "/d/bisect.md",
        "bisect",
        "# bisect\n\nBisect finds the insertion point in a sorted list without sorting it again.",
    ),
]


class FakeModel:
    """Scores choices by a fixed table; answers with the prompt it was given."""

    id = "model:cycle-001"
    batch_size = 2

    def __init__(self, scores: dict[str, float]) -> None:
        self.scores = scores
        self.prompts: list[str] = []

    def answer(self, questions: Sequence[str]) -> list[str]:
        self.prompts += questions
        return [f"answer {k}" for k in range(len(questions))]

    def choice_logprobs(self, question: str, choices: Sequence[str]) -> list[float]:
        self.prompts.append(question)
        return [self.scores.get(c, -5.0) for c in choices]


def test_zscores_and_the_best_window() -> None:
    assert zscores([1.0, 2.0, 3.0]) == pytest.approx([-1.2247, 0.0, 1.2247], abs=1e-4)
    assert zscores([2.0, 2.0]) == [0.0, 0.0]
    assert zscores([1.0, float("-inf"), 3.0])[1] == -1e9
    text = "Alpha is first. Beta is second. The deque keeps newest items. Omega is last."
    assert best_window(text, "which deque keeps the newest items?", 40) == (
        "The deque keeps newest items."
    )
    assert best_window(text, "anything", 0) == text
    # with idf, one rare term of the question outweighs three common ones
    rare = "Alpha beta gamma. Delta rare."
    idf = {"alpha": 0.1, "beta": 0.1, "gamma": 0.1, "rare": 5.0}.__getitem__
    assert best_window(rare, "alpha beta gamma rare", 18) == "Alpha beta gamma."
    assert best_window(rare, "alpha beta gamma rare", 18, idf) == "Delta rare."
    # equal weight: the window with more hits of the question's terms, then the earliest
    twice = "Eta is here. Zeta is one. Zeta is two."
    assert best_window(twice, "zeta", 25, lambda _t: 1.0) == "Zeta is one. Zeta is two."
    assert best_window("Zeta is one. Eta is here. Zeta is two.", "zeta", 12) == "Zeta is one."


def test_the_model_reads_its_passages_and_the_retriever_breaks_its_doubt() -> None:
    question = "Which container drops the oldest items once it holds maxlen of them?"
    choices = ["heapq", "deque", "bisect", "list"]
    # the model alone prefers heapq a little; the retriever finds deque's passage
    model = FakeModel({"heapq": -1.0, "deque": -1.1, "bisect": -3.0, "list": -3.0})
    got = RetrievalAnswerer(model, CHUNKS, top_k=1, weight=1.0, passage_chars=0)
    assert got.id == "model:cycle-001+retriever"
    assert got.choose(question, choices) == 1
    assert model.prompts[-1].startswith("Passages:\n[1] deque:")
    assert model.prompts[-1].endswith(f"Question: {question}")
    alone = RetrievalAnswerer(model, CHUNKS, top_k=1, weight=0.0, passage_chars=0)
    assert alone.choose(question, choices) == 0  # no evidence weight: the model's pick


def test_as_a_generator_it_answers_open_book_and_queues_the_bare_question() -> None:
    model = FakeModel({})
    gen = reader(model, CHUNKS, RetrievalConfig(reader_top_k=2, passage_chars=50))
    assert gen.top_k == 2 and gen.passage_chars == 50
    cfg = GeneratorConfig(max_questions_per_chunk=2)
    examples = list(gen.generate(CHUNKS, 2, cfg))
    assert examples and all(e.generator == "model:cycle-001+retriever" for e in examples)
    assert all(e.cycle == 2 and not e.question.startswith("Passages:") for e in examples)
    assert all(p.startswith("Passages:\n[1] ") for p in model.prompts)
    assert {e.chunk_id for e in examples} <= {c.id for c in CHUNKS}


class TwoMindsModel(FakeModel):
    """Scores choices by one table when it reads passages, by another without them, and
    by a third (each choice's prior) after the neutral prompt."""

    def __init__(
        self, reading: dict[str, float], closed: dict[str, float], prior: dict[str, float]
    ) -> None:
        super().__init__(reading)
        self.closed, self.prior = closed, prior

    def choice_logprobs(self, question: str, choices: Sequence[str]) -> list[float]:
        self.prompts.append(question)
        table = (
            self.scores
            if question.startswith("Passages:")
            else self.prior
            if question == NEUTRAL
            else self.closed
        )
        return [table.get(c, -5.0) for c in choices]


def test_the_closed_book_weight_adds_what_the_model_knows_without_passages() -> None:
    question = "Which container drops the oldest items once it holds maxlen of them?"
    choices = ["heapq", "deque", "bisect", "list"]
    reading = {"heapq": -1.0, "deque": -1.1, "bisect": -3.0, "list": -3.0}
    # closed book, "bisect" is likeliest, but only because it is likely after any prompt;
    # "list" gains most from the question
    closed = {"heapq": -4.0, "deque": -4.0, "bisect": -0.4, "list": -0.5}
    prior = {"heapq": -4.0, "deque": -4.0, "bisect": -0.4, "list": -4.0}
    model = TwoMindsModel(reading, closed, prior)
    plain = RetrievalAnswerer(model, CHUNKS, top_k=1, weight=1.0, passage_chars=0)
    asked = len(model.prompts)
    assert plain.choose(question, choices) == 1  # without it: as before, one read only
    assert len(model.prompts) == asked + 1
    three = reader(
        model, CHUNKS, RetrievalConfig(reader_top_k=1, passage_chars=0, closed_book_weight=3.0)
    )
    assert three.closed_weight == 3.0
    got = three.choice_scores(question, choices)
    assert model.prompts[-2:] == [question, NEUTRAL]  # the bare question, then the prior
    found = zscores(three.retriever.choice_scores(question, choices))
    want = [
        a + b + 3.0 * c
        for a, b, c in zip(
            zscores([reading[c] for c in choices]),
            found,
            zscores([closed[c] - prior[c] for c in choices]),
            strict=True,
        )
    ]
    assert got == pytest.approx(want)
    assert three.choose(question, choices) == 3  # what it knows outweighs the passage
