"""What the config needs from this machine and its surroundings, checked before the first
stage runs, so a run that cannot finish stops with the store as it was:

- every model reference found and its files intact (Workspace.check_models);
- the YAML's eval set (eval.qa_path) readable and able to give eval.mc_choices choices;
- the user exam (eval.user_exam_path) found, readable and multiple choice;
- the LLM servers the pending stages will call answering (a GET of /models each);
- device-bound choices this machine cannot honour: flash_attention_2 and fp16 without a
  CUDA GPU fall back, with a warning, to sdpa and to precision auto (in ws.fallbacks, not
  in the config). Deliberately a fallback, not an error: one YAML serves a GPU box and a
  laptop, and both fallbacks compute the same model (sdpa is exact attention; auto picks
  bf16 or fp32).
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from typing import Any

from rich.markup import escape

from jupiter.config import LLMConfig
from jupiter.errors import JupiterError
from jupiter.improve.eval_choices import distractor_mode
from jupiter.improve.evalset import general_texts
from jupiter.improve.lineage import yaml_generator_change
from jupiter.improve.trainrun import read_level_file
from jupiter.improve.workspace import Workspace

# the stages that read the eval set: decontamination (generate, filter) and the exam
EVAL_SET_STAGES = ("generate", "filter", "eval")


def preflight_checks(ws: Workspace, stages: Collection[str]) -> None:
    """Check what `stages` (those about to run) need; JupiterError on the first problem.
    Runs once per workspace object: later calls return at once."""
    if ws.checked:
        return
    ws.check_models()
    if set(EVAL_SET_STAGES) & set(stages):
        check_eval_set(ws)
        check_user_exam(ws)
    if "eval" in stages:
        check_heldout(ws, collecting="collect" in stages)
    check_files(ws, stages)
    for key, llm in servers_to_call(ws, stages):
        probe_server(key, llm)
    if "train" in stages and ws.cluster is None:
        device_fallbacks(ws)
    ws.checked = True


def check_eval_set(ws: Workspace) -> None:
    """The YAML's eval set loads, and gives every item eval.mc_choices choices (its own, or
    distinct answers of other items; the teacher writes them when distractors are llm)."""
    from jupiter.eval.mc import check_mc_choices
    from jupiter.eval.qa import load_eval_set

    ecfg = ws.cfg.eval
    if not ecfg.qa_path:  # the automatic set is built from the held-out documents later
        return
    try:
        items = load_eval_set(ws.cfg.resolve(ecfg.qa_path))
        if distractor_mode(ws.cfg, {"auto": False}) != "llm":
            check_mc_choices(items, ecfg.mc_choices)
    except JupiterError as err:
        raise JupiterError(f"eval.qa_path: {err}") from None


def check_user_exam(ws: Workspace) -> None:
    """The user exam loads and every item is multiple choice: the filter stage reads its
    questions (decontamination) and the eval sits it, so a wrong path is found now, not
    after the hours of the stages before the eval. (Which items are scored is the eval's
    to decide: it needs the collected documents and the training data.)"""
    from jupiter.eval.userexam import read_user_exam

    path = ws.cfg.eval.user_exam_path
    if not path:
        return
    try:
        read_user_exam(ws.cfg.resolve(path))
    except JupiterError as err:
        raise JupiterError(f"eval.user_exam_path: {err}") from None


def heldout_problem(ws: Workspace, documents: int, heldout_chunks: int) -> str | None:
    """Why the eval stage would find no eval set (no eval.qa_path, no frozen auto set, and
    no held-out chunk to build one from), or None."""
    from jupiter.eval.autoset import load_frozen

    if ws.cfg.eval.qa_path or heldout_chunks or load_frozen(ws.root / "eval") is not None:
        return None
    return (
        f"domain '{ws.cfg.name}' has no eval set, and none of its {documents} documents "
        "is held out to build one from (chunking.heldout_fraction "
        f"{ws.cfg.chunking.heldout_fraction}): add documents, raise "
        "chunking.heldout_fraction, or set eval.qa_path to a JSONL of {id, question, "
        "answer}"
    )


def check_heldout(ws: Workspace, collecting: bool) -> None:
    """The eval stage's set can be had: checked now when the documents are in the store,
    else by the collect stage before it writes them (ws.heldout_needed)."""
    if collecting or not ws.has_store():
        ws.heldout_needed = True
        return
    documents = ws.store.count("documents")
    if not documents:
        return
    problem = heldout_problem(ws, documents, ws.store.count("chunks", "split = 'heldout'"))
    if problem:
        raise JupiterError(problem)


def check_files(ws: Workspace, stages: Collection[str]) -> None:
    """The other files the YAML names, read by a pending stage: found and readable now, not
    after hours of the stages before it (prompt templates, curriculum datasets, general
    text, lm-eval task folder)."""
    from jupiter.synth.recipes import template_path

    cfg = ws.cfg
    checks: list[tuple[str, Any]] = []
    if "generate" in stages and cfg.generator.type == "llm":
        checks += [
            (f"generator.tasks.{i}.template", lambda t=t: template_path(t.recipe, t.template, cfg))
            for i, t in enumerate(cfg.generator.tasks)
            if t.template
        ]
    judge = cfg.filters.judge
    if "filter" in stages and judge.enabled and judge.template:
        checks.append(
            ("filters.judge.template", lambda: template_path("judge", judge.template, cfg))
        )
    if "train" in stages:
        checks += [
            (f"levels.{i}.datasets", lambda d=d: read_level_file(cfg.resolve(d), 0, 1000))
            for i, lv in enumerate(cfg.levels)
            for d in lv.datasets
            if d != "queue"
        ]
    if "eval" in stages:
        if cfg.eval.general_path:
            checks.append(("eval.general_path", lambda: general_texts(ws)))
        include = cfg.resolve(cfg.eval.lm_eval_include) if cfg.eval.lm_eval_include else None
        if include is not None and not include.is_dir():
            raise JupiterError(
                f"eval.lm_eval_include: {include} is not a folder: point it at "
                "a folder of lm-eval task YAMLs, or remove it"
            )
    for key, check in checks:
        try:
            check()
        except JupiterError as err:
            raise JupiterError(f"{key}: {err}") from None


def servers_to_call(ws: Workspace, stages: Collection[str]) -> list[tuple[str, LLMConfig]]:
    """(YAML key, llm) of each OpenAI-compatible server a pending stage will call."""
    cfg, out = ws.cfg, []
    gen = cfg.generator
    if "generate" in stages and gen.type == "llm" and _teacher_is_configured(ws):
        out.append(("generator.llm", gen.llm))
    judge = cfg.filters.judge
    if "filter" in stages and judge.enabled:
        out.append(("filters.judge.llm", judge.llm) if judge.llm else ("generator.llm", gen.llm))
    if "eval" in stages and cfg.eval.judge:  # the exam's judge: eval.judge_llm's fallbacks
        out.append(
            ("eval.judge_llm", cfg.eval.judge_llm)
            if cfg.eval.judge_llm
            else ("filters.judge.llm", judge.llm)
            if judge.llm
            else ("generator.llm", gen.llm)
        )
    return [(key, llm) for key, llm in out if llm.backend in ("openai", "cluster")]


def _teacher_is_configured(ws: Workspace) -> bool:
    """The configured LLM writes the data: a new workspace, a generator changed in the
    YAML (activated at the next stage), or an LLM still active (no student promoted)."""
    if not ws.has_store():
        return True
    row = ws.store.active_generator()
    return row is None or row["kind"] == "llm" or yaml_generator_change(ws) is not None


def probe_server(key: str, llm: LLMConfig) -> None:
    """GET /models of the server (and the model checked among those served)."""
    from jupiter.synth.http import HTTPBackend, make_backend

    async def go() -> None:
        backend = make_backend(llm) if llm.backend == "cluster" else HTTPBackend(llm)
        try:
            await backend.check()
        finally:
            await backend.close()

    try:
        asyncio.run(go())
    except JupiterError as err:
        raise JupiterError(f"{key}: {err}") from None


def device_fallbacks(ws: Workspace) -> None:
    """flash_attention_2 and fp16 on a machine without CUDA: warn and train with sdpa and
    precision auto. The choice goes into ws.fallbacks, the run's own state that the train
    stage builds its runs with and reports; the loaded config keeps the YAML's values."""
    model, train = ws.cfg.model, ws.cfg.train
    if model.attention != "flash_attention_2" and train.precision != "fp16":
        return
    import torch

    if torch.cuda.is_available():
        return
    if model.attention == "flash_attention_2":
        warn(
            ws,
            "model.attention: flash_attention_2 runs on CUDA GPUs only and this machine "
            "has none: training here uses sdpa (set model.attention: auto to silence this)",
        )
        ws.fallbacks["model.attention"] = "sdpa"
    if train.precision == "fp16":
        warn(
            ws,
            "train.precision: fp16 needs a CUDA GPU (on a CPU it is emulated and slow) "
            "and this machine has none: training here uses precision auto (bf16 where the "
            "CPU has it natively, else fp32; set train.precision: auto to silence this)",
        )
        ws.fallbacks["train.precision"] = "auto"


def warn(ws: Workspace, text: str) -> None:
    ws.console.print(f"[bold yellow]warning:[/] {escape(text)}", highlight=False, soft_wrap=True)
