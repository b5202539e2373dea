"""Student + retriever: a model that reads the top-k retrieved passages before it answers,
its multiple-choice pick combined with the retriever's own evidence.

Two experts that fail differently: the model knows how the domain is phrased and what a
question is after, the retriever knows where a name is written (Lewis et al. 2020, RAG;
Zhang et al. 2024, RAFT, trains the model to read such passages). Each choice's score is
the sum of the two experts' z-scored scores across the choices (the model's mean token
log-probability, the retriever's idf-weighted coverage), `weight` scaling the retriever's;
a product of experts that needs no calibration of either scale. With `closed_weight`, a
third: what the model knows without the passages (what training put in its weights, which
a passage that missed cannot supply), as pointwise mutual information: each choice's
log-probability after the bare question less its log-probability after a neutral prompt,
so a choice that is likely anywhere (a common name, a short word) gains nothing from it
(Holtzman et al. 2021, surface form competition).

It is a generator like any other: promoted, it writes the next cycle's data by answering
the template questions with the passages retrieved for them (the chunk a question was made
from is then among them), each answer grounded in documents and filtered like any other.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import islice
from statistics import fmean, pstdev
from typing import Any

from jupiter.config import GeneratorConfig, RetrievalConfig
from jupiter.records import Chunk, Example
from jupiter.synth.extractive import ExtractiveGenerator
from jupiter.synth.parse import sentences
from jupiter.synth.passages import Passage, PassageIndex, open_book_prompt
from jupiter.synth.questions import iter_questions
from jupiter.synth.retrieval import tokenize

SUFFIX = "+retriever"
# the prompt a choice's prior is read after (the closed-book term's PMI)
NEUTRAL = "Answer:"


def zscores(values: Sequence[float]) -> list[float]:
    """(v - mean) / std across the choices; all 0 when they are equal (no evidence)."""
    finite = [v for v in values if v != float("-inf")]
    if len(finite) < 2:
        return [0.0 if v != float("-inf") else -1e9 for v in values]
    mu, sd = fmean(finite), pstdev(finite)
    return [
        (v - mu) / sd if sd > 0 and v != float("-inf") else (0.0 if v != float("-inf") else -1e9)
        for v in values
    ]


def best_window(
    text: str, question: str, limit: int, idf: Callable[[str], float] | None = None
) -> str:
    """The run of whole sentences of `text`, at most `limit` characters, that covers most of
    the question: the largest idf-weighted sum of the question's distinct terms it holds
    (every term 1 without `idf`), then the most term hits, then the earliest; all of `text`
    when it fits. Weighting by idf keeps the sentence with the question's rare name over one
    that repeats the passage's common words (a command's name on every line of its page)."""
    if not limit or len(text) <= limit:
        return text
    weight = idf or (lambda _t: 1.0)
    terms = set(tokenize(question))
    parts = sentences(" ".join(text.split()))
    best, best_key = "", (-1.0, -1)
    for i in range(len(parts)):
        window, seen, hits = "", set(), 0
        for s in parts[i:]:
            if window and len(window) + len(s) + 1 > limit:
                break
            window = f"{window} {s}".strip()
            found = terms & set(tokenize(s))
            seen |= found
            hits += len(found)
        # rounded: a float sum in set order must not break ties differently from run to run
        key = (round(sum(weight(t) for t in seen), 9), hits)
        if key > best_key:
            best, best_key = window[:limit], key
    return best or text[:limit]


def cut_passages(index: PassageIndex, query: str, top_k: int, limit: int) -> list[Passage]:
    """`query`'s top_k passages of `index`, each cut to its best window for it (the
    question's terms weighted by the index's idf)."""
    return [
        Passage(p.id, p.title, best_window(p.text, query, limit, index.bm25.idf))
        for p in index.search(query, top_k)
    ]


def reader(model: Any, chunks: Sequence[Chunk], retrieval: RetrievalConfig) -> RetrievalAnswerer:
    """`model` reading `retrieval`'s passages of `chunks`, as the config sets it."""
    return RetrievalAnswerer(
        model,
        chunks,
        retrieval.reader_top_k,
        retrieval.evidence_weight,
        retrieval.passage_chars,
        retrieval,
        retrieval.closed_book_weight,
    )


class RetrievalAnswerer:
    """`model` (a ModelGenerator: answer, choice_logprobs, generate's batch size) reading
    the top_k passages of `chunks` for each question, with the retriever's evidence."""

    def __init__(
        self,
        model: Any,
        chunks: Sequence[Chunk],
        top_k: int = 2,
        weight: float = 1.0,
        passage_chars: int = 600,
        retrieval: RetrievalConfig | None = None,
        closed_weight: float = 0.0,
    ) -> None:
        self.model = model
        self.id = f"{model.id}{SUFFIX}"
        self.top_k, self.weight, self.passage_chars = top_k, weight, passage_chars
        self.closed_weight = closed_weight
        self.retriever = ExtractiveGenerator(chunks, retrieval)
        self.index = PassageIndex.from_chunks(list(chunks), retrieval)

    def prompt(self, question: str) -> str:
        """The open-book prompt: the top_k passages, each cut to its best window."""
        cut = cut_passages(self.index, question, self.top_k, self.passage_chars)
        return open_book_prompt(question, cut)

    # ---------------------------------------------------------------------- answering
    def answer(self, questions: Sequence[str]) -> list[str]:
        answers: list[str] = self.model.answer([self.prompt(q) for q in questions])
        return answers

    def choice_scores(self, question: str, choices: Sequence[str]) -> list[float]:
        read = zscores(self.model.choice_logprobs(self.prompt(question), choices))
        found = zscores(self.retriever.choice_scores(question, choices))
        out = [a + self.weight * b for a, b in zip(read, found, strict=True)]
        if self.closed_weight:
            known = self.model.choice_logprobs(question, choices)
            prior = self.model.choice_logprobs(NEUTRAL, choices)
            closed = zscores([k - p for k, p in zip(known, prior, strict=True)])
            out = [a + self.closed_weight * c for a, c in zip(out, closed, strict=True)]
        return out

    def choose(self, question: str, choices: Sequence[str]) -> int:
        scores = self.choice_scores(question, choices)
        return max(range(len(scores)), key=lambda i: (scores[i], -i)) if scores else 0

    # ----------------------------------------------------------------------- generate
    def generate(
        self, chunks: Sequence[Chunk], cycle: int, cfg: GeneratorConfig, limit: int | None = None
    ) -> Iterator[Example]:
        """The template questions about `chunks`, answered open-book; the example keeps
        the bare question, so the student learns to answer it without the passages."""
        qs = iter_questions(chunks, cfg.templates, cfg.max_questions_per_chunk, cfg.seed)
        questions = islice((q for _, batch in qs for q in batch), limit)
        while True:
            batch = list(islice(questions, self.model.batch_size))
            if not batch:
                return
            answers = self.answer([q.question for q in batch])
            for q, a in zip(batch, answers, strict=True):
                yield Example(
                    kind="qa",
                    generator=self.id,
                    chunk_id=q.chunk_id,
                    template=q.template,
                    messages=[
                        {"role": "user", "content": q.question},
                        {"role": "assistant", "content": a},
                    ],
                    cycle=cycle,
                )
