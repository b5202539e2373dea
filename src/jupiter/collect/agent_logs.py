"""The `playbooks` source: playbooks that agents wrote from their own interactions.

Each JSONL line is one playbook: {"agent", "domain", "score", "success_rate",
"interactions", "content"} plus an optional "id" and "updated_at". A playbook is kept
when it clears the source's thresholds and ranks in the top k of its domain; every
other line is counted by reason with a "file:line" sample, so nothing is dropped silently.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jupiter.collect.jsonl import parse_line
from jupiter.collect.result import CollectResult
from jupiter.config import DomainConfig, PlaybookSource
from jupiter.errors import JupiterError
from jupiter.records import Document

SOURCE = "playbooks"
REQUIRED = ("content", "domain", "score")


@dataclass
class PlaybookResult(CollectResult):
    """A CollectResult that also counts, per domain, the lines seen, kept and dropped by
    reason; lines whose domain cannot be read (bad JSON, no domain) count only in `rejects`."""

    by_domain: dict[str, dict[str, int]] = field(default_factory=dict)

    def count(self, domain: str, key: str) -> None:
        stats = self.by_domain.setdefault(domain, {})
        stats[key] = stats.get(key, 0) + 1

    def drop(self, reason: str, where: str, domain: str | None) -> None:
        self.reject(reason, where)
        if domain is not None:
            self.count(domain, reason)


@dataclass(frozen=True)
class Playbook:
    domain: str
    agent: str
    score: float
    success_rate: float
    interactions: int
    content: str
    ident: str | None  # the record's own "id", if any
    file: str
    line: int

    def rank_key(self) -> tuple[float, float, int, str]:
        # Best first: score, then success rate, then interactions; the id (or file:line)
        # last, so equal playbooks always come out in the same order.
        tie = self.ident if self.ident is not None else f"{self.file}:{self.line:09d}"
        return (-self.score, -self.success_rate, -self.interactions, tie)

    def document(self) -> Document:
        meta = {
            "domain": self.domain,
            "agent": self.agent,
            "score": self.score,
            "success_rate": self.success_rate,
            "interactions": self.interactions,
            "file": self.file,
            "line": self.line,
        }
        name = self.ident if self.ident is not None else str(self.line)
        uri = f"playbook:{self.domain}/{self.agent}/{name}"
        return Document(SOURCE, uri, f"{self.agent} ({self.domain})", self.content, meta)


def collect_playbooks(src: PlaybookSource, cfg: DomainConfig) -> PlaybookResult:
    """The playbooks that pass every threshold, the top k of each domain, ordered by
    domain name and then best first."""
    result = PlaybookResult()
    ranked: dict[str, list[Playbook]] = {}
    for where, rec in read_jsonl(cfg.resolve(src.path), "playbooks", result):
        try:
            book = _check(rec, where, src, result)
        except RecursionError:  # an agent or id nested too deep to print
            result.reject("bad_json", where)
            continue
        if book is not None:
            ranked.setdefault(book.domain, []).append(book)
    for domain in sorted(ranked):
        books = sorted(ranked[domain], key=Playbook.rank_key)
        for book in books[: src.top_k]:
            result.documents.append(book.document())
            result.count(domain, "kept")
        for book in books[src.top_k :]:
            result.drop("not_top_k", f"{book.file}:{book.line}", domain)
    return result


def _check(rec: Any, where: str, src: PlaybookSource, result: PlaybookResult) -> Playbook | None:
    """The record as a Playbook, or None after counting why it was dropped."""
    if not isinstance(rec, dict):
        result.reject("bad_json", where)
        return None
    domain = rec.get("domain")
    known = domain if isinstance(domain, str) and domain.strip() else None
    if known is not None:
        result.count(known, "seen")
    if any(rec.get(k) is None or rec.get(k) == "" for k in REQUIRED):
        result.drop("missing_field", where, known)
        return None
    score = _number(rec["score"])
    rate = _number(rec.get("success_rate", 0.0))
    interactions = _number(rec.get("interactions", 0))
    if (
        known is None
        or not isinstance(rec["content"], str)
        or score is None
        or rate is None
        or not 0.0 <= rate <= 1.0
        or interactions is None
        or interactions < 0
        or interactions != int(interactions)
    ):
        result.drop("bad_value", where, known)
        return None
    file, _, line = where.rpartition(":")
    ident = rec.get("id")
    book = Playbook(
        domain=known,
        agent=str(rec.get("agent") or "unknown"),
        score=score,
        success_rate=rate,
        interactions=int(interactions),
        content=rec["content"],
        ident=None if ident is None else str(ident),
        file=file,
        line=int(line),
    )
    reason = _threshold_reason(book, src)
    if reason is not None:
        result.drop(reason, where, known)
        return None
    return book


def _threshold_reason(book: Playbook, src: PlaybookSource) -> str | None:
    if not book.content.strip():
        return "empty"
    if book.score < src.min_score:
        return "below_min_score"
    if book.interactions < src.min_interactions:
        return "below_min_interactions"
    if book.success_rate < src.min_success_rate:
        return "below_min_success_rate"
    return None


def _number(value: Any) -> float | None:
    """A finite number (bools and numeric strings excluded), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def quality_report(result: CollectResult) -> list[dict[str, Any]]:
    """One row per domain, sorted by name: lines seen, kept, dropped by reason, and the
    mean/min/max score, mean success rate and total interactions of the kept playbooks.

    A plain CollectResult (no per-domain counts) reports its documents as seen and kept.
    """
    kept: dict[str, list[dict[str, Any]]] = {}
    for doc in result.documents:
        if doc.source == SOURCE:
            kept.setdefault(str(doc.meta["domain"]), []).append(doc.meta)
    counts = result.by_domain if isinstance(result, PlaybookResult) else {}
    rows = []
    for domain in sorted(set(kept) | set(counts)):
        metas = kept.get(domain, [])
        stats = counts.get(domain, {"seen": len(metas), "kept": len(metas)})
        scores = [float(m["score"]) for m in metas]
        rates = [float(m["success_rate"]) for m in metas]
        rows.append(
            {
                "domain": domain,
                "seen": stats.get("seen", 0),
                "kept": stats.get("kept", 0),
                "dropped": {k: v for k, v in sorted(stats.items()) if k not in ("seen", "kept")},
                "score_mean": sum(scores) / len(scores) if scores else None,
                "score_min": min(scores) if scores else None,
                "score_max": max(scores) if scores else None,
                "success_rate_mean": sum(rates) / len(rates) if rates else None,
                "interactions_total": sum(int(m["interactions"]) for m in metas),
            }
        )
    return rows


def read_jsonl(root: Path, what: str, result: CollectResult) -> Iterator[tuple[str, Any]]:
    """("file:line", parsed value) for every non-blank line of a JSONL file, or of the
    *.jsonl files under a folder in sorted order. A line that does not parse, nests too
    deep or holds a lone surrogate is counted into `result` (bad_json, bad_text) instead."""
    if not root.exists():
        raise JupiterError(f"{what} path not found: {root} (fix the source's path)")
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*.jsonl") if p.is_file())
    for path in files:
        with path.open(encoding="utf-8", errors="replace") as f:
            for n, raw in enumerate(f, start=1):
                if not raw.strip():
                    continue
                value, reason = parse_line(raw)
                if reason:
                    result.reject(reason, f"{path}:{n}")
                else:
                    yield f"{path}:{n}", value
