"""How many question/answer pairs the extractive generator makes from documentation, with
no LLM: pairs per MB of text and the share of chunks that yield at least one, per corpus
and per template.

Corpora (each skipped when absent on this machine):
- python: the Python standard library's docstrings and language-reference topics;
- cmake: CMake's reference as shipped on Debian (/usr/share/cmake-*/Help, .rst);
- nodejs: the Node.js API reference in Markdown (/usr/share/doc/nodejs/api/*.md);
- nodejs-html: the same reference as HTML pages;
- man: manual pages of section 1, rendered with groff to text (--man N of them);
- valgrind: Valgrind's user manual as Debian ships it (DocBook HTML, numbered sections).

Usage: python benchmarks/quality/qa_yield.py [--corpus NAME ...] [--man 300] [--json OUT]
       [--dump PAIRS.jsonl]   (every pair, to read or to compare two versions' pairs)
Goal: >= 300 pairs per MB and >= 60% of chunks with at least one pair.
"""

from __future__ import annotations

import argparse
import glob
import gzip
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from jupiter.collect.chunking import chunk_document
from jupiter.collect.local import read_document
from jupiter.collect.stdlib import collect_stdlib
from jupiter.config import Chunking, GeneratorConfig, PythonStdlibSource
from jupiter.records import Chunk, Document
from jupiter.synth.questions import Catalog, chunk_rng, make_questions, with_starts


def python_docs() -> list[Document]:
    return collect_stdlib(PythonStdlibSource(type="python_stdlib"))


def files_docs(pattern: str) -> list[Document]:
    docs = [read_document(Path(p)) for p in sorted(glob.glob(pattern, recursive=True))]
    return [d for d in docs if d is not None]


def man_docs(n: int) -> list[Document]:
    """The first `n` section-1 pages (sorted), rendered like `man` would print them."""
    if shutil.which("groff") is None:
        return []
    out: list[Document] = []
    # one fixed folder: a chunk's id (and so its questions' draws) follows its path, and two
    # runs (two versions of the generator) should ask about the same pages the same way
    tmp = Path(tempfile.gettempdir()) / "jupiter-qa-yield-man"
    tmp.mkdir(exist_ok=True)
    for page in sorted(glob.glob("/usr/share/man/man1/*.1.gz")):
        if len(out) >= n:
            break
        src = gzip.decompress(Path(page).read_bytes())
        r = subprocess.run(
            ["groff", "-k", "-man", "-Tutf8", "-P-c"],
            input=src,
            capture_output=True,
            timeout=60,
            env={"PATH": "/usr/bin:/bin", "MANWIDTH": "80"},
        )
        text = r.stdout.decode("utf-8", "replace")
        if r.returncode != 0 or len(text) < 500 or ".so " in src[:20].decode("latin-1"):
            continue
        path = tmp / (Path(page).name.removesuffix(".gz") + ".txt")
        path.write_text(_strip_overstrike(text))
        doc = read_document(path)
        if doc is not None:
            out.append(doc)
    return out


def _strip_overstrike(text: str) -> str:
    # what `col -b` does: "X\bX" (bold) and "_\bX" (underline) keep the last character
    out: list[str] = []
    for ch in text:
        if ch == "\b" and out:
            out.pop()
            continue
        out.append(ch)
    return "".join(out).replace("\b", "")


CORPORA = {
    "python": python_docs,
    "cmake": lambda: files_docs("/usr/share/cmake-*/Help/**/*.rst"),
    "nodejs": lambda: files_docs("/usr/share/doc/nodejs/api/*.md"),
    "nodejs-html": lambda: [
        d for d in files_docs("/usr/share/doc/nodejs/api/*.html") if "all.html" not in d.uri
    ],
    "valgrind": lambda: files_docs("/usr/share/doc/valgrind/html/*.html"),
}


def measure(
    docs: list[Document], cfg: GeneratorConfig, dump: list[dict[str, str]] | None = None
) -> dict[str, object]:
    chunking = Chunking(heldout_fraction=0.0)
    chunks: list[Chunk] = [c for d in docs for c in chunk_document(d, chunking)]
    text_bytes = sum(len(d.text.encode()) for d in docs)
    catalog = Catalog(chunks)  # as questions.iter_questions builds it
    t0 = time.perf_counter()
    pairs = 0
    yielding = 0
    by_template: Counter[str] = Counter()
    for c, start in with_starts(chunks):
        qs = [
            q
            for q in make_questions(
                c,
                cfg.templates,
                cfg.max_questions_per_chunk,
                chunk_rng(cfg.seed, c),
                catalog,
                start,
            )
            if q.answer and catalog.keeps(q, c, start)
        ]
        pairs += len(qs)
        yielding += bool(qs)
        if dump is not None:
            dump.extend(
                {
                    "doc": c.uri,
                    "chunk": c.id,
                    "template": q.template,
                    "question": q.question,
                    "answer": q.answer or "",
                }
                for q in qs
            )
        by_template.update(q.template for q in qs)
    seconds = time.perf_counter() - t0
    mb = text_bytes / 1e6
    return {
        "documents": len(docs),
        "mb": round(mb, 3),
        "chunks": len(chunks),
        "pairs": pairs,
        "pairs_per_mb": round(pairs / mb, 1) if mb else 0.0,
        "chunk_share": round(yielding / len(chunks), 3) if chunks else 0.0,
        "by_template": dict(by_template.most_common()),
        "seconds": round(seconds, 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", nargs="*", default=[*CORPORA, "man"])
    ap.add_argument("--man", type=int, default=300, help="how many man pages to render")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--dump", type=Path, default=None, help="every pair as JSONL")
    args = ap.parse_args()
    dumped: list[dict[str, str]] | None = [] if args.dump else None
    cfg = GeneratorConfig()
    results: dict[str, object] = {}
    print(
        f"{'corpus':<12} {'docs':>6} {'MB':>7} {'chunks':>7} {'pairs':>7} "
        f"{'pairs/MB':>9} {'chunks>=1':>9}"
    )
    for name in args.corpus:
        docs = man_docs(args.man) if name == "man" else CORPORA[name]()
        if not docs:
            print(f"{name:<12} absent on this machine: skipped")
            continue
        mark = len(dumped) if dumped is not None else 0
        r = measure(docs, cfg, dumped)
        for row in (dumped or [])[mark:]:
            row["corpus"] = name
        results[name] = r
        print(
            f"{name:<12} {r['documents']:>6} {r['mb']:>7.2f} {r['chunks']:>7} {r['pairs']:>7} "
            f"{r['pairs_per_mb']:>9.1f} {r['chunk_share']:>9.1%}   {r['by_template']}"
        )
        sys.stdout.flush()
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    if args.dump:
        args.dump.write_text("".join(json.dumps(r) + "\n" for r in dumped or []))


if __name__ == "__main__":
    main()
