"""The `ws` fixture: a workspace whose store holds training and held-out documents."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from evaldocs import doc_workspace

from jupiter.improve.workspace import Workspace


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Workspace]:
    monkeypatch.setenv("JUPITER_HOME", str(tmp_path / "home"))
    w = doc_workspace(tmp_path)
    yield w
    w.close()
