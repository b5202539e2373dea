"""Dense retrieval for open book: a sentence-transformers embedder, the passages' embeddings
(L2-normalised, so cosine similarity is a dot product) saved as safetensors, and reciprocal
rank fusion for `retrieval.kind: hybrid`.

sentence-transformers is optional (`pip install "jupiter[retrieval]"`) and imported here,
when an embedding index is built or loaded. The embedder is read from a folder or the local
Hugging Face cache (models/reference.py), never downloaded.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from jupiter import atomic
from jupiter.config import MISSING_EMBEDDINGS
from jupiter.errors import JupiterError
from jupiter.models.reference import locate_model

EMBEDDINGS_FILE = "embeddings.safetensors"
EMBEDDER_DIR = "embedder"  # a copy of a local embedder folder, so the model dir stands alone
TENSOR = "embeddings"
RRF_K = 60  # Cormack, Clarke & Buettcher 2009, "Reciprocal Rank Fusion outperforms ..."

Progress = Callable[[int, int], None]  # (done, total)


def sentence_transformer_class() -> Any:
    """SentenceTransformer, or a JupiterError naming the install command."""
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        raise JupiterError(f"an embedding retrieval index {MISSING_EMBEDDINGS}") from None
    return SentenceTransformer


def normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (an all-zero row stays zero), as float32."""
    v = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.maximum(norms, 1e-12)


def rrf_fuse(rankings: Sequence[Sequence[int]], k: int = RRF_K) -> list[int]:
    """Reciprocal rank fusion: every item scores sum(1 / (k + rank)) over the rankings that
    hold it (rank 1 = best); best first, ties to the lower item."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores, key=lambda item: (-scores[item], item))


def passage_text(title: str, text: str) -> str:
    """What is embedded for a passage: its title on the first line, as DPR embeds
    "title [SEP] text" (Karpukhin et al. 2020); the embedder truncates long ones."""
    return f"{title}\n{text}" if title else text


class Embedder:
    """A loaded sentence-transformers model and the reference it came from."""

    def __init__(self, model: Any, ref: str, folder: Path | None, batch_size: int = 32) -> None:
        self.model = model
        self.ref = ref  # as the config wrote it, recorded in the manifest
        self.folder = folder  # a local folder to copy beside the model; None: the Hub cache
        self.batch_size = batch_size
        prompts = getattr(model, "prompts", None) or {}
        # models trained with instructions ("query: ", "passage: ") declare them
        self.query_prompt = prompts.get("query") or None
        self.document_prompt = prompts.get("document") or prompts.get("passage") or None

    @classmethod
    def load(cls, ref: str, batch_size: int = 32, folder: Path | None = None) -> Embedder:
        """The embedder `ref` names (a folder or a cached Hub id), or the copy in `folder`."""
        st = sentence_transformer_class()
        if folder is not None:
            path, local = folder, True
        else:
            try:
                found = locate_model(ref, base_dir=None)
            except JupiterError as err:
                raise JupiterError(f"retrieval.embedding_model: {err}") from None
            if found.gguf:
                raise JupiterError(
                    f"retrieval.embedding_model: {ref} is a GGUF model: an embedder is a "
                    "sentence-transformers folder or Hub id"
                )
            path, local = found.path, found.kind == "dir"
        try:
            model = st(str(path), local_files_only=True)
        except (OSError, ValueError, KeyError) as err:
            raise JupiterError(
                f"retrieval.embedding_model: cannot load {path} as a sentence-transformers "
                f"model ({type(err).__name__}: {str(err).splitlines()[0]})"
            ) from None
        return cls(model, ref, path if local else None, batch_size)

    def encode(self, texts: Sequence[str], prompt: str | None = None) -> np.ndarray:
        """Unit-norm float32 embeddings of `texts`, one forward pass per batch_size texts."""
        kwargs: dict[str, Any] = {"prompt": prompt} if prompt else {}
        out = self.model.encode(
            list(texts),
            batch_size=self.batch_size,
            show_progress_bar=False,
            convert_to_numpy=True,
            normalize_embeddings=False,
            **kwargs,
        )
        return normalise(out)

    def encode_passages(
        self, texts: Sequence[str], on_progress: Progress | None = None
    ) -> np.ndarray:
        """Every passage, batch by batch, reporting (done, total) after each batch."""
        parts: list[np.ndarray] = []
        for start in range(0, len(texts), self.batch_size):
            parts.append(self.encode(texts[start : start + self.batch_size], self.document_prompt))
            if on_progress is not None:
                on_progress(min(start + self.batch_size, len(texts)), len(texts))
        if not parts:
            return np.zeros((0, self.dimension()), dtype=np.float32)
        return np.concatenate(parts)

    def encode_query(self, query: str) -> np.ndarray:
        return self.encode([query], self.query_prompt)[0]

    def dimension(self) -> int:
        get = getattr(self.model, "get_embedding_dimension", None)
        get = get or self.model.get_sentence_embedding_dimension
        return int(get())


class DenseIndex:
    """Unit-norm passage embeddings; `ranking` orders every passage by cosine to a query."""

    def __init__(self, embedder: Embedder, vectors: np.ndarray) -> None:
        self.embedder = embedder
        self.vectors = vectors

    @classmethod
    def build(
        cls, embedder: Embedder, texts: Sequence[str], on_progress: Progress | None = None
    ) -> DenseIndex:
        return cls(embedder, embedder.encode_passages(texts, on_progress))

    def scores(self, query: str) -> np.ndarray:
        """Cosine similarity of the query to every passage."""
        return self.vectors @ self.embedder.encode_query(query)

    def ranking(self, query: str) -> list[int]:
        """Every passage, most similar first; ties go to the lower index."""
        return np.argsort(-self.scores(query), kind="stable").tolist()

    # ------------------------------------------------------------------------- on disk
    def save(self, folder: Path) -> dict[str, Any]:
        """Embeddings (and a local embedder's copy) into `folder`; the manifest entry."""
        from safetensors.numpy import save

        data = save({TENSOR: np.ascontiguousarray(self.vectors, dtype=np.float32)})
        atomic.write_bytes(folder / EMBEDDINGS_FILE, data)
        source = self.embedder.folder
        if source is not None:
            _copy_folder(source, folder / EMBEDDER_DIR)
        count, dim = self.vectors.shape
        return {
            "model": self.embedder.ref,
            "dir": EMBEDDER_DIR if source else None,
            "dim": int(dim),
            "count": int(count),
            "file": EMBEDDINGS_FILE,
            "sha256": hashlib.sha256(data).hexdigest(),
            "batch_size": self.embedder.batch_size,
        }

    @classmethod
    def load(cls, folder: Path, meta: dict[str, Any], passages: int) -> DenseIndex:
        """The index `meta` describes; a JupiterError when the file does not match it."""
        from safetensors.numpy import load

        path = folder / str(meta.get("file", EMBEDDINGS_FILE))
        fix = "train again, or delete the folder"
        if not path.is_file():
            raise JupiterError(f"the retrieval index in {folder} lacks {path.name}: {fix}")
        data = path.read_bytes()
        if hashlib.sha256(data).hexdigest() != meta.get("sha256"):
            raise JupiterError(
                f"the retrieval index in {folder} is damaged ({path.name} does not match its "
                f"checksum): {fix}"
            )
        vectors = load(data)[TENSOR]
        want = (meta.get("count"), meta.get("dim"))
        if vectors.ndim != 2 or vectors.shape != want or vectors.shape[0] != passages:
            raise JupiterError(
                f"the retrieval index in {folder} does not match its manifest: {path.name} "
                f"holds {vectors.shape[0]} vectors of dimension {vectors.shape[-1]}, the "
                f"manifest says {want[0]} of dimension {want[1]}, for {passages} passages: {fix}"
            )
        local = folder / EMBEDDER_DIR if meta.get("dir") else None
        embedder = Embedder.load(str(meta.get("model", "")), int(meta.get("batch_size", 32)), local)
        if embedder.dimension() != vectors.shape[1]:
            raise JupiterError(
                f"the embedder of the retrieval index in {folder} ({embedder.ref}) gives "
                f"vectors of dimension {embedder.dimension()}, the index holds "
                f"{vectors.shape[1]}: {fix}"
            )
        return cls(embedder, vectors)


def _copy_folder(source: Path, dest: Path) -> None:
    """`source` copied to `dest` through a temporary sibling (a re-save into the folder it
    was loaded from is a no-op)."""
    if dest.exists() and dest.resolve() == source.resolve():
        return
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(source, tmp, ignore=shutil.ignore_patterns(".git", ".cache"))
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)
