"""Multiple-choice distractors written by an LLM teacher (config/recipes/distractors.j2).

Hard distractors (eval/mc.py) are other items' answers, so a question whose type has few
neighbours gets choices of another type, which give the answer away. A teacher writes
wrong answers of the question's own kind. Each one is checked (not empty, not the answer,
neither containing it nor contained in it, not a repeat, of a length near the answer's: a
choice much longer or shorter than the others is a known give-away, Millman, Bishop & Ebel
1965, "An analysis of test-wiseness"); an item left with too few is topped up with its
hard distractors. Every rejected reply and distractor is counted by reason, and the
choices are shuffled with a seed per item.

Calls go through the engine, so they are cached in the store like any other call; a
request already answered there is never sent again.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from jupiter.eval.mc import hard_distractors
from jupiter.eval.qa import QAItem, normalize_answer
from jupiter.models.folder import sha256_file
from jupiter.store import Store
from jupiter.synth import outputs
from jupiter.synth.backend import Backend, Completion, Request, Sampling, cached_completion
from jupiter.synth.outputs import Malformed
from jupiter.synth.recipes import load_template, render

RECIPE = "distractors"
SYSTEM = (
    "You write multiple-choice exam questions. You follow the output format exactly: one "
    "JSON object, nothing else."
)
PASSAGE_CHARS = 2000  # of the source passage shown to the teacher
# a distractor's length in characters: at most LENGTH_RATIO times the answer's plus
# LENGTH_SLACK (and the answer's at most as much of the distractor's), so "None" may stand
# beside "0" but a paragraph may not stand beside a name
LENGTH_RATIO, LENGTH_SLACK = 3.0, 12

# reasons, counted per distractor unless said otherwise
USED = "llm"  # a teacher's distractor among the choices
TOPPED_UP = "topped_up"  # a hard distractor in the place of a missing one
ITEMS_TOPPED_UP = "items_topped_up"  # per item: items with at least one top-up
EMPTY = "distractor_empty"
IS_ANSWER = "distractor_is_answer"
OVERLAPS = "distractor_overlaps_answer"  # contains the answer or is contained in it
DUP = "distractor_dup"
LENGTH = "distractor_length"
SURPLUS = "distractor_surplus"  # valid, beyond the n - 1 asked for
# per reply: outputs.py's malformed:* reasons, malformed:distractors (no list under the
# key), and llm_call_failed (the engine gave up on the call)
NO_LIST = "malformed:distractors"
CALL_FAILED = "llm_call_failed"


@dataclass(frozen=True)
class Teacher:
    """The LLM that writes distractors, and how to call it."""

    backend: Backend
    store: Store | None
    concurrency: int = 4
    max_retries: int = 2
    max_tokens: int = 512


@dataclass(frozen=True)
class Recipe:
    """The prompt template and what it is filled with besides the item."""

    path: Path
    domain: str
    language: str = "English"


def distractor_requests(
    items: Sequence[QAItem],
    passages: Mapping[str, str],
    recipe: Recipe,
    n: int,
    max_tokens: int,
    seed: int,
) -> list[Request]:
    """One greedy request per item, asking for `n` wrong answers."""
    template = load_template(recipe.path)
    sampling = Sampling(max_tokens=max_tokens, temperature=0.0, seed=seed)
    out: list[Request] = []
    for it in items:
        text = render(
            template,
            recipe.path,
            domain=recipe.domain,
            language=recipe.language,
            question=it.question,
            answer=it.answer,
            n=n,
            passage=passages.get(it.id, "").strip()[:PASSAGE_CHARS],
        )
        messages = ({"role": "system", "content": SYSTEM}, {"role": "user", "content": text})
        out.append(Request(messages=messages, sampling=sampling))
    return out


def parse_distractors(text: str, finish_reason: str = "stop") -> list[Any]:
    """The reply's `distractors` list, unchecked; raises Malformed with the reason."""
    value = outputs.json_object(text, finish_reason).get(RECIPE)
    if not isinstance(value, list):
        raise Malformed(NO_LIST)
    return value


def _reject(answer: str, candidate: Any, taken: set[str]) -> str:
    """Why `candidate` cannot be a distractor of `answer` ("" when it can)."""
    if not isinstance(candidate, str) or not normalize_answer(candidate):
        return EMPTY
    key, ref = normalize_answer(candidate), normalize_answer(answer)
    if key == ref:
        return IS_ANSWER
    if f" {ref} " in f" {key} " or f" {key} " in f" {ref} ":
        return OVERLAPS
    if key in taken:
        return DUP
    a, d = len(answer.strip()), len(candidate.strip())
    if d > LENGTH_RATIO * a + LENGTH_SLACK or a > LENGTH_RATIO * d + LENGTH_SLACK:
        return LENGTH
    return ""


def check_distractors(answer: str, raw: Sequence[Any], k: int, counts: Counter[str]) -> list[str]:
    """The first `k` valid distractors of `raw`, stripped; each rejected one counted."""
    taken: set[str] = set()
    out: list[str] = []
    for candidate in raw:
        reason = _reject(answer, candidate, taken)
        if not reason and len(out) == k:
            reason = SURPLUS
        if reason:
            counts[reason] += 1
            continue
        taken.add(normalize_answer(candidate))
        out.append(candidate.strip())
    return out


def ask(teacher: Teacher, requests: Sequence[Request]) -> list[tuple[Completion | None, str]]:
    """(completion or None, failure reason) per request. Requests answered before come
    from the store's cache without a call; the backend is only opened for the rest."""
    from jupiter.synth.engine import Engine, Retry

    backend, store = teacher.backend, teacher.store
    got: list[tuple[Completion | None, str]] = [(None, "")] * len(requests)
    todo: list[int] = []
    for i, r in enumerate(requests):
        hit = store.cached_response(r.key(backend.name, backend.model)) if store else None
        cached = cached_completion(hit) if hit is not None else None
        if cached is not None:
            got[i] = (cached, "")
        else:  # a miss, or a row that no longer parses: the engine drops it and asks again
            todo.append(i)

    def done(j: int, out: Completion | None, failure: str) -> None:
        got[todo[j]] = (out, failure)

    async def go() -> None:
        engine = Engine(backend, store, teacher.concurrency, Retry(teacher.max_retries))
        try:
            await engine.run([requests[i] for i in todo], done)
        finally:
            await backend.close()

    if todo:
        asyncio.run(go())
    return got


def shuffled(item: QAItem, distractors: Sequence[str], seed: int) -> QAItem:
    """The item with its answer among `distractors` in a seeded order of its own."""
    choices = [item.answer, *distractors]
    order = list(range(len(choices)))
    random.Random(f"{seed}:{item.id}:choices").shuffle(order)
    return replace(item, choices=tuple(choices[i] for i in order), answer_index=order.index(0))


def _top_up(valid: list[str], hard: Sequence[str], k: int) -> int:
    """Append hard distractors to `valid` until it has `k` (none repeating one there);
    returns how many were added."""
    taken = {normalize_answer(d) for d in valid}
    added = 0
    for d in hard:
        if len(valid) >= k:
            break
        if normalize_answer(d) not in taken:
            valid.append(d)
            taken.add(normalize_answer(d))
            added += 1
    return added


def with_choices(
    items: Sequence[QAItem],
    replies: Sequence[tuple[Completion | None, str]],
    pool: Sequence[QAItem],
    n_choices: int,
    seed: int,
) -> tuple[list[QAItem], dict[str, int]]:
    """`items` with `choices` and `answer_index`: the teacher's valid distractors of each
    one's reply (in item order), topped up with hard ones drawn from `pool` as build_mc
    draws them; counts by reason."""
    k = n_choices - 1
    # twice as many hard ones as needed: some may repeat one the teacher wrote
    hard = hard_distractors(pool, 2 * k, seed)
    counts: Counter[str] = Counter()
    out: list[QAItem] = []
    for item, (reply, failure) in zip(items, replies, strict=True):
        valid: list[str] = []
        if reply is None:
            counts[failure.split(":")[0] or CALL_FAILED] += 1
        else:
            try:
                raw = parse_distractors(reply.text, reply.finish_reason)
                valid = check_distractors(item.answer, raw, k, counts)
            except Malformed as err:
                counts[str(err)] += 1
        counts[USED] += len(valid)
        added = _top_up(valid, hard[item.id], k)
        counts[TOPPED_UP] += added
        counts[ITEMS_TOPPED_UP] += int(added > 0)
        out.append(shuffled(item, valid, seed))
    return out, {r: c for r, c in sorted(counts.items()) if c}


def teacher_choices(
    items: Sequence[QAItem],
    teacher: Teacher,
    recipe: Recipe,
    passages: Mapping[str, str],
    n_choices: int,
    seed: int,
) -> tuple[list[QAItem], dict[str, Any]]:
    """Items without choices get the teacher's (items with their own keep them), and what
    the choices came from: {"source": "llm", "teacher", "recipe", "recipe_sha256",
    "n_choices", "seed", "items", "counts"}."""
    todo = [it for it in items if not it.choices]
    requests = distractor_requests(todo, passages, recipe, n_choices - 1, teacher.max_tokens, seed)
    replies = ask(teacher, requests) if todo else []
    made, counts = with_choices(todo, replies, items, n_choices, seed)
    by_id = {it.id: it for it in made}
    out = [it if it.choices else by_id[it.id] for it in items]
    info = {
        "source": "llm",
        "teacher": f"{teacher.backend.name}:{teacher.backend.model}",
        "recipe": recipe.path.name,
        "recipe_sha256": sha256_file(recipe.path),
        "n_choices": n_choices,
        "seed": seed,
        "items": len(todo),
        "counts": counts,
    }
    return out, info


SOURCES = {
    "hard": "hard (other items' answers of the same type, source kind and topic)",
    "random": "random (other items' answers)",
    "given": "as given in the eval file (its items' own choices)",
}


def describe(info: Mapping[str, Any] | None) -> str:
    """One line on where the MC distractors came from, for the eval report."""
    info = info or {"source": "hard"}
    source = str(info.get("source"))
    given = f"; {info['given']} items with their own choices" if info.get("given") else ""
    if source != "llm":
        return f"multiple-choice distractors: {SOURCES.get(source, source)}{given}"
    counts = info.get("counts") or {}
    sha = str(info.get("recipe_sha256", ""))[:12]
    where = f"; choices in {info['path']}" if info.get("path") else ""
    return (
        f"multiple-choice distractors: written by {info['teacher']} (recipe {info['recipe']} "
        f"{sha}) for {info['items']} items, {counts.get(USED, 0)} used; "
        f"{counts.get(TOPPED_UP, 0)} hard ones topped up on {counts.get(ITEMS_TOPPED_UP, 0)} "
        f"items{given}{where}"
    )
