"""The generator protocol every backend implements, and the shared question making.

A generator turns chunks into training examples (`generate`), and answers questions for
evaluation (`answer` for open questions, `choose` for multiple choice), so the cycle can
compare a student with the generator it learned from on the same footing.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol, runtime_checkable

from jupiter.config import GeneratorConfig
from jupiter.records import Chunk, Example
from jupiter.synth.questions import Catalog, Question, make_questions

__all__ = ["Catalog", "Generator", "Question", "make_questions"]


@runtime_checkable
class Generator(Protocol):
    """A source of training examples that can also sit an exam."""

    id: str  # recorded on every example it makes, e.g. "extractive", "model:cycle-001"

    def generate(
        self,
        chunks: Sequence[Chunk],
        cycle: int,
        cfg: GeneratorConfig,
        limit: int | None = None,
    ) -> Iterator[Example]:
        """Examples from the train-split chunks, at most `limit`, deterministic in cfg.seed."""
        ...

    def answer(self, questions: Sequence[str]) -> list[str]:
        """One answer per question, in order."""
        ...

    def choose(self, question: str, choices: Sequence[str]) -> int:
        """Index of the choice it believes answers `question`."""
        ...
