"""Fixtures of the export tests (the builders are in exportkit.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import torch
from exportkit import save_gemma, save_preset, spm_tokenizer
from rich.console import Console

from tinyhf import tiny_base_tokenizer


@pytest.fixture(autouse=True)
def one_thread() -> Iterator[None]:
    """Tiny models gain nothing from intra-op threads on a busy 2-core machine."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def family_dirs(
    tiny_model_dirs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Path]:
    """jupiter (the preset), llama, mistral, qwen2, gemma3 (byte-level), gemma3-spm."""
    root = tmp_path_factory.mktemp("export-families")
    dirs = dict(tiny_model_dirs)
    dirs["jupiter"] = save_preset(root / "jupiter")
    dirs["gemma3"] = save_gemma(root / "gemma3", tiny_base_tokenizer("gemma"))
    dirs["gemma3-spm"] = save_gemma(root / "gemma3-spm", spm_tokenizer(), seed=1)
    return dirs


@pytest.fixture()
def quiet() -> Console:
    return Console(stderr=True, quiet=True)
