"""Every local collector through the collect and generate stages of one workspace: the
documents keep their provenance, dropped records are counted by reason in the store, and
logs and Q&A datasets queue their own training examples."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pytest
from rich.console import Console

from jupiter.config import load_domain
from jupiter.improve.stages import collect_stage, generate_stage
from jupiter.improve.workspace import Workspace


def git(repo: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.strip()


@pytest.fixture
def sources(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    (repo / "docs" / "guide.md").write_text(
        "# Guide\n\nThe cache module stores results keyed by the arguments of a call. "
        "Entries expire after the configured time to live.\n"
    )
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "docs")
    rows = [
        {"q": "What does the cache store?", "a": "Results keyed by the call's arguments."},
        {"q": "When do entries expire?", "a": "After the configured time to live."},
    ]
    (tmp_path / "qa.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows) + "{not json\n" + '{"q": "no answer"}\n'
    )
    logs = [
        {
            "code": "def square(x):\n    return x * x\n\nprint(square(4))\n",
            "language": "python",
            "stdout": "16\n",
            "stderr": "",
            "exit_code": 0,
            "timestamp": "2026-11-01T10:00:00Z",
            "task": "Write a function that squares a number.",
        },
        {
            "code": "print(1/0)\n",
            "language": "python",
            "stdout": "",
            "exit_code": 1,
            "stderr": "ZeroDivisionError",
            "timestamp": "2026-11-01T11:00:00Z",
        },
    ]
    (tmp_path / "exec.jsonl").write_text("".join(json.dumps(r) + "\n" for r in logs))
    books = [
        {
            "agent": "a1",
            "domain": "cache",
            "score": 0.9,
            "success_rate": 0.9,
            "interactions": 50,
            "content": "Check the cache before calling the backend.",
        },
        {
            "agent": "a2",
            "domain": "cache",
            "score": 0.2,
            "success_rate": 0.5,
            "interactions": 3,
            "content": "Always call the backend.",
        },
    ]
    (tmp_path / "books.jsonl").write_text("".join(json.dumps(r) + "\n" for r in books))
    sha = git(repo, "rev-parse", "HEAD")
    (tmp_path / "d.yaml").write_text(f"""
name: sources
sources:
  - {{type: git, url: repo, ref: {sha}, include: ["*.md"]}}
  - {{type: dataset, path: qa.jsonl, columns: {{question: q, answer: a}}}}
  - {{type: exec_logs, path: exec.jsonl}}
  - {{type: playbooks, path: books.jsonl, min_score: 0.5}}
chunking: {{heldout_fraction: 0.0}}
max_examples: 50
""")
    return tmp_path / "d.yaml"


def test_local_collectors_through_the_stages(
    sources: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path))
    ws = Workspace(load_domain(str(sources)), console=Console(file=io.StringIO()))
    info = collect_stage(ws, 1)
    by_source: dict[str, list[str]] = {}
    for doc in ws.store.iter_documents():
        by_source.setdefault(doc.source, []).append(doc.uri)
    assert len(by_source["git"]) == 1 and "@" in by_source["git"][0]
    assert by_source["git"][0].endswith(":docs/guide.md")
    assert len(by_source["dataset"]) == 2 and len(by_source["exec_logs"]) == 1
    assert len(by_source["playbooks"]) == 1
    assert info["rejected_records"] == {
        "bad_json": 1,
        "missing_field": 1,
        "failed_run": 1,
        "below_min_score": 1,
    }
    stats = dict(
        ws.store.db.execute(
            "SELECT reason, count FROM filter_stats WHERE stage = 'collect'"
        ).fetchall()
    )
    assert stats == info["rejected_records"]
    ws.store.start_cycle(1, "extractive")
    gen = generate_stage(ws, 1)
    assert gen["direct"] == 3  # one example per good log and per Q&A row
    queued = {e.generator: e for e in ws.store.iter_examples(status="pending")}
    log_ex = queued["exec_logs"]
    assert log_ex.messages[0]["content"] == "Write a function that squares a number."
    assert "def square" in log_ex.messages[1]["content"] and "16" in log_ex.messages[1]["content"]
    ws.close()


def test_held_out_dataset_rows_never_become_training_examples(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jupiter.collect.chunking import split_of

    monkeypatch.setenv("JUPITER_HOME", str(tmp_path))
    rows = [
        {
            "q": f"What does option number {i} of the tool set?",
            "a": f"It sets the {i}th limit of the cache to a larger value.",
        }
        for i in range(24)
    ]
    (tmp_path / "qa.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "d.yaml").write_text("""
name: heldout-rows
sources:
  - {type: dataset, path: qa.jsonl, columns: {question: q, answer: a}}
chunking: {heldout_fraction: 0.5}
max_examples: 50
""")
    ws = Workspace(load_domain(str(tmp_path / "d.yaml")), console=Console(file=io.StringIO()))
    collect_stage(ws, 1)
    docs = list(ws.store.iter_documents(source="dataset"))
    held = {d.meta["question"] for d in docs if split_of(d.id, 0.5) == "heldout"}
    kept = {d.meta["question"] for d in docs} - held
    assert len(docs) == 24 and held and kept  # both splits are present
    ws.store.start_cycle(1, "extractive")
    gen = generate_stage(ws, 1)
    queued = [e for e in ws.store.iter_examples(status="pending") if e.generator == "dataset"]
    assert gen["direct"] == len(kept) == len(queued)
    assert {e.question for e in queued} == kept  # no held-out question reaches training
    ws.close()
