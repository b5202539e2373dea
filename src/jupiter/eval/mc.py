"""Multiple choice built from a QA set: each item's reference answer among distractors taken
from the other items' answers, unless the item carries its own choices (used as given).

Random other answers flatter: a retriever tells them apart by topic alone (the extractive
generator scored 0.91 on them, and about 0.5-0.6 on 4-way questions with plausible
distractors). So distractors are "hard" by default: answers of the same question
type, then the same source kind, then the same topic (or document family), and among those
the nearest to the question by BM25 (Robertson & Zaragoza 2009) — the answers a model that
only knows the topic would find as likely as the right one.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Literal
from urllib.parse import urlparse

import numpy as np

from jupiter.errors import JupiterError
from jupiter.eval.qa import MCItem, QAItem, normalize_answer, token_f1

Distractors = Literal["hard", "random"]

# a distractor this close to the reference (token F1) would be a second right answer
MAX_OVERLAP = 0.8
# the preference tiers of a hard distractor, as weights of one sort key: type first, then
# source kind, then topic; BM25 (scaled into [0, 1)) and a seeded tie-break order inside a tier
_TYPE, _KIND, _TOPIC = 8.0, 4.0, 2.0

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):(?!//)(.*)$")  # python:json.dumps, pydoc:…
_WORD = re.compile(r"[a-z]+")


def question_type(item: QAItem) -> str:
    """The item's template when it has one, else the question's opening word (what, how,
    which, does ...): answers to "what does X return" and "how do I" look different."""
    if item.template:
        return item.template
    m = _WORD.search(item.question.lower())
    return m.group(0) if m else ""


def source_prefix(source: str) -> str:
    """The kind of source an item came from: `python` for python:json.dumps, the host of a
    URL, `docstring` for "json.dumps docstring", `pydoc_data.topics` for
    pydoc_data.topics['for'], the folder of a file path."""
    source = source.strip()
    if not source:
        return ""
    if "://" in source:
        return urlparse(source).netloc
    m = _SCHEME.match(source)
    if m:
        return m.group(1)
    if source.endswith(" docstring"):
        return "docstring"
    if "[" in source:
        return source.split("[", 1)[0]
    if "/" in source or "\\" in source:
        parts = re.split(r"[/\\]", source.rstrip("/\\"))
        return parts[-2] if len(parts) > 1 else ""
    return source.split(".", 1)[0]


def family(item: QAItem) -> str:
    """The item's topic; without one, its document family: the module of python:json.dumps
    (json), the first path segment of a URL, the folder of a file, else the document."""
    if item.topic:
        return item.topic
    source = item.source.strip()
    if "://" in source:
        path = urlparse(source).path.strip("/")
        return path.split("/", 1)[0] if path else urlparse(source).netloc
    m = _SCHEME.match(source)
    if m:
        return re.split(r"[./]", m.group(2), maxsplit=1)[0]
    return source_prefix(source) or item.doc


class _HardPool:
    """Every candidate answer with its type, source kind and topic, and a BM25 index over the
    answers, so one item's candidates are ranked with a few array operations."""

    def __init__(self, pool: Sequence[QAItem]) -> None:
        from jupiter.synth.retrieval import BM25Index

        self.pool = pool
        n = len(pool)
        keys = [(question_type(o), source_prefix(o.source), family(o)) for o in pool]
        self.codes: list[np.ndarray] = []
        self.lookup: list[dict[str, int]] = []
        for j in range(3):  # type, source kind, topic as small integers
            index: dict[str, int] = {}
            self.codes.append(np.asarray([index.setdefault(k[j], len(index)) for k in keys]))
            self.lookup.append(index)
        self.index = BM25Index([o.answer for o in pool]) if n else None

    def ranked(self, item: QAItem, rng: random.Random) -> list[int]:
        """Pool positions, best distractor for `item` first."""
        n = len(self.pool)
        score = np.zeros(n, dtype=np.float64)
        own = (question_type(item), source_prefix(item.source), family(item))
        for j, weight in enumerate((_TYPE, _KIND, _TOPIC)):
            code = self.lookup[j].get(own[j], -1)
            score += weight * (self.codes[j] == code)
        if self.index is not None:
            bm25 = self.index.scores(item.question)
            if bm25.max() > 0:
                score += 0.999 * bm25 / bm25.max()  # stays inside its tier
        # a seeded order among equal scores: no first-listed bias
        noise = np.asarray([rng.random() for _ in range(n)])
        return [int(i) for i in np.lexsort((noise, -score))]


def _distractors(item: QAItem, order: Sequence[QAItem], k: int) -> list[str]:
    """The first k answers of `order` that differ from the reference and from each other."""
    taken = {normalize_answer(item.answer)}
    out: list[str] = []
    for cand in order:
        key = normalize_answer(cand.answer)
        if cand.id == item.id or key in taken or token_f1(cand.answer, item.answer) >= MAX_OVERLAP:
            continue
        taken.add(key)
        out.append(cand.answer)
        if len(out) == k:
            break
    return out


def hard_distractors(items: Sequence[QAItem], k: int, seed: int) -> dict[str, list[str]]:
    """Up to `k` hard distractors for every item, best first, drawn as build_mc draws them
    (so the first of them are the ones build_mc would pick): the top-ups of choices an LLM
    teacher wrote too few of (eval/distractors.py)."""
    pool = sorted(items, key=lambda it: it.id)
    hard = _HardPool(pool)
    out: dict[str, list[str]] = {}
    for item in items:
        rng = random.Random(f"{seed}:{item.id}")
        out[item.id] = _distractors(item, [pool[i] for i in hard.ranked(item, rng)], k)
    return out


def check_mc_choices(items: Sequence[QAItem], n_choices: int) -> None:
    """JupiterError unless every item can get `n_choices` choices: its own, or its answer
    among other items' distinct answers."""
    if n_choices < 2:
        raise JupiterError(f"eval.mc_choices must be at least 2, got {n_choices}")
    if any(not it.choices for it in items):
        distinct = {normalize_answer(it.answer) for it in items}
        if len(distinct) < n_choices:
            raise JupiterError(
                f"multiple choice needs at least {n_choices} distinct answers in the eval set,"
                f" found {len(distinct)}: add items or lower eval.mc_choices"
            )


def build_mc(
    items: Sequence[QAItem], n_choices: int, seed: int, distractors: Distractors = "hard"
) -> list[MCItem]:
    """Multiple choice for every item: its own choices when it has them, else its reference
    answer among `n_choices - 1` other items' answers (hard ones, or random ones).

    Each item's draw depends only on (seed, item id) and the set of items, not on their order.
    """
    check_mc_choices(items, n_choices)
    pool = sorted(items, key=lambda it: it.id)  # order-independent draws
    hard = _HardPool(pool) if distractors == "hard" else None
    out: list[MCItem] = []
    for item in items:
        if item.choices and item.answer_index is not None:
            out.append(MCItem(item.id, item.question, list(item.choices), item.answer_index))
            continue
        rng = random.Random(f"{seed}:{item.id}")
        if hard is not None:
            order = [pool[i] for i in hard.ranked(item, rng)]
        else:
            order = list(pool)
            rng.shuffle(order)
        choices = _distractors(item, order, n_choices - 1)
        correct = rng.randrange(len(choices) + 1)
        choices.insert(correct, item.answer)
        out.append(MCItem(id=item.id, question=item.question, choices=choices, correct=correct))
    return out
