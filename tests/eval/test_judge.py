"""Pairwise LLM-as-judge through a backend: both orders judged, so a judge that always picks
the first answer gives parity, and a judge that reads the content finds the better model
whichever side it is shown on."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from evaldocs import eval_with_tiny_models

from jupiter.eval.judge import judge_pairs, parse_verdict, win_entry
from jupiter.eval.qa import QAItem
from jupiter.synth.backend import Completion, Request

ITEMS = [QAItem(f"q{k}", f"What is {k} plus one?", f"{k + 1}") for k in range(12)]
RIGHT = [it.answer for it in ITEMS]
WRONG = ["no idea"] * len(ITEMS)


class ScriptedJudge:
    """A backend whose reply is a function of the prompt; it logs every prompt."""

    name, model, max_batch = "scripted", "judge", 4

    def __init__(self, reply: Callable[[str], str]) -> None:
        self.reply = reply
        self.prompts: list[str] = []

    async def check(self) -> None:
        return None

    async def complete(self, requests: Sequence[Request]) -> list[Completion]:
        out = []
        for r in requests:
            text = r.messages[-1]["content"]  # type: ignore[index]
            self.prompts.append(text)
            out.append(Completion(self.reply(text)))
        return out

    async def close(self) -> None:
        return None


def _content_judge(text: str) -> str:
    """Picks the answer equal to the reference, else a tie."""
    ref = text.split("Reference answer:\n")[1].split("\n")[0]
    a = text.split("Answer A:\n")[1].split("\n")[0]
    b = text.split("Answer B:\n")[1].split("\n")[0]
    return "[[A]]" if a == ref else "B." if b == ref else "Tie"


def test_a_judge_that_always_picks_the_first_answer_gives_parity() -> None:
    judge = ScriptedJudge(lambda _: "A")
    got = judge_pairs(judge, ITEMS, WRONG, RIGHT)
    assert got["judge_win"] == 0.5 and got["consistent"] == 0.0
    assert len(judge.prompts) == 2 * len(ITEMS)  # every pair, both orders
    assert win_entry(got)["verdict"] == "no difference (inside the noise)"  # type: ignore[index]


def test_a_content_judge_finds_the_better_model_on_either_side() -> None:
    better = judge_pairs(ScriptedJudge(_content_judge), ITEMS, RIGHT, WRONG)
    worse = judge_pairs(ScriptedJudge(_content_judge), ITEMS, WRONG, RIGHT)
    assert better["judge_win"] == 1.0 and worse["judge_win"] == 0.0
    assert better["consistent"] == 1.0 and better["unparsed"] == 0
    entry = win_entry(better)
    assert entry is not None and entry["verdict"] == "better" and entry["difference"] == 0.5
    mixed = RIGHT[:6] + WRONG[6:]  # right on half: a win there, a tie elsewhere
    half = judge_pairs(ScriptedJudge(_content_judge), ITEMS, mixed, WRONG)
    assert half["judge_win"] == pytest.approx(0.75)
    lo, hi = half["judge_win_ci"]
    assert lo < 0.75 < hi


def test_unreadable_verdicts_count_as_ties() -> None:
    got = judge_pairs(ScriptedJudge(lambda _: "I cannot decide"), ITEMS[:3], RIGHT[:3], WRONG[:3])
    assert got["judge_win"] == 0.5 and got["unparsed"] == 6


@pytest.mark.parametrize(
    ("reply", "letter"),
    [
        ("A", "A"),
        ("[[B]]", "B"),
        ("T", "T"),
        ("Tie.", "T"),
        ("B. Because...", "B"),
        ("I think Answer A is better", "A"),
        ("a tie, really", "T"),
        ("Both are fine", None),
        ("", None),
    ],
)
def test_parse_verdict(reply: str, letter: str | None) -> None:
    assert parse_verdict(reply) == letter


def test_eval_stage_adds_the_judge_to_the_paired_comparison(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path / "home"))
    judge = ScriptedJudge(lambda _: "B")  # always the second: cancels out
    monkeypatch.setattr("jupiter.synth.http.make_backend", lambda llm: judge)
    extra = (
        "eval: {auto_max_items: 5, max_new_tokens: 2, heldout_max_bytes: 1000,"
        " general_max_bytes: 0, judge: true}\nmodel: {context_length: 64}\n"
    )
    ws, ev = eval_with_tiny_models(tmp_path, extra)
    entry = ev["comparisons"]["student_vs_generator"]["metrics"]["judge_win"]
    assert entry["model"] == 0.5 and entry["n"] == 5 and entry["consistent"] == 0.0
    assert len(judge.prompts) == 10
    assert "judge_win" in ws.console.file.getvalue()  # type: ignore[attr-defined]
    assert ev["student"]["general_bpb"] is None  # general_max_bytes 0: not measured
