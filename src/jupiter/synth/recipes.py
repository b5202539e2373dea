"""Task recipes: editable Jinja2 prompt templates (config/recipes/*.j2) and the plan of
requests an LLM generator sends in a cycle, with the strict parser of each recipe's answer.

The plan is a pure function of the chunks, the tasks and the seed, so a killed run, re-run,
asks the very same requests, and every one already answered comes from the cache.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from jupiter.config import DomainConfig, LLMConfig, TaskConfig, config_roots
from jupiter.errors import JupiterError
from jupiter.records import Chunk, Example
from jupiter.synth import outputs
from jupiter.synth.backend import Request, Sampling
from jupiter.synth.outputs import Malformed

RECIPES = ("grounded_qa", "explanation", "code_exercise", "evol_instruct", "multi_turn")
EVOLUTIONS = ("deepen", "concretize", "add_constraints")  # Evol-Instruct's in-depth ops
DIALOGUE_TURNS = 3  # asked for
MIN_TURNS = 2  # accepted
MIN_GROUNDED_SHARE = 0.5  # of an answer's content words found in the passage
SYSTEM = (
    "You write high-quality training data for an expert assistant. You follow the output "
    "format exactly: one JSON object, nothing else."
)
LANGUAGES = {
    "en": "English",
    "es": "Spanish",
    "fr": "French",
    "de": "German",
    "it": "Italian",
    "pt": "Portuguese",
    "nl": "Dutch",
    "pl": "Polish",
    "ru": "Russian",
    "uk": "Ukrainian",
    "zh": "Chinese",
    "ja": "Japanese",
    "ko": "Korean",
    "ar": "Arabic",
    "hi": "Hindi",
    "tr": "Turkish",
    "sv": "Swedish",
    "da": "Danish",
    "fi": "Finnish",
    "no": "Norwegian",
    "cs": "Czech",
    "el": "Greek",
    "he": "Hebrew",
    "id": "Indonesian",
    "vi": "Vietnamese",
    "ca": "Catalan",
    "ro": "Romanian",
    "hu": "Hungarian",
}


def _object(**fields: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": fields,
        "required": list(fields),
        "additionalProperties": False,
    }


TEXT = {"type": "string", "minLength": 1}
# each recipe's answer as a JSON schema, for servers that decode to one (llm.response_format)
SCHEMAS: dict[str, dict[str, Any]] = {
    "grounded_qa": _object(question=TEXT, answer=TEXT),
    "explanation": _object(instruction=TEXT, response=TEXT),
    "code_exercise": _object(exercise=TEXT, solution=TEXT),
    "evol_instruct": _object(instruction=TEXT, response=TEXT),
    "multi_turn": _object(
        turns={"type": "array", "minItems": MIN_TURNS, "items": _object(user=TEXT, assistant=TEXT)}
    ),
}


def template_path(name: str, override: str, cfg: DomainConfig | None = None) -> Path:
    """An edited template (relative to the domain YAML), else recipes/<name>.j2 from the
    first config root that has it (./config shadows the shipped copy)."""
    if override:
        p = cfg.resolve(override) if cfg is not None else Path(override)
        if not p.is_file():
            raise JupiterError(f"recipe template not found: {p} (fix the task's template:)")
        return p
    for root in config_roots():
        p = root / "recipes" / f"{name}.j2"
        if p.is_file():
            return p
    raise JupiterError(f"no template for recipe '{name}': expected config/recipes/{name}.j2")


def load_template(path: Path) -> jinja2.Template:
    env = jinja2.Environment(
        undefined=jinja2.StrictUndefined, keep_trailing_newline=False, autoescape=False
    )
    try:
        return env.from_string(path.read_text(encoding="utf-8"))
    except jinja2.TemplateSyntaxError as err:
        raise JupiterError(f"{path}:{err.lineno}: template syntax error: {err.message}") from None


def render(template: jinja2.Template, path: Path, **values: Any) -> str:
    try:
        return template.render(**values).strip()
    except jinja2.UndefinedError as err:
        raise JupiterError(
            f"{path}: {err.message}; a recipe template may use: {', '.join(sorted(values))}"
        ) from None


@dataclass(frozen=True)
class Job:
    """One planned request and what its answer becomes."""

    request: Request
    recipe: str
    chunk: Chunk
    seed_instruction: str = ""


def task_counts(tasks: Sequence[TaskConfig], total: int) -> list[int]:
    """Requests per task: `count` where given, else `total` shared by weight."""
    weights = [t.weight for t in tasks if t.count is None]
    denom = sum(weights) or 1.0
    return [t.count if t.count is not None else round(total * t.weight / denom) for t in tasks]


def seed_instruction(chunk: Chunk, seed: int) -> str:
    """A plain instruction about the chunk for Evol-Instruct to evolve: a template question
    of the extractive generator, or a request to explain the chunk's subject."""
    from jupiter.synth.questions import TEMPLATES, make_questions

    qs = make_questions(chunk, list(TEMPLATES), 1, random.Random(f"{seed}:{chunk.id}"))
    return qs[0].question if qs else f"Explain {chunk.title or 'this topic'}."


def plan(chunks: Sequence[Chunk], cfg: DomainConfig, seed: int) -> list[Job]:
    """Every request of the cycle, in a fixed order: per task, chunks drawn without
    replacement (cycling when a task wants more than there are) from a seeded shuffle."""
    gen = cfg.generator
    train = [c for c in chunks if c.split == "train"]
    if not train:
        return []
    jobs: list[Job] = []
    counts = task_counts(gen.tasks, gen.num_requests)
    for t_index, (task, count) in enumerate(zip(gen.tasks, counts, strict=True)):
        path = template_path(task.recipe, task.template, cfg)
        template = load_template(path)
        order = list(train)
        random.Random(f"{seed}:{t_index}:{task.recipe}").shuffle(order)
        temperature = task.temperature if task.temperature is not None else gen.llm.temperature
        language = task.language or cfg.language
        for i in range(count):
            chunk = order[i % len(order)]
            values: dict[str, Any] = {
                "domain": cfg.name,
                "description": cfg.description,
                "topics": task.topics or cfg.topics,
                "language": LANGUAGES.get(language, language),
                "title": chunk.title,
                "uri": chunk.uri,
                "passage": chunk.text,
                "turns": DIALOGUE_TURNS,
                "seed_instruction": "",
                "operation": "",
            }
            if task.recipe == "evol_instruct":
                values["seed_instruction"] = seed_instruction(chunk, seed)
                values["operation"] = EVOLUTIONS[i % len(EVOLUTIONS)]
            messages = (
                {"role": "system", "content": task.system_prompt or SYSTEM},
                {"role": "user", "content": render(template, path, **values)},
            )
            schema, schema_form = schema_fields(task.recipe, gen.llm)
            sampling = Sampling(
                max_tokens=gen.llm.max_tokens,
                temperature=temperature,
                top_p=gen.llm.top_p,
                seed=seed * 1_000_003 + len(jobs),
                schema=schema,
                schema_form=schema_form,
            )
            jobs.append(
                Job(
                    Request(messages=messages, sampling=sampling),
                    task.recipe,
                    chunk,
                    values["seed_instruction"],
                )
            )
    return jobs


def schema_fields(recipe: str, llm: LLMConfig) -> tuple[str, str]:
    """Sampling's (schema, schema_form) asking the server for `recipe`'s schema, or empty
    strings (free text)."""
    if llm.response_format == "text":
        return "", ""
    return json.dumps(SCHEMAS[recipe]), llm.response_format


def chat(user: str, assistant: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]


def parse_answer(job: Job, text: str, finish_reason: str) -> list[dict[str, str]]:
    """The example's messages from the teacher's answer; raises Malformed with the reason."""
    obj = outputs.json_object(text, finish_reason)
    if job.recipe == "grounded_qa":
        question, answer = outputs.pair(obj, ("question", "answer"))
        outputs.check_grounded(answer, job.chunk, MIN_GROUNDED_SHARE)
        return chat(question, answer)
    if job.recipe == "explanation":
        return chat(*outputs.pair(obj, ("instruction", "response")))
    if job.recipe == "code_exercise":
        exercise, solution = outputs.pair(obj, ("exercise", "solution"))
        outputs.check_code(solution)
        return chat(exercise, solution)
    if job.recipe == "evol_instruct":
        instruction, response = outputs.pair(obj, ("instruction", "response"))
        outputs.check_evolved(instruction, job.seed_instruction)
        return chat(instruction, response)
    if job.recipe == "multi_turn":
        return outputs.dialogue(obj, min_turns=MIN_TURNS)
    raise JupiterError(f"unknown recipe '{job.recipe}': expected one of {', '.join(RECIPES)}")


def to_example(job: Job, text: str, finish_reason: str, gen_id: str, cycle: int) -> Example:
    """The training example, or Malformed(reason)."""
    messages = parse_answer(job, text, finish_reason)
    return Example(
        kind="qa",
        generator=gen_id,
        chunk_id=job.chunk.id,
        template=job.recipe,
        messages=messages,
        cycle=cycle,
    )


__all__ = ["Job", "Malformed", "RECIPES", "parse_answer", "plan", "to_example"]
