"""The collect stage: read every source of a domain into documents, then cut them into chunks.

It only returns records; the caller writes them to the store after the whole stage has
succeeded, so a failed collect leaves the store as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from jupiter.collect import languages
from jupiter.collect.chunking import chunk_document
from jupiter.collect.duplicates import drop_duplicates
from jupiter.collect.local import collect_local
from jupiter.collect.result import CollectResult
from jupiter.collect.stdlib import collect_stdlib
from jupiter.config import DomainConfig, LocalSource, PythonStdlibSource
from jupiter.errors import JupiterError
from jupiter.records import Chunk, Document, Example

__all__ = [
    "CollectResult",
    "chunk_document",
    "collect",
    "collect_local",
    "collect_stdlib",
    "direct_examples",
]

Progress = Callable[[str, int], None]


def collect(
    cfg: DomainConfig,
    on_progress: Progress | None = None,
    cache_dir: Path | None = None,
    rejects: CollectResult | None = None,
) -> tuple[list[Document], list[Chunk]]:
    """Documents (deduplicated by id, then by content: see collect/duplicates.py; in source
    order) and their chunks.

    `on_progress(label, count)` is called once per source with its document count, then
    with ("chunks", total chunks). `cache_dir` holds fetched pages and cloned repositories
    (a re-run fetches nothing twice); records a collector dropped are counted into
    `rejects` by reason.
    """
    cache = cache_dir or Path(".jupiter-cache")
    docs: dict[str, Document] = {}
    dropped: list[CollectResult] = []  # per source: what it dropped, said if all is empty
    for src in cfg.sources:
        mine = CollectResult()
        found = _collect_source(src, cfg, cache, mine)
        dropped.append(mine)
        if rejects is not None:
            rejects.add_rejects(mine)
        for doc in found:
            docs.setdefault(doc.id, doc)
        if on_progress is not None:
            on_progress(_describe(src, cfg), len(found))
    if len(docs) > 1:  # the same text twice (a manual as HTML and as PDF): once
        found_docs = drop_duplicates(docs.values(), rejects)
        docs = {d.id: d for d in found_docs}
    if not docs:
        reasons = "; ".join(
            _describe(s, cfg, empty=True) + _drops(d)
            for s, d in zip(cfg.sources, dropped, strict=True)
        )
        raise JupiterError(
            f"empty corpus: the sources of domain '{cfg.name}' yielded no documents ({reasons});"
            f" check sources[].path and include"
        )
    chunks = [c for doc in docs.values() for c in chunk_document(doc, cfg.chunking)]
    if chunks and not any(c.split == "train" for c in chunks):
        raise JupiterError(
            f"chunking.heldout_fraction {cfg.chunking.heldout_fraction} held out all "
            f"{len(docs)} documents, so nothing is left to train on: lower it, or add documents"
        )
    if on_progress is not None:
        on_progress("chunks", len(chunks))
    return list(docs.values()), chunks


def _collect_source(
    src: Any, cfg: DomainConfig, cache: Path, rejects: CollectResult | None
) -> list[Document]:
    if isinstance(src, PythonStdlibSource):
        return collect_stdlib(src)
    if isinstance(src, LocalSource):
        return collect_local(src, cfg, rejects)
    result = _collect_other(src, cfg, cache)
    if rejects is not None:
        rejects.add_rejects(result)
    return result.documents


def _collect_other(src: Any, cfg: DomainConfig, cache: Path) -> CollectResult:
    """The collectors with their own modules, imported when a domain uses them."""
    if src.type == "web":
        from jupiter.collect.web import collect_web

        result = collect_web(src, cache / "web")
        # a site built in several languages: the domain's (collect/languages.py)
        result.documents = languages.keep_language(result.documents, cfg.language, result)
        unreachable = {"unreachable", "http_error", "timeout"} & set(result.rejects)
        if not result.documents and unreachable:
            raise JupiterError(
                f"could not reach the web source {src.urls[0]}: collecting it needs the "
                "network; offline, point a `type: local` source at a copy of the docs"
            )
        return result
    if src.type == "git":
        from jupiter.collect.git import collect_git

        return collect_git(src, cfg, cache / "git")
    if src.type == "dataset":
        from jupiter.collect.dataset import collect_dataset

        return collect_dataset(src, cfg)
    if src.type == "playbooks":
        from jupiter.collect.agent_logs import collect_playbooks

        return collect_playbooks(src, cfg)
    if src.type == "exec_logs":
        from jupiter.collect.exec_logs import collect_exec_logs

        return collect_exec_logs(src, cfg)
    raise JupiterError(f"source type '{src.type}' is not supported by this version")


def direct_examples(doc: Document, cycle: int) -> list[Example]:
    """Training examples a document carries itself, beside what a generator makes of it:
    an execution log's task / code / explanation, a dataset row that already is a chat or
    a question-answer pair."""
    if doc.source == "exec_logs":
        from jupiter.collect.exec_logs import log_examples

        out = log_examples(doc)
    elif doc.source == "dataset" and isinstance(doc.meta.get("messages"), list):
        out = [Example("qa", "dataset", "", "dataset", messages=list(doc.meta["messages"]))]
    elif doc.source == "dataset" and doc.meta.get("question") and doc.meta.get("answer"):
        msgs = [
            {"role": "user", "content": str(doc.meta["question"])},
            {"role": "assistant", "content": str(doc.meta["answer"])},
        ]
        out = [Example("qa", "dataset", "", "dataset", messages=msgs)]
    else:
        return []
    for ex in out:
        ex.cycle = cycle
    return out


def _drops(result: CollectResult) -> str:
    """What a source that gave nothing dropped: its reasons, counts and first record."""
    if not result.rejects:
        return ""
    top = sorted(result.rejects.items(), key=lambda kv: -kv[1])[:3]
    first = (result.samples.get(top[0][0]) or [""])[0]
    said = ", ".join(f"{n} {reason}" for reason, n in top)
    hint = f": {result.hint}" if result.hint else ""
    return f": every record dropped ({said}; first at {first}){hint}" if first else f" ({said})"


def _describe(src: Any, cfg: DomainConfig, empty: bool = False) -> str:
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
    origin = getattr(src, "path", None) or getattr(src, "url", None) or getattr(src, "urls", "")
    return f"{src.type}: {origin}" + (" gave nothing" if empty else "")
