"""Figures per group of items: per topic, per question template, per source kind and per
document, each with its 95% bootstrap interval, so a mean that hides a weak topic shows it.

A group is named by the same keys that pick hard MC distractors (eval/mc.py): the item's
topic (else its document family), its template (else the question's opening word), the kind
of source it quotes, and its document.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from jupiter.eval.mc import family, question_type, source_prefix
from jupiter.eval.qa import QAItem
from jupiter.eval.stats import mean_ci

GROUPINGS: dict[str, Callable[[QAItem], str]] = {
    "topic": family,
    "template": question_type,
    "source": lambda it: source_prefix(it.source),
    "doc": lambda it: it.doc or it.source,
}
METRICS = ("qa_f1", "qa_exact", "mc_accuracy")
MAX_GROUPS = 25  # the largest groups of a grouping are listed; the rest are pooled
OTHER = "(other)"
NONE = "(none)"


def _figures(scores: Mapping[str, Mapping[str, float]], ids: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"n": len(ids)}
    for metric in METRICS:
        values = [float(scores[metric][i]) for i in ids if i in scores.get(metric, {})]
        ci = mean_ci(values)
        out[metric] = sum(values) / len(values) if values else None
        out[f"{metric}_ci"] = None if ci is None else list(ci)
    return out


def breakdown(
    items: Sequence[QAItem],
    item_scores: Mapping[str, Mapping[str, float]],
    max_groups: int = MAX_GROUPS,
) -> dict[str, dict[str, dict[str, Any]]]:
    """{grouping: {group: {n, qa_f1, qa_f1_ci, qa_exact, ..., mc_accuracy_ci}}}, largest
    groups first. A grouping where every item falls in one group tells nothing and is left
    out; past `max_groups` groups, the smaller ones are pooled as "(other)"."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for name, key in GROUPINGS.items():
        groups: dict[str, list[str]] = defaultdict(list)
        for it in items:
            groups[key(it) or NONE].append(it.id)
        if len(groups) < 2:
            continue
        ranked = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        shown, rest = ranked[:max_groups], ranked[max_groups:]
        if rest:
            shown.append((OTHER, [i for _, ids in rest for i in ids]))
        out[name] = {group: _figures(item_scores, ids) for group, ids in shown}
    return out
