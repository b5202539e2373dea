"""Shared fixtures: tiny HF model dirs of each family (see tests/support/tinyhf.py)."""

from __future__ import annotations

import os
from pathlib import Path

# `make test` runs one pytest worker per core (pytest-xdist): each worker, and every process it
# starts, computes on one thread, so two workers never fight over the two cores.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("MKL_NUM_THREADS", "1")

import pytest

from schedule import DurationRecorder, load_durations, longest_files_first
from tinyhf import FAMILIES, Family, save_tiny


@pytest.fixture(scope="session")
def tiny_model_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[Family, Path]:
    """One saved tiny random model dir per family: llama, mistral, qwen2."""
    root = tmp_path_factory.mktemp("tiny-models")
    return {f: save_tiny(f, root / f) for f in FAMILIES}


def pytest_configure(config: pytest.Config) -> None:
    # on the controller (or a run without workers) only: workers report to it
    if os.environ.get("JUPITER_TEST_DURATIONS") and not os.environ.get("PYTEST_XDIST_WORKER"):
        config.pluginmanager.register(DurationRecorder(), "jupiter-durations")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Longest files first (tests/support/schedule.py): `make test` deals files to its
    workers in this order (--no-loadscope-reorder), so no slow file starts last."""
    items[:] = longest_files_first(items, load_durations())
