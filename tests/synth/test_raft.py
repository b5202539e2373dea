"""RAFT examples: a seeded share of Q&A pairs asked with the gold passage among BM25
distractors from other chunks, the gold left out with probability 1 - p_gold."""

from __future__ import annotations

import random
import re

from jupiter.config import GeneratorConfig, RaftConfig
from jupiter.records import Chunk, Example
from jupiter.synth.extractive import ExtractiveGenerator
from jupiter.synth.raft import clip, gold_passage, raft_examples

TOOLS = ["gzip", "tar", "grep", "sed", "awk", "find", "sort", "uniq", "xargs", "curl"]
CFG = RaftConfig(enabled=True, fraction=0.3, distractors=3, p_gold=0.8)
PASSAGE = re.compile(r"^\[(\d+)\] ([^:]+): ", re.M)


def chunks() -> list[Chunk]:
    out = []
    for i, t in enumerate(TOOLS):
        text = f"{t} is tool number {i}. It reads files and writes output; {t} has options."
        out.append(Chunk(f"doc-{t}", "local", f"file:{t}.txt", t, 0, len(text), text))
    return out


def examples() -> list[Example]:
    out = []
    for k in range(200):
        c = chunks()[k % len(TOOLS)]
        messages = [
            {"role": "user", "content": f"What does {c.title} do with files (variant {k})?"},
            {"role": "assistant", "content": f"{c.title} reads files and writes output."},
        ]
        out.append(Example("qa", "extractive", c.id, "what_does", messages))
    out.append(Example("text", "extractive", chunks()[0].id, "continuation", text="raw"))
    return out


def test_seeded_share_gold_and_distractors() -> None:
    given = examples()
    got = list(raft_examples(given, chunks(), CFG, seed=7))
    assert got == list(raft_examples(examples(), chunks(), CFG, seed=7))  # seeded
    assert len(got) == len(given)
    by_id = {c.id: c for c in chunks()}
    by_title = {c.title: c for c in chunks()}
    n_raft = n_gold = 0
    for before, after in zip(given, got, strict=True):
        rng = random.Random(f"raft:7:{before.id}")
        if before.kind != "qa" or rng.random() >= CFG.fraction:
            assert after == before
            continue
        n_raft += 1
        has_gold = rng.random() < CFG.p_gold
        n_gold += has_gold
        assert after.template == "raft:what_does" and after.answer == before.answer
        prompt = after.question
        assert prompt.endswith(f"\n\nQuestion: {before.question}")
        gold = by_id[before.chunk_id]
        assert (gold.text in prompt) is has_gold  # exactly when drawn
        titles = [m.group(2) for m in PASSAGE.finditer(prompt)]
        others = [t for t in titles if t != gold.title]
        assert len(others) == CFG.distractors and len(set(others)) == CFG.distractors
        assert len(titles) == CFG.distractors + has_gold
        for t in others:  # distractors are other chunks, whole here (under passage_chars)
            assert by_title[t].text in prompt
    # the seeded draws of this fixture: 53 of 200 asked open-book (0.3 expected), the
    # gold among the passages in 43 of them (0.8 expected)
    assert (n_raft, n_gold) == (53, 43)
    assert sum(e.template.startswith("raft:") for e in got) == n_raft


def test_disabled_or_other_seed() -> None:
    given = examples()
    assert list(raft_examples(given, chunks(), RaftConfig(), seed=0)) == given
    a = [e.id for e in raft_examples(given, chunks(), CFG, seed=0)]
    b = [e.id for e in raft_examples(given, chunks(), CFG, seed=1)]
    assert a != b


def test_gold_passage_is_cut_around_the_quoted_answer() -> None:
    text = " ".join(f"word{i}" for i in range(400))  # ~3,000 characters
    at = text.index("word300")
    c = Chunk("d", "local", "file:x", "x", 1000, 1000 + len(text), text)
    p = gold_passage(c, (1000 + at, 1000 + at + len("word300 word301")), 200)
    assert "word300 word301" in p.text and len(p.text) <= 200
    assert text.startswith(clip(text, 200)) and len(clip(text, 200)) <= 200
    assert clip(text, 0) == text


def test_extractive_generator_makes_raft_examples(stdlib_chunks: list[Chunk]) -> None:
    cfg = GeneratorConfig(raft=CFG, continuation=False)
    got = list(ExtractiveGenerator(stdlib_chunks).generate(stdlib_chunks, 1, cfg))
    raft = [e for e in got if e.template.startswith("raft:")]
    assert 0 < len(raft) < len(got)
    for e in raft:
        assert e.question.startswith("Passages:\n[1] ")
        assert len(e.content()) <= 4000  # passes filters.max_chars by default
