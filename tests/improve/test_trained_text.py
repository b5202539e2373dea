"""The user exam's quotes are looked up in what the student trains on: a long document's
trained stretches whole (a quote across two chunks is found), its held-out chunks not."""

from __future__ import annotations

from jupiter.collect.chunking import chunk_document
from jupiter.config import Chunking
from jupiter.eval.userexam import collapse
from jupiter.improve.exams import trained_runs
from jupiter.records import Document


def test_a_quote_in_a_held_out_chunk_is_not_trained_text() -> None:
    text = "\n\n".join(
        f"Rule {i} says the spool keeps page {i} for exactly {i} seconds." for i in range(600)
    )
    doc = Document("local", "mem:manual.md", "manual", text, {})
    chunks = chunk_document(doc, Chunking(max_chars=700, overlap=100, heldout_fraction=0.05))
    held = [c for c in chunks if c.split == "heldout"]
    train = [c for c in chunks if c.split == "train"]
    assert held and train
    joined = "\n".join(trained_runs(text, [(c.start, c.end) for c in train]))
    # a sentence only a held-out chunk holds is not there
    inner = held[0].text.split("\n\n")[1]
    assert inner.startswith("Rule") and collapse(inner) not in joined
    # every trained sentence is, one that straddles two train chunks' cut too
    for c in train:
        assert collapse(c.text) in joined
    cut = next(
        (a, b)
        for a, b in zip(train, train[1:], strict=False)
        if b.start < a.end  # neighbours that overlap: no held-out chunk between them
    )
    straddle = collapse(text[cut[1].start - 40 : cut[0].end + 40])
    assert straddle in joined and straddle not in collapse(cut[0].text)
    assert (
        len(trained_runs(text, [(c.start, c.end) for c in train]))
        == len([1 for a, b in zip(train, train[1:], strict=False) if b.start > a.end]) + 1
    )
