"""What an eval records and shows: each model's summary on both exams, the paired
comparisons (the student, or the student reading with its retriever, against the base and
the generator), eval.json / eval_items.json, and the console tables."""

from __future__ import annotations

import json
from typing import Any

from jupiter import atomic
from jupiter.improve.workspace import Workspace

SUMMARY_KEYS = (
    "model",
    "path",
    "bpb",
    "qa_f1",
    "qa_exact",
    "mc_accuracy",
    "n_qa",
    "n_mc",
    "bpb_ci",
    "qa_f1_ci",
    "qa_exact_ci",
    "mc_accuracy_ci",
    "mc_chance",
    "general_bpb",
    "general_bpb_ci",
)
BPB_KEYS = (
    "bpb",
    "bpb_ci",
    "bpb_docs",
    "heldout_bytes",
    "general_bpb",
    "general_bpb_ci",
    "general_bpb_docs",
    "general_bytes",
)
LOWER_IS_BETTER = ("bpb", "general_bpb")  # bits per byte; every other figure: higher is better
NOT_A_MODEL = {"bpb": None, "bpb_ci": None, "general_bpb": None, "general_bpb_ci": None}


def summary(report: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if report is None else {k: report.get(k) for k in SUMMARY_KEYS}


def user_summary(report: dict[str, Any]) -> dict[str, Any]:
    """A model's user-exam figures (its QA and MC there), named like the model."""
    got = report.get("user_exam") or {}
    return {k: got.get(k) for k in SUMMARY_KEYS} | {"model": report.get("model")}


def paired_comparisons(
    student: dict[str, Any], untrained: dict[str, Any] | None, generator: dict[str, Any]
) -> dict[str, Any]:
    """student - untrained and student - generator, each metric with its paired 95% CI."""
    from jupiter.eval.compare import compare_reports

    out = {"student_vs_generator": compare_reports(student, generator)}
    if untrained is not None:
        out = {"student_vs_untrained": compare_reports(student, untrained)} | out
    return out


def user_exam_comparisons(
    student: dict[str, Any], untrained: dict[str, Any] | None, generator: dict[str, Any]
) -> dict[str, Any] | None:
    """The same pairs on the user exam; None when the student did not sit one."""
    if "user_exam" not in student:
        return None
    return paired_comparisons(
        student["user_exam"],
        None if untrained is None else untrained.get("user_exam"),
        generator.get("user_exam") or {},
    )


def write_eval(ws: Workspace, cycle: int, report: dict[str, Any]) -> None:
    """eval.json without per-item scores (readable), and eval_items.json beside it with them
    (compact: one line per model), for pairing these reports with later ones."""
    from jupiter.eval.compare import items_of, without_items
    from jupiter.eval.report import write_report

    models = [k for k in ("student", "generator", "untrained", "student+retriever") if k in report]
    slim = {k: (without_items(v) if k in models and v else v) for k, v in report.items()}
    write_report(ws.cycle_dir(cycle) / "eval.json", slim)
    lines = [f"{json.dumps(k)}: {json.dumps(items_of(report[k]))}" for k in models if report[k]]
    text = "{\n" + ",\n".join(lines) + "\n}\n"  # valid JSON, one model a line
    atomic.write_text(ws.cycle_dir(cycle) / "eval_items.json", text)


def candidate_record(models: dict[str, Any], user: bool) -> dict[str, Any]:
    """The student reading with its retriever, paired against the same models on both
    exams: what the gate judges when promotion.candidate is student+retriever."""
    reading, generator = models["student+retriever"], models["generator"]
    out: dict[str, Any] = {
        "student": summary(reading),
        "comparisons": paired_comparisons(reading, models["untrained"], generator),
    }
    if user:
        out["user_exam"] = {
            "student": user_summary(reading),
            "comparisons": user_exam_comparisons(reading, models["untrained"], generator),
        }
    return out


def print_eval(ws: Workspace, report: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    """The eval's tables: each exam's figures per model and the paired differences."""
    from jupiter.eval.distractors import describe
    from jupiter.eval.report import breakdown_table, comparison_table, difference_table

    ws.console.print(comparison_table([summary(r) or {} for r in rows], title="own exam"))
    ws.console.print(describe(report["eval_set"].get("distractors")))
    pairs = dict(report["comparisons"])
    if "retriever" in report:
        pairs |= {f"reader_{k}": v for k, v in report["retriever"]["comparisons"].items()}
    ws.console.print(difference_table(pairs, title="own exam: paired differences, 95% CI"))
    user = report.get("user_exam")
    if user is not None and user.get("comparisons") is not None:
        ws.console.print(comparison_table([user_summary(r) for r in rows], title="user exam"))
        pairs = dict(user["comparisons"])
        if "retriever" in report:
            more = report["retriever"]["user_exam"]["comparisons"] or {}
            pairs |= {f"reader_{k}": v for k, v in more.items()}
        ws.console.print(difference_table(pairs, title="user exam: paired differences, 95% CI"))
    for grouping in ("topic", "source"):
        table = breakdown_table(rows, grouping, ws.cfg.promotion.metric)
        if table is not None:
            ws.console.print(table)
