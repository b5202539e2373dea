"""The cycle state machine: collect → generate → filter → train → eval → decide, repeated
for the YAML's `cycles`. Each finished stage is recorded in the store, so an interrupted
run, started again, continues with the first unfinished stage of the unfinished cycle."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any, Literal

from rich.markup import escape
from rich.prompt import Prompt

from jupiter.errors import JupiterError
from jupiter.improve import stages
from jupiter.improve.decide import decide_stage
from jupiter.improve.evaluate import eval_stage
from jupiter.improve.generation import missing_requests
from jupiter.improve.generator import active_generator
from jupiter.improve.lineage import patience_message
from jupiter.improve.preflight import preflight_checks
from jupiter.improve.training import train_stage
from jupiter.improve.workspace import Workspace
from jupiter.models.folder import is_model_dir

StageFn = Callable[[Workspace, int], dict[str, Any]]
STAGES: dict[str, StageFn] = {
    "collect": stages.collect_stage,
    "generate": stages.generate_stage,
    "filter": stages.filter_stage,
    "train": train_stage,
    "eval": eval_stage,
    "decide": decide_stage,
}
Choice = Literal["run", "skip", "stop"]


def run_stage(ws: Workspace, cycle: int, name: str) -> dict[str, Any]:
    """Run one stage and return its summary (the caller records it)."""
    t0 = time.perf_counter()
    preflight_checks(ws, [name])  # once: `jupiter start` checked every stage before the first
    ws.check_models()  # a wrong model reference stops here, before the stage writes anything
    info = STAGES[name](ws, cycle)
    if name == "collect":
        # the cycle row is written after collect succeeds: a failed first collect
        # (missing path, empty corpus) leaves the store empty.
        ws.store.start_cycle(cycle, active_generator(ws)["id"])
    info.setdefault("seconds", round(time.perf_counter() - t0, 2))
    return info


def missing_input(ws: Workspace, cycle: int, name: str) -> str | None:
    """Why stage `name` cannot run yet in `cycle` (naming the stage to run first), or None.
    Reads the store only when there is one: a refused command leaves no workspace."""
    store = ws.store if ws.has_store() else None
    run = f"--domain {ws.cfg.name}" + (" --quick" if ws.quick else "")
    chunks = store.count("chunks", "split = 'train'") if store else 0
    done = store.stages(cycle) if store else {}
    if name in ("generate", "filter", "train") and not chunks:
        return f"{name}: the workspace has no documents yet: run `jupiter collect {run}` first"
    pending = store.count("examples", "cycle = ? AND status = 'pending'", (cycle,)) if store else 0
    if name == "filter" and "generate" not in done and not pending:
        return (
            f"filter: cycle {cycle} has no generated examples to filter: run "
            f"`jupiter generate {run}` first"
        )
    kept = store.count("examples", "status IN ('accepted', 'used')") if store else 0
    if name == "train" and not kept and not ws.cfg.levels:
        first = "filter" if "generate" in done else "generate"
        return f"train: no accepted examples to train on yet: run `jupiter {first} {run}` first"
    if name == "eval" and not is_model_dir(ws.student_dir(cycle)):
        return f"eval: cycle {cycle} has no trained student yet: run `jupiter train {run}` first"
    return None


def run_stage_command(ws: Workspace, name: str) -> dict[str, Any]:
    """One stage on its own (`jupiter collect`, `generate`, `filter`, `train`, `eval`): refused
    when its input is missing; marked done only when the cycle's earlier stages are, so a
    stage run out of order is run again by `jupiter start` after them."""
    cycle = current_cycle(ws) if ws.has_store() else 1
    problem = missing_input(ws, cycle, name)
    if problem:
        raise JupiterError(problem)
    info = run_stage(ws, cycle, name)
    done = ws.store.stages(cycle)
    earlier = list(STAGES)[: list(STAGES).index(name)]
    missing = [s for s in earlier if s not in done]
    if not missing:
        ws.store.mark_stage(cycle, name, info)
    else:
        ws.console.print(
            f"{name}: not marked done in cycle {cycle}, whose {', '.join(missing)} has not "
            f"run: `jupiter start` runs {name} again after it",
            highlight=False,
            markup=False,
        )
    return info


def current_cycle(ws: Workspace) -> int:
    """The first cycle not marked done (1 for a new workspace)."""
    done = [c["n"] for c in ws.store.cycles() if c["status"] == "done"]
    return max(done, default=0) + 1


def run_cycles(ws: Workspace, interactive: bool = False) -> list[int]:
    """Run cycles until the YAML's `cycles` are done, or until `promotion.patience`
    students in a row were kept out; returns the cycles finished now."""
    finished: list[int] = []
    cycle = current_cycle(ws) if ws.has_store() else 1
    if cycle > ws.cfg.cycles:
        ws.console.print(
            f"all {ws.cfg.cycles} cycles of '{ws.cfg.name}' are done "
            f"(raise `cycles:` in the domain YAML to run more)"
        )
        return finished
    done = ws.store.stages(cycle) if ws.has_store() else {}
    # a later cycle runs every stage; else the unfinished stages of this one
    preflight_checks(ws, STAGES if cycle < ws.cfg.cycles else set(STAGES) - set(done))
    while cycle <= ws.cfg.cycles:
        stop = patience_message(ws)
        if stop:  # checked before each cycle: a resumed run stops too, until something changes
            ws.console.print(f"[bold yellow]{escape(stop)}[/]")
            return finished
        ws.console.rule(f"[bold]cycle {cycle}/{ws.cfg.cycles}")
        if not run_one_cycle(ws, cycle, interactive):
            ws.console.print("stopped; `jupiter start` continues from here.")
            return finished
        finished.append(cycle)
        cycle += 1
    return finished


def run_one_cycle(ws: Workspace, cycle: int, interactive: bool) -> bool:
    """Run the unfinished stages of one cycle. Returns False if the user stopped."""
    done = ws.store.stages(cycle) if ws.has_store() else {}
    for name in STAGES:
        if name in done:
            ws.console.print(f"[dim]{name}: done earlier, skipped[/dim]")
            continue
        while True:
            choice: Choice = ask_before(ws, name) if interactive else "run"
            if choice == "stop":
                return False
            if choice == "skip":
                ws.store.mark_stage(cycle, name, {"skipped": True})
                break
            info = run_stage(ws, cycle, name)
            # requests that failed every retry: the stage stays unfinished, so the next
            # run asks them again (the answered ones come from the cache)
            missing = missing_requests(ws, info) if name == "generate" else ""
            if missing and not interactive:
                raise JupiterError(missing)
            if interactive:
                if missing:
                    ws.console.print(f"[bold yellow]{escape(missing)}[/]")
                after = ask_after(ws, name, cycle, info)
                if after == "redo":
                    continue
                ws.store.mark_stage(cycle, name, info)
                if after == "stop":
                    return False
            else:
                ws.store.mark_stage(cycle, name, info)
            break
    ws.store.finish_cycle(cycle)
    return True


def ask_before(ws: Workspace, stage: str) -> Choice:
    answer = Prompt.ask(
        f"[bold]{stage}[/bold]: run, skip or stop?",
        choices=["run", "skip", "stop"],
        default="run",
        console=ws.console,
    )
    return answer  # type: ignore[return-value]


def ask_after(ws: Workspace, stage: str, cycle: int, info: dict[str, Any]) -> str:
    show_samples(ws, stage, cycle, info)
    return Prompt.ask(
        f"{stage} finished: continue, redo or stop?",
        choices=["continue", "redo", "stop"],
        default="continue",
        console=ws.console,
    )


def show_samples(ws: Workspace, stage: str, cycle: int, info: dict[str, Any]) -> None:
    """What the user looks at before deciding: a few examples, or the stage's figures."""
    if stage in ("generate", "filter"):
        status = "pending" if stage == "generate" else "accepted"
        shown = 0
        for ex in ws.store.iter_examples(status=status, cycle=cycle, kind="qa"):
            ws.console.print(f"[cyan]Q:[/cyan] {ex.question}\n[green]A:[/green] {ex.answer[:300]}")
            shown += 1
            if shown == 3:
                break
    ws.console.print_json(json.dumps(info, default=str))
