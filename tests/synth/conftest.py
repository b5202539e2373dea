"""Chunks built from real stdlib docstrings and language-reference topics, shaped like the
collector's documents, so these tests do not depend on the collector itself: uri
"python:<module>.<qualname>", title the full name, text "<qualname><signature>\n\n<doc>"
(self dropped from methods; a module's text is its docstring), and "pydoc:topics/<key>"
titled with the topic's first heading."""

from __future__ import annotations

import inspect
import json
import os.path
from collections.abc import Callable
from pydoc_data.topics import topics
from typing import Any

import pytest

from jupiter.records import Chunk, Document

MAX_CHARS, OVERLAP = 1500, 150


def api_document(full: str, obj: Any, module: str) -> Document:
    doc = inspect.getdoc(obj) or ""
    sig = inspect.signature(obj)
    params = list(sig.parameters.values())
    if params and params[0].name in ("self", "cls"):
        sig = sig.replace(parameters=params[1:])
    qualname = full.removeprefix(module + ".")
    return Document("python_stdlib", f"python:{full}", full, f"{qualname}{sig}\n\n{doc}", {})


def topic_document(key: str) -> Document:
    title = topics[key].splitlines()[0]
    return Document("python_stdlib", f"pydoc:topics/{key}", title, topics[key], {})


def chunk(doc: Document, split: str = "train") -> list[Chunk]:
    """Fixed windows with overlap, like the collector's character chunking."""
    out, start = [], 0
    while True:
        end = min(len(doc.text), start + MAX_CHARS)
        out.append(
            Chunk(doc.id, doc.source, doc.uri, doc.title, start, end, doc.text[start:end], split)  # type: ignore[arg-type]
        )
        if end == len(doc.text):
            return out
        start = end - OVERLAP


def stdlib_documents() -> list[Document]:
    docs = [Document("python_stdlib", "python:json", "json", inspect.getdoc(json) or "", {})]
    for n in ("dump", "dumps", "load", "loads"):
        docs.append(api_document(f"json.{n}", getattr(json, n), "json"))
    docs.append(api_document("json.JSONEncoder.encode", json.JSONEncoder.encode, "json"))
    for n in ("abspath", "realpath", "basename", "dirname", "exists"):
        docs.append(api_document(f"os.path.{n}", getattr(os.path, n), "os.path"))
    docs += [topic_document(k) for k in ("for", "assert")]
    return docs


@pytest.fixture(scope="session")
def stdlib_chunks() -> list[Chunk]:
    return [c for d in stdlib_documents() for c in chunk(d)]


@pytest.fixture(scope="session")
def by_title(stdlib_chunks: list[Chunk]) -> Callable[[str], Chunk]:
    """The first chunk of the document with this title."""

    def get(title: str) -> Chunk:
        return next(c for c in stdlib_chunks if c.title == title and c.start == 0)

    return get
