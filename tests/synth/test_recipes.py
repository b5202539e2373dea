"""Task recipes: the plan is deterministic and weighted, templates are editable, and every
malformed or failing answer is rejected with its reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupiter.config import DomainConfig
from jupiter.errors import JupiterError
from jupiter.records import Chunk
from jupiter.synth import outputs
from jupiter.synth.outputs import Malformed
from jupiter.synth.recipes import Job, plan, task_counts, to_example

TEXT = (
    "The cache module stores the results of expensive calls. Each entry expires after "
    "the configured time to live. The clear function empties the whole cache at once."
)


def chunks(n: int = 4) -> list[Chunk]:
    return [Chunk(f"d{i}", "local", f"doc{i}.md", f"Doc {i}", 0, len(TEXT), TEXT) for i in range(n)]


def domain(tmp_path: Path, tasks: list[dict[str, object]], **extra: object) -> DomainConfig:
    cfg = DomainConfig.model_validate(
        {
            "name": "cachey",
            "language": "es",
            "topics": ["caching"],
            "sources": [{"type": "local", "path": "."}],
            "generator": {"type": "llm", "num_requests": 10, "tasks": tasks},
            **extra,
        }
    )
    cfg.base_dir = tmp_path
    return cfg


def job(recipe: str, seed_instruction: str = "") -> Job:
    cfg = domain(Path("."), [{"recipe": recipe, "count": 1}])
    j = plan(chunks(1), cfg, seed=0)[0]
    return Job(j.request, recipe, j.chunk, seed_instruction or j.seed_instruction)


def reject(j: Job, text: str, finish: str = "stop") -> str:
    with pytest.raises(Malformed) as err:
        to_example(j, text, finish, "llm:t", 1)
    return str(err.value)


def test_plan_is_deterministic_weighted_and_renders_the_templates(tmp_path: Path) -> None:
    cfg = domain(
        tmp_path,
        [
            {"recipe": "grounded_qa", "weight": 3},
            {"recipe": "explanation", "weight": 1},
            {"recipe": "multi_turn", "count": 2},
        ],
    )
    assert task_counts(cfg.generator.tasks, 10) == [8, 2, 2]
    jobs = plan(chunks(), cfg, seed=5)
    assert [j.recipe for j in jobs] == ["grounded_qa"] * 8 + ["explanation"] * 2 + [
        "multi_turn"
    ] * 2
    assert [j.request for j in jobs] == [j.request for j in plan(chunks(), cfg, seed=5)]
    assert [j.request for j in jobs] != [j.request for j in plan(chunks(), cfg, seed=6)]
    seeds = {j.request.sampling.seed for j in jobs}
    assert len(seeds) == 12  # every request is its own cache entry
    system, user = jobs[0].request.messages  # type: ignore[misc]
    assert system["role"] == "system" and "JSON" in system["content"]
    assert "<passage>\n" + TEXT + "\n</passage>" in user["content"]
    assert "Write both in Spanish." in user["content"] and "caching" in user["content"]
    # the 4 chunks are used once each before any is used twice
    assert len({j.chunk.doc_id for j in jobs[:4]}) == 4


def test_an_edited_template_replaces_the_shipped_one(tmp_path: Path) -> None:
    (tmp_path / "mine.j2").write_text("Ask about {{ title }} in {{ language }}: {{ passage }}")
    cfg = domain(
        tmp_path,
        [
            {
                "recipe": "grounded_qa",
                "count": 1,
                "template": "mine.j2",
                "system_prompt": "Be brief.",
            }
        ],
    )
    (j,) = plan(chunks(1), cfg, seed=0)
    assert j.request.messages == (
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": f"Ask about Doc 0 in Spanish: {TEXT}"},
    )
    (tmp_path / "bad.j2").write_text("{{ nonexistent }}")
    bad = domain(tmp_path, [{"recipe": "grounded_qa", "count": 1, "template": "bad.j2"}])
    with pytest.raises(JupiterError, match="'nonexistent' is undefined.*may use: .*passage"):
        plan(chunks(1), bad, seed=0)
    missing = domain(tmp_path, [{"recipe": "grounded_qa", "count": 1, "template": "no.j2"}])
    with pytest.raises(JupiterError, match="recipe template not found"):
        plan(chunks(1), missing, seed=0)


def test_grounded_qa_parses_strictly() -> None:
    j = job("grounded_qa")
    good = {
        "question": "When does a cache entry expire?",
        "answer": "Each entry expires after the configured time to live.",
    }
    ex = to_example(j, "```json\n" + json.dumps(good) + "\n```", "stop", "llm:t", 3)
    assert ex.messages == [
        {"role": "user", "content": good["question"]},
        {"role": "assistant", "content": good["answer"]},
    ]
    assert (ex.template, ex.chunk_id, ex.cycle, ex.generator) == (
        "grounded_qa",
        j.chunk.id,
        3,
        "llm:t",
    )
    assert reject(j, "Sure! The answer is that entries expire.") == outputs.NO_JSON
    assert reject(j, json.dumps(good) + " Hope this helps!") == outputs.EXTRA_TEXT
    assert reject(j, '{"question": "When', "length") == outputs.TRUNCATED
    assert reject(j, '{"question": "When" "answer"}') == outputs.INVALID_JSON
    assert reject(j, json.dumps({"question": "Q?"})) == "malformed:missing_field:answer"
    assert (
        reject(j, json.dumps({"question": " ", "answer": "x"})) == "malformed:empty_field:question"
    )
    assert reject(j, json.dumps({"question": "Q?", "answer": 3})) == "malformed:not_text:answer"
    assert reject(j, "[1, 2]") == outputs.NO_JSON
    off = {"question": "Who won?", "answer": "Brazil won the football world championship final."}
    assert reject(j, json.dumps(off)) == outputs.UNGROUNDED


def test_code_exercise_needs_a_code_block_that_compiles() -> None:
    j = job("code_exercise")
    ok = {
        "exercise": "Write f.",
        "solution": "```python\ndef f(x):\n    return x\n```\nIt returns x.",
    }
    assert to_example(j, json.dumps(ok), "stop", "g", 1).messages[1]["content"] == ok["solution"]
    broken = {"exercise": "Write f.", "solution": "```python\ndef f(x) return x\n```"}
    assert reject(j, json.dumps(broken)) == outputs.CODE_SYNTAX
    assert (
        reject(j, json.dumps({"exercise": "Write f.", "solution": "just call f"}))
        == outputs.NO_CODE
    )
    js = {"exercise": "Write f.", "solution": "```javascript\nconst f = (x) => x;\n```"}
    assert to_example(j, json.dumps(js), "stop", "g", 1).kind == "qa"


def test_evol_instruct_drops_instructions_that_did_not_evolve() -> None:
    j = job("evol_instruct", seed_instruction="What does the clear function do?")
    same = {"instruction": "What does the clear function do?", "response": "It empties the cache."}
    assert reject(j, json.dumps(same)) == outputs.NOT_EVOLVED
    evolved = {
        "instruction": "What does the clear function do to entries that have not yet "
        "expired, and when would you call it in a long-running service?",
        "response": "It removes them too; call it after a configuration change.",
    }
    assert (
        to_example(j, json.dumps(evolved), "stop", "g", 1).messages[0]["content"]
        == evolved["instruction"]
    )
    assert "Seed instruction:" in j.request.messages[-1]["content"]  # type: ignore[index]


def test_multi_turn_and_judge_outputs() -> None:
    j = job("multi_turn")
    turns = [
        {"user": "What is stored?", "assistant": "Results of calls."},
        {"user": "For how long?", "assistant": "Until the time to live passes."},
    ]
    ex = to_example(j, json.dumps({"turns": turns}), "stop", "g", 1)
    assert [m["role"] for m in ex.messages] == ["user", "assistant"] * 2
    assert reject(j, json.dumps({"turns": turns[:1]})) == outputs.TOO_FEW_TURNS
    assert (
        reject(j, json.dumps({"turns": [{"user": "x"}] * 2})) == "malformed:missing_field:assistant"
    )
    assert outputs.judge_score('{"score": 4, "reason": "fine"}') == (4, "fine")
    assert outputs.judge_score('{"score": "5"}') == (5, "")
    for bad in ('{"score": 7}', '{"score": 2.5}', '{"score": true}', '{"reason": "x"}'):
        with pytest.raises(Malformed, match="malformed:score"):
            outputs.judge_score(bad)
