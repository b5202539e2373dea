"""The files the dashboard follows: metrics.jsonl read incrementally (whole lines only, a
rewritten file read again), long curves thinned, and a cluster run's islands and rounds."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from dashboard_runs import Serve, changed, qa, state

from jupiter.dashboard.files import JsonlTail, curve, thin
from jupiter.store import Store
from jupiter.train.metrics import MetricsLogger


def test_tail_reads_whole_lines_and_rereads_a_rewritten_file(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    tail = JsonlTail(path)
    assert tail.read() == []
    path.write_text('{"step": 1, "loss": 3.0}\n{"step": 2, "lo')  # the second being written
    assert tail.read() == [{"step": 1, "loss": 3.0}]
    with path.open("a") as f:
        f.write('ss": 2.5}\nnot json\n[1, 2]\n')
    assert tail.read() == [{"step": 1, "loss": 3.0}, {"step": 2, "loss": 2.5}]
    # a resumed run rewrites the file (atomically: a new inode) with fewer rows
    tmp = tmp_path / "new.jsonl"
    tmp.write_text('{"step": 1, "loss": 3.5}\n')
    os.replace(tmp, path)
    assert tail.read() == [{"step": 1, "loss": 3.5}]
    path.unlink()
    assert tail.read() == []


def test_thin_keeps_first_last_and_the_limit() -> None:
    points = list(range(10_001))
    shown = thin(points, 2000)
    assert len(shown) == 2000 and shown[0] == 0 and shown[-1] == 10_000
    assert shown == sorted(set(shown))
    assert thin(points[:50], 2000) == points[:50]


def test_curve_from_logger_rows(tmp_path: Path) -> None:
    with MetricsLogger(tmp_path, [], run_name="r", config={}) as log:
        for step in range(1, 5001):
            log.log(step, {"loss": 10.0 / step, "tokens_per_s": 1000.0 + step, "lr": 1e-3})
            if step % 1000 == 0:
                log.log(step, {"loss": 20.0 / step}, kind="heldout")
    rows = JsonlTail(tmp_path / "metrics.jsonl").read()
    c = curve("cycle-001", "x", rows)
    assert c["rows"] == 5005 and c["train_points"] == 5000
    assert len(c["train"]["step"]) == 2000 and c["train"]["step"][-1] == 5000
    assert c["last"]["loss"] == 10.0 / 5000 and c["last"]["tokens_per_s"] == 6000.0
    assert c["heldout"]["step"] == [1000, 2000, 3000, 4000, 5000]
    assert c["last_heldout"] == {"step": 5000, "loss": 20.0 / 5000}
    zero = curve("r", "x", [{"step": 1, "kind": "train", "loss": 0.0}, {"step": "2", "loss": 1.0}])
    assert zero["train"]["loss"] == [0.0] and zero["rows"] == 1  # a step must be a number


def test_cluster_islands_and_rounds(cluster_workspace: Path, serve: Serve) -> None:
    root = cluster_workspace
    train = root / "cycles" / "cycle-001" / "train"
    url = serve(root, "c")
    before = state(url)
    (c,) = before["cluster"]
    assert c["cycle"] == 1 and c["planned_rounds"] == 3 and c["start_heldout_loss"] == 6.0
    assert [(r["round"], r["heldout_loss"], r["skipped"]) for r in c["rounds"]] == [
        (0, 5.0, []),
        (1, 4.4, ["mac"]),
    ]
    assert c["rounds"][0]["tokens_per_s"] == 300.0 and c["rounds"][0]["reduction"] == 10.0
    gpu, mac = c["islands"]
    assert (gpu["name"], gpu["engine"], gpu["nodes"], gpu["rounds"], gpu["skipped"]) == (
        "gpu",
        "torch",
        ["a", "b"],
        2,
        0,
    )
    assert gpu["tokens_per_s"] == 100.0 and gpu["wait_s"] == 1.0
    assert gpu["train_loss"] == 4.4 + 0.1
    assert gpu["heartbeat"]["round"] == 2 and gpu["heartbeat"]["step"] == 45
    assert 2.5 < gpu["heartbeat"]["age_s"] < 60
    assert (mac["rounds"], mac["skipped"], mac["tokens_per_s"], mac["heartbeat"]) == (
        1,
        1,
        200.0,
        None,
    )
    assert c["sync"] == {"inner_steps": 20, "outer": "nesterov", "aggregate": "mean"}
    # an island's own metrics.jsonl is a learning curve of its own
    with MetricsLogger(train / "gpu", [], run_name="gpu", config={}) as log:
        log.log(1, {"loss": 3.0, "tokens_per_s": 10.0})
    doc = changed(url, before["version"])
    assert [cv["run"] for cv in doc["curves"]] == ["cycle-001/gpu"]


def test_no_workspace_is_one_line(tmp_path: Path) -> None:
    from jupiter.dashboard.state import Board
    from jupiter.errors import JupiterError

    with pytest.raises(JupiterError, match=r"no workspace yet for 'x' .* run `jupiter start"):
        Board(tmp_path / "runs" / "x", "x")
    assert not (tmp_path / "runs").exists()


def test_generation_cost_cache_hits_and_the_running_cycle(tmp_path: Path, serve: Serve) -> None:
    root = tmp_path / "runs" / "g"

    def answer(s: Store, key: str, model: str, prompt: int, completion: int) -> None:
        s.cache_response(
            key,
            "http",
            model,
            {"prompt": key},
            {"text": "a", "prompt_tokens": prompt, "completion_tokens": completion},
        )

    with Store(root / "jupiter.sqlite") as s:
        s.start_cycle(1, "llm:http:teacher")
        for i in range(4):
            answer(s, f"k{i}", "teacher", 100, 10 + i)
        s.add_examples([qa(f"q{i}", f"answer number {i}") for i in range(3)])
        s.mark_stage(
            1,
            "generate",
            {
                "generator": "llm:http:teacher",
                "requests": 6,
                "cache_hits": 2,
                "calls": 4,
                "retries": 1,
                "failed": 0,
                "completion_tokens": 46,
                "seconds": 1.5,
            },
        )
        s.finish_cycle(1)
        time.sleep(0.01)
        s.start_cycle(2, "llm:http:teacher")  # collected; generating now
        s.mark_stage(2, "collect", {"documents": 1})
        answer(s, "k9", "judge", 50, 5)
        s.add_examples([qa("q9", "answer nine", cycle=2)])
    doc = state(serve(root, "g", max_examples=500))
    gen = doc["generation"]
    c1, c2 = gen["cycles"]
    assert c1["done"] and c1["stage"] == {
        "generator": "llm:http:teacher",
        "requests": 6,
        "cache_hits": 2,
        "calls": 4,
        "retries": 1,
        "failed": 0,
        "completion_tokens": 46,
        "seconds": 1.5,
    }
    assert (c1["llm_calls"], c1["prompt_tokens"], c1["completion_tokens"]) == (4, 400, 46)
    assert c1["queued"] == [{"generator": "extractive", "status": "pending", "count": 3}]
    assert not c2["done"] and c2["stage"] == {} and c2["queued_total"] == 1
    assert (c2["llm_calls"], c2["prompt_tokens"], c2["completion_tokens"]) == (1, 50, 5)
    assert [
        (m["model"], m["calls"], m["prompt_tokens"], m["completion_tokens"]) for m in gen["llm"]
    ] == [("judge", 1, 50, 5), ("teacher", 4, 400, 46)]
    assert gen["cache_hits"] == 2 and gen["max_examples"] == 500
    assert gen["last_minute"] == {"calls": 5, "completion_tokens": 51}
    assert doc["overview"]["current_cycle"] == 2 and doc["overview"]["next_stage"] == "generate"
