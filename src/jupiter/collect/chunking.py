"""Cut documents into chunks that keep their provenance: doc.text[start:end] == chunk.text.

Cuts fall on the strongest boundary available (paragraph, line, sentence, word, and only
then anywhere); consecutive chunks of one document share about `overlap` characters so
a fact cut in two still appears whole in one of them.
"""

from __future__ import annotations

import re

from jupiter.config import Chunking
from jupiter.records import Chunk, Document, Split, content_id

# Boundaries, strongest first; a cut goes right after the match.
BOUNDARIES = (
    re.compile(r"\n[ \t]*\n\s*"),  # paragraph: a blank line
    re.compile(r"\n"),  # line
    re.compile(r"[.!?][\"')\]]*\s+"),  # sentence end
    re.compile(r"\s+"),  # word
)
# A cut must leave the chunk at least this full; otherwise a weaker boundary is tried.
# Without it a blank line early in the window would make many tiny chunks.
MIN_FILL = 0.3
_SPACE = re.compile(r"\s+")
_NON_SPACE = re.compile(r"\S")


# documents whose records become training examples whole (collect.direct_examples): held
# out or not as one, the way `improve.stages.queue_direct_examples` decides
ROW_SOURCES = frozenset({"dataset", "exec_logs"})


def chunk_document(doc: Document, chunking: Chunking) -> list[Chunk]:
    """The document's chunks with their split.

    A document too short for `heldout_fraction` of it to be a whole chunk is held out or
    not as one (`split_of` its id). A longer one holds out that share of its own chunks,
    those whose ids hash lowest: a corpus of a few long documents (a PDF manual, a Markdown
    reference page per module) then keeps that fraction of its text for the eval instead of
    losing a whole document to it, or having none. A held-out chunk gives up the text it
    shares with a trained neighbour, so no character is in both splits.
    """
    frac = chunking.heldout_fraction
    spans = chunk_spans(doc.text, chunking.max_chars, chunking.overlap)
    if doc.source in ROW_SOURCES or len(spans) * frac < 1:
        split = split_of(doc.id, frac)
        return [
            Chunk(doc.id, doc.source, doc.uri, doc.title, a, b, doc.text[a:b], split)
            for a, b in spans
        ]
    # exactly its share, at least one: the chunks whose ids hash lowest (a draw per chunk
    # would leave a 20-chunk document with none 36% of the time)
    ranked = sorted(range(len(spans)), key=lambda i: content_id("chunk", doc.id, *spans[i]))
    held = set(ranked[: round(len(spans) * frac)])
    splits: list[Split] = ["heldout" if i in held else "train" for i in range(len(spans))]
    out: list[Chunk] = []
    for i, ((a, b), split) in enumerate(zip(spans, splits, strict=True)):
        if split == "heldout":
            if i > 0 and splits[i - 1] == "train":
                a = max(a, spans[i - 1][1])
            if i + 1 < len(spans) and splits[i + 1] == "train":
                b = min(b, spans[i + 1][0])
            a, b = _trim(doc.text, a, b)
            if a >= b:
                continue  # nothing of its own: its neighbours hold all of it
        out.append(Chunk(doc.id, doc.source, doc.uri, doc.title, a, b, doc.text[a:b], split))
    return out


def split_of(doc_id: str, heldout_fraction: float) -> Split:
    """The split of a document held out or not as one (`chunk_document`): "heldout" when
    its id hash falls below the fraction. Decided from its content id, so it is stable
    between runs and corpus versions."""
    return "heldout" if int(doc_id, 16) / 16 ** len(doc_id) < heldout_fraction else "train"


def chunk_spans(text: str, max_chars: int, overlap: int) -> list[tuple[int, int]]:
    """(start, end) spans of at most max_chars, trimmed of outer whitespace, none empty."""
    spans = []
    start, n = 0, len(text)
    while start < n:
        if n - start <= max_chars:
            spans.append((start, n))
            break
        end = _cut(text, start, start + max_chars)
        spans.append((start, end))
        if _NON_SPACE.search(text, end) is None:
            break  # only whitespace left: a last chunk would repeat the overlap alone
        start = _next_start(text, start, end, overlap)
    return [s for s in (_trim(text, a, b) for a, b in spans) if s[0] < s[1]]


def _cut(text: str, start: int, limit: int) -> int:
    """The end of a chunk starting at `start`: after the last, strongest boundary that
    lies between start + MIN_FILL * size and `limit`; `limit` itself if there is none."""
    floor = start + int((limit - start) * MIN_FILL)
    for pattern in BOUNDARIES:
        last = None
        for m in pattern.finditer(text, floor, limit):
            last = m
        if last is not None and last.end() > floor:
            return last.end()
    return limit


def _next_start(text: str, start: int, end: int, overlap: int) -> int:
    """Where the next chunk begins: about `overlap` characters before `end`, moved
    forward to a word start. The overlap never exceeds half the chunk, so chunks advance."""
    if overlap <= 0:
        return end
    begin = max(end - overlap, start + (end - start) // 2)
    m = _SPACE.search(text, begin, end)
    return m.end() if m is not None and m.end() < end else begin


def _trim(text: str, a: int, b: int) -> tuple[int, int]:
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return a, b
