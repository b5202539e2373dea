"""The dashboard's JSON endpoint on a finished real run: every number equals what the store
and metrics.jsonl hold; it changes when the run writes; the store is only ever read."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time

import pytest
from dashboard_runs import Run, Serve, changed, get, qa, query, state

from jupiter.dashboard.state import Board
from jupiter.store import Store
from jupiter.train.metrics import MetricsLogger, read_metrics

pytestmark = pytest.mark.slow  # the session's run takes about 8 s


def test_cycles_figures_and_decision_equal_the_store(finished_run: Run, serve: Serve) -> None:
    doc = state(serve(finished_run.root, cycles=1))
    (cycle,) = doc["cycles"]
    assert cycle["n"] == 1 and cycle["status"] == "done"
    assert [s["name"] for s in cycle["stages"]] == [
        "collect",
        "generate",
        "filter",
        "train",
        "eval",
        "decide",
    ]
    stored = {
        m: json.loads(r) for m, r in query(finished_run.db, "SELECT model, report FROM evals")
    }
    assert [m["model"] for m in cycle["models"]] == [
        "untrained",
        "student:cycle-001",
        "generator:extractive",
    ]
    for row in cycle["models"]:
        rep = stored[row["model"]]
        for key in ("bpb", "qa_f1", "qa_exact", "mc_accuracy", "general_bpb"):
            assert row["figures"][key] == {"value": rep[key], "ci": rep[f"{key}_ci"]}
        assert (row["n_qa"], row["n_mc"], row["mc_chance"]) == (8, 8, 0.25)
    assert stored["student:cycle-001"]["qa_f1_ci"] is not None  # intervals are shown
    (decide,) = query(finished_run.db, "SELECT info FROM stages WHERE stage = 'decide'")
    info = json.loads(decide[0])
    dec = cycle["decision"]
    assert info["promoted"] and dec["outcome"] == "promoted"
    assert dec["reason"] == info["reason"] and dec["difference_ci"] == info["difference_ci"]
    assert dec["new_generator"] == "model:cycle-001"
    vs_gen = {
        c["metric"]: c for c in cycle["comparisons"] if c["comparison"] == "student_vs_generator"
    }
    (ev,) = query(finished_run.db, "SELECT info FROM stages WHERE stage = 'eval'")
    paired = json.loads(ev[0])["comparisons"]["student_vs_generator"]["metrics"]
    assert set(vs_gen) == set(paired)
    assert vs_gen["mc_accuracy"]["ci"] == paired["mc_accuracy"]["ci"]
    assert vs_gen["mc_accuracy"]["verdict"] == paired["mc_accuracy"]["verdict"]
    overview = doc["overview"]
    (docs,), (exs,) = (
        query(finished_run.db, "SELECT COUNT(*) FROM documents"),
        query(finished_run.db, "SELECT COUNT(*) FROM examples"),
    )
    assert (overview["documents"], overview["examples"]) == (docs[0], exs[0])
    assert overview["active_generator"] == "model:cycle-001"
    assert overview["cycles_done"] == overview["cycles_planned"] == 1


def test_curves_equal_metrics_jsonl(finished_run: Run, serve: Serve) -> None:
    doc = state(serve(finished_run.root))
    (curve,) = doc["curves"]
    assert curve["run"] == "cycle-001" and curve["path"] == "cycles/cycle-001/train/metrics.jsonl"
    rows = read_metrics(finished_run.metrics)
    train = [r for r in rows if r["kind"] == "train"]
    held = [r for r in rows if r["kind"] == "heldout"]
    assert len(train) == 6 and len(held) == 2  # log_every 2, eval_every 6, 12 steps
    assert curve["train"]["step"] == [r["step"] for r in train]
    assert curve["train"]["loss"] == [r["loss"] for r in train]
    assert curve["train"]["tokens_per_s"] == [r["tokens_per_s"] for r in train]
    assert curve["heldout"] == {"step": [6, 12], "loss": [r["loss"] for r in held]}
    assert curve["last"]["step"] == 12 and curve["last"]["loss"] == train[-1]["loss"]
    # the store's metrics table holds the same training rows
    stored = dict(
        query(
            finished_run.db,
            "SELECT step, value FROM metrics WHERE run = 'cycle-001' AND name = 'loss'",
        )
    )
    assert stored == dict(zip(curve["train"]["step"], curve["train"]["loss"], strict=True))


def test_queue_generation_and_lineage_equal_the_store(finished_run: Run, serve: Serve) -> None:
    doc = state(serve(finished_run.root, max_examples=300))
    q, db = doc["queue"], finished_run.db
    assert q["by_status"] == dict(query(db, "SELECT status, COUNT(*) FROM examples GROUP BY 1"))
    assert set(q["by_status"]) == {"used", "rejected"}
    rejected = query(
        db, "SELECT reason, COUNT(*) FROM examples WHERE status = 'rejected' GROUP BY 1 ORDER BY 1"
    )
    assert [(r["reason"], r["count"]) for r in q["by_reason"]] == rejected
    assert {r["reason"] for r in q["by_reason"]} >= {"too_short"}
    for reason, _ in rejected:  # a few samples of each reason, from the rejected rows
        texts = q["reason_samples"][reason]
        assert 1 <= len(texts) <= 3
        (first,) = query(
            db,
            "SELECT messages, text, kind FROM examples WHERE reason = ? "
            "ORDER BY created_at, rowid LIMIT 1",
            (reason,),
        )
        body = (
            first[1]
            if first[2] == "text"
            else "\n".join(m["content"] for m in json.loads(first[0]))
        )
        assert texts[0] == body[:400] or texts[0] == body[:399] + "…"
    assert len(q["status_samples"]["used"]) == 3
    filt = next(s for s in q["stages"] if s["stage"] == "filter")
    stats = dict(query(db, "SELECT reason, count FROM filter_stats WHERE stage = 'filter'"))
    assert {r["reason"]: r["count"] for r in filt["rows"]} == stats
    assert filt["total"] == sum(stats.values())
    gen = doc["generation"]
    (c1,) = gen["cycles"]
    (info,) = query(db, "SELECT info FROM stages WHERE stage = 'generate'")
    made = json.loads(info[0])
    assert c1["done"] and c1["stage"]["made"] == made["made"] and c1["stage"]["new"] == made["new"]
    assert c1["queued_total"] == sum(q["by_status"].values())
    assert c1["llm_calls"] == 0 and gen["llm"] == [] and gen["max_examples"] == 300
    gens = query(db, "SELECT id, parent, status, active FROM generators ORDER BY created_at")
    lin = doc["lineage"]
    assert [
        (g["id"], g["parent"], g["status"], int(g["active"])) for g in lin["generators"]
    ] == gens
    assert [e["action"] for e in lin["events"]] == ["initial", "promoted"]


def test_unchanged_answer_then_new_version_when_the_run_writes(run_copy: Run, serve: Serve) -> None:
    url = serve(run_copy.root)
    first = state(url)
    assert state(url, first["version"]) == {"version": first["version"], "unchanged": True}
    with Store(run_copy.db) as writer:  # the run writing while the page is open
        writer.add_examples([qa("What does json.loads do?", "It parses a JSON document.", 2)])
    second = changed(url, first["version"])
    assert second["version"] != first["version"]
    assert second["queue"]["by_status"]["pending"] == 1
    logger = MetricsLogger(run_copy.metrics.parent, [], run_name="cycle-001", config={})
    with logger:
        logger.log(14, {"loss": 4.25, "tokens_per_s": 54321.0})
    third = changed(url, second["version"])
    (c,) = third["curves"]
    assert (c["last"]["step"], c["last"]["loss"], c["last"]["tokens_per_s"]) == (14, 4.25, 54321.0)
    assert c["train"]["step"][-2:] == [12, 14]


def test_the_store_is_read_only_and_never_blocks_a_writer(run_copy: Run, serve: Serve) -> None:
    digest = hashlib.sha256(run_copy.db.read_bytes()).hexdigest()
    url = serve(run_copy.root)
    for _ in range(3):
        state(url)
    assert hashlib.sha256(run_copy.db.read_bytes()).hexdigest() == digest
    board = Board(run_copy.root, "tiny")
    try:
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            board.store.db.execute("DELETE FROM examples")
        # a reader inside its snapshot: the run's write goes through at once
        board.store.db.execute("BEGIN")
        board.store.db.execute("SELECT COUNT(*) FROM examples").fetchone()
        t0 = time.perf_counter()
        with Store(run_copy.db) as writer:
            writer.db.execute("PRAGMA busy_timeout = 0")
            assert writer.add_examples([qa("q during a read", "an answer", 1)]) == 1
        assert time.perf_counter() - t0 < 5
        board.store.db.execute("COMMIT")
    finally:
        board.close()


def test_headers_routes_and_rebinding_guard(finished_run: Run, serve: Serve) -> None:
    url = serve(finished_run.root)
    status, headers, body = get(url)
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert (
        b'<script src="app.js" defer></script>' in body and b"http" not in body.split(b"<body")[0]
    )
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    assert headers["X-Content-Type-Options"] == "nosniff"
    status, headers, js = get(url + "app.js")
    assert status == 200 and headers["Content-Type"].startswith("text/javascript")
    assert b"innerHTML" not in js and b"http://www.w3.org/2000/svg" in js  # no other URL
    assert get(url + "style.css")[0] == 200
    assert get(url + "nothing")[0] == 404
    # a page elsewhere that rebinds its own name to 127.0.0.1 gets nothing
    status, _, body = get(url + "api/state", {"Host": "attacker.example:8765"})
    assert status == 403 and b"documents" not in body
    assert get(url + "api/state", {"Host": "localhost:1"})[0] == 200


def test_many_pages_polling_at_once(finished_run: Run, serve: Serve) -> None:
    url = serve(finished_run.root)
    versions: list[str] = []

    def poll() -> None:
        for _ in range(5):
            versions.append(state(url)["version"])

    threads = [threading.Thread(target=poll) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(versions) == 20 and len(set(versions)) == 1
