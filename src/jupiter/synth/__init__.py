"""Generators: the extractive bootstrap and model-backed ones, behind one protocol.

`ModelGenerator` pulls in torch and transformers, so it is imported only when asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jupiter.config import GeneratorConfig, RetrievalConfig
from jupiter.errors import JupiterError
from jupiter.records import MODEL_KINDS, Chunk
from jupiter.synth.base import Generator, Question, make_questions
from jupiter.synth.extractive import ExtractiveGenerator
from jupiter.synth.retrieval import BM25Index

if TYPE_CHECKING:
    from jupiter.synth.model import ModelGenerator

__all__ = [
    "BM25Index",
    "ExtractiveGenerator",
    "Generator",
    "ModelGenerator",
    "Question",
    "load_generator",
    "make_questions",
]


def __getattr__(name: str) -> Any:
    if name == "ModelGenerator":
        from jupiter.synth.model import ModelGenerator

        return ModelGenerator
    raise AttributeError(f"module 'jupiter.synth' has no attribute {name!r}")


def load_generator(
    kind: str,
    chunks: Sequence[Chunk],
    model_path: str | None,
    gen_id: str,
    cfg: GeneratorConfig,
    system_prompt: str = "",
    retrieval: RetrievalConfig | None = None,
    dtype: str = "float32",
) -> Generator:
    """The generator of `kind`: "extractive" quotes `chunks` (its RAFT examples retrieve
    with `retrieval`); "model" loads `model_path` in `dtype` ("auto": bf16 where the
    hardware runs it natively); "model+retriever" loads it to read the passages
    `retrieval` finds among `chunks` (synth/combined.py)."""
    if kind == "extractive":
        return ExtractiveGenerator(chunks, retrieval)
    if kind in MODEL_KINDS:
        if not model_path:
            raise JupiterError(
                f"generator '{gen_id}' is a model generator without a model path: "
                "set generator.model_path to a model folder, a Hub id, a .gguf file or "
                "ollama:NAME"
            )
        if not Path(model_path).is_dir():
            raise JupiterError(f"generator '{gen_id}': model directory not found: {model_path}")
        from jupiter.synth.model import ModelGenerator

        model = ModelGenerator(
            Path(model_path),
            gen_id,
            max_new_tokens=cfg.max_new_tokens,
            system_prompt=system_prompt,
            dtype=dtype,
        )
        if kind == "model":
            return model
        from jupiter.synth.combined import reader

        return reader(model, chunks, retrieval or RetrievalConfig())
    raise JupiterError(
        f"unknown generator kind '{kind}': expected 'extractive', 'model' or 'model+retriever'"
    )
