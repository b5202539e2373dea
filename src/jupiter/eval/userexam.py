"""The exam in a user's words: questions asked as a user asks them (a task or a situation),
never in a generator template's wording, each answer backed by a span quoted from the docs.

An item is a multiple-choice QA line with two more fields:
- `source`: where the answer is written: `py:<dotted object>` (its own docstring),
  `pydoc:topics/<key>` (the language reference `help()` shows), `cmake:<path under Help/>`,
  `man:<name>` (a section 1 manual page, rendered to text as `man_page_text` does),
  `info:<manual>#<node>` (a GNU info manual's node, as the local source reads it), or
  `doc:<uri>` (any document a workspace collected, by its uri: a user's own docs; a local
  file's uri is its absolute path, so `doc:/path/to/page.md` is read outside a workspace
  too);
- `quote`: a verbatim span of that text (whitespace-collapsed) that settles the answer.

`check_exam` rejects, with a reason each: a quote not found in its source, a question that a
generator template could have written (synth/questions.py PHRASES, synth/knowledge.py FRAMES),
and a question sharing a word 8-gram with the training examples (Allen-Zhu & Li 2023: a fact
is known when it is retrieved from wording never trained on).
"""

from __future__ import annotations

import builtins
import functools
import gzip
import importlib
import importlib.util
import inspect
import json
import re
import shutil
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jupiter.errors import JupiterError

NGRAM = 8  # words; the decontamination window of GPT-3 (Brown et al. 2020) is 13, ours stricter
MIN_QUOTE_WORDS = 4
_WORD = re.compile(r"[a-z0-9_]+")
_SPACE = re.compile(r"\s+")
CMAKE_HELP_GLOB = "/usr/share/cmake-*/Help"
MAN_DIR = Path("/usr/share/man")
INFO_DIR = Path("/usr/share/info")


@dataclass
class ExamCheck:
    """Items kept and dropped by reason (a sample of each reason's items kept)."""

    kept: list[Any] = field(default_factory=list)
    dropped: dict[str, list[str]] = field(default_factory=dict)

    def drop(self, reason: str, item_id: str) -> None:
        self.dropped.setdefault(reason, []).append(item_id)

    def counts(self) -> dict[str, int]:
        return {reason: len(ids) for reason, ids in sorted(self.dropped.items())}


def collapse(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def python_source_text(source: str) -> str | None:
    """The text an item's `py:`/`pydoc:` source names, as the python_stdlib collector reads
    it (the object's own cleaned docstring; a pydoc topic), or None when it does not exist."""
    if source.startswith("pydoc:topics/"):
        from pydoc_data.topics import topics

        text = topics.get(source.removeprefix("pydoc:topics/"))
        return None if text is None else str(text)
    if not source.startswith("py:"):
        return None
    parts = source.removeprefix("py:").split(".")
    if hasattr(builtins, parts[0]) and importlib.util.find_spec(parts[0]) is None:
        parts = ["builtins", *parts]  # a builtin: len, str.join
    for cut in range(len(parts), 0, -1):  # the longest importable prefix is the module
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for name in parts[cut:]:
                obj = getattr(obj, name)
        except AttributeError:
            return None
        raw = obj.__dict__.get("__doc__") if inspect.isclass(obj) else obj.__doc__
        return inspect.cleandoc(raw) if isinstance(raw, str) else None
    return None


def cmake_help_dir() -> Path | None:
    """CMake's reference as Debian installs it (the newest version present), or None."""
    found = sorted(Path("/").glob(CMAKE_HELP_GLOB.lstrip("/")))
    return found[-1] if found else None


def man_page_text(name: str, section: str = "1", man_dir: Path = MAN_DIR) -> str | None:
    """Manual page `name` of `section` as plain text, what a terminal shows but with no word
    hyphenated across a line end (zcat | groff -man -Tutf8 -rHY=0 | col -bx: a broken
    "cur‐ rently" is two strange words to a tokenizer), or None when the page or groff is
    missing."""
    found = sorted((man_dir / f"man{section}").glob(f"{name}.{section}*.gz"))
    if not found or not shutil.which("groff"):
        return None
    raw = gzip.decompress(found[0].read_bytes())
    shown = subprocess.run(
        ["groff", "-man", "-Tutf8", "-rHY=0"], input=raw, capture_output=True, check=False
    ).stdout
    text = subprocess.run(["col", "-bx"], input=shown, capture_output=True, check=False).stdout
    return text.decode("utf-8", "replace") if text.strip() else None


def info_node_text(manual: str, node: str, info_dir: Path = INFO_DIR) -> str | None:
    """A GNU info manual's node as the `local` source collects it (collect/local.py), from
    <info_dir>/<manual>.info[.gz] and the parts of a split manual; None when absent."""
    for path in sorted(info_dir.glob(f"{manual}.info*")):
        if re.fullmatch(rf"{re.escape(manual)}\.info(-\d+)?(\.gz)?", path.name):
            text = _info_nodes(path).get(node)
            if text is not None:
                return text
    return None


@functools.lru_cache(maxsize=8)
def _info_nodes(path: Path) -> dict[str, str]:
    from jupiter.collect.local import read_documents

    return {doc.title: doc.text for doc in read_documents(path)}


def source_text(source: str, help_dir: Path | None = None) -> str | None:
    """The documentation text an item's source names, or None."""
    if source.startswith("man:"):
        return man_page_text(source.removeprefix("man:"))
    if source.startswith("info:"):  # info:<manual>#<node>
        manual, _, node = source.removeprefix("info:").partition("#")
        return info_node_text(manual, node) if node else None
    if source.startswith("cmake:"):
        root = help_dir or cmake_help_dir()
        path = None if root is None else root / source.removeprefix("cmake:")
        return path.read_text(encoding="utf-8") if path and path.is_file() else None
    if source.startswith("doc:/"):  # a local file: its uri is its path
        return local_file_text(Path(source.removeprefix("doc:")))
    return python_source_text(source)


def local_file_text(path: Path) -> str | None:
    """A file's text as the `local` source collects it (one document: Markdown, reST,
    text, HTML, PDF), or None when it is absent or yields no single document."""
    if not path.is_file():
        return None
    from jupiter.collect.local import read_documents

    docs = read_documents(path)
    return docs[0].text if len(docs) == 1 else None


def template_patterns() -> list[re.Pattern[str]]:
    """Every wording the extractive generator's templates and the knowledge recipe ask in,
    as a full-match regex (the placeholders match anything)."""
    from jupiter.synth.knowledge import FRAMES, wording_pattern
    from jupiter.synth.questions import PHRASES

    return [wording_pattern(text, re.I) for ws in (*PHRASES.values(), FRAMES) for text in ws]


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def ngrams(text: str, n: int = NGRAM) -> set[tuple[str, ...]]:
    toks = words(text)
    return {tuple(toks[i : i + n]) for i in range(len(toks) - n + 1)}


def shared_ngrams(questions: dict[str, str], texts: Iterable[str], n: int = NGRAM) -> set[str]:
    """Ids of the questions that share a word n-gram with any of `texts` (streamed once)."""
    index: dict[tuple[str, ...], set[str]] = {}
    for qid, q in questions.items():
        for g in ngrams(q, n):
            index.setdefault(g, set()).add(qid)
    hit: set[str] = set()
    for text in texts:
        toks = words(text)
        for i in range(len(toks) - n + 1):
            ids = index.get(tuple(toks[i : i + n]))
            if ids:
                hit |= ids
    return hit


def check_exam(
    items: list[Any],
    sources: dict[str, Any],
    training: Iterable[str] = (),
    text_of: Callable[[str], str | None] | None = None,
) -> ExamCheck:
    """Keep the items whose quote is in their source, whose question no template wrote and
    which share no 8-gram with `training`; `sources` maps item id -> its raw line (source,
    quote); `text_of` reads a source (default: `source_text`)."""
    text_of = text_of or source_text
    patterns = template_patterns()
    out = ExamCheck()
    texts: dict[str, str | None] = {}
    candidates = []
    for it in items:
        raw = sources.get(it.id, {})
        src, quote = str(raw.get("source", "")), collapse(str(raw.get("quote", "")))
        if len(quote.split()) < MIN_QUOTE_WORDS:
            out.drop("no_quote", it.id)
            continue
        if src not in texts:
            texts[src] = text_of(src)
        text = texts[src]
        if text is None:
            out.drop("source_not_found", it.id)
        elif quote not in collapse(text):
            out.drop("quote_not_in_source", it.id)
        elif any(p.match(it.question.strip()) for p in patterns):
            out.drop("template_wording", it.id)
        # distinct as written: `-a` and `-A` are two options of a command, and spaces inside
        # a string literal are part of it
        elif len(it.choices) != 4 or len({c.strip() for c in it.choices}) != 4:
            out.drop("not_four_distinct_choices", it.id)
        else:
            candidates.append(it)
    dirty = shared_ngrams({it.id: it.question for it in candidates}, training)
    for it in candidates:
        if it.id in dirty:
            out.drop("shares_8gram_with_training", it.id)
        else:
            out.kept.append(it)
    return out


LENGTH_TELL = 0.4  # share of items whose right choice is the longest past which it is a tell


def longest_right(items: list[Any]) -> float:
    """The share of multiple-choice items whose right choice is strictly the longest: what
    a reader who always picks the longest choice scores (an exam written carelessly makes
    the right answer the most qualified one; chance is 1 / choices)."""
    mc = [it for it in items if it.choices and it.answer_index is not None]
    hits = 0
    for it in mc:
        lens = [len(c) for c in it.choices]
        right = lens[it.answer_index]
        hits += all(right > n for i, n in enumerate(lens) if i != it.answer_index)
    return hits / len(mc) if mc else 0.0


def raw_lines(path: Path) -> dict[str, dict[str, Any]]:
    """id -> the item's JSON object (for the fields QAItem does not carry: quote)."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            obj = json.loads(line)
            out[str(obj.get("id"))] = obj
    return out


def read_user_exam(path: Path) -> list[Any]:
    """The exam file's items, every one multiple choice; a JupiterError naming the file and
    the fix when it is missing, a folder, malformed or an item has no choices."""
    from jupiter.eval.qa import load_eval_set

    if Path(path).is_dir():
        raise JupiterError(
            f"user exam {path} is a folder: point eval.user_exam_path at a JSONL file of "
            "{id, question, choices, answer_index, source, quote} lines"
        )
    if not Path(path).is_file():
        raise JupiterError(
            f"user exam not found: {path} (fix eval.user_exam_path in the domain YAML, or "
            'set it to "" for no user exam)'
        )
    items = load_eval_set(path)
    missing = [it.id for it in items if not it.choices]
    if missing:
        raise JupiterError(
            f"{path}: item {missing[0]} has no choices: every item of a user exam is multiple "
            "choice (choices: 4 strings, answer_index)"
        )
    return items


def load_user_exam(
    path: Path,
    training: Iterable[str] = (),
    text_of: Callable[[str], str | None] | None = None,
) -> tuple[list[Any], dict[str, Any]]:
    """The exam's items that pass `check_exam`, and what was dropped and why."""
    items = read_user_exam(path)
    got = check_exam(items, raw_lines(path), training, text_of)
    about = {"path": str(path), "items": len(items), "kept": len(got.kept), "dropped": got.counts()}
    return got.kept, about


def main(argv: list[str] | None = None) -> int:
    """python -m jupiter.eval.userexam FILE...: check exam files against the docs."""
    import argparse
    import sys

    from jupiter.errors import JupiterError
    from jupiter.eval.qa import load_eval_set

    ap = argparse.ArgumentParser(
        prog="python -m jupiter.eval.userexam",
        description="Check exams in a user's words: each item's quote is in its source, its "
        "question in no template's wording, its 4 choices distinct; exit 1 if any item fails.",
    )
    ap.add_argument("files", nargs="+", metavar="FILE", help="an exam, JSONL")
    args = ap.parse_args(argv)
    bad = 0
    for name in args.files:
        path = Path(name)
        try:
            items = load_eval_set(path)
        except JupiterError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        got = check_exam(items, raw_lines(path))
        print(f"{path}: {len(items)} items, {len(got.kept)} pass; dropped {got.counts()}")
        tell = longest_right(items)
        if tell > LENGTH_TELL:  # said, not failed: the items are each right, the set is not
            print(
                f"  warning: the right choice is the longest in {tell:.0%} of the items (chance "
                "25%): picking the longest choice scores that much; lengthen some distractors"
            )
        for reason, ids in got.dropped.items():
            print(f"  {reason}: {', '.join(ids)}")
        bad += sum(got.counts().values())
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
