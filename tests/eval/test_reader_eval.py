"""promotion.candidate student+retriever: the eval scores the student reading retrieved
passages beside the closed-book student, the gate judges that candidate, and once promoted
it stands as a generator of kind model+retriever, scored and generating the same way."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from evaldocs import eval_with_tiny_models
from rich.console import Console

from jupiter.config import load_domain
from jupiter.improve.decide import decide_stage
from jupiter.improve.evalset import eval_items
from jupiter.improve.evaluate import evaluate_generator
from jupiter.improve.workspace import Workspace

EXTRA = """eval: {max_items: 4, max_new_tokens: 4, general_max_bytes: 0}
retrieval: {reader_top_k: 1, passage_chars: 200}
promotion: {candidate: student+retriever, margin: -1.5, max_general_drop: null}
"""


def test_the_reader_is_scored_judged_and_promoted_as_a_generator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path / "home"))
    _, ev = eval_with_tiny_models(tmp_path, EXTRA)
    got = ev["retriever"]
    assert got["student"]["model"] == "student:cycle-001+retriever"
    assert got["student"]["n_mc"] == 4 and ev["student"]["n_mc"] == 4
    pair = got["comparisons"]["student_vs_generator"]
    assert (
        pair["model"] == "student:cycle-001+retriever" and pair["metrics"]["mc_accuracy"]["n"] == 4
    )
    assert ev["student+retriever"]["model"] == got["student"]["model"]
    ws = Workspace(load_domain(str(tmp_path / "t.yaml")), console=Console(file=io.StringIO()))
    written = json.loads((ws.cycle_dir(1) / "eval.json").read_text())
    assert "item_scores" not in written["student+retriever"]
    assert list(written["student"]["phase_seconds"])[-1] == "with_retriever"
    ws.store.mark_stage(1, "eval", ev)
    info = decide_stage(ws, 1)  # margin -1.5: promoted whatever the tiny models scored
    assert info["promoted"] and info["candidate"] == "student+retriever", info
    assert info["student"] == got["student"]["mc_accuracy"]
    row = ws.store.active_generator()
    assert row["id"] == "model:cycle-001" and row["kind"] == "model+retriever"
    items, mc, _ = eval_items(ws)
    report = evaluate_generator(ws, items, mc)
    assert report["model"] == "generator:model:cycle-001" and report["n_mc"] == 4
    # judged reading, the generator sat no exam closed book: the same scores as the
    # student + retriever it was promoted as, and its bpb (the general check's pairing)
    assert report["mc_accuracy"] == got["student"]["mc_accuracy"]
    assert report["n_qa"] == got["student"]["n_qa"] and report["qa_f1"] == got["student"]["qa_f1"]
    assert "bpb" in report
    phases = [p for p in report.get("phase_seconds", {}) if p in ("own_exam", "user_exam")]
    assert phases == []
    ws.close()


def test_a_reader_candidate_without_its_scores_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jupiter.errors import JupiterError

    monkeypatch.setenv("JUPITER_HOME", str(tmp_path / "home"))
    (tmp_path / "t.yaml").write_text(
        "name: t\nsources: [{type: local, path: docs}]\npromotion: {candidate: student+retriever}\n"
    )
    ws = Workspace(load_domain(str(tmp_path / "t.yaml")), console=Console(file=io.StringIO()))
    ws.store.mark_stage(1, "eval", {"student": {"mc_accuracy": 0.5}, "generator": {}})
    with pytest.raises(JupiterError, match="did not score the student with its retriever"):
        decide_stage(ws, 1)
    ws.close()
