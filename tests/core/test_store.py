"""The store: idempotent inserts, the queue's life cycle, transactions that roll back."""

from pathlib import Path

import pytest

from jupiter.records import Chunk, Document, Example
from jupiter.store import Store


def make_example(i: int, cycle: int = 1) -> Example:
    return Example(
        kind="qa",
        generator="extractive",
        chunk_id=f"c{i}",
        template="what_does",
        messages=[{"role": "user", "content": f"q{i}"}, {"role": "assistant", "content": f"a{i}"}],
        cycle=cycle,
    )


def test_wal_and_idempotent_documents(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as s:
        assert s.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        doc = Document("local", "/a.md", "a", "hello world")
        chunk = Chunk(doc.id, "local", "/a.md", "a", 0, 5, "hello")
        assert s.add_documents([doc]) == 1
        assert s.add_documents([doc]) == 0
        assert s.add_chunks([chunk, chunk]) == 1
        assert s.count("documents") == 1 and s.count("chunks") == 1
        assert s.get_chunk(chunk.id) == chunk
        assert list(s.iter_documents()) == [doc]


def test_queue_life_cycle(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as s:
        exs = [make_example(i) for i in range(4)]
        assert s.add_examples(exs) == 4
        assert s.add_examples(exs) == 0
        s.set_status(
            [
                (exs[0].id, "rejected", "too_short"),
                (exs[1].id, "accepted", ""),
                (exs[2].id, "accepted", ""),
            ]
        )
        s.mark_used([exs[1].id], "run-1")
        counts = s.example_counts()
        assert counts == {
            ("accepted", ""): 1,
            ("pending", ""): 1,
            ("rejected", "too_short"): 1,
            ("used", ""): 1,
        }
        used = s.db.execute("SELECT used_by FROM examples WHERE status='used'").fetchone()[0]
        assert used == "run-1"
        got = list(s.iter_examples(status="accepted"))
        assert [e.id for e in got] == [exs[2].id] and got[0].messages == exs[2].messages


def test_transaction_rolls_back(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as s:
        with pytest.raises(RuntimeError), s.transaction():
            s.add_examples([make_example(1)])
            raise RuntimeError("boom")
        assert s.count("examples") == 0


def test_cycles_stages_generators_evals(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as s:
        s.start_cycle(1, "extractive")
        s.mark_stage(1, "collect", {"documents": 3})
        assert s.stages(1) == {"collect": {"documents": 3}}
        s.finish_cycle(1)
        assert s.cycles()[0]["status"] == "done"
        s.add_generator("extractive", "extractive", "", 0)
        s.add_generator("model:cycle-001", "model", "/m", 1)
        s.activate_generator("extractive")
        s.activate_generator("model:cycle-001")
        assert s.active_generator()["id"] == "model:cycle-001"
        assert sum(g["active"] for g in s.generators()) == 1
        s.add_eval(1, "student:cycle-001", {"qa_f1": 0.25})
        assert s.evals(1)[0]["report"]["qa_f1"] == 0.25
        s.log_metrics("r", 10, {"loss": 2.5})
        assert s.metrics("r") == [{"step": 10, "name": "loss", "value": 2.5}]
        s.record_filter_stats(1, "filter", {"too_short": 2, "accepted": 5}, {"too_short": ["x"]})
        stats = {r["reason"]: r for r in s.filter_stats(1)}
        assert stats["too_short"]["count"] == 2 and stats["too_short"]["samples"] == ["x"]


def test_a_garbage_store_file_is_named_with_the_fix(tmp_path: Path) -> None:
    """A store overwritten with anything else: one JupiterError naming the file, not
    sqlite3's bare DatabaseError."""
    from jupiter.errors import JupiterError

    path = tmp_path / "jupiter.sqlite"
    path.write_bytes(b"not a database " * 100)
    with pytest.raises(JupiterError, match="not a readable Jupiter store") as err:
        Store(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)
    assert path.read_bytes() == b"not a database " * 100  # left as it was


def test_another_programs_database_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    """A SQLite file of someone else's at the store's path got the store's tables (and WAL
    mode) written into it by `generators` and `rollback`."""
    import sqlite3

    from jupiter.errors import JupiterError

    path = tmp_path / "jupiter.sqlite"
    con = sqlite3.connect(path)
    con.execute("create table notes (x text)")
    con.commit()
    con.close()
    before = path.read_bytes()
    with pytest.raises(JupiterError, match="another program's database") as err:
        Store(path)
    assert "notes" in str(err.value) and "\n" not in str(err.value)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["jupiter.sqlite"]
