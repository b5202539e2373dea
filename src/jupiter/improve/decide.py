"""Promotion: the student replaces the generator when it beats it on the configured metric
by more than the configured margin, and the paired 95% interval of the difference says the
gain is not noise. From then on it generates the next cycle's data."""

from __future__ import annotations

from typing import Any

from jupiter.errors import JupiterError
from jupiter.improve.workspace import Workspace


def student_id(cycle: int) -> str:
    return f"model:cycle-{cycle:03d}"


def _paired(ev: dict[str, Any], metric: str) -> tuple[bool, list[float] | None]:
    """(was a paired comparison recorded, the CI of student - generator on `metric`)."""
    comparisons = ev.get("comparisons")
    if comparisons is None:  # an eval recorded before paired intervals were kept
        return False, None
    entry = comparisons.get("student_vs_generator", {}).get("metrics", {}).get(metric)
    return True, (entry or {}).get("ci")


def promotion_rule(
    student: float, generator: float, margin: float, ci: list[float] | None, recorded: bool
) -> tuple[bool, str]:
    """(promote?, why). The point estimate must clear the margin, and the lower end of the
    paired 95% CI of student - generator must be above 0: a gain inside the noise is no gain.

    A negative margin (accept a student worse by up to |margin|, e.g. to force promotion in
    a test) lowers that bar to the margin itself. An eval recorded before paired intervals
    were kept is judged on the point estimate alone.
    """
    if student <= generator + margin:
        return False, f"needs > {generator + margin:.3f}"
    if not recorded:
        return True, f"beats it by more than {margin} (no paired interval was recorded)"
    bar = min(0.0, margin)
    if ci is None:
        return False, "too few items for a paired interval: a gain that cannot be told from noise"
    shown = f"[{ci[0]:+.3f}, {ci[1]:+.3f}]"
    if ci[0] <= bar:
        return False, (
            f"clears the margin {margin}, but the paired 95% CI of the difference {shown} "
            f"reaches {bar:g}: a gain inside the noise is no gain"
        )
    return True, (
        f"beats it by more than {margin}, and the paired 95% CI of the difference {shown} "
        f"is above {bar:g}"
    )


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
    recorded, ci = _paired(ev, metric)
    promote, why = promotion_rule(student, generator, margin, ci, recorded)
    info: dict[str, Any] = {
        "metric": metric, "margin": margin, "student": student, "generator": generator,
        "difference_ci": ci, "generator_id": ev["generator"]["model"], "promoted": promote,
        "reason": why,
    }  # fmt: skip
    if promote:
        gen_id = student_id(cycle)
        path = str(ws.student_dir(cycle))
        with ws.store.transaction():
            ws.store.add_generator(gen_id, "model", path, cycle)
            ws.store.activate_generator(gen_id)
        info["new_generator"] = gen_id
        ws.console.print(
            f"[bold green]promoted[/]: the student ({metric} {student:.3f}) vs "
            f"{info['generator_id']} ({generator:.3f}) {why}; "
            f"{gen_id} generates the next cycle's data"
        )
    else:
        ws.console.print(
            f"kept {info['generator_id']}: student {metric} {student:.3f} vs generator "
            f"{generator:.3f} ({why})"
        )
    return info
