"""The evaluate stage: bits-per-byte on held-out text, domain QA (token F1, exact match) and
multiple choice, and the report comparing untrained, trained and generator models.

`bits_per_byte` imports torch, so it is loaded on first use rather than with the package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jupiter.eval.mc import build_mc
from jupiter.eval.qa import (
    MCItem,
    QAItem,
    exact_match,
    load_eval_set,
    normalize_answer,
    token_f1,
)
from jupiter.eval.report import (
    Answerer,
    chance_mc_accuracy,
    comparison_table,
    evaluate_answerer,
    write_report,
)

if TYPE_CHECKING:
    from jupiter.eval.bpb import bits_per_byte

__all__ = [
    "Answerer",
    "MCItem",
    "QAItem",
    "bits_per_byte",
    "build_mc",
    "chance_mc_accuracy",
    "comparison_table",
    "evaluate_answerer",
    "exact_match",
    "load_eval_set",
    "normalize_answer",
    "token_f1",
    "write_report",
]


def __getattr__(name: str) -> Any:
    if name == "bits_per_byte":
        from jupiter.eval.bpb import bits_per_byte

        return bits_per_byte
    raise AttributeError(f"module 'jupiter.eval' has no attribute '{name}'")
