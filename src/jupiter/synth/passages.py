"""Open-book mode: the domain's passages with their BM25 index, saved beside a model, and
the one prompt that puts the top-k passages before a question.

The same prompt serves `jupiter chat --open-book`, `jupiter serve --open-book`, the eval's
`eval.open_book` and RAFT training examples (synth/raft.py; Zhang et al. 2024, "RAFT:
Adapting Language Model to Domain Specific RAG"), so a student answers at inference from
the layout it trained on.

On disk, in `<model_dir>/retrieval/`: `passages.jsonl` (one {id, title, text} a line) and
`index.json` (the kind and BM25 parameters, the count and SHA-256 of passages.jsonl). The
index is rebuilt from the passages on load: BM25 over a few thousand chunks takes well
under a second, and plain text needs no pickle and no workspace.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from jupiter import atomic
from jupiter.errors import JupiterError
from jupiter.records import Chunk
from jupiter.synth.retrieval import BM25Index

RETRIEVAL_DIR = "retrieval"
PASSAGES_FILE = "passages.jsonl"
INDEX_FILE = "index.json"
FORMAT_VERSION = 1
TOP_K = 3  # passages in an open-book prompt unless told otherwise


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
    """BM25 (body + title) over passages; `search` returns the best passages for a query."""

    def __init__(self, passages: Iterable[Passage]) -> None:
        self.passages = list(passages)
        self.bm25 = BM25Index([p.text for p in self.passages], [p.title for p in self.passages])

    @classmethod
    def from_chunks(cls, chunks: Iterable[Chunk]) -> PassageIndex:
        return cls(Passage(c.id, c.title, c.text) for c in chunks)

    def __len__(self) -> int:
        return len(self.passages)

    def search(
        self, query: str, k: int = TOP_K, exclude: frozenset[str] = frozenset()
    ) -> list[Passage]:
        """The k best passages with a positive score, best first, none of `exclude` (ids)."""
        hits = self.bm25.search(query, k + len(exclude))
        found = [self.passages[i] for i, _ in hits if self.passages[i].id not in exclude]
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
            "format": FORMAT_VERSION, "kind": "bm25", "passages": len(self.passages),
            "sha256": hashlib.sha256(data).hexdigest(),
            "bm25": {"k1": bm25.k1, "b": bm25.b, "title_weight": bm25.title_weight},
        }  # fmt: skip
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
        if meta.get("kind") != "bm25" or hashlib.sha256(data).hexdigest() != meta.get("sha256"):
            raise JupiterError(
                f"the retrieval index in {folder} is damaged (its passages do not match "
                f"{INDEX_FILE}): train again, or delete the folder"
            )
        rows = [json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()]
        index = cls(Passage(r["id"], r["title"], r["text"]) for r in rows)
        params = meta.get("bm25", {})
        index.bm25.k1 = float(params.get("k1", index.bm25.k1))
        index.bm25.b = float(params.get("b", index.bm25.b))
        index.bm25.title_weight = float(params.get("title_weight", index.bm25.title_weight))
        return index


def has_index(model_dir: Path) -> bool:
    return (Path(model_dir) / RETRIEVAL_DIR / INDEX_FILE).is_file()
