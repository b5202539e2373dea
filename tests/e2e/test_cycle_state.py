"""The cycle state machine: resume after an interruption, promotion of the student, and the
interactive mode, on a tiny domain (two stdlib modules, a tiny model, a few steps)."""

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from jupiter.config import load_domain
from jupiter.improve import cycle as cycle_mod
from jupiter.improve.workspace import Workspace

ROOT = Path(__file__).resolve().parents[2]
JUPITER = shutil.which("jupiter", path=str(Path(sys.executable).parent)) or "jupiter"


def tiny_domain(tmp_path: Path, margin: float = 0.0, cycles: int = 1) -> str:
    text = f"""
name: tiny
sources:
  - {{type: python_stdlib, modules: [json, textwrap, string]}}
chunking: {{heldout_fraction: 0.1}}
generator: {{max_questions_per_chunk: 2, max_new_tokens: 12}}
model: {{vocab_size: 600, context_length: 64}}
train: {{max_steps: 6, micro_batch_size: 4, warmup_steps: 1, checkpoint_every: 3, log_every: 2}}
eval: {{qa_path: {ROOT / "config" / "domains" / "python_eval.jsonl"}, max_items: 12,
        max_new_tokens: 8, heldout_max_bytes: 4000}}
promotion: {{metric: mc_accuracy, margin: {margin}}}
max_examples: 80
cycles: {cycles}
"""
    path = tmp_path / "tiny.yaml"
    path.write_text(text)
    return str(path)


def workspace(path: str, home: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    monkeypatch.setenv("JUPITER_HOME", str(home))
    return Workspace(load_domain(path), console=Console(file=io.StringIO(), width=120))


@pytest.mark.slow
def test_interrupted_cycle_resumes_where_it_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = workspace(tiny_domain(tmp_path), tmp_path, monkeypatch)

    def interrupted(ws: Workspace, cycle: int) -> dict:
        raise KeyboardInterrupt

    monkeypatch.setitem(cycle_mod.STAGES, "eval", interrupted)
    with pytest.raises(KeyboardInterrupt):
        cycle_mod.run_cycles(ws)
    done = ws.store.stages(1)
    assert list(done) == ["collect", "generate", "filter", "train"]
    stamps = dict(ws.store.db.execute("SELECT stage, finished_at FROM stages").fetchall())
    n_examples = ws.store.count("examples")
    assert ws.store.cycles()[0]["status"] == "running"

    monkeypatch.undo()
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path))
    assert cycle_mod.run_cycles(ws) == [1]
    after = dict(ws.store.db.execute("SELECT stage, finished_at FROM stages").fetchall())
    for stage in ("collect", "generate", "filter", "train"):
        assert after[stage] == stamps[stage]  # not run again
    assert set(after) == {"collect", "generate", "filter", "train", "eval", "decide"}
    assert ws.store.count("examples") == n_examples
    assert ws.store.cycles()[0]["status"] == "done"
    ws.close()


@pytest.mark.slow
def test_student_promoted_generates_next_cycle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # margin -1: any student beats the generator, so the promotion path runs for real
    ws = workspace(tiny_domain(tmp_path, margin=-1.0, cycles=2), tmp_path, monkeypatch)
    assert cycle_mod.run_cycles(ws) == [1, 2]
    d1, d2 = ws.store.stages(1)["decide"], ws.store.stages(2)["decide"]
    assert d1["promoted"] and d1["new_generator"] == "model:cycle-001"
    assert d2["generator_id"] == "generator:model:cycle-001"
    assert ws.store.active_generator()["id"] == "model:cycle-002"
    gens = dict(
        ws.store.db.execute(
            "SELECT generator, COUNT(*) FROM examples WHERE cycle=2 GROUP BY generator"
        ).fetchall()
    )
    # the promoted student wrote cycle 2's Q&A; the extractive generator's quoted pairs and
    # raw text were queued beside them (promotion.real_data_fraction, anti-collapse)
    assert set(gens) <= {"model:cycle-001", "extractive"} and gens["model:cycle-001"] > 0
    assert ws.store.stages(2)["generate"]["grounded"] > 0
    assert ws.store.stages(2)["train"]["data"]["grounded_share"] >= 0.25
    lineage = {g["id"]: g for g in ws.store.generators()}
    assert lineage["model:cycle-002"]["parent"] == "model:cycle-001"
    # cycle 2 continued from cycle 1's student and trained on both cycles' data
    train2 = ws.store.stages(2)["train"]
    assert train2["init"].endswith("cycle-001/train/final")
    evals = {r["model"]: r["report"] for r in ws.store.evals(2)}
    assert evals["generator:model:cycle-001"]["bpb"] is not None
    ws.close()


@pytest.mark.slow
def test_interactive_skip_redo_stop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tiny_domain(tmp_path)
    env = dict(os.environ, JUPITER_HOME=str(tmp_path), COLUMNS="200")
    answers = "run\ncontinue\nrun\nredo\nrun\ncontinue\nrun\nstop\n"
    r = subprocess.run(
        [JUPITER, "start", "--domain", path, "--interactive"],
        cwd=tmp_path,
        env=env,
        input=answers,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("generate finished") == 2  # ran, then redone
    assert "Q:" in r.stdout and "A:" in r.stdout  # samples shown
    assert "stopped" in r.stdout
    ws = workspace(path, tmp_path, monkeypatch)
    assert list(ws.store.stages(1)) == ["collect", "generate", "filter"]
    ws.close()
    # stop before a stage leaves it and the rest for the next start
    r2 = subprocess.run(
        [JUPITER, "start", "--domain", path, "--interactive"],
        cwd=tmp_path,
        env=env,
        input="stop\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r2.returncode == 0 and "train" in r2.stdout and "stopped" in r2.stdout


@pytest.mark.slow
def test_single_stage_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tiny_domain(tmp_path)
    env = dict(os.environ, JUPITER_HOME=str(tmp_path), COLUMNS="200")

    def jupiter(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [JUPITER, *args, "--domain", path],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    early = jupiter("train")
    # refused before a workspace exists, naming the stage to run first
    assert early.returncode == 1 and "run `jupiter collect --domain tiny` first" in early.stderr
    assert not (tmp_path / "runs").exists()
    for stage in ("collect", "generate", "filter"):
        r = jupiter(stage)
        assert r.returncode == 0, r.stderr
    ws = workspace(path, tmp_path, monkeypatch)
    assert list(ws.store.stages(1)) == ["collect", "generate", "filter"]
    counts = ws.store.example_counts(1)
    assert counts[("accepted", "")] > 20 and ("pending", "") not in counts
    ws.close()
    st = jupiter("status")
    assert st.returncode == 0 and "accepted" in st.stdout
    # `start` picks up after the stages run by hand
    r = subprocess.run(
        [JUPITER, "start", "--domain", path],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert "collect: done earlier" in r.stdout and "filter: done earlier" in r.stdout
    assert "train:" in r.stdout
