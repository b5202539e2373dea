"""`jupiter status`: the workspace at a glance, as rich tables."""

from __future__ import annotations

import datetime as dt
from typing import Any

from rich.table import Table

from jupiter.improve.workspace import Workspace


def _fmt(v: object) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:.4f}"
    return str(v)


def last_budget(ws: Workspace) -> dict[str, Any] | None:
    """The token budget the newest train stage recorded (improve/budget.py)."""
    for c in reversed(ws.store.cycles()):
        train = ws.store.stages(c["n"]).get("train")
        if train and train.get("budget"):
            budget: dict[str, Any] = train["budget"]
            return budget
    return None


def status_tables(ws: Workspace) -> list[Table]:
    store = ws.store
    overview = Table(title=f"{ws.cfg.name}: {ws.root}")
    overview.add_column("what")
    overview.add_column("value", justify="right")
    gen = store.active_generator()
    overview.add_row("documents", str(store.count("documents")))
    overview.add_row(
        "chunks (train / heldout)",
        f"{store.count('chunks', 'split = ?', ('train',))} / "
        f"{store.count('chunks', 'split = ?', ('heldout',))}",
    )
    overview.add_row("current generator", gen["id"] if gen else "extractive (not yet used)")
    budget = last_budget(ws)
    if budget is not None:
        share = budget["corpus_share"]
        used = (
            "no raw text" if share is None else f"{share:.1%} of {budget['corpus_tokens']:,} tokens"
        )
        overview.add_row("corpus trained on (last train)", used)

    cycles = Table(title="cycles")
    for col in ("cycle", "status", "generator", "stages done", "started"):
        cycles.add_column(col)
    for c in store.cycles():
        started = dt.datetime.fromtimestamp(c["started_at"]).strftime("%Y-%m-%d %H:%M")
        cycles.add_row(
            str(c["n"]), c["status"], c["generator"], ", ".join(store.stages(c["n"])), started
        )

    data = Table(title="data queue (examples by status and reason)")
    for col in ("status", "reason", "count"):
        data.add_column(col, justify="right" if col == "count" else "left")
    for (st, reason), n in store.example_counts().items():
        data.add_row(st, reason or "—", str(n))

    scores = Table(title="evaluations")
    for col in ("cycle", "model", "bpb", "qa_f1", "mc_accuracy"):
        scores.add_column(col)
    for row in store.evals():
        r = row["report"]
        scores.add_row(
            str(row["cycle"]),
            row["model"],
            _fmt(r.get("bpb")),
            _fmt(r.get("qa_f1")),
            _fmt(r.get("mc_accuracy")),
        )
    return [overview, cycles, data, scores]


def status_data(ws: Workspace) -> dict[str, Any]:
    """What `jupiter status` shows, as plain data for `--json`: every stage's record and
    every evaluation's summary in full."""
    store = ws.store
    gen = store.active_generator()
    cycles = [
        {
            "n": c["n"],
            "status": c["status"],
            "generator": c["generator"],
            "started_at": c["started_at"],
            "stages": store.stages(c["n"]),
        }
        for c in store.cycles()
    ]
    queue = [
        {"status": st, "reason": reason or None, "count": n}
        for (st, reason), n in store.example_counts().items()
    ]
    evals = [
        {"cycle": row["cycle"], "model": row["model"], "report": row["report"]}
        for row in store.evals()
    ]
    return {
        "domain": ws.cfg.name,
        "workspace": str(ws.root),
        "exists": True,
        "documents": store.count("documents"),
        "chunks": {s: store.count("chunks", "split = ?", (s,)) for s in ("train", "heldout")},
        "current_generator": gen["id"] if gen else None,
        "budget": last_budget(ws),
        "cycles": cycles,
        "data_queue": queue,
        "evaluations": evals,
    }
