"""The domain QA eval set: loading it and SQuAD-style answer scoring (multiple choice built
from the set is in eval/mc.py).

Scoring follows the SQuAD v1.1 evaluation script (Rajpurkar et al. 2016): answers are
lowercased, stripped of punctuation and of the articles a/an/the, and whitespace-collapsed;
token F1 is the harmonic mean of precision and recall over the bag of normalized tokens.
"""

from __future__ import annotations

import json
import re
import string
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jupiter.errors import JupiterError

REQUIRED_FIELDS = ("id", "question", "answer")  # answer may be left out when choices are given
OPTIONAL_FIELDS = ("source", "topic", "template", "doc")

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
    template: str = ""  # the question's type, e.g. "what_does", "arguments" (generated sets)
    doc: str = ""  # the document it was made from (a document id, for generated sets)
    # a multiple-choice item as written: used as given instead of built distractors
    choices: tuple[str, ...] = ()
    answer_index: int | None = None


@dataclass(frozen=True)
class MCItem:
    """A multiple-choice question: `choices[correct]` is the reference answer."""

    id: str
    question: str
    choices: list[str]
    correct: int


# ----------------------------------------------------------------------------- loading
def _choices(where: str, obj: dict[str, Any]) -> tuple[tuple[str, ...], int | None]:
    """The item's own choices and answer_index, checked; ((), None) when it has none."""
    choices, index = obj.get("choices"), obj.get("answer_index")
    if choices is None and index is None:
        return (), None
    if not isinstance(choices, list) or len(choices) < 2:
        raise JupiterError(f"{where}: 'choices' must be a list of at least 2 strings")
    if not all(isinstance(c, str) and c.strip() for c in choices):
        raise JupiterError(f"{where}: every choice must be a non-empty string")
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(choices):
        raise JupiterError(
            f"{where}: 'answer_index' must be an integer from 0 to {len(choices) - 1}"
            " (the position of the right choice)"
        )
    return tuple(c.strip() for c in choices), index


def _parse_line(path: Path, lineno: int, line: str) -> QAItem:
    where = f"{path}:{lineno}"
    try:
        obj: Any = json.loads(line)
    except json.JSONDecodeError as e:
        raise JupiterError(f"{where}: malformed JSON: {e.msg} (one JSON object per line)") from None
    except RecursionError:
        raise JupiterError(
            f"{where}: malformed JSON: nested too deeply (one flat object per line)"
        ) from None
    if not isinstance(obj, dict):
        raise JupiterError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    choices, index = _choices(where, obj)
    if choices and index is not None and obj.get("answer") is None:
        obj = {**obj, "answer": choices[index]}  # a multiple-choice item needs no answer text
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
    return QAItem(**fields, choices=choices, answer_index=index)


def load_eval_set(path: Path) -> list[QAItem]:
    """Read a JSONL eval set: one {id, question, answer, source?, topic?, template?, doc?}
    object per line; a multiple-choice item adds choices (a list) and answer_index, and may
    then leave out answer.

    Blank lines are skipped. A malformed line, a missing field or a repeated id raises a
    JupiterError naming the file and the line.
    """
    path = Path(path)
    if path.is_dir():
        raise JupiterError(
            f"eval set {path} is a folder: point eval.qa_path (or --qa) at a JSONL file of {{id,"
            " question, answer}} lines"
        )
    if not path.is_file():
        raise JupiterError(f"eval set not found: {path} (check the path and the file's name)")
    items: list[QAItem] = []
    first_line: dict[str, int] = {}
    for lineno, line in enumerate(_lines(path), start=1):
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
        raise JupiterError(
            f"{path}: the eval set is empty: write one {{id, question, answer}} JSON object a line"
        )
    return items


def _lines(path: Path) -> list[str]:
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8-sig").split("\n")  # JSON strings may hold U+2028
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        raise JupiterError(
            f"{path}:{line}: byte 0x{raw[err.start]:02x} is not UTF-8: save the eval set as UTF-8"
        ) from None


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


def item_record(item: QAItem) -> dict[str, Any]:
    """The JSONL object `load_eval_set` reads back into the same item (empty fields left out)."""
    out: dict[str, Any] = {"id": item.id, "question": item.question, "answer": item.answer}
    for key in OPTIONAL_FIELDS:
        if getattr(item, key):
            out[key] = getattr(item, key)
    if item.choices:
        out["choices"], out["answer_index"] = list(item.choices), item.answer_index
    return out
