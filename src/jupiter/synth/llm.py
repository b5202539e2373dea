"""An LLM teacher as the cycle's generator: the recipes' requests through the engine,
each answer parsed strictly, filtered as it arrives, and queued at once.

Accepted examples land in the store while generation goes on, so a trainer reading the
queue can start before the run ends. Every answer becomes a row, kept or rejected with
its reason, so a re-run after a kill re-decides nothing and loses nothing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from jupiter.config import DomainConfig
from jupiter.filters import ACCEPTED, REJECTED, ExampleFilter
from jupiter.records import Chunk, Example
from jupiter.store import Store
from jupiter.synth.backend import Backend, Completion, Request, Sampling
from jupiter.synth.engine import MALFORMED, Engine, EngineStats, Retry
from jupiter.synth.outputs import Malformed
from jupiter.synth.recipes import Job, plan, to_example

FLUSH_EVERY = 0.5  # seconds between queue writes while answers stream in
PENDING = "pending"


@dataclass
class GenerationResult:
    requests: int = 0
    new: int = 0  # examples decided in this run (the rest were decided by an earlier one)
    counts: dict[str, int] = field(default_factory=dict)  # this run's decisions, by reason
    failed: int = 0  # calls that failed after every retry (re-run to try them again)
    malformed: int = 0  # answers that were not text: counted rejects, asked again next run
    failure: str = ""  # the last failed call's error, to show with the count
    stats: EngineStats = field(default_factory=EngineStats)


class QueueWriter:
    """Decides each answered job's example and writes them to the queue in small batches."""

    def __init__(
        self,
        store: Store,
        jobs: Sequence[Job],
        gen_id: str,
        cycle: int,
        decide: Callable[[Example], str],
        status_when_kept: str,
    ) -> None:
        self.store, self.jobs, self.gen_id, self.cycle = store, jobs, gen_id, cycle
        self.decide = decide
        self.kept_status = status_when_kept
        self.known = store.example_ids(cycle)  # decided by an earlier, interrupted run
        self.buffer: list[Example] = []
        self.last_flush = time.perf_counter()
        self.result = GenerationResult(requests=len(jobs))

    def count(self, reason: str) -> None:
        self.result.counts[reason] = self.result.counts.get(reason, 0) + 1

    def on_done(self, i: int, out: Completion | None, failure: str) -> None:
        if out is None and failure.startswith(MALFORMED):
            self.result.malformed += 1
            self.count(failure)
            return
        if out is None:
            self.result.failed += 1
            self.result.failure = failure
            self.count(failure.split(":")[0])
            return
        job = self.jobs[i]
        try:
            ex = to_example(job, out.text, out.finish_reason, self.gen_id, self.cycle)
            reason = ""
        except Malformed as err:
            # kept as a rejected row with the raw answer: the report shows what went wrong
            prompt = job.request.messages[-1]["content"] if job.request.messages else ""
            ex = Example(
                kind="qa",
                generator=self.gen_id,
                chunk_id=job.chunk.id,
                template=job.recipe,
                messages=[
                    {"role": "user", "content": prompt},
                    {"role": "assistant", "content": out.text},
                ],
                cycle=self.cycle,
            )
            reason = str(err)
        if ex.id in self.known:
            return
        self.known.add(ex.id)
        reason = reason or self.decide(ex)
        ex.status, ex.reason = (REJECTED, reason) if reason else (self.kept_status, "")  # type: ignore[assignment]
        self.count(reason or ACCEPTED)
        self.buffer.append(ex)
        self.result.new += 1
        if time.perf_counter() - self.last_flush >= FLUSH_EVERY:
            self.flush()

    def flush(self) -> None:
        if self.buffer:
            self.store.add_examples(self.buffer)
            self.buffer.clear()
        self.last_flush = time.perf_counter()


def generate_with_llm(
    store: Store,
    cfg: DomainConfig,
    chunks: Sequence[Chunk],
    backend: Backend,
    gen_id: str,
    cycle: int,
    seed: int,
    eval_texts: Sequence[str],
    keywords: Sequence[str],
    progress: Callable[[EngineStats], None] | None = None,
) -> GenerationResult:
    """Run the cycle's plan. With the judge on, kept examples wait as pending for the
    filter stage's judge; otherwise they are accepted as they arrive."""
    jobs = plan(chunks, cfg, seed)
    seen = [e for s in (ACCEPTED, "used") for e in store.iter_examples(status=s)]
    flt = ExampleFilter(cfg.filters, eval_texts, seen, cfg.language, keywords)
    kept = PENDING if cfg.filters.judge.enabled else ACCEPTED
    writer = QueueWriter(store, jobs, gen_id, cycle, flt.decide, kept)
    engine = Engine(
        backend,
        store,
        cfg.generator.llm.concurrency,
        Retry(max_retries=cfg.generator.llm.max_retries),
    )

    async def go() -> EngineStats:
        try:
            return await engine.run([j.request for j in jobs], writer.on_done, progress)
        finally:
            await backend.close()

    try:
        writer.result.stats = asyncio.run(go())
    finally:
        writer.flush()
        flt.close()
    return writer.result


# ---------------------------------------------------------------------------- exams
LETTERS = "ABCDEFGHIJ"


class LLMGenerator:
    """The teacher sitting the domain exam: open answers greedily, multiple choice by
    asking for the letter. Calls go through the engine, so a re-run exam is free."""

    def __init__(
        self,
        backend: Backend,
        gen_id: str,
        store: Store | None,
        max_tokens: int = 96,
        system_prompt: str = "",
        concurrency: int = 8,
    ) -> None:
        self.backend, self.id, self.store = backend, gen_id, store
        self.max_tokens = max_tokens
        self.system_prompt = system_prompt
        self.concurrency = concurrency
        # one loop for every question: the backend's connections, locks and loaded model
        # live across calls; close() ends them
        self._loop = asyncio.new_event_loop()

    def _ask(self, prompts: Sequence[str], max_tokens: int) -> list[str]:
        sampling = Sampling(max_tokens=max_tokens, temperature=0.0, seed=0)
        system = ({"role": "system", "content": self.system_prompt},) if self.system_prompt else ()
        requests = [
            Request(messages=(*system, {"role": "user", "content": p}), sampling=sampling)
            for p in prompts
        ]
        answers = [""] * len(requests)

        def done(i: int, out: Completion | None, _: str) -> None:
            answers[i] = out.text.strip() if out is not None else ""

        engine = Engine(self.backend, self.store, self.concurrency)
        self._loop.run_until_complete(engine.run(requests, done))
        return answers

    def close(self) -> None:
        if not self._loop.is_closed():
            self._loop.run_until_complete(self.backend.close())
            self._loop.close()

    def answer(self, questions: Sequence[str]) -> list[str]:
        return self._ask(questions, self.max_tokens)

    def choose(self, question: str, choices: Sequence[str]) -> int:
        options = "\n".join(f"{LETTERS[i]}. {c}" for i, c in enumerate(choices))
        prompt = f"{question}\n\n{options}\n\nAnswer with the letter of the correct option only."
        reply = self._ask([prompt], 4)[0].upper()
        for ch in reply:
            if ch in LETTERS[: len(choices)]:
                return LETTERS.index(ch)
        return 0
