"""Plain records that stages pass to each other and to the store.

Ids are content hashes, so re-running a stage on the same input yields the same ids
and the store's INSERT OR IGNORE makes the stage idempotent.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Literal

ExampleKind = Literal["qa", "text"]
ExampleStatus = Literal["pending", "accepted", "rejected", "used"]
Split = Literal["train", "heldout"]


def content_id(*parts: object) -> str:
    """A stable 16-hex-digit id from the parts' canonical JSON."""
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Document:
    """One collected document with its provenance."""

    source: str  # the source type that produced it, e.g. "python_stdlib", "local"
    uri: str  # where it came from: a path, "pydoc:topics/for", "python:json.dumps"
    title: str
    text: str
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return content_id("doc", self.source, self.uri, self.text)


@dataclass(frozen=True)
class Chunk:
    """A span of a document: provenance is (source, uri, start, end) into the document text."""

    doc_id: str
    source: str
    uri: str
    title: str
    start: int
    end: int
    text: str
    split: Split = "train"

    @property
    def id(self) -> str:
        return content_id("chunk", self.doc_id, self.start, self.end)


# generator kinds that are a model folder: a model answering alone, or one reading the
# passages a retriever finds for it (synth/combined.py)
MODEL_KINDS = ("model", "model+retriever")


@dataclass
class Example:
    """One training example in the data queue.

    kind "qa": `messages` holds a chat ([{"role": "user"|"assistant"|"system", "content"}]).
    kind "text": `text` holds raw domain text for continuation (language-model) training.
    """

    kind: ExampleKind
    generator: str  # id of the generator that made it, e.g. "extractive" or "model:cycle-001"
    chunk_id: str  # the chunk it was made from
    template: str  # which template/recipe made it, e.g. "what_does", "continuation"
    messages: list[dict[str, str]] = field(default_factory=list)
    text: str = ""
    cycle: int = 0
    status: ExampleStatus = "pending"
    reason: str = ""
    # the characters of the chunk's document the answer quotes: (start, end) in doc.text
    span: tuple[int, int] | None = None

    @property
    def id(self) -> str:
        return content_id("example", self.kind, self.messages, self.text)

    @property
    def question(self) -> str:
        return next((m["content"] for m in self.messages if m["role"] == "user"), "")

    @property
    def answer(self) -> str:
        return next((m["content"] for m in reversed(self.messages) if m["role"] == "assistant"), "")

    def content(self) -> str:
        """All the example's text, for filters that look at the whole thing."""
        if self.kind == "text":
            return self.text
        return "\n".join(m["content"] for m in self.messages)
