"""An LLM teacher's phrasings: the knowledge recipe's questions in a user's words.

For each accepted single-turn Q&A the teacher writes `generator.rephrase.count` more
questions that the same answer answers (config/recipes/rephrase.j2): a task or situation
that asks what to use, the fact asked from the other direction, other words. The answer
stays the one the filters accepted, so the teacher adds wordings, never facts (a fact seen
in several phrasings is one a model can recall when asked in another: Allen-Zhu & Li 2023,
Physics of Language Models 3.1). The templated phrasings of train.knowledge need no LLM;
these are what a teacher adds beside them.

Each question is checked here (length, not a copy of its source or of a sibling, the
answer not given away in it), then by the filters like any example (improve/rephrasing.py).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

from jupiter.config import DomainConfig, LLMConfig
from jupiter.records import Chunk, Example
from jupiter.synth import outputs
from jupiter.synth.backend import Request, Sampling
from jupiter.synth.outputs import Malformed
from jupiter.synth.recipes import (
    LANGUAGES,
    SYSTEM,
    TEXT,
    _object,
    load_template,
    render,
    template_path,
)

REPHRASE = "rephrase"  # the template name of the examples a teacher's phrasings become
MIN_WORDS, MAX_WORDS = 4, 80  # a question's length in words
MAX_OVERLAP = 0.8  # word Jaccard with the source's question or a sibling: a copy
TOO_SHORT_OR_LONG = "rephrase_length"
COPY = "rephrase_copy"
LEAK = "rephrase_gives_answer"
NO_QUESTIONS = "malformed:missing_field:questions"
EMPTY = "malformed:empty_field:questions"
WORD = re.compile(r"\w+")


def schema(count: int) -> dict[str, object]:
    """The answer's JSON schema (for servers that decode to one: llm.response_format)."""
    return _object(questions={"type": "array", "items": TEXT, "minItems": 1, "maxItems": count})


def rephrasable(ex: Example) -> bool:
    """A closed-book, single-turn Q&A not itself a phrasing: RAFT's open-book examples carry
    passages in their question, and a dialogue has no one answer to keep."""
    turns = [m for m in ex.messages if m.get("role") != "system"]
    return (
        ex.kind == "qa"
        and len(turns) == 2
        and [m["role"] for m in turns] == ["user", "assistant"]
        and ex.template != REPHRASE
        and not ex.template.startswith("raft:")
        and bool(ex.question.strip() and ex.answer.strip())
    )


def pick_sources(examples: Sequence[Example], limit: int | None, seed: int) -> list[Example]:
    """The Q&A to rephrase, by id; at most `limit`, a seeded draw (None: all)."""
    pool = sorted((e for e in examples if rephrasable(e)), key=lambda e: e.id)
    if limit is not None and len(pool) > limit:
        pool = sorted(random.Random(f"{seed}:rephrase").sample(pool, limit), key=lambda e: e.id)
    return pool


@dataclass(frozen=True)
class RephraseJob:
    request: Request
    source: Example


def request_seed(seed: int, source: Example) -> int:
    """A sampling seed of the source's own: adding sources changes no other request (each
    answered one stays in the cache)."""
    return seed * 1_000_003 + int(hashlib.sha256(source.id.encode()).hexdigest()[:8], 16)


def plan(
    sources: Sequence[Example],
    cfg: DomainConfig,
    llm: LLMConfig,
    chunks: dict[str, Chunk],
    seed: int,
) -> list[RephraseJob]:
    """One request per source: its passage, question and answer in the recipe's prompt."""
    rc = cfg.generator.rephrase
    path = template_path(REPHRASE, rc.template, cfg)
    template = load_template(path)
    language = LANGUAGES.get(cfg.language, cfg.language)
    fmt = llm.response_format
    sch = "" if fmt == "text" else json.dumps(schema(rc.count))
    jobs: list[RephraseJob] = []
    for ex in sources:
        chunk = chunks.get(ex.chunk_id)
        text = render(
            template,
            path,
            domain=cfg.name,
            description=cfg.description,
            topics=cfg.topics,
            language=language,
            title=chunk.title if chunk else "",
            uri=chunk.uri if chunk else "",
            passage=chunk.text if chunk else "",
            question=ex.question,
            answer=ex.answer,
            count=rc.count,
        )
        sampling = Sampling(
            max_tokens=llm.max_tokens,
            temperature=llm.temperature,
            top_p=llm.top_p,
            seed=request_seed(seed, ex),
            schema=sch,
            schema_form="" if fmt == "text" else fmt,
        )
        messages = ({"role": "system", "content": SYSTEM}, {"role": "user", "content": text})
        jobs.append(RephraseJob(Request(messages=messages, sampling=sampling), ex))
    return jobs


def parse_questions(text: str, finish_reason: str, count: int) -> list[str]:
    """The teacher's questions (at most `count`, whitespace collapsed), or Malformed."""
    obj = outputs.json_object(text, finish_reason)
    value = obj.get("questions")
    if not isinstance(value, list):
        raise Malformed(NO_QUESTIONS)
    got = [" ".join(q.split()) for q in value if isinstance(q, str) and q.strip()]
    if not got:
        raise Malformed(EMPTY)
    return got[:count]


def _words(text: str) -> set[str]:
    return set(WORD.findall(text.lower()))


def overlap(a: str, b: str) -> float:
    wa, wb = _words(a), _words(b)
    return len(wa & wb) / len(wa | wb) if wa | wb else 1.0


def question_reason(question: str, source: Example, siblings: Sequence[str]) -> str:
    """Why a written question is not kept ("" = keep): a copy of the source's question or
    of a question kept before it, its length, or the answer given away in it."""
    if any(overlap(question, q) >= MAX_OVERLAP for q in (source.question, *siblings)):
        return COPY
    if not MIN_WORDS <= len(WORD.findall(question)) <= MAX_WORDS:
        return TOO_SHORT_OR_LONG
    answer = outputs.normalized(source.answer)
    if answer and f" {answer} " in f" {outputs.normalized(question)} ":
        return LEAK
    return ""


def rephrased(source: Example, question: str, gen_id: str, cycle: int) -> Example:
    """The source's answer (and system turn, if any) under the teacher's question; its
    generator names both authors: "<source's generator>+<teacher>" (the answer's, the
    question's)."""
    system = [m for m in source.messages if m.get("role") == "system"]
    return Example(
        kind="qa",
        generator=f"{source.generator}+{gen_id}",
        chunk_id=source.chunk_id,
        template=REPHRASE,
        messages=[
            *system,
            {"role": "user", "content": question},
            {"role": "assistant", "content": source.answer},
        ],
        cycle=cycle,
        span=source.span,
    )


def answer_examples(
    job: RephraseJob, text: str, finish_reason: str, count: int, gen_id: str, cycle: int
) -> list[tuple[Example, str]]:
    """(example, reject reason or "") for each question of one answer; a malformed answer
    is one rejected row holding what the teacher wrote, for the report."""
    try:
        questions = parse_questions(text, finish_reason, count)
    except Malformed as err:
        prompt = job.request.messages[-1]["content"] if job.request.messages else ""
        raw = Example(
            kind="qa",
            generator=gen_id,
            chunk_id=job.source.chunk_id,
            template=REPHRASE,
            messages=[{"role": "user", "content": prompt}, {"role": "assistant", "content": text}],
            cycle=cycle,
        )
        return [(raw, str(err))]
    out: list[tuple[Example, str]] = []
    kept: list[str] = []
    for q in questions:
        reason = question_reason(q, job.source, kept)
        if not reason:
            kept.append(q)
        out.append((rephrased(job.source, q, gen_id, cycle), reason))
    return out


__all__ = ["REPHRASE", "answer_examples", "pick_sources", "plan", "rephrasable"]
