"""The embedding retrieval index (retrieval.kind: embedding | hybrid): passage vectors from a
tiny random sentence-transformers model built here, cosine top-k, reciprocal rank fusion,
the index saved into a student dir and loaded back, and the errors users can act on."""

from __future__ import annotations

import functools
import hashlib
import io
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rich.console import Console
from safetensors.numpy import load_file

from jupiter.config import DomainConfig, RetrievalConfig, RetrievalKind, load_domain
from jupiter.errors import JupiterError
from jupiter.eval.qa import MCItem, QAItem
from jupiter.improve.workspace import Workspace
from jupiter.records import Chunk, Document
from jupiter.synth.embedding import Embedder, passage_text, rrf_fuse
from jupiter.synth.passages import PassageIndex
from jupiter.synth.raft import raft_examples
from tinyhf import EMBED_DIM, save_tiny_embedder

TEXTS = {
    "gzip": "gzip compresses files with the deflate algorithm; --best compresses hardest.",
    "tar": "tar bundles many files into one archive and can call gzip to compress it.",
    "grep": "grep prints the lines of files that match a regular expression pattern.",
    "ls": "ls lists the entries of a directory, sorted by name unless told otherwise.",
    "sed": "sed edits a stream of text line by line with substitution commands.",
    "find": "find walks a directory tree and prints the files matching its tests.",
}
QUERIES = [
    "How does gzip compress files?",
    "list a directory sorted by name",
    "match a regular expression in lines",
    "edit text with substitution",
]
# float32 forward passes of different batch shapes agree to about 1e-6
ATOL = 1e-5


def chunks() -> list[Chunk]:
    return [
        Chunk(f"doc-{name}", "local", f"file:{name}.txt", name, 0, len(text), text)
        for name, text in TEXTS.items()
    ]


@pytest.fixture(scope="module")
def embedder_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    words = [*TEXTS, *TEXTS.values(), *QUERIES]
    return save_tiny_embedder(tmp_path_factory.mktemp("embedder") / "tiny-embedder", words)


def config(embedder_dir: Path, kind: RetrievalKind = "embedding") -> RetrievalConfig:
    return RetrievalConfig(kind=kind, embedding_model=str(embedder_dir), batch_size=4)


@functools.cache
def st_model(folder: Path) -> Any:
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(folder), device="cpu")


def brute_force(embedder_dir: Path, query: str) -> list[int]:
    """Passages by cosine to the query, from the embedder's raw (unnormalised) vectors."""
    model = st_model(embedder_dir)
    p = model.encode([passage_text(c.title, c.text) for c in chunks()])
    q = model.encode([query])[0]
    cos = p @ q / (np.linalg.norm(p, axis=1) * np.linalg.norm(q))
    return np.argsort(-cos, kind="stable").tolist()


def test_saved_embeddings_are_the_embedders_unit_vectors(
    embedder_dir: Path, tmp_path: Path
) -> None:
    index = PassageIndex.from_chunks(chunks(), config(embedder_dir))
    folder = index.save(tmp_path / "student")
    assert sorted(f.name for f in folder.iterdir()) == [
        "embedder",
        "embeddings.safetensors",
        "index.json",
        "passages.jsonl",
    ]
    saved = load_file(str(folder / "embeddings.safetensors"))["embeddings"]
    want = st_model(embedder_dir).encode(
        [f"{t}\n{x}" for t, x in TEXTS.items()], normalize_embeddings=True
    )
    assert saved.shape == (len(TEXTS), EMBED_DIM) and saved.dtype == np.float32
    np.testing.assert_allclose(saved, want, atol=ATOL)
    np.testing.assert_allclose(np.linalg.norm(saved, axis=1), 1.0, atol=ATOL)
    meta = json.loads((folder / "index.json").read_text())
    emb = meta["embedding"]
    assert meta["kind"] == "embedding" and meta["passages"] == len(TEXTS)
    assert (emb["model"], emb["dir"], emb["dim"], emb["count"]) == (
        str(embedder_dir),
        "embedder",
        EMBED_DIM,
        len(TEXTS),
    )
    assert emb["sha256"] == hashlib.sha256((folder / emb["file"]).read_bytes()).hexdigest()
    # the embedder is copied, so the student dir stands alone
    assert (folder / "embedder" / "modules.json").read_text() == (
        embedder_dir / "modules.json"
    ).read_text()


def test_embedding_batches_report_progress(embedder_dir: Path) -> None:
    seen: list[tuple[int, int]] = []
    PassageIndex.from_chunks(chunks(), config(embedder_dir), lambda d, t: seen.append((d, t)))
    assert seen == [(4, 6), (6, 6)]  # batch_size 4


def test_top_k_is_the_brute_force_cosine_ranking(embedder_dir: Path) -> None:
    index = PassageIndex.from_chunks(chunks(), config(embedder_dir))
    ids = [c.id for c in chunks()]
    for q in QUERIES:
        order = brute_force(embedder_dir, q)
        assert [p.id for p in index.search(q, k=3)] == [ids[i] for i in order[:3]]
        # every passage is ranked, so k beyond the count gives them all
        assert [p.id for p in index.search(q, k=10)] == [ids[i] for i in order]
        skip = frozenset({ids[order[0]]})
        assert [p.id for p in index.search(q, 2, skip)] == [ids[i] for i in order[1:3]]


def test_reciprocal_rank_fusion_by_hand() -> None:
    # k 60: item 0 scores 1/61 + 1/62, item 2 1/63 + 1/61, item 1 1/62, item 3 1/63
    assert rrf_fuse([[0, 1, 2], [2, 0, 3]]) == [0, 2, 1, 3]
    # k 1: item 1 scores 1/2 + 1/3 = .833, item 0 1/3 + 1/4 = .583, item 2 1/4 + 1/2 = .75
    assert rrf_fuse([[1, 0, 2], [2, 1, 0]], k=1) == [1, 2, 0]
    # k 100: 1/101 + 1/103 (item 0) beats 1/102 + 1/102 (item 2) by a hair, ties go lower
    assert rrf_fuse([[0, 2], [9, 2, 0]], k=100) == [0, 2, 9]
    assert rrf_fuse([[5], [3]]) == [3, 5]


def test_hybrid_fuses_bm25_and_cosine_rankings(embedder_dir: Path) -> None:
    index = PassageIndex.from_chunks(chunks(), config(embedder_dir, "hybrid"))
    ids = [c.id for c in chunks()]
    for q in QUERIES:
        bm25 = [i for i, _ in index.bm25.search(q, len(ids))]
        fused = rrf_fuse([bm25, brute_force(embedder_dir, q)], 60)
        assert [p.id for p in index.search(q, 3)] == [ids[i] for i in fused[:3]]


def test_index_round_trips_through_a_student_dir(embedder_dir: Path, tmp_path: Path) -> None:
    import shutil

    source = tmp_path / "my-embedder"
    shutil.copytree(embedder_dir, source)
    index = PassageIndex.from_chunks(chunks(), config(source, "hybrid"))
    index.save(tmp_path / "student")
    shutil.rmtree(source)  # the loaded index reads the copy in retrieval/embedder/
    loaded = PassageIndex.load(tmp_path / "student")
    assert loaded.kind == "hybrid" and loaded.dense is not None and index.dense is not None
    np.testing.assert_array_equal(loaded.dense.vectors, index.dense.vectors)
    for q in QUERIES:
        assert loaded.search(q, 3) == index.search(q, 3)
        assert loaded.prompt(q, 2) == index.prompt(q, 2)
    # saved again (a later cycle's student), it copies its own embedder along
    loaded.save(tmp_path / "next")
    again = PassageIndex.load(tmp_path / "next")
    assert again.search(QUERIES[0], 3) == index.search(QUERIES[0], 3)
    # and a BM25 index saved over it leaves no stale vectors or embedder
    folder = PassageIndex.from_chunks(chunks()).save(tmp_path / "next")
    assert sorted(f.name for f in folder.iterdir()) == ["index.json", "passages.jsonl"]
    assert PassageIndex.load(tmp_path / "next").kind == "bm25"


def test_manifest_mismatch_is_one_clear_error(embedder_dir: Path, tmp_path: Path) -> None:
    folder = PassageIndex.from_chunks(chunks(), config(embedder_dir)).save(tmp_path)
    meta_path = folder / "index.json"
    good = json.loads(meta_path.read_text())
    for key, value in (("count", 5), ("dim", 16)):
        meta = json.loads(json.dumps(good))
        meta["embedding"][key] = value
        meta_path.write_text(json.dumps(meta))
        with pytest.raises(JupiterError, match="does not match its manifest") as err:
            PassageIndex.load(tmp_path)
        assert "holds 6 vectors of dimension 32" in str(err.value)
        assert "\n" not in str(err.value) and "train again" in str(err.value)
    meta_path.write_text(json.dumps(good))
    with (folder / "embeddings.safetensors").open("r+b") as f:
        f.seek(-4, 2)
        f.write(b"\0\0\0\1")
    with pytest.raises(JupiterError, match="damaged .*embeddings.safetensors"):
        PassageIndex.load(tmp_path)


def domain_yaml(root: Path, retrieval: str) -> Path:
    path = root / "t.yaml"
    path.write_text(
        "name: t\nsources: [{type: local, path: docs}]\neval: {open_book: true, top_k: 2}\n"
        f"retrieval: {retrieval}\n"
    )
    return path


def test_missing_package_or_model_is_one_line_naming_the_fix(
    embedder_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = PassageIndex.from_chunks(chunks(), config(embedder_dir)).save(tmp_path / "m")
    assert folder.is_dir()
    path = domain_yaml(tmp_path, "{kind: hybrid}")
    with pytest.raises(JupiterError) as err:
        load_domain(str(path))
    assert str(err.value) == (
        f"{path}: retrieval: kind hybrid needs embedding_model: a sentence-transformers folder "
        "or Hub id (e.g. sentence-transformers/all-MiniLM-L6-v2)"
    )
    # a Hub id not in the local cache: the resolver's message, before any stage runs
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    cfg = load_domain(str(domain_yaml(tmp_path, "{kind: embedding, embedding_model: org/emb}")))
    with pytest.raises(JupiterError, match=r"^retrieval.embedding_model: model 'org/emb' is not"):
        Workspace(cfg).check_models()
    with pytest.raises(JupiterError, match="hf download org/emb"):
        PassageIndex.from_chunks(chunks(), cfg.retrieval)

    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # not installed
    fix = 'needs the sentence-transformers package: pip install "jupiter[retrieval]"'
    with pytest.raises(JupiterError) as err:
        load_domain(str(path))
    assert str(err.value) == f"{path}: retrieval: kind embedding {fix}"
    with pytest.raises(JupiterError) as err:
        PassageIndex.load(tmp_path / "m")
    assert str(err.value) == f"an embedding retrieval index {fix}"
    # BM25, the default, needs nothing more
    assert DomainConfig.model_validate({"name": "t", "sources": [{"type": "python_stdlib"}]})
    assert PassageIndex.from_chunks(chunks()).search(QUERIES[0], 1)[0].title == "gzip"


def test_open_book_prompts_carry_the_embedding_passages(
    embedder_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """eval.open_book, the student's saved index and RAFT distractors all retrieve with
    `retrieval`: the passages in each prompt are the cosine top-k."""
    from jupiter.config import RaftConfig
    from jupiter.improve.passages import open_book, save_passages
    from jupiter.records import Example

    monkeypatch.setenv("JUPITER_HOME", str(tmp_path / "home"))
    (tmp_path / "emb").symlink_to(embedder_dir)  # a folder relative to the YAML
    path = domain_yaml(tmp_path, "{kind: embedding, embedding_model: emb, batch_size: 4}")
    ws = Workspace(load_domain(str(path)), console=Console(file=io.StringIO()))
    docs = [Document("local", f"file:{c.title}.txt", c.title, c.text) for c in chunks()]
    ws.store.add_documents(docs)
    ws.store.add_chunks(
        [Chunk(d.id, d.source, d.uri, d.title, 0, len(d.text), d.text) for d in docs]
    )
    question = QUERIES[1]
    order = brute_force(embedder_dir, question)
    texts = list(TEXTS.values())
    qa, mc = open_book(ws, [QAItem("q", question, "ls")], [MCItem("m", question, ["a", "b"], 0)])
    prompt = qa[0].question
    assert mc[0].question == prompt and prompt.endswith(f"\n\nQuestion: {question}")
    title = list(TEXTS)[order[0]]
    assert prompt.startswith(f"Passages:\n[1] {title}: {texts[order[0]]}\n[2] ")
    assert texts[order[1]] in prompt
    assert all(texts[i] not in prompt for i in order[2:])

    save_passages(ws, ws.student_dir(1))
    student = PassageIndex.load(ws.student_dir(1))
    assert student.kind == "embedding" and student.prompt(question, 2) == prompt

    gold_chunk = next(c for c in ws.store.iter_chunks(split="train") if c.title == "ls")
    chat = [{"role": "user", "content": question}, {"role": "assistant", "content": "x"}]
    ex = Example("qa", "extractive", gold_chunk.id, "what_does", chat)
    raft = RaftConfig(enabled=True, fraction=1.0, distractors=2, p_gold=0.0, passage_chars=0)
    (got,) = raft_examples(
        [ex], list(ws.store.iter_chunks(split="train")), raft, 0, ws.cfg.retrieval_config()
    )
    distractors = [texts[i] for i in order if list(TEXTS)[i] != "ls"][:2]
    assert all(d in got.question for d in distractors) and TEXTS["ls"] not in got.question
    ws.close()


def test_embedder_uses_the_models_own_query_prompt(embedder_dir: Path) -> None:
    embedder = Embedder.load(str(embedder_dir))
    assert embedder.folder == embedder_dir.resolve() and embedder.dimension() == EMBED_DIM
    assert (embedder.query_prompt, embedder.document_prompt) == (None, None)
    embedder.model.prompts = {"query": "query: ", "document": "passage: "}
    embedder = Embedder(embedder.model, "x", None)
    raw = embedder.model.encode(["query: gzip files"])[0]
    np.testing.assert_allclose(
        embedder.encode_query("gzip files"), raw / np.linalg.norm(raw), atol=ATOL
    )
