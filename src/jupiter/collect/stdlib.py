"""The `python_stdlib` source: this interpreter's own documentation, read without network.

Two parts: `pydoc_data.topics` (the language reference that `help("for")` shows) and the
docstrings of the standard library. Docstrings are read by importing modules in child
interpreters (`docstrings.py`), so import side effects never reach this process.
"""

from __future__ import annotations

import json
import os
import pkgutil
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from jupiter.config import PythonStdlibSource
from jupiter.errors import JupiterError
from jupiter.records import Document

SOURCE = "python_stdlib"
HELPER = Path(__file__).with_name("docstrings.py")

# Never imported: they open windows or browsers, run code on import, are test suites,
# or are generated tables (encodings.*: ~120 codec modules with near-identical docstrings).
EXCLUDED = {
    "__main__",
    "antigravity",
    "this",
    "test",
    "idlelib",
    "tkinter",
    "turtle",
    "turtledemo",
    "lib2to3",
    "ensurepip",
    "pydoc_data",
    "distutils",  # distutils: removed in 3.12
}
EXCLUDED_PARTS = {"test", "tests", "idle_test"}
NO_SUBMODULES = {"encodings"}
# Modules that must not be imported even when named explicitly in `modules:`.
NEVER = {"antigravity", "__main__"}

# Seconds a child may take: a fixed start-up allowance plus a per-module share. The whole
# stdlib (about 500 modules) imports in a few seconds; these only stop a hung import.
TIMEOUT_BASE_S = 30.0
TIMEOUT_PER_MODULE_S = 0.5
WORKERS = 2  # children run side by side; each imports its own share of modules
_HEADING = re.compile(r"^(.+)\n([*=\-~^#])\2{2,}\s*$", re.MULTILINE)


def collect_stdlib(src: PythonStdlibSource) -> list[Document]:
    """Documents for the language reference topics and/or the stdlib docstrings, by uri."""
    docs: list[Document] = []
    if src.topics:
        docs.extend(topic_documents())
    if src.docstrings:
        names = list(src.modules) or stdlib_modules()
        records, failed = read_docstrings(names)
        if src.modules:
            _check_requested(src.modules, failed)
        docs.extend(Document(SOURCE, r["uri"], r["title"], r["text"], r["meta"]) for r in records)
    docs.sort(key=lambda d: d.uri)
    return docs[: src.max_documents] if src.max_documents else docs


def topic_documents() -> list[Document]:
    """One document per `pydoc_data.topics` entry; the title is the text's first heading."""
    from pydoc_data.topics import topics

    docs = []
    for key in sorted(topics):
        text = topics[key].strip()
        if not text:
            continue
        m = _HEADING.match(text)
        title = m.group(1).strip() if m else key
        meta = {"kind": "topic", "key": key}
        docs.append(Document(SOURCE, f"pydoc:topics/{key}", title, text, meta))
    return docs


def stdlib_modules() -> list[str]:
    """Public stdlib module names, packages walked on disk (nothing is imported here)."""
    lib = Path(os.__file__).parent
    names: list[str] = []
    for top in sorted(sys.stdlib_module_names):
        if top.startswith("_") or top in EXCLUDED:
            continue
        names.append(top)
        pkg = lib / top
        if (pkg / "__init__.py").is_file() and top not in NO_SUBMODULES:
            names.extend(_submodules(pkg, top))
    return names


def _submodules(path: Path, prefix: str) -> list[str]:
    out = []
    for info in sorted(pkgutil.iter_modules([str(path)]), key=lambda i: i.name):
        if info.name.startswith("_") or info.name in EXCLUDED_PARTS:
            continue
        name = f"{prefix}.{info.name}"
        out.append(name)
        if info.ispkg:
            out.extend(_submodules(path / info.name, name))
    return out


def read_docstrings(names: list[str]) -> tuple[list[dict[str, Any]], list[str]]:
    """(doc records, modules that failed to import) for `names`, imported in children."""
    names = [n for n in dict.fromkeys(names) if n not in NEVER]
    # Interleave so both children get a similar mix of big and small packages.
    shares = [names[i::WORKERS] for i in range(WORKERS)] if len(names) > 20 else [names]
    with ThreadPoolExecutor(len(shares)) as pool:
        results = list(pool.map(_read_share, shares))
    records = [r for recs, _ in results for r in recs]
    failed = sorted(f for _, fails in results for f in fails)
    return _dedup(records), failed


def _read_share(names: list[str]) -> tuple[list[dict[str, Any]], list[str]]:
    """Run children until every name is done or failed; a hung or crashed import is skipped."""
    pending, records, failed = list(names), [], []
    while pending:
        events, complete = _run_child(pending)
        finished, started = set(), None
        for ev in events:
            if "start" in ev:
                started = ev["start"]
            elif "done" in ev:
                finished.add(ev["done"])
                records.extend(ev["docs"])
            elif "failed" in ev:
                finished.add(ev["failed"])
                failed.append(ev["failed"])
        pending = [n for n in pending if n not in finished]
        if complete or not pending:
            break
        # The child died or hung while importing `started` (or before it began at all).
        culprit = started if started in pending else pending[0]
        failed.append(culprit)
        pending.remove(culprit)
    return records, failed


def _run_child(names: list[str]) -> tuple[list[dict[str, Any]], bool]:
    """(events the child printed, whether it finished every name)."""
    # -s -S: no site-packages, so only the stdlib is importable; a fixed hash seed keeps
    # set reprs in signatures stable between runs (and so the content ids).
    # A minimal environment: some signatures repr their defaults (cgi.parse has
    # environ=os.environ), which would copy the user's variables, secrets included, into
    # the corpus and make document ids depend on the shell.
    env = {"PATH": os.defpath, "LANG": "C.UTF-8", "PYTHONHASHSEED": "0"}
    cmd = [sys.executable, "-s", "-S", str(HELPER), *names]
    timeout = TIMEOUT_BASE_S + TIMEOUT_PER_MODULE_S * len(names)
    try:
        proc = subprocess.run(
            cmd, stdin=subprocess.DEVNULL, capture_output=True, env=env, timeout=timeout
        )
        out, complete = proc.stdout, proc.returncode == 0
    except subprocess.TimeoutExpired as err:
        out, complete = err.stdout or b"", False
    events = []
    for line in out.decode("utf-8", "replace").splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            complete = False  # a line cut short by a crash
    return events, complete


def _dedup(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One record per (kind, text) and per uri: an object from a C module can be exported
    by two public modules (posix and os); the first uri in sorted order keeps it."""
    seen: set[tuple[str, str]] = set()
    uris: set[str] = set()
    out = []
    for rec in sorted(records, key=lambda r: r["uri"]):
        key = (rec["meta"]["kind"], rec["text"])
        if key not in seen and rec["uri"] not in uris:
            seen.add(key)
            uris.add(rec["uri"])
            out.append(rec)
    return out


def _check_requested(modules: list[str], failed: list[str]) -> None:
    """A module named explicitly that does not import is a typo or a platform mismatch:
    say so, instead of training on a corpus silently missing it."""
    bad = [m for m in modules if m in failed or m in NEVER]
    if bad:
        where = f"Python {sys.version_info.major}.{sys.version_info.minor} on {sys.platform}"
        raise JupiterError(
            f"python_stdlib: module(s) {', '.join(bad)} cannot be imported by this interpreter"
            f" ({where}): fix or remove them in sources[].modules of the domain YAML"
        )
