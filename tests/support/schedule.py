"""Longest files first: `make test` deals whole files to its workers (xdist's loadfile), one
at a time as each runs out of work, so a slow file dealt last makes the run wait on one
worker while the others are idle. Ordering the files by their measured time, longest first,
is the classic longest-processing-time schedule; the times live in tests/durations.json,
written by a run with JUPITER_TEST_DURATIONS=1 (the sum of setup, call and teardown of each
file's tests, as the workers reported them)."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

DURATIONS = Path(__file__).resolve().parents[1] / "durations.json"
# a file not yet measured: about the median file's time, so it is neither first nor last
UNMEASURED_S = 5.0


def file_of(nodeid: str) -> str:
    """The file part of a node id ("tests/x/test_y.py::test_z[a]" -> "tests/x/test_y.py")."""
    return nodeid.split("::", 1)[0]


def load_durations(path: Path = DURATIONS) -> dict[str, float]:
    """{file: seconds} from `path`; empty when it is missing or unreadable (the order then
    stays pytest's)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(raw, dict):
        return {}
    return {str(k): float(v) for k, v in raw.items() if isinstance(v, int | float)}


def longest_files_first(items: list[Any], durations: dict[str, float]) -> list[Any]:
    """`items` regrouped by file, the files longest first by `durations`; a file's own
    tests keep their order (module fixtures are built once), ties keep collection order;
    no durations at all: `items` as they are."""
    if not durations:
        return items
    files: dict[str, list[Any]] = defaultdict(list)
    for item in items:
        files[file_of(item.nodeid)].append(item)
    order = sorted(files, key=lambda f: -durations.get(f, UNMEASURED_S))
    return [item for f in order for item in files[f]]


def file_durations(reports: Iterable[Any]) -> dict[str, float]:
    """{file: seconds}, each report's duration summed by its node id's file."""
    out: dict[str, float] = defaultdict(float)
    for r in reports:
        out[file_of(r.nodeid)] += float(r.duration)
    return {f: round(s, 1) for f, s in sorted(out.items())}


class DurationRecorder:
    """Sums the reports the run sees (on xdist's controller: every worker's) and writes
    their files' times into tests/durations.json at the end of the run (files the run did
    not touch keep their last time)."""

    def __init__(self, path: Path = DURATIONS) -> None:
        self.path = path
        self.reports: list[Any] = []

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.reports.append(report)

    @pytest.hookimpl
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if exitstatus not in (0, 1) or not self.reports:
            return  # interrupted or broken: keep the last good measurement
        # a run of part of the suite updates its own files' times only
        merged = load_durations(self.path) | file_durations(self.reports)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(dict(sorted(merged.items())), indent=1) + "\n", encoding="utf-8")
        tmp.replace(self.path)
