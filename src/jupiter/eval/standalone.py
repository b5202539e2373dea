"""`jupiter eval --model M --qa FILE`: any model on any QA set, outside a workspace cycle.

The same exam as the eval stage (QA by greedy answers, multiple choice by log-likelihood,
hard distractors unless items carry their own choices, 95% intervals, the breakdown), plus
general_bpb on out-of-domain text, so two models scored this way compare item by item
(eval/compare.py compare_reports on their --out reports).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from jupiter.errors import JupiterError
from jupiter.eval.mc import Distractors, build_mc
from jupiter.eval.qa import load_eval_set
from jupiter.eval.report import breakdown_table, comparison_table, evaluate_answerer

MAX_CONTEXT = 1024  # bits-per-byte windows: a model's full context is seldom needed here


@dataclass(frozen=True)
class ScoreOptions:
    model: str  # a model reference: folder, Hub id from the local cache, .gguf, ollama:NAME
    qa: Path
    mc_choices: int = 4
    distractors: Distractors = "hard"
    max_items: int | None = None
    max_new_tokens: int = 48
    seed: int = 0
    chat_template: str = "auto"
    system_prompt: str = ""
    general_path: Path | None = None  # None: the bundled English sample
    general_max_bytes: int = 40_000  # 0: no general_bpb
    dtype: str = "auto"
    open_book: bool = False
    top_k: int = 3
    passages: Path | None = None  # a model dir with retrieval/; None: the scored model's


def open_book_items(
    opts: ScoreOptions, model_dir: Path, items: list[Any], mc: list[Any]
) -> tuple[list[Any], list[Any]]:
    """With --open-book, each question after its top-k passages of the retrieval index
    saved with --passages (a student dir), else with the scored model; ids, answers and
    choices stay, so open-book reports pair item by item."""
    from jupiter.synth.passages import PassageIndex

    if not opts.open_book:
        return items, mc
    index = PassageIndex.load(opts.passages or model_dir)  # names the fix when missing
    return with_passages(index, opts.top_k, items, mc)


def with_passages(
    index: Any, k: int, items: list[Any], mc: list[Any]
) -> tuple[list[Any], list[Any]]:
    """QA and MC items with each question put after its top-k passages of `index`; ids,
    answers and choices stay, so open-book scores pair with closed-book ones."""
    from dataclasses import replace

    return (
        [replace(it, question=index.prompt(it.question, k)) for it in items],
        [replace(m, question=index.prompt(m.question, k)) for m in mc],
    )


def cut_prompts(gen: Any, items: list[Any], max_new_tokens: int) -> int:
    """How many prompts leave the answer fewer than max_new_tokens of the model's context
    (they are cut from the left, so open-book passages are lost)."""
    room = gen.context - max_new_tokens
    return sum(len(gen.tokenizer(it.question).input_ids) > room for it in items)


def cut_warning(
    cut: int, total: int, name: str, context: int, max_new_tokens: int, fix: str
) -> str:
    return (
        f"[yellow]warning[/]: {cut} of {total} open-book questions do not fit {name}'s "
        f"context ({context} tokens, {max_new_tokens} kept for the answer): their passages "
        f"are cut. {fix}"
    )


def _general_bpb(
    gen: Any, texts: list[str], opts: ScoreOptions, console: Console
) -> dict[str, Any]:
    from jupiter.eval.bpb import bpb_figures

    if not texts:
        return {}
    context = min(int(gen.context), MAX_CONTEXT)
    with console.status("bits-per-byte on general text…"):
        got = bpb_figures(
            gen.model, gen.tokenizer, texts, context, opts.general_max_bytes, gen.device
        )
    return {
        "general_bpb": got["bpb"],
        "general_bpb_ci": got["bpb_ci"],
        "general_bytes": got["bytes"],
        "general_bpb_docs": got["docs"],
    }


def score_model(opts: ScoreOptions, cache_dir: Path, console: Console) -> dict[str, Any]:
    """Load the model, sit the exam, and return the report (with per-item scores)."""
    from jupiter.models.reference import model_label, resolve_model
    from jupiter.synth.model import ModelGenerator

    if opts.max_items is not None and opts.max_items < 1:
        raise JupiterError(f"--max-items must be at least 1, got {opts.max_items}")
    from jupiter.eval.general import general_texts

    # inputs first: a bad file fails before a model loads
    try:
        items = load_eval_set(opts.qa)
    except JupiterError as err:
        raise JupiterError(f"--qa: {err}") from None
    general = general_texts(opts.general_path) if opts.general_max_bytes else []
    mc = build_mc(items, opts.mc_choices, opts.seed, opts.distractors)
    if opts.max_items:
        items, mc = items[: opts.max_items], mc[: opts.max_items]
    if opts.open_book and opts.top_k < 1:
        raise JupiterError(f"--top-k must be at least 1, got {opts.top_k}")
    model_dir = resolve_model(opts.model, base_dir=None, cache_dir=cache_dir, console=console)
    items, mc = open_book_items(opts, model_dir, items, mc)  # a missing index fails early
    label = model_label(opts.model, base_dir=None)
    with console.status(f"loading {label}…"):
        gen = ModelGenerator(
            model_dir,
            label,
            max_new_tokens=opts.max_new_tokens,
            system_prompt=opts.system_prompt,
            chat_template=opts.chat_template,
            dtype=opts.dtype,
        )
    cut = cut_prompts(gen, items, opts.max_new_tokens) if opts.open_book else 0
    if cut:
        console.print(
            cut_warning(cut, len(items), label, gen.context, opts.max_new_tokens, "Lower --top-k.")
        )
    with console.status(f"{label}: {len(items)} questions, {len(mc)} multiple choice…"):
        report = evaluate_answerer(gen, items, mc)
    report |= _general_bpb(gen, general, opts, console)
    report |= {
        "path": str(model_dir),
        "qa_path": str(opts.qa),
        "seed": opts.seed,
        "mc_distractors": opts.distractors,
        "lower_is_better": ["general_bpb"],
        "open_book": opts.open_book,
        "dtype": gen.dtype,
    }
    if opts.open_book:
        report |= {"top_k": opts.top_k, "passages": str(opts.passages or model_dir)}
    return report


def print_report(report: dict[str, Any], console: Console) -> None:
    """The figures with their intervals (MC with its chance level), then per topic/source."""
    console.print(comparison_table([report], title=f"{report['qa_path']}"))
    for grouping in ("topic", "source"):
        table = breakdown_table([report], grouping, "qa_f1")
        if table is not None:
            console.print(table)
