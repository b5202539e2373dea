"""Helpers of the dashboard tests: the tiny domain of the real run, the run's paths, the
page's JSON, rows read straight from a store, examples and a coordinator's report rows."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jupiter.records import Example

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


def query(db: Path, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Rows read straight from the store file, apart from the dashboard's own reading."""
    con = sqlite3.connect(db)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


Serve = Callable[..., str]


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
        kind="qa",
        generator="extractive",
        chunk_id=f"c-{q[:8]}",
        template="what_does",
        messages=[{"role": "user", "content": q}, {"role": "assistant", "content": a}],
        cycle=cycle,
    )


def report_row(rnd: int, islands: list[str], skipped: list[str], loss: float) -> dict[str, Any]:
    """A row as the coordinator writes it (cluster/coordinator.py report_row)."""
    return {
        "round": rnd,
        "islands": islands,
        "rejected": {},
        "skipped": skipped,
        "aggregate": {"method": "mean"},
        "bytes_up": 1000,
        "bytes_down": 3000,
        "bytes": 4000,
        "allreduce_bytes": 40000,
        "reduction": 10.0,
        "tokens_per_s": {n: 100.0 * (k + 1) for k, n in enumerate(islands)},
        "train_loss": {n: loss + 0.1 for n in islands},
        "wait_s": {n: 0.5 for n in islands},
        "digests": {},
        "global_digest": "",
        "heldout_loss": loss,
        "time": time.time(),
    }
