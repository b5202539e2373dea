"""`jupiter eval --domain X --json`: the eval stage's record as the only thing on stdout,
its tables and progress on stderr."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from evaldocs import doc_workspace

from jupiter import cli
from tinyhf import save_tiny


def test_eval_stage_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path / "home"))
    ws = doc_workspace(tmp_path, "eval: {general_max_bytes: 0, max_items: 6}\n")
    save_tiny("llama", ws.root / "untrained", seed=0)
    save_tiny("llama", ws.student_dir(1), seed=1)
    ws.close()
    capsys.readouterr()
    monkeypatch.setattr(
        sys, "argv", ["jupiter", "eval", "--domain", str(tmp_path / "t.yaml"), "--json"]
    )
    cli.main()
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert doc["domain"] == "t" and doc["cycle"] == 1
    assert doc["eval_json"] == str(ws.cycle_dir(1) / "eval.json")
    on_disk = json.loads(Path(doc["eval_json"]).read_text())
    assert doc["student"]["mc_accuracy"] == on_disk["student"]["mc_accuracy"]
    assert doc["student"]["n_mc"] == 6 and doc["untrained"]["n_mc"] == 6
    assert "student_vs_generator" in doc["comparisons"] and doc["eval_set"]["auto"] is True
    assert "paired differences" in captured.err  # the tables went to stderr
