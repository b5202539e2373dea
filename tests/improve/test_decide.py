"""The promotion gate: the lower end of the paired 95% interval of student - generator must
be above the margin, and general ability may not drop by more than max_general_drop."""

from __future__ import annotations

import pytest
from gate_records import MakeWorkspace, eval_record, hits, printed

from jupiter.errors import JupiterError
from jupiter.improve.decide import decide_stage, general_rule, promotion_rule


def test_gain_outside_the_noise_promotes() -> None:
    ok, why = promotion_rule(0.6, 0.4, 0.0, [0.1, 0.3], recorded=True)
    assert ok and "[+0.100, +0.300] is above 0" in why


def test_gain_inside_the_noise_is_refused() -> None:
    ok, why = promotion_rule(0.45, 0.4, 0.0, [-0.05, 0.15], recorded=True)
    assert not ok and "a gain inside the noise is no gain" in why
    ok, _ = promotion_rule(0.45, 0.4, 0.0, [0.0, 0.15], recorded=True)  # touching 0 is no gain
    assert not ok


def test_the_lower_bound_must_clear_the_margin_not_just_zero() -> None:
    # point +0.2 clears the margin 0.1 and the CI is above 0, but its lower end is not
    # above the margin: refused
    ok, why = promotion_rule(0.6, 0.4, 0.1, [0.05, 0.35], recorded=True)
    assert not ok and "reaches 0.1" in why
    ok, why = promotion_rule(0.6, 0.4, 0.1, [0.12, 0.35], recorded=True)
    assert ok and "is above 0.1" in why


def test_margin_still_applies_to_the_point_estimate() -> None:
    ok, why = promotion_rule(0.45, 0.4, 0.1, [0.01, 0.1], recorded=True)
    assert not ok and "needs > 0.500" in why


def test_negative_margin_lowers_the_bar_to_the_margin() -> None:
    # a negative margin accepts a worse student (the cycle tests force promotion this way)
    ok, _ = promotion_rule(0.3, 0.4, -1.0, [-0.3, 0.1], recorded=True)
    assert ok
    ok, _ = promotion_rule(0.3, 0.4, -0.2, [-0.3, 0.1], recorded=True)
    assert not ok


def test_no_interval_from_too_few_items_refuses_but_old_evals_use_the_point() -> None:
    ok, why = promotion_rule(1.0, 0.0, 0.0, None, recorded=True)
    assert not ok and "too few items" in why
    ok, why = promotion_rule(0.6, 0.4, 0.0, None, recorded=False)
    assert ok and "no paired interval" in why


def test_general_rule_is_an_absolute_rise_in_bpb() -> None:
    ok, why = general_rule(1.10, 1.00, "generator:m", 0.05)
    assert not ok and "+0.100" in why and "max_general_drop 0.05" in why
    ok, why = general_rule(1.04, 1.00, "generator:m", 0.05)
    assert ok and "within 0.05" in why
    assert general_rule(0.90, 1.00, "generator:m", 0.0)[0]  # better general ability
    ok, why = general_rule(None, 1.00, "generator:m", 0.05)
    assert ok and "not measured" in why
    ok, why = general_rule(9.0, 1.00, "generator:m", None)
    assert ok and "not checked" in why


# ------------------------------------------------------------------ through decide_stage
def _decide(make_ws: MakeWorkspace, ev: dict, **promotion: object) -> tuple[dict, object]:
    ws = make_ws(**promotion)
    ws.store.mark_stage(1, "eval", ev)
    return decide_stage(ws, 1), ws


def test_decide_refuses_a_student_better_by_noise(make_ws: MakeWorkspace) -> None:
    # seeded per-item scores: the student's true accuracy is 0.05 above, on 60 items; this
    # draw puts it 0.067 above, with the paired interval across 0
    ev = eval_record(hits(60, 0.55, seed=13), hits(60, 0.50, seed=14))
    info, ws = _decide(make_ws, ev)
    assert info["student"] > info["generator"]  # better on the point estimate …
    assert info["difference_ci"][0] <= 0 < info["difference_ci"][1]  # … inside the noise
    assert not info["promoted"]
    assert ws.store.active_generator() is None  # nothing activated
    row = ws.store.generator("model:cycle-001")
    assert row["status"] == "rejected" and "inside the noise is no gain" in row["reason"]
    assert "kept generator:extractive" in printed(ws)


def test_decide_accepts_a_student_clearly_better(make_ws: MakeWorkspace) -> None:
    ev = eval_record(hits(200, 0.8, seed=3), hits(200, 0.3, seed=4))
    info, ws = _decide(make_ws, ev)
    assert info["promoted"] and info["difference_ci"][0] > 0
    assert ws.store.active_generator()["id"] == "model:cycle-001"
    assert "general ability not measured" in info["reason"]  # absent: said, not blocking
    assert "promoted" in printed(ws) and "paired 95% CI" in printed(ws)


def test_decide_the_same_clear_gain_below_a_high_margin(make_ws: MakeWorkspace) -> None:
    ev = eval_record(hits(200, 0.8, seed=3), hits(200, 0.3, seed=4))
    info, _ = _decide(make_ws, ev, margin=0.4)  # +0.42, CI [+0.325, +0.51]
    assert info["student"] - info["generator"] > 0.4 >= info["difference_ci"][0] > 0
    assert not info["promoted"] and "reaches 0.4" in info["reason"]


def test_decide_general_drop_blocks_a_clear_gain(make_ws: MakeWorkspace) -> None:
    ev = eval_record(hits(200, 0.8, seed=3), hits(200, 0.3, seed=4), general=(1.30, 1.10))
    info, ws = _decide(make_ws, ev, max_general_drop=0.05)
    assert not info["promoted"] and info["general"]["kept"] is False
    assert "general ability dropped" in info["reason"]
    assert ws.store.generator("model:cycle-001")["status"] == "rejected"
    # within the allowed drop: promoted, and the reason says general ability was checked
    ev = eval_record(hits(200, 0.8, seed=3), hits(200, 0.3, seed=4), general=(1.13, 1.10))
    info, _ = _decide(make_ws, ev, max_general_drop=0.05)
    assert info["promoted"] and "general ability kept" in info["reason"]


def test_decide_general_reference_falls_back_to_the_base(make_ws: MakeWorkspace) -> None:
    # an extractive generator has no bpb: the untrained/base model is the reference
    ev = eval_record(hits(200, 0.8, seed=3), hits(200, 0.3, seed=4))
    ev["student"]["general_bpb"] = 1.5
    ev["untrained"] = {"model": "base:gemma", "general_bpb": 1.2}
    info, _ = _decide(make_ws, ev)
    assert not info["promoted"] and "of base:gemma" in info["reason"]


def test_decide_on_an_eval_recorded_before_intervals(make_ws: MakeWorkspace) -> None:
    ev = eval_record([1.0, 1.0, 0.0], [0.0, 1.0, 0.0])
    del ev["comparisons"]
    info, ws = _decide(make_ws, ev)
    assert info["promoted"] and info["difference_ci"] is None
    assert "no paired interval" in printed(ws)


@pytest.mark.parametrize("margin", [0.0, 0.05])
def test_decide_keeps_a_worse_student(make_ws: MakeWorkspace, margin: float) -> None:
    info, ws = _decide(make_ws, eval_record([0.0] * 10, [1.0] * 10), margin=margin)
    assert not info["promoted"] and ws.store.active_generator() is None


# ------------------------------------------------------------------ the user exam at the gate
def _with_user_exam(ev: dict, student_hits: list[float], generator_hits: list[float]) -> dict:
    """`ev` with a user exam whose student and generator scored these hits."""
    user = eval_record(student_hits, generator_hits)
    return ev | {
        "user_exam": {
            "student": user["student"],
            "generator": user["generator"],
            "untrained": None,
            "comparisons": user["comparisons"],
            "scored": len(student_hits),
        }
    }


def test_decide_reports_the_user_exam_without_gating_on_it(make_ws: MakeWorkspace) -> None:
    ev = _with_user_exam(
        eval_record(hits(200, 0.8, seed=3), hits(200, 0.3, seed=4)),
        hits(200, 0.3, seed=5),
        hits(200, 0.6, seed=6),
    )
    info, ws = _decide(make_ws, ev)
    assert info["promoted"] and info["exam"] == "own"
    assert not info["user_exam"]["promoted"] and info["user_exam"]["difference_ci"][1] < 0
    assert "user exam (reported, not gating)" in printed(ws)
    figures = ws.store.generator("model:cycle-001")["figures"]
    assert figures["user_exam"]["student"] == info["user_exam"]["student"]


def test_decide_on_both_exams_needs_a_gain_on_each(make_ws: MakeWorkspace) -> None:
    own = eval_record(hits(200, 0.8, seed=3), hits(200, 0.3, seed=4))
    worse = _with_user_exam(own, hits(200, 0.3, seed=5), hits(200, 0.6, seed=6))
    info, _ = _decide(make_ws, worse, exam="both")
    assert not info["promoted"] and "user exam: needs >" in info["reason"]
    better = _with_user_exam(own, hits(200, 0.7, seed=5), hits(200, 0.3, seed=6))
    info, ws = _decide(make_ws, better, exam="both")
    assert info["promoted"] and ws.store.active_generator()["id"] == "model:cycle-001"
    assert (
        "own exam: the paired 95% CI" in info["reason"]
        and "user exam: the paired" in info["reason"]
    )


def test_decide_on_the_user_exam_alone(make_ws: MakeWorkspace) -> None:
    own_worse = eval_record(hits(200, 0.3, seed=3), hits(200, 0.8, seed=4))
    info, _ = _decide(
        make_ws,
        _with_user_exam(own_worse, hits(200, 0.7, seed=5), hits(200, 0.3, seed=6)),
        exam="user",
    )
    assert info["promoted"] and info["reason"].startswith("user exam: the paired 95% CI")


def test_decide_on_a_user_exam_the_eval_did_not_sit_is_one_line(make_ws: MakeWorkspace) -> None:
    ev = eval_record(hits(200, 0.8, seed=3), hits(200, 0.3, seed=4))
    with pytest.raises(JupiterError, match="set eval.user_exam_path"):
        _decide(make_ws, ev, exam="both")
