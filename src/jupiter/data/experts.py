"""Per-expert datasets and a router dataset, for a mixture of small experts.

Each example goes to the expert whose keywords and patterns it matches best (or to none
below `MIN_SCORE`); every expert gets its own train/validation/test files, written by
export.py, and the router gets {"text": question, "label": expert} rows to learn the same
choice. All of them split by source document with `split_of`, with one seed: a document
is in the same split for every expert and for the router.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any

from jupiter import atomic
from jupiter.data.export import (
    SPLITS,
    ExportResult,
    check_fractions,
    export_examples,
    jsonl,
    split_of,
)
from jupiter.data.formats import Format
from jupiter.errors import JupiterError
from jupiter.records import Example

# One point per distinct keyword present (case-insensitive, whole words): the topic words
# a question about that field uses. Generic and plain-English words ("list", "function",
# "let", "select") are left out: they would tie every expert or match prose.
EXPERT_KEYWORDS: dict[str, list[str]] = {
    "python": [
        "python",
        "def",
        "self",
        "pip",
        "venv",
        "virtualenv",
        "__init__",
        "decorator",
        "list comprehension",
        "dict",
        "tuple",
        "lambda",
        "kwargs",
        "pytest",
        "asyncio",
        "docstring",
        "pep 8",
        "import",
        "elif",
        "isinstance",
        "f-string",
    ],
    "sql": [
        "sql",
        "query",
        "queries",
        "join",
        "table",
        "tables",
        "index",
        "primary key",
        "foreign key",
        "database",
        "postgres",
        "postgresql",
        "mysql",
        "sqlite",
        "group by",
        "order by",
        "where clause",
        "schema",
        "transaction",
        "rows",
        "column",
        "columns",
    ],
    "javascript": [
        "javascript",
        "js",
        "node.js",
        "nodejs",
        "npm",
        "react",
        "vue",
        "dom",
        "promise",
        "typescript",
        "const",
        "undefined",
        "arrow function",
        "callback",
        "addeventlistener",
        "prototype",
        "closure",
        "webpack",
        "console.log",
        "browser",
        "json.stringify",
    ],
    "debug": [
        "error",
        "errors",
        "exception",
        "traceback",
        "stack trace",
        "bug",
        "crash",
        "crashes",
        "fails",
        "failing",
        "debug",
        "debugger",
        "breakpoint",
        "not working",
        "doesn't work",
        "segfault",
        "fix",
        "raises",
        "raised",
    ],
    "ml": [
        "machine learning",
        "model",
        "training",
        "neural network",
        "gradient",
        "loss",
        "epoch",
        "epochs",
        "dataset",
        "overfitting",
        "tensor",
        "pytorch",
        "torch",
        "tensorflow",
        "scikit-learn",
        "sklearn",
        "numpy",
        "pandas",
        "transformer",
        "embedding",
        "fine-tune",
        "inference",
        "accuracy",
        "regression",
        "classification",
    ],
    "api": [
        "api",
        "endpoint",
        "endpoints",
        "rest",
        "http",
        "https",
        "request",
        "response",
        "status code",
        "json",
        "authentication",
        "oauth",
        "token",
        "header",
        "headers",
        "webhook",
        "rate limit",
        "graphql",
        "curl",
        "url",
        "get request",
        "post request",
    ],
}


def _fence(langs: str) -> re.Pattern[str]:
    return re.compile(rf"```(?:{langs})\b", re.IGNORECASE)


# Stronger evidence than keywords, for the built-in experts: a fenced block's language, the
# shape of the code itself, an error report. SQL statements are matched upper-case only:
# "select the rows from" is English.
PATTERNS: dict[str, list[tuple[re.Pattern[str], int]]] = {
    "python": [
        (_fence("python|py|python3|pycon"), 3),
        (re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+\w+.*:\s*$", re.M), 2),
        (re.compile(r"^\s*(?:from\s+[\w.]+\s+)?import\s+\w+", re.M), 1),
        (re.compile(r"^>>> ", re.M), 2),
    ],
    "sql": [
        (_fence("sql|postgresql|psql|mysql|sqlite"), 3),
        (re.compile(r"\bSELECT\b[\s\S]+?\bFROM\b"), 3),
        (re.compile(r"\b(?:INSERT INTO|CREATE TABLE|ALTER TABLE|DELETE FROM|CREATE INDEX)\b"), 3),
        (re.compile(r"\bUPDATE\s+\w+\s+SET\b"), 3),
        (re.compile(r"\b(?:INNER|LEFT|RIGHT|FULL|OUTER)\s+JOIN\b"), 2),
    ],
    "javascript": [
        (_fence("javascript|js|jsx|typescript|ts|tsx|node"), 3),
        (re.compile(r"\b(?:const|let|var)\s+\w+\s*=(?!=)"), 2),
        (re.compile(r"\bconsole\.log\("), 2),
        (re.compile(r"\bfunction\s*\w*\s*\([^)]*\)\s*\{"), 2),
        (re.compile(r"\)\s*=>"), 1),
    ],
    "debug": [
        (re.compile(r"Traceback \(most recent call last\)"), 5),
        (re.compile(r"^\s*(?:[\w.]+\.)?\w+(?:Error|Exception|Warning)\b:", re.M), 3),
        (re.compile(r"^\s+at\s+\S+.*:\d+:\d+\)?\s*$", re.M), 3),  # a JavaScript stack frame
        (re.compile(r"segmentation fault|core dumped", re.IGNORECASE), 3),
    ],
    "ml": [
        (re.compile(r"^\s*(?:import|from)\s+(?:torch|tensorflow|sklearn|jax|keras)\b", re.M), 3),
        (re.compile(r"\.(?:fit|backward|zero_grad)\("), 2),
    ],
    "api": [
        (re.compile(r"\b(?:GET|POST|PUT|PATCH|DELETE)\s+/\S*"), 3),
        (re.compile(r"\bHTTP/\d(?:\.\d)?\b"), 2),
        (re.compile(r"\b[1-5]\d\d (?:OK|Created|Bad Request|Unauthorized|Not Found)\b"), 2),
        (re.compile(r"\bcurl\s+(?:-\w|https?://)"), 2),
    ],
}

# Below this no expert is sure enough: one stray keyword ("table", "fix") is not a topic.
MIN_SCORE = 2


@lru_cache(maxsize=64)
def _keyword_regex(words: tuple[str, ...]) -> re.Pattern[str] | None:
    if not words:
        return None
    alts = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alts})(?!\w)", re.IGNORECASE)


def expert_scores(
    text: str, experts: list[str], keywords: dict[str, list[str]] | None = None
) -> dict[str, int]:
    """Each expert's score on `text`: distinct keywords present plus the weights of the
    built-in patterns that match. `keywords` replaces the built-in set for the names it has."""
    out = {}
    for name in experts:
        words = (keywords or {}).get(name, EXPERT_KEYWORDS.get(name, []))
        rx = _keyword_regex(tuple(w.lower() for w in words))
        score = len({m.lower() for m in rx.findall(text)}) if rx else 0
        score += sum(w for p, w in PATTERNS.get(name, []) if p.search(text))
        out[name] = score
    return out


def assign_expert(
    example: Example, experts: list[str], keywords: dict[str, list[str]] | None = None
) -> str | None:
    """The best-scoring expert for the example (ties: the earlier in `experts`), or None
    when no score reaches MIN_SCORE."""
    if not experts:
        return None
    scores = expert_scores(example.content(), experts, keywords)
    best = max(experts, key=lambda name: scores[name])  # max keeps the first of equals
    return best if scores[best] >= MIN_SCORE else None


def router_text(example: Example) -> str:
    """What the router sees: the (first) user question, or a text example's text."""
    return example.text if example.kind == "text" else example.question


def _check_experts(experts: list[str]) -> None:
    if not experts:
        raise JupiterError("no experts given: name at least one (e.g. python, sql)")
    if len(set(experts)) != len(experts):
        raise JupiterError(f"experts must be distinct, got {experts}")
    for name in experts:
        if name == "router" or not re.fullmatch(r"[A-Za-z0-9_\-]+", name):
            raise JupiterError(
                f"invalid expert name {name!r}: use letters, digits, _ and - ('router' is taken)"
            )


def build_expert_datasets(
    examples: Iterable[Example],
    doc_of: Callable[[Example], str],
    experts: list[str],
    out_dir: Path,
    fractions: tuple[float, float, float] = (0.9, 0.05, 0.05),
    seed: int = 0,
    keywords: dict[str, list[str]] | None = None,
    fmt: Format = "messages",
    system_prompt: str = "",
) -> dict[str, ExportResult]:
    """out_dir/<expert>/ and out_dir/router/ ({train,validation,test}.jsonl + manifest.json)
    and out_dir/manifest.json (examples per expert, unassigned with a few samples).
    Returns each expert's ExportResult and the router's under "router"."""
    _check_experts(experts)
    check_fractions(fractions)
    groups: dict[str, list[Example]] = {name: [] for name in experts}
    unassigned: list[Example] = []
    for ex in examples:
        name = assign_expert(ex, experts, keywords)
        if name is None:
            unassigned.append(ex)
        else:
            groups[name].append(ex)

    results = {
        name: export_examples(
            groups[name], doc_of, out_dir / name, fmt, fractions, seed, system_prompt
        )
        for name in experts
    }
    results["router"] = _write_router(groups, doc_of, out_dir / "router", fractions, seed)
    manifest: dict[str, Any] = {
        "experts": {name: len(groups[name]) for name in experts},
        "unassigned": len(unassigned),
        "unassigned_samples": [
            {"id": ex.id, "text": router_text(ex)[:200]} for ex in unassigned[:5]
        ],
        "min_score": MIN_SCORE,
        "format": fmt,
        "seed": seed,
        "fractions": list(fractions),
        "router": results["router"].counts,
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    atomic.write_text(out_dir / "manifest.json", json.dumps(manifest, indent=2) + "\n")
    return results


def _write_router(
    groups: dict[str, list[Example]],
    doc_of: Callable[[Example], str],
    out_dir: Path,
    fractions: tuple[float, float, float],
    seed: int,
) -> ExportResult:
    rows: dict[str, list[dict[str, Any]]] = {s: [] for s in SPLITS}
    docs: dict[str, set[str]] = {s: set() for s in SPLITS}
    labels: dict[str, Counter[str]] = {s: Counter() for s in SPLITS}
    for name, group in groups.items():
        for ex in group:
            doc = doc_of(ex)
            split = split_of(doc, seed, fractions)
            rows[split].append(
                {"text": router_text(ex), "label": name, "id": ex.id, "source_document": doc}
            )
            docs[split].add(doc)
            labels[split][name] += 1
    out_dir.mkdir(parents=True, exist_ok=True)
    files = [out_dir / f"{s}.jsonl" for s in SPLITS]
    for split, path in zip(SPLITS, files, strict=True):
        # sorted by id: the router should not see the labels in blocks
        atomic.write_text(path, jsonl(sorted(rows[split], key=lambda r: r["id"])))
    result = ExportResult(
        counts={s: len(rows[s]) for s in SPLITS},
        files=[*files, out_dir / "manifest.json"],
        documents={s: len(docs[s]) for s in SPLITS},
    )
    manifest = {
        "counts": result.counts,
        "documents": result.documents,
        "labels": {s: dict(sorted(labels[s].items())) for s in SPLITS},
        "seed": seed,
        "fractions": list(fractions),
    }
    atomic.write_text(out_dir / "manifest.json", json.dumps(manifest, indent=2) + "\n")
    return result
