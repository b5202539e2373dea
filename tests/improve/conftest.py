"""A real workspace (store under tmp_path) for the gate, the lineage and the loop tests."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gate_records import MakeWorkspace
from rich.console import Console

from jupiter.config import load_domain
from jupiter.improve.workspace import Workspace


@pytest.fixture
def make_ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MakeWorkspace]:
    """make_ws(margin=0.0, patience=3, cycles=1, ...promotion keys) -> Workspace named t."""
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path))
    opened: list[Workspace] = []

    def make(cycles: int = 1, **promotion: Any) -> Workspace:
        rules = ", ".join(f"{k}: {'null' if v is None else v}" for k, v in promotion.items())
        path = tmp_path / "t.yaml"
        path.write_text(
            "name: t\nsources: [{type: python_stdlib, modules: [json]}]\n"
            f"promotion: {{{rules}}}\ncycles: {cycles}\n"
        )
        ws = Workspace(load_domain(str(path)), console=Console(file=io.StringIO(), width=300))
        opened.append(ws)
        return ws

    yield make
    for ws in opened:
        ws.close()
