"""The eval stage: the student, the untrained model and the current generator on the domain's
held-out text and on general text (bits-per-byte) and QA set (token-F1, multiple-choice
accuracy)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from jupiter.errors import JupiterError
from jupiter.eval.chart import exam_chart
from jupiter.improve.card import write_card
from jupiter.improve.eval_choices import mc_digest
from jupiter.improve.eval_record import (
    BPB_KEYS,
    LOWER_IS_BETTER,
    NOT_A_MODEL,
    candidate_record,
    paired_comparisons,
    print_eval,
    summary,
    user_exam_comparisons,
    user_summary,
    write_eval,
)
from jupiter.improve.evalset import eval_items, general_texts, heldout_texts
from jupiter.improve.exams import Exam, describe_exam, user_exam
from jupiter.improve.generator import active_generator, backend_for, llm_config
from jupiter.improve.lmeval import lm_eval_benchmarks
from jupiter.improve.passages import open_book, train_chunks
from jupiter.improve.progress import progress_bar
from jupiter.improve.student import check_student, student_id
from jupiter.improve.workspace import Workspace
from jupiter.records import MODEL_KINDS
from jupiter.synth.combined import SUFFIX


def answer_with_progress(
    ws: Workspace, gen: Any, label: str, items: list[Any], mc: list[Any]
) -> dict[str, Any]:
    """QA and MC for any answerer, with a progress bar; models (not the extractive
    generator, which retrieves for itself) answer open-book with eval.open_book."""
    from jupiter.eval.report import evaluate_answerer
    from jupiter.synth.extractive import ExtractiveGenerator

    if not isinstance(gen, ExtractiveGenerator):
        items, mc = open_book(ws, items, mc)
    with progress_bar(ws) as bar:
        task = bar.add_task(label, total=len(items) + len(mc), rate="")
        return evaluate_answerer(
            gen, items, mc, on_progress=lambda done, total: bar.update(task, completed=done)
        )


def load_model(ws: Workspace, model_dir: Path, name: str) -> Any:
    """A model dir as an answerer (a ModelGenerator) in the eval's dtype and the domain's
    chat template: a base model without one renders as training renders."""
    from jupiter.synth.model import ModelGenerator

    return ModelGenerator(
        model_dir,
        name,
        max_new_tokens=ws.cfg.eval.max_new_tokens,
        system_prompt=ws.cfg.system_prompt,
        chat_template=ws.cfg.chat_template(),
        dtype=ws.cfg.eval.dtype,
    )


def sit_user_exam(ws: Workspace, gen: Any, name: str, user: Exam | None) -> dict[str, Any]:
    """{"user_exam": QA + MC on the user exam} for any answerer; {} without one."""
    if user is None or not user.items:
        return {}
    got = answer_with_progress(ws, gen, f"user exam {name}", user.items, user.mc)
    return {"user_exam": got | {"mc_digest": mc_digest(user.mc)}}


def evaluate_model(
    ws: Workspace,
    model_dir: Path,
    name: str,
    items: list[Any],
    mc: list[Any],
    user: Exam | None = None,
    reader: bool = False,
    closed: bool = True,
) -> dict[str, Any]:
    """bpb + QA + MC (both exams) for an HF model dir, answered by greedy generation and
    log-likelihood; with `reader`, the same model reading retrieved passages with the
    retriever's evidence (synth/combined.py) sits both exams too, under "with_retriever".
    Without `closed`, the model sits no exam closed book (a generator promoted with its
    retriever is judged reading: its closed-book figures would be thrown away)."""
    from jupiter.models.memory import release_heap

    t0 = time.perf_counter()
    clock = PhaseClock()
    gen = load_model(ws, model_dir, name)
    clock.done("load")
    if ws.cfg.eval.open_book:
        warn_cut_prompts(ws, gen, name, open_book(ws, items, mc)[0])
    report: dict[str, Any] = {}
    if closed:
        report = answer_with_progress(ws, gen, f"eval {name}", items, mc)
        clock.done("own_exam")
        report.update(sit_user_exam(ws, gen, name, user))
        clock.done("user_exam")
    report.update(model_bpb(ws, gen, name))
    clock.done("bpb")
    report.update(
        dtype=gen.dtype,
        path=str(model_dir),
        open_book=ws.cfg.eval.open_book,
        seconds=round(time.perf_counter() - t0, 1),
        phase_seconds=clock.phases,
    )
    if reader:
        report["with_retriever"] = read_with_retriever(ws, gen, items, mc, user, report)
        clock.done("with_retriever")  # the model's own seconds above leave this out
    del gen
    release_heap()  # the next model of the eval loads into the memory this one freed
    return report


class PhaseClock:
    """Seconds of each phase of one model's eval, in order (the report's phase_seconds):
    where the eval stage's time goes, measured rather than guessed."""

    def __init__(self) -> None:
        self.phases: dict[str, float] = {}
        self._t = time.perf_counter()

    def done(self, phase: str) -> None:
        now = time.perf_counter()
        self.phases[phase] = round(now - self._t, 1)
        self._t = now


def warn_cut_prompts(ws: Workspace, gen: Any, name: str, items: list[Any]) -> int:
    """Open-book prompts that do not fit the model's context with room for the answer are
    cut from the left (passages lost) and leave the answer few tokens: say how many, with
    the fix. Returns that count."""
    from jupiter.eval.standalone import cut_prompts, cut_warning

    mnt = ws.cfg.eval.max_new_tokens
    cut = cut_prompts(gen, items, mnt)
    if cut:
        ws.console.print(
            cut_warning(
                cut,
                len(items),
                name,
                gen.context,
                mnt,
                "Lower eval.top_k or chunking.max_chars, or raise model.context_length",
            )
        )
    return cut


def model_bpb(ws: Workspace, gen: Any, name: str) -> dict[str, Any]:
    """Bits-per-byte of a loaded model (a ModelGenerator) on the held-out domain text and on
    general text, each with its bootstrap interval and per-text figures for pairing."""
    from jupiter.eval.bpb import bpb_figures

    out: dict[str, Any] = {}
    ctx = ws.cfg.model.context_length
    for key, texts, max_bytes in (
        ("", heldout_texts(ws), ws.cfg.eval.heldout_max_bytes),
        ("general_", general_texts(ws), ws.cfg.eval.general_max_bytes),
    ):
        if not texts:
            continue
        what = "general" if key else "held-out"
        with ws.console.status(f"bits-per-byte of {name} on {what} text…"):
            got = bpb_figures(gen.model, gen.tokenizer, texts, ctx, max_bytes, gen.device)
        out |= {f"{key}bpb": got["bpb"], f"{key}bpb_ci": got["bpb_ci"]}
        out |= {f"{key or 'heldout_'}bytes": got["bytes"], f"{key}bpb_docs": got["docs"]}
    return out


def read_with_retriever(
    ws: Workspace,
    gen: Any,
    items: list[Any],
    mc: list[Any],
    user: Exam | None,
    model_report: dict[str, Any],
) -> dict[str, Any]:
    """Both exams for `gen` reading retrieved passages with the retriever's evidence; its
    bits-per-byte are the model's own (the same weights), so the general check pairs."""
    from jupiter.synth.combined import reader

    answerer = reader(gen, train_chunks(ws), ws.cfg.retrieval_config())
    report = answer_with_progress(ws, answerer, f"eval {answerer.id}", items, mc)
    report.update(sit_user_exam(ws, answerer, answerer.id, user))
    report.update({k: model_report[k] for k in BPB_KEYS if k in model_report})
    return report | {"path": model_report.get("path", ""), "dtype": gen.dtype}


def evaluate_generator(
    ws: Workspace, items: list[Any], mc: list[Any], user: Exam | None = None
) -> dict[str, Any]:
    """The current generator: the extractive one answers by retrieval over the documents;
    a model promoted with its retriever is scored reading passages as it was promoted."""
    from jupiter.synth.extractive import ExtractiveGenerator

    row = active_generator(ws)
    if row["kind"] in MODEL_KINDS:
        name = f"generator:{row['id']}"
        reading = row["kind"] == "model+retriever"
        got = evaluate_model(
            ws, Path(row["path"]), name, items, mc, user, reader=reading, closed=not reading
        )
        if not reading:
            return got
        return got["with_retriever"] | {"model": name, "path": got["path"]}
    if row["kind"] == "llm":
        from jupiter.synth.llm import LLMGenerator

        llm = LLMGenerator(
            backend_for(ws, row),
            row["id"],
            ws.store,
            ws.cfg.eval.max_new_tokens,
            ws.cfg.system_prompt,
            ws.cfg.generator.llm.concurrency,
        )
        try:
            report = answer_with_progress(ws, llm, f"eval {row['id']}", items, mc)
            report.update(sit_user_exam(ws, llm, row["id"], user))
        finally:
            llm.close()
        report.update(NOT_A_MODEL, model=f"generator:{row['id']}", path="")
        return report
    gen = ExtractiveGenerator(train_chunks(ws))
    report = answer_with_progress(ws, gen, "eval extractive (retrieval)", items, mc)
    report.update(sit_user_exam(ws, gen, "extractive", user))
    report.update(NOT_A_MODEL, model=f"generator:{row['id']}", path="")
    return report


def untrained_report(
    ws: Workspace, items: list[Any], mc: list[Any], user: Exam | None = None
) -> dict[str, Any] | None:
    """The untrained model's figures, computed once per workspace and cached; a cache whose
    user exam is missing or of other items sits that exam alone."""
    from jupiter.models.memory import release_heap

    # fine-tuning compares with the base model as it came; from scratch, the step-0 model
    base = ws.cfg.model.base
    model_dir = ws.model(base) if base else ws.root / "untrained"
    name = "base" if base else "untrained"
    cache = ws.root / "untrained_eval.json"
    if cache.is_file():
        cached = json.loads(cache.read_text())
        # a cache from before per-item scores were kept, or of other items, cannot be
        # paired: recompute it
        scored = set((cached.get("item_scores") or {}).get("qa_f1") or {})
        general = "general_bpb" in cached or not ws.cfg.eval.general_max_bytes
        book = cached.get("open_book", False) == ws.cfg.eval.open_book
        same_mc = cached.get("mc_digest", mc_digest(mc)) == mc_digest(mc)
        if scored == {it.id for it in items} and general and book and same_mc:
            if user_exam_digest(cached) == user_exam_digest(None, user):
                return cached
            if (model_dir / "config.json").is_file():
                cached.pop("user_exam", None)
                gen = load_model(ws, model_dir, name)
                cached.update(sit_user_exam(ws, gen, name, user))
                del gen
                release_heap()
                cache.write_text(json.dumps(cached, indent=2))
                return cached
    if not (model_dir / "config.json").is_file():
        return None
    report = evaluate_model(ws, model_dir, name, items, mc, user)
    report["mc_digest"] = mc_digest(mc)
    cache.write_text(json.dumps(report, indent=2))
    return report


def user_exam_digest(report: dict[str, Any] | None, user: Exam | None = None) -> str:
    """The user exam's multiple choice as scored in `report`, or as `user` asks it."""
    if report is not None:
        return str((report.get("user_exam") or {}).get("mc_digest", ""))
    return mc_digest(user.mc) if user is not None and user.items else ""


def judge_student(
    ws: Workspace, items: list[Any], student: dict[str, Any], generator: dict[str, Any]
) -> dict[str, Any] | None:
    """eval.judge: the student's answers against the generator's, each pair judged in both
    orders by an LLM (eval.judge_llm, else filters.judge.llm, else generator.llm)."""
    from jupiter.eval.judge import judge_pairs
    from jupiter.synth.http import make_backend

    if not ws.cfg.eval.judge:
        return None
    a, b = student.get("predictions") or {}, generator.get("predictions") or {}
    shared = [it for it in items if it.id in a and it.id in b]
    llm = ws.cfg.eval.judge_llm or ws.cfg.filters.judge.llm or ws.cfg.generator.llm
    backend = make_backend(llm_config(ws, llm))
    with ws.console.status(f"judging {len(shared)} answer pairs, both orders…"):
        return judge_pairs(
            backend,
            shared,
            [a[it.id] for it in shared],
            [b[it.id] for it in shared],
            ws.store,
            llm.concurrency,
        )


def eval_stage(ws: Workspace, cycle: int) -> dict[str, Any]:
    from jupiter.models.folder import is_model_dir

    student_dir = ws.student_dir(cycle)
    if not is_model_dir(student_dir):
        raise JupiterError(
            f"cycle {cycle} has no trained student at {student_dir}: run `jupiter train "
            f"--domain {ws.cfg.name}` first"
        )
    check_student(ws, cycle)  # its checksums: a damaged model is never scored
    items, mc, about = eval_items(ws)
    user = user_exam(ws)
    if user is not None:
        ws.console.print(describe_exam(user.about))
    untrained = untrained_report(ws, items, mc, user)
    reading = ws.cfg.promotion.candidate == "student+retriever"
    name = "student:" + student_id(cycle).split(":")[1]
    student = evaluate_model(ws, student_dir, name, items, mc, user, reader=reading)
    t0 = time.perf_counter()
    generator = evaluate_generator(ws, items, mc, user)
    generator.setdefault("seconds", round(time.perf_counter() - t0, 1))
    models = {"untrained": untrained, "student": student, "generator": generator}
    if reading:
        models["student+retriever"] = student.pop("with_retriever") | {"model": f"{name}{SUFFIX}"}
    comparisons = paired_comparisons(student, untrained, generator)
    judged = judge_student(ws, items, student, generator)
    if judged is not None:
        from jupiter.eval.judge import win_entry

        entry = win_entry(judged)
        if entry is not None:
            comparisons["student_vs_generator"]["metrics"]["judge_win"] = entry
    bench = lm_eval_benchmarks(ws, student_dir, student["model"])  # eval.lm_eval_tasks
    report: dict[str, Any] = {
        "cycle": cycle,
        "domain": ws.cfg.name,
        "promotion_metric": ws.cfg.promotion.metric,
        **models,
        "comparisons": comparisons,
        "eval_set": about,
        "lower_is_better": list(LOWER_IS_BETTER),
    }
    if bench is not None:
        report["lm_eval"] = bench
    out = {k: summary(v) for k, v in models.items()} | {
        "comparisons": comparisons,
        "eval_set": about,
    }
    if bench is not None:
        out["lm_eval"] = bench
    if user is not None:
        report["user_exam"] = user.about | {
            "comparisons": user_exam_comparisons(student, untrained, generator)
        }
        out["user_exam"] = report["user_exam"] | {
            k: (None if v is None else user_summary(v)) for k, v in models.items()
        }
    if reading:
        out["retriever"] = report["retriever"] = candidate_record(models, user is not None)
    write_eval(ws, cycle, report)
    with ws.store.transaction():
        for r in models.values():
            if r is not None:
                ws.store.add_eval(cycle, r["model"], summary(r) or {})
    print_eval(ws, report, [r for r in models.values() if r is not None])
    write_card(ws, cycle, ev=out)
    chart = exam_chart(out, ws.cycle_dir(cycle) / "exams.png", f"{ws.cfg.name}, cycle {cycle}")
    if chart is not None:
        ws.console.print(f"chart: {chart}", highlight=False, soft_wrap=True)
    return out
