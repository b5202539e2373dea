"""Two chaos scenarios, small: kill -9 of `jupiter generate` against a
counting fake server asks no stored answer again; a flaky server (500, 429, hangs, slow
drip, garbage, wrong types, resets) neither stops nor stalls generation, and the next run
asks exactly what has no answer."""

from __future__ import annotations

from pathlib import Path

import flaky_server
import kill_generation
import pytest

pytestmark = pytest.mark.slow


def test_kill_9_mid_generation_asks_no_stored_answer_again(tmp_path: Path) -> None:
    fig = kill_generation.run(kills=1, requests=20, delay=0.1, seed=3, root=tmp_path)
    kill = fig["per_kill"][0]
    assert kill["exit"] == -9 and kill["new_answers"] > 0, kill
    assert fig["asked_again"] == 0
    assert (fig["answered"], fig["queue_rows"], fig["last_exit"]) == (20, 20, 0)
    # every request sent is answered in the store or was in flight at the kill
    assert fig["requests_sent"] == 20 + fig["wasted_in_flight"]
    assert fig["accepted_same_as_uninterrupted"]


def test_flaky_server_loses_nothing_and_stalls_nothing(tmp_path: Path) -> None:
    fig = flaky_server.run(requests=40, rate=0.5, seed=5, root=tmp_path)
    assert fig["injected_total"] >= 15 and len(fig["injected"]) >= 6, fig["injected"]
    first, second = fig["first_run"], fig["second_run"]
    assert first["retries"] > 0
    assert second["asked_only_the_unanswered"] and second["failed"] == 0
    assert fig["nothing_lost"] and fig["queue_rows"] == 40
    # llm.timeout (1 s) bounds a whole request: a server dripping its answer is let go
    assert all(held <= 2.5 for held in fig["slow_drip_held_s"]), fig["slow_drip_held_s"]
    assert first["seconds"] < 30
