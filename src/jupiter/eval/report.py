"""Sitting the exam and reporting it: QA F1, exact match, multiple-choice accuracy, and the
side-by-side table of untrained, trained and generator models.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from rich.table import Table

from jupiter import atomic
from jupiter.errors import JupiterError
from jupiter.eval.qa import MCItem, QAItem, exact_match, token_f1

ProgressFn = Callable[[int, int], None]  # (done, total) over QA items then MC items

QA_BATCH = 16  # questions per answer() call: big enough to batch, small enough for progress
N_SAMPLES = 5
MISSING = "—"


class Answerer(Protocol):
    """What the exam needs from a generator (a subset of jupiter.synth.base.Generator)."""

    id: str

    def answer(self, questions: Sequence[str]) -> list[str]: ...

    def choose(self, question: str, choices: Sequence[str]) -> int: ...


def chance_mc_accuracy(n_choices: int) -> float:
    """The accuracy of guessing uniformly among `n_choices` choices."""
    if n_choices < 1:
        raise ValueError(f"n_choices must be positive, got {n_choices}")
    return 1.0 / n_choices


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _answers(gen: Answerer, items: Sequence[QAItem], progress: Callable[[int], None]) -> list[str]:
    out: list[str] = []
    for i in range(0, len(items), QA_BATCH):
        batch = [it.question for it in items[i : i + QA_BATCH]]
        got = gen.answer(batch)
        if len(got) != len(batch):
            raise JupiterError(
                f"generator '{gen.id}' returned {len(got)} answers for {len(batch)} questions"
            )
        out += [g if isinstance(g, str) else "" for g in got]
        progress(len(out))
    return out


def evaluate_answerer(
    gen: Answerer,
    items: Sequence[QAItem],
    mc: Sequence[MCItem],
    on_progress: ProgressFn | None = None,
) -> dict[str, Any]:
    """Ask `gen` every QA question and every MC question; score against the references.

    Metrics over an empty list are None (shown as "—"), not 0, so "not measured" never
    reads as "scored zero".
    """
    total = len(items) + len(mc)

    def progress(done: int) -> None:
        if on_progress is not None:
            on_progress(done, total)

    predictions = _answers(gen, items, progress)
    f1s = [token_f1(p, it.answer) for p, it in zip(predictions, items, strict=True)]
    exact = [float(exact_match(p, it.answer)) for p, it in zip(predictions, items, strict=True)]
    hits: list[float] = []
    for k, m in enumerate(mc, start=1):
        hits.append(float(gen.choose(m.question, m.choices) == m.correct))
        progress(len(items) + k)
    samples = [
        {"question": it.question, "reference": it.answer, "prediction": p, "f1": f}
        for it, p, f in list(zip(items, predictions, f1s, strict=True))[:N_SAMPLES]
    ]
    return {
        "model": gen.id,
        "qa_f1": _mean(f1s),
        "qa_exact": _mean(exact),
        "mc_accuracy": _mean(hits),
        "mc_chance": _mean([chance_mc_accuracy(len(m.choices)) for m in mc]),
        "n_qa": len(items),
        "n_mc": len(mc),
        "samples": samples,
    }


def write_report(path: Path, report: dict[str, Any]) -> None:
    """Write `report` as indented JSON, atomically: a temp file in the same folder, renamed."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(path, json.dumps(report, indent=2, ensure_ascii=False) + "\n")


def _cell(value: Any) -> str:
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int | float):
        return f"{value:.3f}"
    return str(value)


def comparison_table(rows: list[dict[str, Any]], title: str | None = None) -> Table:
    """One row per model (untrained, trained, generator ...): model, bpb, qa_f1, mc_accuracy.

    A value a row lacks (a generator has no bpb) shows as "—".
    """
    table = Table(title=title)
    table.add_column("model", style="bold")
    for name in ("bpb", "qa_f1", "mc_accuracy"):
        table.add_column(name, justify="right")
    for row in rows:
        table.add_row(
            str(row.get("model", MISSING)),
            *(_cell(row.get(k)) for k in ("bpb", "qa_f1", "mc_accuracy")),
        )
    return table
