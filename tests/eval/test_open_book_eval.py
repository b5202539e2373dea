"""eval.open_book: models sit the exam with the top_k passages of the training chunks before
each question; the extractive generator, which retrieves for itself, gets the bare one."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from evaldocs import doc_workspace

from jupiter.eval.qa import MCItem, QAItem
from jupiter.improve.evaluate import answer_with_progress
from jupiter.improve.passages import train_chunks
from jupiter.synth.extractive import ExtractiveGenerator
from jupiter.synth.passages import PassageIndex

QUESTION = "Why is every request logged with its origin?"


class Recorder:
    """An answerer that keeps the questions it was asked."""

    id = "recorder"

    def __init__(self) -> None:
        self.asked: list[str] = []

    def answer(self, questions: Sequence[str]) -> list[str]:
        self.asked += questions
        return ["origin" for _ in questions]

    def choose(self, question: str, choices: Sequence[str]) -> int:
        self.asked.append(question)
        return 0


def items() -> tuple[list[QAItem], list[MCItem]]:
    return [QAItem("q1", QUESTION, "origin")], [MCItem("m1", QUESTION, ["origin", "size"], 0)]


def test_models_answer_with_the_top_k_passages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path / "home"))
    ws = doc_workspace(tmp_path, "eval: {open_book: true, top_k: 2}\n")
    qa, mc = items()
    rec = Recorder()
    report = answer_with_progress(ws, rec, "eval", qa, mc)
    index = PassageIndex.from_chunks(train_chunks(ws))
    top = index.search(QUESTION, 2)
    assert top[0].title == "logging"  # the training guide that holds the sentence
    want = index.prompt(QUESTION, 2)
    assert rec.asked == [want, want]
    assert want.index(top[0].text.strip()) < want.index(top[1].text.strip())
    assert want.endswith(f"\n\nQuestion: {QUESTION}")
    # scores stay keyed by the items' ids, so open-book reports pair with each other
    assert report["item_scores"]["qa_f1"] == {"q1": 1.0}
    assert report["item_scores"]["mc_accuracy"] == {"m1": 1.0}

    extractive = ExtractiveGenerator(train_chunks(ws))
    asked: list[str] = []
    monkeypatch.setattr(extractive, "answer", lambda qs: asked.extend(qs) or [""] * len(qs))
    answer_with_progress(ws, extractive, "eval", qa, [])
    assert asked == [QUESTION]  # it retrieves for itself
    ws.close()


def test_closed_book_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path / "home"))
    ws = doc_workspace(tmp_path)
    rec = Recorder()
    answer_with_progress(ws, rec, "eval", *items())
    assert rec.asked == [QUESTION, QUESTION]
    ws.close()


class Sized:
    """A model-like answerer with a context and a tokenizer (one token a character)."""

    def __init__(self, context: int) -> None:
        self.context = context
        self.tokenizer = lambda text: type("Enc", (), {"input_ids": list(text)})()


def test_open_book_prompts_that_do_not_fit_are_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    from rich.console import Console

    from jupiter.improve.evaluate import warn_cut_prompts
    from jupiter.improve.passages import open_book

    monkeypatch.setenv("JUPITER_HOME", str(tmp_path / "home"))
    ws = doc_workspace(tmp_path, "eval: {open_book: true, top_k: 2, max_new_tokens: 8}\n")
    ws.console = Console(file=io.StringIO(), width=300)
    qa = open_book(ws, *items())[0]
    length = len(qa[0].question)
    assert warn_cut_prompts(ws, Sized(length + 8), "student", qa) == 0  # fits, with the answer
    assert ws.console.file.getvalue() == ""  # type: ignore[attr-defined]
    assert warn_cut_prompts(ws, Sized(length + 7), "student", qa) == 1
    out = ws.console.file.getvalue()  # type: ignore[attr-defined]
    assert f"1 of 1 open-book questions do not fit student's context ({length + 7} tokens" in out
    assert "Lower eval.top_k" in out
    ws.close()
