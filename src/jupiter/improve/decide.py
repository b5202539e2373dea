"""Promotion: the student replaces the generator only on a gain the noise cannot explain.
The lower end of the paired 95% bootstrap interval of student - generator on
`promotion.metric` must be above `promotion.margin`, and its general ability (bits-per-byte
on text outside the domain) may not have dropped by more than `promotion.max_general_drop`.
Every decision lands in the lineage (the generators table): a promoted student generates
the next cycle's data, a rejected one is recorded with the reason it was kept out."""

from __future__ import annotations

from typing import Any

from jupiter.errors import JupiterError
from jupiter.improve.student import check_student, student_id
from jupiter.improve.workspace import Workspace


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
    """(promote?, why). The lower end of the paired 95% CI of student - generator must be
    above the margin (and the point estimate too): a gain inside the noise is no gain.

    A negative margin accepts a student worse by up to |margin| (the cycle tests force
    promotion this way). An eval recorded before paired intervals were kept is judged on
    the point estimate alone, and says so.
    """
    if student <= generator + margin:
        return False, f"needs > {generator + margin:.3f}"
    if not recorded:
        return True, f"beats it by more than {margin} (no paired interval was recorded)"
    if ci is None:
        return False, "too few items for a paired interval: a gain that cannot be told from noise"
    shown = f"[{ci[0]:+.3f}, {ci[1]:+.3f}]"
    if ci[0] <= margin:
        return False, (
            f"clears the margin {margin:g} on the point estimate, but the paired 95% CI of the "
            f"difference {shown} reaches {margin:g}: a gain inside the noise is no gain"
        )
    return True, f"the paired 95% CI of the difference {shown} is above {margin:g}"


def as_candidate(ev: dict[str, Any]) -> dict[str, Any]:
    """The eval record with the student reading with its retriever in the student's place
    (its figures and paired comparisons on both exams)."""
    got = ev["retriever"]
    out = ev | {"student": got["student"], "comparisons": got["comparisons"]}
    if "user_exam" in ev and "user_exam" in got:
        out["user_exam"] = ev["user_exam"] | got["user_exam"]
    return out


def user_exam_rule(ev: dict[str, Any], metric: str, margin: float) -> dict[str, Any] | None:
    """The promotion rule on the user exam's figures ({student, generator, ci, promoted,
    reason}); None when the eval had no user exam."""
    got = ev.get("user_exam") or {}
    student, generator = got.get("student") or {}, got.get("generator") or {}
    if student.get(metric) is None or generator.get(metric) is None:
        return None
    comparisons = got.get("comparisons") or {}
    entry = comparisons.get("student_vs_generator", {}).get("metrics", {}).get(metric) or {}
    a, b, ci = float(student[metric]), float(generator[metric]), entry.get("ci")
    ok, why = promotion_rule(a, b, margin, ci, True)
    return {"student": a, "generator": b, "difference_ci": ci, "promoted": ok, "reason": why}


def general_figures(ev: dict[str, Any]) -> dict[str, Any]:
    """Out-of-domain bits-per-byte of the student and of its reference: the generator when
    it is a model that was scored, else the untrained/base model; None where not measured."""
    comparisons = ev.get("comparisons") or {}
    for model, pair in (
        ("generator", "student_vs_generator"),
        ("untrained", "student_vs_untrained"),
    ):
        reference = (ev.get(model) or {}).get("general_bpb")
        if reference is not None:
            entry = comparisons.get(pair, {}).get("metrics", {}).get("general_bpb") or {}
            return {
                "student": (ev.get("student") or {}).get("general_bpb"),
                "reference": float(reference),
                "reference_model": ev[model].get("model", model),
                "ci": entry.get("ci"),
            }
    return {
        "student": (ev.get("student") or {}).get("general_bpb"),
        "reference": None,
        "reference_model": None,
        "ci": None,
    }


def general_rule(
    student: float | None,
    reference: float | None,
    reference_model: str | None,
    max_drop: float | None,
    ci: list[float] | None = None,
) -> tuple[bool, str]:
    """(general ability kept?, why). The drop is the absolute rise in out-of-domain
    bits-per-byte (lower is better), student - reference, on the point estimate."""
    if max_drop is None:
        return True, "general ability not checked (promotion.max_general_drop: null)"
    if student is None or reference is None:
        return True, "general ability not measured in this eval, not checked"
    drop = float(student) - reference
    shown = f", paired 95% CI [{ci[0]:+.3f}, {ci[1]:+.3f}]" if ci else ""
    figures = f"out-of-domain bpb {float(student):.3f} vs {reference:.3f} of {reference_model}"
    if drop > max_drop:
        return False, (
            f"general ability dropped: {figures} ({drop:+.3f}{shown}), more than "
            f"promotion.max_general_drop {max_drop:g}"
        )
    return True, f"general ability kept: {figures} ({drop:+.3f}{shown}), within {max_drop:g}"


def decide_stage(ws: Workspace, cycle: int) -> dict[str, Any]:
    done = ws.store.stages(cycle)
    ev = done.get("eval")
    if not ev or ev.get("skipped"):
        raise JupiterError(
            f"cycle {cycle} has no evaluation to decide on: run `jupiter eval --domain "
            f"{ws.cfg.name}` first"
        )
    rules = ws.cfg.promotion
    metric, margin = rules.metric, rules.margin
    reading = rules.candidate == "student+retriever"
    if reading and "retriever" not in ev:
        raise JupiterError(
            f"promotion.candidate is student+retriever but cycle {cycle}'s eval did not score "
            "the student with its retriever: run `jupiter eval` again"
        )
    ev = as_candidate(ev) if reading else ev
    student = float(ev["student"][metric])
    generator = float(ev["generator"][metric])
    recorded, ci = _paired(ev, metric)
    promote, why = promotion_rule(student, generator, margin, ci, recorded)
    user = user_exam_rule(ev, metric, margin)
    if rules.exam != "own" and user is None:
        raise JupiterError(
            f"promotion.exam is {rules.exam} but cycle {cycle}'s eval has no user exam: set "
            "eval.user_exam_path and run `jupiter eval` again, or set promotion.exam: own"
        )
    if user is not None and rules.exam == "user":
        promote, why = user["promoted"], f"user exam: {user['reason']}"
    elif user is not None and rules.exam == "both":
        both = promote and user["promoted"]
        why = f"own exam: {why}; user exam: {user['reason']}"
        promote = both
    general = general_figures(ev)
    general_ok, general_why = general_rule(
        general["student"],
        general["reference"],
        general["reference_model"],
        rules.max_general_drop,
        general["ci"],
    )
    if promote:
        promote, why = general_ok, (f"{why}; {general_why}" if general_ok else general_why)
    if promote:  # the model promoted is the one scored: its checksums again
        check_student(ws, cycle)
    generator_id = ev["generator"]["model"]
    info: dict[str, Any] = {
        "metric": metric,
        "margin": margin,
        "student": student,
        "generator": generator,
        "difference_ci": ci,
        "generator_id": generator_id,
        "promoted": promote,
        "reason": why,
        "general": general | {"max_drop": rules.max_general_drop, "kept": general_ok},
        "exam": rules.exam,
        "user_exam": user,
        "candidate": rules.candidate,
    }
    record_student(ws, cycle, info, (done.get("train") or {}).get("data") or {})
    if promote:
        info["new_generator"] = student_id(cycle)
        ws.console.print(
            f"[bold green]promoted[/]: the student ({metric} {student:.3f}) vs "
            f"{generator_id} ({generator:.3f}): {why}; "
            f"{info['new_generator']} generates the next cycle's data"
        )
    else:
        ws.console.print(
            f"kept {generator_id}: student {metric} {student:.3f} vs generator "
            f"{generator:.3f} ({why})"
        )
    if user is not None and rules.exam == "own":
        ws.console.print(
            f"user exam (reported, not gating): student {metric} {user['student']:.3f} vs "
            f"generator {user['generator']:.3f}: {user['reason']}"
        )
    return info


def record_student(ws: Workspace, cycle: int, info: dict[str, Any], data: dict[str, Any]) -> None:
    """The student in the lineage, promoted or rejected, with its parent, figures and data;
    a promoted one becomes the active generator."""
    gen_id = student_id(cycle)
    figures = {
        k: info.get(k)
        for k in ("metric", "margin", "student", "generator", "general", "exam", "user_exam")
    }
    figures |= {"difference": info["student"] - info["generator"], "ci": info["difference_ci"]}
    parent = info["generator_id"].removeprefix("generator:")
    status = "promoted" if info["promoted"] else "rejected"
    kind = "model+retriever" if info.get("candidate") == "student+retriever" else "model"
    with ws.store.transaction():
        ws.store.add_generator(
            gen_id,
            kind,
            str(ws.student_dir(cycle)),
            cycle,
            parent=parent,
            status=status,
            reason=info["reason"],
            figures=figures,
            data=data,
        )
        if info["promoted"]:
            ws.store.activate_generator(
                gen_id, cycle=cycle, action="promoted", reason=info["reason"]
            )
