"""The bad-input corpus over the commands that read or write models and workspaces (export,
merge, serve, dashboard, doctor, test, eval --model, chat, generators, rollback, federated,
data export), its HTTP requests to a real `jupiter serve`, and a short serve soak. The
whole corpus: `tests/chaos/bad_input.py --commands`; the 10-minute soak:
`tests/chaos/serve_soak.py`."""

from __future__ import annotations

from collections import Counter

import pytest
from bad_input import run_corpus
from corpus_http import http_cases
from corpus_readers import (
    FIXED_BY_THE_COMMANDS_CORPUS,
    HTTP_FIXED,
    REPORTED_CASES,
    command_cases,
)
from serve_soak import soak

pytestmark = pytest.mark.slow

COMMANDS = {
    "export",
    "merge",
    "serve_cli",
    "serve_http",
    "dashboard",
    "doctor",
    "test",
    "eval_model",
    "chat",
    "generators",
    "rollback",
    "federated",
    "data_export",
}


def test_the_commands_corpus_holds_300_distinct_cases_and_the_reported_ones() -> None:
    cases, http = command_cases(), http_cases()
    ids = [c.id for c in cases] + [c.id for c in http]
    assert len(ids) >= 300 and len(set(ids)) == len(ids)
    families = Counter(c.family for c in cases) + Counter(c.family for c in http)
    assert COMMANDS <= set(families), families
    assert all(c.untouched for c in cases)  # every one checks the files it was given
    assert sum(c.seeded for c in cases) >= 60  # beside a workspace whose store must not move
    assert set(REPORTED_CASES) <= set(ids), set(REPORTED_CASES) - set(ids)
    assert set(FIXED_BY_THE_COMMANDS_CORPUS) | set(HTTP_FIXED) <= set(ids)


def test_a_sample_of_each_command_family_fails_cleanly() -> None:
    """The first case of each command-line family, and two requests to a real server."""
    picked, seen = [], set()
    for case in command_cases():
        if case.family not in seen:
            seen.add(case.family)
            picked.append(case)
    by_id = {c.id: c for c in http_cases()}
    http = [by_id["serve_http/chat/seed_2_pow_70"], by_id["serve_http/hangup/mid_body"]]
    fig = run_corpus(picked, http=http)
    assert fig["cases"] == len(picked) + 2 and len(picked) >= 14
    assert fig["passed"] == fig["cases"], fig["failures"]


def test_the_inputs_the_commands_corpus_found_fail_cleanly_now() -> None:
    """One case per fix it led to: each accepted (exit 0), answered in several lines or a
    raw library error, a hang, an input overwritten, or a dead server worker before."""
    by_id = {c.id: c for c in command_cases()}
    http_by_id = {c.id: c for c in http_cases()}
    fig = run_corpus(
        [by_id[i] for i in FIXED_BY_THE_COMMANDS_CORPUS], http=[http_by_id[i] for i in HTTP_FIXED]
    )
    assert fig["cases"] == len(FIXED_BY_THE_COMMANDS_CORPUS) + len(HTTP_FIXED)
    assert fig["passed"] == fig["cases"], fig["failures"]


def test_a_short_soak_fails_no_good_request() -> None:
    fig = soak(minutes=0.25, good=2, bad=2, every=2.0)
    assert fig["server_alive_at_end"] and fig["server_log_tracebacks"] == 0
    assert fig["good_requests"] >= 20 and fig["good_failed"] == 0, fig["failures_sample"]
    assert fig["bad_requests"] >= 20 and len(fig["bad_by_kind"]) >= 5
    statuses = {k.split(":")[1] for k in fig["bad_status"]}
    assert statuses <= {"400", "413", "hung up"}, fig["bad_status"]
    assert fig["rss_mb"]["peak"] < fig["rss_mb"]["start"] + 300  # no 20 MB-prompt growth
