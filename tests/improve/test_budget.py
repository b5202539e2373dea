"""The train stage's token budget: corpus tokens, trained tokens, the share used, and a
warning with its fix when under 20% of the corpus is trained on."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from jupiter.config import TrainConfig, load_domain
from jupiter.data.chat import encode_chat, encode_text
from jupiter.data.dataset import TokenBudget
from jupiter.improve import stages, training
from jupiter.improve.budget import budget_info, budget_line, budget_warning, print_budget
from jupiter.improve.passages import train_chunks
from jupiter.improve.report import last_budget, status_tables
from jupiter.improve.workspace import Workspace
from jupiter.records import Example
from jupiter.synth.passages import PassageIndex
from jupiter.train.loop import TrainResult, TrainRun


def test_budget_figures() -> None:
    info = budget_info(TokenBudget(1000, 1000, 50), epochs=3.0, max_steps=None)
    assert info == {
        "corpus_tokens": 1000,
        "raw_tokens_per_epoch": 1000,
        "chat_tokens_per_epoch": 50,
        "trained_tokens_per_epoch": 1050,
        "epochs": 3.0,
        "max_steps": None,
        "trained_tokens": 3150,
        "corpus_share_per_epoch": 1.0,
        "corpus_share": 1.0,
    }
    assert budget_line(info) == (
        "train: token budget: corpus 1,000 tokens of raw text (train split); 1,000 raw + 50 "
        "chat = 1,050 tokens per epoch, 3,150 over 3.00 epochs; 100.0% of the corpus trained on"
    )
    assert budget_warning(info, 0.5, 1.0, "train.max_steps") is None


def test_part_of_an_epoch_uses_that_part_of_the_corpus() -> None:
    info = budget_info(TokenBudget(1000, 1000, 50), epochs=0.05, max_steps=2)
    assert (info["trained_tokens"], info["corpus_share"]) == (52, 0.05)
    warning = budget_warning(info, 0.5, 1.0, "train.max_steps")
    assert warning == (
        "warning: only 5.0% of the corpus is trained on (under 20%); 2 steps read 5.0% of one "
        "epoch: raise train.max_steps to at least 40 (one epoch) or unset it to train whole "
        "epochs"
    )
    level = budget_warning(info, 0.5, 1.0, "the max_steps of level basics")
    assert level is not None and "raise the max_steps of level basics to at least 40" in level
    at_threshold = budget_info(TokenBudget(1000, 1000, 50), epochs=0.2, max_steps=2)
    assert budget_warning(at_threshold, 0.5, 1.0, "train.max_steps") is None


def test_a_capped_corpus_names_min_corpus_share() -> None:
    info = budget_info(TokenBudget(10_000, 120, 120), epochs=4.0, max_steps=None)
    assert (info["corpus_share_per_epoch"], info["corpus_share"]) == (0.012, 0.012)
    warning = budget_warning(info, 0.5, 0.0, "train.max_steps")
    assert warning is not None and warning.startswith("warning: only 1.2% of the corpus")
    assert "raise train.min_corpus_share (1 trains on all of it every epoch)" in warning
    assert "max_steps" not in warning
    off = budget_warning(budget_info(TokenBudget(10_000, 0, 120), 4.0, None), 0.0, 1.0, "x")
    assert off is not None and "train.raw_text_fraction is 0: raise it" in off


def test_no_corpus_or_no_plan() -> None:
    empty = budget_info(TokenBudget(0, 0, 300), epochs=2.0, max_steps=None)
    assert empty["corpus_share"] is None and empty["trained_tokens"] == 600
    assert budget_line(empty).endswith("; no raw text given")
    assert budget_warning(empty, 0.5, 1.0, "train.max_steps") is None
    unknown = budget_info(TokenBudget(1000, 100, 100), epochs=None, max_steps=None)
    assert (unknown["trained_tokens"], unknown["corpus_share"]) == (None, 0.1)
    assert "per epoch; 10.0% of the corpus" in budget_line(unknown)
    out = io.StringIO()
    print_budget(Console(file=out, width=400), unknown, TrainConfig(min_corpus_share=0.1), "k")
    lines = out.getvalue().splitlines()
    assert lines == [budget_line(unknown), budget_warning(unknown, 0.5, 0.1, "k")]


# ------------------------------------------------------------- the train stage itself
PAGE = """NAME
    tool-{n} - does thing {n} to files

OPTIONS
    --level-{n}  sets the level of thing {n}; higher levels compress harder and take longer.
    --quiet      prints nothing but errors, so scripts can read the exit status alone.

DESCRIPTION
    tool-{n} reads every file named on its command line and writes thing {n} of each one
    beside it. Without files it reads standard input and writes standard output.
"""


@pytest.fixture
def man_pages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Workspace]:
    """A workspace of 40 man-page-style .txt files and 2 accepted Q&A pairs."""
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path / "home"))
    docs = tmp_path / "man"
    docs.mkdir()
    for n in range(40):
        (docs / f"tool-{n}.txt").write_text(PAGE.format(n=n) * 2)
    yaml = tmp_path / "man.yaml"
    yaml.write_text(
        "name: man\nsources: [{type: local, path: man}]\n"
        "model: {preset: tiny, vocab_size: 300, context_length: 64}\n"
        "train: {max_steps: 2, micro_batch_size: 4, heldout_fraction: 0.0}\n"
    )
    ws = Workspace(load_domain(str(yaml)), console=Console(file=io.StringIO(), width=400))
    stages.collect_stage(ws, 1)
    qa = [
        Example(
            "qa",
            "extractive",
            "c",
            "t",
            status="accepted",
            cycle=1,
            messages=[
                {"role": "user", "content": f"What does --level-{n} of tool-{n} do?"},
                {"role": "assistant", "content": f"It sets the level of thing {n}."},
            ],
        )
        for n in (1, 2)
    ]
    ws.store.add_examples(qa)
    yield ws
    ws.close()


def test_train_stage_stores_and_prints_the_budget(
    man_pages: Workspace, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """2 Q&A pairs beside 40 pages: all the raw text is in every epoch; 2 steps of 4 rows
    read a part of the epoch, so the stage warns and names train.max_steps."""
    ws = man_pages
    seen: dict[str, Any] = {}

    def fake_training(ws: Workspace, cycle: int, run: TrainRun) -> TrainResult:
        per_epoch = run.dataset.batches_per_epoch(4)  # what make_plan works out
        seen["rows"], seen["per_epoch"] = run.dataset.num_rows, per_epoch
        (run.out_dir / "final").mkdir(parents=True)
        steps = run.config.max_steps
        return TrainResult(
            run.out_dir / "final",
            steps,
            steps,
            [2.0, 1.0],
            10.0,
            0.1,
            True,
            epochs=steps / per_epoch,
        )

    monkeypatch.setattr(training, "run_training", fake_training)
    monkeypatch.setattr(training, "save_untrained", lambda *a: tmp_path)
    info = training.train_stage(ws, 1)

    # the domain's retrieval index is saved beside the student, for open-book mode
    passages = PassageIndex.load(ws.student_dir(1))
    assert len(passages) == len(train_chunks(ws))
    # a page of the train split (held-out pages hang on a hash of the tmp path)
    page = next(c.title for c in train_chunks(ws) if c.title.startswith("tool-"))
    n = page.removeprefix("tool-").split(".")[0]
    assert passages.search(f"level of thing {n}", k=1)[0].title == page
    _, tok = training.base_tokenizer(ws)
    corpus = sum(len(encode_text(tok, c.text)[0]) for c in train_chunks(ws))
    chats = sum(len(encode_chat(tok, e.messages)[0]) for e in ws.store.iter_examples())
    epochs = 2 / seen["per_epoch"]
    assert seen["per_epoch"] >= 11  # the fixture is big enough for 2 steps to be < 20%
    budget = info["budget"]
    assert budget == {
        "corpus_tokens": corpus,
        "raw_tokens_per_epoch": corpus,
        "chat_tokens_per_epoch": chats,
        "trained_tokens_per_epoch": corpus + chats,
        "epochs": round(epochs, 4),
        "max_steps": 2,
        "trained_tokens": round(epochs * (corpus + chats)),
        "corpus_share_per_epoch": 1.0,
        "corpus_share": round(epochs, 4),
    }
    printed = ws.console.file.getvalue()  # type: ignore[attr-defined]
    assert budget_line(budget) in printed.splitlines()
    assert f"warning: only {epochs:.1%} of the corpus is trained on (under 20%)" in printed
    assert f"raise train.max_steps to at least {seen['per_epoch']} (one epoch)" in printed
    ws.store.start_cycle(1, "extractive")
    ws.store.mark_stage(1, "train", info)  # as the cycle machine records it
    assert last_budget(ws) == budget
    out = io.StringIO()
    Console(file=out, width=300).print(status_tables(ws)[0])
    row = next(line for line in out.getvalue().splitlines() if "corpus trained on" in line)
    assert f"{epochs:.1%} of {corpus:,} tokens" in row
