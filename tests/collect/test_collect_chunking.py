"""Chunking: provenance spans, boundaries, overlap and the per-document split."""

from __future__ import annotations

import random

from jupiter.collect.chunking import chunk_document, chunk_spans, split_of
from jupiter.config import Chunking
from jupiter.records import Document


def doc(text: str, uri: str = "mem:doc") -> Document:
    return Document("local", uri, "t", text)


def check_spans(d: Document, chunks: list, max_chars: int) -> None:
    for c in chunks:
        assert d.text[c.start : c.end] == c.text
        assert 0 < len(c.text) <= max_chars
        assert c.text.strip() == c.text  # trimmed, never whitespace-only
        assert (c.doc_id, c.uri, c.source, c.title) == (d.id, d.uri, d.source, d.title)
    starts = [c.start for c in chunks]
    assert starts == sorted(set(starts))


def test_short_document_is_one_trimmed_chunk() -> None:
    d = doc("\n\n  Hello world.  \n")
    [c] = chunk_document(d, Chunking(max_chars=100, overlap=10, heldout_fraction=0.0))
    assert (c.start, c.end, c.text) == (4, 16, "Hello world.")
    assert chunk_document(doc(" \n\t\n "), Chunking(max_chars=100, heldout_fraction=0.0)) == []


def test_cuts_fall_on_paragraph_boundaries() -> None:
    paras = [f"Paragraph {i} " + "word " * 50 for i in range(12)]  # ~265 chars each
    d = doc("\n\n".join(p.strip() for p in paras))
    chunks = chunk_document(d, Chunking(max_chars=1000, overlap=0, heldout_fraction=0.0))
    check_spans(d, chunks, 1000)
    assert len(chunks) == 4  # three ~265-char paragraphs fit in 1000, four do not
    for c in chunks:
        assert c.text.startswith("Paragraph ") and c.text.endswith("word")
        assert c.text.count("Paragraph") == 3
    assert chunks[0].end < chunks[1].start  # overlap 0: no shared text


def test_falls_back_to_lines_sentences_then_hard_cuts() -> None:
    lines = doc("\n".join(f"line {i:03d} " + "x" * 40 for i in range(40)))
    for c in chunk_document(lines, Chunking(max_chars=200, overlap=0, heldout_fraction=0.0)):
        assert c.text.startswith("line ") and c.text.endswith("x")
    sentences = doc(" ".join(f"Sentence number {i} ends here." for i in range(60)))
    for c in chunk_document(sentences, Chunking(max_chars=150, overlap=0, heldout_fraction=0.0)):
        assert c.text.startswith("Sentence") and c.text.endswith("here.")
    solid = doc("a" * 1050)
    chunks = chunk_document(solid, Chunking(max_chars=500, overlap=0, heldout_fraction=0.0))
    assert [(c.start, c.end) for c in chunks] == [(0, 500), (500, 1000), (1000, 1050)]


def test_consecutive_chunks_overlap_by_about_overlap_chars() -> None:
    words = " ".join(f"w{i}" for i in range(2000))
    d = doc(words)
    chunks = chunk_document(d, Chunking(max_chars=300, overlap=60, heldout_fraction=0.0))
    check_spans(d, chunks, 300)
    assert len(chunks) > 30
    for a, b in zip(chunks, chunks[1:], strict=False):
        shared = a.end - b.start
        assert 50 <= shared <= 60, shared  # snapped forward to a word start
        assert d.text[b.start - 1] == " "  # never starts mid-word
    # the chunks cover the whole text
    assert chunks[0].start == 0 and chunks[-1].end == len(words)


def test_span_invariant_on_random_documents() -> None:
    rng = random.Random(1234)
    alphabet = "aaaaabbbcde  \n\n.!?\t\u00e9\u4e2d"
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 3000)))
        max_chars = rng.randint(100, 600)
        overlap = rng.choice([0, rng.randint(0, 800)])  # even larger than max_chars
        d = doc(text)
        chunks = chunk_document(
            d, Chunking(max_chars=max_chars, overlap=overlap, heldout_fraction=0.0)
        )
        check_spans(d, chunks, max_chars)
        covered = set()
        for c in chunks:
            covered.update(range(c.start, c.end))
        assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())


def test_heldout_split_is_per_document_and_deterministic() -> None:
    # 5 chunks a document: a quarter of one is not a whole chunk, so documents go whole
    docs = [doc(f"document {i}\n\n" + "text " * 400, uri=f"mem:{i}") for i in range(400)]
    cfg = Chunking(max_chars=500, overlap=50, heldout_fraction=0.15)
    first = [chunk_document(d, cfg) for d in docs]
    again = [chunk_document(d, cfg) for d in docs]
    assert first == again
    heldout = 0
    for d, chunks in zip(docs, first, strict=True):
        expected = "heldout" if int(d.id, 16) / 16**16 < 0.15 else "train"
        assert len(chunks) == 5 and {c.split for c in chunks} == {expected}
        heldout += expected == "heldout"
    assert 30 < heldout < 90  # about 15% of 400
    assert {split_of(d.id, 0.0) for d in docs} == {"train"}
    assert split_of("0" * 16, 0.01) == "heldout" and split_of("f" * 16, 0.99) == "train"


def test_a_long_document_holds_out_chunks_of_its_own() -> None:
    """One long document (a PDF manual, a reference page): about heldout_fraction of its
    chunks held out, drawn by id (stable), and no character in both splits."""
    text = "\n\n".join(
        f"Section {i}. " + " ".join(f"word{i}x{j}" for j in range(60)) for i in range(300)
    )
    d = doc(text, uri="mem:manual")
    cfg = Chunking(max_chars=800, overlap=120, heldout_fraction=0.05)
    chunks = chunk_document(d, cfg)
    assert chunks == chunk_document(d, cfg)
    held = [c for c in chunks if c.split == "heldout"]
    train = [c for c in chunks if c.split == "train"]
    spans = chunk_spans(text, 800, 120)
    assert len(spans) > 200 and len(held) == round(len(spans) * 0.05), (len(spans), len(held))
    for c in chunks:
        assert d.text[c.start : c.end] == c.text and c.text.strip() == c.text
    trained = set()
    for c in train:
        trained.update(range(c.start, c.end))
    assert not any(i in trained for c in held for i in range(c.start, c.end))
    # every character of the document is in a chunk of one split or the other
    covered = trained | {i for c in held for i in range(c.start, c.end)}
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())
    # a document whose records become examples is held out whole, however long
    rows = Document("dataset", "mem:rows.jsonl", "rows", text, {})
    assert len({c.split for c in chunk_document(rows, cfg)}) == 1


def test_a_document_of_twenty_chunks_always_holds_out_one() -> None:
    """Its share (5% of 20) whatever its id: a per-chunk draw left none 36% of the time."""
    text = "\n\n".join(f"Paragraph {i}. " + "alpha beta gamma delta " * 18 for i in range(40))
    cfg = Chunking(max_chars=800, overlap=100, heldout_fraction=0.05)
    for k in range(40):  # forty uris: forty document ids, forty draws
        chunks = chunk_document(doc(text, uri=f"mem:page-{k}"), cfg)
        n = len(chunk_spans(text, 800, 100))
        assert n >= 20 and sum(c.split == "heldout" for c in chunks) == round(n * 0.05)
