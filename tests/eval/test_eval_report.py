"""evaluate_answerer with fake answerers, the JSON report, and the comparison table."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from rich.console import Console

from jupiter.errors import JupiterError
from jupiter.eval.mc import build_mc
from jupiter.eval.qa import MCItem, QAItem
from jupiter.eval.report import (
    chance_mc_accuracy,
    comparison_table,
    difference_table,
    evaluate_answerer,
    write_report,
)
from jupiter.eval.stats import mean_ci

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


def test_choices_follow_their_questions_answer_batch() -> None:
    """Each multiple-choice item is asked right after the answer batch that asked its
    question (a model answerer still holds that prompt's prefill); an MC item no QA item
    asks comes at the end; the scores stay in the MC list's order."""
    from jupiter.eval.report import QA_BATCH

    items = [
        QAItem(f"q{k}", f"What does function_{k} do?", f"function_{k} returns {k}.")
        for k in range(QA_BATCH + 4)
    ]
    mc = list(reversed(build_mc(items, 4, seed=2)))
    stray = MCItem("s", "A question no QA item asks?", ["a", "b", "c", "d"], 2)
    log: list[tuple[str, object]] = []

    class Logger(Oracle):
        def answer(self, questions: Sequence[str]) -> list[str]:
            log.append(("answer", tuple(questions)))
            return super().answer(questions)

        def choose(self, question: str, choices: Sequence[str]) -> int:
            log.append(("choose", question))
            return super().choose(question, choices) if question in self.ref else 2

    rep = evaluate_answerer(Logger(items), items, [*mc, stray])
    first = tuple(it.question for it in items[:QA_BATCH])
    second = tuple(it.question for it in items[QA_BATCH:])
    assert log[0] == ("answer", first)
    assert [q for _, q in log[1 : 1 + QA_BATCH]] == list(first)
    assert log[1 + QA_BATCH] == ("answer", second)
    assert [q for _, q in log[2 + QA_BATCH : -1]] == list(second)
    assert log[-1] == ("choose", stray.question)
    assert rep["mc_accuracy"] == 1.0 and rep["n_mc"] == len(mc) + 1
    assert list(rep["item_scores"]["mc_accuracy"]) == [m.id for m in [*mc, stray]]


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


class EvenRight(Oracle):
    """Right on the even-numbered items (QA and MC), silent and wrong on the odd ones."""

    id = "even"

    def answer(self, questions: Sequence[str]) -> list[str]:
        return [self.ref[q] if int(q.split("_")[1].split()[0]) % 2 == 0 else "" for q in questions]

    def choose(self, question: str, choices: Sequence[str]) -> int:
        right = super().choose(question, choices)
        return right if int(question.split("_")[1].split()[0]) % 2 == 0 else (right + 1) % 4


def test_report_keeps_item_scores_and_95_intervals() -> None:
    mc = build_mc(ITEMS, 4, seed=0)
    rep = evaluate_answerer(EvenRight(ITEMS), ITEMS, mc)
    expected = [float(k % 2 == 0) for k in range(12)]
    assert rep["qa_f1"] == rep["qa_exact"] == rep["mc_accuracy"] == 0.5
    scores = rep["item_scores"]
    assert list(scores["qa_f1"]) == [it.id for it in ITEMS]  # item order, keyed by id
    assert list(scores["qa_f1"].values()) == expected
    assert list(scores["qa_exact"].values()) == expected
    assert scores["mc_accuracy"] == {m.id: e for m, e in zip(mc, expected, strict=True)}
    ci = mean_ci(expected)
    assert ci is not None
    for key in ("qa_f1_ci", "qa_exact_ci", "mc_accuracy_ci"):
        assert rep[key] == list(ci)
        assert rep[key][0] < 0.5 < rep[key][1]
    assert rep["mc_chance"] == 0.25  # still shown
    assert json.loads(json.dumps(rep)) == rep  # JSON-ready: lists, not tuples


def test_intervals_need_two_items() -> None:
    rep = evaluate_answerer(Oracle(ITEMS[:1]), ITEMS[:1], [])
    assert rep["qa_f1"] == 1.0 and rep["qa_f1_ci"] is None and rep["mc_accuracy_ci"] is None


def _render(table: object) -> str:
    out = io.StringIO()
    Console(file=out, width=160, color_system=None).print(table)
    return out.getvalue()


def test_comparison_table_shows_intervals_and_chance() -> None:
    rows = [
        {
            "model": "student",
            "bpb": 2.5,
            "bpb_ci": [2.41, 2.6],
            "qa_f1": 0.512,
            "qa_f1_ci": [0.47, 0.55],
            "mc_accuracy": 0.5,
            "mc_accuracy_ci": [0.3, 0.7],
            "mc_chance": 0.25,
        },
        {"model": "extractive", "qa_f1": 0.61, "mc_chance": 0.25},
    ]
    text = _render(comparison_table(rows))
    lines = {ln.split()[1]: ln for ln in text.splitlines() if ln.strip().startswith("│")}
    assert "2.500 [2.41, 2.60]" in lines["student"]
    assert "0.512 [0.47, 0.55]" in lines["student"]
    assert "0.500 [0.30, 0.70] (chance 0.25)" in lines["student"]
    assert "0.610" in lines["extractive"] and "[" not in lines["extractive"]


def test_difference_table_lists_each_paired_difference() -> None:
    comps = {
        "student_vs_generator": {
            "model": "student:cycle-001",
            "against": "generator:extractive",
            "metrics": {
                "mc_accuracy": {
                    "difference": 0.1,
                    "ci": [-0.05, 0.25],
                    "higher_is_better": True,
                    "verdict": "no difference (inside the noise)",
                },
            },
        },
        "student_vs_untrained": {
            "model": "student:cycle-001",
            "against": "untrained",
            "metrics": {
                "bpb": {
                    "difference": -1.2,
                    "ci": [-1.4, -1.0],
                    "higher_is_better": False,
                    "verdict": "better",
                },
            },
        },
    }
    table = difference_table(comps)
    assert table.row_count == 2
    text = _render(table)
    assert "+0.100 [-0.05, +0.25]" in text and "inside the noise" in text
    assert "-1.200 [-1.40, -1.00]" in text and "lower is better" in text
    assert "student:cycle-001 − untrained" in text
