"""The generate stage with an LLM teacher: the recipes through the configured backend (or,
once a student has been promoted, through a local backend over its model dir), examples
filtered and queued as they arrive, with a progress bar of done/total, tokens/s and ETA."""

from __future__ import annotations

import time
from typing import Any

from jupiter.improve.generator import backend_for
from jupiter.improve.progress import progress_bar
from jupiter.improve.workspace import Workspace
from jupiter.records import Chunk, Example
from jupiter.synth.engine import EngineStats


def continuation_examples(chunks: list[Chunk], gen_id: str, cycle: int) -> list[Example]:
    return [
        Example(
            kind="text",
            generator=gen_id,
            chunk_id=c.id,
            template="continuation",
            text=c.text,
            cycle=cycle,
        )
        for c in chunks
        if c.split == "train"
    ]


def llm_generate_stage(
    ws: Workspace,
    cycle: int,
    gen_row: dict[str, Any],
    chunks: list[Chunk],
    seed: int,
    eval_texts: list[str],
    keywords: list[str],
) -> dict[str, Any]:
    from jupiter.synth.llm import generate_with_llm

    backend = backend_for(ws, gen_row)
    t0 = time.perf_counter()
    with progress_bar(ws) as bar:
        task = bar.add_task(f"generate ({gen_row['id']})", total=None, rate="")

        def show(s: EngineStats) -> None:
            bar.update(
                task,
                total=s.requests,
                completed=s.done,
                rate=f"{s.tokens_per_s:,.0f} tok/s, {s.cache_hits} cached",
            )

        result = generate_with_llm(
            ws.store,
            ws.cfg,
            chunks,
            backend,
            gen_row["id"],
            cycle,
            seed,
            eval_texts,
            keywords,
            progress=show,
        )
    texts = (
        continuation_examples(chunks, gen_row["id"], cycle) if ws.cfg.generator.continuation else []
    )
    text_new = ws.store.add_examples(texts) if texts else 0
    s = result.stats
    info = {
        "generator": gen_row["id"],
        "requests": result.requests,
        "new": result.new,
        "counts": result.counts,
        "failed": result.failed,
        "failure": result.failure,
        "malformed": result.malformed,
        "cache_hits": s.cache_hits,
        "cache_dropped": s.cache_dropped,
        "calls": s.calls,
        "retries": s.retries,
        "completion_tokens": s.completion_tokens,
        "continuation": len(texts),
        "continuation_new": text_new,
        "seconds": round(time.perf_counter() - t0, 2),
    }
    stats = generation_counts(ws, cycle, gen_row["id"])
    ws.store.record_filter_stats(cycle, "generate", stats, sample_rows(ws, cycle, gen_row["id"]))
    kept = stats.get("accepted", 0) + stats.get("pending", 0)
    odd = f", {result.malformed} answers not text" if result.malformed else ""
    odd += f", {s.cache_dropped} unreadable cache rows asked again" if s.cache_dropped else ""
    ws.console.print(
        f"generate: {result.requests} requests to {gen_row['id']} ({s.cache_hits} from the "
        f"cache, {s.calls} calls, {s.retries} retries, {result.failed} failed{odd}); {kept} "
        f"examples kept of {sum(stats.values())}"
    )
    return info


def missing_requests(ws: Workspace, info: dict[str, Any]) -> str:
    """What a generate stage left unanswered and how to get it, or "" when nothing is
    missing. `start` does not mark such a stage done, so its next run asks them again:
    every answered request is cached, so that run asks exactly the failed ones."""
    failed = int(info.get("failed") or 0)
    if not failed:
        return ""
    domain = f"--domain {ws.cfg.name}" + (" --quick" if ws.quick else "")
    return (
        f"generate: {failed} of {info['requests']} requests to {info['generator']} failed "
        f"after every retry ({info.get('failure') or 'no answer'}); the other answers are "
        f"kept. `jupiter start {domain}` asks the {failed} again (and nothing else) and goes "
        f"on; `jupiter generate {domain}` asks them once more and marks the stage done, "
        "without those that still fail."
    )


def generation_counts(ws: Workspace, cycle: int, gen_id: str) -> dict[str, int]:
    """The cycle's LLM examples by outcome, over every run that wrote them (a resumed run
    counts what the killed one decided too)."""
    counts: dict[str, int] = {}
    for ex in ws.store.iter_examples(cycle=cycle, kind="qa"):
        if ex.generator == gen_id:
            key = ex.reason if ex.status == "rejected" else ex.status
            counts[key] = counts.get(key, 0) + 1
    return counts


def sample_rows(ws: Workspace, cycle: int, gen_id: str, n: int = 5) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for ex in ws.store.iter_examples(cycle=cycle, kind="qa"):
        if ex.generator != gen_id:
            continue
        key = ex.reason if ex.status == "rejected" else ex.status
        kept = out.setdefault(key, [])
        if len(kept) < n:
            # a malformed answer is shown as the teacher wrote it, without the long prompt
            text = ex.messages[-1]["content"] if key.startswith("malformed") else ex.content()
            kept.append(text[:300])
    return out
