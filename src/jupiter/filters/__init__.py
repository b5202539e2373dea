"""The filter stage: every example is accepted, or rejected with a reason.

Order: heuristics -> decontamination -> exact dedup -> near dedup; the first reason wins.
The runner counts reasons and keeps a few samples of each, as datatrove's `BaseFilter`
does, so nothing is dropped silently.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from jupiter.config import FilterConfig
from jupiter.errors import JupiterError
from jupiter.filters.decontam import CONTAMINATED, Decontaminator
from jupiter.filters.dedup import ExactDedup, MinHashLSH
from jupiter.filters.heuristics import REASONS, check_example
from jupiter.filters.langid import LANGID_REASONS
from jupiter.filters.quality import QUALITY_REASONS
from jupiter.filters.relevance import RELEVANCE_REASONS
from jupiter.filters.text import compare_text
from jupiter.records import Example

ACCEPTED = "accepted"
REJECTED = "rejected"
EXACT_DUPLICATE = "exact_duplicate"
NEAR_DUPLICATE = "near_duplicate"
ALL_REASONS = (
    *REASONS,
    *QUALITY_REASONS,
    *LANGID_REASONS,
    *RELEVANCE_REASONS,
    CONTAMINATED,
    EXACT_DUPLICATE,
    NEAR_DUPLICATE,
)

MAX_SAMPLES = 5
SAMPLE_CHARS = 300
MINHASH_SEED = 0  # fixed: the same examples give the same decisions on every run

__all__ = [
    "ACCEPTED",
    "ALL_REASONS",
    "CONTAMINATED",
    "EXACT_DUPLICATE",
    "NEAR_DUPLICATE",
    "REJECTED",
    "Decontaminator",
    "ExactDedup",
    "ExampleFilter",
    "FilterResult",
    "MinHashLSH",
    "check_example",
    "format_counts",
    "run_filters",
]


@dataclass
class FilterResult:
    """decisions: (example_id, "accepted" | "rejected", reason or "") in input order;
    counts: reason -> number rejected, and "accepted" -> number kept;
    samples: reason (or "accepted") -> up to 5 example contents, truncated."""

    decisions: list[tuple[str, str, str]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    samples: dict[str, list[str]] = field(default_factory=dict)


def _sample(ex: Example) -> str:
    text = ex.content()
    return text if len(text) <= SAMPLE_CHARS else text[:SAMPLE_CHARS] + "…"


def text_checks(cfg: FilterConfig, language: str | None, keywords: Sequence[str]) -> list[Any]:
    """The configured quality, language and relevance filters, each with .check(text)."""
    from jupiter.filters import quality

    checks: list[Any] = []
    if cfg.gopher_quality:
        settings = quality.GopherQualitySettings(min_words=cfg.gopher_min_words)
        checks.append(quality.GopherQuality(settings))
    if cfg.gopher_repetition:
        checks.append(quality.GopherRepetition())
    if cfg.fineweb:
        checks.append(quality.FineWebQuality())
    if cfg.c4:
        c4 = quality.C4Settings(reject_curly_bracket=cfg.c4_reject_curly_bracket)
        checks.append(quality.C4Lines(c4))
    if cfg.language_filter and language:
        from jupiter.filters.langid import LanguageFilter

        try:
            checks.append(
                LanguageFilter(language, cfg.language_min_confidence, cfg.language_min_chars)
            )
        except ValueError:
            raise JupiterError(
                f"language: '{language}' is not a language code the filter knows (use an ISO "
                "639-1 code such as en, es, fr), or set filters.language_filter: false"
            ) from None
    if cfg.relevance and keywords:
        from jupiter.filters.relevance import RelevanceFilter

        checks.append(RelevanceFilter(list(keywords), cfg.relevance_min_score))
    return checks


class ExampleFilter:
    """The filters with their state, deciding examples one at a time as they arrive (the
    generation stream) or in a batch (the filter stage). `seen` seeds the dedup indexes."""

    def __init__(
        self,
        cfg: FilterConfig,
        eval_texts: Sequence[str],
        seen: Sequence[Example] = (),
        language: str | None = None,
        keywords: Sequence[str] = (),
    ) -> None:
        self.cfg = cfg
        self.checks = text_checks(cfg, language, keywords)
        self.decon: Any
        if cfg.decontam_method == "ngram13":
            from jupiter.filters.ngram_decontam import NGramDecontaminator

            self.decon = NGramDecontaminator(eval_texts)
        else:
            self.decon = Decontaminator(eval_texts, cfg.decontam_ngram, cfg.decontam_threshold)
        self.exact = ExactDedup()
        if cfg.dedup.exact:
            for old in seen:
                self.exact.add(compare_text(old))
        self.seen = seen
        self._lsh: Any = None

    def first_reason(self, ex: Example) -> str:
        """Heuristics, quality / language / relevance, decontamination and exact dedup;
        "" = keep."""
        text = compare_text(ex)
        reason = check_example(ex, self.cfg)
        for check in self.checks:
            reason = reason or check.check(text)
        reason = reason or self.decon.check(text)
        if reason is None and self.cfg.dedup.exact and self.exact.add(text):
            reason = EXACT_DUPLICATE
        return reason or ""

    def decide(self, ex: Example) -> str:
        """Every filter, near-duplicates included, for one more example; "" = keep."""
        reason = self.first_reason(ex)
        if reason or not self.cfg.dedup.near:
            return reason
        if self._lsh is None:
            self._lsh = near_index(self.cfg)
            self._lsh.add_many([compare_text(s) for s in self.seen])
        return NEAR_DUPLICATE if self._lsh.add_many([compare_text(ex)])[0] is not None else ""

    def close(self) -> None:
        if self._lsh is not None:
            self._lsh.close()


def near_index(cfg: FilterConfig) -> Any:
    from jupiter.filters.dedup_stream import StreamingMinHashDedup

    d = cfg.dedup
    # streaming: the index spills to sorted files past the memory budget, so memory stays
    # bounded however many examples earlier cycles accepted
    return StreamingMinHashDedup(
        d.num_perm,
        d.bands,
        d.shingle,
        d.threshold,
        seed=MINHASH_SEED,
        memory_budget=d.memory_mb << 20,
    )


def _near_pass(
    examples: Sequence[Example], cfg: FilterConfig, seen: Sequence[Example], reasons: list[str]
) -> None:
    """Mark near-duplicates among the survivors of the first pass (and of `seen`)."""
    alive = [i for i, r in enumerate(reasons) if not r]
    with near_index(cfg) as lsh:
        lsh.add_many([compare_text(s) for s in seen])
        dups = lsh.add_many([compare_text(examples[i]) for i in alive])
    for i, dup in zip(alive, dups, strict=True):
        if dup is not None:
            reasons[i] = NEAR_DUPLICATE


def run_filters(
    examples: Sequence[Example],
    cfg: FilterConfig,
    eval_texts: Sequence[str],
    seen: Iterable[Example] = (),
    language: str | None = None,
    keywords: Sequence[str] = (),
) -> FilterResult:
    """Decide every example; `seen` (accepted in earlier cycles) only seeds the dedup
    indexes, so a copy of earlier data is rejected too. `language` (the domain's) and
    `keywords` (its topics and keywords) drive the language and relevance filters.
    Deterministic for the same input."""
    seen = list(seen)
    first = ExampleFilter(cfg, eval_texts, seen, language, keywords)
    reasons = [first.first_reason(ex) for ex in examples]
    if cfg.dedup.near:
        _near_pass(examples, cfg, seen, reasons)
    result = FilterResult(counts={ACCEPTED: 0})
    for ex, reason in zip(examples, reasons, strict=True):
        key = reason or ACCEPTED
        result.decisions.append((ex.id, REJECTED if reason else ACCEPTED, reason))
        result.counts[key] = result.counts.get(key, 0) + 1
        kept = result.samples.setdefault(key, [])
        if len(kept) < MAX_SAMPLES:
            kept.append(_sample(ex))
    return result


def format_counts(counts: dict[str, int]) -> list[tuple[str, int, str]]:
    """Rows (reason, count, percent of all) for a table: accepted first, then the reasons
    by count, most frequent first (ties by name, so the order is stable)."""
    total = sum(counts.values()) or 1
    rest = sorted((r for r in counts if r != ACCEPTED), key=lambda r: (-counts[r], r))
    order = ([ACCEPTED] if ACCEPTED in counts else []) + rest
    return [(r, counts[r], f"{100.0 * counts[r] / total:.1f}%") for r in order]
