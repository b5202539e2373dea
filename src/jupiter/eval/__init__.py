"""The evaluate stage: bits-per-byte on held-out text, domain QA (token F1, exact match) and
multiple choice, and the report comparing untrained, trained and generator models.

Every name is loaded on first use, not with the package: `jupiter --help` imports
jupiter.eval.cli, which must not pull in numpy (mc.py) or torch (bpb.py).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jupiter.eval.bpb import bits_per_byte
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

# each public name and the module that holds it
_HOME = {
    "bits_per_byte": "bpb",
    "build_mc": "mc",
    "MCItem": "qa",
    "QAItem": "qa",
    "exact_match": "qa",
    "load_eval_set": "qa",
    "normalize_answer": "qa",
    "token_f1": "qa",
    "Answerer": "report",
    "chance_mc_accuracy": "report",
    "comparison_table": "report",
    "evaluate_answerer": "report",
    "write_report": "report",
}

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
    if name in _HOME:
        return getattr(import_module(f"jupiter.eval.{_HOME[name]}"), name)
    raise AttributeError(f"module 'jupiter.eval' has no attribute '{name}'")
