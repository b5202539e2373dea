"""The filter stage's last step with `generator.rephrase.count` set: the teacher writes
more questions for the cycle's accepted Q&A (synth/rephrase.py), each kept or rejected with
its reason like any example, with a progress bar of done/total, tokens/s and ETA.

Calls go through the generation engine, so every answer is cached in the store: a killed
stage, re-run, asks only what it had not been answered, and a re-run filter stage asks
nothing twice. The written questions pass the filters' first pass (heuristics, quality,
language, relevance, decontamination against both exams, exact dedup) and the LLM judge
when it is on; not the near-duplicate pass, which would call every phrasing a copy of its
source (they share the answer).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from jupiter.config import DomainConfig, LLMConfig
from jupiter.filters import ACCEPTED, REJECTED, ExampleFilter
from jupiter.improve.evalset import eval_questions
from jupiter.improve.generator import judge_pending, llm_config
from jupiter.improve.progress import progress_bar
from jupiter.improve.workspace import Workspace
from jupiter.records import Example
from jupiter.synth.backend import Completion
from jupiter.synth.engine import MALFORMED, Engine, EngineStats, Retry

STAGE = "rephrase"


def teacher_llm(cfg: DomainConfig) -> LLMConfig:
    """generator.rephrase.llm, else the generator's own teacher."""
    return cfg.generator.rephrase.llm or cfg.generator.llm


def teacher_id(ws: Workspace, llm: LLMConfig) -> str:
    """The teacher that wrote the questions, "rephrase:<backend>:<model>" (each example's
    generator is its source's, then "+" and this)."""
    from jupiter.models.reference import model_label

    name = llm.model or llm.base_url
    if llm.backend in ("transformers", "mlx"):
        name = model_label(llm.model, base_dir=ws.cfg.base_dir)
    return f"rephrase:{llm.backend}:{name}"


def rephrase_stage(ws: Workspace, cycle: int) -> dict[str, Any] | None:
    """Ask the teacher for the cycle's accepted Q&A's phrasings and queue them; None when
    generator.rephrase.count is 0."""
    from jupiter.filters.relevance import domain_keywords
    from jupiter.synth.http import make_backend
    from jupiter.synth.rephrase import answer_examples, pick_sources, plan

    rc = ws.cfg.generator.rephrase
    if not rc.count:
        return None
    llm = teacher_llm(ws.cfg)
    gen_id = teacher_id(ws, llm)
    seed = ws.cfg.generator.seed + cycle - 1
    accepted = list(ws.store.iter_examples(status=ACCEPTED, cycle=cycle, kind="qa"))
    chunks = {c.id: c for c in ws.store.iter_chunks()}
    jobs = plan(pick_sources(accepted, rc.max_sources, seed), ws.cfg, llm, chunks, seed)
    known = ws.store.example_ids(cycle)
    seen = [e for s in (ACCEPTED, "used") for e in ws.store.iter_examples(status=s)]
    keywords = domain_keywords(ws.cfg.topics, ws.cfg.keywords)
    flt = ExampleFilter(ws.cfg.filters, eval_questions(ws), seen, ws.cfg.language, keywords)
    made: list[tuple[Example, str]] = []
    failed: list[str] = []

    def on_done(i: int, out: Completion | None, failure: str) -> None:
        if out is None:
            failed.append(failure)
            return
        for ex, reason in answer_examples(
            jobs[i], out.text, out.finish_reason, rc.count, gen_id, cycle
        ):
            if ex.id in known:  # decided by an earlier run, or the source itself again
                continue
            known.add(ex.id)
            made.append((ex, reason or flt.first_reason(ex)))

    backend = make_backend(llm_config(ws, llm))
    engine = Engine(backend, ws.store, llm.concurrency, Retry(max_retries=llm.max_retries))
    t0 = time.perf_counter()
    with progress_bar(ws) as bar:
        task = bar.add_task(f"rephrase ({gen_id})", total=len(jobs), rate="")

        def show(s: EngineStats) -> None:
            rate = f"{s.tokens_per_s:,.0f} tok/s, {s.cache_hits} cached"
            bar.update(task, total=s.requests, completed=s.done, rate=rate)

        async def go() -> EngineStats:
            try:
                return await engine.run([j.request for j in jobs], on_done, show)
            finally:
                await backend.close()

        try:
            stats = asyncio.run(go())
        finally:
            flt.close()
    if ws.cfg.filters.judge.enabled:
        judge(ws, made)
    return record(ws, cycle, gen_id, len(jobs), made, failed, stats, time.perf_counter() - t0)


def judge(ws: Workspace, made: list[tuple[Example, str]]) -> None:
    """The filter stage's LLM judge over the phrasings the checks kept: does the answer
    answer them?"""
    keep = [i for i, (_, reason) in enumerate(made) if not reason]
    if not keep:
        return
    reasons, _ = judge_pending(ws, [made[i][0] for i in keep])
    for i, reason in zip(keep, reasons, strict=True):
        if reason:
            made[i] = (made[i][0], reason)


def record(
    ws: Workspace,
    cycle: int,
    gen_id: str,
    requests: int,
    made: list[tuple[Example, str]],
    failed: list[str],
    stats: EngineStats,
    seconds: float,
) -> dict[str, Any]:
    """Queue the phrasings with their decisions, record the counts and samples, print."""
    counts: dict[str, int] = {ACCEPTED: 0}
    samples: dict[str, list[str]] = {}
    for ex, reason in made:
        ex.status, ex.reason = (REJECTED, reason) if reason else (ACCEPTED, "")  # type: ignore[assignment]
        key = reason or ACCEPTED
        counts[key] = counts.get(key, 0) + 1
        kept = samples.setdefault(key, [])
        if len(kept) < 5:
            text = ex.answer if key.startswith(MALFORMED) else ex.content()
            kept.append(text[:300])
    ws.store.add_examples(ex for ex, _ in made)
    ws.store.record_filter_stats(cycle, STAGE, counts, samples)
    why = ", ".join(f"{n} {r}" for r, n in sorted(counts.items()) if r != ACCEPTED)
    domain = f"--domain {ws.cfg.name}" + (" --quick" if ws.quick else "")
    retry = (
        f"; {len(failed)} requests failed after every retry ({failed[-1]}): `jupiter filter "
        f"{domain}` asks them again"
        if failed
        else ""
    )
    ws.console.print(
        f"rephrase: {requests} Q&A asked again by {gen_id} ({stats.cache_hits} from the cache, "
        f"{stats.calls} calls); {counts[ACCEPTED]} questions kept of {len(made)}"
        f"{f' (rejected: {why})' if why else ''}{retry}",
        highlight=False,
        markup=False,
    )
    return {
        "teacher": gen_id,
        "requests": requests,
        "made": len(made),
        "counts": counts,
        "failed": len(failed),
        "cache_hits": stats.cache_hits,
        "calls": stats.calls,
        "completion_tokens": stats.completion_tokens,
        "seconds": round(seconds, 2),
    }
