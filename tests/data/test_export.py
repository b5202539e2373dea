"""export_examples: document-level splits, counts, valid files per format, determinism,
difficulty tags and balancing."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from jupiter.data.export import (
    SPLITS,
    balance,
    check_fractions,
    difficulty,
    doc_ids_of,
    export_examples,
    split_of,
)
from jupiter.data.formats import detect_format, to_messages
from jupiter.errors import JupiterError
from jupiter.records import Chunk, Document, Example
from jupiter.store import Store

FRACTIONS = (0.6, 0.2, 0.2)  # wide validation/test splits, so 30 documents fill all three


def qa(i: int, question: str = "", answer: str = "") -> Example:
    return Example(
        kind="qa",
        generator="extractive",
        chunk_id=f"chunk-{i}",
        template="what_does",
        messages=[
            {"role": "user", "content": question or f"What does function f{i} return?"},
            {"role": "assistant", "content": answer or f"It returns the value {i}."},
        ],
    )


def corpus(n: int = 200, docs: int = 30) -> tuple[list[Example], dict[str, str]]:
    """n examples (every tenth a text example) over `docs` documents, chunk i in doc i % docs."""
    examples = [qa(i) for i in range(n)]
    for i in range(0, n, 10):
        examples[i] = Example("text", "extractive", f"chunk-{i}", "continuation", text=f"T{i}")
    return examples, {f"chunk-{i}": f"doc-{i % docs}" for i in range(n)}


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_split_of_is_deterministic_and_follows_fractions() -> None:
    ids = [f"doc-{i}" for i in range(4000)]
    splits = [split_of(d, 7, (0.8, 0.1, 0.1)) for d in ids]
    assert splits == [split_of(d, 7, (0.8, 0.1, 0.1)) for d in ids]
    share = Counter(splits)
    assert 0.77 < share["train"] / 4000 < 0.83
    assert 0.08 < share["validation"] / 4000 < 0.12
    assert splits != [split_of(d, 8, (0.8, 0.1, 0.1)) for d in ids]  # the seed matters
    assert {split_of(d, 0, (1.0, 0.0, 0.0)) for d in ids} == {"train"}


def test_export_keeps_documents_in_one_split(tmp_path: Path) -> None:
    examples, docs = corpus()
    res = export_examples(examples, lambda ex: docs[ex.chunk_id], tmp_path, fractions=FRACTIONS)
    seen: dict[str, set[str]] = {}
    total = 0
    for split in SPLITS:
        rows = read_jsonl(tmp_path / f"{split}.jsonl")
        assert len(rows) == res.counts[split]
        assert len({r["source_document"] for r in rows}) == res.documents[split]
        for r in rows:
            seen.setdefault(r["source_document"], set()).add(split)
            assert set(r) - {"messages", "text"} == {"id", "source_document", "difficulty"}
        total += len(rows)
    assert all(len(s) == 1 for s in seen.values())
    assert len(seen) == 30 and sum(res.documents.values()) == 30
    assert total == 200 and sum(res.counts.values()) == 200
    assert min(res.counts.values()) > 0
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["counts"] == res.counts and manifest["documents"] == res.documents
    assert manifest["format"] == "messages" and manifest["seed"] == 0
    assert manifest["quality"]["count"] == 200 and manifest["quality"]["distinct_documents"] == 30
    assert sum(sum(d.values()) for d in manifest["difficulty"].values()) == 200
    assert manifest["skipped"] == {}
    assert res.files == [
        tmp_path / f for f in ("train.jsonl", "validation.jsonl", "test.jsonl")
    ] + [tmp_path / "manifest.json"]
    assert not [p for p in tmp_path.iterdir() if ".tmp-" in p.name]


def test_export_is_deterministic_for_a_seed(tmp_path: Path) -> None:
    examples, docs = corpus()

    def files(seed: int, out: Path) -> list[str]:
        export_examples(examples, lambda ex: docs[ex.chunk_id], out, fractions=FRACTIONS, seed=seed)
        return [(out / f"{s}.jsonl").read_text() for s in SPLITS]

    assert files(3, tmp_path / "a") == files(3, tmp_path / "b")
    assert files(3, tmp_path / "a") != files(4, tmp_path / "c")


@pytest.mark.parametrize(
    "fmt", ["messages", "alpaca", "sharegpt", "completions", "mistral", "text"]
)
def test_each_format_writes_rows_that_parse_back(tmp_path: Path, fmt: str) -> None:
    examples, docs = corpus()
    res = export_examples(
        examples,
        lambda ex: docs[ex.chunk_id],
        tmp_path,
        fmt=fmt,
        fractions=FRACTIONS,  # type: ignore[arg-type]
    )
    by_id = {ex.id: ex for ex in examples}
    rows = [r for s in SPLITS for r in read_jsonl(tmp_path / f"{s}.jsonl")]
    for r in rows:
        ex = by_id[r["id"]]
        record = {k: v for k, v in r.items() if k not in ("id", "source_document", "difficulty")}
        parsed = to_messages(record)
        assert parsed == (ex.text if ex.kind == "text" else ex.messages)
        if ex.kind == "qa":
            assert detect_format(record) == fmt
    skipped = json.loads((tmp_path / "manifest.json").read_text())["skipped"]
    expected_rows = {"messages": 200, "sharegpt": 200, "mistral": 200, "alpaca": 180}
    expected_rows |= {"completions": 180, "text": 20}
    assert len(rows) == expected_rows[fmt] == sum(res.counts.values())
    assert sum(skipped.values()) == 200 - expected_rows[fmt]
    if fmt == "alpaca":
        assert skipped == {"text example: alpaca holds no raw text": 20}


def test_system_prompt_is_prepended(tmp_path: Path) -> None:
    examples, docs = corpus(20, 5)
    export_examples(
        examples, lambda ex: docs[ex.chunk_id], tmp_path, fmt="alpaca", system_prompt="Be brief."
    )
    rows = [r for s in SPLITS for r in read_jsonl(tmp_path / f"{s}.jsonl")]
    assert len(rows) == 18 and {r["system"] for r in rows} == {"Be brief."}


def test_difficulty_levels() -> None:
    assert difficulty(qa(1, "What is x?", "A number.")) == "easy"
    assert difficulty(qa(1, "How many items are there?", "Three.")) == "easy"
    medium = qa(1, "How do I sort a list?", " ".join(["word"] * 60) + "\n```\nsorted(xs)\n```")
    assert difficulty(medium) == "medium"
    hard = qa(1, "Why and how compare x to y?", " ".join(["word"] * 200) + "\n    code()")
    assert difficulty(hard) == "hard"


def test_balance_levels_within_ten_percent() -> None:
    long = " ".join(["word"] * 200)
    examples = (
        [qa(i) for i in range(120)]
        + [qa(i, f"How does f{i} work?", " ".join(["w"] * 60)) for i in range(120, 170)]
        + [qa(i, f"Why is f{i} slow?", long + "\n```\nf()\n```") for i in range(170, 200)]
    )
    assert Counter(difficulty(ex) for ex in examples) == {"easy": 120, "medium": 50, "hard": 30}
    kept = balance(examples, seed=1)
    levels = Counter(difficulty(ex) for ex in kept)
    assert levels["hard"] == 30  # all of the rarest kept
    assert max(levels.values()) <= 1.1 * min(levels.values())
    assert levels == {"easy": 33, "medium": 33, "hard": 30}
    assert [ex.id for ex in kept] == [ex.id for ex in balance(examples, seed=1)]
    order = {ex.id: i for i, ex in enumerate(examples)}
    assert [order[ex.id] for ex in kept] == sorted(order[ex.id] for ex in kept)


def test_export_with_balance(tmp_path: Path) -> None:
    long = " ".join(["word"] * 200)
    examples = [qa(i) for i in range(90)] + [
        qa(i, f"Why is f{i} slow?", long + "\n```\nf()\n```") for i in range(90, 110)
    ]
    res = export_examples(examples, lambda ex: f"doc-{ex.chunk_id}", tmp_path, balance=True)
    assert sum(res.counts.values()) == 42  # 20 hard, 22 easy; no medium
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["balanced"] is True
    totals: Counter[str] = Counter()
    for split in SPLITS:
        totals.update(manifest["difficulty"][split])
    assert totals == {"easy": 22, "medium": 0, "hard": 20}


def test_doc_ids_of_goes_through_the_chunk(tmp_path: Path) -> None:
    doc = Document("local", "a.md", "A", "alpha beta gamma")
    chunk = Chunk(doc.id, "local", "a.md", "A", 0, 5, "alpha")
    with Store(tmp_path / "db.sqlite") as store:
        store.add_documents([doc])
        store.add_chunks([chunk])
        doc_of = doc_ids_of(store)
    ex = qa(0)
    ex.chunk_id = chunk.id
    assert doc_of(ex) == doc.id
    assert doc_of(qa(1)) == "chunk:chunk-1"


def test_a_long_document_is_split_by_section(tmp_path: Path) -> None:
    """One manual of 60 chunks: its examples go by runs of 10 consecutive chunks, so the
    export has validation and test rows; a short document still goes whole."""
    text = "x" * 6000
    manual = Document("local", "manual.md", "M", text)
    short = Document("local", "note.md", "N", "a short note")
    chunks = [
        Chunk(manual.id, "local", "manual.md", "M", 100 * k, 100 * k + 120, "c") for k in range(60)
    ]
    note = Chunk(short.id, "local", "note.md", "N", 0, 5, "a sho")
    with Store(tmp_path / "db.sqlite") as store:
        store.add_documents([manual, short])
        store.add_chunks([*reversed(chunks), note])  # the store's order is not the text's
        unit_of = doc_ids_of(store)
    examples = []
    for k, c in enumerate(chunks):
        ex = qa(k)
        ex.chunk_id = c.id
        examples.append(ex)
    units = [unit_of(ex) for ex in examples]
    assert units == [f"{manual.id}#{k // 10}" for k in range(60)]
    ex = qa(99)
    ex.chunk_id = note.id
    assert unit_of(ex) == short.id
    result = export_examples(examples, unit_of, tmp_path / "out", "messages", FRACTIONS, seed=3)
    assert (
        result.documents["train"] + result.documents["validation"] + result.documents["test"] == 6
    )
    assert sum(result.counts.values()) == 60 and min(result.counts.values()) > 0, result.counts
    rows = [r for s in SPLITS for r in read_jsonl(tmp_path / "out" / f"{s}.jsonl")]
    assert {r["source_document"] for r in rows} == set(units)


def test_bad_fractions_are_refused(tmp_path: Path) -> None:
    with pytest.raises(JupiterError, match="summing to 1"):
        export_examples([], str, tmp_path, fractions=(0.5, 0.2, 0.2))


@pytest.mark.parametrize(
    "fractions",
    [(float("nan"), 0.5, 0.5), (float("inf"), 0.0, 0.0), (1.1, -0.1, 0.0), (0.9, 0.2, 0.1)],
)
def test_split_fractions_must_be_finite_non_negative_and_sum_to_one(
    fractions: tuple[float, float, float],
) -> None:
    """`--split nan,0.5,0.5` passed: every comparison with NaN is false."""
    with pytest.raises(JupiterError, match="split fractions"):
        check_fractions(fractions)
    check_fractions((0.9, 0.05, 0.05))
