"""The dataset source: JSONL, CSV, Parquet and saved `datasets` folders made in the test."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from jupiter.collect.dataset import collect_dataset
from jupiter.collect.result import CollectResult
from jupiter.config import DatasetSource, DomainConfig
from jupiter.errors import JupiterError

ROWS = [
    {"id": 7, "title": "Spin", "body": "Call spin(speed) to turn the widget."},
    {"id": 8, "title": "Stop", "body": "Call stop() to halt it."},
    {"id": 9, "title": "Reset", "body": "reset() puts the widget back at rest."},
]
CHAT = [
    {"role": "user", "content": "How do I spin?"},
    {"role": "assistant", "content": "Call spin(speed)."},
]


def domain(base: Path, **source: Any) -> tuple[DatasetSource, DomainConfig]:
    cfg = DomainConfig.model_validate({"name": "t", "sources": [{"type": "dataset", **source}]})
    cfg.base_dir = base
    src = cfg.sources[0]
    assert isinstance(src, DatasetSource)
    return src, cfg


def run(base: Path, **source: Any) -> CollectResult:
    return collect_dataset(*domain(base, **source))


def portable(result: CollectResult) -> list[tuple[str, str, dict[str, Any]]]:
    """The documents without the file they came from, to compare across formats."""
    return [
        (d.title, d.text, {k: v for k, v in d.meta.items() if k != "file"})
        for d in result.documents
    ]


MAPPING = {"text": "body", "id": "id", "title": "title"}


def test_jsonl_counts_every_dropped_line(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    lines = [
        json.dumps(ROWS[0]),
        "{not json",
        json.dumps({"id": 2, "title": "No body"}),
        "",  # blank: not a record
        json.dumps({"id": 3, "title": "Blank", "body": "   "}),
        json.dumps({"id": 4, "title": "Number", "body": 42}),
        json.dumps(ROWS[1]),
        "[1, 2]",  # valid JSON, but not an object
        json.dumps(ROWS[2]),
    ]
    path.write_text("\n".join(lines) + "\n")
    result = run(tmp_path, path="data.jsonl", columns=MAPPING)
    assert result.rejects == {"bad_json": 2, "missing_field": 1, "empty": 2}
    assert result.samples == {
        "bad_json": [f"{path}:2", f"{path}:8"],
        "missing_field": [f"{path}:3"],
        "empty": [f"{path}:5", f"{path}:6"],
    }
    assert [d.text for d in result.documents] == [r["body"] for r in ROWS]
    first = result.documents[0]
    assert first.source == "dataset"
    assert first.uri == f"{path}#7" and first.title == "Spin"
    assert first.meta == {"file": str(path), "row": 0, "id": "7"}
    assert [d.meta["row"] for d in result.documents] == [0, 5, 7]
    capped = run(tmp_path, path="data.jsonl", columns=MAPPING, max_documents=2)
    assert len(capped.documents) == 2 and capped.rejects["bad_json"] == 1


def test_csv_parquet_and_jsonl_give_the_same_documents(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "d.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    with (tmp_path / "d.csv").open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=["id", "title", "body"])
        writer.writeheader()
        writer.writerows(ROWS)
    pq.write_table(pa.Table.from_pylist(ROWS), tmp_path / "d.parquet", row_group_size=2)
    results = {
        s: run(tmp_path, path=f"d.{s}", columns=MAPPING) for s in ("jsonl", "csv", "parquet")
    }
    expected = [(r["title"], r["body"], {"row": i, "id": str(r["id"])}) for i, r in enumerate(ROWS)]
    for suffix, result in results.items():
        assert portable(result) == expected, suffix
        assert result.documents[1].uri == f"{tmp_path / f'd.{suffix}'}#8"
        assert result.rejects == {}
    # without id and title: the row index names the record
    plain = run(tmp_path, path="d.parquet", columns={"text": "body"})
    assert [(d.uri, d.title) for d in plain.documents][0] == (
        f"{tmp_path / 'd.parquet'}#0",
        "d.parquet#0",
    )
    missing = run(tmp_path, path="d.parquet", columns={"text": "nope"})
    assert missing.rejects == {"missing_field": 3} and not missing.documents
    # a folder of files: read in path order
    folder = run(tmp_path, path=".", columns=MAPPING)
    assert [d.meta["file"] for d in folder.documents] == [
        str(tmp_path / f"d.{s}") for s in ("csv", "jsonl", "parquet") for _ in ROWS
    ]


def test_saved_datasets_folder(tmp_path: Path) -> None:
    import datasets

    datasets.Dataset.from_list(ROWS).save_to_disk(str(tmp_path / "saved"))
    result = run(tmp_path, path="saved", columns=MAPPING)
    assert portable(result) == [
        (r["title"], r["body"], {"row": i, "id": str(r["id"])}) for i, r in enumerate(ROWS)
    ]
    assert result.documents[2].uri == f"{tmp_path / 'saved'}#9"
    split = datasets.DatasetDict({"train": datasets.Dataset.from_list(ROWS[:2])})
    split.save_to_disk(str(tmp_path / "dict"))
    both = run(tmp_path, path="dict", columns={"text": "body"})
    assert [d.uri for d in both.documents] == [f"{tmp_path / 'dict' / 'train'}#{i}" for i in (0, 1)]
    assert run(tmp_path, path="saved", columns={"text": "nope"}).rejects == {"missing_field": 3}


def test_question_answer_and_messages(tmp_path: Path) -> None:
    qa = [
        {"q": "What does spin do?", "a": "It turns the widget."},
        {"q": "What does stop do?", "a": ""},
    ]
    (tmp_path / "qa.jsonl").write_text("".join(json.dumps(r) + "\n" for r in qa))
    result = run(tmp_path, path="qa.jsonl", columns={"question": "q", "answer": "a"})
    [doc] = result.documents
    assert doc.text == "What does spin do?\n\nIt turns the widget."
    assert doc.meta == {
        "file": str(tmp_path / "qa.jsonl"),
        "row": 0,
        "question": "What does spin do?",
        "answer": "It turns the widget.",
    }
    assert result.rejects == {"empty": 1}

    chats = [{"conv": CHAT}, {"conv": "not a chat"}, {"conv": [{"role": "user"}]}]
    (tmp_path / "chat.jsonl").write_text("".join(json.dumps(r) + "\n" for r in chats))
    chat = run(tmp_path, path="chat.jsonl", columns={"messages": "conv"})
    [doc] = chat.documents
    assert doc.text == "How do I spin?\n\nCall spin(speed)."
    assert doc.meta["messages"] == CHAT
    assert chat.rejects == {"bad_messages": 2}
    with (tmp_path / "chat.csv").open("w", newline="") as fh:  # a CSV cell holds JSON
        csv.writer(fh).writerows([["conv"], [json.dumps(CHAT)]])
    assert (
        run(tmp_path, path="chat.csv", columns={"messages": "conv"}).documents[0].text == doc.text
    )


def test_bad_configuration_fails_at_once(tmp_path: Path) -> None:
    (tmp_path / "d.jsonl").write_text(json.dumps(ROWS[0]) + "\n")
    # a wrong column mapping is a config error, found when the YAML is read
    with pytest.raises(ValidationError, match=r"unknown role\(s\) body"):
        run(tmp_path, path="d.jsonl", columns={"text": "body", "body": "x"})
    with pytest.raises(
        ValidationError, match="exactly one of text, question \\+ answer, or messages"
    ):
        run(tmp_path, path="d.jsonl", columns={"question": "q"})
    with pytest.raises(ValidationError, match="exactly one of"):
        run(tmp_path, path="d.jsonl", columns={"text": "body", "messages": "m"})
    with pytest.raises(JupiterError, match="dataset source not found"):
        run(tmp_path, path="missing.jsonl")
    (tmp_path / "d.xlsx").write_text("x")
    with pytest.raises(JupiterError, match="unsupported file type"):
        run(tmp_path, path="d.xlsx")
    (tmp_path / "empty").mkdir()
    with pytest.raises(JupiterError, match="no .jsonl, .json, .parquet or .csv files"):
        run(tmp_path, path="empty")


@pytest.mark.parametrize(
    ("records", "said", "mapping"),
    [
        (
            [{"question": "What does spin do?", "answer": "It turns the widget."}],
            "(they have: question, answer); map them with columns: {question: question, answer: answer}",
            {"question": "question", "answer": "answer"},
        ),
        (
            [{"instruction": "Spin it.", "input": "", "output": "spin(1)"}],
            "(they have: instruction, input, output); map them with columns: "
            "{question: instruction, answer: output}",
            {"question": "instruction", "answer": "output"},
        ),
        (
            [{"messages": CHAT}],
            "(they have: messages); map them with columns: {messages: messages}",
            {"messages": "messages"},
        ),
        (
            [{"foo": 1}],
            "(they have: foo); map the roles text, question + answer, or messages",
            None,
        ),
    ],
)
def test_a_source_without_its_mapped_column_says_the_mapping_that_reads_it(
    tmp_path: Path, records: list[dict[str, Any]], said: str, mapping: dict[str, str] | None
) -> None:
    """Every record lacks `text` (the default mapping): the empty-corpus error names the
    fields the records have and, for a common shape, the mapping; which then reads them."""
    from jupiter.collect import collect

    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    _, cfg = domain(tmp_path, path="rows.jsonl")
    with pytest.raises(JupiterError) as err:
        collect(cfg, cache_dir=tmp_path / "cache")
    assert f"the records have no field 'text' {said}" in str(err.value)
    if mapping is not None:
        fixed = run(tmp_path, path="rows.jsonl", columns=mapping)
        assert len(fixed.documents) == len(records) and fixed.rejects == {}
    # a source that read some records gives no hint: its drops are counted, no more
    path.write_text(
        json.dumps({"text": "Call spin(speed)."}) + "\n" + json.dumps(records[0]) + "\n"
    )
    mixed = run(tmp_path, path="rows.jsonl")
    assert len(mixed.documents) == 1 and mixed.rejects == {"missing_field": 1} and not mixed.hint
