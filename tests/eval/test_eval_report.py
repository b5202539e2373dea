"""evaluate_answerer with fake answerers, the JSON report, and the comparison table."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from rich.console import Console

from jupiter.errors import JupiterError
from jupiter.eval.qa import MCItem, QAItem, build_mc
from jupiter.eval.report import (
    chance_mc_accuracy,
    comparison_table,
    evaluate_answerer,
    write_report,
)

ITEMS = [
    QAItem(
        f"q{k}",
        f"What does function_{k} do?",
        f"function_{k} returns {k} squared plus one.",
        topic="maths" if k % 2 else "text",
    )
    for k in range(12)
]


class Oracle:
    """Answers with the reference and picks the reference among the choices."""

    id = "oracle"

    def __init__(self, items: Sequence[QAItem]) -> None:
        self.ref = {it.question: it.answer for it in items}

    def answer(self, questions: Sequence[str]) -> list[str]:
        return [self.ref[q] for q in questions]

    def choose(self, question: str, choices: Sequence[str]) -> int:
        return list(choices).index(self.ref[question])


class Mute:
    """Says nothing and always picks the first choice."""

    id = "mute"

    def answer(self, questions: Sequence[str]) -> list[str]:
        return ["" for _ in questions]

    def choose(self, question: str, choices: Sequence[str]) -> int:
        return 0


class Short:
    id = "short"

    def answer(self, questions: Sequence[str]) -> list[str]:
        return ["x"]

    def choose(self, question: str, choices: Sequence[str]) -> int:
        return 0


def test_oracle_scores_perfectly_and_reports_progress() -> None:
    mc = build_mc(ITEMS, 4, seed=0)
    seen: list[tuple[int, int]] = []
    rep = evaluate_answerer(Oracle(ITEMS), ITEMS, mc, on_progress=lambda d, t: seen.append((d, t)))
    assert rep["model"] == "oracle"
    assert rep["qa_f1"] == 1.0 and rep["qa_exact"] == 1.0 and rep["mc_accuracy"] == 1.0
    assert rep["n_qa"] == 12 and rep["n_mc"] == 12
    assert rep["mc_chance"] == 0.25
    assert len(rep["samples"]) == 5
    assert rep["samples"][0] == {
        "question": ITEMS[0].question,
        "reference": ITEMS[0].answer,
        "prediction": ITEMS[0].answer,
        "f1": 1.0,
    }
    assert seen[-1] == (24, 24) and all(t == 24 for _, t in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_mute_scores_zero_and_first_choice_matches_positions() -> None:
    mc = build_mc(ITEMS, 4, seed=1)
    rep = evaluate_answerer(Mute(), ITEMS, mc)
    assert rep["qa_f1"] == 0.0 and rep["qa_exact"] == 0.0
    assert rep["mc_accuracy"] == pytest.approx(sum(m.correct == 0 for m in mc) / len(mc))
    assert rep["samples"][0]["prediction"] == ""


def test_empty_sets_give_none_not_zero() -> None:
    rep = evaluate_answerer(Mute(), [], [])
    assert rep["qa_f1"] is None and rep["mc_accuracy"] is None and rep["mc_chance"] is None
    assert rep["n_qa"] == 0 and rep["samples"] == []


def test_wrong_number_of_answers_is_an_error() -> None:
    with pytest.raises(JupiterError, match="'short' returned 1 answers for 12 questions"):
        evaluate_answerer(Short(), ITEMS, [])


def test_out_of_range_choice_counts_as_wrong() -> None:
    mc = [MCItem("m", "Q?", ["a", "b"], correct=1)]

    class Wild(Mute):
        def choose(self, question: str, choices: Sequence[str]) -> int:
            return 7

    assert evaluate_answerer(Wild(), [], mc)["mc_accuracy"] == 0.0


def test_write_report_is_atomic_json(tmp_path: Path) -> None:
    path = tmp_path / "evals" / "cycle-001.json"
    report = {"model": "oracle", "qa_f1": 0.5, "note": "héllo"}
    write_report(path, report)
    text = path.read_text(encoding="utf-8")
    assert json.loads(text) == report
    assert text.startswith('{\n  "model"') and "héllo" in text
    write_report(path, {"model": "second"})
    assert json.loads(path.read_text(encoding="utf-8")) == {"model": "second"}
    assert [p.name for p in path.parent.iterdir()] == ["cycle-001.json"]  # no temp files left


def test_write_report_failure_leaves_old_file(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    write_report(path, {"ok": 1})
    with pytest.raises(TypeError):
        write_report(path, {"bad": object()})
    assert json.loads(path.read_text()) == {"ok": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_comparison_table_renders_rows_and_missing_values() -> None:
    rows = [
        {"model": "untrained", "bpb": 5.4321, "qa_f1": 0.01, "mc_accuracy": 0.25},
        {"model": "cycle-001", "bpb": 2.5, "qa_f1": 0.3333, "mc_accuracy": 0.5},
        {"model": "extractive", "qa_f1": 0.61},
    ]
    table = comparison_table(rows, title="python")
    assert [c.header for c in table.columns] == ["model", "bpb", "qa_f1", "mc_accuracy"]
    assert table.row_count == 3
    out = io.StringIO()
    Console(file=out, width=100, color_system=None).print(table)
    text = out.getvalue()
    lines = {ln.split()[1]: ln for ln in text.splitlines() if ln.strip().startswith("│")}
    assert "5.432" in lines["untrained"] and "0.250" in lines["untrained"]
    assert "0.333" in lines["cycle-001"]
    assert lines["extractive"].count("—") == 2 and "0.610" in lines["extractive"]


def test_chance_accuracy() -> None:
    assert chance_mc_accuracy(4) == 0.25
    with pytest.raises(ValueError):
        chance_mc_accuracy(0)
