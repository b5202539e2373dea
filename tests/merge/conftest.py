"""Fixtures of the merge tests (the helpers are in mergefamily.py)."""

from collections.abc import Iterator

import pytest
import torch
from mergefamily import family  # noqa: F401 - a pytest fixture


@pytest.fixture(autouse=True)
def one_thread() -> Iterator[None]:
    """Tiny models gain nothing from intra-op threads, and on a busy 2-core machine the
    threads wait on each other: the validation tests took 15 s with 2 threads, 0.2 s with 1.
    Restored after each test, so other tests keep their setting."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
