"""RAFT training examples (Zhang et al. 2024, "RAFT: Adapting Language Model to Domain
Specific RAG"): a seeded share of Q&A pairs is asked open-book, with the gold passage (the
chunk the answer quotes) among distractor passages, and with probability 1 - p_gold
without it; the answer stays the same. The prompt is the one open-book inference uses
(synth/passages.py), so a student trained on these reads passages the way it is shown them.

A data step: Example records in, Example records out; every other example passes as it came.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace

from jupiter.config import RaftConfig, RetrievalConfig
from jupiter.records import Chunk, Example
from jupiter.synth.passages import Passage, PassageIndex, open_book_prompt


def clip(text: str, limit: int, around: tuple[int, int] | None = None) -> str:
    """At most `limit` characters of `text` (0: all), cut at spaces: from the start, or a
    window centred on the characters `around` (kept whole even when longer than `limit`)."""
    if not limit or len(text) <= limit:
        return text
    a, b = around if around is not None else (0, 0)
    a, b = max(0, min(a, len(text))), max(0, min(b, len(text)))
    if b - a >= limit:
        return text[a:b]
    start = max(0, min((a + b - limit) // 2, len(text) - limit))
    end = start + limit
    if start > 0:  # cut forward to a space, never past the span
        cut = text.find(" ", start, a + 1)
        start = cut + 1 if cut >= 0 else start
    if end < len(text):  # and back to one
        cut = text.rfind(" ", b, end)
        end = cut if cut >= 0 else end
    return text[start:end]


def gold_passage(chunk: Chunk, span: tuple[int, int] | None, limit: int) -> Passage:
    """The chunk as a passage, cut around the answer it quotes (span: offsets in the doc)."""
    local = None if span is None else (span[0] - chunk.start, span[1] - chunk.start)
    return Passage(chunk.id, chunk.title, clip(chunk.text, limit, local))


def raft_examples(
    examples: Iterable[Example],
    chunks: Sequence[Chunk],
    cfg: RaftConfig,
    seed: int,
    retrieval: RetrievalConfig | None = None,
) -> Iterator[Example]:
    """Each Q&A example whose gold chunk is in `chunks` becomes, with probability
    cfg.fraction, a RAFT example: the question after cfg.distractors neighbours from other
    chunks (found by the `retrieval` index open-book inference uses; default BM25), and,
    with probability cfg.p_gold, the gold passage at a random place among them. Draws are
    seeded per example (seed, example id), so they do not depend on order. Its template
    gets a "raft:" prefix, so counts show the share."""
    if not cfg.enabled:
        yield from examples
        return
    by_id = {c.id: c for c in chunks}
    index: PassageIndex | None = None  # built on the first RAFT example
    for ex in examples:
        gold = by_id.get(ex.chunk_id)
        rng = random.Random(f"raft:{seed}:{ex.id}")
        if ex.kind != "qa" or gold is None or not ex.question or rng.random() >= cfg.fraction:
            yield ex
            continue
        if index is None:
            index = PassageIndex.from_chunks(chunks, retrieval)
        found = index.search(ex.question, cfg.distractors, exclude=frozenset({gold.id}))
        passages = [Passage(p.id, p.title, clip(p.text, cfg.passage_chars)) for p in found]
        if rng.random() < cfg.p_gold:
            passages.insert(
                rng.randint(0, len(passages)), gold_passage(gold, ex.span, cfg.passage_chars)
            )
        yield replace(
            ex,
            messages=with_question(ex.messages, open_book_prompt(ex.question, passages)),
            template=f"raft:{ex.template}",
        )


def with_question(messages: list[dict[str, str]], prompt: str) -> list[dict[str, str]]:
    """The chat with its first user message replaced by `prompt`."""
    first = next(i for i, m in enumerate(messages) if m["role"] == "user")
    return [*messages[:first], {"role": "user", "content": prompt}, *messages[first + 1 :]]
