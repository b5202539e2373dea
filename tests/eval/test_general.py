"""General ability: bits-per-byte on text outside the domain (the bundled sample, a file or a
folder), reported for every model of the eval stage with its interval and paired
comparisons, lower being better."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from evaldocs import eval_with_tiny_models

from jupiter.errors import JupiterError
from jupiter.eval.compare import compare_reports, without_items
from jupiter.eval.general import bundled_text, general_texts, paragraphs


def test_bundled_sample_is_varied_prose_far_from_software() -> None:
    text = bundled_text()
    assert 20_000 <= len(text.encode()) <= 40_000
    units = general_texts(None)
    assert len(units) >= 60 and all(len(u) > 150 for u in units)
    assert sum(u.startswith("# ") for u in units) >= 25  # articles, each heading kept
    lowered = text.lower()
    for word in ("python", "software", "function", "compiler", "variable", "def "):
        assert word not in lowered


def test_general_text_from_a_file_or_a_folder(tmp_path: Path) -> None:
    assert paragraphs("Title\n\nOne. Two.\n\n\nThree!\n") == ["Title\nOne. Two.", "Three!"]
    (tmp_path / "b.md").write_text("Second file.\n")
    (tmp_path / "a.txt").write_text("First file, one.\n\nFirst file, two.\n")
    (tmp_path / "skip.bin").write_bytes(b"\x00\xff")
    assert general_texts(tmp_path) == ["First file, one.", "First file, two.", "Second file."]
    assert general_texts(tmp_path / "b.md") == ["Second file."]
    with pytest.raises(JupiterError, match="general text not found.*eval.general_path"):
        general_texts(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(JupiterError, match="no text in"):
        general_texts(tmp_path / "empty")


def test_general_bpb_pairs_over_paragraphs_lower_is_better() -> None:
    docs = {"bytes": [100, 200, 300]}
    worse = {"model": "s", "general_bpb_docs": {"bits": [300, 600, 900], **docs}}
    better = {"model": "b", "general_bpb_docs": {"bits": [200, 400, 600], **docs}}
    entry = compare_reports(worse, better)["metrics"]["general_bpb"]
    assert (entry["model"], entry["against"], entry["difference"]) == (3.0, 2.0, 1.0)
    assert entry["higher_is_better"] is False and entry["verdict"] == "worse"
    assert "general_bpb_docs" not in without_items(worse)


def test_eval_stage_reports_general_bpb_for_every_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path / "home"))
    extra = (
        "eval: {auto_max_items: 6, max_new_tokens: 3, heldout_max_bytes: 1000,"
        " general_max_bytes: 3000}\nmodel: {context_length: 64}\n"
    )
    ws, ev = eval_with_tiny_models(tmp_path, extra)
    for model in ("student", "untrained"):
        lo, hi = ev[model]["general_bpb_ci"]
        assert lo < ev[model]["general_bpb"] < hi and ev[model]["general_bpb"] > 1.0
    assert ev["generator"]["general_bpb"] is None  # the extractive generator is no model
    entry = ev["comparisons"]["student_vs_untrained"]["metrics"]["general_bpb"]
    assert entry["higher_is_better"] is False and entry["n"] >= 5
    assert entry["difference"] == pytest.approx(
        ev["student"]["general_bpb"] - ev["untrained"]["general_bpb"]
    )
    assert len(entry["ci"]) == 2
    assert "general_bpb" not in ev["comparisons"]["student_vs_generator"]["metrics"]
    saved = json.loads((ws.cycle_dir(1) / "eval.json").read_text())
    assert saved["lower_is_better"] == ["bpb", "general_bpb"]
    assert saved["eval_set"]["auto"] and saved["eval_set"]["items"] == 6
    assert (
        "general_bpb_docs"
        in json.loads((ws.cycle_dir(1) / "eval_items.json").read_text())["student"]
    )
    out = ws.console.file.getvalue()  # type: ignore[attr-defined]
    assert "general_bpb" in out and "(chance 0.25)" in out and "by topic" in out
