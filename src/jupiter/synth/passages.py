"""Open-book mode: the domain's passages with their BM25 index, saved beside a model, and
the one prompt that puts the top-k passages before a question.

The same prompt serves `jupiter chat --open-book`, `jupiter serve --open-book`, the eval's
`eval.open_book` and RAFT training examples (synth/raft.py; Zhang et al. 2024, "RAFT:
Adapting Language Model to Domain Specific RAG"), so a student answers at inference from
the layout it trained on.

The index is the domain's `retrieval.kind`: BM25 (title + body), an embedding index
(cosine over a sentence-transformers model's vectors, synth/embedding.py), or both fused by
reciprocal rank ("hybrid").

On disk, in `<model_dir>/retrieval/`: `passages.jsonl` (one {id, title, text} a line) and
`index.json` (the kind and BM25 parameters, the count and SHA-256 of passages.jsonl). The
BM25 index is rebuilt from the passages on load: over a few thousand chunks it takes well
under a second, and plain text needs no pickle and no workspace. An embedding index adds
`embeddings.safetensors` (the unit-norm passage vectors, computed once), `embedder/` (a copy
of a local embedder folder) and an "embedding" entry in index.json: the embedder reference,
dimension, count and SHA-256 of the vectors.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import get_args

from jupiter import atomic
from jupiter.config import RetrievalConfig, RetrievalKind
from jupiter.errors import JupiterError
from jupiter.records import Chunk
from jupiter.synth.embedding import (
    EMBEDDER_DIR,
    EMBEDDINGS_FILE,
    RRF_K,
    DenseIndex,
    Embedder,
    Progress,
    passage_text,
    rrf_fuse,
)
from jupiter.synth.retrieval import BM25Index

RETRIEVAL_DIR = "retrieval"
PASSAGES_FILE = "passages.jsonl"
INDEX_FILE = "index.json"
FORMAT_VERSION = 1
TOP_K = 3  # passages in an open-book prompt unless told otherwise
KINDS: tuple[RetrievalKind, ...] = get_args(RetrievalKind)


@dataclass(frozen=True)
class Passage:
    id: str  # the chunk id it came from
    title: str
    text: str


def open_book_prompt(question: str, passages: Sequence[Passage]) -> str:
    """The question after its numbered passages, best first:
    "Passages:\\n[1] title: text\\n[2] …\\n\\nQuestion: …"; no passages, the bare question."""
    if not passages:
        return question
    lines = [f"[{i}] {p.title}: {p.text.strip()}" for i, p in enumerate(passages, start=1)]
    return "Passages:\n" + "\n".join(lines) + f"\n\nQuestion: {question}"


class PassageIndex:
    """BM25 (body + title) over passages, with an embedding index beside it for the kinds
    "embedding" and "hybrid"; `search` returns the best passages for a query."""

    def __init__(
        self,
        passages: Iterable[Passage],
        dense: DenseIndex | None = None,
        kind: RetrievalKind = "bm25",
        rrf_k: int = RRF_K,
    ) -> None:
        self.passages = list(passages)
        self.bm25 = BM25Index([p.text for p in self.passages], [p.title for p in self.passages])
        if (kind == "bm25") != (dense is None):
            raise ValueError(f"PassageIndex: kind {kind} with dense={dense!r}")
        self.dense, self.kind, self.rrf_k = dense, kind, rrf_k

    @classmethod
    def from_chunks(
        cls,
        chunks: Iterable[Chunk],
        retrieval: RetrievalConfig | None = None,
        on_progress: Progress | None = None,
    ) -> PassageIndex:
        """The index `retrieval` asks for (default BM25); an embedding index embeds every
        passage once, reporting (done, total) to `on_progress` after each batch."""
        passages = [Passage(c.id, c.title, c.text) for c in chunks]
        if retrieval is None or retrieval.kind == "bm25":
            return cls(passages)
        embedder = Embedder.load(retrieval.embedding_model, retrieval.batch_size)
        texts = [passage_text(p.title, p.text) for p in passages]
        dense = DenseIndex.build(embedder, texts, on_progress)
        return cls(passages, dense, retrieval.kind, retrieval.rrf_k)

    def __len__(self) -> int:
        return len(self.passages)

    def ranking(self, query: str, depth: int) -> list[int]:
        """Indices of the `depth` best passages, best first. BM25 keeps only passages with a
        positive score; the embedding index ranks them all."""
        if self.dense is None:
            return [i for i, _ in self.bm25.search(query, depth)]
        dense = self.dense.ranking(query)
        if self.kind == "embedding":
            return dense[:depth]
        bm25 = [i for i, _ in self.bm25.search(query, len(self.passages))]
        return rrf_fuse([bm25, dense], self.rrf_k)[:depth]

    def search(
        self, query: str, k: int = TOP_K, exclude: frozenset[str] = frozenset()
    ) -> list[Passage]:
        """The k best passages, best first, none of `exclude` (ids)."""
        hits = self.ranking(query, k + len(exclude))
        found = [self.passages[i] for i in hits if self.passages[i].id not in exclude]
        return found[:k]

    def prompt(self, question: str, k: int = TOP_K) -> str:
        """`open_book_prompt` with the question's top-k passages."""
        return open_book_prompt(question, self.search(question, k))

    # ------------------------------------------------------------------------- on disk
    def save(self, model_dir: Path) -> Path:
        """Write `<model_dir>/retrieval/`; returns that folder."""
        out = Path(model_dir) / RETRIEVAL_DIR
        lines = [
            json.dumps({"id": p.id, "title": p.title, "text": p.text}, ensure_ascii=False)
            for p in self.passages
        ]
        data = ("\n".join(lines) + "\n" if lines else "").encode("utf-8")
        atomic.write_bytes(out / PASSAGES_FILE, data)
        bm25 = self.bm25
        meta = {
            "format": FORMAT_VERSION,
            "kind": self.kind,
            "passages": len(self.passages),
            "sha256": hashlib.sha256(data).hexdigest(),
            "bm25": {"k1": bm25.k1, "b": bm25.b, "title_weight": bm25.title_weight},
        }
        if self.dense is not None:
            meta["embedding"] = self.dense.save(out)
            meta["rrf_k"] = self.rrf_k
        else:  # a BM25 index saved over an embedding one leaves nothing stale behind
            (out / EMBEDDINGS_FILE).unlink(missing_ok=True)
            shutil.rmtree(out / EMBEDDER_DIR, ignore_errors=True)
        atomic.write_text(out / INDEX_FILE, json.dumps(meta, indent=2) + "\n")
        return out

    @classmethod
    def load(cls, model_dir: Path) -> PassageIndex:
        """The index saved in `<model_dir>/retrieval/`; a JupiterError naming the fix when
        it is missing or damaged."""
        folder = Path(model_dir) / RETRIEVAL_DIR
        index_path, passages_path = folder / INDEX_FILE, folder / PASSAGES_FILE
        if not index_path.is_file() or not passages_path.is_file():
            raise JupiterError(
                f"{model_dir} has no retrieval index ({folder}/): open-book mode needs a model "
                "trained by `jupiter train` (which saves the domain's passages beside it)"
            )
        meta = json.loads(index_path.read_text(encoding="utf-8"))
        data = passages_path.read_bytes()
        kind = meta.get("kind")
        if kind not in KINDS or hashlib.sha256(data).hexdigest() != meta.get("sha256"):
            raise JupiterError(
                f"the retrieval index in {folder} is damaged (its passages do not match "
                f"{INDEX_FILE}): train again, or delete the folder"
            )
        rows = [json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()]
        dense = None
        if kind != "bm25":
            dense = DenseIndex.load(folder, meta.get("embedding") or {}, len(rows))
        passages = (Passage(r["id"], r["title"], r["text"]) for r in rows)
        index = cls(passages, dense, kind, int(meta.get("rrf_k", RRF_K)))
        params = meta.get("bm25", {})
        index.bm25.k1 = float(params.get("k1", index.bm25.k1))
        index.bm25.b = float(params.get("b", index.bm25.b))
        index.bm25.title_weight = float(params.get("title_weight", index.bm25.title_weight))
        return index


def has_index(model_dir: Path) -> bool:
    return (Path(model_dir) / RETRIEVAL_DIR / INDEX_FILE).is_file()
