"""Fixtures of the merge tests (the helpers are in mergefamily.py)."""

from mergefamily import family  # noqa: F401 - a pytest fixture
