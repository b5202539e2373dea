"""Shared fixtures: tiny HF model dirs of each family (see tinyhf.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tinyhf import FAMILIES, Family, save_tiny


@pytest.fixture(scope="session")
def tiny_model_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[Family, Path]:
    """One saved tiny random model dir per family: llama, mistral, qwen2."""
    root = tmp_path_factory.mktemp("tiny-models")
    return {f: save_tiny(f, root / f) for f in FAMILIES}
