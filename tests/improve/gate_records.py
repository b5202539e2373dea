"""Helpers for the gate, lineage and loop tests: the eval stage's record built from synthetic
per-item scores through the real paired bootstrap."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from jupiter.eval.compare import compare_reports
from jupiter.improve.workspace import Workspace

# the make_ws fixture of conftest.py: make_ws(cycles=1, **promotion keys) -> Workspace
MakeWorkspace = Callable[..., Workspace]


def printed(ws: Workspace) -> str:
    return ws.console.file.getvalue()  # type: ignore[attr-defined]


def hits(n: int, p: float, seed: int) -> list[float]:
    """n Bernoulli(p) per-item scores, seeded."""
    rng = random.Random(seed)
    return [1.0 if rng.random() < p else 0.0 for _ in range(n)]


def eval_record(
    student_hits: list[float],
    generator_hits: list[float],
    generator: str = "extractive",
    general: tuple[float, float] | None = None,
) -> dict[str, Any]:
    """The eval stage's record for two models' MC hits on the same items, through the real
    paired bootstrap; `general` = (student, generator) out-of-domain bits-per-byte."""

    def report(model: str, scores: list[float]) -> dict[str, Any]:
        items = {f"q{k}": h for k, h in enumerate(scores)}
        return {
            "model": model,
            "mc_accuracy": sum(scores) / len(scores),
            "item_scores": {"mc_accuracy": items},
        }

    student = report("student:cycle-001", student_hits)
    gen = report(f"generator:{generator}", generator_hits)
    comparison = compare_reports(student, gen)
    if general is not None:
        student["general_bpb"], gen["general_bpb"] = general
        comparison["metrics"]["general_bpb"] = {
            "model": general[0],
            "against": general[1],
            "difference": general[0] - general[1],
            "ci": [general[0] - general[1] - 0.01, general[0] - general[1] + 0.01],
        }
    for r in (student, gen):
        del r["item_scores"]  # the stage records summaries
    return {
        "student": student,
        "generator": gen,
        "untrained": None,
        "comparisons": {"student_vs_generator": comparison},
    }
