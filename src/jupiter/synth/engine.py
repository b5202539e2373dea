"""The generation engine: requests through a backend with bounded concurrency, batching
for local backends, retries with exponential backoff, and every answer cached in the store.

The cache key is hash(backend, model, prompt, sampling params, seed) and an answer is
written the moment it arrives, in its own transaction; a run killed at any point and
re-run repeats only the calls that were in flight, never one that was answered.

Only a well-formed answer is cached: one that is not text is reported as a reject
(`malformed:*`) and asked again by a later run, and a cached row that no longer parses
is dropped and asked again, so one bad answer never sticks in a workspace.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

from jupiter.store import Store
from jupiter.synth.backend import (
    Backend,
    Completion,
    MalformedAnswer,
    Request,
    cached_completion,
)
from jupiter.synth.http import BackendError, Retryable

# (index of the request, its completion or None when it failed, failure reason or "")
OnDone = Callable[[int, Completion | None, str], None]
CALL_FAILED = "llm_call_failed"
MALFORMED = "malformed:"  # the prefix of a reject reason: answered, but not usable
MALFORMED_COMPLETION = "malformed:completion"  # a local backend's answer of the wrong types


@dataclass
class EngineStats:
    requests: int = 0
    cache_hits: int = 0
    calls: int = 0  # backend calls that answered (a batch of 16 on a local backend is 16)
    retries: int = 0
    failures: int = 0
    malformed: int = 0  # answers that were not text (rejects, not cached)
    cache_dropped: int = 0  # cached rows that no longer parsed, asked again
    prompt_tokens: int = 0
    completion_tokens: int = 0
    started: float = 0.0

    @property
    def done(self) -> int:
        return self.cache_hits + self.calls + self.failures + self.malformed

    @property
    def tokens_per_s(self) -> float:
        return self.completion_tokens / max(time.perf_counter() - self.started, 1e-9)


@dataclass
class Retry:
    """Exponential backoff: base × 2^attempt, ±25 % jitter, capped; Retry-After wins."""

    max_retries: int = 5
    base: float = 0.5
    cap: float = 30.0

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.cap)
        return min(self.base * 2**attempt, self.cap) * random.uniform(0.75, 1.25)


def request_record(r: Request) -> dict[str, object]:
    return {
        "messages": [dict(m) for m in r.messages] if r.messages is not None else None,
        "prompt": r.prompt,
        "sampling": asdict(r.sampling),
    }


class Engine:
    """Runs requests through `backend`; answers are cached in `store` when one is given."""

    def __init__(
        self,
        backend: Backend,
        store: Store | None,
        concurrency: int = 8,
        retry: Retry | None = None,
    ) -> None:
        self.backend = backend
        self.store = store
        self.concurrency = max(1, concurrency)
        self.retry = retry or Retry()
        self.stats = EngineStats()

    def key(self, r: Request) -> str:
        return r.key(self.backend.name, self.backend.model)

    async def run(
        self,
        requests: Sequence[Request],
        on_done: OnDone,
        progress: Callable[[EngineStats], None] | None = None,
    ) -> EngineStats:
        """Answer every request once: cached ones at once, the rest through the backend.
        `on_done` is called for each, in completion order."""
        self.stats = EngineStats(requests=len(requests), started=time.perf_counter())
        await self.backend.check()  # unreachable or misconfigured: a clear error up front
        todo: asyncio.Queue[int] = asyncio.Queue()
        for i, r in enumerate(requests):
            hit = self.cached(r)
            if hit is not None:
                self.stats.cache_hits += 1
                on_done(i, hit, "")
            else:
                todo.put_nowait(i)
        if progress is not None:
            progress(self.stats)
        workers = [
            asyncio.create_task(self._worker(requests, todo, on_done, progress))
            for _ in range(min(self.concurrency, max(todo.qsize(), 1)))
        ]
        try:
            await asyncio.gather(*workers)
        finally:
            for w in workers:
                w.cancel()
        return self.stats

    def cached(self, r: Request) -> Completion | None:
        """The cached answer; a row that no longer parses is dropped, to be asked again."""
        if self.store is None:
            return None
        key = self.key(r)
        hit = self.store.cached_response(key)
        if hit is None:
            return None
        out = cached_completion(hit)
        if out is None:
            self.store.drop_cached_response(key)
            self.stats.cache_dropped += 1
        return out

    async def _worker(
        self,
        requests: Sequence[Request],
        todo: asyncio.Queue[int],
        on_done: OnDone,
        progress: Callable[[EngineStats], None] | None,
    ) -> None:
        while not todo.empty():
            batch = [todo.get_nowait()]
            while len(batch) < self.backend.max_batch and not todo.empty():
                batch.append(todo.get_nowait())
            results, reason = await self._call([requests[i] for i in batch])
            for i, out in zip(batch, results, strict=True):
                why = reason if out is None else "" if out.well_formed() else MALFORMED_COMPLETION
                if out is None or why:
                    if why.startswith(MALFORMED):
                        self.stats.malformed += 1
                    else:
                        self.stats.failures += 1
                    on_done(i, None, why)
                    continue
                self.stats.calls += 1
                self.stats.prompt_tokens += out.prompt_tokens
                self.stats.completion_tokens += out.completion_tokens
                if self.store is not None:
                    r = requests[i]
                    self.store.cache_response(
                        self.key(r),
                        self.backend.name,
                        self.backend.model,
                        request_record(r),
                        asdict(out),
                    )
                on_done(i, out, "")
            if progress is not None:
                progress(self.stats)

    async def _call(self, batch: list[Request]) -> tuple[list[Completion | None], str]:
        """The batch's completions, retried on retryable failures; after the last retry,
        or on a refusal, Nones and the reason."""
        for attempt in range(self.retry.max_retries + 1):
            try:
                return list(await self.backend.complete(batch)), ""
            except Retryable as err:
                if attempt == self.retry.max_retries:
                    return [None] * len(batch), f"{CALL_FAILED}: {err}"
                self.stats.retries += 1
                await asyncio.sleep(self.retry.delay(attempt, err.retry_after))
            except BackendError as err:
                return [None] * len(batch), f"{CALL_FAILED}: {err}"
            except MalformedAnswer as err:
                return [None] * len(batch), str(err)
        return [None] * len(batch), CALL_FAILED
