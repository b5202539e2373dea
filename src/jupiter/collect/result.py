"""What a collector returns: the documents it kept, and every record it dropped, counted by
reason (a bad JSON line, a binary file, an unreadable encoding, a filter threshold), with
a few samples of each, so nothing is dropped silently."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from jupiter.records import Document

MAX_SAMPLES = 3


@dataclass
class CollectResult:
    documents: list[Document] = field(default_factory=list)
    rejects: dict[str, int] = field(default_factory=dict)  # reason -> count
    samples: dict[str, list[str]] = field(default_factory=dict)  # reason -> a few locations
    # the fix, when a source gave nothing for one reason the collector can name (a dataset
    # whose records lack the mapped column: which columns they have, and the mapping)
    hint: str = ""

    def reject(self, reason: str, where: str) -> None:
        """Count one dropped record; `where` says which (a path, path:line, a URL)."""
        self.rejects[reason] = self.rejects.get(reason, 0) + 1
        kept = self.samples.setdefault(reason, [])
        if len(kept) < MAX_SAMPLES:
            kept.append(where)

    def add_rejects(self, other: CollectResult) -> None:
        """Fold another collector's drop counts and samples into this one."""
        for reason, n in other.rejects.items():
            self.rejects[reason] = self.rejects.get(reason, 0) + n
            kept = self.samples.setdefault(reason, [])
            kept.extend(other.samples.get(reason, [])[: max(0, MAX_SAMPLES - len(kept))])
        self.hint = self.hint or other.hint


def count(rejects: CollectResult | None, reason: str, where: str) -> None:
    """`rejects.reject(reason, where)` when the caller keeps a count (None: it does not)."""
    if rejects is not None:
        rejects.reject(reason, where)


def renamed(doc: Document, prefix: str, old: str, new: str, sep: str) -> Document:
    """An API document named with `new` in place of the `old` start of its qualified name
    (`old` itself, or followed by `sep`): its uri (`prefix` + name), title and the name its
    text opens with; unchanged when its name does not start so."""
    qual = doc.meta["qualname"]
    if not (qual == old or qual.startswith(f"{old}{sep}")):
        return doc
    name = new + qual[len(old) :]
    text = name + doc.text[len(qual) :] if doc.text.startswith(qual) else doc.text
    return Document(doc.source, f"{prefix}{name}", name, text, {**doc.meta, "qualname": name})


def by_manifest(
    files: list[SourceFile], manifest: str, name_of: Callable[[str], str | None]
) -> tuple[dict[PurePosixPath, str], list[SourceFile]]:
    """A reader's files split into the manifests among them (a crate's Cargo.toml, an R
    package's DESCRIPTION), as {folder: the name `name_of` reads from it}, and the rest."""
    names: dict[PurePosixPath, str] = {}
    rest: list[SourceFile] = []
    for f in files:
        if f.rel.name == manifest:
            name = name_of(f.text)
            if name:
                names[f.rel.parent] = name
        else:
            rest.append(f)
    return names, rest


def first_documents(
    files: list[SourceFile],
    rejects: CollectResult | None,
    read: Callable[[SourceFile], list[Document] | str],
    no_api: str,
) -> list[Document]:
    """What an API reader makes of its files, read in path order: `read` gives a file's
    documents, or the reason it gives none (a test, a generated file), counted in
    `rejects` with a file that gives none (`no_api`). Sorted by uri; of a name two files
    document, the first file's."""
    docs: dict[str, Document] = {}
    for f in sorted(files, key=lambda f: f.rel):
        got = read(f)
        if isinstance(got, str):
            count(rejects, got, f.where)
            continue
        for doc in got:
            docs.setdefault(doc.uri, doc)
        if not got:
            count(rejects, no_api, f.where)
    return [docs[uri] for uri in sorted(docs)]


def first_sentence(text: str, sentence_end: re.Pattern[str], limit: int = 200) -> str:
    """The first sentence of a text's first paragraph, on one line, at most `limit`
    characters ("" when the paragraph is a code block): where `sentence_end` (a reader's
    own rule) first matches."""
    para = " ".join(text.strip().split("\n\n")[0].split())
    if para.startswith("```"):
        return ""
    m = sentence_end.search(para)
    first = para[: m.end()] if m is not None else para
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


def api_document(
    source: str,
    prefix: str,
    f: SourceFile,
    qual: str,
    text: str,
    kind: str,
    signature: str,
    line: int,
    **more: Any,
) -> Document:
    """A document of an API reader's: its uri `prefix` + the qualified name, titled by that
    name; its meta the file's, with the kind of item, its names (`more`: a reader's own),
    its signature and where it stands."""
    meta = {
        **f.meta,
        "kind": kind,
        "qualname": qual,
        **more,
        "signature": signature,
        "origin": f.where,
        "line": line,
    }
    return Document(source, f"{prefix}{qual}", qual, text, meta)


@dataclass
class SourceFile:
    """A code file a source hands to a reader of its API (collect/pyapi.py, jsapi.py,
    sqlapi.py, goapi.py, rustapi.py, capi.py, javaapi.py): its path inside the source (which names its module or package),
    where it was read from (provenance), its text and the source's meta for it."""

    rel: PurePosixPath
    where: str
    text: str
    meta: dict[str, Any] = field(default_factory=dict)
