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

from tinyhf import FAMILIES, Family, save_tiny


@pytest.fixture(scope="session")
def tiny_model_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[Family, Path]:
    """One saved tiny random model dir per family: llama, mistral, qwen2."""
    root = tmp_path_factory.mktemp("tiny-models")
    return {f: save_tiny(f, root / f) for f in FAMILIES}
