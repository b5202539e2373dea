"""lm-evaluation-harness in a workspace: the domain's eval set exported as an lm-eval task
(`jupiter eval --domain X --export-lm-eval DIR`), and eval.lm_eval_tasks run at every eval
on the student and the untrained (or base) model, recorded in eval.json under lm_eval."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.table import Table

from jupiter import atomic
from jupiter.errors import JupiterError
from jupiter.improve.evalset import eval_items
from jupiter.improve.passages import open_book
from jupiter.improve.workspace import Workspace

INCLUDE_DEFAULTS = True  # lm-eval's own tasks (tests index only their own folder)


def export_eval_set(ws: Workspace, out: Path) -> dict[str, Any]:
    """The multiple choice the eval stage asks (eval_items: the same items, choices and
    order, cut to eval.max_items; with eval.open_book, each question after its passages),
    written as an lm-eval task named after the domain."""
    from jupiter.eval.lmeval_task import export_task

    if not ws.cfg.eval.qa_path and not ws.has_store():
        raise JupiterError(
            f"no workspace yet at {ws.root}, so no eval set to export: run `jupiter start "
            f"--domain {ws.cfg.name}` (the set is frozen at the first eval), or set eval.qa_path"
        )
    items, mc, about = eval_items(ws)
    _, mc = open_book(ws, items, mc)
    return export_task(ws.cfg.name, mc, out, ws.cfg.system_prompt, about)


def _settings(ws: Workspace) -> dict[str, Any]:
    ecfg = ws.cfg.eval
    return {
        "tasks": list(ecfg.lm_eval_tasks),
        "limit": ecfg.lm_eval_limit,
        "fewshot": ecfg.lm_eval_fewshot,
        "include": ecfg.lm_eval_include,
    }


def benchmark_model(ws: Workspace, model_dir: Path, name: str) -> dict[str, Any]:
    """eval.lm_eval_tasks on one model, loaded as the eval loads it (eval.dtype)."""
    import torch

    from jupiter.eval.lmeval_bench import BenchOptions, run_benchmarks
    from jupiter.models.decode import torch_dtype
    from jupiter.models.loading import load_for_inference

    ecfg = ws.cfg.eval
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dtype = torch_dtype(ecfg.dtype, device, cpu_bf16=True)
    model, tok = load_for_inference(
        model_dir, device=device, dtype=dtype, chat_template=ws.cfg.chat_template()
    )
    include = ws.cfg.resolve(ecfg.lm_eval_include) if ecfg.lm_eval_include else None
    if include is not None and not include.is_dir():
        raise JupiterError(f"eval.lm_eval_include: {include} is not a folder of task YAMLs")
    opts = BenchOptions(
        tuple(ecfg.lm_eval_tasks),
        ecfg.lm_eval_limit,
        ecfg.lm_eval_fewshot,
        include,
        include_defaults=INCLUDE_DEFAULTS,
    )
    with ws.console.status(f"lm-eval benchmarks of {name}: {', '.join(opts.tasks)}…"):
        got = run_benchmarks(model, tok, opts, lambda text: _warn(ws, text))
    del model
    gc.collect()
    return got | {"model": name, "path": str(model_dir)}


def _warn(ws: Workspace, text: str) -> None:
    ws.console.print(f"[bold yellow]warning:[/] {escape(text)}", highlight=False, soft_wrap=True)


def _baseline(ws: Workspace) -> dict[str, Any] | None:
    """The untrained (from scratch) or base (fine-tuning) model's figures, once per
    workspace and settings."""
    base = ws.cfg.model.base
    model_dir = ws.model(base) if base else ws.root / "untrained"
    if not (model_dir / "config.json").is_file():
        return None
    cache = ws.root / "untrained_lm_eval.json"
    if cache.is_file():
        cached = json.loads(cache.read_text(encoding="utf-8"))
        if cached.get("settings") == _settings(ws) and cached.get("path") == str(model_dir):
            return dict(cached["report"])
    report = benchmark_model(ws, model_dir, "base" if base else "untrained")
    record = {"settings": _settings(ws), "path": str(model_dir), "report": report}
    atomic.write_text(cache, json.dumps(record, indent=2) + "\n")
    return report


def lm_eval_benchmarks(ws: Workspace, student_dir: Path, student: str) -> dict[str, Any] | None:
    """eval.lm_eval_tasks on the student and the untrained/base model, with a table; None
    when no task is configured."""
    if not ws.cfg.eval.lm_eval_tasks:
        return None
    out: dict[str, Any] = {"settings": _settings(ws)}
    out["student"] = benchmark_model(ws, student_dir, student)
    out["untrained"] = _baseline(ws)
    table = benchmark_table([r for r in (out["untrained"], out["student"]) if r])
    if table is not None:
        ws.console.print(table)
    return out


def benchmark_table(reports: list[dict[str, Any]]) -> Table | None:
    """task | metric | each model's figure with its interval."""
    tasks = sorted({t for r in reports for t in (r.get("results") or {})})
    if not tasks:
        return None
    table = Table(title="lm-eval benchmarks (95% CI: ±1.96 standard errors)")
    for col in ("task", "metric", *(r["model"] for r in reports)):
        table.add_column(col)
    for task in tasks:
        metrics = sorted(
            {
                m
                for r in reports
                for m in (r.get("results") or {}).get(task, {})
                if not m.endswith(("_stderr", "_ci")) and m != "n"
            }
        )
        for metric in metrics:
            cells = []
            for r in reports:
                fig = (r.get("results") or {}).get(task, {})
                v, ci = fig.get(metric), fig.get(f"{metric}_ci")
                cells.append(
                    "—"
                    if v is None
                    else f"{v:.4f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")
                )
            table.add_row(task, metric, *cells)
    return table
