"""An LLM teacher behind a real OpenAI-compatible server drives the generate and filter
stages: answers parsed strictly and filtered as they stream into the queue, a kill -9 at a
random point costs no answered call and loses no example, and the LLM judge filters."""

from __future__ import annotations

import io
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from fakellm import FakeLLM, read_log
from jupiter.config import load_domain
from jupiter.improve.stages import collect_stage, filter_stage, generate_stage
from jupiter.improve.workspace import Workspace
from smalldocs import TOPICS


def make_domain(tmp_path: Path, base_url: str, requests: int, extra: str = "") -> Path:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    for name, text in TOPICS.items():
        (docs / f"{name}.md").write_text(f"# {name.title()}\n\n{text}\n")
    (tmp_path / "d.yaml").write_text(f"""
name: llmgen
sources: [{{type: local, path: docs}}]
chunking: {{heldout_fraction: 0.0}}
generator:
  type: llm
  continuation: false
  num_requests: {requests}
  llm: {{base_url: "{base_url}", concurrency: 2, max_retries: 3}}
{extra}""")
    return tmp_path / "d.yaml"


def workspace(yaml: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    monkeypatch.setenv("JUPITER_HOME", str(home))
    return Workspace(load_domain(str(yaml)), console=Console(file=io.StringIO()))


def first_generation(ws: Workspace) -> dict[str, Any]:
    """Collect, start cycle 1 and run its generate stage."""
    collect_stage(ws, 1)
    ws.store.start_cycle(1, "x")
    return generate_stage(ws, 1)


def outcome_counts(ws: Workspace) -> dict[str, int]:
    rows = ws.store.db.execute(
        "SELECT CASE status WHEN 'rejected' THEN reason ELSE status END, COUNT(*) "
        "FROM examples GROUP BY 1"
    ).fetchall()
    return {r[0]: r[1] for r in rows}


def test_generate_stage_parses_filters_and_caches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeLLM(malformed_every=7) as llm:
        ws = workspace(make_domain(tmp_path, llm.base_url, 30), tmp_path, monkeypatch)
        info = first_generation(ws)
        assert (info["requests"], info["calls"], info["cache_hits"], info["failed"]) == (
            30,
            30,
            0,
            0,
        )
        counts = outcome_counts(ws)
        # seeds 0..29: the teacher answers prose to seeds 0, 7, 14, 21, 28
        assert counts["malformed:no_json"] == 5
        assert sum(counts.values()) == 30 and counts["accepted"] >= 15
        assert set(counts) <= {"accepted", "malformed:no_json", "near_duplicate", "exact_duplicate"}
        assert info["counts"] == counts
        stats = {
            r["reason"]: r["count"] for r in ws.store.filter_stats(1) if r["stage"] == "generate"
        }
        assert stats == counts
        bad = next(
            e for e in ws.store.iter_examples(status="rejected") if e.reason == "malformed:no_json"
        )
        assert bad.messages[1]["content"].startswith("Sure! Here is a question")
        acc = next(ws.store.iter_examples(status="accepted"))
        assert acc.template == "grounded_qa" and acc.generator == "llm:openai:" + llm.base_url
        assert acc.messages[1]["content"] in " ".join(TOPICS.values())
        # again: every answer comes from the cache and nothing is decided twice
        again = generate_stage(ws, 1)
        assert (again["calls"], again["cache_hits"], again["new"], llm.count) == (0, 30, 0, 30)
        assert outcome_counts(ws) == counts
        ws.close()


def run_cli(args: list[str], home: Path, **kw: object) -> subprocess.Popen[str]:
    env = os.environ | {"JUPITER_HOME": str(home)}
    return subprocess.Popen(
        [sys.executable, "-m", "jupiter.cli", *args],
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        **kw,
    )  # type: ignore[call-overload]


def accepted(db: Path) -> set[str]:
    with sqlite3.connect(db) as con:
        return {r[0] for r in con.execute("SELECT id FROM examples WHERE status = 'accepted'")}


@pytest.mark.slow
def test_kill_9_mid_generation_repeats_no_answered_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    n = 40
    log = tmp_path / "calls.jsonl"
    with FakeLLM(log=log, delay=0.08, malformed_every=9) as llm:
        yaml = make_domain(tmp_path, llm.base_url, n)
        home = tmp_path / "killed"
        assert run_cli(["collect", "--domain", str(yaml)], home).wait(120) == 0
        proc = run_cli(["generate", "--domain", str(yaml)], home)
        db = home / "runs" / "llmgen" / "jupiter.sqlite"
        kill_after = random.Random().randint(12, 30)
        deadline = time.time() + 120
        while len(read_log(log)) < kill_after and time.time() < deadline:
            time.sleep(0.02)
        # examples reach the queue while generation goes on: a trainer could start now
        while not accepted(db) and time.time() < deadline:
            time.sleep(0.02)
        assert proc.poll() is None, "the run ended before it could be killed"
        assert accepted(db)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        first = read_log(log)
        with sqlite3.connect(db) as con:
            cached = {r[0] for r in con.execute("SELECT key FROM llm_cache")}
        in_flight = len(first) - len(cached)
        assert 0 <= in_flight <= 2  # concurrency 2: at most two calls were unanswered
        out, _ = run_cli(["generate", "--domain", str(yaml)], home).communicate(timeout=300)
        calls = read_log(log)
        keys = [c["key"] for c in calls]
        assert len(set(keys)) == n  # every planned request was asked
        assert len(calls) == n + in_flight, out  # and none answered before was asked again
        repeated = {k for k in keys if keys.count(k) > 1}
        assert len(repeated) == in_flight and repeated <= {c["key"] for c in first}
        resumed = accepted(db)

        ref_home = tmp_path / "reference"
        ws = workspace(yaml, ref_home, monkeypatch)
        first_generation(ws)
        ws.close()
        reference = accepted(ref_home / "runs" / "llmgen" / "jupiter.sqlite")
    assert resumed == reference and len(resumed) >= 15
    with sqlite3.connect(db) as con:
        total = con.execute("SELECT COUNT(*) FROM examples").fetchone()[0]
    assert total == n  # one row per answer: nothing decided twice, nothing lost


def test_llm_judge_drops_low_scores_in_the_filter_stage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeLLM() as llm:
        yaml = make_domain(tmp_path, llm.base_url, 1)
        text = (
            yaml.read_text()
            .replace("type: llm", "type: extractive")
            .replace("continuation: false", "continuation: true")
        )
        yaml.write_text(
            text + "filters: {judge: {enabled: true, threshold: 3}, dedup: {near: false}}\n"
        )
        ws = workspace(yaml, tmp_path, monkeypatch)
        first_generation(ws)
        info = filter_stage(ws, 1)
        chunks = {c.id: c for c in ws.store.iter_chunks()}
        judged = [
            e
            for e in ws.store.iter_examples(cycle=1)
            if e.kind == "qa" and e.reason in ("", "judge_low_score")
        ]
        low = {e.id for e in judged if e.reason == "judge_low_score"}
        # the teacher scores 2 whatever quotes the page about the wrong way to lock a file
        assert low and low == {e.id for e in judged if "wrong way" in chunks[e.chunk_id].text}
        assert info["counts"]["judge_low_score"] == len(low)
        texts = [e for e in ws.store.iter_examples(cycle=1) if e.kind == "text"]
        assert texts and all(e.status == "accepted" for e in texts)  # raw text is not judged
        calls = llm.count
        assert calls == len(judged)
        # a re-run of the judge asks nothing again
        from jupiter.improve.generator import judge_pending

        reasons, scores = judge_pending(ws, judged)
        assert llm.count == calls and sorted(set(scores)) == [2, 5]
        ws.close()


def test_unreachable_teacher_is_one_clear_line(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    yaml = make_domain(tmp_path, f"http://127.0.0.1:{port}/v1", 5)
    assert run_cli(["collect", "--domain", str(yaml)], tmp_path).wait(120) == 0
    proc = run_cli(["generate", "--domain", str(yaml)], tmp_path)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode != 0 and "Traceback" not in out
    assert f"the LLM server at http://127.0.0.1:{port}/v1 is unreachable" in out
    with sqlite3.connect(tmp_path / "runs" / "llmgen" / "jupiter.sqlite") as con:
        assert con.execute("SELECT COUNT(*) FROM examples").fetchone()[0] == 0


def test_a_local_transformers_teacher_through_the_stage(
    tmp_path: Path, tiny_model_dirs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model dir loaded in-process: its answers go through the same parser and queue. A
    random tiny model writes no JSON, so every answer is a counted reject with its text."""
    yaml = make_domain(tmp_path, "unused", 6)
    text = yaml.read_text().replace(
        'llm: {base_url: "unused", concurrency: 2, max_retries: 3}',
        f'llm: {{backend: transformers, model: "{tiny_model_dirs["qwen2"]}", max_tokens: 8, '
        "max_batch: 4, concurrency: 2}",
    )
    yaml.write_text(text)
    ws = workspace(yaml, tmp_path, monkeypatch)
    info = first_generation(ws)
    assert (info["requests"], info["calls"]) == (6, 6) and info["generator"].startswith(
        "llm:transformers:"
    )
    rows = list(ws.store.iter_examples(cycle=1))
    assert len(rows) == 6 and all(
        r.status == "rejected" and r.reason.startswith("malformed:") for r in rows
    )
    assert info["completion_tokens"] > 0 and ws.store.cache_size() == 6
    ws.close()


def test_data_report_shows_the_generate_stage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jupiter.data.report import data_report

    with FakeLLM(malformed_every=4) as llm:
        ws = workspace(make_domain(tmp_path, llm.base_url, 12), tmp_path, monkeypatch)
        first_generation(ws)
        ws.store.mark_stage(1, "generate", {})
        rep = {r.stage: r for r in data_report(ws.store)}["generate"]
        counts = outcome_counts(ws)
        assert rep.dropped["malformed:no_json"] == 3 == counts["malformed:no_json"]
        assert rep.kept == counts["accepted"] and rep.total == 12
        assert rep.samples["malformed:no_json"][0].startswith("Sure! Here is")
        ws.close()
