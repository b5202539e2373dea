"""The generator of record: the one the YAML configures until a student wins, then the
lineage's (improve/lineage.py); the backend an LLM teacher, or a promoted student, is
asked through; and the LLM judge the filter stage asks (its survivors, the phrasings)."""

from __future__ import annotations

from typing import Any

from jupiter.config import LLMConfig
from jupiter.improve.lineage import configured_id, yaml_generator_change
from jupiter.improve.workspace import Workspace
from jupiter.records import Example
from jupiter.synth.backend import Backend

LLM = "llm"


def initial_generator(ws: Workspace) -> tuple[str, str, str]:
    """(id, kind, path) of the generator the YAML configures (a new workspace starts with
    it; a changed YAML activates it)."""
    gen = ws.cfg.generator
    gen_id = configured_id(ws)
    if gen.type == "llm":
        return gen_id, LLM, ""
    if gen.type == "model" and gen.model_path:
        path = ws.model(gen.model_path)  # before the store records it: a bad one changes nothing
        return gen_id, "model", str(path)
    return "extractive", "extractive", ""


def active_generator(ws: Workspace) -> dict[str, Any]:
    """The generator of record: the YAML's until a student wins; a generator changed in the
    YAML since is recorded and activated first (the rule: improve/lineage.py)."""
    gen = ws.store.active_generator()
    if gen is None:
        gen_id, kind, path = initial_generator(ws)
        why = "the first generator: generator.type in the domain YAML"
        with ws.store.transaction():
            ws.store.add_generator(gen_id, kind, path, 0, reason=why)
            ws.store.activate_generator(gen_id, reason=why)
        gen = ws.store.active_generator()
    elif (change := yaml_generator_change(ws)) is not None:
        gen_id, kind, path = initial_generator(ws)  # a model is located (or imported) first
        why = f"generator changed in the YAML (was {change[1]})"
        known = ws.store.generator(gen_id)
        done = max((c["n"] for c in ws.store.cycles() if c["status"] == "done"), default=0)
        with ws.store.transaction():
            if known is None or known["status"] == "initial":
                ws.store.add_generator(gen_id, kind, path, 0, reason=why)
            ws.store.activate_generator(gen_id, cycle=done, action="configured", reason=why)
        gen = ws.store.active_generator()
        ws.console.print(
            f"generator: {gen_id} is active now ({why})", highlight=False, markup=False
        )
    assert gen is not None
    return gen


def llm_config(ws: Workspace, llm: LLMConfig) -> LLMConfig:
    """A local backend's model reference (a folder relative to the domain YAML, a Hub id, a
    GGUF file, ollama:NAME) as the model dir it loads."""
    if llm.backend in ("transformers", "mlx") and llm.model:
        return llm.model_copy(update={"model": str(ws.model(llm.model))})
    return llm


def backend_for(ws: Workspace, gen_row: dict[str, Any]) -> Backend:
    """The teacher of record: the configured LLM, or a promoted student's dir through the
    local backend the config names (mlx when llm.backend is mlx, else transformers)."""
    from jupiter.synth.http import make_backend

    llm = llm_config(ws, ws.cfg.generator.llm)
    if gen_row["kind"] == LLM:
        return make_backend(llm)
    local = "mlx" if llm.backend == "mlx" else "transformers"
    return make_backend(llm.model_copy(update={"backend": local, "model": gen_row["path"]}))


def judge_pending(ws: Workspace, examples: list[Example]) -> tuple[list[str], list[int | None]]:
    """The LLM judge over `examples` (the filter stage's survivors, the teacher's phrasings
    it kept): (reject reason or "", score or None) per example."""
    from jupiter.filters.judge import judge_examples, judge_llm
    from jupiter.synth.http import make_backend

    backend = make_backend(llm_config(ws, judge_llm(ws.cfg)))
    chunks = {c.id: c for c in ws.store.iter_chunks()}
    with ws.console.status(f"judging {len(examples)} examples…"):
        return judge_examples(examples, ws.cfg, backend, ws.store, chunks)
