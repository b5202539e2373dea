"""One bad record never stops a source: a JSON line nested deeper than
the parser can follow, or one whose text holds a lone surrogate (a `\\ud800` escape, which
UTF-8 and so the store cannot hold), is counted by reason and skipped; the records around
it are kept and stored."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from jupiter.collect import collect
from jupiter.collect.result import CollectResult
from jupiter.config import DomainConfig
from jupiter.store import Store

DEEP = "[" * 100_000 + "]" * 100_000  # RecursionError in json.loads
EXEC_CODE = "total = 0\nfor i in range(3):\n    total += i\nprint(total)\n"


def dataset_record(n: int) -> dict[str, Any]:
    return {"text": f"Record {n} explains how the widget spins and stops."}


def exec_record(n: int) -> dict[str, Any]:
    code = EXEC_CODE.replace("total", f"total{n}")
    return {"code": code, "stdout": "3\n", "exit_code": 0, "timestamp": 1715342400 + n}


def playbook_record(n: int) -> dict[str, Any]:
    return {"agent": f"agent{n}", "domain": "sql", "score": 0.9, "content": f"Playbook {n}."}


SOURCES = {
    "dataset": (dataset_record, {"columns": {"text": "text"}}),
    "exec_logs": (exec_record, {}),
    "playbooks": (playbook_record, {}),
}


def surrogate_line(record: dict[str, Any]) -> str:
    """The record as JSON with one text field ending in an escaped lone surrogate."""
    key = next(k for k in ("text", "code", "content") if k in record)
    text = json.dumps(record)
    return text.replace(json.dumps(record[key]), json.dumps(record[key])[:-1] + '\\ud800"')


def run(tmp_path: Path, kind: str, lines: list[str]) -> tuple[CollectResult, list[str]]:
    """Collect a JSONL source of these lines; store what it gives; the stored uris."""
    (tmp_path / "in.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    source = {"type": kind, "path": "in.jsonl", **SOURCES[kind][1]}
    cfg = DomainConfig.model_validate({"name": "t", "sources": [source]})
    cfg.base_dir = tmp_path
    rejects = CollectResult()
    docs, chunks = collect(cfg, rejects=rejects)
    with Store(tmp_path / "store.sqlite") as store:
        store.add_documents(docs)
        store.add_chunks(chunks)
        uris = [r[0] for r in store.db.execute("SELECT uri FROM documents ORDER BY uri")]
    return rejects, uris


@pytest.mark.parametrize("kind", sorted(SOURCES))
def test_deep_and_lone_surrogate_lines_are_counted_and_skipped(tmp_path: Path, kind: str) -> None:
    make = SOURCES[kind][0]
    good = [json.dumps(make(n)) for n in range(4)]
    lines = [good[0], DEEP, good[1], surrogate_line(make(9)), good[2], good[3]]
    rejects, uris = run(tmp_path, kind, lines)
    assert rejects.rejects == {"bad_json": 1, "bad_text": 1}
    path = tmp_path / "in.jsonl"
    assert rejects.samples == {"bad_json": [f"{path}:2"], "bad_text": [f"{path}:4"]}
    assert len(uris) == 4  # every good record around the bad ones is kept and stored


@pytest.mark.parametrize(("kind", "field"), [("dataset", "id"), ("playbooks", "agent")])
def test_a_value_nested_just_under_the_parser_limit(tmp_path: Path, kind: str, field: str) -> None:
    """Parsed, but too deep to print as an id or agent name: a bad record, not a crash."""
    make = SOURCES[kind][0]
    deep = json.dumps(make(1) | {field: "DEEP"}).replace('"DEEP"', "[" * 990 + "]" * 990)
    rejects, uris = run(tmp_path, kind, [json.dumps(make(0)), deep, json.dumps(make(2))])
    assert rejects.rejects == {"bad_json": 1} and len(uris) == 2


def test_dataset_json_array_and_csv_cells(tmp_path: Path) -> None:
    """A .json array nested too deep is one bad file; a lone surrogate in one of its records,
    or in a CSV cell's chat, drops that record only."""
    good = [dataset_record(n) for n in range(3)]
    bad = json.loads(surrogate_line(dataset_record(9)))
    (tmp_path / "rows.json").write_text(json.dumps([good[0], bad, good[1]]), encoding="utf-8")
    (tmp_path / "deep.json").write_text("[" + DEEP + "]", encoding="utf-8")
    with (tmp_path / "chats.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["chat"])
        for text in ("How do I spin?", "How do I stop?\\ud800", None):
            chat = DEEP if text is None else f'[{{"role": "user", "content": "{text}"}}]'
            w.writerow([chat])
    cfg = DomainConfig.model_validate(
        {
            "name": "t",
            "sources": [
                {"type": "dataset", "path": "rows.json", "columns": {"text": "text"}},
                {"type": "dataset", "path": "deep.json", "columns": {"text": "text"}},
                {"type": "dataset", "path": "chats.csv", "columns": {"messages": "chat"}},
            ],
        }
    )
    cfg.base_dir = tmp_path
    rejects = CollectResult()
    docs, _ = collect(cfg, rejects=rejects)
    assert [d.text for d in docs] == [good[0]["text"], good[1]["text"], "How do I spin?"]
    assert rejects.rejects == {"bad_text": 2, "bad_json": 1, "bad_messages": 1}
    assert rejects.samples["bad_json"] == [str(tmp_path / "deep.json")]
