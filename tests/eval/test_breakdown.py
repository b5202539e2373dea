"""Figures per topic, template, source kind and document, with intervals."""

from __future__ import annotations

import io
from collections.abc import Sequence

from rich.console import Console

from jupiter.eval.breakdown import OTHER, breakdown
from jupiter.eval.mc import build_mc
from jupiter.eval.qa import QAItem
from jupiter.eval.report import breakdown_table, evaluate_answerer

ITEMS = [
    QAItem(
        f"{topic}-{k}",
        f"What does {topic}_{k} do?",
        f"{topic}_{k} maps {k} to {k + 1}.",
        source=f"python:{topic}.f{k}",
        template="what_does" if k % 2 else "returns",
        doc=f"doc-{topic}-{k % 3}",
    )
    for topic in ("json", "csv", "re")
    for k in range(8)
]


class KnowsJson:
    """Right about the json module, silent about the rest."""

    id = "knows-json"

    def __init__(self, items: Sequence[QAItem]) -> None:
        self.ref = {it.question: it.answer for it in items}

    def answer(self, questions: Sequence[str]) -> list[str]:
        return [self.ref[q] if "json" in q else "" for q in questions]

    def choose(self, question: str, choices: Sequence[str]) -> int:
        return list(choices).index(self.ref[question]) if "json" in question else -1


def test_breakdown_per_topic_template_source_and_doc() -> None:
    report = evaluate_answerer(KnowsJson(ITEMS), ITEMS, build_mc(ITEMS, 4, seed=0))
    by = report["breakdown"]
    assert set(by) == {"topic", "template", "doc"}  # one source kind: nothing to break down
    assert list(by["topic"]) == ["csv", "json", "re"]  # topic: the module of python:json.f0
    json_fig, csv_fig = by["topic"]["json"], by["topic"]["csv"]
    assert json_fig["n"] == 8 and json_fig["qa_f1"] == 1.0 and json_fig["mc_accuracy"] == 1.0
    assert json_fig["qa_f1_ci"] == [1.0, 1.0] and csv_fig["qa_f1"] == 0.0
    assert by["template"]["returns"]["n"] == by["template"]["what_does"]["n"] == 12
    assert abs(by["template"]["returns"]["qa_f1"] - 1 / 3) < 1e-9
    lo, hi = by["template"]["returns"]["mc_accuracy_ci"]
    assert 0.0 <= lo < 1 / 3 < hi <= 1.0
    assert len(by["doc"]) == 9 and by["doc"]["doc-json-0"]["n"] == 3


def test_small_groups_are_pooled_and_single_groups_left_out() -> None:
    scores = {"qa_f1": {it.id: 1.0 for it in ITEMS}, "mc_accuracy": {}, "qa_exact": {}}
    by = breakdown(ITEMS, scores, max_groups=4)
    assert list(by["doc"])[-1] == OTHER and len(by["doc"]) == 5
    assert sum(g["n"] for g in by["doc"].values()) == len(ITEMS)
    assert by["doc"][OTHER]["mc_accuracy"] is None  # not measured, not zero
    assert "source" not in by


def test_breakdown_table_puts_models_side_by_side() -> None:
    a = evaluate_answerer(KnowsJson(ITEMS), ITEMS, build_mc(ITEMS, 4, seed=0))
    b = dict(a, model="other", breakdown={"topic": {"json": a["breakdown"]["topic"]["json"]}})
    table = breakdown_table([a, b], "topic", "qa_f1")
    assert table is not None
    console = Console(file=io.StringIO(), width=200)
    console.print(table)
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert "knows-json" in out and "other" in out
    assert "1.000 [1.00, 1.00]" in out and "0.000" in out and "—" in out
    assert breakdown_table([a], "nope", "qa_f1") is None
