"""--json on status, data report, cluster plan and eval (--model/--qa): stdout is one JSON
document holding the figures the tables show; and shell completion through Typer."""

from __future__ import annotations

import io
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from climain import run_main as _main
from jupiter.config import load_domain
from jupiter.improve.workspace import Workspace
from jupiter.records import Chunk, Document, Example
from tinyhf import save_tiny


def _json(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert _main(monkeypatch, *args, "--json") == 0
    return json.loads(capsys.readouterr().out)  # all of stdout, or this raises


@pytest.fixture
def domain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path / "home"))
    path = tmp_path / "js.yaml"
    path.write_text("name: js\nsources: [{type: python_stdlib, modules: [json]}]\n")
    return path


def _fill(path: Path) -> None:
    """A store with 2 documents, 3 chunks, examples of three statuses, one cycle with its
    stages, filter counts and two evaluations."""
    ws = Workspace(load_domain(str(path)), console=Console(file=io.StringIO()))
    s = ws.store
    docs = [Document("local", f"/d/{k}.md", f"d{k}", f"text {k} " * 20) for k in range(2)]
    s.add_documents(docs)
    s.add_chunks(
        [
            Chunk(docs[0].id, "local", "/d/0.md", "d0", 0, 10, "a", "train"),
            Chunk(docs[0].id, "local", "/d/0.md", "d0", 10, 20, "b", "train"),
            Chunk(docs[1].id, "local", "/d/1.md", "d1", 0, 10, "c", "heldout"),
        ]
    )
    ex = [
        Example(
            "qa",
            "extractive",
            "c",
            "what_does",
            [{"role": "user", "content": f"q{k}"}, {"role": "assistant", "content": "a"}],
            cycle=1,
            status=st,
            reason=reason,
        )
        for k, (st, reason) in enumerate(
            [("accepted", ""), ("accepted", ""), ("rejected", "too_short"), ("pending", "")]
        )
    ]
    s.add_examples(ex)
    s.start_cycle(1, "extractive")
    s.mark_stage(1, "collect", {"documents": 2})
    s.record_filter_stats(1, "filter", {"accepted": 2, "too_short": 1}, {"too_short": ["q2"]})
    s.add_eval(1, "student:cycle-001", {"bpb": 3.5, "qa_f1": 0.25, "mc_accuracy": 0.5})
    s.add_eval(1, "generator:extractive", {"bpb": None, "qa_f1": 0.75, "mc_accuracy": 0.5})
    ws.close()


def test_status_json(
    domain: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    none = _json(monkeypatch, capsys, "status", "--domain", str(domain))
    assert none["exists"] is False and none["domain"] == "js"
    _fill(domain)
    doc = _json(monkeypatch, capsys, "status", "--domain", str(domain))
    assert doc["exists"] is True and doc["documents"] == 2
    assert doc["chunks"] == {"train": 2, "heldout": 1} and doc["current_generator"] is None
    assert [c["n"] for c in doc["cycles"]] == [1] and doc["cycles"][0]["stages"] == {
        "collect": {"documents": 2}
    }
    queue = {(q["status"], q["reason"]): q["count"] for q in doc["data_queue"]}
    assert queue == {("accepted", None): 2, ("rejected", "too_short"): 1, ("pending", None): 1}
    evals = {e["model"]: e["report"] for e in doc["evaluations"]}
    assert (
        evals["student:cycle-001"]["qa_f1"] == 0.25 and evals["generator:extractive"]["bpb"] is None
    )
    # the tables still print without --json
    assert _main(monkeypatch, "status", "--domain", str(domain)) == 0
    assert "data queue" in capsys.readouterr().out


def test_data_report_json(
    domain: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    assert _json(monkeypatch, capsys, "data", "report", "--domain", str(domain))["exists"] is False
    _fill(domain)
    page = tmp_path / "r.html"
    doc = _json(monkeypatch, capsys, "data", "report", "--domain", str(domain), "--html", str(page))
    assert doc["documents"] == {"local": 2} and doc["html"] == str(page) and page.is_file()
    kinds = {(e["status"], e["kind"]): e["count"] for e in doc["examples"]}
    assert kinds == {("accepted", "qa"): 2, ("rejected", "qa"): 1, ("pending", "qa"): 1}
    filt = [s for s in doc["stages"] if s["stage"] == "filter"]
    assert filt == [
        {
            "cycle": 1,
            "stage": "filter",
            "kept": 2,
            "total": 3,
            "dropped": {"too_short": 1},
            "samples": {"too_short": ["q2"]},
        }
    ]


def test_cluster_plan_json(
    domain: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    cluster = tmp_path / "c.yaml"
    cluster.write_text(
        "nodes:\n  - {host: localhost, name: a, device_type: cpu, memory_gb: 16}\n"
        "  - {host: 10.0.0.9, name: b, device_type: cpu, memory_gb: 0.001}\n"
    )
    doc = _json(
        monkeypatch,
        capsys,
        "cluster",
        "plan",
        "--domain",
        str(domain),
        "--cluster-file",
        str(cluster),
    )
    a, b = doc["nodes"]
    assert (a["node"], a["engine"], a["island"]) == ("a", "torch", b["island"])
    assert a["micro_batch"] >= 1 and b["micro_batch"] is None  # 1 MB fits nothing
    assert any("node b" in n and "does not fit" in n for n in doc["notes"])
    assert doc["launch"] and all(isinstance(line, str) for line in doc["launch"])
    assert doc["sync"]["inner_steps"] >= 1


def test_score_json_model_on_a_qa_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    model = save_tiny("llama", tmp_path / "m")
    qa = tmp_path / "qa.jsonl"
    qa.write_text(
        "".join(
            json.dumps({"id": f"q{k}", "question": f"What is {k}?", "answer": f"It is {k}."}) + "\n"
            for k in range(5)
        )
    )
    out = tmp_path / "r.json"
    capsys.readouterr()  # what building the model printed
    doc = _json(
        monkeypatch,
        capsys,
        "score",
        "--model",
        str(model),
        "--qa",
        str(qa),
        "--max-new-tokens",
        "2",
        "--general-max-bytes",
        "0",
        "--out",
        str(out),
    )
    assert doc["n_qa"] == 5 and doc["n_mc"] == 5 and 0 <= doc["mc_accuracy"] <= 1
    assert json.loads(out.read_text())["mc_accuracy"] == doc["mc_accuracy"]


def test_completion_script_and_help() -> None:
    """`--show-completion bash` prints the bash script (the shell named, so nothing is
    detected); `--help` lists --install-completion."""
    jupiter = [shutil.which("jupiter", path=str(Path(sys.executable).parent)) or "jupiter"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("_JUPITER")}
    # with shellingham installed Typer detects the shell from the parent process (a "bash"
    # argument is not read): run it under bash (not exec-ed: "; exit"), make's shell is sh
    shown = subprocess.run(
        ["bash", "-c", f"{shlex.quote(jupiter[0])} --show-completion; exit $?"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert shown.returncode == 0
    assert "complete -o default -F _jupiter_completion" in shown.stdout
    assert "_JUPITER_COMPLETE=complete_bash" in shown.stdout
    helped = subprocess.run(
        [*jupiter, "--help"], capture_output=True, text=True, env=env, timeout=60
    )
    assert helped.returncode == 0 and "--install-completion" in helped.stdout
    assert "doctor" in helped.stdout and "test" in helped.stdout
    # what the installed script runs on TAB: the commands that start with "sta"
    words = subprocess.run(
        jupiter,
        capture_output=True,
        text=True,
        timeout=60,
        env=env
        | {"_JUPITER_COMPLETE": "complete_bash", "COMP_WORDS": "jupiter sta", "COMP_CWORD": "1"},
    )
    assert words.stdout.split() == ["start", "status"]
