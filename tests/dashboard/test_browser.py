"""The page in a real browser: Playwright driving Debian's Chromium (installed in CI by
.ci/install-chromium). It shows the finished run's figures, follows a run that writes, and
shows a document's markup as text."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import pytest
from dashboard_runs import SCRIPT, Run, Serve, qa, query

from jupiter.store import Store
from jupiter.train.metrics import MetricsLogger, read_metrics

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium (see .ci/install-chromium)")
WAIT_MS = 15_000


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A page that records script errors: none may happen."""
    pg = browser.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    yield pg
    pg.close()
    assert errors == []


def fixed(x: float, digits: int) -> str:
    """Number.prototype.toFixed: the exact binary value, a tie rounded away from zero."""
    return str(Decimal(x).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def shown(fig: dict[str, Any]) -> str:
    """A figure with its 95% interval as the page and `jupiter eval` print it."""
    lo, hi = fig["ci"]
    return f"{fixed(fig['value'], 3)} [{fixed(lo, 2)}, {fixed(hi, 2)}]"


def expect_text(page: Any, selector: str, text: str) -> None:
    sync_api.expect(page.locator(selector)).to_have_text(text, timeout=WAIT_MS)


@pytest.mark.slow
def test_page_shows_the_finished_run(finished_run: Run, serve: Serve, page: Any) -> None:
    page.goto(serve(finished_run.root, cycles=1))
    page.wait_for_selector("#live[data-state=live]", timeout=WAIT_MS)
    db = finished_run.db
    stored = {m: json.loads(r) for m, r in query(db, "SELECT model, report FROM evals")}
    student = stored["student:cycle-001"]
    cell = 'tr[data-cycle="1"][data-model="student:cycle-001"] td[data-figure="{}"]'
    qa_f1 = {"value": student["qa_f1"], "ci": student["qa_f1_ci"]}
    expect_text(page, cell.format("qa_f1"), shown(qa_f1))
    mc = {"value": student["mc_accuracy"], "ci": student["mc_accuracy_ci"]}
    expect_text(page, cell.format("mc_accuracy"), shown(mc) + " (chance 0.25)")
    bpb = {"value": student["bpb"], "ci": student["bpb_ci"]}
    expect_text(page, cell.format("bpb"), shown(bpb))
    gen_bpb = 'tr[data-model="generator:extractive"] td[data-figure="bpb"]'
    expect_text(page, gen_bpb, "—")  # retrieval has no bits-per-byte
    decision = page.locator('[data-decision="1"]').inner_text()
    assert decision.startswith("promoted: mc_accuracy student")
    assert "model:cycle-001 generates the next cycle's data" in decision
    for status, n in query(db, "SELECT status, COUNT(*) FROM examples GROUP BY status"):
        expect_text(page, f'#queue-status td[data-status="{status}"]', str(n))
    for reason, n in query(
        db, "SELECT reason, COUNT(*) FROM examples WHERE status = 'rejected' GROUP BY reason"
    ):
        expect_text(page, f'#queue-reasons td[data-reason="{reason}"]', str(n))
    last = [r for r in read_metrics(finished_run.metrics) if r["kind"] == "train"][-1]
    run = '[data-run="cycle-001"] [data-last="{}"]'
    expect_text(page, run.format("step"), "12")
    expect_text(page, run.format("loss"), fixed(last["loss"], 4))
    expect_text(page, run.format("tokens_per_s"), f"{round(last['tokens_per_s']):,}")
    # the curves are drawn: train loss as a line of 6 points, held-out loss as 2 dots
    chart = page.locator('svg[data-chart="cycle-001: loss"]')
    assert len(chart.locator("polyline").get_attribute("points").split()) == 6
    assert chart.locator("circle").count() == 2
    expect_text(
        page, '#lineage-generators tr[data-generator="model:cycle-001"] td.promoted', "promoted"
    )
    expect_text(page, '[data-overview="active_generator"] .v', "model:cycle-001")


@pytest.mark.slow
def test_page_follows_a_run_that_writes(run_copy: Run, serve: Serve, page: Any) -> None:
    page.goto(serve(run_copy.root))
    run = '[data-run="cycle-001"] [data-last="{}"]'
    expect_text(page, run.format("step"), "12")
    assert page.locator('#queue-status td[data-status="pending"]').count() == 0
    with MetricsLogger(run_copy.metrics.parent, [], run_name="cycle-001", config={}) as log:
        log.log(14, {"loss": 4.25, "tokens_per_s": 54321.0})
    expect_text(page, run.format("step"), "14")
    expect_text(page, run.format("loss"), "4.2500")
    expect_text(page, run.format("tokens_per_s"), "54,321")
    (before,) = query(run_copy.db, "SELECT COUNT(*) FROM examples")[0]
    with Store(run_copy.db) as writer:
        writer.add_examples(
            [qa(f"What does json.f{i} do?", f"It does thing {i}.", 2) for i in range(3)]
        )
    expect_text(page, '#queue-status td[data-status="pending"]', "3")
    expect_text(page, '[data-overview="examples"] .v', f"{before + 3:,}")
    assert page.locator("#live").get_attribute("data-state") == "live"


def test_markup_in_the_data_shows_as_text(markup_workspace: Path, serve: Serve, page: Any) -> None:
    page.goto(serve(markup_workspace, "inject"))
    page.wait_for_selector("#queue-reasons", timeout=WAIT_MS)
    page.locator("details[data-key='reason:too_short'] summary").click()
    sample = page.locator("details[data-key='reason:too_short'] pre").first
    assert sample.inner_text() == f"What is {SCRIPT}?\nIt is {SCRIPT} indeed."
    recorded = "details[data-key='stage:filter:1:too_short']"  # the filter's own sample
    page.locator(f"{recorded} summary").click()
    assert page.locator(f"{recorded} pre").inner_text() == sample.inner_text()
    reason = page.locator('#lineage-generators tr[data-generator="extractive"]').inner_text()
    assert SCRIPT in reason
    page.wait_for_timeout(300)  # an onerror handler would have run by now
    assert page.evaluate("window.__pwned") is None
    assert page.locator("main img").count() == 0
    assert page.locator("script").count() == 1  # app.js alone


def test_cluster_islands_and_rounds(cluster_workspace: Path, serve: Serve, page: Any) -> None:
    page.goto(serve(cluster_workspace, "c"))
    expect_text(page, '[data-cluster="1"] h3', "cycle 1: 2 / 3 sync rounds")
    expect_text(page, 'td[data-island-rounds="gpu"]', "2")
    expect_text(page, 'td[data-island-rounds="mac"]', "1")
    gpu = page.locator('tr[data-island="gpu"]').inner_text()
    assert "torch" in gpu and "a, b" in gpu and "round 2, step 45" in gpu
    expect_text(page, 'td[data-round-loss="1"]', "4.4000")
    skipped = page.locator('tr[data-round="1"] td').nth(2).inner_text()
    assert skipped == "mac"
    # held-out loss of the starting weights, then after each round
    chart = page.locator('svg[data-chart="cycle 1: held-out loss by round"] polyline')
    assert len(chart.get_attribute("points").split()) == 3


def test_page_says_when_the_server_is_gone(markup_workspace: Path, browser: Any) -> None:
    from jupiter.dashboard.server import start_in_thread, url_of
    from jupiter.dashboard.state import Board

    board = Board(markup_workspace, "inject")
    server = start_in_thread(board)
    pg = browser.new_page()
    try:
        pg.goto(url_of(server))
        pg.wait_for_selector("#live[data-state=live]", timeout=WAIT_MS)
        server.shutdown()
        server.server_close()
        pg.wait_for_selector("#live[data-state=error]", timeout=WAIT_MS)
        assert "cannot reach the dashboard server" in pg.locator("#live").inner_text()
        expect_text(pg, '#queue-status td[data-status="accepted"]', "1")  # still shown
    finally:
        pg.close()
        board.close()
