"""The collect stage: read every source of a domain into documents, then cut them into chunks.

It only returns records; the caller writes them to the store after the whole stage has
succeeded, so a failed collect leaves the store as it was.
"""

from __future__ import annotations

from collections.abc import Callable

from jupiter.collect.chunking import chunk_document
from jupiter.collect.local import collect_local
from jupiter.collect.stdlib import collect_stdlib
from jupiter.config import DomainConfig, LocalSource, PythonStdlibSource, WebSource
from jupiter.errors import JupiterError
from jupiter.records import Chunk, Document

__all__ = ["chunk_document", "collect", "collect_local", "collect_stdlib"]

Progress = Callable[[str, int], None]


def collect(
    cfg: DomainConfig, on_progress: Progress | None = None
) -> tuple[list[Document], list[Chunk]]:
    """Documents (deduplicated by id, in source order) and their chunks.

    `on_progress(label, count)` is called once per source with its document count, then
    with ("chunks", total chunks).
    """
    # Refuse unsupported sources before spending time on the others.
    for i, src in enumerate(cfg.sources):
        if isinstance(src, WebSource):
            raise JupiterError(
                f"source type 'web' needs the network and the web collector, which this version"
                f" does not have yet: remove sources[{i}] or use a local copy with type: local"
            )
    docs: dict[str, Document] = {}
    for src in cfg.sources:
        found = _collect_source(src, cfg)
        for doc in found:
            docs.setdefault(doc.id, doc)
        if on_progress is not None:
            on_progress(_describe(src, cfg), len(found))
    if not docs:
        reasons = "; ".join(_describe(s, cfg, empty=True) for s in cfg.sources)
        raise JupiterError(
            f"empty corpus: the sources of domain '{cfg.name}' yielded no documents ({reasons});"
            f" check sources[].path and include"
        )
    chunks = [c for doc in docs.values() for c in chunk_document(doc, cfg.chunking)]
    if on_progress is not None:
        on_progress("chunks", len(chunks))
    return list(docs.values()), chunks


def _collect_source(
    src: PythonStdlibSource | LocalSource | WebSource, cfg: DomainConfig
) -> list[Document]:
    if isinstance(src, PythonStdlibSource):
        return collect_stdlib(src)
    if isinstance(src, LocalSource):
        return collect_local(src, cfg)
    raise JupiterError(f"source type '{src.type}' is not supported by this version")


def _describe(
    src: PythonStdlibSource | LocalSource | WebSource, cfg: DomainConfig, empty: bool = False
) -> str:
    """A short name for a source in progress lines and in the empty-corpus message."""
    if isinstance(src, LocalSource):
        where = f"local: {cfg.resolve(src.path)}"
        if not empty:
            return where
        skip = f" and exclude {src.exclude}" if src.exclude else ""
        return f"{where} matched no non-empty text files with include {src.include}{skip}"
    if isinstance(src, PythonStdlibSource):
        parts = [p for p, on in (("topics", src.topics), ("docstrings", src.docstrings)) if on]
        what = f"python_stdlib ({', '.join(parts) or 'topics and docstrings both off'}"
        what += f"; modules {src.modules})" if src.modules else ")"
        return what + (" gave nothing" if empty else "")
    return f"{src.type}"
