"""A domain workspace: runs/<domain>/ with its store, tokenizer, and one folder per cycle."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from jupiter.config import DomainConfig, workspace
from jupiter.store import Store


@dataclass
class Workspace:
    """Where a domain's run lives. The store opens on first use, so a command that fails
    validation before touching data leaves no database behind."""

    cfg: DomainConfig
    quick: bool = False
    console: Console = field(default_factory=Console)
    launch: Any = None  # jupiter.train.launch.Launch for `jupiter train --nproc N`
    cluster: Any = None  # a ClusterConfig for `jupiter train --cluster`
    _store: Store | None = None

    @property
    def root(self) -> Path:
        base = workspace(self.cfg)
        # --quick runs in its own workspace: its smaller tokenizer and model must not mix
        # with the full run's.
        return base.with_name(base.name + "-quick") if self.quick else base

    @property
    def store_path(self) -> Path:
        return self.root / "jupiter.sqlite"

    @property
    def store(self) -> Store:
        if self._store is None:
            self._store = Store(self.store_path)
        return self._store

    def has_store(self) -> bool:
        return self.store_path.is_file()

    @property
    def tokenizer_dir(self) -> Path:
        return self.root / "tokenizer"

    def cycle_dir(self, n: int) -> Path:
        return self.root / "cycles" / f"cycle-{n:03d}"

    def train_dir(self, n: int) -> Path:
        return self.cycle_dir(n) / "train"

    def student_dir(self, n: int) -> Path:
        return self.train_dir(n) / "final"

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None
