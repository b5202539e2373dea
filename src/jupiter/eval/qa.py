"""The domain QA eval set: loading it, SQuAD-style answer scoring, and multiple choice built
from the set itself.

Scoring follows the SQuAD v1.1 evaluation script (Rajpurkar et al. 2016): answers are
lowercased, stripped of punctuation and of the articles a/an/the, and whitespace-collapsed;
token F1 is the harmonic mean of precision and recall over the bag of normalized tokens.
"""

from __future__ import annotations

import json
import random
import re
import string
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jupiter.errors import JupiterError

REQUIRED_FIELDS = ("id", "question", "answer")
OPTIONAL_FIELDS = ("source", "topic")

_PUNCT = frozenset(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


@dataclass(frozen=True)
class QAItem:
    """One question with its reference answer and where in the docs the answer is."""

    id: str
    question: str
    answer: str
    source: str = ""  # e.g. "json.dumps docstring" or "pydoc_data.topics['for']"
    topic: str = ""  # e.g. "json", "builtins", "language"


@dataclass(frozen=True)
class MCItem:
    """A multiple-choice question: `choices[correct]` is the reference answer."""

    id: str
    question: str
    choices: list[str]
    correct: int


# ----------------------------------------------------------------------------- loading
def _parse_line(path: Path, lineno: int, line: str) -> QAItem:
    where = f"{path}:{lineno}"
    try:
        obj: Any = json.loads(line)
    except json.JSONDecodeError as e:
        raise JupiterError(f"{where}: malformed JSON: {e.msg} (one JSON object per line)") from None
    if not isinstance(obj, dict):
        raise JupiterError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    fields: dict[str, str] = {}
    for key in REQUIRED_FIELDS:
        value = obj.get(key)
        if value is None:
            raise JupiterError(
                f"{where}: missing field '{key}' (each line needs id, question, answer)"
            )
        if not isinstance(value, str) or not value.strip():
            raise JupiterError(f"{where}: field '{key}' must be a non-empty string")
        fields[key] = value.strip()
    for key in OPTIONAL_FIELDS:
        value = obj.get(key, "")
        if not isinstance(value, str):
            raise JupiterError(f"{where}: field '{key}' must be a string")
        fields[key] = value.strip()
    return QAItem(**fields)


def load_eval_set(path: Path) -> list[QAItem]:
    """Read a JSONL eval set: one {id, question, answer, source?, topic?} object per line.

    Blank lines are skipped. A malformed line, a missing field or a repeated id raises a
    JupiterError naming the file and the line.
    """
    path = Path(path)
    if not path.is_file():
        raise JupiterError(f"eval set not found: {path} (set eval.qa_path in the domain YAML)")
    items: list[QAItem] = []
    first_line: dict[str, int] = {}
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            item = _parse_line(path, lineno, line)
            if item.id in first_line:
                raise JupiterError(
                    f"{path}:{lineno}: duplicate id '{item.id}' (first on line {first_line[item.id]})"
                )
            first_line[item.id] = lineno
            items.append(item)
    if not items:
        raise JupiterError(f"{path}: the eval set is empty")
    return items


# ----------------------------------------------------------------------------- scoring
def normalize_answer(text: str) -> str:
    """SQuAD normalization: lowercase, drop punctuation, drop articles, collapse whitespace."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCT)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def exact_match(prediction: str, reference: str) -> bool:
    return normalize_answer(prediction) == normalize_answer(reference)


def token_f1(prediction: str, reference: str) -> float:
    """SQuAD token F1 between a prediction and a reference answer, in [0, 1]."""
    pred = normalize_answer(prediction).split()
    ref = normalize_answer(reference).split()
    if not pred or not ref:
        # SQuAD's rule: two empty answers agree, an empty one against a non-empty one scores 0
        return float(pred == ref)
    same = sum((Counter(pred) & Counter(ref)).values())
    if same == 0:
        return 0.0
    precision = same / len(pred)
    recall = same / len(ref)
    return 2 * precision * recall / (precision + recall)


# ----------------------------------------------------------------------- multiple choice
def _distractors(item: QAItem, pool: Sequence[QAItem], k: int, rng: random.Random) -> list[str]:
    """k answers of other items, same topic first, none equal (normalized) to another choice."""
    same = [o for o in pool if o.id != item.id and o.topic == item.topic]
    other = [o for o in pool if o.id != item.id and o.topic != item.topic]
    rng.shuffle(same)
    rng.shuffle(other)
    taken = {normalize_answer(item.answer)}
    out: list[str] = []
    for cand in [*same, *other]:
        key = normalize_answer(cand.answer)
        if key in taken:
            continue
        taken.add(key)
        out.append(cand.answer)
        if len(out) == k:
            break
    return out


def build_mc(items: Sequence[QAItem], n_choices: int, seed: int) -> list[MCItem]:
    """Turn QA items into multiple choice: distractors are other items' reference answers.

    Distractors from the same topic are preferred (harder than random ones). Each item's
    draw depends only on (seed, item id) and the set of items, not on their order.
    """
    if n_choices < 2:
        raise JupiterError(f"eval.mc_choices must be at least 2, got {n_choices}")
    pool = sorted(items, key=lambda it: it.id)  # order-independent draws
    distinct = {normalize_answer(it.answer) for it in items}
    if len(distinct) < n_choices:
        raise JupiterError(
            f"multiple choice needs at least {n_choices} distinct answers in the eval set,"
            f" found {len(distinct)}: add items or lower eval.mc_choices"
        )
    out: list[MCItem] = []
    for item in items:
        rng = random.Random(f"{seed}:{item.id}")
        choices = _distractors(item, pool, n_choices - 1, rng)
        correct = rng.randrange(n_choices)
        choices.insert(correct, item.answer)
        out.append(MCItem(id=item.id, question=item.question, choices=choices, correct=correct))
    return out
