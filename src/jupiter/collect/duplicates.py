"""Documents whose text the corpus already holds: the same manual as HTML pages and as a PDF,
a page mirrored in two folders, a README copied into the docs.

Each document is read as word 8-shingles (the words of `jupiter.filters.text.words`, so case,
punctuation, line breaks and a PDF's page furniture do not matter); a fixed, content-defined
eighth of them is kept (a shingle is kept when its hash is 0 modulo 8, so the same shingle is
kept or skipped in every document: the sample of a copy is the copy of the sample).
Documents are read structured formats first, then plain text, then PDFs (each group in its
order); one whose sampled shingles are mostly (CONTAINED) among those of the documents kept
before it is dropped, counted `duplicate_document`. A copy kept would weigh double in
training, and a chunk held out from one copy would be trained on through the other.
Copies read at 0.96 to 1.0 (Valgrind's PDF manual against its HTML pages 0.977, its FAQ.txt
against faq.html 0.958, man pages installed under two names 1.0); sibling pages that share
boilerplate stay below 0.9 (json.dumps after json.dump 0.878, gcloud's pages 0.5 to 0.88).
A file whose text (its words, spacing aside) is one read before is a copy whatever its
length (Apache's manual holds each untranslated page, a short one too, in every language's
folder); of such copies the one in its own language's folder is kept (`en/`, not `da/`, for
a page that says it is English), so that its provenance names the manual it belongs to.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from jupiter.collect.result import CollectResult
from jupiter.records import Document

DUPLICATE = "duplicate_document"
SHINGLE_WORDS = 8
SAMPLE = 8  # one shingle in SAMPLE, by its hash
CONTAINED = 0.95  # share of its sampled shingles seen before that makes a document a copy
MIN_SAMPLED = 40  # fewer sampled shingles (a short page): never called a copy
_KEYS = (
    np.random.default_rng(7).integers(0, 1 << 63, size=SHINGLE_WORDS, dtype=np.uint64) << 1
) | 1


def sampled_shingles(text: str) -> np.ndarray:
    """The document's sampled 8-word shingle hashes (unique, sorted)."""
    from jupiter.filters.dedup import _mix64, word_hashes

    h, _ = word_hashes([text])
    n = len(h) - SHINGLE_WORDS + 1
    if n <= 0:
        return np.zeros(0, dtype=np.uint64)
    acc = np.zeros(n, dtype=np.uint64)
    for j in range(SHINGLE_WORDS):  # a multilinear hash of the shingle's word hashes
        acc += h[j : j + n] * _KEYS[j]
    acc = _mix64(acc)
    return np.unique(acc[acc % np.uint64(SAMPLE) == 0])


def _plainness(doc: Document) -> int:
    """Which copy goes when two hold the same text: the one whose format kept less of its
    structure (headings, lists, code) for the question generator: a PDF's text layer, then
    plain text, before HTML, Markdown or reST."""
    suffix = str(doc.meta.get("suffix", ""))
    return 2 if suffix == ".pdf" else 1 if suffix in ("", ".txt") else 0


def _misplaced(doc: Document) -> int:
    """0 for a page that lies in a folder named for the language it declares (meta "lang":
    `manual/en/mod/core.html`), else 1: which copy of a page is kept."""
    lang = str(doc.meta.get("lang", ""))
    parts = doc.uri.replace("\\", "/").lower().split("/")[:-1]
    return 0 if lang and any(p.split("-")[0].split("_")[0] == lang for p in parts) else 1


def drop_duplicates(
    docs: Iterable[Document], rejects: CollectResult | None = None
) -> list[Document]:
    """The documents, in their order, less each one mostly contained in those read before
    it, read structured formats first (so of a manual as HTML pages and as a PDF, or a
    README beside its HTML page, the plainer copy is the one dropped)."""
    docs = list(docs)
    seen: set[int] = set()
    texts: set[str] = set()  # a file's words, whole: a short page copied is a copy too
    dropped: set[int] = set()
    order = sorted(range(len(docs)), key=lambda i: (_plainness(docs[i]), _misplaced(docs[i]), i))
    for i in order:
        sample = sampled_shingles(docs[i].text).tolist()
        whole = " ".join(docs[i].text.split()) if docs[i].meta.get("kind") == "file" else ""
        if whole and whole in texts:
            dropped.add(i)
            if rejects is not None:
                rejects.reject(DUPLICATE, docs[i].uri)
            continue
        texts.add(whole)
        if len(sample) >= MIN_SAMPLED:
            inside = sum(1 for s in sample if s in seen)
            if inside >= CONTAINED * len(sample):
                dropped.add(i)
                if rejects is not None:
                    rejects.reject(DUPLICATE, docs[i].uri)
                continue
        seen.update(sample)
    return [d for i, d in enumerate(docs) if i not in dropped]
