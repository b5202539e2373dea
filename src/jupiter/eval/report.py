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
from jupiter.eval.breakdown import breakdown
from jupiter.eval.qa import MCItem, QAItem, exact_match, token_f1
from jupiter.eval.stats import Interval, mean_ci

ProgressFn = Callable[[int, int], None]  # (done, total) over QA items then MC items

QA_BATCH = 16  # questions per answer() call: big enough to batch, small enough for progress
N_SAMPLES = 5
MISSING = "—"
TABLE_FIGURES = ("bpb", "qa_f1", "mc_accuracy", "general_bpb")


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


def _ci(values: Sequence[float]) -> list[float] | None:
    """The 95% bootstrap interval as a JSON-ready [lo, hi]; None under two items."""
    ci = mean_ci(values)
    return None if ci is None else list(ci)


def _answer_batch(gen: Answerer, questions: list[str]) -> list[str]:
    got = gen.answer(questions)
    if len(got) != len(questions):
        raise JupiterError(
            f"generator '{gen.id}' returned {len(got)} answers for {len(questions)} questions"
        )
    return [g if isinstance(g, str) else "" for g in got]


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

    predictions: list[str] = []
    scored: dict[int, float] = {}  # MC item index -> hit
    asking: dict[str, list[int]] = {}  # question -> its MC items
    for k, m in enumerate(mc):
        asking.setdefault(m.question, []).append(k)

    def choose(k: int) -> None:
        m = mc[k]
        scored[k] = float(gen.choose(m.question, m.choices) == m.correct)
        progress(len(predictions) + len(scored))

    for i in range(0, len(items), QA_BATCH):
        batch = items[i : i + QA_BATCH]
        predictions += _answer_batch(gen, [it.question for it in batch])
        progress(len(predictions) + len(scored))
        # the multiple-choice items asking the same questions right after them: a model
        # answerer still holds their prompts' prefill (synth/model.py), and reads it once
        for it in batch:
            for k in asking.pop(it.question, []):
                choose(k)
    for k in range(len(mc)):
        if k not in scored:
            choose(k)
    hits = [scored[k] for k in range(len(mc))]
    f1s = [token_f1(p, it.answer) for p, it in zip(predictions, items, strict=True)]
    exact = [float(exact_match(p, it.answer)) for p, it in zip(predictions, items, strict=True)]
    samples = [
        {"question": it.question, "reference": it.answer, "prediction": p, "f1": f}
        for it, p, f in list(zip(items, predictions, f1s, strict=True))[:N_SAMPLES]
    ]
    item_scores = {
        "qa_f1": {it.id: f for it, f in zip(items, f1s, strict=True)},
        "qa_exact": {it.id: e for it, e in zip(items, exact, strict=True)},
        "mc_accuracy": {m.id: h for m, h in zip(mc, hits, strict=True)},
    }
    return {
        "model": gen.id,
        "qa_f1": _mean(f1s),
        "qa_f1_ci": _ci(f1s),
        "qa_exact": _mean(exact),
        "qa_exact_ci": _ci(exact),
        "mc_accuracy": _mean(hits),
        "mc_accuracy_ci": _ci(hits),
        "mc_chance": _mean([chance_mc_accuracy(len(m.choices)) for m in mc]),
        "n_qa": len(items),
        "n_mc": len(mc),
        "samples": samples,
        # per topic, template, source kind and document, each figure with its interval
        "breakdown": breakdown(items, item_scores),
        # per-item scores, in item order, so two models can be compared item by item
        "item_scores": item_scores,
        # the answers themselves, for a judge comparing two models' answers
        "predictions": {it.id: p for it, p in zip(items, predictions, strict=True)},
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


def _figure(row: dict[str, Any], key: str) -> str:
    """`0.512 [0.47, 0.55]`: the figure and its 95% interval; MC adds its chance level."""
    value = row.get(key)
    text = _cell(value)
    ci = row.get(f"{key}_ci")
    if value is not None and ci:
        text += f" [{ci[0]:.2f}, {ci[1]:.2f}]"
    if key == "mc_accuracy" and value is not None and row.get("mc_chance") is not None:
        text += f" (chance {row['mc_chance']:.2f})"
    return text


def comparison_table(rows: list[dict[str, Any]], title: str | None = None) -> Table:
    """One row per model (untrained, trained, generator ...): model, bpb, qa_f1, mc_accuracy
    and general_bpb (when measured), each with its 95% interval where the row has one, and MC
    with its chance level.

    A value a row lacks (a generator has no bpb) shows as "—".
    """
    table = Table(title=title)
    table.add_column("model", style="bold")
    # bits-per-byte columns only where some model was scored on text
    names = [k for k in TABLE_FIGURES if "bpb" not in k or any(r.get(k) for r in rows)]
    for name in names:
        table.add_column(name, justify="right")
    for row in rows:
        table.add_row(str(row.get("model", MISSING)), *(_figure(row, k) for k in names))
    return table


def _difference(entry: dict[str, Any]) -> str:
    text = f"{entry['difference']:+.3f}"
    ci: Interval | list[float] | None = entry.get("ci")
    return text + (f" [{ci[0]:+.2f}, {ci[1]:+.2f}]" if ci else "")


def difference_table(comparisons: dict[str, dict[str, Any]], title: str | None = None) -> Table:
    """Paired differences (eval/compare.py compare_reports), one row per comparison and metric:
    `model − against`, the difference with its paired 95% interval, and the verdict."""
    table = Table(title=title)
    table.add_column("comparison")
    table.add_column("metric")
    table.add_column("difference [95% CI]", justify="right")
    table.add_column("verdict")
    for comp in comparisons.values():
        label = f"{comp.get('model', MISSING)} − {comp.get('against', MISSING)}"
        for metric, entry in comp.get("metrics", {}).items():
            better = "" if entry.get("higher_is_better", True) else " (lower is better)"
            table.add_row(label, metric + better, _difference(entry), entry["verdict"])
    return table


def breakdown_table(
    rows: list[dict[str, Any]],
    grouping: str,
    metric: str,
    title: str | None = None,
    max_rows: int = 12,
) -> Table | None:
    """One row per group of `grouping` (topic, template, source, doc), largest first, at most
    `max_rows` (eval.json has them all), one column per model: `metric` with its 95%
    interval; None when no report has that grouping."""
    groups: dict[str, int] = {}
    for row in rows:
        for group, fig in (row.get("breakdown") or {}).get(grouping, {}).items():
            groups.setdefault(group, fig["n"])
    if not groups:
        return None
    table = Table(title=title or f"{metric} by {grouping}, 95% CI")
    table.add_column(grouping)
    table.add_column("n", justify="right")
    for row in rows:
        table.add_column(str(row.get("model", MISSING)), justify="right")
    for group, n in list(groups.items())[:max_rows]:
        cells = []
        for row in rows:
            fig = (row.get("breakdown") or {}).get(grouping, {}).get(group)
            cells.append(MISSING if fig is None else _figure(fig, metric))
        table.add_row(group, str(n), *cells)
    return table
