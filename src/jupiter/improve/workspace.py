"""A domain workspace: runs/<domain>/ with its store, tokenizer, and one folder per cycle."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from jupiter.config import DomainConfig, workspace
from jupiter.errors import JupiterError
from jupiter.models.integrity import check_model_files, model_build_problem
from jupiter.models.reference import locate_model, resolve_model, workspace_cache_dir
from jupiter.store import Store, folder_at_store


@dataclass
class Workspace:
    """Where a domain's run lives. The store opens on first use, so a command that fails
    validation before touching data leaves no database behind."""

    cfg: DomainConfig
    quick: bool = False
    console: Console = field(default_factory=Console)
    launch: Any = None  # jupiter.train.launch.Launch for `jupiter train --nproc N`
    cluster: Any = None  # a ClusterConfig for `jupiter train --cluster`
    checked: bool = False  # improve/preflight.py ran: the config in force is usable here
    # an eval stage follows: collect refuses a corpus that leaves it no eval set (preflight)
    heldout_needed: bool = False
    # device fallbacks in force on this machine (improve/preflight.py), e.g.
    # {"train.precision": "auto"}: the runs use and report them; cfg keeps the YAML's values
    fallbacks: dict[str, str] = field(default_factory=dict)
    _store: Store | None = None
    _models: dict[str, Path] = field(default_factory=dict)
    _built: set[Path] = field(default_factory=set)  # model dirs whose config builds a model

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
        """Whether the workspace's store exists; a folder (or anything else not a file) at
        its path is an error, not "no workspace yet"."""
        if (err := folder_at_store(self.store_path)) is not None:
            raise err
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

    @property
    def models_dir(self) -> Path:
        # the full run's folder even under --quick: imports are named by the GGUF's hash, so
        # both runs can share them instead of importing the same file twice
        return workspace_cache_dir(workspace(self.cfg))

    def model_refs(self) -> list[tuple[str, str]]:
        """(YAML key, reference) of every model the config loads locally."""
        cfg, gen = self.cfg, self.cfg.generator
        refs = [("model.base", cfg.model.base or "")]
        if gen.type == "model":
            refs.append(("generator.model_path", gen.model_path or ""))
        local = ("transformers", "mlx")
        if gen.type == "llm" and gen.llm.backend in local:
            refs.append(("generator.llm.model", gen.llm.model))
        judge = cfg.filters.judge
        if judge.enabled:  # the judge without an llm of its own asks the generator's
            key, llm = (
                ("filters.judge.llm.model", judge.llm)
                if judge.llm
                else ("generator.llm.model", gen.llm)
            )
            if llm.backend in local:
                refs.append((key, llm.model))
        if cfg.retrieval.kind != "bm25":  # open book's embedder
            refs.append(("retrieval.embedding_model", cfg.retrieval.embedding_model))
        return [(key, ref) for key, ref in refs if ref]

    def check_models(self) -> None:
        """Every model reference of the config found, nothing loaded: a wrong one stops the
        command before any stage writes to the store."""
        for key, ref in self.model_refs():
            try:
                found = locate_model(ref, base_dir=self.cfg.base_dir)
                if not found.gguf:  # a corrupt config.json or safetensors header: now
                    check_model_files(found.path)
                    causal = key != "retrieval.embedding_model"  # an encoder is not
                    built = not causal or found.path in self._built
                    problem = None if built else model_build_problem(found.path)
                    if problem:
                        raise JupiterError(
                            f"damaged model dir: {problem}: download or "
                            "export the model again (or point at another)"
                        )
                    self._built.add(found.path)
            except JupiterError as err:
                raise JupiterError(f"{key}: {err}") from None

    def model(self, ref: str) -> Path:
        """A model reference of the YAML as a local HF dir (or adapter dir); a GGUF or an
        Ollama model is imported into models_dir the first time."""
        if ref not in self._models:
            self._models[ref] = resolve_model(
                ref, base_dir=self.cfg.base_dir, cache_dir=self.models_dir, console=self.console
            )
        return self._models[ref]

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None
