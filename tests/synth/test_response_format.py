"""llm.response_format: each recipe's JSON schema sent to the server in the form it takes
(OpenAI's json_schema, or llama.cpp's json_object + schema), part of the cache key only when
sent (caches of free-text requests keep their keys), and refused where no server decodes."""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import asdict
from pathlib import Path

import pytest

from fakellm import FakeLLM
from jupiter.config import LLMConfig, load_domain
from jupiter.records import Chunk
from jupiter.synth.backend import Request, Sampling
from jupiter.synth.http import HTTPBackend
from jupiter.synth.recipes import SCHEMAS, plan

PASSAGE = "The cache stores results of expensive calls; each entry expires after its TTL."


def domain(tmp_path: Path, fmt: str, recipes: str = "grounded_qa") -> Path:
    tasks = ", ".join(f"{{recipe: {r}}}" for r in recipes.split(","))
    (tmp_path / "d.yaml").write_text(f"""
name: fmt
sources: [{{type: local, path: docs}}]
generator:
  type: llm
  num_requests: 5
  tasks: [{tasks}]
  llm: {{base_url: "http://127.0.0.1:9/v1", response_format: {fmt}}}
""")
    return tmp_path / "d.yaml"


def chunks() -> list[Chunk]:
    return [
        Chunk(
            doc_id=f"d{i}",
            source="local",
            uri=f"u{i}",
            title="Cache",
            start=0,
            end=len(PASSAGE),
            text=PASSAGE,
        )
        for i in range(3)
    ]


@pytest.mark.parametrize("fmt", ["json_schema", "json_object"])
def test_the_server_gets_each_recipes_schema_in_its_form(tmp_path: Path, fmt: str) -> None:
    cfg = load_domain(str(domain(tmp_path, fmt, "grounded_qa,multi_turn")))
    jobs = plan(chunks(), cfg, seed=1)
    assert {j.recipe for j in jobs} == {"grounded_qa", "multi_turn"}
    with FakeLLM() as llm:
        backend = HTTPBackend(cfg.generator.llm.model_copy(update={"base_url": llm.base_url}))

        async def ask() -> None:
            await backend.check()
            await backend.complete([j.request for j in jobs])
            await backend.close()

        asyncio.run(ask())
    assert len(llm.bodies) == len(jobs) >= 4
    for job, body in zip(jobs, sorted(llm.bodies, key=lambda b: b["seed"]), strict=True):
        rf = body["response_format"]
        if fmt == "json_schema":
            assert rf["type"] == "json_schema" and rf["json_schema"]["strict"] is True
            schema = rf["json_schema"]["schema"]
        else:
            assert rf["type"] == "json_object"
            schema = rf["schema"]
        assert schema == SCHEMAS[job.recipe]
    # the fields the parser demands, each a non-empty string, nothing else
    assert SCHEMAS["grounded_qa"] == {
        "type": "object",
        "required": ["question", "answer"],
        "additionalProperties": False,
        "properties": {k: {"type": "string", "minLength": 1} for k in ("question", "answer")},
    }
    turns = SCHEMAS["multi_turn"]["properties"]["turns"]
    assert turns["minItems"] == 2 and turns["items"]["required"] == ["user", "assistant"]


def test_free_text_requests_keep_their_cache_keys(tmp_path: Path) -> None:
    cfg = load_domain(str(domain(tmp_path, "text")))
    jobs = plan(chunks(), cfg, seed=1)
    sampling = jobs[0].request.sampling
    assert (sampling.schema, sampling.schema_form) == ("", "")
    # the key as it was computed before the schema fields existed
    old = {
        "backend": "openai",
        "model": "m",
        "prompt": None,
        "messages": [dict(m) for m in jobs[0].request.messages or ()],
        "sampling": {
            k: v for k, v in asdict(sampling).items() if k not in ("schema", "schema_form")
        },
    }
    raw = json.dumps(old, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    assert jobs[0].request.key("openai", "m") == hashlib.sha256(raw.encode()).hexdigest()
    # a schema changes the key: the same prompt decoded under a grammar is another call
    schema_cfg = load_domain(str(domain(tmp_path, "json_schema")))
    constrained = plan(chunks(), schema_cfg, seed=1)[0].request
    assert constrained.messages == jobs[0].request.messages
    assert constrained.key("openai", "m") != jobs[0].request.key("openai", "m")
    assert "response_format" not in HTTPBackend(cfg.generator.llm).body(jobs[0].request)[1]
    plain = Request(prompt="x", sampling=Sampling(schema="", schema_form=""))
    assert "response_format" not in HTTPBackend(cfg.generator.llm).body(plain)[1]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"backend": "transformers", "model": "m"}, "has no constrained decoding"),
        ({"api": "completions"}, "goes with api: chat"),
    ],
)
def test_response_format_is_refused_where_nothing_decodes_to_it(extra: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        LLMConfig(response_format="json_schema", **extra)
    LLMConfig(**extra)  # free text stays fine
