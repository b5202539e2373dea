"""Pairwise LLM-as-judge: for each question, a judge (any generator backend) reads the
reference answer and two models' answers and says which is better.

LLM judges favour the answer shown first (or second) regardless of content: Zheng et al.
2023, "Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena", section 3.3, found GPT-4
consistent under a swap in only about two thirds of cases. So every pair is judged in both
orders and the two verdicts averaged: a judge that always says "A" gives every item 0.5,
a tie, instead of a win for whichever model happened to be shown first.

An item scores 1 when model a wins both orders, 0 when b does, 0.5 for a tie or a split;
the win rate is the mean, with its 95% bootstrap interval, and 0.5 is parity.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import Any

from jupiter.eval.qa import QAItem
from jupiter.eval.stats import mean_ci, verdict
from jupiter.store import Store
from jupiter.synth.backend import Backend, Completion, Request, Sampling

SYSTEM = "You are a strict, fair grader of answers to questions about technical documentation."
PROMPT = """Question:
{question}

Reference answer:
{reference}

Answer A:
{a}

Answer B:
{b}

Which answer is more correct and complete, judged against the reference answer? Length
and style do not matter. Reply with one letter: A, B, or T for a tie."""
MAX_TOKENS = 8
_ANSWER = re.compile(r"\b[Aa]nswer ([AB])\b")
# score of model a for a verdict, when a was shown first and when it was shown second
FIRST = {"A": 1.0, "B": 0.0, "T": 0.5}
SECOND = {"A": 0.0, "B": 1.0, "T": 0.5}


def parse_verdict(text: str) -> str | None:
    """The judge's letter: A, B or T ("[[A]]", "B.", "Tie", "Answer A is better" count);
    None when the reply names none."""
    s = text.strip().lstrip("[*(\"' ")
    if s[:1] in ("A", "B", "T") and (len(s) == 1 or not s[1].isalpha()):
        return s[0]
    if re.match(r"(?i)tie\b", s):
        return "T"
    m = _ANSWER.search(text)
    if m:
        return m.group(1)
    return "T" if re.search(r"(?i)\btie\b", text) else None


def pair_requests(items: Sequence[QAItem], a: Sequence[str], b: Sequence[str]) -> list[Request]:
    """Two requests per item: a shown first, then b shown first (greedy, seeded)."""
    sampling = Sampling(max_tokens=MAX_TOKENS, temperature=0.0, seed=0)
    out: list[Request] = []
    for it, x, y in zip(items, a, b, strict=True):
        for first, second in ((x, y), (y, x)):
            text = PROMPT.format(question=it.question, reference=it.answer, a=first, b=second)
            messages = ({"role": "system", "content": SYSTEM}, {"role": "user", "content": text})
            out.append(Request(messages=messages, sampling=sampling))
    return out


def judge_pairs(
    backend: Backend,
    items: Sequence[QAItem],
    a: Sequence[str],
    b: Sequence[str],
    store: Store | None = None,
    concurrency: int = 4,
) -> dict[str, Any]:
    """Model a's win rate over model b on `items` (answers in item order), both orders judged.

    Returns {"judge_win", "judge_win_ci", "n", "consistent", "unparsed", "item_scores"}:
    `consistent` is the share of items whose two verdicts agree once the swap is undone,
    `unparsed` the verdicts without a letter or whose call failed (each counted as a tie).
    """
    from jupiter.synth.engine import Engine, Retry

    requests = pair_requests(items, a, b)
    got: list[str | None] = [None] * len(requests)

    def done(i: int, out: Completion | None, _: str) -> None:
        got[i] = None if out is None else parse_verdict(out.text)

    async def go() -> None:
        try:
            await Engine(backend, store, concurrency, Retry(max_retries=2)).run(requests, done)
        finally:
            await backend.close()

    if requests:
        asyncio.run(go())
    scores: dict[str, float] = {}
    agree = 0
    for k, it in enumerate(items):
        one, two = got[2 * k], got[2 * k + 1]
        s1 = FIRST.get(one or "T", 0.5)
        s2 = SECOND.get(two or "T", 0.5)
        scores[it.id] = (s1 + s2) / 2
        agree += int(one is not None and two is not None and s1 == s2)
    values = list(scores.values())
    ci = mean_ci(values)
    return {
        "judge_win": sum(values) / len(values) if values else None,
        "judge_win_ci": None if ci is None else list(ci),
        "n": len(values),
        "consistent": agree / len(values) if values else None,
        "unparsed": sum(1 for v in got if v is None),
        "item_scores": scores,
    }


def win_entry(result: dict[str, Any]) -> dict[str, Any] | None:
    """The judge's figure as a paired-comparison entry (eval/compare.py's shape): the win
    rate against parity, 0.5, with its interval; None when nothing was judged."""
    win, ci = result.get("judge_win"), result.get("judge_win_ci")
    if win is None:
        return None
    shifted = None if ci is None else (ci[0] - 0.5, ci[1] - 0.5)
    return {
        "model": win,
        "against": 0.5,
        "difference": win - 0.5,
        "ci": None if shifted is None else list(shifted),
        "n": result["n"],
        "higher_is_better": True,
        "verdict": verdict(shifted),
        "consistent": result["consistent"],
        "unparsed": result["unparsed"],
    }
