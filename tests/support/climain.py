"""`jupiter` run in-process: sys.argv patched, cli.main called, its exit code returned."""

from __future__ import annotations

import sys

import pytest

from jupiter import cli


def run_main(monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    monkeypatch.setattr(sys, "argv", ["jupiter", *args])
    try:
        cli.main()
    except SystemExit as e:
        return int(e.code or 0)
    return 0
