"""Promotion: the student replaces the generator when it beats it on the configured metric
by more than the configured margin. From then on it generates the next cycle's data."""

from __future__ import annotations

from typing import Any

from jupiter.errors import JupiterError
from jupiter.improve.workspace import Workspace


def student_id(cycle: int) -> str:
    return f"model:cycle-{cycle:03d}"


def decide_stage(ws: Workspace, cycle: int) -> dict[str, Any]:
    ev = ws.store.stages(cycle).get("eval")
    if not ev or ev.get("skipped"):
        raise JupiterError(
            f"cycle {cycle} has no evaluation to decide on: run `jupiter eval --domain "
            f"{ws.cfg.name}` first"
        )
    metric, margin = ws.cfg.promotion.metric, ws.cfg.promotion.margin
    student = float(ev["student"][metric])
    generator = float(ev["generator"][metric])
    promote = student > generator + margin
    info: dict[str, Any] = {
        "metric": metric, "margin": margin, "student": student, "generator": generator,
        "generator_id": ev["generator"]["model"], "promoted": promote,
    }  # fmt: skip
    if promote:
        gen_id = student_id(cycle)
        path = str(ws.student_dir(cycle))
        with ws.store.transaction():
            ws.store.add_generator(gen_id, "model", path, cycle)
            ws.store.activate_generator(gen_id)
        info["new_generator"] = gen_id
        ws.console.print(
            f"[bold green]promoted[/]: the student ({metric} {student:.3f}) beats "
            f"{info['generator_id']} ({generator:.3f}) by more than {margin}; "
            f"{gen_id} generates the next cycle's data"
        )
    else:
        ws.console.print(
            f"kept {info['generator_id']}: student {metric} {student:.3f} vs generator "
            f"{generator:.3f} (needs > {generator + margin:.3f})"
        )
    return info
