"""`jupiter data export`: the example queue as train/validation/test JSONL files in any
dataset format (see formats.py), plus a manifest.

Splits are by source document, not by example: every example made from one document lands
in the same split, so a question and its near-twin from the same page never sit on both
sides of an evaluation. A long document (20 chunks or more: a manual, a reference page per
module) is split by section instead, runs of 10 consecutive chunks, so a corpus of a few
such documents still has a validation and a test split. The split is a pure function of
(seed, document or section id), so adding documents never moves the others.

Each row carries three extra keys beside its format's own: "id" (the example id),
"source_document" and "difficulty" (see `difficulty`).
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from jupiter import atomic
from jupiter.data.formats import FORMATS, Format, FormatError, from_messages
from jupiter.errors import JupiterError
from jupiter.records import Example
from jupiter.store import Store

SplitName = Literal["train", "validation", "test"]
SPLITS: tuple[SplitName, ...] = ("train", "validation", "test")
Level = Literal["easy", "medium", "hard"]
LEVELS: tuple[Level, ...] = ("easy", "medium", "hard")

# formats whose files may hold a {"text": …} row for a raw-text example; alpaca and
# completions rows have fixed columns that raw text has no place in
TEXT_FORMATS: frozenset[str] = frozenset({"messages", "sharegpt", "text", "mistral"})

# difficulty features: question words that ask for reasoning vs. for a fact
HARD_WORDS = frozenset(
    "why how compare comparison difference differences explain versus vs tradeoff tradeoffs "
    "implement design optimize optimise debug prove derive".split()
)
FACT_AFTER_HOW = frozenset({"many", "much", "old", "long"})  # "how many" asks for a fact
CODE = re.compile(r"```|^>>> |^(?: {4}|\t)\S", re.MULTILINE)
WORD = re.compile(r"\w+")


@dataclass
class ExportResult:
    counts: dict[str, int]  # split -> examples written
    files: list[Path]  # the three JSONL files, then the manifest
    documents: dict[str, int]  # split -> distinct source documents
    skipped: dict[str, int] = field(default_factory=dict)  # reason -> examples not written


# ---------------------------------------------------------------------------- splits
def check_fractions(fractions: tuple[float, float, float]) -> None:
    finite = all(math.isfinite(f) and f >= 0 for f in fractions)  # NaN passes any comparison
    if len(fractions) != 3 or not finite or abs(sum(fractions) - 1) > 1e-6:
        raise JupiterError(
            f"split fractions must be three non-negative numbers summing to 1 "
            f"(train, validation, test), got {tuple(fractions)}"
        )


def split_of(doc_id: str, seed: int, fractions: tuple[float, float, float]) -> SplitName:
    """The split of a document: a uniform number from sha256(seed, doc id) against the
    cumulative fractions. Deterministic, and one document's examples never straddle splits."""
    digest = hashlib.sha256(f"{seed}\x00{doc_id}".encode()).digest()
    u = int.from_bytes(digest[:8], "big") / 2**64
    if u < fractions[0]:
        return "train"
    return "validation" if u < fractions[0] + fractions[1] else "test"


# a document of this many chunks or more is split by section (a run of SECTION_CHUNKS
# consecutive chunks) rather than whole: a corpus of a few long documents (one manual, a
# reference page per module) otherwise puts every example in one split
LONG_DOCUMENT_CHUNKS = 20
SECTION_CHUNKS = 10


def doc_ids_of(store: Store) -> Callable[[Example], str]:
    """Example → the unit it is split with, through its chunk: the source document's id,
    or "<doc id>#<section>" in a long document. An example whose chunk is not in the store
    stands for its own document ("chunk:<id>"), so it still lands in one split."""
    by_doc: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for c in store.iter_chunks():
        by_doc[c.doc_id].append((c.start, c.id))
    unit: dict[str, str] = {}
    for doc, chunks in by_doc.items():
        long = len(chunks) >= LONG_DOCUMENT_CHUNKS
        for k, (_, chunk_id) in enumerate(sorted(chunks)):
            unit[chunk_id] = f"{doc}#{k // SECTION_CHUNKS}" if long else doc
    return lambda ex: unit.get(ex.chunk_id, f"chunk:{ex.chunk_id}")


# ---------------------------------------------------------------------------- difficulty
def _words(text: str) -> int:
    return len(WORD.findall(text))


def difficulty(example: Example) -> Level:
    """easy / medium / hard from a points score (0–1 easy, 2–3 medium, 4+ hard):

    - answer length in words (a text example: its text): under 40 → 0, under 150 → 1,
      else 2 (text: under 100 / 300, raw text being longer for the same content);
    - user turns: 2 → +1, 3 or more → +2;
    - code in the question or answer (a ``` fence, a >>> prompt, an indented block) → +1;
    - a question word asking for reasoning (why, how — not "how many" —, compare,
      difference, explain, versus, implement, design, optimize, debug …) → +1, where
      what/which/who/when questions ask for a fact and add nothing.
    """
    if example.kind == "text":
        n = _words(example.text)
        score = 0 if n < 100 else 1 if n < 300 else 2
        return _level(score + (1 if CODE.search(example.text) else 0))
    n = _words(example.answer)
    score = 0 if n < 40 else 1 if n < 150 else 2
    turns = sum(m["role"] == "user" for m in example.messages)
    score += 0 if turns < 2 else 1 if turns == 2 else 2
    score += 1 if CODE.search(example.content()) else 0
    asked = " ".join(m["content"] for m in example.messages if m["role"] == "user")
    words = WORD.findall(asked.lower())
    follows = [*words[1:], ""]
    reasoning = any(
        w in HARD_WORDS and not (w == "how" and nxt in FACT_AFTER_HOW)
        for w, nxt in zip(words, follows, strict=True)
    )
    return _level(score + (1 if reasoning else 0))


def _level(score: int) -> Level:
    return "easy" if score <= 1 else "medium" if score <= 3 else "hard"


def balance(examples: Iterable[Example], seed: int) -> list[Example]:
    """Downsample the over-represented difficulty levels to at most 10 % above the rarest
    present level, keeping all of the rarest; a seeded choice, input order kept. A level with
    no examples is left out of the comparison (balancing to zero would drop everything)."""
    items = list(examples)
    by_level: dict[Level, list[int]] = defaultdict(list)
    for i, ex in enumerate(items):
        by_level[difficulty(ex)].append(i)
    if not by_level:
        return []
    rarest = min(len(v) for v in by_level.values())
    cap = int(rarest * 1.1)
    rng = random.Random(seed)
    kept: list[int] = []
    for level in LEVELS:
        idx = by_level.get(level, [])
        kept += idx if len(idx) <= cap else rng.sample(idx, cap)
    return [items[i] for i in sorted(kept)]


_balance = balance  # export_examples' `balance` flag shadows the name


# ---------------------------------------------------------------------------- quality
def _normalized(text: str) -> str:
    return " ".join(WORD.findall(text.lower()))


def quality_metrics(examples: list[Example], doc_of: Callable[[Example], str]) -> dict[str, Any]:
    """count, mean answer words (text examples: text words), distinct documents, duplicate
    rate (share of examples whose lowercased, punctuation-free content repeats an earlier
    one) and the difficulty distribution."""
    n = len(examples)
    words = [_words(ex.text if ex.kind == "text" else ex.answer) for ex in examples]
    distinct = len({_normalized(ex.content()) for ex in examples})
    levels = Counter(difficulty(ex) for ex in examples)
    return {
        "count": n,
        "mean_answer_words": round(sum(words) / n, 2) if n else 0.0,
        "distinct_documents": len({doc_of(ex) for ex in examples}),
        "duplicate_rate": round(1 - distinct / n, 4) if n else 0.0,
        "difficulty": {lv: levels.get(lv, 0) for lv in LEVELS},
    }


# ---------------------------------------------------------------------------- writing


def jsonl(rows: Iterable[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def _record(ex: Example, fmt: Format, system_prompt: str) -> dict[str, Any]:
    """The example's row in `fmt`; FormatError (the skip reason) where the format can't
    hold it."""
    if ex.kind == "text":
        if fmt not in TEXT_FORMATS:
            raise FormatError(f"text example: {fmt} holds no raw text")
        return {"text": ex.text}
    msgs = ex.messages
    if system_prompt and not (msgs and msgs[0].get("role") == "system"):
        msgs = [{"role": "system", "content": system_prompt}, *msgs]
    try:
        return from_messages(msgs, fmt)
    except FormatError as e:
        raise FormatError(f"qa example: {e}") from None


def export_examples(
    examples: Iterable[Example],
    doc_of: Callable[[Example], str],
    out_dir: Path,
    fmt: Format = "messages",
    fractions: tuple[float, float, float] = (0.9, 0.05, 0.05),
    seed: int = 0,
    system_prompt: str = "",
    balance: bool = False,
) -> ExportResult:
    """Write out_dir/{train,validation,test}.jsonl in `fmt` and out_dir/manifest.json.

    `system_prompt` is prepended to chats without one; `balance` first evens out the
    difficulty levels (see `balance`). Examples a format cannot hold are skipped and
    counted by reason in the manifest, with a few ids of each."""
    check_fractions(fractions)
    if fmt not in FORMATS:
        raise FormatError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    items = _balance(examples, seed) if balance else list(examples)
    rows: dict[str, list[dict[str, Any]]] = {s: [] for s in SPLITS}
    docs: dict[str, set[str]] = {s: set() for s in SPLITS}
    levels: dict[str, Counter[str]] = {s: Counter() for s in SPLITS}
    skipped: Counter[str] = Counter()
    samples: dict[str, list[str]] = defaultdict(list)
    written: list[Example] = []
    for ex in items:
        try:
            row = _record(ex, fmt, system_prompt)
        except FormatError as e:
            skipped[str(e)] += 1
            if len(samples[str(e)]) < 3:
                samples[str(e)].append(ex.id)
            continue
        doc = doc_of(ex)
        split = split_of(doc, seed, fractions)
        level = difficulty(ex)
        rows[split].append({**row, "id": ex.id, "source_document": doc, "difficulty": level})
        docs[split].add(doc)
        levels[split][level] += 1
        written.append(ex)

    out_dir.mkdir(parents=True, exist_ok=True)
    files = [out_dir / f"{s}.jsonl" for s in SPLITS]
    for split, path in zip(SPLITS, files, strict=True):
        atomic.write_text(path, jsonl(rows[split]))
    result = ExportResult(
        counts={s: len(rows[s]) for s in SPLITS},
        files=[*files, out_dir / "manifest.json"],
        documents={s: len(docs[s]) for s in SPLITS},
        skipped=dict(skipped),
    )
    manifest = {
        "format": fmt,
        "seed": seed,
        "fractions": list(fractions),
        "balanced": balance,
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "counts": result.counts,
        "documents": result.documents,
        "difficulty": {s: {lv: levels[s].get(lv, 0) for lv in LEVELS} for s in SPLITS},
        "skipped": result.skipped,
        "skipped_samples": dict(samples),
        "quality": quality_metrics(written, doc_of),
    }
    atomic.write_text(out_dir / "manifest.json", json.dumps(manifest, indent=2) + "\n")
    return result
