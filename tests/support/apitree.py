"""A project folder written from a {path: text} dict, and the local source that collects it
with chosen include globs: what the collect tests of a language's API read from disk; the
questions asked about one of its documents; a reader fed random texts."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from jupiter.collect import CollectResult
from jupiter.collect.local import collect_local
from jupiter.config import DomainConfig
from jupiter.records import Chunk, Document
from jupiter.synth.questions import make_questions


def write_tree(root: Path, tree: dict[str, str]) -> None:
    for rel, text in tree.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def collect_tree(
    tmp_path: Path, tree: dict[str, str], include: list[str], **extra: object
) -> tuple[dict[str, Document], CollectResult]:
    """`tree` written to tmp_path/project and collected: documents by uri, and the rejects."""
    write_tree(tmp_path / "project", tree)
    src = {"type": "local", "path": "project", "include": include, **extra}
    cfg = DomainConfig.model_validate({"name": "t", "sources": [src]})
    cfg.base_dir = tmp_path
    rejects = CollectResult()
    docs = collect_local(cfg.sources[0], cfg, rejects)  # type: ignore[arg-type]
    return {d.uri: d for d in docs}, rejects


def collect_page(
    tmp_path: Path, rel: str, text: str, include: list[str]
) -> tuple[Document, dict[str, Document]]:
    """One page written at tmp_path/project/rel and collected: the page's own document, and
    the others (what it describes) by uri."""
    docs, _ = collect_tree(tmp_path, {rel: text}, include)
    return docs.pop(str(tmp_path / "project" / rel)), docs


API_TEMPLATES = ["what_does", "arguments", "signature", "returns"]


def ask(doc: Document, templates: list[str] = API_TEMPLATES) -> dict[str, str]:
    """What the generator asks about a document read whole as one chunk: {template: answer}."""
    chunk = Chunk(doc.id, doc.source, doc.uri, doc.title, 0, len(doc.text), doc.text)
    return {
        q.template: q.answer or "" for q in make_questions(chunk, templates, 6, random.Random(0))
    }


def asked(doc: Document, templates: list[str] = API_TEMPLATES) -> dict[str, str]:
    """Every question the generator asks about a document read whole as one chunk, with
    its answer: {question: answer} (a template may ask several: a type and a default)."""
    chunk = Chunk(doc.id, doc.source, doc.uri, doc.title, 0, len(doc.text), doc.text)
    got = make_questions(chunk, templates, 6, random.Random(0))
    return {q.question: q.answer or "" for q in got}


def fuzzed(read: Callable[[str], list[Document]], pieces: list[str], prefix: str) -> int:
    """How many documents a reader makes of 2,000 random texts of `pieces` (seeded), each
    checked to have a uri with `prefix` and a text: unterminated strings and comments and
    stray brackets must end its scan without an error."""
    rng = random.Random(0)
    made = 0
    for _ in range(2000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 60)))
        for doc in read(text):
            assert doc.uri.startswith(prefix) and doc.text
            made += 1
    return made
