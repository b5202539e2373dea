"""Workspaces for the dashboard tests: one finished run of a real tiny cycle (`jupiter start`
on four stdlib modules, 12 training steps: about 8 s), copies of it to write into, a small
workspace written through the store's API with markup in its texts, and a cluster run's
files. The helpers are in dashboard_runs.py."""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dashboard_runs import SCRIPT, TINY_YAML, Run, Serve, jupiter, qa, report_row

from jupiter.dashboard.server import DashboardServer, start_in_thread, url_of
from jupiter.dashboard.state import Board
from jupiter.records import Document
from jupiter.store import Store


@pytest.fixture(scope="session")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """A real cycle, start to decision (the student is promoted: margin -1)."""
    home = tmp_path_factory.mktemp("dashboard-run")
    yaml = home / "tiny.yaml"
    yaml.write_text(TINY_YAML)
    r = jupiter(["start", "--domain", str(yaml), "--auto"], home)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return Run(home, yaml, home / "runs" / "tiny")


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
        s.record_filter_stats(
            1, "filter", {"accepted": 1, "too_short": 1}, {"too_short": [exs[0].content()]}
        )
        s.add_generator("extractive", "extractive", "", 0, reason=f"first {SCRIPT}")
        s.activate_generator("extractive", reason=f"first {SCRIPT}")
    return root


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
    plan = {
        "rounds": 3,
        "sync": {"inner_steps": 20, "outer": "nesterov", "aggregate": "mean"},
        "islands": [
            {"name": "gpu", "engine": "torch", "nodes": ["a", "b"], "max_steps": 60},
            {"name": "mac", "engine": "mlx", "nodes": ["m1"], "max_steps": 60},
        ],
    }
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
