"""The test run's own schedule: files longest first, their times measured by a run."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from schedule import (
    UNMEASURED_S,
    DurationRecorder,
    file_durations,
    load_durations,
    longest_files_first,
)


def item(nodeid: str, duration: float = 0.0) -> SimpleNamespace:
    return SimpleNamespace(nodeid=nodeid, duration=duration)


def test_files_go_longest_first_and_keep_their_tests_in_order() -> None:
    items = [
        item("tests/a/test_fast.py::test_1"),
        item("tests/b/test_slow.py::test_1"),
        item("tests/a/test_fast.py::test_2"),
        item("tests/b/test_slow.py::test_2[x]"),
        item("tests/c/test_new.py::test_1"),
        item("tests/b/test_slow.py::test_2[y]"),
    ]
    durations = {"tests/a/test_fast.py": 1.0, "tests/b/test_slow.py": 90.0}
    got = [i.nodeid for i in longest_files_first(items, durations)]
    assert got == [
        "tests/b/test_slow.py::test_1",
        "tests/b/test_slow.py::test_2[x]",
        "tests/b/test_slow.py::test_2[y]",
        "tests/c/test_new.py::test_1",  # unmeasured: UNMEASURED_S, between the two
        "tests/a/test_fast.py::test_1",
        "tests/a/test_fast.py::test_2",
    ]
    assert 1.0 < UNMEASURED_S < 90.0
    # no durations at all: pytest's own order, untouched
    assert longest_files_first(items, {}) == items


def test_a_run_records_its_files_times_and_keeps_the_others(tmp_path: Path) -> None:
    path = tmp_path / "durations.json"
    path.write_text(json.dumps({"tests/old/test_kept.py": 12.0, "tests/a/test_x.py": 99.0}))
    rec = DurationRecorder(path)
    for nodeid, d in [
        ("tests/a/test_x.py::test_1", 0.3),  # setup
        ("tests/a/test_x.py::test_1", 2.0),  # call
        ("tests/a/test_x.py::test_2", 1.0),
        ("tests/b/test_y.py::test_1", 4.0),
    ]:
        rec.pytest_runtest_logreport(item(nodeid, d))  # type: ignore[arg-type]
    rec.pytest_sessionfinish(None, 1)  # type: ignore[arg-type]  # failures still time the run
    assert load_durations(path) == {
        "tests/a/test_x.py": 3.3,
        "tests/b/test_y.py": 4.0,
        "tests/old/test_kept.py": 12.0,
    }
    # an interrupted run (exit 2) keeps the last measurement
    rec.pytest_runtest_logreport(item("tests/a/test_x.py::test_3", 500.0))  # type: ignore[arg-type]
    rec.pytest_sessionfinish(None, 2)  # type: ignore[arg-type]
    assert load_durations(path)["tests/a/test_x.py"] == 3.3
    assert file_durations([]) == {}


def test_an_unreadable_durations_file_leaves_the_order_alone(tmp_path: Path) -> None:
    bad = tmp_path / "durations.json"
    bad.write_text("{not json")
    assert load_durations(bad) == {}
    bad.write_text("[1, 2]")
    assert load_durations(bad) == {}
    assert load_durations(tmp_path / "missing.json") == {}
