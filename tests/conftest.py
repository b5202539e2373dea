"""Shared fixtures: tiny HF model dirs of each family (see tests/support/tinyhf.py)."""

from __future__ import annotations

import os
from pathlib import Path

# `make test` runs one pytest worker per core (pytest-xdist): each worker, and every process it
# starts, computes on one thread, so two workers never fight over the two cores.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("MKL_NUM_THREADS", "1")

from collections import Counter

import pytest

from tinyhf import FAMILIES, Family, save_tiny


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Files with the most `slow` tests first, each file's tests in their own order. `make
    test` hands whole files to its workers (`--dist loadfile --no-loadscope-reorder`) in this
    order: the long files start early and the many short ones fill in behind them, so no
    worker is left alone on a long file at the end (longest-first scheduling)."""
    slow = Counter(item.path for item in items if item.get_closest_marker("slow"))
    first_seen = {path: i for i, path in enumerate(dict.fromkeys(item.path for item in items))}
    items.sort(key=lambda item: (-slow[item.path], first_seen[item.path]))


@pytest.fixture(scope="session")
def tiny_model_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[Family, Path]:
    """One saved tiny random model dir per family: llama, mistral, qwen2."""
    root = tmp_path_factory.mktemp("tiny-models")
    return {f: save_tiny(f, root / f) for f in FAMILIES}
