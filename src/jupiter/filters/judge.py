"""LLM-as-judge: a rubric score from 1 to 5 for each example through any generator backend
(config/recipes/judge.j2), and a threshold below which the example is dropped.

Judge calls go through the generation engine, so they are cached like any other call: a
re-run filter stage asks the judge nothing twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from jupiter.config import DomainConfig, LLMConfig
from jupiter.records import Chunk, Example
from jupiter.store import Store
from jupiter.synth.backend import Backend, Completion, Request, Sampling
from jupiter.synth.engine import Engine, Retry
from jupiter.synth.outputs import Malformed, judge_score
from jupiter.synth.recipes import LANGUAGES, load_template, render, template_path

JUDGE_LOW = "judge_low_score"
JUDGE_MALFORMED = "judge_malformed"
JUDGE_FAILED = "judge_call_failed"
JUDGE_REASONS = (JUDGE_LOW, JUDGE_MALFORMED, JUDGE_FAILED)
JUDGE_MAX_TOKENS = 160
SYSTEM = "You are a strict, fair grader. You reply with one JSON object and nothing else."


def judge_llm(cfg: DomainConfig) -> LLMConfig:
    """The judge's own `llm:`, else the generator's."""
    return cfg.filters.judge.llm or cfg.generator.llm


def judge_requests(
    examples: Sequence[Example], cfg: DomainConfig, chunks: dict[str, Chunk]
) -> list[Request]:
    path = template_path("judge", cfg.filters.judge.template, cfg)
    template = load_template(path)
    language = LANGUAGES.get(cfg.language, cfg.language)
    sampling = Sampling(max_tokens=JUDGE_MAX_TOKENS, temperature=0.0, seed=0)
    out: list[Request] = []
    for ex in examples:
        turns = [m for m in ex.messages if m["role"] != "system"]
        prompt = "\n\n".join(m["content"] for m in turns if m["role"] == "user") or ex.text
        response = "\n\n".join(m["content"] for m in turns if m["role"] == "assistant")
        chunk = chunks.get(ex.chunk_id)
        text = render(
            template,
            path,
            domain=cfg.name,
            language=language,
            prompt=prompt,
            response=response or ex.text,
            passage=chunk.text if chunk else "",
        )
        messages = ({"role": "system", "content": SYSTEM}, {"role": "user", "content": text})
        out.append(Request(messages=messages, sampling=sampling))
    return out


def judge_examples(
    examples: Sequence[Example],
    cfg: DomainConfig,
    backend: Backend,
    store: Store | None,
    chunks: dict[str, Chunk],
) -> tuple[list[str], list[int | None]]:
    """(reason or "" per example, score or None per example), in input order."""
    requests = judge_requests(examples, cfg, chunks)
    reasons = [""] * len(examples)
    scores: list[int | None] = [None] * len(examples)
    threshold = cfg.filters.judge.threshold

    def done(i: int, out: Completion | None, _: str) -> None:
        if out is None:
            reasons[i] = JUDGE_FAILED
            return
        try:
            score, _why = judge_score(out.text, out.finish_reason)
        except Malformed:
            reasons[i] = JUDGE_MALFORMED
            return
        scores[i] = score
        reasons[i] = JUDGE_LOW if score < threshold else ""

    llm = judge_llm(cfg)
    engine = Engine(backend, store, llm.concurrency, Retry(max_retries=llm.max_retries))

    async def go() -> None:
        try:
            await engine.run(requests, done)
        finally:
            await backend.close()

    if requests:
        asyncio.run(go())
    return reasons, scores
