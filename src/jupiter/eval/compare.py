"""Paired comparison of two eval reports (say the student against the untrained model, or
against the generator): for each metric both measured on the same items, the difference of
means, its paired 95% bootstrap interval (eval/stats.py) and a verdict.

Items are matched by id (QA and MC), and the texts scored for bits-per-byte (held-out domain
text, general text) by position, with their byte counts checked equal, so a report over
other items is never paired by accident.
"""

from __future__ import annotations

from typing import Any

from jupiter.eval.stats import (
    Interval,
    paired_diff_ci,
    paired_ratio_diff_ci,
    verdict,
)

ITEM_METRICS = ("qa_f1", "qa_exact", "mc_accuracy")  # higher is better
# bits-per-byte on the held-out domain text and on general text: lower is better
RATIO_METRICS = {"bpb": "bpb_docs", "general_bpb": "general_bpb_docs"}
# the bulky per-item parts of a report
PER_ITEM_KEYS = ("item_scores", *RATIO_METRICS.values(), "predictions")


def _entry(
    value: float, other: float, n: int, ci: Interval | None, higher_is_better: bool
) -> dict[str, Any]:
    return {
        "model": value,
        "against": other,
        "difference": value - other,
        "ci": None if ci is None else list(ci),
        "n": n,
        "higher_is_better": higher_is_better,
        "verdict": verdict(ci, higher_is_better),
    }


def _item_metric(a: dict[str, float], b: dict[str, float]) -> dict[str, Any] | None:
    shared = [k for k in a if k in b]
    if not shared:
        return None
    xa = [float(a[k]) for k in shared]
    xb = [float(b[k]) for k in shared]
    mean_a, mean_b = sum(xa) / len(xa), sum(xb) / len(xb)
    return _entry(mean_a, mean_b, len(shared), paired_diff_ci(xa, xb), True)


def _bpb(a: dict[str, list[float]], b: dict[str, list[float]]) -> dict[str, Any] | None:
    """Bits-per-byte, lower is better, paired over documents when both scored the same ones."""
    if list(a["bytes"]) != list(b["bytes"]) or not a["bytes"]:
        return None
    total = float(sum(a["bytes"]))
    ci = paired_ratio_diff_ci(a["bits"], a["bytes"], b["bits"], b["bytes"])
    return _entry(sum(a["bits"]) / total, sum(b["bits"]) / total, len(a["bytes"]), ci, False)


def compare_reports(model: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """model - other on every metric both reports scored item by item; {} metrics if none.

    Reports without per-item scores (written before they were kept) give no metrics.
    """
    metrics: dict[str, Any] = {}
    scores_a = model.get("item_scores") or {}
    scores_b = other.get("item_scores") or {}
    for name in ITEM_METRICS:
        if scores_a.get(name) and scores_b.get(name):
            entry = _item_metric(scores_a[name], scores_b[name])
            if entry is not None:
                metrics[name] = entry
    for name, key in RATIO_METRICS.items():
        docs_a, docs_b = model.get(key), other.get(key)
        if docs_a and docs_b:
            entry = _bpb(docs_a, docs_b)
            if entry is not None:
                metrics[name] = entry
    return {"model": model.get("model"), "against": other.get("model"), "metrics": metrics}


def without_items(report: dict[str, Any]) -> dict[str, Any]:
    """The report less its per-item scores (those go to a file of their own), its second
    exam's (`user_exam`) too."""
    out = {k: v for k, v in report.items() if k not in PER_ITEM_KEYS}
    if isinstance(out.get("user_exam"), dict):
        out["user_exam"] = without_items(out["user_exam"])
    return out


def items_of(report: dict[str, Any]) -> dict[str, Any]:
    """Only the per-item scores of a report (and of its `user_exam`)."""
    out = {k: report[k] for k in PER_ITEM_KEYS if k in report}
    if isinstance(report.get("user_exam"), dict):
        out["user_exam"] = items_of(report["user_exam"])
    return out
