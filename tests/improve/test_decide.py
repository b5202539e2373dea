"""Promotion: a gain must clear the margin and its paired 95% interval must be above 0."""

from __future__ import annotations

import io
from contextlib import nullcontext
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from rich.console import Console

from jupiter.eval.compare import compare_reports
from jupiter.improve.decide import decide_stage, promotion_rule


def test_gain_outside_the_noise_promotes() -> None:
    ok, why = promotion_rule(0.6, 0.4, 0.0, [0.1, 0.3], recorded=True)
    assert ok and "[+0.100, +0.300] is above 0" in why


def test_gain_inside_the_noise_is_refused() -> None:
    ok, why = promotion_rule(0.45, 0.4, 0.0, [-0.05, 0.15], recorded=True)
    assert not ok and "a gain inside the noise is no gain" in why
    ok, _ = promotion_rule(0.45, 0.4, 0.0, [0.0, 0.15], recorded=True)  # touching 0 is no gain
    assert not ok


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


class FakeStore:
    def __init__(self, ev: dict[str, Any]) -> None:
        self.ev = ev
        self.generators: list[str] = []

    def stages(self, cycle: int) -> dict[str, Any]:
        return {"eval": self.ev}

    def transaction(self) -> nullcontext[None]:
        return nullcontext()

    def add_generator(self, gen_id: str, kind: str, path: str, cycle: int) -> None:
        self.generators.append(gen_id)

    def activate_generator(self, gen_id: str) -> None:
        pass


def _eval(student_hits: list[float], generator_hits: list[float]) -> dict[str, Any]:
    """The eval stage's record for two models' MC hits on the same items."""

    def report(model: str, hits: list[float]) -> dict[str, Any]:
        scores = {f"q{k}": h for k, h in enumerate(hits)}
        return {"model": model, "mc_accuracy": sum(hits) / len(hits),
                "item_scores": {"mc_accuracy": scores}}  # fmt: skip

    student = report("student:cycle-001", student_hits)
    generator = report("generator:extractive", generator_hits)
    comp = compare_reports(student, generator)
    return {"student": student, "generator": generator,
            "comparisons": {"student_vs_generator": comp}}  # fmt: skip


def _decide(ev: dict[str, Any], margin: float = 0.0) -> tuple[dict[str, Any], FakeStore, str]:
    out = io.StringIO()
    store = FakeStore(ev)
    ws = SimpleNamespace(
        store=store,
        cfg=SimpleNamespace(name="t", promotion=SimpleNamespace(metric="mc_accuracy",
                                                                margin=margin)),
        console=Console(file=out, width=200, color_system=None),
        student_dir=lambda cycle: Path("/tmp/student"),
    )  # fmt: skip
    info = decide_stage(ws, 1)  # type: ignore[arg-type]
    return info, store, out.getvalue()


def test_decide_refuses_a_gain_inside_the_noise() -> None:
    # one more right answer out of 10: above the margin 0, but inside the noise
    student = [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    generator = [1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    info, store, text = _decide(_eval(student, generator))
    assert info["student"] > info["generator"]
    assert not info["promoted"] and store.generators == []
    assert info["difference_ci"][0] <= 0 < info["difference_ci"][1]
    assert "kept generator:extractive" in text and "inside the noise is no gain" in text


def test_decide_promotes_a_clear_gain() -> None:
    student = [1.0] * 30 + [0.0] * 10
    generator = [0.0] * 30 + [1.0] * 2 + [0.0] * 8
    info, store, text = _decide(_eval(student, generator))
    assert info["promoted"] and store.generators == ["model:cycle-001"]
    assert info["difference_ci"][0] > 0
    assert "promoted" in text and "paired 95% CI" in text


def test_decide_on_an_eval_recorded_before_intervals() -> None:
    ev = _eval([1.0, 1.0, 0.0], [0.0, 1.0, 0.0])
    del ev["comparisons"]
    info, _, text = _decide(ev)
    assert info["promoted"] and info["difference_ci"] is None
    assert "no paired interval" in text


@pytest.mark.parametrize("margin", [0.0, 0.05])
def test_decide_keeps_a_worse_student(margin: float) -> None:
    info, store, _ = _decide(_eval([0.0] * 10, [1.0] * 10), margin)
    assert not info["promoted"] and store.generators == []
