"""Workspaces for the dashboard tests: one finished run of a real tiny cycle (`jupiter start`
on four stdlib modules, 12 training steps: about 8 s), copies of it to write into, and a
small workspace written through the store's API with markup in its texts."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from jupiter.dashboard.server import DashboardServer, start_in_thread, url_of
from jupiter.dashboard.state import Board
from jupiter.records import Document, Example
from jupiter.store import Store

JUPITER = shutil.which("jupiter", path=str(Path(sys.executable).parent)) or "jupiter"
TINY_YAML = """\
name: tiny
topics: [python]
system_prompt: You are an expert on Python.
sources:
  - type: python_stdlib
    topics: false
    docstrings: true
    modules: [json, textwrap, string, functools]
chunking: {max_chars: 800, overlap: 50, heldout_fraction: 0.3}
generator: {type: extractive, max_questions_per_chunk: 2, continuation: true}
max_examples: 300
filters: {min_chars: 100, min_answer_chars: 20}
model: {preset: tiny, vocab_size: 512, context_length: 64}
train: {max_steps: 12, micro_batch_size: 8, warmup_steps: 2, checkpoint_every: 6,
        log_every: 2, eval_every: 6}
eval: {max_items: 8, heldout_max_bytes: 2000, general_max_bytes: 2000, max_new_tokens: 8}
promotion: {metric: mc_accuracy, margin: -1.0}
cycles: 1
"""
# markup a document could hold: shown as text, never run
SCRIPT = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'


@dataclass(frozen=True)
class Run:
    home: Path  # JUPITER_HOME
    yaml: Path
    root: Path  # the workspace: runs/tiny

    @property
    def db(self) -> Path:
        return self.root / "jupiter.sqlite"

    @property
    def metrics(self) -> Path:
        return self.root / "cycles" / "cycle-001" / "train" / "metrics.jsonl"


def jupiter(args: list[str], home: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, JUPITER_HOME=str(home), COLUMNS="200", OMP_NUM_THREADS="1")
    return subprocess.run(
        [JUPITER, *args], cwd=home, env=env, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture(scope="session")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """A real cycle, start to decision (the student is promoted: margin -1)."""
    home = tmp_path_factory.mktemp("dashboard-run")
    yaml = home / "tiny.yaml"
    yaml.write_text(TINY_YAML)
    r = jupiter(["start", "--domain", str(yaml), "--auto"], home)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return Run(home, yaml, home / "runs" / "tiny")


def query(db: Path, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Rows read straight from the store file, apart from the dashboard's own reading."""
    con = sqlite3.connect(db)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


@pytest.fixture
def run_copy(finished_run: Run, tmp_path: Path) -> Run:
    """The finished run's store and metrics in a fresh workspace, for tests that write."""
    root = tmp_path / "runs" / "tiny"
    (root / "cycles" / "cycle-001" / "train").mkdir(parents=True)
    src, dst = sqlite3.connect(finished_run.db), sqlite3.connect(root / "jupiter.sqlite")
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()
    copy = Run(tmp_path, finished_run.yaml, root)
    shutil.copy(finished_run.metrics, copy.metrics)
    return copy


Serve = Callable[..., str]


@pytest.fixture
def serve() -> Iterator[Serve]:
    """serve(root, name="tiny") -> the URL of a dashboard running in this process."""
    running: list[tuple[DashboardServer, Board]] = []

    def start(root: Path, name: str = "tiny", **kw: Any) -> str:
        board = Board(root, name, **kw)
        server = start_in_thread(board)
        running.append((server, board))
        return url_of(server)

    yield start
    for server, board in running:
        server.shutdown()
        server.server_close()
        board.close()


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


def state(url: str, since: str = "") -> dict[str, Any]:
    status, _, body = get(f"{url}api/state?since={since}")
    assert status == 200, body
    doc: dict[str, Any] = json.loads(body)
    return doc


def changed(url: str, since: str, timeout: float = 20.0) -> dict[str, Any]:
    """The next document after version `since` (a slow store is rebuilt at most every
    few build times: ask until it comes, as the page does)."""
    deadline = time.monotonic() + timeout
    while True:
        doc = state(url, since)
        if not doc.get("unchanged") or time.monotonic() > deadline:
            return doc
        time.sleep(0.1)


def qa(q: str, a: str, cycle: int = 1) -> Example:
    return Example(
        kind="qa", generator="extractive", chunk_id=f"c-{q[:8]}", template="what_does",
        messages=[{"role": "user", "content": q}, {"role": "assistant", "content": a}],
        cycle=cycle,
    )  # fmt: skip


@pytest.fixture
def markup_workspace(tmp_path: Path) -> Path:
    """A workspace written through the store's API whose document, examples, drop samples
    and lineage reason hold markup."""
    root = tmp_path / "runs" / "inject"
    with Store(root / "jupiter.sqlite") as s:
        s.add_documents([Document("local", "/docs/evil.md", SCRIPT, f"about {SCRIPT}")])
        exs = [
            qa(f"What is {SCRIPT}?", f"It is {SCRIPT} indeed."),
            qa("What is json?", "A format."),
        ]
        s.add_examples(exs)
        s.set_status([(exs[0].id, "rejected", "too_short"), (exs[1].id, "accepted", "")])
        s.start_cycle(1, "extractive")
        s.mark_stage(1, "filter", {"examined": 2})
        s.record_filter_stats(1, "filter", {"accepted": 1, "too_short": 1},
                              {"too_short": [exs[0].content()]})  # fmt: skip
        s.add_generator("extractive", "extractive", "", 0, reason=f"first {SCRIPT}")
        s.activate_generator("extractive", reason=f"first {SCRIPT}")
    return root


def report_row(rnd: int, islands: list[str], skipped: list[str], loss: float) -> dict[str, Any]:
    """A row as the coordinator writes it (cluster/coordinator.py report_row)."""
    return {
        "round": rnd, "islands": islands, "rejected": {}, "skipped": skipped,
        "aggregate": {"method": "mean"}, "bytes_up": 1000, "bytes_down": 3000, "bytes": 4000,
        "allreduce_bytes": 40000, "reduction": 10.0,
        "tokens_per_s": {n: 100.0 * (k + 1) for k, n in enumerate(islands)},
        "train_loss": {n: loss + 0.1 for n in islands}, "wait_s": {n: 0.5 for n in islands},
        "digests": {}, "global_digest": "", "heldout_loss": loss, "time": time.time(),
    }  # fmt: skip


@pytest.fixture
def cluster_workspace(tmp_path: Path) -> Path:
    """Workspace "c" after two sync rounds of islands gpu (two nodes) and mac, mac skipped
    in round 1 (written twice, as a coordinator restarted mid-round does); the plan and
    gpu's heartbeat in the default sync store (the run's own folder)."""
    from jupiter.cluster import protocol as P
    from jupiter.cluster.syncstore import SyncStore

    root = tmp_path / "runs" / "c"
    Store(root / "jupiter.sqlite").close()
    train = root / "cycles" / "cycle-001" / "train"
    sync = SyncStore(str(train / "sync"))
    plan = {"rounds": 3, "sync": {"inner_steps": 20, "outer": "nesterov", "aggregate": "mean"},
            "islands": [{"name": "gpu", "engine": "torch", "nodes": ["a", "b"], "max_steps": 60},
                        {"name": "mac", "engine": "mlx", "nodes": ["m1"], "max_steps": 60}]}  # fmt: skip
    sync.put_json(P.PLAN, plan)
    sync.put_json(P.heartbeat("gpu"), {"round": 2, "step": 45, "time": time.time() - 3})
    rows = [
        {"round": -1, "heldout_loss": 6.0, "time": time.time()},
        report_row(0, ["gpu", "mac"], [], 5.0),
        report_row(1, ["gpu"], ["mac"], 4.5),
        report_row(1, ["gpu"], ["mac"], 4.4),
    ]
    (train / "cluster_report.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root
