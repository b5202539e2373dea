"""General benchmarks of lm-evaluation-harness (eval.lm_eval_tasks) through its Python API,
offline: a task whose dataset is not in the local HF cache is skipped with one warning
naming it and the command that fetches it, never a crash.

Figures are lm-eval's own (acc, acc_norm, ... with its standard errors); the 95% interval
beside each is mean ± 1.96 standard errors, lm-eval's normal approximation, not Jupiter's
bootstrap.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Warn = Callable[[str], None]
Z95 = 1.96


@dataclass(frozen=True)
class BenchOptions:
    tasks: tuple[str, ...]
    limit: int | None = None  # items per task
    fewshot: int | None = None  # None: each task's default
    include: Path | None = None  # a folder of extra task YAMLs
    batch_size: int = 8
    include_defaults: bool = True  # lm-eval's own tasks (indexing them takes seconds)


def fetch_hint(name: str) -> str:
    """The one command that puts a task's dataset in the local cache."""
    return (
        'HF_HUB_OFFLINE=0 HF_DATASETS_OFFLINE=0 python -c "from lm_eval.tasks import '
        f"TaskManager; TaskManager().load(['{name}'])\""
    )


@contextmanager
def offline() -> Iterator[None]:
    """No network while lm-eval loads datasets: the environment for modules not imported
    yet, the module constants for those that are (they read it at import)."""
    saved_env = {k: os.environ.get(k) for k in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")}
    os.environ.update({k: "1" for k in saved_env})
    patched: list[tuple[Any, str, Any]] = []
    for mod_name, attrs in (
        ("huggingface_hub.constants", ("HF_HUB_OFFLINE",)),
        ("datasets.config", ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")),
    ):
        mod = sys.modules.get(mod_name)
        for attr in attrs if mod is not None else ():
            if hasattr(mod, attr):
                patched.append((mod, attr, getattr(mod, attr)))
                setattr(mod, attr, True)
    try:
        yield
    finally:
        for mod, attr, value in patched:
            setattr(mod, attr, value)
        for k, v in saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0]}" if text else type(err).__name__


def loadable_tasks(tm: Any, names: tuple[str, ...], warn: Warn) -> tuple[list[str], dict[str, str]]:
    """(tasks whose datasets load offline, {skipped task: why}), a warning for each skip."""
    known = set(tm.all_tasks)
    ready: list[str] = []
    skipped: dict[str, str] = {}
    for name in names:
        if name not in known:
            skipped[name] = "unknown task"
            warn(
                f"lm-eval task '{name}' skipped: lm-eval knows no such task or group (list "
                "them with `lm_eval ls tasks`; a task of your own goes in eval.lm_eval_include)"
            )
            continue
        try:
            tm.load([name])
        except Exception as err:  # noqa: BLE001 - datasets raises many kinds; each is a skip
            skipped[name] = _first_line(err)
            warn(
                f"lm-eval task '{name}' skipped: its dataset is not available offline "
                f"({skipped[name][:160]}): fetch it once with `{fetch_hint(name)}`"
            )
            continue
        ready.append(name)
    return ready, skipped


def _figures(row: dict[str, Any]) -> dict[str, Any]:
    """lm-eval's "acc,none" / "acc_stderr,none" keys as acc, acc_stderr, acc_ci."""
    out: dict[str, Any] = {}
    for key, value in row.items():
        metric, _, filt = key.partition(",")
        if not filt or not isinstance(value, (int, float)) or metric.endswith("_stderr"):
            continue
        name = metric if filt == "none" else f"{metric}[{filt}]"
        out[name] = float(value)
        se = row.get(f"{metric}_stderr,{filt}")
        if isinstance(se, (int, float)):
            out[f"{name}_stderr"] = float(se)
            out[f"{name}_ci"] = [float(value) - Z95 * float(se), float(value) + Z95 * float(se)]
    return out


def run_benchmarks(model: Any, tokenizer: Any, opts: BenchOptions, warn: Warn) -> dict[str, Any]:
    """Each task of `opts` on a loaded transformers model: {"results": {task: figures},
    "skipped": {task: why}}; {} without lm-eval installed (said once)."""
    try:
        import lm_eval
        from lm_eval import simple_evaluate
        from lm_eval.models.huggingface import HFLM
        from lm_eval.tasks import TaskManager
    except ImportError:
        warn("eval.lm_eval_tasks needs lm-evaluation-harness: pip install lm-eval")
        return {}
    with offline():
        include = str(opts.include) if opts.include else None
        tm = TaskManager(include_path=include, include_defaults=opts.include_defaults)
        ready, skipped = loadable_tasks(tm, opts.tasks, warn)
        out: dict[str, Any] = {
            "results": {},
            "skipped": skipped,
            "lm_eval": getattr(lm_eval, "__version__", ""),
        }
        if not ready:
            return out
        lm = HFLM(pretrained=model, tokenizer=tokenizer, batch_size=opts.batch_size)
        res = simple_evaluate(
            model=lm,
            tasks=ready,
            task_manager=tm,
            limit=opts.limit,
            num_fewshot=opts.fewshot,
            log_samples=False,
        )
    if res is None:
        return out
    samples = res.get("n-samples") or {}
    for task, row in {**res.get("results", {}), **res.get("groups", {})}.items():
        figures = _figures(row)
        n = (samples.get(task) or {}).get("effective")
        out["results"][task] = figures | ({"n": int(n)} if n is not None else {})
    return out
