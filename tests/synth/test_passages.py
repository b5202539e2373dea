"""Open-book mode: the passage index saved beside a model, and the open-book prompt."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupiter.errors import JupiterError
from jupiter.records import Chunk
from jupiter.synth.passages import PassageIndex, has_index, open_book_prompt

TEXTS = {
    "gzip": "gzip compresses files with the deflate algorithm; --best compresses hardest.",
    "tar": "tar bundles many files into one archive and can call gzip to compress it.",
    "grep": "grep prints the lines of files that match a regular expression pattern.",
    "ls": "ls lists the entries of a directory, sorted by name unless told otherwise.",
}


def chunks() -> list[Chunk]:
    return [
        Chunk(f"doc-{name}", "local", f"file:{name}.txt", name, 0, len(text), text)
        for name, text in TEXTS.items()
    ]


def test_prompt_carries_the_retrieved_passages_in_rank_order() -> None:
    index = PassageIndex.from_chunks(chunks())
    question = "How does gzip compress files?"
    hits = index.search(question, k=2)
    assert [p.title for p in hits] == ["gzip", "tar"]  # gzip: title and body; tar: body
    prompt = index.prompt(question, k=2)
    assert prompt.startswith("Passages:\n[1] gzip: ")
    assert prompt.endswith("\n\nQuestion: How does gzip compress files?")
    gzip_at, tar_at = prompt.index(TEXTS["gzip"]), prompt.index(TEXTS["tar"])
    assert gzip_at < tar_at
    assert f"[2] tar: {TEXTS['tar']}" in prompt
    assert TEXTS["grep"] not in prompt and TEXTS["ls"] not in prompt


def test_no_passage_found_leaves_the_bare_question() -> None:
    index = PassageIndex.from_chunks(chunks())
    assert index.search("quantum chromodynamics", k=3) == []
    assert index.prompt("quantum chromodynamics") == "quantum chromodynamics"
    assert open_book_prompt("q?", []) == "q?"


def test_exclude_skips_passages_and_still_returns_k() -> None:
    index = PassageIndex.from_chunks(chunks())
    gold = chunks()[0].id
    got = index.search("gzip compress files tar grep", k=2, exclude=frozenset({gold}))
    assert len(got) == 2 and gold not in {p.id for p in got}


def test_saved_index_loads_without_the_workspace(tmp_path: Path) -> None:
    index = PassageIndex.from_chunks(chunks())
    folder = index.save(tmp_path / "model")
    assert sorted(f.name for f in folder.iterdir()) == ["index.json", "passages.jsonl"]
    rows = [json.loads(line) for line in (folder / "passages.jsonl").read_text().splitlines()]
    assert [r["title"] for r in rows] == list(TEXTS)
    assert rows[0] == {"id": chunks()[0].id, "title": "gzip", "text": TEXTS["gzip"]}
    meta = json.loads((folder / "index.json").read_text())
    assert (meta["kind"], meta["passages"]) == ("bm25", 4)
    assert has_index(tmp_path / "model")
    loaded = PassageIndex.load(tmp_path / "model")
    for q in ("How does gzip compress files?", "list a directory", "match a pattern"):
        assert loaded.prompt(q) == index.prompt(q)
        assert loaded.bm25.scores(q).tolist() == index.bm25.scores(q).tolist()


def test_missing_or_damaged_index_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(JupiterError, match="has no retrieval index"):
        PassageIndex.load(tmp_path)
    folder = PassageIndex.from_chunks(chunks()).save(tmp_path)
    with (folder / "passages.jsonl").open("a") as f:
        f.write('{"id": "x", "title": "x", "text": "injected"}\n')
    with pytest.raises(JupiterError, match="damaged"):
        PassageIndex.load(tmp_path)
